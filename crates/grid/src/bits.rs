//! `BitPlane`: rows of `u64` words, one bit per cell, 1 = blocked, with a blocked border.

/// A bit-packed plane of `rows × cols` cells stored as rows of `u64` words, bit `c % 64` of word
/// `c / 64` for column `c` (least significant bit = lowest column).
///
/// *Invariant*: the plane holds the grid plus a one-cell blocked border on every side, and every
/// padding bit past the last column is blocked too. Scanners therefore never check bounds: any
/// scan along a row stops at a blocked bit before leaving the row, and the rows above and below
/// any real row exist. Stored coordinates are the grid's plus one.
#[derive(Clone, PartialEq, Eq)]
pub struct BitPlane {
    stride: usize,
    rows: usize,
    cols: usize,
    words: Vec<u64>,
}

impl BitPlane {
    /// A plane for `rows × cols` real cells, all free, with the blocked border set.
    pub(crate) fn open(rows: usize, cols: usize) -> BitPlane {
        let stored_cols = cols + 2;
        let stride = stored_cols.div_ceil(64);
        let mut plane = BitPlane {
            stride,
            rows: rows + 2,
            cols: stored_cols,
            words: vec![0; stride * (rows + 2)],
        };
        for r in [0, rows + 1] {
            plane.row_mut(r).fill(u64::MAX);
        }
        for r in 1..=rows {
            plane.set_stored(r, 0, true);
            for c in cols + 1..stride * 64 {
                plane.set_stored(r, c, true);
            }
        }
        plane
    }

    /// Words per stored row.
    #[inline]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Number of stored rows (real rows + 2).
    #[inline]
    pub fn stored_rows(&self) -> usize {
        self.rows
    }

    /// Number of stored columns (real columns + 2).
    #[inline]
    pub fn stored_cols(&self) -> usize {
        self.cols
    }

    /// The words of stored row `r` (`0..stored_rows()`).
    #[inline]
    pub fn row(&self, r: usize) -> &[u64] {
        &self.words[r * self.stride..(r + 1) * self.stride]
    }

    #[inline]
    fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.words[r * self.stride..(r + 1) * self.stride]
    }

    /// All words, row after row; row `r` starts at `r * stride()`.
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Word `w` of stored row `r`: the bits of stored columns `64·w .. 64·w + 64`.
    #[inline]
    pub fn word(&self, r: usize, w: usize) -> u64 {
        self.words[r * self.stride + w]
    }

    /// Whether stored cell (`r`, `c`) is blocked.
    #[inline]
    pub fn is_blocked_stored(&self, r: usize, c: usize) -> bool {
        self.words[r * self.stride + c / 64] >> (c % 64) & 1 == 1
    }

    #[inline]
    pub(crate) fn set_stored(&mut self, r: usize, c: usize, blocked: bool) {
        let w = &mut self.words[r * self.stride + c / 64];
        let bit = 1u64 << (c % 64);
        if blocked { *w |= bit } else { *w &= !bit }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

impl std::fmt::Debug for BitPlane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BitPlane")
            .field("stored_rows", &self.rows)
            .field("stored_cols", &self.cols)
            .field("stride", &self.stride)
            .finish()
    }
}

//! The tile kernel ([`CpuKernel::BitFrontier`](crate::CpuKernel::BitFrontier)): a
//! breadth-first search whose frontier is a sparse set of 8 × 8 tiles, one `u64` each.
//!
//! Why it is fast on dense maps: a queue BFS pays a dozen dependent operations per cell, and
//! row sweeps need many passes when short free runs force small detours. Here a level costs
//! a handful of word operations per *tile* on the frontier: a tile's new cells (`u64`) spread
//! inside it with four shifts and to its four neighbour tiles with one shift each, masked by
//! their open (free, unreached) cells; its distances are written with two masked 32-lane
//! stores into a tile-major `u16` map, copied out in row order at the end. Square tiles keep
//! the frontier's tiles few: a front crosses an 8 × 8 tile in 8 to 16 levels.
//!
//! Exactness: level `t + 1` is exactly the open cells next to level `t` (a BFS); a tile
//! reached by several neighbours in one level gathers their bits in one word. Bits gathered
//! for level `t + 1` may include cells that a later tile of level `t` claimed; they are masked
//! with the open cells when the level is applied, so each cell gets its distance once.

use cuplan_grid::{Cell, Grid};

use crate::Distance;
use crate::distance::UNREACHABLE_U16;

/// Column 0 of every row of a tile.
const COL0: u64 = 0x0101_0101_0101_0101;
/// Column 7 of every row of a tile.
const COL7: u64 = COL0 << 7;

/// The free cells of a grid as 8 × 8 tiles (bit `8 * r + c` is cell `(8 * tx + c, 8 * ty +
/// r)`), with a ring of blocked tiles around the grid so neighbour tiles need no bounds checks.
pub(crate) struct TilePlane {
    width: usize,
    height: usize,
    /// Tiles per stored row, the ring included.
    pitch: usize,
    free: Vec<u64>,
}

impl TilePlane {
    pub(crate) fn new(grid: &Grid) -> TilePlane {
        let (width, height) = (grid.width() as usize, grid.height() as usize);
        let pitch = width.div_ceil(8) + 2;
        let mut free = vec![0u64; pitch * (height.div_ceil(8) + 2)];
        let plane = grid.rows();
        for y in 0..height {
            let stored = plane.row(y + 1);
            let tiles = &mut free[(y / 8 + 1) * pitch + 1..];
            for k in 0..width.div_ceil(64) {
                let open = crate::distance::free_columns(stored, k);
                for (j, tile) in tiles[8 * k..].iter_mut().take(8).enumerate() {
                    *tile |= (open >> (8 * j) & 0xff) << (8 * (y % 8));
                }
            }
        }
        TilePlane {
            width,
            height,
            pitch,
            free,
        }
    }

    fn tile_of(&self, cell: Cell) -> (usize, u32) {
        let (x, y) = (cell.x as usize, cell.y as usize);
        let t = (y / 8 + 1) * self.pitch + x / 8 + 1;
        (t, (8 * (y % 8) + x % 8) as u32)
    }
}

/// The distances of one tile's cells (row-major), aligned so that a tile is two whole cache
/// lines and no 64-byte level write straddles two.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct TileDistances([u16; 64]);

/// Which code the kernel runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Code {
    /// Masked AVX-512 stores and copies.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// Plain Rust, a cell at a time where the other writes a vector.
    Plain,
}

impl Code {
    fn detect() -> Code {
        #[cfg(target_arch = "x86_64")]
        if crate::sweep::supported() {
            return Code::Avx512;
        }
        Code::Plain
    }
}

/// One thread's buffers, reused across goals.
#[derive(Default)]
pub(crate) struct TileBfs {
    /// Free and not yet reached, per tile.
    open: Vec<u64>,
    /// Bits gathered for the next two levels (by parity).
    next: [Vec<u64>; 2],
    /// Tiles with gathered bits, per level parity.
    touched: [Vec<u32>; 2],
    /// Distances, valid for the free cells no longer `open`.
    tiled: Vec<TileDistances>,
}

impl TileBfs {
    pub(crate) fn bytes(&self) -> usize {
        self.open.capacity() * 8
            + self.next.iter().map(|v| v.capacity() * 8).sum::<usize>()
            + self.touched.iter().map(|v| v.capacity() * 4).sum::<usize>()
            + self.tiled.capacity() * size_of::<TileDistances>()
    }

    /// Fills `out` (row-major, any contents) with the distances to the free cell `goal`;
    /// returns the largest, or `None` when it passes `u16` (`out` is then unspecified).
    pub(crate) fn fill<D: Distance>(
        &mut self,
        plane: &TilePlane,
        goal: Cell,
        out: &mut [D],
    ) -> Option<u32> {
        self.fill_with(plane, goal, out, Code::detect())
    }

    /// [`TileBfs::fill`] with the given code (tests run both).
    fn fill_with<D: Distance>(
        &mut self,
        plane: &TilePlane,
        goal: Cell,
        out: &mut [D],
        code: Code,
    ) -> Option<u32> {
        self.reset(plane);
        match code {
            #[cfg(target_arch = "x86_64")]
            Code::Avx512 => {
                // SAFETY: `Code::Avx512` is only made when the processor has AVX-512
                // (`Code::detect`, and the tests check `supported()` themselves).
                let top = unsafe { self.search_avx512(plane, goal) }?;
                // SAFETY: as for the search: `Code::Avx512` means the processor has the
                // features `copy_out_avx512` is compiled for.
                unsafe { self.copy_out_avx512(plane, out) };
                Some(top)
            }
            Code::Plain => {
                let top = self.levels(plane, goal, write_level)?;
                self.copy_out_plain(plane, out);
                Some(top)
            }
        }
    }

    fn reset(&mut self, plane: &TilePlane) {
        let tiles = plane.free.len();
        self.open.clear();
        self.open.extend_from_slice(&plane.free);
        for (next, touched) in self.next.iter_mut().zip(&mut self.touched) {
            next.clear();
            next.resize(tiles, 0);
            // Written before read: only the length matters.
            touched.resize(tiles, 0);
        }
        self.tiled.resize(tiles, TileDistances([0; 64]));
    }

    /// The breadth-first search with AVX-512 level writes; returns the largest distance, or
    /// `None` past `u16`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    fn search_avx512(&mut self, plane: &TilePlane, goal: Cell) -> Option<u32> {
        // SAFETY: this function is compiled with the features `write_level_avx512` needs.
        self.levels(plane, goal, |tile, bits, level| unsafe {
            write_level_avx512(tile, bits, level)
        })
    }

    /// The levels of the search, writing each with `write`.
    #[inline(always)]
    fn levels(
        &mut self,
        plane: &TilePlane,
        goal: Cell,
        write: impl Fn(&mut [u16; 64], u64, u16),
    ) -> Option<u32> {
        let (g, bit) = plane.tile_of(goal);
        let pitch = plane.pitch;
        self.next[0][g] = 1 << bit;
        self.touched[0][0] = g as u32;
        let mut count = 1;
        let mut level = 0u32;
        let open = &mut self.open[..];
        let tiled = &mut self.tiled[..];
        loop {
            let ([next_even, next_odd], [touched_even, touched_odd]) =
                (&mut self.next, &mut self.touched);
            let ((next_now, next_later), (touched_now, touched_later)) = if level.is_multiple_of(2)
            {
                ((next_even, next_odd), (touched_even, touched_odd))
            } else {
                ((next_odd, next_even), (touched_odd, touched_even))
            };
            // Slices, not vectors: the loop then keeps their pointers in registers.
            let (next_now, next_later) = (&mut next_now[..], &mut next_later[..]);
            let (touched_now, touched_later) = (&touched_now[..count], &mut touched_later[..]);
            let mut gathered = 0;
            for &t in touched_now {
                let t = t as usize;
                // SAFETY: for every unchecked index below, a tile gets listed only with bits of
                // its open cells, so `t` is a tile of the grid, never of the blocked ring, and
                // its four neighbours exist; a level lists each tile once, and the ring's
                // tiles never, so `gathered` stays below the number of tiles.
                unsafe {
                    let new =
                        std::mem::take(next_now.get_unchecked_mut(t)) & *open.get_unchecked(t);
                    if new == 0 {
                        continue;
                    }
                    *open.get_unchecked_mut(t) ^= new;
                    write(&mut tiled.get_unchecked_mut(t).0, new, level as u16);
                    let inside =
                        ((new << 1) & !COL0) | ((new >> 1) & !COL7) | (new << 8) | (new >> 8);
                    let mut gather = |u: usize, bits: u64| {
                        let bits = bits & *open.get_unchecked(u);
                        let slot = next_later.get_unchecked_mut(u);
                        *touched_later.get_unchecked_mut(gathered) = u as u32;
                        gathered += usize::from(*slot == 0 && bits != 0);
                        *slot |= bits;
                    };
                    gather(t, inside);
                    gather(t - 1, (new & COL0) << 7);
                    gather(t + 1, (new & COL7) >> 7);
                    gather(t - pitch, new << 56);
                    gather(t + pitch, new >> 56);
                }
            }
            if gathered == 0 {
                return Some(level);
            }
            level += 1;
            if level >= u32::from(UNREACHABLE_U16) {
                return None;
            }
            count = gathered;
        }
    }

    /// Copies the tile-major distances into the row-major `out`, 32 cells (four tiles' rows)
    /// an operation.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,popcnt,bmi1,lzcnt")]
    fn copy_out_avx512<D: Distance>(&self, plane: &TilePlane, out: &mut [D]) {
        use std::arch::x86_64::*;
        let w = plane.width;
        let narrow = size_of::<D>() == 2;
        for (y, row) in out.chunks_exact_mut(w).enumerate().take(plane.height) {
            let r = y % 8;
            let first = (y / 8 + 1) * plane.pitch + 1;
            // The tiles read past the row's last one belong to the ring or the next stored
            // row, which exist; their lanes are not stored.
            assert!(first + 4 * w.div_ceil(32) <= self.tiled.len());
            assert!(first + 4 * w.div_ceil(32) <= self.open.len());
            let shift = _mm256_set1_epi64x(8 * r as i64);
            for g in 0..w.div_ceil(32) {
                let t = first + 4 * g;
                // SAFETY: the asserts above keep tiles `t..t + 4` inside both buffers; the
                // stores are masked to the row's cells.
                unsafe {
                    let src = self.tiled.as_ptr().add(t).cast::<u16>().add(8 * r);
                    let lanes = _mm512_inserti64x4::<1>(
                        _mm512_castsi256_si512(_mm256_set_m128i(
                            _mm_loadu_si128(src.add(64).cast()),
                            _mm_loadu_si128(src.cast()),
                        )),
                        _mm256_set_m128i(
                            _mm_loadu_si128(src.add(192).cast()),
                            _mm_loadu_si128(src.add(128).cast()),
                        ),
                    );
                    let reached = _mm256_andnot_si256(
                        _mm256_loadu_si256(self.open.as_ptr().add(t).cast()),
                        _mm256_loadu_si256(plane.free.as_ptr().add(t).cast()),
                    );
                    let bytes = _mm256_cvtepi64_epi8(_mm256_srlv_epi64(reached, shift));
                    let reached = _mm_cvtsi128_si32(bytes) as u32;
                    let left = w - 32 * g;
                    let inside = if left >= 32 {
                        u32::MAX
                    } else {
                        (1 << left) - 1
                    };
                    let dst = row.as_mut_ptr().add(32 * g);
                    if narrow {
                        let v = _mm512_mask_mov_epi16(_mm512_set1_epi16(-1), reached, lanes);
                        _mm512_mask_storeu_epi16(dst.cast(), inside, v);
                    } else {
                        let all = _mm512_set1_epi32(-1);
                        let lo = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(lanes));
                        let hi = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(lanes));
                        let lo = _mm512_mask_mov_epi32(all, reached as u16, lo);
                        let hi = _mm512_mask_mov_epi32(all, (reached >> 16) as u16, hi);
                        _mm512_mask_storeu_epi32(dst.cast(), inside as u16, lo);
                        _mm512_mask_storeu_epi32(dst.add(16).cast(), (inside >> 16) as u16, hi);
                    }
                }
            }
        }
    }

    /// Copies the tile-major distances into the row-major `out`, a cell at a time.
    fn copy_out_plain<D: Distance>(&self, plane: &TilePlane, out: &mut [D]) {
        let w = plane.width;
        for (y, row) in out.chunks_exact_mut(w).enumerate().take(plane.height) {
            let r = y % 8;
            let first = (y / 8 + 1) * plane.pitch + 1;
            for (tx, cells) in row.chunks_mut(8).enumerate() {
                let t = first + tx;
                let reached = ((plane.free[t] & !self.open[t]) >> (8 * r)) as u8;
                let src = &self.tiled[t].0[8 * r..8 * r + 8];
                for (c, (dst, &d)) in cells.iter_mut().zip(src).enumerate() {
                    *dst = if reached >> c & 1 != 0 {
                        D::from_level(u32::from(d))
                    } else {
                        D::UNREACHABLE
                    };
                }
            }
        }
    }
}

/// Writes `level` into the lanes of `tile` (64 cells) set in `bits`.
#[inline(always)]
fn write_level(tile: &mut [u16; 64], bits: u64, level: u16) {
    let mut rest = bits;
    while rest != 0 {
        tile[rest.trailing_zeros() as usize] = level;
        rest &= rest - 1;
    }
}

/// [`write_level`] with two masked 32-lane stores.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn write_level_avx512(tile: &mut [u16; 64], bits: u64, level: u16) {
    use std::arch::x86_64::*;
    // SAFETY: the caller has AVX-512F and BW; both stores lie inside `tile` (64 lanes).
    unsafe {
        let v = _mm512_set1_epi16(level as i16);
        _mm512_mask_storeu_epi16(tile.as_mut_ptr().cast(), bits as u32, v);
        _mm512_mask_storeu_epi16(tile.as_mut_ptr().add(32).cast(), (bits >> 32) as u32, v);
    }
}

#[cfg(test)]
mod tests {
    use cuplan_grid::generate;

    use super::*;
    use crate::distance::queue_map;

    /// The codes this processor runs: plain always, AVX-512 where it has it.
    fn codes() -> Vec<Code> {
        let mut codes = vec![Code::Plain];
        if Code::detect() != Code::Plain {
            codes.push(Code::detect());
        }
        codes
    }

    /// Every width and height around the tile (8) and copy-out group (32) sizes, one set of
    /// buffers reused across all of them (stale tiles must not leak), both output widths,
    /// both codes.
    #[test]
    fn tile_edges_and_reused_buffers_match_the_queue_kernel() {
        let mut bfs = TileBfs::default();
        let sides = [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 97];
        for (i, &w) in sides.iter().enumerate() {
            for (j, &h) in sides.iter().enumerate() {
                let grid = generate::random(w, h, 0.25, (i * 31 + j) as u64).unwrap();
                let plane = TilePlane::new(&grid);
                let corners = [
                    (0, 0),
                    (w - 1, 0),
                    (0, h - 1),
                    (w - 1, h - 1),
                    (w / 2, h / 2),
                ];
                for goal in corners.map(|(x, y)| Cell::new(x, y)) {
                    if !grid.is_free(goal) {
                        continue;
                    }
                    let want = queue_map(&grid, goal);
                    let far = want.iter().filter(|&&d| d != u32::MAX).max().copied();
                    for code in codes() {
                        let mut wide = vec![7u32; grid.cell_count()];
                        let top = bfs.fill_with(&plane, goal, &mut wide, code);
                        assert_eq!(wide, want, "{w}x{h} goal {goal} {code:?}");
                        assert_eq!(top, far);
                        let mut narrow = vec![7u16; grid.cell_count()];
                        bfs.fill_with(&plane, goal, &mut narrow, code);
                        let narrowed: Vec<u32> = narrow
                            .iter()
                            .map(|&d| {
                                if d == UNREACHABLE_U16 {
                                    u32::MAX
                                } else {
                                    u32::from(d)
                                }
                            })
                            .collect();
                        assert_eq!(narrowed, want, "{w}x{h} goal {goal} {code:?} (u16)");
                    }
                }
            }
        }
    }

    #[test]
    fn a_distance_past_u16_is_refused() {
        let fits = Grid::open(65_535, 1).unwrap();
        let plane = TilePlane::new(&fits);
        let over = Grid::open(65_536, 1).unwrap();
        let over_plane = TilePlane::new(&over);
        for code in codes() {
            let mut out = vec![0u32; fits.cell_count()];
            let top = TileBfs::default().fill_with(&plane, Cell::new(0, 0), &mut out, code);
            assert_eq!(top, Some(65_534));
            assert_eq!(out[65_534], 65_534);
            let mut out = vec![0u32; over.cell_count()];
            let top = TileBfs::default().fill_with(&over_plane, Cell::new(0, 0), &mut out, code);
            assert_eq!(top, None);
        }
    }
}

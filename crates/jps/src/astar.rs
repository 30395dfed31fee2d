//! Successors for plain A*: the legal single steps, read from the bit plane in three loads.

use cuplan_grid::{Cell, Direction, Grid};

use crate::engine::Expander;

/// Single-step successors (no corner cutting).
#[derive(Debug)]
pub(crate) struct AStarExpander<'g> {
    pub(crate) grid: &'g Grid,
}

/// Three bits of stored row `row` starting at stored column `c0`, 1 = blocked.
#[inline]
pub(crate) fn bits3(row: &[u64], c0: usize) -> u64 {
    let (w, o) = (c0 / 64, c0 % 64);
    let mut v = row[w] >> o;
    if o > 61 {
        v |= row[w + 1] << (64 - o);
    }
    v & 7
}

/// Legal moves from `n` as a bit mask over [`Direction::index`].
#[inline]
pub(crate) fn legal_moves(grid: &Grid, n: Cell) -> u32 {
    let plane = grid.rows();
    let (r, c0) = (n.y as usize + 1, n.x as usize);
    // Free bits: 1 = west, 2 = centre, 4 = east.
    let up = !bits3(plane.row(r - 1), c0) & 7;
    let mid = !bits3(plane.row(r), c0) & 7;
    let dn = !bits3(plane.row(r + 1), c0) & 7;
    let (n_, s_, e_, w_) = (up >> 1 & 1, dn >> 1 & 1, mid >> 2 & 1, mid & 1);
    let ne = (up >> 2) & n_ & e_;
    let se = (dn >> 2) & s_ & e_;
    let sw = dn & s_ & w_;
    let nw = up & n_ & w_;
    (n_ | ne << 1 | e_ << 2 | se << 3 | s_ << 4 | sw << 5 | w_ << 6 | nw << 7) as u32
}

/// The neighbour of `n` in `d`, for a move known to be legal.
#[inline]
pub(crate) fn neighbour(n: Cell, d: Direction) -> Cell {
    let (dx, dy) = d.delta();
    Cell::new(n.x.wrapping_add_signed(dx), n.y.wrapping_add_signed(dy))
}

impl Expander for AStarExpander<'_> {
    #[inline]
    fn expand(&self, n: Cell, _: Option<Direction>, _: Cell, out: &mut impl FnMut(Cell)) {
        let mut moves = legal_moves(self.grid, n);
        while moves != 0 {
            let d = Direction::from_index(moves.trailing_zeros() as usize);
            moves &= moves - 1;
            out(neighbour(n, d));
        }
    }
}

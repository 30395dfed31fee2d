//! Jumps for the JPS family under the no-corner-cutting rules, and the JPS successor rule.
//!
//! Rules (see `shared/notes/jps-no-corner-cutting.md`): a straight jump stops at a cell with a
//! forced neighbour (the side cell is free and the cell behind it, one step back along the
//! jump, is blocked), at the goal, or dies at a wall. A diagonal step is legal only when both
//! orthogonal cells are free and never creates a forced neighbour; a diagonal jump stops at the
//! goal or at a cell whose straight probes (horizontal, then vertical component) find a jump
//! point, and dies as soon as the next diagonal step is illegal.

use cuplan_grid::{BitPlane, Cell, Direction, Grid};

use crate::astar::neighbour;
use crate::engine::Expander;

/// Whether `(x, y)` is outside the grid or blocked.
#[inline]
pub(crate) fn blocked(grid: &Grid, x: i64, y: i64) -> bool {
    !grid.is_free_signed(x, y)
}

/// Whether one diagonal step from `c` in `d` is legal (target and both orthogonals free).
#[inline]
pub(crate) fn diagonal_step_legal(grid: &Grid, c: Cell, d: Direction) -> bool {
    let plane = grid.rows();
    let (dx, dy) = d.delta();
    let (r, col) = (c.y as usize + 1, c.x as usize + 1);
    let r2 = r.wrapping_add_signed(dy as isize);
    let c2 = col.wrapping_add_signed(dx as isize);
    !plane.is_blocked_stored(r2, c2)
        && !plane.is_blocked_stored(r, c2)
        && !plane.is_blocked_stored(r2, col)
}

/// Performs straight and diagonal jumps.
pub(crate) trait Jumper {
    /// The grid jumped on.
    fn grid(&self) -> &Grid;

    /// The first jump point (or the goal) strictly after `n` moving straight in `d`, or
    /// `None` when a wall comes first.
    fn straight(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell>;

    /// The first cell after `n` moving diagonally in `d` that is the goal or whose straight
    /// probes find a jump point; `None` when the diagonal run ends first.
    #[inline]
    fn diagonal(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell> {
        let (h, v) = d.components();
        let mut c = n;
        loop {
            if !diagonal_step_legal(self.grid(), c, d) {
                return None;
            }
            c = neighbour(c, d);
            if c == goal
                || self.straight(c, h, goal).is_some()
                || self.straight(c, v, goal).is_some()
            {
                return Some(c);
            }
        }
    }

    /// The pruned diagonal jump: emits what the straight probes of every cell on the diagonal
    /// find (the intermediate jump points themselves are not emitted) and the goal if the
    /// diagonal reaches it.
    #[inline]
    fn diagonal_pruned(&self, n: Cell, d: Direction, goal: Cell, out: &mut impl FnMut(Cell)) {
        let (h, v) = d.components();
        let mut c = n;
        loop {
            if !diagonal_step_legal(self.grid(), c, d) {
                return;
            }
            c = neighbour(c, d);
            if c == goal {
                out(c);
                return;
            }
            if let Some(j) = self.straight(c, h, goal) {
                out(j);
            }
            if let Some(j) = self.straight(c, v, goal) {
                out(j);
            }
        }
    }
}

/// Cell-by-cell jumps: the textbook JPS.
#[derive(Debug)]
pub(crate) struct CellJumper<'g> {
    pub(crate) grid: &'g Grid,
}

impl Jumper for CellJumper<'_> {
    #[inline]
    fn grid(&self) -> &Grid {
        self.grid
    }

    fn straight(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell> {
        let g = self.grid;
        let (dx, dy) = d.delta();
        let (dx, dy) = (i64::from(dx), i64::from(dy));
        let (mut x, mut y) = (i64::from(n.x), i64::from(n.y));
        let (gx, gy) = (i64::from(goal.x), i64::from(goal.y));
        loop {
            x += dx;
            y += dy;
            if blocked(g, x, y) {
                return None;
            }
            let here = Cell::new(x as u32, y as u32);
            if (x, y) == (gx, gy) {
                return Some(here);
            }
            // Side cells (sx, sy) = (x, y) ± the perpendicular; forced when the cell one step
            // back from the side cell is blocked and the side cell is free.
            let (px, py) = (dy, dx);
            let forced = |s: i64| {
                blocked(g, x + s * px - dx, y + s * py - dy) && !blocked(g, x + s * px, y + s * py)
            };
            if forced(1) || forced(-1) {
                return Some(here);
            }
        }
    }
}

/// Bit-scanning jumps (block-based JPS): straight jumps scan 64 cells per word.
#[derive(Debug)]
pub(crate) struct BitJumper<'g> {
    pub(crate) grid: &'g Grid,
}

impl Jumper for BitJumper<'_> {
    #[inline]
    fn grid(&self) -> &Grid {
        self.grid
    }

    #[inline]
    fn straight(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell> {
        let g = self.grid;
        match d {
            Direction::East => {
                let gc = (goal.y == n.y && goal.x > n.x).then_some(goal.x as usize + 1);
                scan_increasing(g.rows(), n.y as usize + 1, n.x as usize + 1, gc)
                    .map(|c| Cell::new(c as u32 - 1, n.y))
            }
            Direction::West => {
                let gc = (goal.y == n.y && goal.x < n.x).then_some(goal.x as usize + 1);
                scan_decreasing(g.rows(), n.y as usize + 1, n.x as usize + 1, gc)
                    .map(|c| Cell::new(c as u32 - 1, n.y))
            }
            Direction::South => {
                let gc = (goal.x == n.x && goal.y > n.y).then_some(goal.y as usize + 1);
                scan_increasing(g.cols(), n.x as usize + 1, n.y as usize + 1, gc)
                    .map(|r| Cell::new(n.x, r as u32 - 1))
            }
            Direction::North => {
                let gc = (goal.x == n.x && goal.y < n.y).then_some(goal.y as usize + 1);
                scan_decreasing(g.cols(), n.x as usize + 1, n.y as usize + 1, gc)
                    .map(|r| Cell::new(n.x, r as u32 - 1))
            }
            _ => None,
        }
    }
}

/// The three stored rows `r - 1`, `r`, `r + 1` of a plane.
#[inline]
fn three_rows(plane: &BitPlane, r: usize) -> (&[u64], &[u64], &[u64]) {
    let s = plane.stride();
    let w = plane.words();
    (
        &w[(r - 1) * s..r * s],
        &w[r * s..(r + 1) * s],
        &w[(r + 1) * s..(r + 2) * s],
    )
}

/// Scans stored row `r` from stored column `c` toward higher columns. Returns the stored column
/// of the first jump point, or of `goal` when it comes first; `None` at a wall.
///
/// Forced neighbour at column `j`: a side row is blocked at `j - 1` and free at `j`.
#[inline]
pub(crate) fn scan_increasing(
    plane: &BitPlane,
    r: usize,
    c: usize,
    goal: Option<usize>,
) -> Option<usize> {
    let (up, cur, dn) = three_rows(plane, r);
    let i = c + 1;
    let mut w = i / 64;
    let mut mask = u64::MAX << (i % 64);
    let (mut up_carry, mut dn_carry) = match w {
        0 => (1, 1),
        _ => (up[w - 1] >> 63, dn[w - 1] >> 63),
    };
    loop {
        let (b, u, d) = (cur[w], up[w], dn[w]);
        let forced = ((u << 1 | up_carry) & !u) | ((d << 1 | dn_carry) & !d);
        let stop = (b | forced) & mask;
        if stop != 0 {
            let j = w * 64 + stop.trailing_zeros() as usize;
            if let Some(gc) = goal
                && gc <= j
            {
                return Some(gc);
            }
            return (b >> (j % 64) & 1 == 0).then_some(j);
        }
        up_carry = u >> 63;
        dn_carry = d >> 63;
        w += 1;
        mask = u64::MAX;
    }
}

/// Like [`scan_increasing`] toward lower columns; forced at `j` when a side row is blocked at
/// `j + 1` and free at `j`.
#[inline]
pub(crate) fn scan_decreasing(
    plane: &BitPlane,
    r: usize,
    c: usize,
    goal: Option<usize>,
) -> Option<usize> {
    let (up, cur, dn) = three_rows(plane, r);
    let i = c - 1;
    let mut w = i / 64;
    let mut mask = u64::MAX >> (63 - i % 64);
    let (mut up_carry, mut dn_carry) = if w + 1 < up.len() {
        (up[w + 1] << 63, dn[w + 1] << 63)
    } else {
        (1 << 63, 1 << 63)
    };
    loop {
        let (b, u, d) = (cur[w], up[w], dn[w]);
        let forced = ((u >> 1 | up_carry) & !u) | ((d >> 1 | dn_carry) & !d);
        let stop = (b | forced) & mask;
        if stop != 0 {
            let j = w * 64 + 63 - stop.leading_zeros() as usize;
            if let Some(gc) = goal
                && gc >= j
            {
                return Some(gc);
            }
            return (b >> (j % 64) & 1 == 0).then_some(j);
        }
        up_carry = u << 63;
        dn_carry = d << 63;
        // Stored column 0 is blocked, so the scan stops before running off word 0.
        w -= 1;
        mask = u64::MAX;
    }
}

/// The straight direction between `d` and the perpendicular `side`'s diagonal.
#[inline]
fn diagonal_of(d: Direction, side: Direction) -> Direction {
    let (a, b) = (d.delta(), side.delta());
    Direction::from_delta(a.0 + b.0, a.1 + b.1).unwrap_or(d)
}

/// The JPS successor rule over any [`Jumper`]; `pruned` selects JPS-BitPrune's diagonal jumps.
#[derive(Debug)]
pub(crate) struct JpsExpander<J> {
    pub(crate) jumper: J,
    pub(crate) pruned: bool,
}

impl<J: Jumper> JpsExpander<J> {
    #[inline]
    fn jump(&self, n: Cell, d: Direction, goal: Cell, out: &mut impl FnMut(Cell)) {
        if !d.is_diagonal() {
            if let Some(j) = self.jumper.straight(n, d, goal) {
                out(j);
            }
        } else if self.pruned {
            self.jumper.diagonal_pruned(n, d, goal, out);
        } else if let Some(j) = self.jumper.diagonal(n, d, goal) {
            out(j);
        }
    }
}

/// Whether `n`, reached moving straight in `d`, has a forced neighbour on `side`.
#[inline]
pub(crate) fn forced_side(grid: &Grid, n: Cell, d: Direction, side: Direction) -> bool {
    let (dx, dy) = d.delta();
    let (sx, sy) = side.delta();
    let (x, y) = (i64::from(n.x), i64::from(n.y));
    let (sx, sy) = (i64::from(sx), i64::from(sy));
    blocked(grid, x + sx - i64::from(dx), y + sy - i64::from(dy)) && !blocked(grid, x + sx, y + sy)
}

impl<J: Jumper> Expander for JpsExpander<J> {
    #[inline]
    fn expand(&self, n: Cell, arrival: Option<Direction>, goal: Cell, out: &mut impl FnMut(Cell)) {
        match arrival {
            None => {
                for d in Direction::ALL {
                    self.jump(n, d, goal, out);
                }
            }
            Some(d) if d.is_diagonal() => {
                let (h, v) = d.components();
                self.jump(n, h, goal, out);
                self.jump(n, v, goal, out);
                self.jump(n, d, goal, out);
            }
            Some(d) => {
                self.jump(n, d, goal, out);
                let grid = self.jumper.grid();
                for side in [
                    Direction::from_index(d.index() + 2),
                    Direction::from_index(d.index() + 6),
                ] {
                    if forced_side(grid, n, d, side) {
                        self.jump(n, side, goal, out);
                        self.jump(n, diagonal_of(d, side), goal, out);
                    }
                }
            }
        }
    }
}

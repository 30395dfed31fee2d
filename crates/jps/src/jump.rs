//! Jumps for the JPS family under the no-corner-cutting rules, and the JPS successor rule.
//!
//! Rules (see `docs/jps-rules.md`): a straight jump stops at a cell with a
//! forced neighbour (the side cell is free and the cell behind it, one step back along the
//! jump, is blocked), at the goal, or dies at a wall. A diagonal step is legal only when both
//! orthogonal cells are free and never creates a forced neighbour; a diagonal jump stops at the
//! goal or at a cell whose straight probes (horizontal, then vertical component) find a jump
//! point, and dies as soon as the next diagonal step is illegal.

use cuplan_grid::{BitPlane, Cell, Direction, Grid};

use crate::astar::neighbour;
use crate::engine::Expander;
use crate::table::JumpTable;

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

impl BitJumper<'_> {
    /// Jump east from real cell (`x`, `y`).
    #[inline(always)]
    fn east(&self, x: u32, y: u32, goal: Cell) -> Option<Cell> {
        let (j, jump_point) = scan_increasing(self.grid.rows(), y as usize + 1, x as usize + 1);
        let stop = j as u32 - 1;
        if goal.y == y && goal.x > x && goal.x <= stop {
            return Some(goal);
        }
        jump_point.then_some(Cell::new(stop, y))
    }

    #[inline(always)]
    fn west(&self, x: u32, y: u32, goal: Cell) -> Option<Cell> {
        let (j, jump_point) = scan_decreasing(self.grid.rows(), y as usize + 1, x as usize + 1);
        let stop = (j as u32).wrapping_sub(1);
        if goal.y == y && goal.x < x && (j == 0 || goal.x >= stop) {
            return Some(goal);
        }
        jump_point.then_some(Cell::new(stop, y))
    }

    #[inline(always)]
    fn south(&self, x: u32, y: u32, goal: Cell) -> Option<Cell> {
        let (j, jump_point) = scan_increasing(self.grid.cols(), x as usize + 1, y as usize + 1);
        let stop = j as u32 - 1;
        if goal.x == x && goal.y > y && goal.y <= stop {
            return Some(goal);
        }
        jump_point.then_some(Cell::new(x, stop))
    }

    #[inline(always)]
    fn north(&self, x: u32, y: u32, goal: Cell) -> Option<Cell> {
        let (j, jump_point) = scan_decreasing(self.grid.cols(), x as usize + 1, y as usize + 1);
        let stop = (j as u32).wrapping_sub(1);
        if goal.x == x && goal.y < y && (j == 0 || goal.y >= stop) {
            return Some(goal);
        }
        jump_point.then_some(Cell::new(x, stop))
    }

    /// The horizontal (`DX`) straight probe.
    #[inline(always)]
    fn horizontal<const DX: i32>(&self, x: u32, y: u32, goal: Cell) -> Option<Cell> {
        if DX > 0 {
            self.east(x, y, goal)
        } else {
            self.west(x, y, goal)
        }
    }

    /// The vertical (`DY`) straight probe.
    #[inline(always)]
    fn vertical<const DY: i32>(&self, x: u32, y: u32, goal: Cell) -> Option<Cell> {
        if DY > 0 {
            self.south(x, y, goal)
        } else {
            self.north(x, y, goal)
        }
    }

    /// Whether the diagonal step (`DX`, `DY`) from stored (`sx`, `sy`) is legal.
    #[inline(always)]
    fn diagonal_legal<const DX: i32, const DY: i32>(&self, sx: usize, sy: usize) -> bool {
        let plane = self.grid.rows();
        let (words, stride) = (plane.words(), plane.stride());
        let nx = sx.wrapping_add_signed(DX as isize);
        let ny = sy.wrapping_add_signed(DY as isize);
        let bit = |r: usize, c: usize| words[r * stride + c / 64] >> (c % 64) & 1;
        (bit(sy, nx) | bit(ny, sx) | bit(ny, nx)) == 0
    }

    #[inline(always)]
    fn diagonal_d<const DX: i32, const DY: i32>(&self, n: Cell, goal: Cell) -> Option<Cell> {
        let (mut x, mut y) = (n.x, n.y);
        loop {
            if !self.diagonal_legal::<DX, DY>(x as usize + 1, y as usize + 1) {
                return None;
            }
            x = x.wrapping_add_signed(DX);
            y = y.wrapping_add_signed(DY);
            if (x, y) == (goal.x, goal.y)
                || self.horizontal::<DX>(x, y, goal).is_some()
                || self.vertical::<DY>(x, y, goal).is_some()
            {
                return Some(Cell::new(x, y));
            }
        }
    }

    #[inline(always)]
    fn diagonal_pruned_d<const DX: i32, const DY: i32>(
        &self,
        n: Cell,
        goal: Cell,
        out: &mut impl FnMut(Cell),
    ) {
        let (mut x, mut y) = (n.x, n.y);
        loop {
            if !self.diagonal_legal::<DX, DY>(x as usize + 1, y as usize + 1) {
                return;
            }
            x = x.wrapping_add_signed(DX);
            y = y.wrapping_add_signed(DY);
            if (x, y) == (goal.x, goal.y) {
                out(goal);
                return;
            }
            if let Some(j) = self.horizontal::<DX>(x, y, goal) {
                out(j);
            }
            if let Some(j) = self.vertical::<DY>(x, y, goal) {
                out(j);
            }
        }
    }
}

impl Jumper for BitJumper<'_> {
    #[inline]
    fn grid(&self) -> &Grid {
        self.grid
    }

    #[inline]
    fn straight(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell> {
        match d {
            Direction::East => self.east(n.x, n.y, goal),
            Direction::West => self.west(n.x, n.y, goal),
            Direction::South => self.south(n.x, n.y, goal),
            Direction::North => self.north(n.x, n.y, goal),
            _ => None,
        }
    }

    #[inline]
    fn diagonal(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell> {
        match d {
            Direction::NorthEast => self.diagonal_d::<1, -1>(n, goal),
            Direction::SouthEast => self.diagonal_d::<1, 1>(n, goal),
            Direction::SouthWest => self.diagonal_d::<-1, 1>(n, goal),
            Direction::NorthWest => self.diagonal_d::<-1, -1>(n, goal),
            _ => None,
        }
    }

    #[inline]
    fn diagonal_pruned(&self, n: Cell, d: Direction, goal: Cell, out: &mut impl FnMut(Cell)) {
        match d {
            Direction::NorthEast => self.diagonal_pruned_d::<1, -1>(n, goal, out),
            Direction::SouthEast => self.diagonal_pruned_d::<1, 1>(n, goal, out),
            Direction::SouthWest => self.diagonal_pruned_d::<-1, 1>(n, goal, out),
            Direction::NorthWest => self.diagonal_pruned_d::<-1, -1>(n, goal, out),
            _ => {}
        }
    }
}

/// Table jumps (JPS+): every jump is one lookup in a [`JumpTable`] (plus one per 32,766
/// cells of a run too long for the table's `i16`, see [`JumpTable::distance`]).
#[derive(Debug)]
pub(crate) struct TableJumper<'a> {
    pub(crate) grid: &'a Grid,
    pub(crate) table: &'a JumpTable,
}

/// Steps from `n` to `goal` when `goal` lies on the ray from `n` in straight direction `d`.
#[inline(always)]
fn steps_on_ray(n: Cell, d: Direction, goal: Cell) -> Option<u32> {
    match d {
        Direction::East => (goal.y == n.y && goal.x > n.x).then(|| goal.x - n.x),
        Direction::West => (goal.y == n.y && goal.x < n.x).then(|| n.x - goal.x),
        Direction::South => (goal.x == n.x && goal.y > n.y).then(|| goal.y - n.y),
        Direction::North => (goal.x == n.x && goal.y < n.y).then(|| n.y - goal.y),
        _ => None,
    }
}

/// For diagonal `d`, the steps from `n` to where the diagonal crosses the goal's row or
/// column, when the goal lies strictly inside `d`'s quadrant from `n`.
#[inline(always)]
fn steps_to_goal_line(n: Cell, d: Direction, goal: Cell) -> Option<u32> {
    let (dx, dy) = d.delta();
    let gx = i64::from(goal.x) - i64::from(n.x);
    let gy = i64::from(goal.y) - i64::from(n.y);
    (gx.signum() == i64::from(dx) && gy.signum() == i64::from(dy))
        .then(|| gx.abs().min(gy.abs()) as u32)
}

/// `n` moved `k` steps in `d`.
#[inline(always)]
fn advance(n: Cell, d: Direction, k: u32) -> Cell {
    let (dx, dy) = d.delta();
    Cell::new(
        n.x.wrapping_add_signed(dx * k as i32),
        n.y.wrapping_add_signed(dy * k as i32),
    )
}

impl Jumper for TableJumper<'_> {
    #[inline]
    fn grid(&self) -> &Grid {
        self.grid
    }

    // `inline(always)`: the saturation check made this just large enough for the inliner to
    // give up, which cost a call per probe (about 20 % of a JPS+ search, measured).
    #[inline(always)]
    fn straight(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell> {
        let k = self.table.run(n, d);
        if let Some(g) = steps_on_ray(n, d, goal)
            && g <= k.unsigned_abs()
        {
            return Some(goal);
        }
        (k > 0).then(|| advance(n, d, k as u32))
    }

    #[inline(always)]
    fn diagonal(&self, n: Cell, d: Direction, goal: Cell) -> Option<Cell> {
        let k = self.table.run(n, d);
        // The goal's row or column is crossed before the run ends: stop on the crossing
        // cell (its straight jumps reach the goal if anything does).
        if let Some(m) = steps_to_goal_line(n, d, goal)
            && m <= k.unsigned_abs()
        {
            return Some(advance(n, d, m));
        }
        (k > 0).then(|| advance(n, d, k as u32))
    }

    #[inline]
    fn diagonal_pruned(&self, n: Cell, d: Direction, goal: Cell, out: &mut impl FnMut(Cell)) {
        let (h, v) = d.components();
        let mut c = n;
        loop {
            let k = self.table.run(c, d);
            if let Some(m) = steps_to_goal_line(c, d, goal)
                && m <= k.unsigned_abs()
            {
                out(advance(c, d, m));
                return;
            }
            if k <= 0 {
                return;
            }
            c = advance(c, d, k as u32);
            if let Some(j) = self.straight(c, h, goal) {
                out(j);
            }
            if let Some(j) = self.straight(c, v, goal) {
                out(j);
            }
        }
    }
}

/// Scans stored row `r` of `plane` from stored column `c` toward higher columns and returns
/// the first stop: `(j, true)` for a jump point at stored column `j` (a side row is blocked at
/// `j - 1` and free at `j`), `(j, false)` for a wall at `j`. The blocked padding guarantees a
/// stop inside the row.
#[inline(always)]
pub(crate) fn scan_increasing(plane: &BitPlane, r: usize, c: usize) -> (usize, bool) {
    let stride = plane.stride();
    let words = plane.words();
    let (up, cur, dn) = ((r - 1) * stride, r * stride, (r + 1) * stride);
    let i = c + 1;
    let mut w = i / 64;
    let mut mask = u64::MAX << (i % 64);
    let (mut up_carry, mut dn_carry) = match w {
        0 => (1, 1),
        _ => (words[up + w - 1] >> 63, words[dn + w - 1] >> 63),
    };
    loop {
        let (b, u, d) = (words[cur + w], words[up + w], words[dn + w]);
        let forced = ((u << 1 | up_carry) & !u) | ((d << 1 | dn_carry) & !d);
        let stop = (b | forced) & mask;
        if stop != 0 {
            let bit = stop.trailing_zeros();
            return (w * 64 + bit as usize, b >> bit & 1 == 0);
        }
        up_carry = u >> 63;
        dn_carry = d >> 63;
        w += 1;
        mask = u64::MAX;
    }
}

/// Like [`scan_increasing`] toward lower columns; a jump point at `j` has a side row blocked
/// at `j + 1` and free at `j`. Stored column 0 is blocked, so the scan stops in word 0.
#[inline(always)]
pub(crate) fn scan_decreasing(plane: &BitPlane, r: usize, c: usize) -> (usize, bool) {
    let stride = plane.stride();
    let words = plane.words();
    let (up, cur, dn) = ((r - 1) * stride, r * stride, (r + 1) * stride);
    let i = c - 1;
    let mut w = i / 64;
    let mut mask = u64::MAX >> (63 - i % 64);
    let (mut up_carry, mut dn_carry) = if w + 1 < stride {
        (words[up + w + 1] << 63, words[dn + w + 1] << 63)
    } else {
        (1 << 63, 1 << 63)
    };
    loop {
        let (b, u, d) = (words[cur + w], words[up + w], words[dn + w]);
        let forced = ((u >> 1 | up_carry) & !u) | ((d >> 1 | dn_carry) & !d);
        let stop = (b | forced) & mask;
        if stop != 0 {
            let bit = 63 - stop.leading_zeros();
            return (w * 64 + bit as usize, b >> bit & 1 == 0);
        }
        up_carry = u << 63;
        dn_carry = d << 63;
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

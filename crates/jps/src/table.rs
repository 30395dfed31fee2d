//! JPS+ jump tables: for every free cell and each of the 8 directions, the distance to the next
//! jump point (positive) or to the wall (zero or negative), so a jump is one lookup.
//!
//! Encoding per direction `d` of cell `c`: `k > 0` — moving from `c` in `d`, the `k`-th cell is
//! the first jump point (under the same rules as the scanning jumps: a forced neighbour for a
//! straight direction; for a diagonal, a cell whose straight component jumps find a jump
//! point); `-k ≤ 0` — the run has `k` legal steps and then stops (wall or an illegal diagonal
//! step) without a jump point. The goal is handled at query time.
//!
//! Runs longer than an `i16` holds saturate: [`i16::MAX`] means "a jump point at 32,767 steps
//! or more" and [`i16::MIN`] "32,768 legal steps or more, then a stop". The sign, which is all
//! the diagonal rule and [`JumpTable::repair`] read, stays exact. A saturated value is decoded
//! by chaining ([`JumpTable::distance`]): the first [`CHAIN_STEP`] cells of such a run are
//! legal steps without a jump point, so the value stored [`CHAIN_STEP`] cells on is the rest
//! of the run (saturated again, or exact). Every value is a function of the next cell's stored
//! value, so saturation needs no special case in the build or the repair.
//!
//! Layout: `[i16; 8]` per cell in row-major order (16 bytes; a query touches one line per
//! node, and a saturated run one more line per 32,766 cells of it; `i32` values would double
//! the table for the rare run longer than 32,767 cells). Built with rayon (feature `rayon`;
//! sequentially without): straight planes per row/column in parallel, then the four diagonal
//! planes in parallel. [`JumpTable::repair`] updates only what a change can reach.

use crate::{JpsError, par};
use cuplan_grid::{Cell, CellIndex, Direction, Grid};

const N: usize = 0;
const E: usize = 2;
const S: usize = 4;
const W: usize = 6;

/// Precomputed jump distances for one grid (at one [`Grid::generation`]).
///
/// Owned, so it can outlive a [`Planner`](crate::Planner) and be brought up to date after
/// the grid changes ([`JumpTable::repair`], which reads the grid's change journal), then handed
/// to [`Planner::with_table`](crate::Planner::with_table). A [`Planner`](crate::Planner) does
/// this itself in [`Planner::update_grid`](crate::Planner::update_grid).
#[derive(Clone, PartialEq, Eq)]
pub struct JumpTable {
    width: u32,
    height: u32,
    generation: u64,
    dist: Vec<[i16; 8]>,
}

/// Cells a chained read of a saturated value skips: one short of [`i16::MAX`], so that a jump
/// point at exactly 32,767 steps is still ahead of the cell read next.
const CHAIN_STEP: u32 = i16::MAX as u32 - 1;

/// Whether a stored value stands for a run too long for an `i16` (decode by chaining).
#[inline(always)]
fn is_saturated(k: i16) -> bool {
    k == i16::MAX || k == i16::MIN
}
impl JumpTable {
    /// Builds the table for `grid` (in parallel): 16 B per cell, any size the grid crate
    /// accepts (runs beyond `i16` saturate and are chained, see the module docs).
    ///
    /// Errors with [`JpsError::Grid`] only where the table would not fit the address space
    /// (a grid of more than 2^27 cells on a 32-bit target such as `wasm32`).
    pub fn build(grid: &Grid) -> Result<JumpTable, JpsError> {
        let (w, h) = (grid.width() as usize, grid.height() as usize);
        let entry = std::mem::size_of::<[i16; 8]>();
        if (w * h)
            .checked_mul(entry)
            .is_none_or(|b| b > isize::MAX as usize)
        {
            return Err(JpsError::Grid(cuplan_grid::GridError::InvalidSize {
                width: w as u64,
                height: h as u64,
                reason: format!("a jump table of {entry} B per cell exceeds the address space"),
            }));
        }
        let mut dist = vec![[0i16; 8]; w * h];
        // Straight directions: each row (east, west) independently.
        par::for_each_row(&mut dist, w, |y, row| {
            let y = y as i64;
            for x in (0..w).rev() {
                row[x][E] = straight_value(grid, x as i64, y, 1, 0, row.get(x + 1).map(|c| c[E]));
            }
            for x in 0..w {
                let next = x.checked_sub(1).map(|p| row[p][W]);
                row[x][W] = straight_value(grid, x as i64, y, -1, 0, next);
            }
        });
        // Columns (north, south), computed per column in parallel, then scattered.
        let xs: Vec<usize> = (0..w).collect();
        let columns: Vec<(Vec<i16>, Vec<i16>)> =
            par::map(&xs, |&x| column_values(grid, x as i64, h));
        par::for_each_row(&mut dist, w, |y, row| {
            for (x, cell) in row.iter_mut().enumerate() {
                cell[N] = columns[x].0[y];
                cell[S] = columns[x].1[y];
            }
        });
        drop(columns);
        // Diagonals: each direction is one sweep over rows (a cell depends on the next cell
        // along its diagonal); the four sweeps run in parallel.
        let planes: Vec<Vec<i16>> =
            par::map(&Direction::DIAGONAL, |&d| diagonal_plane(grid, &dist, d));
        par::for_each_row(&mut dist, w, |y, row| {
            for (plane, d) in planes.iter().zip(Direction::DIAGONAL) {
                let values = &plane[y * w..][..w];
                for (cell, &v) in row.iter_mut().zip(values) {
                    cell[d.index()] = v;
                }
            }
        });
        Ok(JumpTable {
            width: grid.width(),
            height: grid.height(),
            generation: grid.generation(),
            dist,
        })
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.dist.len() * std::mem::size_of::<[i16; 8]>()
    }

    /// The grid generation the table describes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The 8 stored distances of `cell` (in [`Direction::index`] order); all zero for blocked
    /// cells. [`i16::MAX`] and [`i16::MIN`] are saturated (see [`JumpTable::distance`] for the
    /// exact value). `None` outside the table.
    pub fn distances(&self, cell: Cell) -> Option<[i16; 8]> {
        (cell.x < self.width && cell.y < self.height)
            .then(|| self.dist[(cell.y * self.width + cell.x) as usize])
    }

    /// The exact distance of `cell` in `d`, saturated values decoded: `k > 0`, the `k`-th
    /// cell on is the first jump point; `-k ≤ 0`, `k` legal steps and then a stop. `None`
    /// outside the table.
    pub fn distance(&self, cell: Cell, d: Direction) -> Option<i32> {
        (cell.x < self.width && cell.y < self.height).then(|| self.run(cell, d))
    }

    /// [`JumpTable::distance`] of a cell inside the table: one lookup unless the value is
    /// saturated.
    #[inline(always)]
    pub(crate) fn run(&self, cell: Cell, d: Direction) -> i32 {
        let k = self.at(cell.x, cell.y)[d.index()];
        if is_saturated(k) {
            self.chained_run(cell, d)
        } else {
            i32::from(k)
        }
    }

    /// Decodes a saturated value by reading the cell [`CHAIN_STEP`] cells on, as often as
    /// needed. The skipped cells are legal steps without a jump point, so the run from the
    /// cell read is the rest of this one.
    #[cold]
    #[inline(never)]
    fn chained_run(&self, mut cell: Cell, d: Direction) -> i32 {
        let (dx, dy) = d.delta();
        let step = CHAIN_STEP as i32;
        let mut skipped = 0i32;
        loop {
            let k = self.at(cell.x, cell.y)[d.index()];
            if !is_saturated(k) {
                return if k > 0 {
                    skipped + i32::from(k)
                } else {
                    i32::from(k) - skipped
                };
            }
            cell = Cell::new(
                cell.x.wrapping_add_signed(dx * step),
                cell.y.wrapping_add_signed(dy * step),
            );
            skipped += step;
        }
    }

    /// Whether the table describes `grid` as it is now.
    pub fn is_current(&self, grid: &Grid) -> bool {
        (self.width, self.height, self.generation)
            == (grid.width(), grid.height(), grid.generation())
    }

    /// An error describing why the table does not fit `grid`, if it does not.
    pub(crate) fn check(&self, grid: &Grid) -> Result<(), JpsError> {
        if self.is_current(grid) {
            return Ok(());
        }
        Err(JpsError::StaleTable {
            table_width: self.width,
            table_height: self.height,
            table_generation: self.generation,
            width: grid.width(),
            height: grid.height(),
            generation: grid.generation(),
        })
    }

    #[inline(always)]
    pub(crate) fn at(&self, x: u32, y: u32) -> &[i16; 8] {
        &self.dist[CellIndex::row_major(self.width, x, y)]
    }

    /// The slot of an in-range cell given in signed coordinates.
    #[inline(always)]
    fn slot(&self, x: i64, y: i64) -> usize {
        debug_assert!(x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height));
        CellIndex::row_major(self.width, x as u32, y as u32)
    }

    /// Brings the table up to date with `grid`, reading what changed from the grid's change
    /// journal ([`Grid::changes_since`]) — never from the caller, so a table cannot be
    /// marked current without every change since its generation being repaired. When the
    /// journal no longer reaches back to the table's generation, or the table was built for
    /// another grid (another history or size), it is rebuilt instead.
    ///
    /// A repair recomputes, for each changed cell, the straight values that read it (the
    /// runs through its 3 × 3 neighbourhood), walking back along each run only while values
    /// change, then propagates the diagonal values that read a changed straight flag or cell
    /// backwards along their diagonals, again only while values change: its cost follows
    /// what the changes alter, not the map.
    ///
    /// Errors only where [`JumpTable::build`] does (which it does not today).
    pub fn repair(&mut self, grid: &Grid) -> Result<Upkeep, JpsError> {
        if self.is_current(grid) {
            return Ok(Upkeep::Current);
        }
        let same_size = (self.width, self.height) == (grid.width(), grid.height());
        match grid.changes_since(self.generation) {
            Some(changed) if same_size => {
                self.repair_cells(grid, changed);
                self.generation = grid.generation();
                Ok(Upkeep::Repaired {
                    changes: changed.len(),
                })
            }
            _ => {
                *self = JumpTable::build(grid)?;
                Ok(Upkeep::Rebuilt)
            }
        }
    }

    fn repair_cells(&mut self, grid: &Grid, changed: &[Cell]) {
        // Straight values first (diagonal values read their flags), then diagonals. A value
        // reads only values of its own direction further along its own line, so each line is
        // rewritten in place as it is walked. (Running the four directions of a kind on rayon,
        // each finding its new values from the table and writing them afterwards, measured
        // slower on 2 shared cores: a tick's repair is a few hundred µs, memory-bound.)
        // Cells whose flag (value > 0) flipped, by straight direction (index / 2).
        let mut flips: [Vec<(i64, i64)>; 4] = Default::default();
        for d in Direction::STRAIGHT {
            let flipped = &mut flips[d.index() / 2];
            self.rewrite_lines(
                grid,
                d,
                straight_seeds(grid, changed, d),
                |cell, old, new| {
                    if (old > 0) != (new > 0) {
                        flipped.push(cell);
                    }
                },
            );
        }
        for d in Direction::DIAGONAL {
            let (h, v) = d.components();
            let flipped = [h, v].map(|f| flips[f.index() / 2].as_slice());
            self.rewrite_lines(
                grid,
                d,
                diagonal_seeds(grid, changed, flipped, d),
                |_, _, _| {},
            );
        }
    }

    /// Recomputes the values of direction `d` reached from `seeds`, one line along `d` at a
    /// time (a row, column or diagonal), writing each changed value and telling
    /// `on_change((x, y), old, new)`.
    ///
    /// A value reads the value one step along `d`, so each line is walked against `d` from
    /// its most advanced seed: every seed is recomputed, and the walk goes on past a seed
    /// while values change, then jumps to the next seed. The value ahead is always the
    /// table's: written by this walk where it changed, and otherwise still right.
    fn rewrite_lines(
        &mut self,
        grid: &Grid,
        d: Direction,
        seeds: impl Iterator<Item = (i64, i64)>,
        mut on_change: impl FnMut((i64, i64), i16, i16),
    ) {
        let order = LineOrder::new(d);
        // Sorting plain integers: a tick's seeds run into the thousands, and sorting them by
        // a computed tuple key took a quarter of the repair.
        let mut keys: Vec<u64> = seeds.map(|(x, y)| order.key(x, y)).collect();
        keys.sort_unstable();
        keys.dedup();
        self.walk_lines(grid, d, &order, &keys, &mut on_change);
    }

    /// Walks the lines of `seeds` (sorted, distinct [`LineOrder`] keys) in order. A walk
    /// moves back along `d` only within the grid, so it never leaves its line, and a line's
    /// seeds follow each other in `seeds`.
    fn walk_lines(
        &mut self,
        grid: &Grid,
        d: Direction,
        order: &LineOrder,
        seeds: &[u64],
        on_change: &mut impl FnMut((i64, i64), i16, i16),
    ) {
        let (dx, dy) = (order.dx, order.dy);
        let Some(&first) = seeds.first() else { return };
        let mut next_seed = 1;
        let mut key = first;
        let (mut x, mut y) = order.cell(key);
        loop {
            let i = self.slot(x, y);
            let new = self.value(grid, x, y, d);
            let old = std::mem::replace(&mut self.dist[i][d.index()], new);
            let changed = new != old;
            if changed {
                on_change((x, y), old, new);
            }
            let back = order.back(key);
            let back_is_seed = seeds.get(next_seed) == Some(&back);
            if changed && grid.contains_signed(x - dx, y - dy) || back_is_seed {
                next_seed += usize::from(back_is_seed);
                (key, x, y) = (back, x - dx, y - dy);
            } else if let Some(&seed) = seeds.get(next_seed) {
                next_seed += 1;
                key = seed;
                (x, y) = order.cell(key);
            } else {
                break;
            }
        }
    }

    /// The value of (`x`, `y`) in `d` given the table's values one step along `d`.
    #[inline]
    fn value(&self, grid: &Grid, x: i64, y: i64, d: Direction) -> i16 {
        let (dx, dy) = d.delta();
        let (dx, dy) = (i64::from(dx), i64::from(dy));
        if d.is_diagonal() {
            return diagonal_value_with(grid, x, y, d, |nx, ny| self.dist[self.slot(nx, ny)]);
        }
        let next = grid
            .contains_signed(x + dx, y + dy)
            .then(|| self.dist[self.slot(x + dx, y + dy)][d.index()]);
        straight_value(grid, x, y, dx, dy, next)
    }
}

/// The order in which [`JumpTable::repair`] walks the cells of direction `d`, as one integer
/// per cell: its line (constant along `d`: a row, column or diagonal) in the high half, then
/// decreasing progress along `d`, so sorted keys group each line with its most advanced cell
/// first, and the cell one step back along `d` has the line's next possible key.
///
/// With `d = (dx, dy)`, line `l = x·dy − y·dx` and progress `p = x·dx + y·dy`, both within
/// ±2 · [`MAX_SIDE`](cuplan_grid::MAX_SIDE) = ±2^21 (the ring of cells around the grid
/// included), so biased by 2^22 each fits its 32-bit half. Back from `(l, p)`:
/// `x = (l·dy + p·dx) / (dx² + dy²)`, `y = (p·dy − l·dx) / (dx² + dy²)`, the divisor 1 or 2.
struct LineOrder {
    dx: i64,
    dy: i64,
    /// log2 of `dx² + dy²`: 0 for a straight direction, 1 for a diagonal.
    shift: u32,
}

impl LineOrder {
    const BIAS: i64 = 1 << 22;

    fn new(d: Direction) -> LineOrder {
        let (dx, dy) = d.delta();
        let (dx, dy) = (i64::from(dx), i64::from(dy));
        LineOrder {
            dx,
            dy,
            shift: u32::from(d.is_diagonal()),
        }
    }

    #[inline]
    fn key(&self, x: i64, y: i64) -> u64 {
        let line = x * self.dy - y * self.dx;
        let progress = x * self.dx + y * self.dy;
        (((line + Self::BIAS) as u64) << 32) | (Self::BIAS - progress) as u64
    }

    /// The key of the cell one step back along `d`: progress falls by `dx² + dy²`, and no
    /// cell of the line has a key in between.
    #[inline]
    fn back(&self, key: u64) -> u64 {
        key + (1 << self.shift)
    }

    #[inline]
    fn cell(&self, key: u64) -> (i64, i64) {
        let line = (key >> 32) as i64 - Self::BIAS;
        let progress = Self::BIAS - i64::from(key as u32);
        // Exact: the numerators of a diagonal are even (x and y are integers).
        (
            (line * self.dy + progress * self.dx) >> self.shift,
            (progress * self.dy - line * self.dx) >> self.shift,
        )
    }
}

/// What [`JumpTable::repair`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Upkeep {
    /// The table already described the grid.
    Current,
    /// The table was repaired for this many journalled cell changes.
    Repaired {
        /// Changes replayed (a cell changed twice counts twice).
        changes: usize,
    },
    /// The table was built afresh: the journal did not reach back to its generation, or it
    /// was built for another grid.
    Rebuilt,
}

/// For straight direction `d`, the cells whose value reads a changed cell.
///
/// The value of cell `p` in `d` reads `p`, `p + d`, the cells beside both (forced
/// neighbours) and the value of `p + d`; so a change at `c` is read directly by `c` and
/// `c − d` and their neighbours across the line.
fn straight_seeds(grid: &Grid, changed: &[Cell], d: Direction) -> impl Iterator<Item = (i64, i64)> {
    let (dx, dy) = d.delta();
    let (dx, dy) = (i64::from(dx), i64::from(dy));
    changed
        .iter()
        .flat_map(move |c| {
            let (cx, cy) = (i64::from(c.x), i64::from(c.y));
            [0, 1].into_iter().flat_map(move |k| {
                [-1, 0, 1].map(|s| (cx - k * dx + s * dy.abs(), cy - k * dy + s * dx.abs()))
            })
        })
        .filter(|&(x, y)| grid.contains_signed(x, y))
}

/// For diagonal `d` = (h, v), the cells whose value reads a changed cell or a flipped flag.
///
/// A diagonal value of `p` reads the four cells of the step `p → p + d` (`p`, `p + d`,
/// `p + h`, `p + v`) and the `h` and `v` flags of `p + d`, so a change at `c` is read by `c`,
/// `c − d`, `c − h` and `c − v`, and a flip at `f` by `f − d`. `flipped` holds the cells whose
/// `h` and whose `v` flag flipped.
fn diagonal_seeds<'a>(
    grid: &'a Grid,
    changed: &'a [Cell],
    flipped: [&'a [(i64, i64)]; 2],
    d: Direction,
) -> impl Iterator<Item = (i64, i64)> + 'a {
    let (dx, dy) = d.delta();
    let (dx, dy) = (i64::from(dx), i64::from(dy));
    let step = changed.iter().flat_map(move |c| {
        let (x, y) = (i64::from(c.x), i64::from(c.y));
        [(x, y), (x - dx, y - dy), (x - dx, y), (x, y - dy)]
    });
    let readers = flipped
        .into_iter()
        .flatten()
        .map(move |&(x, y)| (x - dx, y - dy));
    step.chain(readers)
        .filter(|&(x, y)| grid.contains_signed(x, y))
}

impl std::fmt::Debug for JumpTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JumpTable")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("generation", &self.generation)
            .field("bytes", &self.bytes())
            .finish()
    }
}

/// Whether (`x`, `y`) is blocked, for cells of the grid and the ring one cell around it
/// (every cell a table value reads): the bit plane's blocked border answers the ring without
/// a bounds test.
#[inline]
fn blocked(grid: &Grid, x: i64, y: i64) -> bool {
    debug_assert!((-1..=i64::from(grid.width())).contains(&x));
    debug_assert!((-1..=i64::from(grid.height())).contains(&y));
    grid.rows()
        .is_blocked_stored((y + 1) as usize, (x + 1) as usize)
}

/// Whether (`x`, `y`), entered moving straight in (`dx`, `dy`), has a forced neighbour.
#[inline]
fn forced(grid: &Grid, x: i64, y: i64, dx: i64, dy: i64) -> bool {
    let (px, py) = (dy, dx);
    [1i64, -1].into_iter().any(|s| {
        blocked(grid, x + s * px - dx, y + s * py - dy) && !blocked(grid, x + s * px, y + s * py)
    })
}

/// The straight value of (`x`, `y`) in (`dx`, `dy`) given the value `next` of the next cell
/// in that direction (`None` past the edge).
#[inline]
fn straight_value(grid: &Grid, x: i64, y: i64, dx: i64, dy: i64, next: Option<i16>) -> i16 {
    if blocked(grid, x, y) {
        return 0;
    }
    let (nx, ny) = (x + dx, y + dy);
    if blocked(grid, nx, ny) {
        return 0;
    }
    if forced(grid, nx, ny, dx, dy) {
        return 1;
    }
    one_step_longer(next.unwrap_or(0))
}

/// The value of a cell whose run is the next cell's run plus one step. Saturating keeps the
/// sign and makes `i16::MAX` / `i16::MIN` mean "this long or longer" (see the module docs).
#[inline]
fn one_step_longer(next: i16) -> i16 {
    if next > 0 {
        next.saturating_add(1)
    } else {
        next.saturating_sub(1)
    }
}

/// North and south values of column `x`.
fn column_values(grid: &Grid, x: i64, h: usize) -> (Vec<i16>, Vec<i16>) {
    let mut north = vec![0i16; h];
    let mut south = vec![0i16; h];
    for y in 0..h {
        let next = y.checked_sub(1).map(|p| north[p]);
        north[y] = straight_value(grid, x, y as i64, 0, -1, next);
    }
    for y in (0..h).rev() {
        south[y] = straight_value(grid, x, y as i64, 0, 1, south.get(y + 1).copied());
    }
    (north, south)
}

/// The diagonal value of (`x`, `y`) in `d`, reading the next cell's 8 values through `at`.
#[inline]
fn diagonal_value_with(
    grid: &Grid,
    x: i64,
    y: i64,
    d: Direction,
    at: impl Fn(i64, i64) -> [i16; 8],
) -> i16 {
    let (dx, dy) = d.delta();
    let (dx, dy) = (i64::from(dx), i64::from(dy));
    let (nx, ny) = (x + dx, y + dy);
    if blocked(grid, x, y) || blocked(grid, nx, ny) || blocked(grid, nx, y) || blocked(grid, x, ny)
    {
        return 0;
    }
    let (h, v) = d.components();
    let next = at(nx, ny);
    if next[h.index()] > 0 || next[v.index()] > 0 {
        return 1;
    }
    one_step_longer(next[d.index()])
}

/// One diagonal direction's values for the whole grid, given the straight values in `dist`.
fn diagonal_plane(grid: &Grid, dist: &[[i16; 8]], d: Direction) -> Vec<i16> {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let (_, dy) = d.delta();
    let mut plane = vec![0i16; w * h];
    let rows: Vec<usize> = if dy < 0 {
        (0..h).collect()
    } else {
        (0..h).rev().collect()
    };
    for y in rows {
        for x in 0..w {
            let v = diagonal_value_with(grid, x as i64, y as i64, d, |nx, ny| {
                let i = grid.index(Cell::new(nx as u32, ny as u32)).get();
                let mut cell = dist[i];
                cell[d.index()] = plane[i];
                cell
            });
            plane[grid.index(Cell::new(x as u32, y as u32)).get()] = v;
        }
    }
    plane
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys decode to their cells, step back by [`LineOrder::back`], and sort by line, then
    /// by decreasing progress, at the extremes of the coordinate range too.
    #[test]
    fn line_order_keys_round_trip_and_sort_lines_most_advanced_first() {
        let far = cuplan_grid::MAX_SIDE as i64;
        let cells = [
            (-1, -1),
            (0, 0),
            (3, 7),
            (7, 3),
            (far, 0),
            (0, far),
            (far, far),
        ];
        for d in Direction::ALL {
            let order = LineOrder::new(d);
            let (dx, dy) = (order.dx, order.dy);
            for &(x, y) in &cells {
                let key = order.key(x, y);
                assert_eq!(order.cell(key), (x, y), "{d:?}");
                assert_eq!(order.back(key), order.key(x - dx, y - dy), "{d:?}");
                // Further along d on the same line sorts first.
                assert!(order.key(x + dx, y + dy) < key, "{d:?}");
            }
            // The cell beside, across d, is on another line.
            let (a, b) = (order.key(0, 0), order.key(dy, -dx));
            assert_ne!(a >> 32, b >> 32, "{d:?}");
        }
    }
}

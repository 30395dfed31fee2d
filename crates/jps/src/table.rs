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
        // rewritten in place as it is walked. (Running the four directions of a kind on rayon
        // measured slower on 2 shared cores: a tick's repair is a few hundred µs,
        // memory-bound.)
        let mut flips: Vec<(usize, Direction)> = Vec::new();
        for d in Direction::STRAIGHT {
            self.rewrite_lines(grid, d, straight_seeds(grid, changed, d), |i, old, new| {
                if (old > 0) != (new > 0) {
                    flips.push((i, d));
                }
            });
        }
        let flips: Vec<(Cell, Direction)> = flips
            .into_iter()
            .map(|(i, d)| (self.cell_of(i), d))
            .collect();
        for d in Direction::DIAGONAL {
            let seeds = diagonal_seeds(grid, changed, &flips, d);
            self.rewrite_lines(grid, d, seeds, |_, _, _| {});
        }
    }

    fn cell_of(&self, i: usize) -> Cell {
        Cell::new(
            (i % self.width as usize) as u32,
            (i / self.width as usize) as u32,
        )
    }

    /// Recomputes the values of direction `d` reached from `seeds`, one line along `d` at a
    /// time (a row, column or diagonal), writing each changed value and telling
    /// `on_change(cell index, old, new)`.
    ///
    /// A value reads the value one step along `d`, so each line is walked against `d` from
    /// its most advanced seed: every seed is recomputed, and the walk goes on past a seed
    /// while values change, then jumps to the next seed. The value ahead is always the
    /// table's: written by this walk where it changed, and otherwise still right.
    fn rewrite_lines(
        &mut self,
        grid: &Grid,
        d: Direction,
        mut seeds: Vec<(i64, i64)>,
        mut on_change: impl FnMut(usize, i16, i16),
    ) {
        let (dx, dy) = d.delta();
        let (dx, dy) = (i64::from(dx), i64::from(dy));
        // The line's key is constant along d; computing order is decreasing progress along d.
        let line = |(x, y): (i64, i64)| x * dy - y * dx;
        seeds.sort_unstable_by_key(|&(x, y)| (line((x, y)), -(x * dx + y * dy)));
        seeds.dedup();
        for run in seeds.chunk_by(|a, b| line(*a) == line(*b)) {
            self.walk_line(grid, d, run, &mut on_change);
        }
    }

    fn walk_line(
        &mut self,
        grid: &Grid,
        d: Direction,
        seeds: &[(i64, i64)],
        on_change: &mut impl FnMut(usize, i16, i16),
    ) {
        let (dx, dy) = d.delta();
        let (dx, dy) = (i64::from(dx), i64::from(dy));
        let mut next_seed = 0;
        let (mut x, mut y) = seeds[0];
        loop {
            let i = self.slot(x, y);
            let new = self.value(grid, x, y, d);
            let old = std::mem::replace(&mut self.dist[i][d.index()], new);
            let changed = new != old;
            if changed {
                on_change(i, old, new);
            }
            while seeds.get(next_seed) == Some(&(x, y)) {
                next_seed += 1;
            }
            let back = (x - dx, y - dy);
            if changed && grid.contains_signed(back.0, back.1)
                || seeds.get(next_seed) == Some(&back)
            {
                (x, y) = back;
            } else if let Some(&seed) = seeds.get(next_seed) {
                (x, y) = seed;
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
fn straight_seeds(grid: &Grid, changed: &[Cell], d: Direction) -> Vec<(i64, i64)> {
    let (dx, dy) = d.delta();
    let (dx, dy) = (i64::from(dx), i64::from(dy));
    let mut seeds = Vec::with_capacity(changed.len() * 6);
    for c in changed {
        let (cx, cy) = (i64::from(c.x), i64::from(c.y));
        for k in 0..=1 {
            for s in -1..=1 {
                let (x, y) = (cx - k * dx + s * dy.abs(), cy - k * dy + s * dx.abs());
                if grid.contains_signed(x, y) {
                    seeds.push((x, y));
                }
            }
        }
    }
    seeds
}

/// For diagonal `d` = (h, v), the cells whose value reads a changed cell or a flipped flag:
/// a diagonal value of `p` reads the cells of the step `p → p + d` (all within one cell of
/// `p`) and the `h` and `v` flags of `p + d`.
fn diagonal_seeds(
    grid: &Grid,
    changed: &[Cell],
    flips: &[(Cell, Direction)],
    d: Direction,
) -> Vec<(i64, i64)> {
    let (dx, dy) = d.delta();
    let (dx, dy) = (i64::from(dx), i64::from(dy));
    let (h, v) = d.components();
    let around = changed.iter().flat_map(|c| {
        (-1i64..=1).flat_map(move |oy| {
            (-1i64..=1).map(move |ox| (i64::from(c.x) + ox, i64::from(c.y) + oy))
        })
    });
    let readers = flips
        .iter()
        .filter(|(_, f)| *f == h || *f == v)
        .map(|(c, _)| (i64::from(c.x) - dx, i64::from(c.y) - dy));
    around
        .chain(readers)
        .filter(|&(x, y)| grid.contains_signed(x, y))
        .collect()
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

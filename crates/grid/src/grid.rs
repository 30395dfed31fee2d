//! `Grid`: the occupancy grid every search reads.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

#[cfg(feature = "ndarray")]
use ndarray::Array2;

use crate::{BitPlane, Cell, CellIndex, Components, Direction, GridError, Result};

/// Default limit on the number of cells of a grid: 2^28 (a 16384 × 16384 map, 32 MiB of bits
/// per copy). Parsers check it *before* allocating, so a header claiming 10^9 × 10^9 fails fast.
pub const DEFAULT_MAX_CELLS: u64 = 1 << 28;

/// Largest width or height accepted; keeps every coordinate and index inside `u32`.
pub const MAX_SIDE: u64 = 1 << 20;

/// A width × height occupancy grid, one bit per cell, plus a transposed copy.
///
/// *Invariants*: `rows` is the grid and `cols` its transpose (row `x` of `cols` is column `x`
/// of the grid), both with a blocked border ([`BitPlane`]); every change of a cell goes
/// through one place that updates both, takes a new [`generation`](Grid::generation) and
/// records the cell in the change journal ([`Grid::changes_since`]); the kept [`Components`]
/// are brought up to date by the same change. A `Grid` is `Send + Sync`; searches share it
/// read-only.
///
/// `Debug` prints the size, the free-cell count, the generation and the top-left corner of
/// the map (at most [`Grid::DEBUG_PREVIEW`] rows and columns), never all the bits.
#[derive(Clone)]
pub struct Grid {
    width: u32,
    height: u32,
    rows: BitPlane,
    cols: BitPlane,
    free_cells: u64,
    journal: Journal,
    components: ComponentCache,
}

/// A change of one cell, for [`Grid::apply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Change {
    /// Make the cell blocked.
    Block(Cell),
    /// Make the cell free.
    Free(Cell),
}

impl Change {
    /// The cell changed.
    pub fn cell(self) -> Cell {
        match self {
            Change::Block(c) | Change::Free(c) => c,
        }
    }
}

/// Source of generations: process-wide, so no two grids (or two states of one grid) share a
/// generation unless one is an unchanged clone of the other.
static NEXT_GENERATION: AtomicU64 = AtomicU64::new(1);

fn fresh_generation() -> u64 {
    NEXT_GENERATION.fetch_add(1, Ordering::Relaxed)
}

/// The cells changed since each recent generation, so that caches built from a grid (jump
/// tables) can bring themselves up to date without trusting a caller's list.
///
/// *Invariant*: `generations` is strictly increasing; `generations[i]` is the grid's
/// generation right after `cells[i]` changed, and `base` the generation before `cells[0]`.
/// At most `cap` changes are kept; older ones are dropped half at a time (then `base` moves
/// forward, and a cache older than `base` must rebuild).
#[derive(Debug, Clone)]
struct Journal {
    base: u64,
    generations: Vec<u64>,
    cells: Vec<Cell>,
    cap: usize,
}

impl Journal {
    /// At least this many changes are kept, however small the grid.
    const MIN_CAP: usize = 1024;
    /// Changes kept per cell of the grid: past `cells / 64` changes a rebuild costs about as
    /// much as replaying them.
    const CELLS_PER_CHANGE: usize = 64;
    const MAX_CAP: usize = 1 << 20;

    fn new(cell_count: usize) -> Journal {
        Journal {
            base: fresh_generation(),
            generations: Vec::new(),
            cells: Vec::new(),
            cap: (cell_count / Self::CELLS_PER_CHANGE).clamp(Self::MIN_CAP, Self::MAX_CAP),
        }
    }

    fn current(&self) -> u64 {
        self.generations.last().copied().unwrap_or(self.base)
    }

    fn record(&mut self, cell: Cell) {
        if self.cells.len() == self.cap {
            let dropped = self.cap / 2;
            self.base = self.generations[dropped - 1];
            self.generations.drain(..dropped);
            self.cells.drain(..dropped);
        }
        self.generations.push(fresh_generation());
        self.cells.push(cell);
    }

    fn since(&self, generation: u64) -> Option<&[Cell]> {
        if generation == self.base {
            return Some(&self.cells);
        }
        let i = self.generations.binary_search(&generation).ok()?;
        Some(&self.cells[i + 1..])
    }

    /// Forgets every change: the grid's present state is its new starting point.
    fn restart(&mut self) {
        self.base = fresh_generation();
        self.generations.clear();
        self.cells.clear();
    }
}

/// The components of a grid: `kept` is updated by every change once built; `fresh` is a
/// full labelling asked for while `kept` was inexact, and replaces it at the next change.
#[derive(Debug, Clone, Default)]
struct ComponentCache {
    kept: OnceLock<Components>,
    fresh: OnceLock<Components>,
}

impl std::fmt::Debug for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grid")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("free_cells", &self.free_cells)
            .field("generation", &self.generation())
            .field("journalled_changes", &self.journal.cells.len())
            .field("corner", &Corner(self))
            .finish_non_exhaustive()
    }
}

/// The top-left corner of a grid in Moving AI characters, one string per row, each cut to
/// [`Grid::DEBUG_PREVIEW`] cells (marked `…` when cut), plus a count of the rows left out.
struct Corner<'a>(&'a Grid);

impl std::fmt::Debug for Corner<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let grid = self.0;
        let n = Grid::DEBUG_PREVIEW;
        let row = |y: u32| {
            let mut s: String = (0..grid.width.min(n))
                .map(|x| {
                    if grid.is_free(Cell::new(x, y)) {
                        '.'
                    } else {
                        '@'
                    }
                })
                .collect();
            if grid.width > n {
                s.push('…');
            }
            s
        };
        let mut list = f.debug_list();
        list.entries((0..grid.height.min(n)).map(row));
        if grid.height > n {
            list.entry(&format_args!("… {} more rows", grid.height - n));
        }
        list.finish()
    }
}

impl PartialEq for Grid {
    fn eq(&self, other: &Grid) -> bool {
        self.width == other.width && self.height == other.height && self.rows == other.rows
    }
}

impl Eq for Grid {}

/// Checks a requested size against [`MAX_SIDE`] and a cell limit, without allocating.
pub(crate) fn check_size(width: u64, height: u64, max_cells: u64) -> Result<()> {
    let refuse = |reason: String| {
        Err(GridError::InvalidSize {
            width,
            height,
            reason,
        })
    };
    if width == 0 || height == 0 {
        return refuse("width and height must be at least 1".into());
    }
    if width > MAX_SIDE || height > MAX_SIDE {
        return refuse(format!("each side must be at most {MAX_SIDE}"));
    }
    if width * height > max_cells {
        return refuse(format!(
            "{} cells exceed the limit of {max_cells}",
            width * height
        ));
    }
    Ok(())
}

/// Checks a size and the length of a slice given one value per cell.
fn check_cells(width: u32, height: u32, len: usize) -> Result<()> {
    let (w, h) = (u64::from(width), u64::from(height));
    check_size(w, h, DEFAULT_MAX_CELLS)?;
    if len as u64 != w * h {
        return Err(GridError::InvalidSize {
            width: w,
            height: h,
            reason: format!("{len} cell values given, expected {}", w * h),
        });
    }
    Ok(())
}

/// The row-major index of (`x`, `y`); inside `usize` for every size [`check_size`] accepts.
#[inline]
fn row_major(width: u32, x: u32, y: u32) -> usize {
    CellIndex::row_major(width, x, y)
}

fn same_component(grid: &Grid, comps: &Components, a: Cell, b: Cell) -> bool {
    match (comps.of(grid, a), comps.of(grid, b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

impl Grid {
    /// Rows and columns of the map that `Debug` shows (the top-left corner).
    pub const DEBUG_PREVIEW: u32 = 8;

    /// An all-free `width × height` grid.
    ///
    /// Errors with [`GridError::InvalidSize`] for a zero side or more than
    /// [`DEFAULT_MAX_CELLS`] cells.
    pub fn open(width: u32, height: u32) -> Result<Grid> {
        Grid::open_with_limit(width, height, DEFAULT_MAX_CELLS)
    }

    /// Like [`Grid::open`] with an explicit cell limit.
    pub fn open_with_limit(width: u32, height: u32, max_cells: u64) -> Result<Grid> {
        check_size(u64::from(width), u64::from(height), max_cells)?;
        let (w, h) = (width as usize, height as usize);
        Ok(Grid {
            width,
            height,
            rows: BitPlane::open(h, w),
            cols: BitPlane::open(w, h),
            free_cells: u64::from(width) * u64::from(height),
            journal: Journal::new(w * h),
            components: ComponentCache::default(),
        })
    }

    /// A grid from a boolean array indexed `[y, x]`, `true` = free (passable). Feature
    /// `ndarray`; [`Grid::from_free`] takes a plain slice.
    #[cfg(feature = "ndarray")]
    pub fn from_array(free: &Array2<bool>) -> Result<Grid> {
        let (h, w) = free.dim();
        check_size(w as u64, h as u64, DEFAULT_MAX_CELLS)?;
        Grid::from_fn(w as u32, h as u32, |x, y| free[[y as usize, x as usize]])
    }

    /// A `width × height` grid whose cell (`x`, `y`) is free when `is_free(x, y)`, called once
    /// per cell in row-major order. Errors as [`Grid::open`].
    ///
    /// ```
    /// let grid = cuplan_grid::Grid::from_fn(3, 2, |x, y| (x, y) != (1, 0))?;
    /// assert_eq!(grid.free_count(), 5);
    /// # Ok::<(), cuplan_grid::GridError>(())
    /// ```
    pub fn from_fn(
        width: u32,
        height: u32,
        mut is_free: impl FnMut(u32, u32) -> bool,
    ) -> Result<Grid> {
        let mut grid = Grid::open(width, height)?;
        for y in 0..height {
            for x in 0..width {
                if !is_free(x, y) {
                    grid.set_blocked_unchecked(Cell::new(x, y));
                }
            }
        }
        grid.reset_generation();
        Ok(grid)
    }

    /// A `width × height` grid from one flag per cell in row-major order (cell (`x`, `y`) is
    /// `blocked[y * width + x]`), `true` = blocked: the layout of most obstacle masks.
    ///
    /// Errors with [`GridError::InvalidSize`] when `blocked.len()` is not `width × height`,
    /// and as [`Grid::open`].
    ///
    /// ```
    /// let grid = cuplan_grid::Grid::from_blocked(3, 2, &[false, true, false, false, false, false])?;
    /// assert!(!grid.is_free(cuplan_grid::Cell::new(1, 0)));
    /// assert!(cuplan_grid::Grid::from_blocked(3, 2, &[false; 5]).is_err());
    /// # Ok::<(), cuplan_grid::GridError>(())
    /// ```
    pub fn from_blocked(width: u32, height: u32, blocked: &[bool]) -> Result<Grid> {
        check_cells(width, height, blocked.len())?;
        Grid::from_fn(width, height, |x, y| !blocked[row_major(width, x, y)])
    }

    /// Like [`Grid::from_blocked`] with the opposite flags: `true` = free (passable), as
    /// [`Grid::from_array`] and [`Grid::from_fn`].
    ///
    /// ```
    /// let grid = cuplan_grid::Grid::from_free(2, 2, &[true, true, false, true])?;
    /// assert_eq!(grid.free_count(), 3);
    /// # Ok::<(), cuplan_grid::GridError>(())
    /// ```
    pub fn from_free(width: u32, height: u32, free: &[bool]) -> Result<Grid> {
        check_cells(width, height, free.len())?;
        Grid::from_fn(width, height, |x, y| free[row_major(width, x, y)])
    }

    /// A `width × height` grid from one occupancy byte per cell in row-major order: a cell is
    /// blocked when its byte is at least `threshold`. `threshold = 1` blocks every non-zero
    /// byte (a 0/1 or 0/255 mask); a ROS occupancy grid (`int8`, 0..=100, -1 unknown) read as
    /// bytes with `threshold = 65` blocks cells at least 65 % occupied and the unknown ones
    /// (-1 is 255). `threshold = 0` blocks every cell.
    ///
    /// Errors with [`GridError::InvalidSize`] when `occupancy.len()` is not `width × height`,
    /// and as [`Grid::open`].
    ///
    /// ```
    /// let grid = cuplan_grid::Grid::from_occupancy(3, 1, &[0, 200, 40], 50)?;
    /// assert_eq!(grid.free_count(), 2);
    /// # Ok::<(), cuplan_grid::GridError>(())
    /// ```
    pub fn from_occupancy(
        width: u32,
        height: u32,
        occupancy: &[u8],
        threshold: u8,
    ) -> Result<Grid> {
        check_cells(width, height, occupancy.len())?;
        Grid::from_fn(width, height, |x, y| {
            occupancy[row_major(width, x, y)] < threshold
        })
    }

    /// The grid as a boolean array indexed `[y, x]`, `true` = free. Feature `ndarray`.
    #[cfg(feature = "ndarray")]
    pub fn to_array(&self) -> Array2<bool> {
        Array2::from_shape_fn((self.height as usize, self.width as usize), |(y, x)| {
            self.is_free(Cell::new(x as u32, y as u32))
        })
    }

    /// A grid from ASCII art, one line per row, with the Moving AI characters (`.` `G` `S`
    /// free; `@` `O` `T` `W` blocked). Blank lines around the art and indentation are ignored,
    /// which keeps test fixtures readable.
    pub fn from_ascii(art: &str) -> Result<Grid> {
        let lines: Vec<&str> = art
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let height = lines.len();
        let width = lines.first().map_or(0, |l| l.len());
        check_size(width as u64, height as u64, DEFAULT_MAX_CELLS)?;
        let mut grid = Grid::open(width as u32, height as u32)?;
        for (y, line) in lines.iter().enumerate() {
            if line.len() != width {
                return Err(GridError::Syntax {
                    source_name: "<ascii>".into(),
                    line: y + 1,
                    column: line.len().min(width) + 1,
                    message: format!("row has {} characters, expected {width}", line.len()),
                });
            }
            for (x, byte) in line.bytes().enumerate() {
                match crate::movingai::classify(byte) {
                    Some(true) => {}
                    Some(false) => grid.set_blocked_unchecked(Cell::new(x as u32, y as u32)),
                    None => {
                        return Err(GridError::Syntax {
                            source_name: "<ascii>".into(),
                            line: y + 1,
                            column: x + 1,
                            message: format!("unknown map character {:?}", byte as char),
                        });
                    }
                }
            }
        }
        grid.reset_generation();
        Ok(grid)
    }

    /// Width (number of columns).
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height (number of rows).
    #[inline]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// `width × height`.
    #[inline]
    pub fn cell_count(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Number of free cells.
    #[inline]
    pub fn free_count(&self) -> u64 {
        self.free_cells
    }

    /// The identity of the grid's present cells: a new value after every change of a cell,
    /// drawn from a process-wide counter, so two grids share a generation only when one is an
    /// unchanged clone of the other. Caches built from a grid (jump tables) store it.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.journal.current()
    }

    /// The cells changed (in order, possibly repeated) since this grid, or a clone it was
    /// made from, was at `generation`; `Some(&[])` when it still is. `None` when the grid
    /// cannot say: `generation` is older than the journal keeps (it holds the last
    /// `max(1024, cells / 64)` changes, up to 2^20), or not one of this grid's history.
    /// Whoever gets `None` must rebuild from the grid.
    pub fn changes_since(&self, generation: u64) -> Option<&[Cell]> {
        self.journal.since(generation)
    }

    /// Whether `cell` lies inside the grid.
    #[inline]
    pub fn contains(&self, cell: Cell) -> bool {
        cell.x < self.width && cell.y < self.height
    }

    /// Whether `(x, y)` (possibly negative) lies inside the grid.
    #[inline]
    pub fn contains_signed(&self, x: i64, y: i64) -> bool {
        x >= 0 && y >= 0 && x < i64::from(self.width) && y < i64::from(self.height)
    }

    /// `Ok` when `cell` is inside the grid, else [`GridError::OutOfRange`].
    pub fn check_cell(&self, cell: Cell) -> Result<()> {
        if self.contains(cell) {
            Ok(())
        } else {
            Err(GridError::OutOfRange {
                cell,
                width: self.width,
                height: self.height,
            })
        }
    }

    /// `Ok` when `cell` is inside the grid and free, else the matching error.
    pub fn check_free(&self, cell: Cell) -> Result<()> {
        self.check_cell(cell)?;
        if self.is_free(cell) {
            Ok(())
        } else {
            Err(GridError::Blocked { cell })
        }
    }

    /// Whether `cell` is inside the grid and passable. Out-of-range cells are not free.
    #[inline]
    pub fn is_free(&self, cell: Cell) -> bool {
        self.contains(cell)
            && !self
                .rows
                .is_blocked_stored(cell.y as usize + 1, cell.x as usize + 1)
    }

    /// Whether `(x, y)` is inside and free; the border makes `-1` and `width` safe to ask.
    #[inline]
    pub fn is_free_signed(&self, x: i64, y: i64) -> bool {
        self.contains_signed(x, y) && !self.rows.is_blocked_stored(y as usize + 1, x as usize + 1)
    }

    /// The row-major index of an in-range cell.
    #[inline]
    pub fn index(&self, cell: Cell) -> CellIndex {
        debug_assert!(self.contains(cell));
        CellIndex(row_major(self.width, cell.x, cell.y))
    }

    /// The cell of an index made by this grid.
    #[inline]
    pub fn cell(&self, index: CellIndex) -> Cell {
        let width = self.width as usize;
        // Both parts fit a u32: the index came from a cell of this grid.
        Cell::new((index.0 % width) as u32, (index.0 / width) as u32)
    }

    /// The row-major bit plane (stored row `y + 1` is grid row `y`). See [`BitPlane`].
    #[inline]
    pub fn rows(&self) -> &BitPlane {
        &self.rows
    }

    /// The transposed bit plane (stored row `x + 1` is grid column `x`, bit `y + 1` its row
    /// `y`), so vertical scans are row scans.
    #[inline]
    pub fn cols(&self) -> &BitPlane {
        &self.cols
    }

    /// Marks `cell` blocked (O(1), both copies; the components follow in near O(1) unless the
    /// cell may split one, see [`Components`]). Returns whether it changed.
    pub fn set_blocked(&mut self, cell: Cell) -> Result<bool> {
        self.check_cell(cell)?;
        Ok(self.change(cell, true))
    }

    /// Marks `cell` free (O(1), both copies; the components follow). Returns whether it
    /// changed.
    pub fn set_free(&mut self, cell: Cell) -> Result<bool> {
        self.check_cell(cell)?;
        Ok(self.change(cell, false))
    }

    /// Applies `changes` in order and returns how many cells changed. Every cell is checked
    /// first: when one is outside the grid nothing is applied.
    pub fn apply(&mut self, changes: &[Change]) -> Result<usize> {
        for c in changes {
            self.check_cell(c.cell())?;
        }
        Ok(changes
            .iter()
            .filter(|&&c| match c {
                Change::Block(cell) => self.change(cell, true),
                Change::Free(cell) => self.change(cell, false),
            })
            .count())
    }

    /// The one place a cell of a built grid changes: both planes, the journal, the
    /// components.
    fn change(&mut self, cell: Cell, blocked: bool) -> bool {
        if self.is_free(cell) != blocked {
            return false;
        }
        self.write_cell(cell, blocked);
        self.journal.record(cell);
        if let Some(fresh) = self.components.fresh.take() {
            self.components.kept = OnceLock::from(fresh);
        }
        if let Some(mut kept) = self.components.kept.take() {
            if blocked {
                kept.cell_blocked(self, cell);
            } else {
                kept.cell_freed(self, cell);
            }
            self.components.kept = OnceLock::from(kept);
        }
        true
    }

    /// Writes a cell into both planes and the free count, nothing else (construction).
    fn write_cell(&mut self, cell: Cell, blocked: bool) {
        let (x, y) = (cell.x as usize + 1, cell.y as usize + 1);
        self.rows.set_stored(y, x, blocked);
        self.cols.set_stored(x, y, blocked);
        if blocked {
            self.free_cells -= 1;
        } else {
            self.free_cells += 1;
        }
    }

    /// Blocks an in-range free cell while the grid is being built; the builder calls
    /// [`Grid::reset_generation`] when done.
    pub(crate) fn set_blocked_unchecked(&mut self, cell: Cell) {
        debug_assert!(self.is_free(cell));
        self.write_cell(cell, true);
    }

    /// Ends construction: the cells as they are now are the grid's first generation.
    pub(crate) fn reset_generation(&mut self) {
        self.journal.restart();
        self.components = ComponentCache::default();
    }

    /// Whether one step from `cell` in `dir` is legal: the target is free and, for a diagonal,
    /// both orthogonal cells it passes are free (no corner cutting, the Moving AI rule).
    #[inline]
    pub fn can_step(&self, cell: Cell, dir: Direction) -> bool {
        let (dx, dy) = dir.delta();
        let (x, y) = (i64::from(cell.x), i64::from(cell.y));
        let (dx, dy) = (i64::from(dx), i64::from(dy));
        if !self.is_free_signed(x + dx, y + dy) {
            return false;
        }
        !dir.is_diagonal() || (self.is_free_signed(x + dx, y) && self.is_free_signed(x, y + dy))
    }

    /// Free 4-connected neighbours of `cell`, in N, E, S, W order.
    pub fn neighbours4(&self, cell: Cell) -> impl Iterator<Item = Cell> + '_ {
        Direction::STRAIGHT
            .into_iter()
            .filter(move |&d| self.can_step(cell, d))
            .filter_map(move |d| cell.step(d))
    }

    /// Legal 8-connected moves from `cell` (no corner cutting), with their directions, in
    /// [`Direction::ALL`] order.
    pub fn neighbours8(&self, cell: Cell) -> impl Iterator<Item = (Cell, Direction)> + '_ {
        Direction::ALL
            .into_iter()
            .filter(move |&d| self.can_step(cell, d))
            .filter_map(move |d| cell.step(d).map(|c| (c, d)))
    }

    /// The connected components, exact. Labelled on first use; then every change keeps them
    /// up to date, except a block that may split a component into two large pieces, after
    /// which the next call labels afresh (O(cells)).
    ///
    /// Under no corner cutting a diagonal step is only legal when both orthogonal cells are
    /// free, so 8-connected components equal 4-connected ones: one labelling serves both.
    pub fn components(&self) -> &Components {
        match self.components.kept.get() {
            Some(kept) if kept.is_exact() => kept,
            _ => self
                .components
                .fresh
                .get_or_init(|| Components::label(self)),
        }
    }

    /// Whether a path between two free cells exists (O(1) while the components are exact;
    /// see [`Grid::components`]).
    pub fn connected(&self, a: Cell, b: Cell) -> bool {
        same_component(self, self.components(), a, b)
    }

    /// `false` only when no path joins `a` and `b`; `true` when one does and, after a block
    /// that may have split a component into two large pieces, possibly when none does. Never
    /// labels afresh once the components were built, so it costs O(1) per query on a grid that
    /// changes every tick; searches use it to skip hopeless queries and find the rest out.
    pub fn maybe_connected(&self, a: Cell, b: Cell) -> bool {
        let comps = match (self.components.fresh.get(), self.components.kept.get()) {
            (Some(fresh), _) => fresh,
            (None, Some(kept)) => kept,
            (None, None) => self.components(),
        };
        same_component(self, comps, a, b)
    }

    /// Bytes held by the grid (both bit planes, the change journal and, when built, the
    /// components).
    pub fn bytes(&self) -> usize {
        let journal = self.journal.cells.capacity() * std::mem::size_of::<Cell>()
            + self.journal.generations.capacity() * 8;
        let comps = [&self.components.kept, &self.components.fresh]
            .iter()
            .filter_map(|c| c.get())
            .map(Components::bytes)
            .sum::<usize>();
        self.rows.bytes() + self.cols.bytes() + journal + comps
    }
}

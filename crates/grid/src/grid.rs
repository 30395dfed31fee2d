//! `Grid`: the occupancy grid every search reads.

use std::sync::OnceLock;

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
/// of the grid), both with a blocked border ([`BitPlane`]); every mutation updates both and
/// bumps [`generation`](Grid::generation); the cached [`Components`] always describe the current
/// cells. A `Grid` is `Send + Sync`; searches share it read-only.
#[derive(Debug)]
pub struct Grid {
    width: u32,
    height: u32,
    rows: BitPlane,
    cols: BitPlane,
    free_cells: u64,
    generation: u64,
    components: OnceLock<Components>,
}

impl Clone for Grid {
    fn clone(&self) -> Grid {
        Grid {
            width: self.width,
            height: self.height,
            rows: self.rows.clone(),
            cols: self.cols.clone(),
            free_cells: self.free_cells,
            generation: self.generation,
            components: self.components.clone(),
        }
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

impl Grid {
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
            generation: 0,
            components: OnceLock::new(),
        })
    }

    /// A grid from a boolean array indexed `[y, x]`, `true` = free (passable).
    pub fn from_array(free: &Array2<bool>) -> Result<Grid> {
        let (h, w) = free.dim();
        check_size(w as u64, h as u64, DEFAULT_MAX_CELLS)?;
        let mut grid = Grid::open(w as u32, h as u32)?;
        for ((y, x), &is_free) in free.indexed_iter() {
            if !is_free {
                grid.set_blocked_unchecked(Cell::new(x as u32, y as u32));
            }
        }
        grid.generation = 0;
        Ok(grid)
    }

    /// The grid as a boolean array indexed `[y, x]`, `true` = free.
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
        grid.generation = 0;
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

    /// Counter bumped by every change of a cell; caches built from the grid compare it.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation
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
                x: i64::from(cell.x),
                y: i64::from(cell.y),
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
            Err(GridError::Blocked {
                x: cell.x,
                y: cell.y,
            })
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
        CellIndex(cell.y * self.width + cell.x)
    }

    /// The cell of an index made by this grid.
    #[inline]
    pub fn cell(&self, index: CellIndex) -> Cell {
        Cell::new(index.0 % self.width, index.0 / self.width)
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

    /// Marks `cell` blocked (O(1), both copies). Returns whether it changed.
    pub fn set_blocked(&mut self, cell: Cell) -> Result<bool> {
        self.set(cell, true)
    }

    /// Marks `cell` free (O(1), both copies). Returns whether it changed.
    pub fn set_free(&mut self, cell: Cell) -> Result<bool> {
        self.set(cell, false)
    }

    fn set(&mut self, cell: Cell, blocked: bool) -> Result<bool> {
        self.check_cell(cell)?;
        if self.is_free(cell) != blocked {
            return Ok(false);
        }
        if blocked {
            self.set_blocked_unchecked(cell);
        } else {
            self.rows
                .set_stored(cell.y as usize + 1, cell.x as usize + 1, false);
            self.cols
                .set_stored(cell.x as usize + 1, cell.y as usize + 1, false);
            self.free_cells += 1;
            self.touch();
        }
        Ok(true)
    }

    /// Blocks an in-range free cell.
    pub(crate) fn set_blocked_unchecked(&mut self, cell: Cell) {
        self.rows
            .set_stored(cell.y as usize + 1, cell.x as usize + 1, true);
        self.cols
            .set_stored(cell.x as usize + 1, cell.y as usize + 1, true);
        self.free_cells -= 1;
        self.touch();
    }

    pub(crate) fn reset_generation(&mut self) {
        self.generation = 0;
    }

    fn touch(&mut self) {
        self.generation += 1;
        if self.components.get().is_some() {
            self.components = OnceLock::new();
        }
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

    /// The connected components, computed on first use after a change and cached.
    ///
    /// Under no corner cutting a diagonal step is only legal when both orthogonal cells are
    /// free, so 8-connected components equal 4-connected ones: one labelling serves both.
    pub fn components(&self) -> &Components {
        self.components.get_or_init(|| Components::label(self))
    }

    /// Whether a path between two free cells exists (O(1) after the components are built).
    pub fn connected(&self, a: Cell, b: Cell) -> bool {
        let comps = self.components();
        match (comps.of(self, a), comps.of(self, b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// Bytes held by the grid (both bit planes and, when built, the components).
    pub fn bytes(&self) -> usize {
        self.rows.bytes() + self.cols.bytes() + self.components.get().map_or(0, Components::bytes)
    }
}

//! Cells, cell indices and the eight compass directions.

/// A grid cell: `x` is the column, `y` the row, `(0, 0)` the top-left corner (Moving AI order).
///
/// A `Cell` on its own is just a pair of coordinates; a [`Grid`](crate::Grid) checks that it is
/// in range ([`Grid::check_cell`](crate::Grid::check_cell)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Cell {
    /// Column, 0-based from the left.
    pub x: u32,
    /// Row, 0-based from the top.
    pub y: u32,
}

impl Cell {
    /// The cell at column `x`, row `y`.
    #[inline]
    pub const fn new(x: u32, y: u32) -> Cell {
        Cell { x, y }
    }

    /// The cell one step away in `dir`, or `None` when that leaves the non-negative quadrant.
    #[inline]
    pub fn step(self, dir: Direction) -> Option<Cell> {
        let (dx, dy) = dir.delta();
        let x = self.x.checked_add_signed(dx)?;
        let y = self.y.checked_add_signed(dy)?;
        Some(Cell { x, y })
    }

    /// Chebyshev-style octile components: (`max(|dx|,|dy|) - min`, `min`) = (straight, diagonal)
    /// steps of the shortest obstacle-free octile path to `other`.
    #[inline]
    pub fn octile_steps(self, other: Cell) -> (u32, u32) {
        let dx = self.x.abs_diff(other.x);
        let dy = self.y.abs_diff(other.y);
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        (hi - lo, lo)
    }

    /// Manhattan distance, the exact 4-connected distance on an open grid.
    #[inline]
    pub fn manhattan(self, other: Cell) -> u32 {
        self.x.abs_diff(other.x) + self.y.abs_diff(other.y)
    }
}

impl From<(u32, u32)> for Cell {
    fn from((x, y): (u32, u32)) -> Cell {
        Cell { x, y }
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// Row-major index of a cell in a grid: `y * width + x`. Only a [`Grid`](crate::Grid) makes one,
/// so an index is always in range for the grid that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellIndex(pub(crate) usize);

impl CellIndex {
    /// `y * width + x` as a `usize`: the one place the workspace writes the row-major layout
    /// of per-cell tables (distance maps, jump tables, labels). Where a grid is at hand,
    /// [`Grid::index`](crate::Grid::index) gives the same index, checked against the grid.
    /// Inside `usize` for every grid size the grid crate accepts (at most 2^32 cells).
    #[inline(always)]
    pub const fn row_major(width: u32, x: u32, y: u32) -> usize {
        y as usize * width as usize + x as usize
    }

    /// The index as a `usize`, for indexing per-cell tables.
    #[inline]
    pub const fn get(self) -> usize {
        self.0
    }
}

/// The eight compass directions, in the order used by every per-direction table:
/// N, NE, E, SE, S, SW, W, NW (clockwise from north; north is `y - 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[repr(u8)]
pub enum Direction {
    /// `y - 1`.
    North = 0,
    /// `x + 1, y - 1`.
    NorthEast = 1,
    /// `x + 1`.
    East = 2,
    /// `x + 1, y + 1`.
    SouthEast = 3,
    /// `y + 1`.
    South = 4,
    /// `x - 1, y + 1`.
    SouthWest = 5,
    /// `x - 1`.
    West = 6,
    /// `x - 1, y - 1`.
    NorthWest = 7,
}

impl Direction {
    /// All eight, in table order.
    pub const ALL: [Direction; 8] = [
        Direction::North,
        Direction::NorthEast,
        Direction::East,
        Direction::SouthEast,
        Direction::South,
        Direction::SouthWest,
        Direction::West,
        Direction::NorthWest,
    ];
    /// The four straight directions (N, E, S, W).
    pub const STRAIGHT: [Direction; 4] = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
    ];
    /// The four diagonal directions (NE, SE, SW, NW).
    pub const DIAGONAL: [Direction; 4] = [
        Direction::NorthEast,
        Direction::SouthEast,
        Direction::SouthWest,
        Direction::NorthWest,
    ];

    /// The direction with table index `i` (`i % 8`).
    #[inline]
    pub const fn from_index(i: usize) -> Direction {
        Direction::ALL[i % 8]
    }

    /// Table index, 0..8.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `(dx, dy)` of one step.
    #[inline]
    pub const fn delta(self) -> (i32, i32) {
        match self {
            Direction::North => (0, -1),
            Direction::NorthEast => (1, -1),
            Direction::East => (1, 0),
            Direction::SouthEast => (1, 1),
            Direction::South => (0, 1),
            Direction::SouthWest => (-1, 1),
            Direction::West => (-1, 0),
            Direction::NorthWest => (-1, -1),
        }
    }

    /// The direction of a step `(dx, dy)` with each component in -1..=1, not both zero.
    #[inline]
    pub const fn from_delta(dx: i32, dy: i32) -> Option<Direction> {
        Some(match (dx.signum(), dy.signum()) {
            (0, -1) => Direction::North,
            (1, -1) => Direction::NorthEast,
            (1, 0) => Direction::East,
            (1, 1) => Direction::SouthEast,
            (0, 1) => Direction::South,
            (-1, 1) => Direction::SouthWest,
            (-1, 0) => Direction::West,
            (-1, -1) => Direction::NorthWest,
            _ => return None,
        })
    }

    /// Whether both components are non-zero.
    #[inline]
    pub const fn is_diagonal(self) -> bool {
        (self as u8) & 1 == 1
    }

    /// The opposite direction.
    #[inline]
    pub const fn reverse(self) -> Direction {
        Direction::from_index(self as usize + 4)
    }

    /// For a diagonal direction, its horizontal and vertical components (e.g. NE → (E, N)).
    #[inline]
    pub const fn components(self) -> (Direction, Direction) {
        let (dx, dy) = self.delta();
        let h = if dx > 0 {
            Direction::East
        } else {
            Direction::West
        };
        let v = if dy > 0 {
            Direction::South
        } else {
            Direction::North
        };
        (h, v)
    }
}

//! The four unit moves and the shared bit layout of every per-time plane.

use cuplan_grid::{Cell, Direction};

/// One of the four 4-connected moves, in table order (index = [`Move::index`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Move {
    /// `y - 1`.
    North = 0,
    /// `x + 1`.
    East = 1,
    /// `y + 1`.
    South = 2,
    /// `x - 1`.
    West = 3,
}

impl Move {
    /// All four, in table order.
    pub const ALL: [Move; 4] = [Move::North, Move::East, Move::South, Move::West];

    /// Table index, 0..4.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The move from `from` to `to` when they are 4-adjacent, else `None` (a wait included).
    #[inline]
    pub fn between(from: Cell, to: Cell) -> Option<Move> {
        let dx = i64::from(to.x) - i64::from(from.x);
        let dy = i64::from(to.y) - i64::from(from.y);
        match (dx, dy) {
            (0, -1) => Some(Move::North),
            (1, 0) => Some(Move::East),
            (0, 1) => Some(Move::South),
            (-1, 0) => Some(Move::West),
            _ => None,
        }
    }

    /// Whether `from → to` is one timestep of a path: a wait or a unit move.
    #[inline]
    pub fn is_step(from: Cell, to: Cell) -> bool {
        from == to || Move::between(from, to).is_some()
    }

    /// The opposite move.
    #[inline]
    pub const fn reverse(self) -> Move {
        match self {
            Move::North => Move::South,
            Move::East => Move::West,
            Move::South => Move::North,
            Move::West => Move::East,
        }
    }

    /// The grid direction of this move.
    #[inline]
    pub const fn direction(self) -> Direction {
        match self {
            Move::North => Direction::North,
            Move::East => Direction::East,
            Move::South => Direction::South,
            Move::West => Direction::West,
        }
    }
}

/// Words per row of a plane over a `width`-wide grid: the same as the grid's
/// [`BitPlane`](cuplan_grid::BitPlane) stride, so grid rows and planes line up word for word.
#[inline]
pub fn plane_stride(width: u32) -> usize {
    (width as usize + 2).div_ceil(64)
}

/// Word index and bit mask of `cell` in a plane of `stride` words per row. Row `y` of a
/// plane is grid row `y`; bit `x + 1` (counting across the row's words) is column `x`, as in
/// the grid's stored columns.
#[inline]
pub fn plane_bit(stride: usize, cell: Cell) -> (usize, u64) {
    let c = cell.x as usize + 1;
    (cell.y as usize * stride + c / 64, 1u64 << (c % 64))
}

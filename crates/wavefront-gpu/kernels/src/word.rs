//! Per-word bit logic shared by the device kernels and the host tests.
//!
//! A word holds 64 horizontally consecutive cells of one stored row; bit `b` is stored column
//! `64·w + b` (least significant bit = leftmost cell). "Left"/"right" are the words before and
//! after in the same row, "up"/"down" the words at the same position in the rows above/below.

/// Direction planes of the edge reservations, in this order: towards row − 1 (north), column +
/// 1 (east), row + 1 (south), column − 1 (west).
pub const DIRECTIONS: u32 = 4;
/// Index of the north plane (the neighbour in the stored row above).
pub const NORTH: u32 = 0;
/// Index of the east plane (the neighbour one column to the right).
pub const EAST: u32 = 1;
/// Index of the south plane (the neighbour in the stored row below).
pub const SOUTH: u32 = 2;
/// Index of the west plane (the neighbour one column to the left).
pub const WEST: u32 = 3;

/// The cells of this word with a set 4-neighbour (the set cells themselves are not added):
/// a west/east neighbour in `centre`, or across the word boundary in `left` (its bit 63
/// neighbours our bit 0) or `right` (its bit 0 neighbours our bit 63); a north/south
/// neighbour in `up`/`down`.
#[inline(always)]
pub const fn dilate4(centre: u64, left: u64, right: u64, up: u64, down: u64) -> u64 {
    (centre << 1) | (centre >> 1) | (left >> 63) | (right << 63) | up | down
}

/// One breadth-first level on one word: the cells of `remaining` (free, not yet reached) that
/// are 4-adjacent to the previous frontier, given the frontier's five words around this one.
#[inline(always)]
pub const fn bfs_expand(
    remaining: u64,
    centre: u64,
    left: u64,
    right: u64,
    up: u64,
    down: u64,
) -> u64 {
    dilate4(centre, left, right, up, down) & remaining
}

/// The frontier words that may leave in each direction at one timestep: `reach` minus the
/// cells whose move in that direction is an edge conflict.
///
/// `arrived_from[d]` has a bit at cell `u` when another agent arrives at `u` at this timestep
/// coming from `u`'s neighbour in direction `d`; our move `u → u+d` would swap with it.
#[inline(always)]
pub const fn movers(reach: u64, arrived_from: u64) -> u64 {
    reach & !arrived_from
}

/// One space-time step on one word: where an agent can be at time `t` given where it could be
/// at `t − 1`.
///
/// - `stay`: reach at `t − 1` of this word (waiting in place is always an edge-free move);
/// - `east_here`, `east_left`: movers eastwards ([`movers`] with the east plane) of this word
///   and of the word on the left (its bit 63 enters our bit 0);
/// - `west_here`, `west_right`: movers westwards of this word and of the word on the right;
/// - `south_up`: movers southwards of the word in the row above;
/// - `north_down`: movers northwards of the word in the row below;
/// - `allowed`: free and not vertex-reserved at `t`.
#[allow(clippy::too_many_arguments)] // one argument per neighbour word reads clearest
#[inline(always)]
pub const fn space_time_step(
    stay: u64,
    east_here: u64,
    east_left: u64,
    west_here: u64,
    west_right: u64,
    south_up: u64,
    north_down: u64,
    allowed: u64,
) -> u64 {
    let east = (east_here << 1) | (east_left >> 63);
    let west = (west_here >> 1) | (west_right << 63);
    (stay | east | west | south_up | north_down) & allowed
}

/// The bit of stored column `x + 1` in its word (real column `x`).
#[inline(always)]
pub const fn column_bit(x: u32) -> u64 {
    1u64 << ((x + 1) & 63)
}

/// Word index of real cell `(x, y)` in a plane of `stride` words per stored row.
#[inline(always)]
pub const fn word_of(x: u32, y: u32, stride: u32) -> u32 {
    (y + 1) * stride + (x + 1) / 64
}

/// Calls `write(cell, value)` for every set bit of `bits`, word `column_word` of stored row
/// `row`, where `cell = (row − 1)·width + 64·column_word + b − 1` is the row-major real index.
///
/// Bits must be real cells (never the border), as they are when `bits ⊆ free`.
#[inline(always)]
pub fn for_each_cell(
    bits: u64,
    row: u32,
    column_word: u32,
    width: u32,
    mut write: impl FnMut(u32),
) {
    let base = (row.wrapping_sub(1))
        .wrapping_mul(width)
        .wrapping_add(column_word.wrapping_mul(64))
        .wrapping_sub(1);
    let mut rest = bits;
    while rest != 0 {
        write(base.wrapping_add(rest.trailing_zeros()));
        rest &= rest - 1;
    }
}

//! `#[repr(C)]` launch structs, passed by value as the single parameter of each kernel.
//!
//! The host fills the pointers with device addresses (or, in the host emulator, with host
//! addresses); every field is an 8-byte pointer or a `u32`, so the layout is the same on both
//! sides. Pointer fields are documented with the number of elements they must cover.

/// Plane geometry shared by every launch.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    /// Words per stored row (`cuplan_grid::BitPlane::stride`).
    pub stride: u32,
    /// Stored rows (real height + 2).
    pub rows: u32,
    /// Real width in cells.
    pub width: u32,
    /// Real height in cells.
    pub height: u32,
}

impl Dims {
    /// Words in one plane (`stride × rows`).
    #[inline(always)]
    pub const fn plane_words(&self) -> u32 {
        self.stride.wrapping_mul(self.rows)
    }

    /// Real cells (`width × height`).
    #[inline(always)]
    pub const fn cells(&self) -> u32 {
        self.width.wrapping_mul(self.height)
    }
}

/// Multi-goal breadth-first distance maps, one thread block per goal.
///
/// `P = dims.plane_words()`, `C = dims.cells()`, `n = goal_count`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DistanceLaunch {
    /// `P` words: 1 = free cell (the complement of the grid's blocked plane, border 0).
    pub free: *const u64,
    /// `n` goal cells as row-major real indices (`y·width + x`), each a free cell.
    pub goals: *const u32,
    /// `n·P` words: per goal, free cells not reached yet.
    pub remaining: *mut u64,
    /// `2·n·P` words, zeroed by the host before `distance_init`: the frontier of level `t` is
    /// buffer `t & 1` (`buffer·n·P + goal·P`).
    pub frontier: *mut u64,
    /// `n·C` distances, written by the kernels: `u32::MAX` where unreachable.
    pub dist: *mut u32,
    /// `n` words, zeroed by the host: the last level at which the goal's search reached a new
    /// cell (0 = only the goal). A search is finished once a level leaves it unchanged.
    pub last_level: *mut u32,
    /// Sparse kernel only (null for the dense one): `n·P` words, zeroed by the host: the
    /// last level at which each word was claimed as a candidate.
    pub stamp: *mut u32,
    /// Sparse kernel only: `3·n·P` word indices, three lists per goal (`(goal·3 + slot)·P`):
    /// the words that gained cells at level `t` are list `t mod 3`.
    pub lists: *mut u32,
    /// Sparse kernel only: `3·n` list lengths, zeroed by the host.
    pub counts: *mut u32,
    /// Plane geometry.
    pub dims: Dims,
    /// Number of goals (= thread blocks).
    pub goal_count: u32,
    /// First level this launch runs (`≥ 1`).
    pub first_level: u32,
    /// Last level this launch runs, inclusive; the host checks for termination in between.
    pub final_level: u32,
}

/// One timestep of the single-agent space-time search, threads over the words of one plane.
///
/// `P = dims.plane_words()`; planes of timestep `t` start at `t·P` (vertex, reach) and
/// `(t·4 + d)·P` (edge plane of direction `d`, see [`crate::word::NORTH`] and siblings).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SpaceTimeLaunch {
    /// `P` words: 1 = free cell.
    pub free: *const u64,
    /// `(horizon + 1)·P` words: 1 = cell reserved by another agent at that timestep.
    pub vertex: *const u64,
    /// `(horizon + 1)·4·P` words: bit at cell `u`, plane `(t, d)`: another agent arrives at
    /// `u` at time `t` from `u`'s neighbour in direction `d`.
    pub arrived_from: *const u64,
    /// `(horizon + 1)·P` words: plane `t` = cells where the agent can be at time `t`; plane 0
    /// holds the start, written by the host.
    pub reach: *mut u64,
    /// One word, `u32::MAX` until the goal is reached for good: then the earliest such `t`.
    pub arrival: *mut u32,
    /// Plane geometry.
    pub dims: Dims,
    /// The timestep this launch computes (`1 ≤ t ≤ horizon`).
    pub t: u32,
    /// Goal cell column.
    pub goal_x: u32,
    /// Goal cell row.
    pub goal_y: u32,
    /// The goal counts as reached only at times after this one (the last time it is
    /// vertex-reserved), so the agent can stay there; 0 when never reserved.
    pub goal_free_after: u32,
}

/// One word update of a reservation table: `table[word] |= bits`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReservationUpdate {
    /// Word index into the table (vertex planes, or edge planes for the edge table).
    pub word: u64,
    /// Bits to set.
    pub bits: u64,
}

/// Applies reservation updates, one thread per update.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ReserveLaunch {
    /// The table the updates index (vertex or edge planes).
    pub table: *mut u64,
    /// Words in `table` (updates at or past it are ignored).
    pub table_words: u64,
    /// `count` updates with pairwise distinct `word`s (so no two threads touch one word).
    pub updates: *const ReservationUpdate,
    /// Number of updates.
    pub count: u32,
}

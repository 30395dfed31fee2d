//! What one GPU thread does between two barriers, on raw pointers.
//!
//! Each body takes the launch struct, the thread's index among `threads` cooperating threads
//! (a block, or the whole grid), and strides over the words or cells it owns: word `k` belongs
//! to thread `k mod threads`. A body writes only words it owns and reads other threads' words
//! only from buffers nobody writes in the same phase, so running the bodies of all threads one
//! after the other (the host emulator) gives exactly what the GPU gives.

use core::num::NonZeroU32;
use core::ptr::{read_volatile, write_volatile};

use crate::launch::{DistanceLaunch, ReserveLaunch, SpaceTimeLaunch};
use crate::word::{
    DIRECTIONS, EAST, NORTH, SOUTH, WEST, bfs_expand, column_bit, for_each_cell, movers,
    space_time_step, word_of,
};

/// Distance value of a cell the goal cannot be reached from.
pub const UNREACHABLE: u32 = u32::MAX;

/// Row and column word of word `w` (`None` only for a zero stride, which never launches).
#[inline(always)]
fn split_word(w: u32, stride: u32) -> Option<(u32, u32)> {
    let s = NonZeroU32::new(stride)?;
    let row = w / s;
    Some((row, w - row * stride))
}

/// Sets up goal `goal`'s search: `remaining = free − goal`, frontier buffer 0 = the goal,
/// distances `UNREACHABLE` except 0 at the goal.
///
/// # Safety
/// `p` must satisfy the size contract of [`DistanceLaunch`] and `goal < p.goal_count`; no
/// other thread may access this goal's words of `remaining`, `frontier` buffer 0 or `dist`
/// outside the words this thread owns until the next barrier.
pub unsafe fn distance_init(p: &DistanceLaunch, goal: u32, thread: u32, threads: u32) {
    let Some(width) = NonZeroU32::new(p.dims.width) else {
        return;
    };
    let words = p.dims.plane_words() as usize;
    let cells = p.dims.cells() as usize;
    let g = goal as usize;
    // SAFETY: goal < goal_count, so the goal index read is in bounds.
    let target = unsafe { p.goals.add(g).read() };
    let (gx, gy) = (target % width, target / width);
    let goal_word = word_of(gx, gy, p.dims.stride) as usize;
    let goal_bit = column_bit(gx);
    // SAFETY (all accesses below): offsets stay below the sizes of the launch contract.
    let remaining = unsafe { p.remaining.add(g * words) };
    let frontier = unsafe { p.frontier.add(g * words) };
    let dist = unsafe { p.dist.add(g * cells) };
    let mut w = thread as usize;
    while w < words {
        let seed = if w == goal_word { goal_bit } else { 0 };
        unsafe {
            remaining.add(w).write(p.free.add(w).read() & !seed);
            frontier.add(w).write(seed);
        }
        w += threads as usize;
    }
    let mut c = thread as usize;
    while c < cells {
        let d = if c == target as usize { 0 } else { UNREACHABLE };
        unsafe { dist.add(c).write(d) };
        c += threads as usize;
    }
}

/// Level `t ≥ 1` of goal `goal`'s search: reads frontier buffer `(t − 1) & 1`, writes buffer
/// `t & 1` (every interior word), clears the new cells from `remaining`, writes distance `t`
/// for them, and sets `last_level[goal] = t` when any cell was new. Returns whether this
/// thread found new cells.
///
/// # Safety
/// As [`distance_init`]; additionally, every thread of the goal must have finished level
/// `t − 1` (a barrier) before any thread starts level `t`.
pub unsafe fn distance_level(
    p: &DistanceLaunch,
    goal: u32,
    thread: u32,
    threads: u32,
    t: u32,
) -> bool {
    let stride = p.dims.stride as usize;
    let words = p.dims.plane_words() as usize;
    let cells = p.dims.cells() as usize;
    let n = p.goal_count as usize;
    let g = goal as usize;
    // SAFETY (all accesses below): offsets stay below the sizes of the launch contract; the
    // first and last stored rows are never visited, so `w ± stride` and `w ± 1` stay inside.
    let remaining = unsafe { p.remaining.add(g * words) };
    let cur = unsafe {
        p.frontier
            .add(((t.wrapping_sub(1) & 1) as usize * n + g) * words)
    };
    let next = unsafe { p.frontier.add(((t & 1) as usize * n + g) * words) };
    let dist = unsafe { p.dist.add(g * cells) };
    let end = words.saturating_sub(stride);
    let mut found = false;
    let mut w = stride + thread as usize;
    while w < end {
        let new = unsafe {
            bfs_expand(
                remaining.add(w).read(),
                cur.add(w).read(),
                cur.add(w - 1).read(),
                cur.add(w + 1).read(),
                cur.add(w - stride).read(),
                cur.add(w + stride).read(),
            )
        };
        unsafe { next.add(w).write(new) };
        if new != 0 {
            found = true;
            unsafe { remaining.add(w).write(remaining.add(w).read() & !new) };
            if let Some((row, column_word)) = split_word(w as u32, p.dims.stride) {
                for_each_cell(new, row, column_word, p.dims.width, |cell| unsafe {
                    dist.add(cell as usize).write(t)
                });
            }
        }
        w += threads as usize;
    }
    if found {
        // Every finder writes the same value; volatile so the store is not merged away.
        unsafe { write_volatile(p.last_level.add(g), t) };
    }
    found
}

/// Whether goal `goal`'s search reached new cells at level `t` (call after the barrier that
/// ends level `t`). Levels only grow, so a value at or past `t` means "go on" even when a
/// faster thread already wrote `t + 1`.
///
/// # Safety
/// `goal < p.goal_count` and `p.last_level` covers `goal_count` words.
pub unsafe fn distance_goes_on(p: &DistanceLaunch, goal: u32, t: u32) -> bool {
    unsafe { read_volatile(p.last_level.add(goal as usize)) >= t }
}

/// Whether goal `goal`'s search already ended before level `first` (it found nothing at some
/// level below `first − 1`), so a resumed launch can skip it.
///
/// # Safety
/// As [`distance_goes_on`].
pub unsafe fn distance_finished_before(p: &DistanceLaunch, goal: u32, first: u32) -> bool {
    unsafe { read_volatile(p.last_level.add(goal as usize)).wrapping_add(1) < first }
}

/// Timestep `p.t` of the space-time search: reach plane `t` from reach plane `t − 1`, the
/// vertex plane `t` and the four edge planes of `t`; records the arrival at the goal.
///
/// # Safety
/// `p` must satisfy the size contract of [`SpaceTimeLaunch`] with `1 ≤ p.t ≤ horizon` and the
/// goal a real cell; reach plane `t − 1` must be complete (previous launch) and no other
/// thread may write the interior words this thread owns.
pub unsafe fn space_time(p: &SpaceTimeLaunch, thread: u32, threads: u32) {
    let stride = p.dims.stride as usize;
    let words = p.dims.plane_words() as usize;
    let t = p.t as usize;
    // SAFETY (all accesses below): plane offsets stay below (horizon + 1) planes and the
    // first and last stored rows are never visited, so neighbour words stay inside the plane.
    let prev = unsafe { p.reach.add((t - 1) * words) };
    let next = unsafe { p.reach.add(t * words) };
    let vertex = unsafe { p.vertex.add(t * words) };
    let edge = |d: u32| unsafe {
        p.arrived_from
            .add((t * DIRECTIONS as usize + d as usize) * words)
    };
    let (north, east, south, west) = (edge(NORTH), edge(EAST), edge(SOUTH), edge(WEST));
    let mover =
        |plane: *const u64, w: usize| unsafe { movers(prev.add(w).read(), plane.add(w).read()) };
    let goal_word = word_of(p.goal_x, p.goal_y, p.dims.stride) as usize;
    let goal_bit = column_bit(p.goal_x);
    let end = words.saturating_sub(stride);
    let mut w = stride + thread as usize;
    while w < end {
        let reach = space_time_step(
            unsafe { prev.add(w).read() },
            mover(east, w),
            mover(east, w - 1),
            mover(west, w),
            mover(west, w + 1),
            mover(south, w - stride),
            mover(north, w + stride),
            unsafe { p.free.add(w).read() & !vertex.add(w).read() },
        );
        unsafe { next.add(w).write(reach) };
        if w == goal_word && reach & goal_bit != 0 && p.t > p.goal_free_after {
            // Only this thread owns the goal word, and timesteps run in order, so the first
            // write wins without atomics.
            unsafe {
                if read_volatile(p.arrival) == u32::MAX {
                    write_volatile(p.arrival, p.t);
                }
            }
        }
        w += threads as usize;
    }
}

/// Update `index` of a reservation batch: `table[word] |= bits`.
///
/// # Safety
/// `p` must satisfy the contract of [`ReserveLaunch`] (distinct words across updates).
pub unsafe fn reserve(p: &ReserveLaunch, index: u32) {
    if index >= p.count {
        return;
    }
    unsafe {
        let u = p.updates.add(index as usize).read();
        if u.word < p.table_words {
            let slot = p.table.add(u.word as usize);
            slot.write(slot.read() | u.bits);
        }
    }
}

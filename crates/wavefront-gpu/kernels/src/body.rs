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
    // SAFETY: `goals` covers `goal_count` entries and the caller promises `goal < goal_count`.
    let target = unsafe { p.goals.add(g).read() };
    let (gx, gy) = (target % width, target / width);
    let goal_word = word_of(gx, gy, p.dims.stride) as usize;
    let goal_bit = column_bit(gx);
    // SAFETY: `remaining` covers `goal_count · P` words and `g < goal_count`, so goal `g`'s
    // plane starts inside it.
    let remaining = unsafe { p.remaining.add(g * words) };
    // SAFETY: buffer 0 of goal `g` starts at `g · P`, inside the `2 · goal_count · P` words.
    let frontier = unsafe { p.frontier.add(g * words) };
    // SAFETY: `dist` covers `goal_count · C` cells, so goal `g`'s map starts inside it.
    let dist = unsafe { p.dist.add(g * cells) };
    let mut w = thread as usize;
    while w < words {
        let seed = if w == goal_word { goal_bit } else { 0 };
        // SAFETY: `w < P`, inside `free` and inside goal `g`'s planes; `w` is a word this
        // thread owns (`w ≡ thread mod threads`), so no other thread writes it in this phase.
        unsafe {
            remaining.add(w).write(p.free.add(w).read() & !seed);
            frontier.add(w).write(seed);
        }
        w += threads as usize;
    }
    if thread == 0 && !p.lists.is_null() && !p.counts.is_null() {
        // The sparse kernel's level-0 list: the goal's word.
        // SAFETY: list 0 of goal `g` starts at `3 · g · P` of the `3 · goal_count · P` words and
        // its counts at `3 · g` of the `3 · goal_count`; only thread 0 writes them.
        unsafe {
            p.lists.add(g * 3 * words).write(goal_word as u32);
            p.counts.add(g * 3).write(1);
        }
    }
    let mut c = thread as usize;
    while c < cells {
        let d = if c == target as usize { 0 } else { UNREACHABLE };
        // SAFETY: `c < C`, inside goal `g`'s map, and a cell this thread alone owns.
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
    // SAFETY: `remaining` covers `goal_count · P` words and `g < goal_count`.
    let remaining = unsafe { p.remaining.add(g * words) };
    // SAFETY: the buffer index `(t − 1) & 1` is 0 or 1, so `(buffer · n + g) · P` is a plane
    // start inside the `2 · n · P` frontier words.
    let cur = unsafe {
        p.frontier
            .add(((t.wrapping_sub(1) & 1) as usize * n + g) * words)
    };
    // SAFETY: as for `cur`, with buffer `t & 1`.
    let next = unsafe { p.frontier.add(((t & 1) as usize * n + g) * words) };
    // SAFETY: `dist` covers `goal_count · C` cells, so goal `g`'s map starts inside it.
    let dist = unsafe { p.dist.add(g * cells) };
    let end = words.saturating_sub(stride);
    let mut found = false;
    let mut w = stride + thread as usize;
    while w < end {
        // SAFETY: `stride ≤ w < P − stride` (the first and last stored rows are never
        // visited), so `w ± 1` and `w ± stride` are words of the plane. `cur` is the previous
        // level's buffer, which no thread writes during this level.
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
        // SAFETY: `w < P` and this thread owns word `w`: nobody else reads or writes it in
        // `next` during this level (neighbours are read from `cur`).
        unsafe { next.add(w).write(new) };
        if new != 0 {
            found = true;
            // SAFETY: `w < P`, and word `w` of `remaining` is read and written only by its
            // owner, this thread.
            unsafe { remaining.add(w).write(remaining.add(w).read() & !new) };
            if let Some((row, column_word)) = split_word(w as u32, p.dims.stride) {
                // SAFETY: `new ⊆ remaining ⊆ free`, whose border and padding bits are 0, so
                // every bit is a real cell and its index is below `C`; those cells lie in word
                // `w`, which this thread owns.
                for_each_cell(new, row, column_word, p.dims.width, |cell| unsafe {
                    dist.add(cell as usize).write(t)
                });
            }
        }
        w += threads as usize;
    }
    if found {
        // Every finder writes the same value; volatile so the store is not merged away.
        // SAFETY: `last_level` covers `goal_count` words and `g < goal_count`. It is the one
        // word several threads write in a level, all with the same `t`, and it is read only
        // after the barrier that ends the level.
        unsafe { write_volatile(p.last_level.add(g), t) };
    }
    found
}

/// Phase A of level `t` of the sparse kernel: empties list `t mod 3` (thread 0) and clears,
/// in frontier buffer `t & 1`, the words of list `(t − 2) mod 3` (the frontier of level
/// `t − 2`, the buffer's last contents), so the buffer is all zeros again.
///
/// # Safety
/// As [`distance_level`] with the sparse buffers present; a barrier must separate this phase
/// from [`sparse_level`] of the same level and from the previous level.
pub unsafe fn sparse_clear(p: &DistanceLaunch, goal: u32, thread: u32, threads: u32, t: u32) {
    let words = p.dims.plane_words() as usize;
    let n = p.goal_count as usize;
    let g = goal as usize;
    // SAFETY: goal `g`'s three counts start at `3 · g` of the `3 · n`, its lists at
    // `3 · g · P` of the `3 · n · P` words and its buffer `t & 1` at `(buffer · n + g) · P`
    // of the `2 · n · P` words. A list holds distinct words below `P` (each word is claimed
    // once per level), so `len ≤ P`, every cleared word is in the buffer, and no two threads
    // clear the same word. Thread 0 alone writes count `t mod 3`; the others read only count
    // `(t − 2) mod 3`, a different word.
    unsafe {
        let counts = p.counts.add(g * 3);
        if thread == 0 {
            write_volatile(counts.add((t % 3) as usize), 0);
        }
        let old = ((t + 1) % 3) as usize; // (t − 2) mod 3
        let list = p.lists.add((g * 3 + old) * words);
        let len = read_volatile(counts.add(old)) as usize;
        let buffer = p.frontier.add(((t & 1) as usize * n + g) * words);
        let mut i = thread as usize;
        while i < len {
            buffer.add(list.add(i).read() as usize).write(0);
            i += threads as usize;
        }
    }
}

/// Phase B of level `t` of the sparse kernel: every word next to a word of list
/// `(t − 1) mod 3` (the previous frontier) is claimed by exactly one thread (an atomic swap of
/// its stamp), expanded as in [`distance_level`], and appended to list `t mod 3` when it gains
/// cells. Work is proportional to the frontier, not to the grid.
///
/// # Safety
/// As [`sparse_clear`]; phase A of this level must be complete (a barrier).
pub unsafe fn sparse_level(p: &DistanceLaunch, goal: u32, thread: u32, threads: u32, t: u32) {
    use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
    let stride = p.dims.stride as usize;
    let words = p.dims.plane_words() as usize;
    let cells = p.dims.cells() as usize;
    let n = p.goal_count as usize;
    let g = goal as usize;
    let end = words.saturating_sub(stride);
    // SAFETY: the plane, list and count offsets are those of `sparse_clear`, inside the
    // sizes of `DistanceLaunch` for `g < n`. A candidate is expanded only when
    // `stride ≤ c < P − stride`, so its four neighbour words exist. The stamp swap gives each
    // candidate word one owner per level, the only writer of its words of `next`,
    // `remaining` and `dist`, while `cur` (the previous level) is written by nobody. So at
    // most `P` words are appended per level, and every `slot` stays inside its list.
    unsafe {
        let remaining = p.remaining.add(g * words);
        let cur = p
            .frontier
            .add(((t.wrapping_sub(1) & 1) as usize * n + g) * words);
        let next = p.frontier.add(((t & 1) as usize * n + g) * words);
        let dist = p.dist.add(g * cells);
        let stamp = p.stamp.add(g * words);
        let counts = p.counts.add(g * 3);
        let prev = ((t + 2) % 3) as usize; // (t − 1) mod 3
        let source = p.lists.add((g * 3 + prev) * words);
        let target = p.lists.add((g * 3 + (t % 3) as usize) * words);
        let len = read_volatile(counts.add(prev)) as usize;
        let mut i = thread as usize;
        while i < len {
            let f = source.add(i).read() as usize;
            for c in [
                f,
                f.wrapping_sub(1),
                f + 1,
                f.wrapping_sub(stride),
                f + stride,
            ] {
                if c < stride || c >= end {
                    continue;
                }
                if AtomicU32::from_ptr(stamp.add(c)).swap(t, Relaxed) == t {
                    continue;
                }
                let new = bfs_expand(
                    remaining.add(c).read(),
                    cur.add(c).read(),
                    cur.add(c - 1).read(),
                    cur.add(c + 1).read(),
                    cur.add(c - stride).read(),
                    cur.add(c + stride).read(),
                );
                if new == 0 {
                    continue;
                }
                next.add(c).write(new);
                remaining.add(c).write(remaining.add(c).read() & !new);
                if let Some((row, column_word)) = split_word(c as u32, p.dims.stride) {
                    for_each_cell(new, row, column_word, p.dims.width, |cell| {
                        dist.add(cell as usize).write(t)
                    });
                }
                let slot = AtomicU32::from_ptr(counts.add((t % 3) as usize)).fetch_add(1, Relaxed);
                target.add(slot as usize).write(c as u32);
                write_volatile(p.last_level.add(g), t);
            }
            i += threads as usize;
        }
    }
}

/// Whether goal `goal`'s search reached new cells at level `t` (call after the barrier that
/// ends level `t`). Levels only grow, so a value at or past `t` means "go on" even when a
/// faster thread already wrote `t + 1`.
///
/// # Safety
/// `goal < p.goal_count` and `p.last_level` covers `goal_count` words.
pub unsafe fn distance_goes_on(p: &DistanceLaunch, goal: u32, t: u32) -> bool {
    // SAFETY: `last_level` covers `goal_count` words and the caller promises
    // `goal < goal_count`.
    unsafe { read_volatile(p.last_level.add(goal as usize)) >= t }
}

/// Whether goal `goal`'s search already ended before level `first` (it found nothing at some
/// level below `first − 1`), so a resumed launch can skip it.
///
/// # Safety
/// As [`distance_goes_on`].
pub unsafe fn distance_finished_before(p: &DistanceLaunch, goal: u32, first: u32) -> bool {
    // SAFETY: `last_level` covers `goal_count` words and the caller promises
    // `goal < goal_count`.
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
    // SAFETY: `1 ≤ t ≤ horizon` and `reach` covers `(horizon + 1) · P` words, so plane
    // `t − 1` starts inside it.
    let prev = unsafe { p.reach.add((t - 1) * words) };
    // SAFETY: as `prev`, plane `t ≤ horizon`.
    let next = unsafe { p.reach.add(t * words) };
    // SAFETY: `vertex` covers `(horizon + 1) · P` words and `t ≤ horizon`.
    let vertex = unsafe { p.vertex.add(t * words) };
    // SAFETY: `arrived_from` covers `(horizon + 1) · 4 · P` words and the closure is called
    // with the four directions only (`d < 4`), so `(t · 4 + d) · P` is a plane start.
    let edge = |d: u32| unsafe {
        p.arrived_from
            .add((t * DIRECTIONS as usize + d as usize) * words)
    };
    let (north, east, south, west) = (edge(NORTH), edge(EAST), edge(SOUTH), edge(WEST));
    let mover =
        // SAFETY: called with `w` at most one row or one word away from a word in
        // `stride ..< P − stride`, so `w < P`; `prev` and the edge planes are inputs nobody
        // writes during this launch.
        |plane: *const u64, w: usize| unsafe { movers(prev.add(w).read(), plane.add(w).read()) };
    let goal_word = word_of(p.goal_x, p.goal_y, p.dims.stride) as usize;
    let goal_bit = column_bit(p.goal_x);
    let end = words.saturating_sub(stride);
    let mut w = stride + thread as usize;
    while w < end {
        let reach = space_time_step(
            // SAFETY: `stride ≤ w < P − stride`, a word of plane `t − 1`, complete and
            // unwritten during this launch.
            unsafe { prev.add(w).read() },
            mover(east, w),
            mover(east, w - 1),
            mover(west, w),
            mover(west, w + 1),
            mover(south, w - stride),
            mover(north, w + stride),
            // SAFETY: `w < P`, inside the `free` plane and vertex plane `t`, both read-only.
            unsafe { p.free.add(w).read() & !vertex.add(w).read() },
        );
        // SAFETY: `w < P`, and this thread alone owns word `w` of plane `t`.
        unsafe { next.add(w).write(reach) };
        if w == goal_word && reach & goal_bit != 0 && p.t > p.goal_free_after {
            // Only this thread owns the goal word, and timesteps run in order, so the first
            // write wins without atomics.
            // SAFETY: `arrival` is one valid word, and the goal word's owner (this thread) is
            // its only reader and writer in this launch.
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
    // SAFETY: `updates` covers `count` entries and `index < count`; `slot` is written only
    // when `u.word < table_words`, and updates name pairwise distinct words, so this thread
    // is the only one touching it.
    unsafe {
        let u = p.updates.add(index as usize).read();
        if u.word < p.table_words {
            let slot = p.table.add(u.word as usize);
            slot.write(slot.read() | u.bits);
        }
    }
}

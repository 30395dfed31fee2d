//! The `extern "ptx-kernel"` entry points: index arithmetic, barriers and loops around the
//! bodies of [`crate::body`]. Compiled only for `nvptx64`.
//!
//! Each kernel takes one launch struct by value (a `.param` aggregate in PTX); its safety
//! contract is the struct's size contract plus the launch shape stated on the kernel.

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _syncthreads, _thread_idx_x};

use crate::body;
use crate::launch::{DistanceLaunch, ReserveLaunch, SpaceTimeLaunch};

/// Thread index inside the block and block size, as `u32` (never negative).
#[inline(always)]
fn block_thread() -> (u32, u32) {
    // SAFETY: the special registers are defined in every thread of a launch.
    unsafe { (_thread_idx_x() as u32, _block_dim_x() as u32) }
}

/// Global thread index and grid-wide thread count of a one-dimensional launch.
#[inline(always)]
fn grid_thread() -> (u32, u32) {
    // SAFETY: the special registers are defined in every thread of a launch.
    unsafe {
        let (tid, dim) = block_thread();
        let block = _block_idx_x() as u32;
        (
            block.wrapping_mul(dim).wrapping_add(tid),
            (_grid_dim_x() as u32).wrapping_mul(dim),
        )
    }
}

/// Sets up every goal's search. Launch: one block per goal (`grid.x = goal_count`), any block
/// size; the threads of a block stride over the goal's words and cells.
///
/// # Safety
/// `p` satisfies [`DistanceLaunch`]'s size contract, `frontier` and `last_level` zeroed.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distance_init(p: DistanceLaunch) {
    // SAFETY: `_block_idx_x` reads a special register, defined in every thread of a launch.
    let goal = unsafe { _block_idx_x() } as u32;
    if goal >= p.goal_count {
        return;
    }
    let (thread, threads) = block_thread();
    // SAFETY: the caller gives `DistanceLaunch`'s size contract, `goal < goal_count` was
    // checked above, and with `thread = threadIdx.x`, `threads = blockDim.x` each word and
    // cell of the goal has exactly one owning thread in its block (one block per goal).
    unsafe { body::distance_init(&p, goal, thread, threads) }
}

/// Runs levels `first_level ..= final_level` of every goal's search, stopping a goal early
/// when a level reaches nothing new. Launch: one block per goal, any block size; the block
/// synchronises with a barrier between levels (the frontier stays in device memory, which the
/// barrier makes visible inside the block), so no host round trip happens per level.
///
/// # Safety
/// `p` satisfies [`DistanceLaunch`]'s contract, `distance_init` ran on it, and the previous
/// launch (if any) ended at `first_level − 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distance_levels(p: DistanceLaunch) {
    // SAFETY: `_block_idx_x` reads a special register, defined in every thread of a launch.
    let goal = unsafe { _block_idx_x() } as u32;
    // SAFETY: `||` makes the call only once `goal < goal_count`, and `last_level` covers
    // `goal_count` words by the caller's contract.
    if goal >= p.goal_count || unsafe { body::distance_finished_before(&p, goal, p.first_level) } {
        return;
    }
    let (thread, threads) = block_thread();
    let mut t = p.first_level;
    while t <= p.final_level && t != 0 {
        // SAFETY: as in `distance_init` (size contract, `goal < goal_count`, one owner per
        // word in the block); level `t − 1` is complete: the barrier ending the previous
        // iteration, or for `first_level` the previous launch, which the caller ordered.
        unsafe {
            body::distance_level(&p, goal, thread, threads, t);
            // Every thread of the block takes the same branch below: the flag read happens
            // after the barrier and only grows, so all see "went on" or all see "stopped".
            _syncthreads();
            if !body::distance_goes_on(&p, goal, t) {
                return;
            }
        }
        t = t.wrapping_add(1);
    }
}

/// The sparse variant of [`distance_levels`]: per level, only the words next to the previous
/// frontier are expanded (a per-goal list of frontier words, claimed by atomic stamps), so a
/// level costs time proportional to its frontier. Launch: one block per goal, any block size;
/// two barriers per level (clear, expand).
///
/// # Safety
/// `p` satisfies [`DistanceLaunch`]'s contract including the sparse buffers (`stamp`,
/// `counts` zeroed before `distance_init`), and the previous launch (if any) ended at
/// `first_level − 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn distance_sparse_levels(p: DistanceLaunch) {
    // SAFETY: `_block_idx_x` reads a special register, defined in every thread of a launch.
    let goal = unsafe { _block_idx_x() } as u32;
    // SAFETY: `||` makes the call only once `goal < goal_count`, and `last_level` covers
    // `goal_count` words by the caller's contract.
    if goal >= p.goal_count || unsafe { body::distance_finished_before(&p, goal, p.first_level) } {
        return;
    }
    let (thread, threads) = block_thread();
    let mut t = p.first_level;
    while t <= p.final_level && t != 0 {
        // SAFETY: as in `distance_levels`, with the sparse buffers the caller promises; the
        // first barrier separates the clear from the expansion of the same level, the second
        // ends the level before the flag is read and the next level starts.
        unsafe {
            body::sparse_clear(&p, goal, thread, threads, t);
            _syncthreads();
            body::sparse_level(&p, goal, thread, threads, t);
            // As in `distance_levels`: every thread reads the flag after the barrier and
            // takes the same branch.
            _syncthreads();
            if !body::distance_goes_on(&p, goal, t) {
                return;
            }
        }
        t = t.wrapping_add(1);
    }
}

/// One timestep of the space-time search. Launch: one-dimensional, any shape; threads stride
/// over the plane's words grid-wide.
///
/// # Safety
/// `p` satisfies [`SpaceTimeLaunch`]'s contract and timestep `p.t − 1` is complete (it was
/// computed by an earlier launch on the same stream, or is plane 0).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn space_time_step(p: SpaceTimeLaunch) {
    let (thread, threads) = grid_thread();
    // SAFETY: the caller gives `SpaceTimeLaunch`'s contract and a complete plane `t − 1`;
    // the global thread index and the grid's thread count give each word exactly one owner.
    unsafe { body::space_time(&p, thread, threads) }
}

/// Applies a batch of reservation updates. Launch: one-dimensional, at least `count` threads.
///
/// # Safety
/// `p` satisfies [`ReserveLaunch`]'s contract.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reserve_words(p: ReserveLaunch) {
    let (thread, _) = grid_thread();
    // SAFETY: the caller gives `ReserveLaunch`'s contract; one thread per update index, and
    // `reserve` ignores indices at or past `count`.
    unsafe { body::reserve(&p, thread) }
}

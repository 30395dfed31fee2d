//! Device code of the CUDA wavefront backend, in Rust: compiled to PTX for `nvptx64-nvidia-cuda`
//! by `cargo xtask ptx`, and compiled for the host so the very same code is unit-tested there.
//!
//! **Job**: the per-word bit logic and the per-thread bodies of the GPU wavefront kernels.
//! - [`word`]: plain `const fn`s on 64-cell words: 4-neighbour dilation across word boundaries,
//!   the space-time step with vertex and edge (`arrived_from`) reservations, the distance
//!   writer. No pointers, no state: the host tests compare them with simple references.
//! - [`body`]: what one GPU thread does between two barriers, on raw pointers, given its thread
//!   index and the thread count. The device entry points call these; the host emulator in
//!   `cuplan-wavefront-gpu` calls the same functions for every thread in turn, which is exact
//!   because no body reads a word that another thread writes before the next barrier.
//! - [`launch`]: the `#[repr(C)]` launch structs shared with the host, passed by value.
//! - `kernels` (only on nvptx64): thin `extern "ptx-kernel"` entry points.
//!
//! **Layout** (all planes): the grid's stored bit layout (`cuplan_grid::BitPlane`): `rows`
//! stored rows of `stride` words, stored coordinate = real + 1, a one-cell border around the
//! grid; bit `c % 64` of word `c / 64` of a row is stored column `c`. Here 1 = free/reached.
//! Border rows and columns are 0 in every plane, which keeps all neighbour reads bound-free.
//!
//! **Invariants**: the device build has no panic path (no slice indexing, no division by a
//! runtime value, no `unwrap`): `cargo xtask ptx --check` rejects any PTX with an `.extern`.
//! The layout of every launch struct is fixed by `#[repr(C)]` and only uses 8-byte pointers
//! and `u32`s, so host and device agree on it.
//!
//! **Porting**: the bodies only need "thread index, thread count, barrier". Moving to
//! rust-cuda's `cuda_builder` later means rewriting the entry points in `kernels` with
//! `cuda_std`'s index functions; `word`, `body` and `launch` stay as they are.
//!
//! Tests: `crates/wavefront-gpu/tests/` (the kernels crate has no test target of its own).
//!
//! ```
//! use cuplan_wavefront_kernels::word::dilate4;
//! // A lone bit at column 0 of a word spreads to column 1, and to column 63 of the word on
//! // its left; the rows above and below get it unchanged.
//! assert_eq!(dilate4(1, 0, 0, 0, 0), 0b10);
//! ```

#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx))]

pub mod body;
pub mod launch;
pub mod word;

#[cfg(target_arch = "nvptx64")]
pub mod kernels;

/// A panic cannot be reported from a kernel: trap, which aborts the launch with an error the
/// host sees. The release build has no panic path left (checked on the PTX), so this is dead.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: `trap` takes no arguments and only ends the kernel.
    unsafe { core::arch::nvptx::trap() }
}

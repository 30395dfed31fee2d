//! CUDA backend of the wavefront searches: Rust kernels (crate `cuplan-wavefront-kernels`)
//! compiled to PTX by `cargo xtask ptx`, embedded here with `include_str!`, loaded at run
//! time through cudarc's dynamic loading, so nothing CUDA is needed to build or test.
//!
//! **Job**: run the two frontier-parallel searches of `cuplan-wavefront` on a GPU.
//! - [`Device`]: a CUDA device with the kernels loaded. [`Device::open`] reports a missing
//!   driver library ([`GpuError::NoDriver`]), one without the entry points the backend calls
//!   ([`GpuError::IncompleteDriver`]) or a missing device ([`GpuError::NoDevice`]) as an
//!   error value and never panics (it checks the driver library before touching CUDA).
//! - [`Device::distance_maps`]: many breadth-first distance maps per launch, one thread block
//!   per goal, the frontier in device memory, levels separated by block barriers; the host
//!   checks for termination once per [`DistanceConfig::levels_per_launch`] levels and copies the
//!   maps back once. Two level kernels ([`DistanceKernel`]): `Dense` sweeps the whole plane per
//!   level, `Sparse` only the words next to the previous frontier.
//! - [`DeviceReservations`]: a space-time reservation table resident on the device (vertex and
//!   edge planes per timestep, the layout of `cuplan_reservations::ReservationTable`, which
//!   [`DeviceReservations::from_table`] uploads), updated incrementally by
//!   [`DeviceReservations::reserve_path`] (word updates ORed in by a kernel);
//!   [`DeviceReservations::search`] runs one kernel launch per timestep and checks for arrival
//!   once per [`SpaceTimeConfig::steps_per_check`] steps; the path comes back once.
//! - [`emulate`]: the same kernel bodies run on the host, thread by thread: the reference the
//!   GPU is checked against, and what the host tests exercise.
//!
//! **Invariants**: distances are `u32`, [`UNREACHABLE`] where no path exists, row-major per
//! goal (`goal · width·height + y·width + x`), exactly what the CPU backend computes; space-time
//! arrival times are optimal and paths are rebuilt with a fixed tie order (wait, N, E, S, W).
//!
//! **Tests**: `tests/` (per-word logic against simple references, emulated kernels against an
//! independent BFS and an independent space-time search, a `ReservationTable` converted
//! exactly, the no-driver error path, launch-struct sizes against the PTX); parity of the
//! emulated kernels with the CPU backend in `cuplan-wavefront`'s `cuda` module tests; the GPU
//! parity suite and benchmark are the `cuplan-gpu-test` binary (`cargo xtask gpu-test`).
//!
//! ```
//! use cuplan_grid::{Cell, Grid};
//! use cuplan_wavefront_gpu::{Device, emulate};
//!
//! let grid = Grid::from_ascii("...\n.@.\n...")?;
//! // The kernels' own code, run on the host:
//! let maps = emulate::distance_maps(&grid, &[Cell::new(0, 0)], 64)?;
//! assert_eq!(maps[8], 4); // cell (2, 2)
//! // On a machine without CUDA, opening a device is an error value, not a panic.
//! if let Err(e) = Device::open(0) {
//!     println!("no GPU here: {e}");
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod device;
mod distance;
pub mod emulate;
mod error;
mod layout;
mod spacetime;

pub use device::Device;
pub use distance::{DistanceConfig, DistanceKernel, DistanceProfile};
pub use error::GpuError;
pub use layout::free_plane;
pub use spacetime::{DeviceReservations, SpaceTimeConfig, SpaceTimeLimits};
// The grid types this crate's API takes and returns, so one dependency is enough.
pub use cuplan_grid::{self as grid, Cell, CellPath, Grid};

/// The kernels as PTX (ISA for sm_80 and newer), built by `cargo xtask ptx`.
pub const PTX: &str = include_str!("../ptx/kernels.ptx");

/// Distance of a cell from which the goal cannot be reached (or that is blocked).
pub const UNREACHABLE: u32 = cuplan_wavefront_kernels::body::UNREACHABLE;

/// The kernel entry points the PTX must define.
pub const KERNELS: [&str; 5] = [
    "distance_init",
    "distance_levels",
    "distance_sparse_levels",
    "space_time_step",
    "reserve_words",
];

/// The README's example, compiled and run as a doctest (so the crates.io page matches the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

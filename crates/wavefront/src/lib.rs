//! Frontier-parallel searches on 4-connected grids with unit moves: batched distance maps,
//! batched optimal paths, and the constrained space-time search of MAPF.
//!
//! **Job**: on a unit-cost grid the set of states at cost `t` is exactly the `t`-th wavefront,
//! so expanding a whole frontier per sweep visits states in the same optimal order a serial
//! A* or Dijkstra would. This crate realises those wavefronts on the CPU (rayon across goals)
//! and dispatches to the CUDA backend when it is built and asked for.
//!
//! **Main items**
//! - [`distance_maps`] → [`DistanceMaps`]: exact cost-to-go tables, `n × height × width` of
//!   `u32` ([`UNREACHABLE`] where no path exists), shared cheaply behind an `Arc`; they double
//!   as the perfect heuristic other solvers (MAPF) reuse. CPU kernels ([`CpuKernel`]): row
//!   sweeps with AVX-512 (32 cells per vector operation; 3–8× the queue kernel on open,
//!   warehouse and sparse random maps), a breadth-first search over a sparse frontier of
//!   8 × 8 bit tiles (dense random maps, rooms, mazes, narrow grids: about twice the queue
//!   kernel's speed), and a branch-free queue BFS (1-wide mazes, processors without
//!   AVX-512); the default, `Auto`, picks per grid.
//!   [`DistanceMaps::<u16>::build`](DistanceMaps::build) stores `u16` instead
//!   ([`UNREACHABLE_U16`]): half the memory, and an error
//!   ([`WavefrontError::DistanceOverflow`]) rather than a wrong value past 65,534 moves.
//!   Both take a [`Backend`] or full [`DistanceOptions`] (kernel, memory limit).
//!   [`DistanceMaps::rebuild`] recomputes maps in place (obstacles moved, goals changed),
//!   sparing the OS the fresh pages of a new build.
//! - [`batched_astar`] → `Vec<Option<CellPath>>`: optimal paths by gradient descent on the
//!   maps, O(path length) per query; queries sharing a goal share a map; maps built in chunks
//!   within a memory budget ([`batched_astar_streamed`] hands paths over as they come).
//! - [`space_time_astar`] (a [`SpaceTimeQuery`]: reservations, constraints, horizon,
//!   heuristic map, deadline, minimum arrival, backend) → [`SpaceTimeResult`]: minimal-time paths among the
//!   reservations of a [`ReservationTable`] and the
//!   constraints of a [`Constraints`] set; one masked
//!   bit-plane dilation (4 moves + wait) per timestep, the path recovered backwards through
//!   the stored planes. Waits are legal, swaps are ruled out, and the agent settles on its
//!   goal only after the last vertex reservation there (so it can wait forever).
//! - [`Backend`]: `Auto` (CUDA when built and available, else CPU), `Cpu`, `Cuda` (an error,
//!   never a silent fallback, when CUDA cannot run).
//!
//! **Invariants**: every returned path is legal and optimal (cost-optimal for batched paths,
//! minimal arrival time within the horizon for space-time paths); bad input is an `Err`
//! naming the offending index or endpoint, a failed search is `None` or a
//! [`SpaceTimeResult`] variant (`HorizonExceeded` and `Unreachable` kept distinct).
//!
//! **Features**: `cuda` (the CUDA backend, crate `cuplan-wavefront-gpu`; builds without CUDA,
//! the driver is loaded at run time), `serde` (on paths, results, options, backends, kernels
//! and tie-break orders). The grid and reservation types of the API are re-exported.
//!
//! **Tests** live in `crates/wavefront/tests/`: property tests against an independent plain
//! BFS (`distance.rs`) and an independent `(cell, t)` BFS over a plain model of the
//! reservations (`spacetime.rs`), and the MAPF benchmark maps of `../shared/data/mapf`
//! (`mapf_data.rs`: every map and scen, and conflict-free prioritized plans). Benchmarks:
//! `benches/distance.rs`, `benches/spacetime.rs`; numbers in `BENCHMARKS.md` beside this
//! crate.
//!
//! ```
//! use cuplan_wavefront::{Backend, Cell, Grid, batched_astar, distance_maps};
//!
//! let grid = Grid::from_ascii("
//!     .....
//!     .@@@.
//!     .....
//! ")?;
//! let maps = distance_maps(&grid, &[Cell::new(4, 2)], Backend::Cpu)?;
//! assert_eq!(maps.get(0, Cell::new(0, 0)), Some(6));
//! let paths = batched_astar(&grid, &[Cell::new(0, 1)], &[Cell::new(4, 1)], Backend::Auto)?;
//! assert_eq!(paths[0].as_ref().map(|p| p.arrival()), Some(6));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod backend;
mod batched;
#[cfg(feature = "cuda")] // cuda hook (cuplan-wavefront-gpu)
mod cuda;
mod distance;
mod error;
mod spacetime;
#[cfg(target_arch = "x86_64")]
mod sweep;
mod tiles;

pub use backend::Backend;
pub use batched::{batched_astar, batched_astar_streamed};
pub use distance::{
    CpuKernel, DEFAULT_MAX_MAP_BYTES, Distance, DistanceMaps, DistanceOptions, UNREACHABLE,
    UNREACHABLE_U16, distance_maps,
};
pub use error::WavefrontError;
pub use spacetime::{
    DEFAULT_MAX_SEARCH_BYTES, Heuristic, SpaceTimeQuery, SpaceTimeResult, TieBreak,
    space_time_astar,
};
// The grid and reservation types this crate's API takes and returns, so one dependency is
// enough.
pub use cuplan_grid::{self as grid, Cell, CellPath, Endpoint, Grid, GridError};
pub use cuplan_reservations::{
    self as reservations, Constraints, ReservationError, ReservationTable,
};

/// The README's example, compiled and run as a doctest (so the crates.io page matches the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

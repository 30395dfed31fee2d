//! Frontier-parallel searches on 4-connected grids with unit moves: batched distance maps,
//! batched optimal paths and (phase 2) the constrained space-time search of MAPF.
//!
//! **Job**: on a unit-cost grid the set of states at cost `t` is exactly the `t`-th wavefront,
//! so expanding a whole frontier per sweep visits states in the same optimal order a serial
//! A* or Dijkstra would. This crate realises those wavefronts on the CPU (rayon across goals)
//! and dispatches to the CUDA backend when it is built and asked for.
//!
//! **Main items**
//! - [`distance_maps`] → [`DistanceMaps`]: exact cost-to-go tables, `n × height × width` of
//!   `u32` ([`UNREACHABLE`] where no path exists), shared cheaply behind an `Arc`; they double
//!   as the perfect heuristic other solvers (MAPF) reuse.
//! - [`batched_astar`] → `Vec<Option<GridPath>>`: optimal paths by gradient descent on the
//!   maps, O(path length) per query; queries sharing a goal share a map.
//! - [`Backend`]: `Auto` (CUDA when built and available, else CPU), `Cpu`, `Cuda` (an error,
//!   never a silent fallback, when CUDA cannot run).
//!
//! **Invariants**: every returned path is legal (4-adjacent free cells) and cost-optimal;
//! bad input is an `Err` naming the offending index, a failed search is `None`.
//!
//! **Tests** live in `crates/wavefront/tests/` (property tests against an independent BFS,
//! conformance on `../shared/data/mapf`), benchmarks in `crates/wavefront/benches/`.
//!
//! ```
//! use cuplan_grid::{Cell, Grid};
//! use cuplan_wavefront::{Backend, batched_astar, distance_maps};
//!
//! let grid = Grid::from_ascii("
//!     .....
//!     .@@@.
//!     .....
//! ")?;
//! let maps = distance_maps(&grid, &[Cell::new(4, 2)], Backend::Cpu)?;
//! assert_eq!(maps.get(0, Cell::new(0, 0)), Some(6));
//! let paths = batched_astar(&grid, &[Cell::new(0, 1)], &[Cell::new(4, 1)], Backend::Auto)?;
//! assert_eq!(paths[0].as_ref().map(|p| p.moves()), Some(6));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod backend;
mod batched;
mod distance;
mod error;

pub use backend::Backend;
pub use batched::{GridPath, batched_astar};
pub use distance::{
    CpuKernel, DEFAULT_MAX_MAP_BYTES, DistanceMaps, DistanceOptions, UNREACHABLE, distance_maps,
    distance_maps_with,
};
pub use error::{Endpoint, WavefrontError};

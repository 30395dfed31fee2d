//! **cuplan**: optimal path planning on grid maps, from one agent to a thousand.
//!
//! This facade only re-exports the member crates, one module each, so a user can depend on
//! `cuplan` alone or pick single crates (`cuplan-grid`, `cuplan-jps`, ...):
//!
//! | module | crate | job |
//! |---|---|---|
//! | [`grid`] | `cuplan-grid` | bit-packed occupancy grids, Moving AI I/O, generators, exact costs |
//! | [`jps`] | `cuplan-jps` | 8-connected optimal search: A*, JPS, JPS-Bit, pruned and preprocessed JPS |
//! | [`reservations`] | `cuplan-reservations` | the space-time reservation table and constraint sets |
//! | [`wavefront`] | `cuplan-wavefront` | 4-connected frontier-parallel searches: distance maps, batched and space-time A* |
//! | [`mapf`] | `cuplan-mapf` | multi-agent path finding: prioritized planning, CBS, LaCAM |
//! | `wavefront_gpu` | `cuplan-wavefront-gpu` | the CUDA backend, with the `cuda` feature |
//!
//! The layering (grid ← jps; grid ← reservations ← wavefront ← mapf) is described in
//! ARCHITECTURE.md and checked by `cargo xtask tidy`. Tests of the facade itself live in
//! `tests/` at the workspace root: the conformance corpus that runs every engine on the same
//! maps, and the bad-input catalogue.
//!
//! ```
//! use cuplan::prelude::*;
//!
//! let grid = Grid::from_ascii("
//!     .....
//!     .@@@.
//!     .....
//! ")?;
//! let path = find_path(&grid, Algorithm::JpsBit, Cell::new(0, 1), Cell::new(4, 1))?
//!     .expect("connected");
//! // Around the wall: a diagonal may not cut its corners, so 6 straight steps.
//! assert_eq!(path.cost, OctileCost::new(6, 0));
//! assert_eq!(grid.octile_path_cost(&path.waypoints)?, path.cost);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

pub use cuplan_grid as grid;
pub use cuplan_jps as jps;
pub use cuplan_mapf as mapf;
pub use cuplan_reservations as reservations;
pub use cuplan_wavefront as wavefront;
#[cfg(feature = "cuda")]
pub use cuplan_wavefront_gpu as wavefront_gpu;

/// The names most programs need, in one `use`.
pub mod prelude {
    pub use crate::grid::{
        Cell, CellPath, Change, Direction, Endpoint, Grid, GridError, OctileCost, Scenario,
    };
    pub use crate::jps::{
        Algorithm, JpsError, Path, Planner, Searcher, find_path, find_paths, find_paths_with,
    };
    pub use crate::mapf::{
        Instance, LowLevel, Solution, SolveOutcome, Solver, SolverConfig, solve,
    };
    pub use crate::reservations::{Constraints, ReservationTable};
    pub use crate::wavefront::{
        Backend, Distance, DistanceMaps, DistanceOptions, SpaceTimeQuery, SpaceTimeResult,
        batched_astar, distance_maps, space_time_astar,
    };
}

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

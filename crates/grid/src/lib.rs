//! Bit-packed occupancy grids: the one data structure every cuplan search reads.
//!
//! **Job**: hold a width × height map of free and blocked cells so that searches can ask
//! "is this free?" in one load and scan whole rows or columns 64 cells per instruction.
//!
//! **Main types**
//! - [`Grid`]: one bit per cell in rows of `u64` words ([`BitPlane`]), with a blocked border
//!   so scans never check bounds, plus a transposed copy so vertical scans are row scans.
//!   Dynamic updates ([`Grid::set_blocked`], [`Grid::set_free`], [`Grid::apply`]) keep both
//!   in sync in O(1) and are recorded in a bounded change journal ([`Grid::changes_since`]),
//!   which is how caches built from the grid (the JPS+ jump table) bring themselves up to
//!   date without trusting anyone's list of changes.
//! - [`Cell`], [`CellIndex`], [`Direction`]: coordinates (x = column, y = row, (0, 0)
//!   top-left, as Moving AI), row-major indices, and the 8 compass directions.
//! - [`OctileCost`]: an exact path cost `a + b·√2` with integers `a`, `b`.
//! - [`CellPath`]: the one 4-connected path type (a cell per unit step) of the wavefront
//!   searches and MAPF; [`Endpoint`]: start or goal, in every crate's errors.
//! - [`Components`]: connected components, labelled once and then kept up to date by each
//!   change (union–find for frees, a local test and a bounded search for blocks).
//! - [`Scenario`] / [`ScenEntry`]: Moving AI `.scen` files; `.map` files via
//!   [`Grid::read_movingai`] and [`Grid::to_movingai_string`].
//! - [`generate`]: seeded random, maze, room and open maps and random query sets.
//!
//! **Invariants**: the transposed copy is always the transpose of the grid; every change
//! takes a new, process-wide unique [`Grid::generation`] and is journalled; parsing never panics, on any bytes, and refuses sizes over a
//! limit before allocating. Movement rules are the benchmark's: 8-connected moves cost 1 or √2
//! and a diagonal step needs both orthogonal cells free (no corner cutting).
//!
//! **Features**: `ndarray` (on by default: [`Grid::from_array`], [`Grid::to_array`], `pub use
//! ndarray`), `generate` (on by default: [`generate`] and [`Family`], with `rand`), `serde`
//! (`Serialize`/`Deserialize` on cells, directions, costs, paths, endpoints, scenarios and
//! families), `testkit` (the workspace's shared test oracles).
//!
//! **Tests** live in `crates/grid/tests/` (property tests of the transposed copy and the
//! components, round trips, the malformed-file catalogue, and every file of `../shared/data`
//! when present) and in unit tests beside the code.
//!
//! ```
//! use cuplan_grid::{Cell, Direction, Grid, OctileCost};
//!
//! let grid = Grid::from_ascii("
//!     ....
//!     .@..
//!     ....
//! ")?;
//! assert_eq!((grid.width(), grid.height()), (4, 3));
//! assert!(!grid.is_free(Cell::new(1, 1)));
//! // No corner cutting: (0,0) -> (1,1) is blocked, (2,0) -> (3,1) is legal.
//! assert!(!grid.can_step(Cell::new(0, 0), Direction::SouthEast));
//! assert!(grid.can_step(Cell::new(2, 0), Direction::SouthEast));
//! let cost = grid.octile_path_cost(&[Cell::new(0, 0), Cell::new(0, 2), Cell::new(2, 2)])?;
//! assert_eq!(cost, OctileCost::new(4, 0));
//! # Ok::<(), cuplan_grid::GridError>(())
//! ```

#![forbid(unsafe_code)]

mod bits;
mod cell;
mod components;
mod cost;
mod error;
#[cfg(feature = "generate")]
pub mod generate;
mod grid;
mod movingai;
mod path;
#[cfg(feature = "testkit")]
#[doc(hidden)]
pub mod testkit;

pub use bits::BitPlane;
pub use cell::{Cell, CellIndex, Direction};
pub use components::{ComponentId, Components, SPLIT_SEARCH_CELLS};
pub use cost::{
    KEY_DIAGONAL, KEY_DIAGONAL_FRACTION, KEY_EXACT_DIAGONAL_LIMIT, KEY_STRAIGHT, OctileCost,
};
pub use error::{Endpoint, GridError, Result};
#[cfg(feature = "generate")]
pub use generate::Family;
pub use grid::{Change, DEFAULT_MAX_CELLS, Grid, MAX_SIDE};
pub use movingai::{MAX_SCEN_BYTES, ScenEntry, Scenario, max_map_bytes};
/// The `ndarray` this crate's array constructors take and return ([`Grid::from_array`],
/// [`Grid::to_array`]), so callers can name the same version.
#[cfg(feature = "ndarray")]
pub use ndarray;
pub use path::{CellPath, expand_waypoints};

/// The README's example, compiled and run as a doctest (so the crates.io page matches the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

//! Optimal single-agent search on 8-connected grids: A*, JPS, JPS-Bit and the pruned and
//! preprocessed JPS variants, all exact under the Moving AI rules.
//!
//! **Job**: answer "shortest path from `start` to `goal`" on a [`Grid`]
//! with straight cost 1, diagonal cost √2 and **no corner cutting** (a diagonal step needs both
//! orthogonal cells free), returning an optimal path or `None`.
//!
//! **Main types**
//! - [`Algorithm`]: `astar`, `jps`, `jps-bit`, `jps-bitprune`, `jps-bitpre`, `jps-bitprunepre`.
//! - [`Planner`]: an algorithm bound to a grid it owns (an `Arc<Grid>`, shared by its clones)
//!   and its precomputed table; `Clone + Send + Sync`. [`Planner::update_grid`] edits the grid
//!   and brings the table up to date from the grid's change journal.
//! - [`Searcher`]: per-thread reusable search state (node table with per-query stamps, heap);
//!   no allocation per query after warm-up. The node table is dense (16 B per cell,
//!   [`Searcher::dense`]) or two-level with pages allocated on demand ([`Searcher::paged`],
//!   capped by [`Searcher::bounded`]) for short NPC-style queries on big maps;
//!   [`Searcher::new`] picks dense up to [`Searcher::DENSE_MAX_CELLS`] cells, paged beyond.
//! - [`Path`] (waypoints joined by straight or 45° runs + exact [`OctileCost`]),
//!   [`SearchOutcome`], [`SearchStats`], [`JpsError`].
//! - [`find_path`] (one-off), [`find_paths`] / [`find_paths_with`] (parallel batch, input
//!   order; the latter with a searcher of your choice).
//! - [`JumpTable`]: the JPS+ table (8 × `i16` per cell, built with rayon) of the preprocessed
//!   variants; runs longer than 32,766 cells saturate the `i16` and are read by chaining
//!   lookups ([`JumpTable::distance`]), so any grid size works. [`JumpTable::repair`] brings it up to date with a grid by reading the grid's
//!   change journal (what the changes alter, along runs and diagonals; a rebuild when the
//!   journal does not reach back), so a stale table is never used: searches also check it
//!   ([`JpsError::StaleTable`]). The other algorithms read the grid directly and need nothing.
//! - [`smooth`]: any-angle string pulling with an exact, integer [`line_of_sight`].
//!
//! **Limits**: exact search on every grid the grid crate accepts by default (at most 2^28
//! cells, sides at most 2^20); `Planner::new` refuses larger grids (built with an explicit
//! cell limit) beyond `u32` node indices or beyond the heap key's exactness bound, naming
//! which ([`OctileCost::key`](cuplan_grid::OctileCost::key) has the proof).
//!
//! **Invariants**: every returned path is legal step by step and optimal; its `cost` is the
//! exact cost of its waypoints. A table-based search runs only with a table of the grid's
//! current generation. Most unreachable goals are detected from the grid's components before
//! any search ([`Grid::maybe_connected`](cuplan_grid::Grid::maybe_connected)); the search
//! itself decides the rest. Bad input (out of range or blocked endpoints, unknown algorithm names)
//! is an `Err`, never a panic.
//!
//! **Features**: `rayon` (on by default: parallel [`find_paths`] and [`find_paths_in`] on a
//! pool of the caller's, parallel table builds; sequential without), `ndarray` and `generate`
//! (on by default, forwarded to `cuplan-grid`), `serde` (on [`Path`], [`Algorithm`] by name,
//! [`SearchStats`] and the grid types). With `default-features = false` the crate depends on
//! `cuplan-grid` and `thiserror` alone and builds for `wasm32-unknown-unknown`. The grid types
//! of the API are re-exported ([`Grid`], [`Cell`], ..., and the crate as [`grid`]).
//!
//! **Tests** live in `crates/jps/tests/`: `oracle.rs` (property tests against an independent
//! Dijkstra on generated grids), `conformance.rs` (every map and scenario of `../shared/data`,
//! skipped when absent), `edges.rs` (borders, diagonal squeezes, goals on jump lines, word
//! boundaries), `dynamic.rs` (table repair after random changes), `smoothing.rs` (exact line of
//! sight), `big_maps.rs` (rows and columns of 70,000 cells, more than 2^21 free cells, a
//! 16,384² map, saturated table entries against an `i32` reference). Speed: `benches/families.rs` (criterion, with the `pathfinding` crate as peer).
//!
//! ```
//! use cuplan_jps::{Algorithm, Cell, Grid, OctileCost, Planner, Searcher};
//!
//! let grid = Grid::from_ascii("
//!     ......
//!     .@@@@.
//!     ......
//! ")?;
//! let planner = Planner::new(grid.clone(), "jps-bit".parse::<Algorithm>()?)?;
//! let mut searcher = Searcher::new();
//! let path = planner
//!     .search(&mut searcher, Cell::new(0, 1), Cell::new(5, 1))?
//!     .expect("reachable");
//! // Around the wall: no diagonal may cut its corners, so 7 straight steps.
//! assert_eq!(path.cost, OctileCost::new(7, 0));
//! assert_eq!(grid.octile_path_cost(&path.waypoints)?, path.cost);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod algorithm;
mod astar;
mod engine;
mod error;
mod heap;
mod jump;
mod nodes;
mod par;
mod planner;
mod smooth;
mod table;

pub use algorithm::Algorithm;
pub use engine::{Path, SearchOutcome, SearchStats, Searcher};
pub use error::{JpsError, TableRefused};
// The grid types this crate's API takes and returns, so one dependency is enough.
pub use cuplan_grid::{self as grid, Cell, Direction, Endpoint, Grid, GridError, OctileCost};
#[cfg(feature = "rayon")]
pub use planner::find_paths_in;
pub use planner::{Planner, find_path, find_paths, find_paths_with, with_thread_searcher};
/// The `rayon` of [`find_paths_in`]'s pool, so callers build it with the same version.
#[cfg(feature = "rayon")]
pub use rayon;
pub use smooth::{euclidean_length, line_of_sight, smooth};
pub use table::{JumpTable, Upkeep};

/// The README's example, compiled and run as a doctest (so the crates.io page matches the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

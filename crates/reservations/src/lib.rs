//! Space-time reservations for multi-agent path finding on 4-connected grids with waits.
//!
//! **Job**: record where other agents are at each timestep, and which moves they rule out,
//! so that a constrained search (space-time A*, CBS low level) checks any state or move in
//! O(1) — and a wavefront search can mask a whole row of 64 cells per word.
//!
//! **Main types**
//! - [`ReservationTable`]: dense per-time bit planes (vertex occupancy and one
//!   forbidden-move plane per [`Move`], the bit-plane form of `arrived_from[t, v]`), parked
//!   agents, [`reserve_path`](ReservationTable::reserve_path) that refuses conflicts, a memory
//!   limit and [`bytes`](ReservationTable::bytes). Default horizon: [`default_horizon`].
//! - [`Constraints`]: a sparse per-agent set of vertex and edge constraints (CBS), any number
//!   per `(t, cell)`.
//! - [`Move`], [`plane_stride`], [`plane_bit`]: the shared bit layout (the grid's stored
//!   columns), so planes line up with `Grid::rows()` word for word.
//!
//! **Invariants**: reserved paths never share a vertex at a time nor swap along an edge;
//! an agent whose path ended stays on its last cell forever; nothing is overwritten silently;
//! bad input is an `Err`, never a panic.
//!
//! **Features**: `serde` (on [`Move`] and [`TimeConstraints`], and the grid types).
//!
//! **Tests** live in `crates/reservations/tests/` (property tests of the table against a
//! plain set of reserved states, conflict refusal, memory limits).
//!
//! ```
//! use cuplan_grid::{Cell, Grid};
//! use cuplan_reservations::{ReservationError, ReservationTable};
//!
//! let grid = Grid::open(4, 1)?;
//! let mut table = ReservationTable::new(&grid, 10)?;
//! let (a, b, c) = (Cell::new(0, 0), Cell::new(1, 0), Cell::new(2, 0));
//! table.reserve_path(&[a, b, c])?;
//! assert!(table.is_vertex_reserved(b, 1));
//! assert!(table.is_vertex_reserved(c, 9)); // parked on its goal
//! assert!(table.is_edge_reserved(b, a, 1)); // the swap with a -> b
//! assert_eq!(table.last_vertex_time(c), Some(10));
//! let err = table.reserve_path(&[c]).unwrap_err();
//! // c is taken from time 2 on, so an agent standing there forever conflicts at 2.
//! assert_eq!(err, ReservationError::VertexConflict { cell: c, t: 2 });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod constraints;
mod error;
mod moves;
mod table;

pub use constraints::{Constraints, TimeConstraints};
pub use error::ReservationError;
pub use moves::{Move, plane_bit, plane_stride};
pub use table::{DEFAULT_MAX_BYTES, Layer, MAX_HORIZON, ReservationTable, default_horizon};
// The grid types this crate's API takes, so one dependency is enough.
pub use cuplan_grid::{self as grid, Cell, CellPath, Grid, GridError};

/// The README's example, compiled and run as a doctest (so the crates.io page matches the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

//! The one error type of the jps crate.

use cuplan_grid::{Cell, Endpoint, GridError};

use crate::Algorithm;

/// Bad input to a search or a planner. A search that finds no path is not an error: it
/// answers `None` (or [`SearchOutcome::NoPath`](crate::SearchOutcome::NoPath)).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JpsError {
    /// The start or goal lies outside the grid.
    #[error("{endpoint} cell {cell} is outside the {width}x{height} grid")]
    OutOfRange {
        /// Which end of the query.
        endpoint: Endpoint,
        /// The cell.
        cell: Cell,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// The start or goal is a blocked cell.
    #[error("{endpoint} cell {cell} is blocked")]
    Blocked {
        /// Which end of the query.
        endpoint: Endpoint,
        /// The cell.
        cell: Cell,
    },
    /// An algorithm name that is not one of [`Algorithm::ALL`].
    #[error("unknown algorithm {name:?}; valid names: {valid}")]
    UnknownAlgorithm {
        /// The name given.
        name: String,
        /// The valid names, comma-separated.
        valid: String,
    },
    /// An algorithm this build does not implement yet.
    #[error("algorithm {0} is not implemented yet")]
    Unsupported(Algorithm),
    /// A jump table built for another grid (other size or an older generation of its cells).
    #[error(
        "jump table is stale: built for a {table_width}x{table_height} grid at generation \
         {table_generation}, used with a {width}x{height} grid at generation {generation}"
    )]
    StaleTable {
        /// Width the table was built for.
        table_width: u32,
        /// Height the table was built for.
        table_height: u32,
        /// Grid generation the table describes.
        table_generation: u64,
        /// Width of the grid it is used with.
        width: u32,
        /// Height of the grid it is used with.
        height: u32,
        /// Current generation of that grid.
        generation: u64,
    },
    /// The algorithm needs no jump table, or the table was given to one that cannot use it.
    #[error("algorithm {0} does not use a jump table")]
    NoTable(Algorithm),
    /// An error from the grid crate (e.g. a grid too large for the search's 32-bit indices).
    #[error(transparent)]
    Grid(#[from] GridError),
}

/// A jump table [`Planner::with_table`](crate::Planner::with_table) could not bind, given
/// back with the reason, so a failed constructor never loses a table that took time to build.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct TableRefused {
    /// Why the planner was not made.
    pub error: JpsError,
    /// The table, unchanged or brought up to date.
    pub table: crate::JumpTable,
}

impl TableRefused {
    pub(crate) fn new(error: JpsError, table: crate::JumpTable) -> TableRefused {
        TableRefused { error, table }
    }
}

impl From<TableRefused> for JpsError {
    fn from(refused: TableRefused) -> JpsError {
        refused.error
    }
}

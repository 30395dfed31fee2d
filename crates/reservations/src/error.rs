//! The one error type of the reservations crate.

use cuplan_grid::Cell;

/// Bad input to a reservation table or constraint set, or a reservation that conflicts with
/// one already made (never silently overwritten).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReservationError {
    /// A horizon the table cannot hold.
    #[error("invalid horizon {horizon}: {reason}")]
    InvalidHorizon {
        /// The horizon asked for.
        horizon: u32,
        /// Why it is refused.
        reason: String,
    },
    /// The table would exceed its memory limit.
    #[error("reservation table would need {bytes} bytes, over its limit of {limit} bytes")]
    TooLarge {
        /// Bytes the table would hold after the operation.
        bytes: u128,
        /// The limit given at construction.
        limit: u128,
    },
    /// A cell outside the table's grid.
    #[error("cell {cell} is outside the {width}x{height} grid")]
    OutOfRange {
        /// The cell.
        cell: Cell,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A time beyond the table's horizon.
    #[error("time {t} is beyond the horizon {horizon}")]
    BeyondHorizon {
        /// The time.
        t: u32,
        /// The table's horizon.
        horizon: u32,
    },
    /// An edge or path step between cells that are neither equal nor 4-adjacent.
    #[error("{from} -> {to} is not a 4-connected move")]
    NotAdjacent {
        /// Where the move starts.
        from: Cell,
        /// Where it ends.
        to: Cell,
    },
    /// An empty path given to `reserve_path`.
    #[error("cannot reserve an empty path")]
    EmptyPath,
    /// A path with more moves than the horizon.
    #[error("path of {moves} moves is longer than the horizon {horizon}")]
    PathTooLong {
        /// Moves of the path.
        moves: usize,
        /// The table's horizon.
        horizon: u32,
    },
    /// Two agents on one cell at one time.
    #[error("vertex conflict: cell {cell} is already reserved at time {t} (path index {t})")]
    VertexConflict {
        /// The cell.
        cell: Cell,
        /// The time.
        t: u32,
    },
    /// A move forbidden by an edge reservation (a swap with a reserved agent, or a blocked edge).
    #[error("edge conflict: the move {from} -> {to} arriving at time {t} is reserved against")]
    EdgeConflict {
        /// Where the move starts.
        from: Cell,
        /// Where it ends.
        to: Cell,
        /// Arrival time of the move.
        t: u32,
    },
}

//! The one error type of the wavefront crate.

use cuplan_grid::{Endpoint, GridError};
use cuplan_reservations::ReservationError;

use crate::Backend;

/// Bad input to a wavefront search. A search that finds no path is not an error: it returns
/// `None` or a [`SpaceTimeResult`](crate::SpaceTimeResult) variant.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WavefrontError {
    /// A goal of [`distance_maps`](crate::distance_maps) is out of range or blocked.
    #[error("goal {index}: {source}")]
    InvalidGoal {
        /// Index of the goal in the input slice.
        index: usize,
        /// What the grid said.
        source: GridError,
    },
    /// A start or goal of a batched query is out of range or blocked.
    #[error("query {index}: {endpoint} {source}")]
    InvalidQuery {
        /// Index of the query.
        index: usize,
        /// Start or goal.
        endpoint: Endpoint,
        /// What the grid said.
        source: GridError,
    },
    /// The start or goal of a single search is out of range or blocked.
    #[error("{endpoint}: {source}")]
    InvalidEndpoint {
        /// Start or goal.
        endpoint: Endpoint,
        /// What the grid said.
        source: GridError,
    },
    /// `starts` and `goals` have different lengths.
    #[error("{starts} starts but {goals} goals: every query needs both")]
    LengthMismatch {
        /// Number of starts.
        starts: usize,
        /// Number of goals.
        goals: usize,
    },
    /// The requested backend cannot run here.
    #[error("backend {backend} is unavailable: {reason}")]
    BackendUnavailable {
        /// The backend asked for.
        backend: Backend,
        /// Why it cannot run.
        reason: String,
    },
    /// A backend name that is not `auto`, `cpu` or `cuda`.
    #[error("unknown backend {name:?}: expected auto, cpu or cuda")]
    UnknownBackend {
        /// The name given.
        name: String,
    },
    /// The result would exceed a memory limit.
    #[error("{what} would need {bytes} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// What was to be allocated.
        what: &'static str,
        /// Bytes it would need.
        bytes: u128,
        /// The limit in force.
        limit: u128,
    },
    /// A distance too large for the maps' integer type (a `u16` map, built by
    /// [`DistanceMaps::<u16>::build`](crate::DistanceMaps::build), holds at most 65,534).
    #[error(
        "goal {goal_index}: distances reach {max_distance}, over the {limit} these maps can \
         hold; build u32 maps (distance_maps, DistanceMaps::<u32>::build) instead"
    )]
    DistanceOverflow {
        /// Index of the first goal whose map does not fit.
        goal_index: usize,
        /// The largest distance in that map.
        max_distance: u32,
        /// The largest distance the maps can hold.
        limit: u32,
    },
    /// A reservation table or constraint set that does not fit the grid or the search.
    #[error(transparent)]
    Reservation(#[from] ReservationError),
    /// A search horizon beyond the reservation table's horizon.
    #[error("search horizon {horizon} exceeds the reservation table's horizon {table}")]
    HorizonBeyondTable {
        /// The search horizon asked for.
        horizon: u32,
        /// The table's horizon.
        table: u32,
    },
    /// A reservation table built for a grid of another size.
    #[error("reservation table is {table_width}x{table_height} but the grid is {width}x{height}")]
    TableSizeMismatch {
        /// Table width.
        table_width: u32,
        /// Table height.
        table_height: u32,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A heuristic distance map that does not belong to this grid and goal.
    #[error("heuristic: {reason}")]
    BadHeuristic {
        /// What does not fit.
        reason: String,
    },
    /// An internal inconsistency: a bug in this crate, reported instead of a panic.
    #[error("internal error (please report): {reason}")]
    Internal {
        /// What went wrong.
        reason: String,
    },
}

//! The one error type of the MAPF crate: bad input, detected before any search.

use cuplan_grid::{Cell, Endpoint, GridError};

/// Why an instance (or a solver call) was refused. A search that finds nothing is not an
/// error: it is [`SolveOutcome::NoSolution`](crate::SolveOutcome::NoSolution) or
/// [`SolveOutcome::LimitReached`](crate::SolveOutcome::LimitReached).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum MapfError {
    /// The map or scenario file could not be read or parsed (the message names the file).
    #[error(transparent)]
    Grid(#[from] GridError),
    /// Different numbers of starts and goals.
    #[error("{starts} starts but {goals} goals: every agent needs exactly one of each")]
    LengthMismatch {
        /// Number of starts.
        starts: usize,
        /// Number of goals.
        goals: usize,
    },
    /// A start or goal outside the map.
    #[error("agent {agent}: {endpoint} {cell} is outside the {width}x{height} map")]
    OutOfRange {
        /// Agent index (0-based, scen line order).
        agent: usize,
        /// Start or goal.
        endpoint: Endpoint,
        /// The cell.
        cell: Cell,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// A start or goal on a blocked cell.
    #[error("agent {agent}: {endpoint} {cell} is blocked")]
    Blocked {
        /// Agent index.
        agent: usize,
        /// Start or goal.
        endpoint: Endpoint,
        /// The cell.
        cell: Cell,
    },
    /// Two agents share a start or a goal (the instance is unsolvable by definition).
    #[error("agents {first} and {second} have the same {endpoint} {cell}")]
    Duplicate {
        /// The lower agent index.
        first: usize,
        /// The higher agent index.
        second: usize,
        /// Start or goal.
        endpoint: Endpoint,
        /// The shared cell.
        cell: Cell,
    },
    /// A goal in a different connected component from its start.
    #[error("agent {agent}: goal {goal} cannot be reached from start {start}")]
    Unreachable {
        /// Agent index.
        agent: usize,
        /// Its start.
        start: Cell,
        /// Its goal.
        goal: Cell,
    },
    /// More agents requested than the scenario has lines.
    #[error("{scen}: {requested} agents requested but the scenario has only {available}")]
    TooFewAgents {
        /// The scenario file.
        scen: String,
        /// Requested `k`.
        requested: usize,
        /// Lines in the scenario.
        available: usize,
    },
    /// A scenario line written for a map of another size.
    #[error(
        "{scen} line {line}: written for a {scen_width}x{scen_height} map, but {map} is {width}x{height}"
    )]
    ScenarioMismatch {
        /// The scenario file.
        scen: String,
        /// 1-based line.
        line: usize,
        /// Size the line states.
        scen_width: u32,
        /// Size the line states.
        scen_height: u32,
        /// The map file.
        map: String,
        /// Real map width.
        width: u32,
        /// Real map height.
        height: u32,
    },
    /// The distance maps (or a space-time search) refused their input, e.g. maps that would
    /// exceed the memory limit.
    #[error(transparent)]
    Wavefront(#[from] cuplan_wavefront::WavefrontError),
    /// The reservation table refused its input (PP), e.g. over its memory limit.
    #[error(transparent)]
    Reservation(#[from] cuplan_reservations::ReservationError),
    /// An argument outside its domain (an unknown solver name, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

//! The one error type of the grid crate.

use std::fmt;
use std::path::PathBuf;

use crate::Cell;

/// Which end of a query (or of an agent's task) an error is about: the one type every crate's
/// errors use for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Endpoint {
    /// The start cell.
    Start,
    /// The goal cell.
    Goal,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Endpoint::Start => "start",
            Endpoint::Goal => "goal",
        })
    }
}

/// Everything that can go wrong building a grid, reading a benchmark file or checking a path.
///
/// Messages name the file, line and column where there is one, so a user can find the fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GridError {
    /// A file could not be read at all.
    #[error("{path}: cannot read: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        message: String,
    },
    /// A syntax error in a `.map` or `.scen` text, at a 1-based line and column.
    #[error("{source_name}:{line}:{column}: {message}")]
    Syntax {
        /// The file name, or `<input>` for text not read from a file.
        source_name: String,
        /// 1-based line.
        line: usize,
        /// 1-based column (in bytes).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// Width or height is zero, the grid would exceed the size limit, or a slice of one value
    /// per cell does not hold `width × height` values.
    #[error("invalid grid size {width}x{height}: {reason}")]
    InvalidSize {
        /// Requested width.
        width: u64,
        /// Requested height.
        height: u64,
        /// Why it is refused.
        reason: String,
    },
    /// A cell outside the grid.
    #[error("cell {cell} is outside the {width}x{height} grid")]
    OutOfRange {
        /// The cell.
        cell: Cell,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A cell that had to be free is blocked.
    #[error("cell {cell} is blocked")]
    Blocked {
        /// The cell.
        cell: Cell,
    },
    /// A scenario does not fit the map it is used with.
    #[error("scenario line {line}: {message}")]
    ScenarioMismatch {
        /// 1-based line in the `.scen` file.
        line: usize,
        /// What does not fit.
        message: String,
    },
    /// A path that is not a legal walk on the grid.
    #[error("invalid path at waypoint {index}: {reason}")]
    InvalidPath {
        /// Index of the waypoint where the fault starts.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// An argument out of its documented domain (a density above 1, a zero corridor width...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Shorthand used throughout the crate.
pub type Result<T, E = GridError> = std::result::Result<T, E>;

//! The one error type of the grid crate.

use std::path::PathBuf;

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
    #[error("cell ({x}, {y}) is outside the {width}x{height} grid")]
    OutOfRange {
        /// Column.
        x: i64,
        /// Row.
        y: i64,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A cell that had to be free is blocked.
    #[error("cell ({x}, {y}) is blocked")]
    Blocked {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
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

//! The one error type of the CUDA backend.

use cuplan_grid::{Cell, GridError};

/// Why a GPU search could not run. A search that finds no path is not an error.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// The CUDA driver library (`libcuda.so`) could not be loaded.
    #[error("no CUDA driver: the driver library (libcuda) could not be loaded")]
    NoDriver,
    /// A driver library loaded but lacks entry points the backend calls (an old or stub
    /// `libcuda`, or another library under its name).
    #[error("incomplete CUDA driver: {library} lacks {}", missing.join(", "))]
    IncompleteDriver {
        /// The file name the library was loaded by.
        library: String,
        /// The entry points it lacks.
        missing: Vec<&'static str>,
    },
    /// The driver is there but has no device with this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count} device(s)")]
    NoDevice {
        /// The device asked for.
        ordinal: usize,
        /// Devices the driver reports.
        count: usize,
    },
    /// A CUDA driver call failed.
    #[error("CUDA error while {during}: {message}")]
    Driver {
        /// What was being done.
        during: &'static str,
        /// The driver's error.
        message: String,
    },
    /// A goal or endpoint that is out of range or blocked.
    #[error("{what} {index}: {source}")]
    BadCell {
        /// `"goal"`, `"start"`, or `"path cell"`.
        what: &'static str,
        /// Index in the input.
        index: usize,
        /// What the grid said.
        source: GridError,
    },
    /// A reserved path whose consecutive cells are not 4-adjacent or equal.
    #[error("reserved path: cells {index} and {} ({from} → {to}) are not 4-adjacent", index + 1)]
    BadPathStep {
        /// Index of the first cell of the step.
        index: usize,
        /// The cell at `index`.
        from: Cell,
        /// The cell at `index + 1`.
        to: Cell,
    },
    /// A reservation table built for a grid of another size.
    #[error("reservation table is {table_width}x{table_height} but the grid is {width}x{height}")]
    TableSize {
        /// Table width.
        table_width: u32,
        /// Table height.
        table_height: u32,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A request beyond what the kernels' 32-bit indices or the device memory allow.
    #[error("{what} is too large: {value} (limit {limit})")]
    TooLarge {
        /// What overflowed.
        what: &'static str,
        /// The size asked for.
        value: u128,
        /// The limit.
        limit: u128,
    },
}

impl GpuError {
    /// Wraps a driver error with what was being done.
    pub(crate) fn driver(
        during: &'static str,
    ) -> impl FnOnce(cudarc::driver::DriverError) -> GpuError {
        move |e| GpuError::Driver {
            during,
            message: e.to_string(),
        }
    }
}

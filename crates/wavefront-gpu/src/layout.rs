//! Grid geometry in the kernels' bit layout, and the 32-bit limits of their indices.

use cuplan_grid::{Cell, CellIndex, Grid};
use cuplan_wavefront_kernels::launch::Dims;

use crate::GpuError;

/// The free cells of `grid` as bits in its stored layout (1 = free; border and padding 0).
pub fn free_plane(grid: &Grid) -> Vec<u64> {
    grid.rows().words().iter().map(|&w| !w).collect()
}

/// The kernels' plane geometry for `grid`, or `TooLarge` when an index would pass `u32`.
pub(crate) fn dims(grid: &Grid) -> Result<Dims, GpuError> {
    let plane = grid.rows();
    let too_large = |what, value: usize| GpuError::TooLarge {
        what,
        value: value as u128,
        limit: u32::MAX as u128,
    };
    let words = plane.words().len();
    let cells = grid.cell_count();
    if words >= u32::MAX as usize {
        return Err(too_large("plane words", words));
    }
    if cells >= u32::MAX as usize {
        return Err(too_large("grid cells", cells));
    }
    Ok(Dims {
        stride: plane.stride() as u32,
        rows: plane.stored_rows() as u32,
        width: grid.width(),
        height: grid.height(),
    })
}

/// Row-major real index of `cell`.
pub(crate) fn cell_index(dims: &Dims, cell: Cell) -> usize {
    CellIndex::row_major(dims.width, cell.x, cell.y)
}

/// `(word, bit)` of `cell` in a plane.
pub(crate) fn word_bit(dims: &Dims, cell: Cell) -> (usize, u64) {
    let word = cuplan_wavefront_kernels::word::word_of(cell.x, cell.y, dims.stride) as usize;
    (word, cuplan_wavefront_kernels::word::column_bit(cell.x))
}

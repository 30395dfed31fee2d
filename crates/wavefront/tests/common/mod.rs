//! Independent oracles and generators shared by the wavefront tests.
#![allow(dead_code, unreachable_pub)]

use cuplan_grid::{Cell, Grid};
use ndarray::Array2;
use proptest::prelude::*;

/// Plain BFS distances from `goal` over 4-neighbours, `None` where unreachable (the shared
/// oracle in `cuplan_grid::testkit`, independent of wavefront).
#[allow(unused_imports)] // not every test binary that includes `common` uses it
pub use cuplan_grid::testkit::bfs4 as bfs;

/// Random grids of odd and thin shapes (1×N included) with a density of blocked cells.
pub fn arb_grid() -> impl Strategy<Value = Grid> {
    (1usize..70, 1usize..40, 0.0f64..0.5).prop_flat_map(|(w, h, density)| {
        proptest::collection::vec(proptest::bool::weighted(1.0 - density), w * h).prop_map(
            move |free| Grid::from_array(&Array2::from_shape_vec((h, w), free).unwrap()).unwrap(),
        )
    })
}

/// Any cell of the grid (free or not), from two fractions.
pub fn pick(grid: &Grid, fx: f64, fy: f64) -> Cell {
    Cell::new(
        ((grid.width() as f64 * fx) as u32).min(grid.width() - 1),
        ((grid.height() as f64 * fy) as u32).min(grid.height() - 1),
    )
}

/// A free cell near the picked one (scanning row-major from it), if any.
pub fn pick_free(grid: &Grid, fx: f64, fy: f64) -> Option<Cell> {
    let start = pick(grid, fx, fy);
    let n = grid.cell_count();
    let w = grid.width() as usize;
    let s = grid.index(start).get();
    (0..n)
        .map(|k| (s + k) % n)
        .map(|i| Cell::new((i % w) as u32, (i / w) as u32))
        .find(|&c| grid.is_free(c))
}

/// Directory of the shared benchmark data, if present.
pub fn data_dir() -> Option<std::path::PathBuf> {
    let dir =
        std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data"));
    dir.is_dir().then_some(dir)
}

/// Small random grids for space-time searches (the plain oracle is exponential in nothing,
/// but its state space is cells × horizon).
pub fn arb_grid_small() -> impl Strategy<Value = Grid> {
    prop_oneof![
        (1usize..13, 1usize..10, 0.0f64..0.4),
        // Wide and flat: rows of several words, so carries between words are exercised.
        (60usize..200, 1usize..5, 0.0f64..0.3),
    ]
    .prop_flat_map(|(w, h, density)| {
        proptest::collection::vec(proptest::bool::weighted(1.0 - density), w * h).prop_map(
            move |free| Grid::from_array(&Array2::from_shape_vec((h, w), free).unwrap()).unwrap(),
        )
    })
}

//! Independent oracle for the jps tests: a plain Dijkstra with its own move rules
//! (`cuplan_grid::testkit::octile_dijkstra`, which calls no jps code).

#![allow(dead_code)]

use std::sync::Arc;

use cuplan_grid::{Cell, Grid, OctileCost};
use cuplan_jps::{Algorithm, Planner, Searcher};

/// Exact octile distances from `start` to every cell (`None` = unreachable), written from the
/// benchmark's rules alone (the shared oracle in `cuplan_grid::testkit`, independent of jps).
#[allow(unused_imports)] // not every test binary that includes `common` uses it
pub(crate) use cuplan_grid::testkit::octile_dijkstra as dijkstra;

/// Free cells in row-major order.
pub(crate) fn free_cells(grid: &Grid) -> Vec<Cell> {
    (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect()
}

/// Every algorithm answers every query with the oracle's cost and a legal path. The oracle
/// runs once per distinct start.
pub(crate) fn check_every_algorithm(grid: impl Into<Arc<Grid>>, queries: &[(Cell, Cell)]) {
    let grid: Arc<Grid> = grid.into();
    let mut starts: Vec<Cell> = queries.iter().map(|q| q.0).collect();
    starts.sort_unstable_by_key(|c| (c.y, c.x));
    starts.dedup();
    let expected: Vec<Option<OctileCost>> = {
        let mut by_query = vec![None; queries.len()];
        for s in starts {
            let dist = dijkstra(&grid, s);
            for (i, &(qs, g)) in queries.iter().enumerate() {
                if qs == s {
                    by_query[i] = dist[grid.index(g).get()];
                }
            }
        }
        by_query
    };
    let mut searcher = Searcher::new();
    for algo in Algorithm::ALL {
        let planner =
            Planner::new(Arc::clone(&grid), algo).unwrap_or_else(|e| panic!("{algo}: {e}"));
        for (&(s, g), &want) in queries.iter().zip(&expected) {
            let got = planner
                .search(&mut searcher, s, g)
                .expect("valid endpoints");
            assert_eq!(got.as_ref().map(|p| p.cost), want, "{algo} {s}->{g}");
            if let Some(p) = got {
                assert_eq!(
                    grid.octile_path_cost(&p.waypoints),
                    Ok(p.cost),
                    "{algo} {s}->{g}"
                );
            }
        }
    }
}

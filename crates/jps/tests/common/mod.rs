//! Independent oracle for the jps tests: a plain Dijkstra with its own move rules.

#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use std::sync::Arc;

use cuplan_grid::{Cell, Grid, OctileCost};
use cuplan_jps::{Algorithm, Planner, Searcher};

/// Whether `(x, y)` is inside the grid and free.
fn free(grid: &Grid, x: i64, y: i64) -> bool {
    x >= 0
        && y >= 0
        && x < i64::from(grid.width())
        && y < i64::from(grid.height())
        && grid.is_free(Cell::new(x as u32, y as u32))
}

/// Exact octile distances from `start` to every cell (`None` = unreachable), written from the
/// benchmark's rules alone: 8 moves, a diagonal needs both orthogonal cells free.
pub(crate) fn dijkstra(grid: &Grid, start: Cell) -> Vec<Option<OctileCost>> {
    let w = grid.width() as usize;
    let mut dist: Vec<Option<OctileCost>> = vec![None; grid.cell_count()];
    let mut heap = BinaryHeap::new();
    dist[start.y as usize * w + start.x as usize] = Some(OctileCost::ZERO);
    heap.push(Reverse((OctileCost::ZERO, start.y, start.x)));
    while let Some(Reverse((d, y, x))) = heap.pop() {
        if dist[y as usize * w + x as usize] != Some(d) {
            continue;
        }
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                if (dx, dy) == (0, 0) {
                    continue;
                }
                let (nx, ny) = (i64::from(x) + dx, i64::from(y) + dy);
                if !free(grid, nx, ny) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                if diagonal
                    && !(free(grid, i64::from(x) + dx, i64::from(y))
                        && free(grid, i64::from(x), i64::from(y) + dy))
                {
                    continue;
                }
                let step = if diagonal {
                    OctileCost::new(0, 1)
                } else {
                    OctileCost::new(1, 0)
                };
                let nd = d + step;
                let slot = &mut dist[ny as usize * w + nx as usize];
                if slot.is_none_or(|old| nd < old) {
                    *slot = Some(nd);
                    heap.push(Reverse((nd, ny as u32, nx as u32)));
                }
            }
        }
    }
    dist
}

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
                    by_query[i] = dist[g.y as usize * grid.width() as usize + g.x as usize];
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

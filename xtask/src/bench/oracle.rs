//! The harness's own exact Dijkstra: optimal costs for generated queries, independent of every
//! engine it judges.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use cuplan::grid::{Cell, Grid, OctileCost};

/// Exact octile distances from `start` to every cell (`None` where unreachable).
pub(crate) fn octile_distances(grid: &Grid, start: Cell) -> Vec<Option<OctileCost>> {
    let mut dist: Vec<Option<OctileCost>> = vec![None; grid.cell_count()];
    let mut heap = BinaryHeap::new();
    let idx = |c: Cell| grid.index(c).get();
    dist[idx(start)] = Some(OctileCost::ZERO);
    heap.push(Reverse((OctileCost::ZERO, start.y, start.x)));
    while let Some(Reverse((d, y, x))) = heap.pop() {
        let cell = Cell::new(x, y);
        if dist[idx(cell)] != Some(d) {
            continue;
        }
        for (next, dir) in grid.neighbours8(cell) {
            let step = if dir.is_diagonal() {
                OctileCost::new(0, 1)
            } else {
                OctileCost::new(1, 0)
            };
            let nd = d + step;
            let slot = &mut dist[idx(next)];
            if slot.is_none_or(|old| nd < old) {
                *slot = Some(nd);
                heap.push(Reverse((nd, next.y, next.x)));
            }
        }
    }
    dist
}

//! Test oracles shared by the workspace's tests (feature `testkit`, enabled only as a
//! dev-dependency; hidden from the docs, not part of the API).
//!
//! Each oracle is written from the benchmark's movement rules alone, reading the map only
//! through [`Grid::is_free_signed`]: it calls no search code of any crate (not even this
//! crate's [`crate::Components`]), so it stays independent of every engine it checks.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::{Cell, Grid, OctileCost};

/// Plain queue BFS distances from `goal` over 4-neighbours, row-major, `None` where
/// unreachable (every cell when `goal` is blocked or outside the grid).
pub fn bfs4(grid: &Grid, goal: Cell) -> Vec<Option<u32>> {
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let idx = |x: i64, y: i64| (y * w + x) as usize;
    let mut dist = vec![None; grid.cell_count()];
    let (gx, gy) = (i64::from(goal.x), i64::from(goal.y));
    if !grid.is_free_signed(gx, gy) {
        return dist;
    }
    dist[idx(gx, gy)] = Some(0u32);
    let mut queue = VecDeque::from([(gx, gy)]);
    while let Some((x, y)) = queue.pop_front() {
        let d = dist[idx(x, y)].expect("queued cells have a distance");
        for (dx, dy) in [(0, -1), (1, 0), (0, 1), (-1, 0)] {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= w || ny >= h || !grid.is_free_signed(nx, ny) {
                continue;
            }
            if dist[idx(nx, ny)].is_none() {
                dist[idx(nx, ny)] = Some(d + 1);
                queue.push_back((nx, ny));
            }
        }
    }
    dist
}

/// Exact octile distances from `start` to every cell, row-major (`None` = unreachable), by a
/// plain Dijkstra: 8 moves, cost 1 or √2, a diagonal needs both orthogonal cells free.
pub fn octile_dijkstra(grid: &Grid, start: Cell) -> Vec<Option<OctileCost>> {
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let free = |x: i64, y: i64| x >= 0 && y >= 0 && x < w && y < h && grid.is_free_signed(x, y);
    let idx = |x: i64, y: i64| (y * w + x) as usize;
    let mut dist: Vec<Option<OctileCost>> = vec![None; grid.cell_count()];
    let (sx, sy) = (i64::from(start.x), i64::from(start.y));
    if !free(sx, sy) {
        return dist;
    }
    let mut heap = BinaryHeap::new();
    dist[idx(sx, sy)] = Some(OctileCost::ZERO);
    heap.push(Reverse((OctileCost::ZERO, sy, sx)));
    while let Some(Reverse((d, y, x))) = heap.pop() {
        if dist[idx(x, y)] != Some(d) {
            continue;
        }
        for dy in -1i64..=1 {
            for dx in -1i64..=1 {
                let (nx, ny) = (x + dx, y + dy);
                if (dx, dy) == (0, 0) || !free(nx, ny) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                if diagonal && !(free(x + dx, y) && free(x, y + dy)) {
                    continue;
                }
                let step = if diagonal {
                    OctileCost::new(0, 1)
                } else {
                    OctileCost::new(1, 0)
                };
                let nd = d + step;
                let slot = &mut dist[idx(nx, ny)];
                if slot.is_none_or(|old| nd < old) {
                    *slot = Some(nd);
                    heap.push(Reverse((nd, ny, nx)));
                }
            }
        }
    }
    dist
}

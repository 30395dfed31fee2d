//! The real peer: the `pathfinding` crate's A* with no-corner-cutting octile successors.
//!
//! Costs are integers scaled by 10^6 (straight 1,000,000, diagonal 1,414,214), as in
//! `docs/jps-targets.md`, so ratios measured here compare with the targets there.

use cuplan::grid::{Cell, Grid};

const STRAIGHT: u64 = 1_000_000;
const DIAGONAL: u64 = 1_414_214;

/// The peer's path (every cell) from `start` to `goal`, or `None`.
pub(crate) fn pathfinding_astar(grid: &Grid, start: Cell, goal: Cell) -> Option<Vec<Cell>> {
    let successors = |c: &Cell| -> Vec<(Cell, u64)> {
        grid.neighbours8(*c)
            .map(|(n, d)| (n, if d.is_diagonal() { DIAGONAL } else { STRAIGHT }))
            .collect()
    };
    let heuristic = |c: &Cell| {
        let (straight, diagonal) = c.octile_steps(goal);
        u64::from(straight) * STRAIGHT + u64::from(diagonal) * DIAGONAL
    };
    pathfinding::prelude::astar(&start, successors, heuristic, |c| *c == goal).map(|(p, _)| p)
}

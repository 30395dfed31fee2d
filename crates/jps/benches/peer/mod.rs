//! The benchmark peer: the `pathfinding` crate's A* with no-corner-cutting octile successors
//! and integer costs scaled by 10^6 (as in `docs/jps-targets.md`).

use cuplan_grid::{Cell, Direction, Grid};

const STRAIGHT: u64 = 1_000_000;
const DIAGONAL: u64 = 1_414_214;
/// √2 − 1 rounded down, so the heuristic stays admissible against the rounded-up diagonal.
const DIAGONAL_EXTRA: u64 = 414_213;

/// Cost (scaled by 10^6) of an optimal path, or `None`.
pub(crate) fn pathfinding_astar(grid: &Grid, start: Cell, goal: Cell) -> Option<u64> {
    pathfinding::prelude::astar(
        &start,
        |&c| {
            Direction::ALL
                .into_iter()
                .filter(move |&d| grid.can_step(c, d))
                .map(move |d| {
                    let cost = if d.is_diagonal() { DIAGONAL } else { STRAIGHT };
                    (c.step(d).unwrap_or(c), cost)
                })
        },
        |&c| {
            let (straight, diagonal) = c.octile_steps(goal);
            u64::from(straight + diagonal) * STRAIGHT + u64::from(diagonal) * DIAGONAL_EXTRA
        },
        |&c| c == goal,
    )
    .map(|(_, cost)| cost)
}

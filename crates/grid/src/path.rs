//! Paths cell by cell: the one 4-connected path type, and the independent validator every
//! test and benchmark uses.

use crate::{Cell, Direction, Grid, GridError, OctileCost, Result};

/// A 4-connected path one unit step at a time: `cells[t]` is where the agent is at time `t`,
/// start first, goal last; consecutive cells are equal (a wait) or 4-adjacent (a move).
///
/// The one path type of the unit-cost searches: the optimal paths of `batched_astar` (no
/// waits, so the arrival time is the number of moves), the space-time paths of
/// `space_time_astar` on the CPU or the GPU (waits repeat a cell), and the plans of the MAPF
/// solvers. The 8-connected JPS paths are waypoints with an exact octile cost instead
/// (`cuplan_jps::Path`). A search whose start is its goal gives a one-cell path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CellPath {
    /// Cell at each time `0..=arrival()`.
    pub cells: Vec<Cell>,
}

impl CellPath {
    /// A path through these cells (not checked: see [`Grid::four_path_moves`]).
    pub fn new(cells: Vec<Cell>) -> CellPath {
        CellPath { cells }
    }

    /// Time of arrival at the goal, `cells.len() - 1` (0 for an empty path): the number of
    /// unit steps, moves and waits alike.
    pub fn arrival(&self) -> u32 {
        self.cells.len().saturating_sub(1) as u32
    }
}

impl From<Vec<Cell>> for CellPath {
    fn from(cells: Vec<Cell>) -> CellPath {
        CellPath { cells }
    }
}

impl Grid {
    /// Checks an 8-connected path given as waypoints and returns its exact cost.
    ///
    /// Each pair of consecutive waypoints must be joined by a horizontal, vertical or exactly
    /// diagonal run, and every step of every run must be legal ([`Grid::can_step`]: free
    /// target, no corner cutting). Repeated waypoints are allowed (a zero-length run). The
    /// first waypoint must be free; an empty path is an error.
    pub fn octile_path_cost(&self, waypoints: &[Cell]) -> Result<OctileCost> {
        let first = *waypoints.first().ok_or_else(|| invalid(0, "empty path"))?;
        self.check_free(first)
            .map_err(|e| invalid(0, e.to_string()))?;
        let mut cost = OctileCost::ZERO;
        for (i, pair) in waypoints.windows(2).enumerate() {
            let (a, b) = (pair[0], pair[1]);
            self.check_cell(b)
                .map_err(|e| invalid(i + 1, e.to_string()))?;
            let dx = i64::from(b.x) - i64::from(a.x);
            let dy = i64::from(b.y) - i64::from(a.y);
            if dx != 0 && dy != 0 && dx.abs() != dy.abs() {
                return Err(invalid(
                    i + 1,
                    format!("{a} to {b} is neither straight nor 45°"),
                ));
            }
            let Some(dir) = Direction::from_delta(dx.signum() as i32, dy.signum() as i32) else {
                continue;
            };
            let steps = dx.abs().max(dy.abs()) as u32;
            let mut c = a;
            for _ in 0..steps {
                if !self.can_step(c, dir) {
                    return Err(invalid(
                        i + 1,
                        format!("illegal step {dir:?} from {c} on the way from {a} to {b}"),
                    ));
                }
                c = c.step(dir).expect("can_step guarantees an in-range target");
            }
            cost += if dir.is_diagonal() {
                OctileCost::new(0, steps)
            } else {
                OctileCost::new(steps, 0)
            };
        }
        Ok(cost)
    }

    /// Checks a 4-connected path given cell by cell and returns its number of moves.
    pub fn four_path_moves(&self, cells: &[Cell]) -> Result<u32> {
        let first = *cells.first().ok_or_else(|| invalid(0, "empty path"))?;
        self.check_free(first)
            .map_err(|e| invalid(0, e.to_string()))?;
        for (i, pair) in cells.windows(2).enumerate() {
            if pair[0].manhattan(pair[1]) != 1 {
                return Err(invalid(
                    i + 1,
                    format!("{} to {} is not one 4-connected move", pair[0], pair[1]),
                ));
            }
            self.check_free(pair[1])
                .map_err(|e| invalid(i + 1, e.to_string()))?;
        }
        Ok(cells.len() as u32 - 1)
    }
}

/// Expands waypoints joined by straight or 45° runs into every cell of the walk.
///
/// Waypoints that are not on one line are not checked here (see [`Grid::octile_path_cost`]);
/// such a pair is walked diagonally first, then straight.
pub fn expand_waypoints(waypoints: &[Cell]) -> Vec<Cell> {
    let mut out = Vec::with_capacity(waypoints.len());
    let Some(&first) = waypoints.first() else {
        return out;
    };
    out.push(first);
    for pair in waypoints.windows(2) {
        let mut c = pair[0];
        let b = pair[1];
        while c != b {
            let dx = (i64::from(b.x) - i64::from(c.x)).signum() as i32;
            let dy = (i64::from(b.y) - i64::from(c.y)).signum() as i32;
            let dir = Direction::from_delta(dx, dy).expect("c != b");
            c = c.step(dir).expect("moves toward an existing cell");
            out.push(c);
        }
    }
    out
}

fn invalid(index: usize, reason: impl Into<String>) -> GridError {
    GridError::InvalidPath {
        index,
        reason: reason.into(),
    }
}

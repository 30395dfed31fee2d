//! `batched_astar`: many optimal 4-connected paths from one batch of distance maps.

use std::collections::HashMap;

use cuplan_grid::{Cell, Direction, Grid};

use crate::error::Endpoint;
use crate::{Backend, Distance, DistanceMaps, WavefrontError, distance_maps};

/// A 4-connected path: every cell visited, start first, goal last, consecutive cells
/// 4-adjacent. A query whose start is its goal gives a one-cell path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GridPath {
    /// The cells, start to goal inclusive.
    pub cells: Vec<Cell>,
}

impl GridPath {
    /// Number of unit moves (`cells.len() - 1`, 0 for an empty path).
    pub fn moves(&self) -> u32 {
        self.cells.len().saturating_sub(1) as u32
    }
}

/// Optimal 4-connected paths for every `(starts[i], goals[i])` query.
///
/// Builds one distance map per *distinct* goal (queries sharing a goal share its map), then
/// walks each path down its map's gradient in O(path length). `None` where the goal cannot be
/// reached from the start. Every path returned is cost-optimal (unit moves, no diagonals).
///
/// Errors: different lengths ([`WavefrontError::LengthMismatch`]), a start or goal out of
/// range or blocked ([`WavefrontError::InvalidQuery`] naming the query index), or an
/// unavailable backend.
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_wavefront::{Backend, batched_astar};
///
/// let grid = Grid::from_ascii("....\n.@@.\n....")?;
/// let paths = batched_astar(&grid, &[Cell::new(0, 1)], &[Cell::new(3, 1)], Backend::Cpu)?;
/// let path = paths[0].as_ref().expect("connected");
/// assert_eq!(path.moves(), 5);
/// assert_eq!(grid.four_path_moves(&path.cells)?, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn batched_astar(
    grid: &Grid,
    starts: &[Cell],
    goals: &[Cell],
    backend: Backend,
) -> Result<Vec<Option<GridPath>>, WavefrontError> {
    if starts.len() != goals.len() {
        return Err(WavefrontError::LengthMismatch {
            starts: starts.len(),
            goals: goals.len(),
        });
    }
    for (index, (&start, &goal)) in starts.iter().zip(goals).enumerate() {
        let bad = |endpoint| {
            move |source| WavefrontError::InvalidQuery {
                index,
                endpoint,
                source,
            }
        };
        grid.check_free(start).map_err(bad(Endpoint::Start))?;
        grid.check_free(goal).map_err(bad(Endpoint::Goal))?;
    }
    let mut slot_of_goal: HashMap<Cell, usize> = HashMap::new();
    let mut distinct = Vec::new();
    let slots: Vec<usize> = goals
        .iter()
        .map(|&g| {
            *slot_of_goal.entry(g).or_insert_with(|| {
                distinct.push(g);
                distinct.len() - 1
            })
        })
        .collect();
    let maps = distance_maps(grid, &distinct, backend)?;
    Ok(starts
        .iter()
        .zip(&slots)
        .map(|(&start, &slot)| descend(grid, &maps, slot, start))
        .collect())
}

/// Follows strictly decreasing distances from `start` to the goal of map `slot` (of either
/// distance type).
pub(crate) fn descend<D: Distance>(
    grid: &Grid,
    maps: &DistanceMaps<D>,
    slot: usize,
    start: Cell,
) -> Option<GridPath> {
    let map = maps.map_slice(slot)?;
    let width = grid.width() as usize;
    let at = |c: Cell| map[c.y as usize * width + c.x as usize];
    let d = at(start);
    if d == D::UNREACHABLE {
        return None;
    }
    let mut d = d.to_u32();
    let mut cells = Vec::with_capacity(d as usize + 1);
    let mut cur = start;
    cells.push(cur);
    while d > 0 {
        // A reachable cell at distance d always has a free neighbour at d - 1.
        cur = Direction::STRAIGHT
            .into_iter()
            .filter_map(|dir| cur.step(dir))
            .find(|&n| grid.contains(n) && at(n).to_u32() == d - 1)?;
        d -= 1;
        cells.push(cur);
    }
    Some(GridPath { cells })
}

#[cfg(test)]
mod tests {
    use cuplan_grid::generate;

    use super::*;
    use crate::distance_maps_u16;

    /// Descending a `u16` map walks exactly the path of the `u32` map.
    #[test]
    fn descend_walks_u16_maps_like_u32_maps() {
        let grid = generate::maze(61, 41, 1, 5).unwrap();
        let queries = generate::random_queries(&grid, 16, 2);
        let goals: Vec<Cell> = queries.iter().map(|q| q.1).collect();
        let wide = distance_maps(&grid, &goals, Backend::Cpu).unwrap();
        let narrow = distance_maps_u16(&grid, &goals, Backend::Cpu).unwrap();
        for (slot, &(start, _)) in queries.iter().enumerate() {
            let path = descend(&grid, &narrow, slot, start);
            assert_eq!(path, descend(&grid, &wide, slot, start));
            let moves = path.map(|p| p.moves());
            assert_eq!(moves, wide.get(slot, start));
        }
    }
}

//! The layered low level ([`crate::LowLevel::Wavefront`]): the glue between the solvers'
//! vertex ids and [`cuplan_wavefront::space_time_astar`] over
//! [`cuplan_reservations`] tables and constraint sets.

use cuplan_grid::CellPath;
use cuplan_grid::Grid;
use cuplan_wavefront::{DistanceMaps, SpaceTimeQuery};

use crate::util::{DIST_CHUNK, Deadline, Graph};

/// What a wavefront search needs besides the query: the grid, the solvers' graph (for id ↔
/// cell), the distance maps built by [`crate::solve`] and the deadline.
pub(crate) struct World<'a> {
    pub(crate) grid: &'a Grid,
    pub(crate) graph: &'a Graph,
    maps: &'a [DistanceMaps],
    pub(crate) deadline: Deadline,
}

impl<'a> World<'a> {
    pub(crate) fn new(
        grid: &'a Grid,
        graph: &'a Graph,
        maps: &'a [DistanceMaps],
        deadline: Deadline,
    ) -> World<'a> {
        World {
            grid,
            graph,
            maps,
            deadline,
        }
    }

    /// A query for `agent` from `start` to `goal` (vertex ids) with the goal's distance map
    /// as heuristic and the solver deadline; the caller adds table or constraints and
    /// horizon.
    pub(crate) fn query(&self, agent: usize, start: u32, goal: u32) -> SpaceTimeQuery<'a> {
        let mut query = SpaceTimeQuery::new(self.graph.cell(start), self.graph.cell(goal))
            .with_heuristic(&self.maps[agent / DIST_CHUNK], agent % DIST_CHUNK);
        if let Some(at) = self.deadline.instant() {
            query = query.with_deadline(at);
        }
        query
    }

    /// The path as vertex ids.
    pub(crate) fn ids(&self, path: &CellPath) -> Vec<u32> {
        path.cells.iter().map(|&c| self.graph.id(c)).collect()
    }
}

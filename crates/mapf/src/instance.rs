//! `Instance`: a map and one start and goal per agent, checked before any search.

use std::path::Path;
use std::sync::Arc;

use cuplan_grid::{Cell, Endpoint, Grid, GridError, Scenario};

use crate::MapfError;
use cuplan_wavefront::{Backend, distance_maps};

use crate::util::{FxHashMap, Graph, NONE};

/// A classic MAPF instance on a 4-connected grid.
///
/// *Invariants* (checked by [`Instance::new`], so every solver may rely on them): as many goals
/// as starts; every start and goal inside the map and free; no two agents share a start or a
/// goal; every goal reachable from its start.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    grid: Arc<Grid>,
    starts: Vec<Cell>,
    goals: Vec<Cell>,
}

impl Instance {
    /// Checks and builds an instance; agent `i` goes from `starts[i]` to `goals[i]`.
    pub fn new(
        grid: Arc<Grid>,
        starts: Vec<Cell>,
        goals: Vec<Cell>,
    ) -> Result<Instance, MapfError> {
        check_size(&grid)?;
        if starts.len() != goals.len() {
            return Err(MapfError::LengthMismatch {
                starts: starts.len(),
                goals: goals.len(),
            });
        }
        for (agent, (&s, &g)) in starts.iter().zip(&goals).enumerate() {
            check_cell(&grid, agent, Endpoint::Start, s)?;
            check_cell(&grid, agent, Endpoint::Goal, g)?;
        }
        check_distinct(&starts, Endpoint::Start)?;
        check_distinct(&goals, Endpoint::Goal)?;
        for (agent, (&start, &goal)) in starts.iter().zip(&goals).enumerate() {
            if !grid.connected(start, goal) {
                return Err(MapfError::Unreachable { agent, start, goal });
            }
        }
        Ok(Instance {
            grid,
            starts,
            goals,
        })
    }

    /// The first `k` agents of a Moving AI MAPF scenario on its map.
    ///
    /// Errors: unreadable or malformed files, `k` larger than the scenario, a scenario line
    /// for a map of another size, and everything [`Instance::new`] refuses.
    pub fn from_moving_ai(
        map_path: impl AsRef<Path>,
        scen_path: impl AsRef<Path>,
        k: usize,
    ) -> Result<Instance, MapfError> {
        let (map_path, scen_path) = (map_path.as_ref(), scen_path.as_ref());
        let grid = Grid::read_movingai(map_path)?;
        let scen = Scenario::read(scen_path)?;
        let scen_name = scen_path.display().to_string();
        if k > scen.entries.len() {
            return Err(MapfError::TooFewAgents {
                scen: scen_name,
                requested: k,
                available: scen.entries.len(),
            });
        }
        let entries = &scen.entries[..k];
        for e in entries {
            if (e.width, e.height) != (grid.width(), grid.height()) {
                return Err(MapfError::ScenarioMismatch {
                    scen: scen_name,
                    line: e.line,
                    scen_width: e.width,
                    scen_height: e.height,
                    map: map_path.display().to_string(),
                    width: grid.width(),
                    height: grid.height(),
                });
            }
        }
        let starts = entries.iter().map(|e| e.start).collect();
        let goals = entries.iter().map(|e| e.goal).collect();
        Instance::new(Arc::new(grid), starts, goals)
    }

    /// The map.
    pub fn grid(&self) -> &Arc<Grid> {
        &self.grid
    }

    /// Start cells, one per agent.
    pub fn starts(&self) -> &[Cell] {
        &self.starts
    }

    /// Goal cells, one per agent.
    pub fn goals(&self) -> &[Cell] {
        &self.goals
    }

    /// Number of agents.
    pub fn num_agents(&self) -> usize {
        self.starts.len()
    }

    /// Sum over agents of the 4-connected BFS distance from start to goal: a lower bound on
    /// the sum of costs of every solution. Read from `cuplan_wavefront` distance maps, 64
    /// goals at a time to bound memory.
    pub fn lower_bound(&self) -> u64 {
        let mut total = 0;
        for (starts, goals) in self.starts.chunks(64).zip(self.goals.chunks(64)) {
            match distance_maps(&self.grid, goals, Backend::Auto) {
                Ok(maps) => {
                    for (i, &s) in starts.iter().enumerate() {
                        total += u64::from(maps.get(i, s).unwrap_or(0));
                    }
                }
                // Only a failing backend gets here; plain BFS gives the same numbers.
                Err(_) => {
                    let graph = Graph::new(&self.grid);
                    for (&s, &g) in starts.iter().zip(goals) {
                        total += u64::from(graph.bfs(graph.id(g))[graph.id(s) as usize]);
                    }
                }
            }
        }
        total
    }

    /// Starts and goals as graph vertex ids.
    pub(crate) fn vertex_ids(&self, graph: &Graph) -> (Vec<u32>, Vec<u32>) {
        (
            self.starts.iter().map(|&c| graph.id(c)).collect(),
            self.goals.iter().map(|&c| graph.id(c)).collect(),
        )
    }
}

fn check_cell(grid: &Grid, agent: usize, endpoint: Endpoint, cell: Cell) -> Result<(), MapfError> {
    if !grid.contains(cell) {
        return Err(MapfError::OutOfRange {
            agent,
            endpoint,
            cell,
            width: grid.width(),
            height: grid.height(),
        });
    }
    if !grid.is_free(cell) {
        return Err(MapfError::Blocked {
            agent,
            endpoint,
            cell,
        });
    }
    Ok(())
}

/// The solvers index cells with `u32` and keep `u32::MAX` as "no cell".
fn check_size(grid: &Grid) -> Result<(), MapfError> {
    if grid.cell_count() < NONE as usize {
        return Ok(());
    }
    Err(MapfError::Grid(GridError::InvalidSize {
        width: u64::from(grid.width()),
        height: u64::from(grid.height()),
        reason: format!(
            "MAPF solvers index cells with u32: at most {} cells",
            NONE - 1
        ),
    }))
}

fn check_distinct(cells: &[Cell], endpoint: Endpoint) -> Result<(), MapfError> {
    let mut seen: FxHashMap<Cell, usize> = FxHashMap::default();
    for (second, &cell) in cells.iter().enumerate() {
        if let Some(&first) = seen.get(&cell) {
            return Err(MapfError::Duplicate {
                first,
                second,
                endpoint,
                cell,
            });
        }
        seen.insert(cell, second);
    }
    Ok(())
}

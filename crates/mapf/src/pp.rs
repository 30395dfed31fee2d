//! Prioritized planning (Silver 2005, cooperative A*): agents plan one at a time in a fixed
//! order, each avoiding the reserved space-time cells of those before it, and then rest on
//! their goals forever.

use cuplan_grid::{Cell, Grid};
use cuplan_reservations::{MAX_HORIZON, ReservationError, ReservationTable};
use cuplan_wavefront::{SpaceTimeResult, WavefrontError};

use crate::Limit;
use crate::layered::World;
use crate::limit::{Budget, Halt};
use crate::lowlevel::{LowResult, Rules, space_time_astar};
use crate::util::{Deadline, DistTable, FAR, FxHashMap, Graph, MapView, NONE};

/// Sparse space-time reservations of the agents planned so far: vertex reservations, swaps
/// ruled out through "who stood where", agents resting forever on their last cell.
///
/// The same rules as `cuplan_reservations::ReservationTable` with
/// `cuplan_wavefront::space_time_astar` ([`prioritized_wavefront`]); this hash-based table
/// with the A* of [`crate::lowlevel`] needs no horizon; which one is faster depends on the
/// map (see the crate docs).
struct Reservations {
    /// `(cell << 32 | t)` -> agent.
    vertex: FxHashMap<u64, u32>,
    /// Time from which an agent rests on the cell forever (`NONE`: nobody).
    rest_from: Vec<u32>,
    /// One past the last time any reservation touches the cell (0: never, `RESTING`: an
    /// agent rests there forever).
    last_touch: Vec<u32>,
    horizon: u32,
}

impl Reservations {
    fn new(cells: usize) -> Reservations {
        Reservations {
            vertex: FxHashMap::default(),
            rest_from: vec![NONE; cells],
            last_touch: vec![0; cells],
            horizon: 0,
        }
    }

    /// Estimated bytes `reserve(path)` adds: one hash entry (key, agent, control byte and
    /// the table's slack) per state.
    fn bytes_for(path: &[u32]) -> u64 {
        path.len() as u64 * 24
    }

    fn reserve(&mut self, agent: u32, path: &[u32]) {
        for (t, &v) in path.iter().enumerate() {
            self.vertex.insert(key(v, t as u32), agent);
            let touch = &mut self.last_touch[v as usize];
            *touch = (*touch).max(t as u32 + 1);
        }
        if let Some(&last) = path.last() {
            self.rest_from[last as usize] = (path.len() - 1) as u32;
            self.last_touch[last as usize] = RESTING;
        }
        self.horizon = self.horizon.max(path.len() as u32);
    }

    fn occupant(&self, v: u32, t: u32) -> Option<u32> {
        self.vertex.get(&key(v, t)).copied()
    }
}

const RESTING: u32 = u32::MAX;

fn key(v: u32, t: u32) -> u64 {
    (u64::from(v) << 32) | u64::from(t)
}

/// The reservations seen by one agent heading for `goal`.
struct ForAgent<'a> {
    table: &'a Reservations,
    goal: u32,
}

impl Rules for ForAgent<'_> {
    fn vertex_blocked(&self, v: u32, t: u32) -> bool {
        self.table.rest_from[v as usize] <= t || self.table.occupant(v, t).is_some()
    }

    fn edge_blocked(&self, from: u32, to: u32, t: u32) -> bool {
        if from == to || t == 0 {
            return false;
        }
        match self.table.occupant(to, t - 1) {
            Some(other) => self.table.occupant(from, t) == Some(other),
            None => false,
        }
    }

    fn earliest_finish(&self) -> u32 {
        // RESTING (someone rests on this goal forever; impossible with distinct goals) maps
        // to "never", which `prioritized` checks before searching.
        self.table.last_touch[self.goal as usize]
    }

    fn last_rule_time(&self) -> u32 {
        self.table.horizon
    }
}

/// Why PP stopped without a plan.
pub(crate) enum PpFailure {
    /// The agent found no path around the reservations of the agents before it.
    Blocked {
        agent: usize,
        rank: usize,
        why: &'static str,
    },
    /// A limit, or a lower layer's error.
    Halted(Halt),
}

impl From<Limit> for PpFailure {
    fn from(limit: Limit) -> PpFailure {
        PpFailure::Halted(Halt::Limit(limit))
    }
}

/// The reservations' own memory, as named in a [`Limit::Memory`].
const TABLE: &str = "the PP reservation table";

/// Where [`prioritized`] reads each agent's distance map: all built beforehand (a
/// [`DistTable`]) or built a chunk at a time in planning order ([`crate::LazyMaps`]).
pub(crate) trait MapSource {
    /// The distance map of `agent`'s goal, built first if it is not held.
    fn map(&mut self, agent: usize) -> Result<MapView<'_>, Halt>;
}

impl MapSource for DistTable<'_> {
    fn map(&mut self, agent: usize) -> Result<MapView<'_>, Halt> {
        Ok(DistTable::map(self, agent))
    }
}

/// Plans the agents in `order`; returns paths in agent order.
pub(crate) fn prioritized(
    graph: &Graph,
    dist: &mut dyn MapSource,
    starts: &[u32],
    goals: &[u32],
    order: &[usize],
    deadline: Deadline,
    mut budget: Budget,
) -> Result<Vec<Vec<u32>>, PpFailure> {
    budget.charge(TABLE, graph.len() as u64 * 8)?;
    let mut table = Reservations::new(graph.len());
    let mut paths = vec![Vec::new(); starts.len()];
    for (rank, &agent) in order.iter().enumerate() {
        if deadline.passed() {
            return Err(deadline.reached().into());
        }
        let rules = ForAgent {
            table: &table,
            goal: goals[agent],
        };
        if rules.earliest_finish() == RESTING {
            return Err(PpFailure::Blocked {
                agent,
                rank,
                why: "has its goal taken",
            });
        }
        let h = dist.map(agent).map_err(PpFailure::Halted)?;
        match space_time_astar(
            graph,
            starts[agent],
            goals[agent],
            h,
            &rules,
            deadline,
            &budget,
        ) {
            LowResult::Found(path) => {
                budget.charge(TABLE, Reservations::bytes_for(&path))?;
                table.reserve(agent as u32, &path);
                paths[agent] = path;
            }
            LowResult::NoPath => {
                return Err(PpFailure::Blocked {
                    agent,
                    rank,
                    why: "has no path",
                });
            }
            LowResult::Stopped(limit) => return Err(limit.into()),
        }
    }
    Ok(paths)
}

/// The paths planned so far in a dense [`ReservationTable`], kept so the table can be rebuilt
/// with a longer horizon when a search needs one.
struct DenseReservations {
    table: ReservationTable,
    planned: Vec<Vec<Cell>>,
}

impl DenseReservations {
    /// An empty table limited to what `budget` has left.
    fn new(grid: &Grid, horizon: u32, budget: &Budget) -> Result<DenseReservations, Halt> {
        let table = ReservationTable::with_memory_limit(grid, horizon, budget.remaining().into())
            .map_err(|e| refused(e, budget))?;
        Ok(DenseReservations {
            table,
            planned: Vec::new(),
        })
    }

    fn reserve(&mut self, cells: Vec<Cell>, budget: &Budget) -> Result<(), Halt> {
        self.table
            .reserve_path(&cells)
            .map_err(|e| refused(e, budget))?;
        self.planned.push(cells);
        Ok(())
    }

    /// The same reservations over `0..=horizon`, within what `budget` has left while the old
    /// table is still held.
    fn regrow(&mut self, grid: &Grid, horizon: u32, budget: &Budget) -> Result<(), Halt> {
        let mut left = *budget;
        left.charge(TABLE, self.table.bytes() as u64)?;
        let mut table = DenseReservations::new(grid, horizon, &left)?.table;
        for path in &self.planned {
            table.reserve_path(path).map_err(|e| refused(e, &left))?;
        }
        self.table = table;
        Ok(())
    }

    /// A horizon by which every agent that can still be planned arrives: after the last
    /// reserved move only parked agents remain, static obstacles, so a path needs at most one
    /// step per free cell beyond it.
    fn complete_horizon(&self, free_cells: u32) -> u32 {
        let latest = self.table.latest_time().unwrap_or(0);
        latest
            .saturating_add(2)
            .saturating_add(free_cells)
            .min(MAX_HORIZON)
    }
}

/// A reservation table's refusal: its memory limit (the budget's remainder) as a
/// [`Limit::Memory`], anything else (a conflict the search should have avoided) as an error.
fn refused(err: ReservationError, budget: &Budget) -> Halt {
    match err {
        ReservationError::TooLarge { bytes, .. } => Halt::Limit(budget.refused(TABLE, bytes)),
        other => Halt::Error(other.into()),
    }
}

/// A space-time search's refusal: its memory limit as a [`Limit::Memory`], anything else as
/// an error.
fn search_refused(err: WavefrontError, budget: &Budget, table: &ReservationTable) -> Halt {
    match err {
        WavefrontError::TooLarge { what, bytes, .. } => {
            Halt::Limit(budget.refused(what, bytes + table.bytes() as u128))
        }
        other => Halt::Error(other.into()),
    }
}

/// [`prioritized`] on the layered route: each agent is planned with
/// [`cuplan_wavefront::space_time_astar`] against a [`ReservationTable`] of the paths
/// before it. The first horizon (longest distance + agents + 64) fits every plan seen on the
/// benchmark maps; when a search exceeds it the table is rebuilt with twice the horizon, up
/// to [`DenseReservations::complete_horizon`], so a failure is never a horizon artefact.
pub(crate) fn prioritized_wavefront(
    world: &World<'_>,
    dist: &DistTable,
    starts: &[u32],
    goals: &[u32],
    order: &[usize],
    budget: Budget,
) -> Result<Vec<Vec<u32>>, PpFailure> {
    let longest = order
        .iter()
        .map(|&a| dist.get(a, starts[a]))
        .filter(|&d| d != FAR)
        .max()
        .unwrap_or(0);
    let first = longest
        .saturating_add(u32::try_from(starts.len()).unwrap_or(u32::MAX))
        .saturating_add(64)
        .min(MAX_HORIZON);
    plan_layered(world, starts, goals, order, first, budget)
}

/// [`prioritized_wavefront`] from a given first horizon.
fn plan_layered(
    world: &World<'_>,
    starts: &[u32],
    goals: &[u32],
    order: &[usize],
    first: u32,
    budget: Budget,
) -> Result<Vec<Vec<u32>>, PpFailure> {
    let free_cells = world.graph.free_count();
    let mut table =
        DenseReservations::new(world.grid, first, &budget).map_err(PpFailure::Halted)?;
    let mut paths = vec![Vec::new(); starts.len()];
    for (rank, &agent) in order.iter().enumerate() {
        let blocked = |why| PpFailure::Blocked { agent, rank, why };
        loop {
            if world.deadline.passed() {
                return Err(world.deadline.reached().into());
            }
            let mut query = world
                .query(agent, starts[agent], goals[agent])
                .with_table(&table.table);
            // The search's stored planes share the budget with the table.
            query.max_bytes =
                u128::from(budget.remaining()).saturating_sub(table.table.bytes() as u128);
            let result = cuplan_wavefront::space_time_astar(world.grid, &query)
                .map_err(|e| PpFailure::Halted(search_refused(e, &budget, &table.table)))?;
            match result {
                SpaceTimeResult::Found(path) => {
                    paths[agent] = world.ids(&path);
                    table
                        .reserve(path.cells, &budget)
                        .map_err(PpFailure::Halted)?;
                    break;
                }
                SpaceTimeResult::HorizonExceeded => {
                    let (now, cap) = (table.table.horizon(), table.complete_horizon(free_cells));
                    if now >= cap {
                        return Err(blocked("has no path"));
                    }
                    table
                        .regrow(world.grid, now.saturating_mul(2).min(cap), &budget)
                        .map_err(PpFailure::Halted)?;
                }
                SpaceTimeResult::Unreachable => {
                    let goal = world.graph.cell(goals[agent]);
                    return Err(blocked(if table.table.parked_since(goal).is_some() {
                        "has its goal taken"
                    } else {
                        "has no path"
                    }));
                }
                SpaceTimeResult::TimedOut => return Err(world.deadline.reached().into()),
            }
        }
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    //! The horizon regrowth of [`plan_layered`], which the benchmark maps never need: started
    //! from horizon 1 every plan must regrow the table, and the plans must still validate.

    use std::sync::Arc;

    use cuplan_grid::{Cell, Grid};
    use cuplan_wavefront::{Backend, distance_maps};

    use super::*;
    use crate::util::Rng;
    use crate::{Instance, from_paths};

    #[test]
    fn plans_validate_when_the_horizon_must_grow() {
        let mut solved = 0;
        for seed in 0..200u64 {
            let mut rng = Rng::new(seed);
            let mut grid = Grid::open(7, 5).unwrap();
            for _ in 0..6 {
                let cell = Cell::new(rng.below(7) as u32, rng.below(5) as u32);
                grid.set_blocked(cell).unwrap();
            }
            let mut free: Vec<Cell> = (0..5)
                .flat_map(|y| (0..7).map(move |x| Cell::new(x, y)))
                .filter(|&c| grid.is_free(c))
                .collect();
            rng.shuffle(&mut free);
            let agents = 2 + rng.below(4);
            let (starts, goals) = (free[..agents].to_vec(), free[agents..2 * agents].to_vec());
            let Ok(instance) = Instance::new(Arc::new(grid), starts, goals) else {
                continue; // a goal not reachable from its start
            };
            let graph = Graph::new(instance.grid());
            let (starts, goals) = instance.vertex_ids(&graph);
            let maps = [distance_maps(instance.grid(), instance.goals(), Backend::Cpu).unwrap()];
            let budget = Budget::new(crate::DEFAULT_MEMORY_LIMIT);
            let deadline = Deadline::after(std::time::Duration::from_secs(20));
            let world = World::new(instance.grid(), &graph, &maps, deadline);
            let order: Vec<usize> = (0..agents).collect();
            match plan_layered(&world, &starts, &goals, &order, 1, budget) {
                Ok(paths) => {
                    let solution = from_paths(&graph, paths);
                    assert_eq!(solution.validate(&instance), Ok(()), "seed {seed}");
                    solved += 1;
                }
                Err(PpFailure::Blocked { .. }) => {}
                Err(PpFailure::Halted(halt)) => panic!("seed {seed} stopped: {halt:?}"),
            }
        }
        assert!(solved > 50, "only {solved} instances planned");
    }
}

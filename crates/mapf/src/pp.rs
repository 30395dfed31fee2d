//! Prioritized planning (Silver 2005, cooperative A*): agents plan one at a time in a fixed
//! order, each avoiding the reserved space-time cells of those before it, and then rest on
//! their goals forever.

use crate::lowlevel::{LowResult, Rules, space_time_astar};
use crate::util::{Deadline, DistTable, FxHashMap, Graph, NONE};

/// Sparse space-time reservations of the agents planned so far: vertex reservations, swaps
/// ruled out through "who stood where", agents resting forever on their last cell.
///
/// The same rules as `cuplan_reservations::ReservationTable` with
/// `cuplan_wavefront::space_time_search`; this hash-based table with the A* of
/// [`crate::lowlevel`] measured 2-3x faster for PP (den520d, 128-500 agents) and needs no
/// horizon, so PP's failures are real, never horizon artefacts.
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
    TimedOut,
}

/// Plans the agents in `order`; returns paths in agent order.
pub(crate) fn prioritized(
    graph: &Graph,
    dist: &DistTable,
    starts: &[u32],
    goals: &[u32],
    order: &[usize],
    deadline: Deadline,
) -> Result<Vec<Vec<u32>>, PpFailure> {
    let mut table = Reservations::new(graph.len());
    let mut paths = vec![Vec::new(); starts.len()];
    for (rank, &agent) in order.iter().enumerate() {
        if deadline.passed() {
            return Err(PpFailure::TimedOut);
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
        match space_time_astar(
            graph,
            starts[agent],
            goals[agent],
            dist.map(agent),
            &rules,
            deadline,
        ) {
            LowResult::Found(path) => {
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
            LowResult::TimedOut => return Err(PpFailure::TimedOut),
        }
    }
    Ok(paths)
}

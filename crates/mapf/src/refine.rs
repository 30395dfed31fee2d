//! Anytime refinement of a MAPF solution by large neighbourhood search (MAPF-LNS, Li et al.,
//! IJCAI 2021; the refiners of lacam3): repeatedly take a few agents out, replan them one by
//! one with the space-time A* against everybody else's paths, and keep the new paths when
//! their sum of costs is smaller.
//!
//! Every accepted step keeps the plan valid (each replanned path avoids the vertex, swap and
//! resting cells of every other path, exactly PP's rules) and strictly lowers the sum of
//! costs, so the refined solution is never worse than the one it started from.

use crate::limit::Budget;
use crate::lowlevel::{LowResult, Rules, STATE_BYTES, space_time_astar};
use crate::util::{Deadline, DistTable, Graph, NONE, Rng};

/// Agents replanned per step (MAPF-LNS's default neighbourhood size).
const NEIGHBOURHOOD: usize = 8;

/// How fast the choice between neighbourhood kinds follows their recent success (ALNS's
/// reaction factor, as in MAPF-LNS).
const REACTION: f64 = 0.01;

/// Every agent's path, indexed for the rules a replanned agent must obey.
///
/// Who stands where is kept per cell as a list sorted by time rather than in one hash map
/// keyed by `(cell, time)`: 8 bytes a state instead of ~32, which is what lets 10,000 agents'
/// plans (millions of states) be refined within a tight memory budget, and a lookup is a
/// short binary search in one small list.
pub(crate) struct PathTable {
    /// Cell -> `(t, agent)` for every agent standing there at `t`, sorted by `t` (a valid
    /// plan has at most one agent per cell and time).
    visits: Vec<Vec<(u32, u32)>>,
    /// The time from which an agent rests on the cell for good (`NONE`: nobody).
    rest_from: Vec<u32>,
    /// Agent -> the cell it must end on.
    goals: Vec<u32>,
    /// Cell -> the agent whose goal it is (`NONE`: nobody's).
    goal_of: Vec<u32>,
    /// Agent -> the times other agents stand on its goal (unsorted, with repeats).
    goal_visits: Vec<Vec<u32>>,
}

impl PathTable {
    /// The table of `paths` (a valid plan) on a graph of `cells` cells.
    pub(crate) fn new(cells: usize, goals: &[u32], paths: &[Vec<u32>]) -> PathTable {
        let mut goal_of = vec![NONE; cells];
        for (a, &g) in goals.iter().enumerate() {
            goal_of[g as usize] = a as u32;
        }
        let mut table = PathTable {
            visits: vec![Vec::new(); cells],
            rest_from: vec![NONE; cells],
            goals: goals.to_vec(),
            goal_of,
            goal_visits: vec![Vec::new(); goals.len()],
        };
        // Appended unsorted, then sorted once per cell: cheaper than sorted inserts.
        for (a, path) in paths.iter().enumerate() {
            for (t, &v) in path.iter().enumerate() {
                table.visits[v as usize].push((t as u32, a as u32));
            }
            table.note_goals_and_rest(a as u32, path);
        }
        for list in &mut table.visits {
            list.sort_unstable();
        }
        table
    }

    /// Estimated bytes of the table of `states` path states on `cells` cells (list headers,
    /// entries with growth slack, a visit, the per-cell arrays).
    pub(crate) fn bytes_for(cells: usize, states: u64) -> u64 {
        states * 20 + cells as u64 * 32
    }

    pub(crate) fn insert(&mut self, agent: u32, path: &[u32]) {
        for (t, &v) in path.iter().enumerate() {
            let list = &mut self.visits[v as usize];
            match list.binary_search_by_key(&(t as u32), |&(s, _)| s) {
                Ok(i) => list[i].1 = agent,
                Err(i) => list.insert(i, (t as u32, agent)),
            }
        }
        self.note_goals_and_rest(agent, path);
    }

    fn note_goals_and_rest(&mut self, agent: u32, path: &[u32]) {
        for (t, &v) in path.iter().enumerate() {
            let owner = self.goal_of[v as usize];
            if owner != NONE && owner != agent {
                self.goal_visits[owner as usize].push(t as u32);
            }
        }
        if let Some(&last) = path.last() {
            self.rest_from[last as usize] = (path.len() - 1) as u32;
        }
    }

    pub(crate) fn remove(&mut self, agent: u32, path: &[u32]) {
        for (t, &v) in path.iter().enumerate() {
            let list = &mut self.visits[v as usize];
            if let Ok(i) = list.binary_search_by_key(&(t as u32), |&(s, _)| s) {
                list.remove(i);
            }
            let owner = self.goal_of[v as usize];
            if owner != NONE && owner != agent {
                let visits = &mut self.goal_visits[owner as usize];
                if let Some(at) = visits.iter().position(|&s| s == t as u32) {
                    visits.swap_remove(at);
                }
            }
        }
        if let Some(&last) = path.last() {
            self.rest_from[last as usize] = NONE;
        }
    }

    fn occupant(&self, v: u32, t: u32) -> Option<u32> {
        let list = &self.visits[v as usize];
        list.binary_search_by_key(&t, |&(s, _)| s)
            .ok()
            .map(|i| list[i].1)
    }
}

/// The table as seen by one agent being replanned.
struct ForAgent<'a> {
    table: &'a PathTable,
    agent: u32,
    horizon: u32,
    /// The latest arrival that can still make the step an improvement.
    latest: u32,
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
        self.table.goal_visits[self.agent as usize]
            .iter()
            .max()
            .map_or(0, |&t| t + 1)
    }

    fn latest_finish(&self) -> u32 {
        self.latest
    }

    fn last_rule_time(&self) -> u32 {
        self.horizon
    }
}

/// The most states one replanning search may hold: a step is optional, so a search that
/// would have to sweep a large part of space-time (an agent waiting long for its goal to
/// clear) is given up as a failed step rather than allowed to eat the time limit. Measured
/// (400 agents, 5 s, random-1 scen; SoC / LB): 2^12 states warehouse-10-20-10-2-1 1.64,
/// random-64-64-10 1.05, den520d 1.08; 2^14 1.40 / 1.05 / 1.06; 2^16 1.68 / 1.05 / 1.05.
const SEARCH_STATES: u64 = 1 << 14;

/// The memory of one capped replanning search.
pub(crate) const SEARCH_BYTES: u64 = SEARCH_STATES * STATE_BYTES;

/// The kinds of neighbourhood, chosen adaptively by their recent improvement per agent.
#[derive(Clone, Copy)]
enum Kind {
    /// A delayed agent and the agents standing on its shortest route when it would be there.
    Blockers,
    /// Agents drawn uniformly.
    Random,
}

const KINDS: [Kind; 2] = [Kind::Blockers, Kind::Random];

/// The state of one LNS run over a valid solution.
pub(crate) struct Lns<'a> {
    graph: &'a Graph,
    dist: &'a DistTable<'a>,
    starts: &'a [u32],
    /// `paths[a]` ends at `a`'s final arrival on its goal.
    paths: Vec<Vec<u32>>,
    table: PathTable,
    soc: u64,
    rng: Rng,
    weights: [f64; KINDS.len()],
    /// Agents chosen as the delayed agent recently (MAPF-LNS's tabu list), cleared when
    /// every delayed agent has had its turn.
    tabu: Vec<bool>,
}

/// The cost of a path that ends at its final arrival.
fn cost(path: &[u32]) -> u64 {
    path.len().saturating_sub(1) as u64
}

/// What one step of LNS did.
pub(crate) enum Step {
    /// The sum of costs dropped ([`Lns::soc`] has the new one).
    Improved,
    /// Nothing better found this time.
    Kept,
    /// The deadline passed or a search would not fit the budget: stop refining.
    Stop,
}

impl<'a> Lns<'a> {
    /// `paths[a]` must be a valid solution with every path cut after its final arrival.
    pub(crate) fn new(
        graph: &'a Graph,
        dist: &'a DistTable<'a>,
        starts: &'a [u32],
        goals: &[u32],
        paths: Vec<Vec<u32>>,
        seed: u64,
    ) -> Lns<'a> {
        let table = PathTable::new(graph.len(), goals, &paths);
        let soc = paths.iter().map(|p| cost(p)).sum();
        Lns {
            graph,
            dist,
            starts,
            tabu: vec![false; paths.len()],
            paths,
            table,
            soc,
            rng: Rng::new(seed),
            weights: [1.0; KINDS.len()],
        }
    }

    pub(crate) fn soc(&self) -> u64 {
        self.soc
    }

    pub(crate) fn paths(&self) -> &[Vec<u32>] {
        &self.paths
    }

    /// One destroy-and-repair step.
    pub(crate) fn step(&mut self, deadline: Deadline, budget: &Budget) -> Step {
        let agents = self.paths.len();
        if agents < 2 {
            return Step::Stop;
        }
        let kind = self.pick_kind();
        let mut subset = match KINDS[kind] {
            Kind::Blockers => self.blockers(),
            Kind::Random => Vec::new(),
        };
        self.fill_randomly(&mut subset, NEIGHBOURHOOD.min(agents));
        self.rng.shuffle(&mut subset);
        let old: u64 = subset.iter().map(|&a| cost(&self.paths[a as usize])).sum();
        let outcome = self.replan(&subset, old, deadline, budget);
        let gain = match outcome {
            Some(new) => old - new,
            None => 0,
        };
        self.weights[kind] =
            REACTION * gain as f64 / subset.len() as f64 + (1.0 - REACTION) * self.weights[kind];
        if deadline.passed() {
            return Step::Stop;
        }
        match outcome {
            Some(_) => Step::Improved,
            None => Step::Kept,
        }
    }

    fn pick_kind(&mut self) -> usize {
        let total: f64 = self.weights.iter().sum();
        let mut r = f64::from(self.rng.next_f32()) * total;
        for (k, &w) in self.weights.iter().enumerate() {
            if r < w {
                return k;
            }
            r -= w;
        }
        KINDS.len() - 1
    }

    fn delay(&self, a: usize) -> u64 {
        cost(&self.paths[a]) - u64::from(self.dist.get(a, self.starts[a]))
    }

    /// The most delayed agent not tried lately, with the agents that stand on its shortest
    /// route at the times it would pass (they are what delays it).
    fn blockers(&mut self) -> Vec<u32> {
        let agents = self.paths.len();
        let mut pick = None;
        let mut most = (0, 0);
        for a in (0..agents).filter(|&a| !self.tabu[a]) {
            // Random low bits break ties between equally delayed agents.
            let key = (self.delay(a), self.rng.next_u64() >> 48);
            if key.0 > 0 && key > most {
                (pick, most) = (Some(a), key);
            }
        }
        let Some(a) = pick else {
            self.tabu.iter_mut().for_each(|t| *t = false);
            return Vec::new();
        };
        self.tabu[a] = true;
        let mut subset = vec![a as u32];
        let mut v = self.starts[a];
        let mut t = 0u32;
        while subset.len() < NEIGHBOURHOOD {
            for when in [t, t + 1] {
                if let Some(other) = self.table.occupant(v, when)
                    && !subset.contains(&other)
                    && subset.len() < NEIGHBOURHOOD
                {
                    subset.push(other);
                }
            }
            let here = self.dist.get(a, v);
            if here == 0 {
                break;
            }
            let mut closer: Vec<u32> = self
                .graph
                .neighbours(v)
                .filter(|&u| self.dist.get(a, u) < here)
                .collect();
            self.rng.shuffle(&mut closer);
            v = closer[0];
            t += 1;
        }
        subset
    }

    fn fill_randomly(&mut self, subset: &mut Vec<u32>, size: usize) {
        while subset.len() < size {
            let a = self.rng.below(self.paths.len()) as u32;
            if !subset.contains(&a) {
                subset.push(a);
            }
        }
    }

    /// Replans `subset` in order against everyone else; keeps the new paths and returns
    /// their cost when it is below `old`, and otherwise puts the old paths back.
    fn replan(
        &mut self,
        subset: &[u32],
        old: u64,
        deadline: Deadline,
        budget: &Budget,
    ) -> Option<u64> {
        for &a in subset {
            self.table.remove(a, &self.paths[a as usize]);
        }
        let mut horizon = self.paths.iter().map(|p| p.len() as u32).max().unwrap_or(0);
        let mut fresh: Vec<Vec<u32>> = Vec::with_capacity(subset.len());
        let mut spent = 0u64;
        let mut left: u64 = subset
            .iter()
            .map(|&a| u64::from(self.dist.get(a as usize, self.starts[a as usize])))
            .sum();
        let mut ok = true;
        let search_budget = budget.capped(SEARCH_BYTES);
        for &a in subset {
            let agent = a as usize;
            left -= u64::from(self.dist.get(agent, self.starts[agent]));
            // Arriving later than this cannot beat `old` even if the rest go straight home.
            let Some(latest) = old.checked_sub(spent + left + 1) else {
                ok = false;
                break;
            };
            let rules = ForAgent {
                table: &self.table,
                agent: a,
                horizon,
                latest: u32::try_from(latest).unwrap_or(u32::MAX),
            };
            let goal = self.table.goals[agent];
            let found = space_time_astar(
                self.graph,
                self.starts[agent],
                goal,
                self.dist.map(agent),
                &rules,
                deadline,
                &search_budget,
            );
            let LowResult::Found(path) = found else {
                ok = false;
                break;
            };
            spent += cost(&path);
            // Later agents of the subset must see this path's times as rules too.
            horizon = horizon.max(path.len() as u32);
            self.table.insert(a, &path);
            fresh.push(path);
        }
        if ok {
            for (&a, path) in subset.iter().zip(fresh) {
                self.paths[a as usize] = path;
            }
            self.soc = self.soc - old + spent;
            return Some(spent);
        }
        for (&a, path) in subset.iter().zip(&fresh) {
            self.table.remove(a, path);
        }
        for &a in subset {
            self.table.insert(a, &self.paths[a as usize]);
        }
        None
    }
}

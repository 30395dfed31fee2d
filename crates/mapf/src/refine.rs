//! Anytime refinement of a MAPF solution by large neighbourhood search (MAPF-LNS, Li et al.,
//! IJCAI 2021; the refiners of lacam3): repeatedly take a few agents out, replan them one by
//! one with the space-time A* against everybody else's paths, and keep the new paths when
//! their sum of costs is no larger (as lacam3's refiner does: equal-cost moves let the search
//! drift across plateaus; measured at 1,000 agents, 10 s, SoC / LB ost003d 1.3386 -> 1.3278,
//! random-64-64-10 1.2766 -> 1.2662).
//!
//! Every accepted step keeps the plan valid (each replanned path avoids the vertex, swap and
//! resting cells of every other path, exactly PP's rules) and never raises the sum of costs,
//! so the refined solution is never worse than the one it started from.

use crate::limit::Budget;
use crate::lowlevel::{LowResult, Rules, STATE_BYTES, space_time_astar};
use crate::util::{Deadline, DistTable, Graph, NONE, Rng};

/// Agents replanned per step, chosen adaptively with the kind of neighbourhood. MAPF-LNS's
/// default is 8; measured at 1,000 agents (10 s, SoC / LB), fixed sizes favour different
/// maps (3 agents: ost003d 1.3288, lak303d 1.4307, random-64-64-10 1.3346; 8 agents: 1.3587,
/// 1.4377, 1.2741; 16 or more found nearly nothing), and among the adaptive sets tried
/// (with equal-cost moves) {1, 2, 4} gave 1.3213 / 1.4220 / 1.2534, {2, 4, 8} 1.3278 /
/// 1.4348 / 1.2662 and {1, 2, 4, 8} 1.3250 / 1.4303 / 1.2446 (see BENCHMARKS).
const SIZES: [usize; 3] = [1, 2, 4];

/// The choices of one step: a kind of neighbourhood and its size.
const ARMS: usize = KINDS.len() * SIZES.len();

/// How fast the choice of arm (kind and size of neighbourhood) follows the arms' recent
/// success (ALNS's reaction factor, as in MAPF-LNS).
const REACTION: f64 = 0.01;

/// Every agent's path, indexed for the rules a replanned agent must obey.
///
/// Who stands where is kept per cell as a list sorted by time rather than in one hash map
/// keyed by `(cell, time)`: 8 bytes a state instead of ~32, which is what lets 10,000 agents'
/// plans (millions of states) be refined within a tight memory budget, and a lookup is a
/// short binary search in one small list. Beside it one bit per cell and time says whether
/// anybody stands there at all, so most lookups of a search (free cells) skip the search.
pub(crate) struct PathTable {
    /// Cell -> `(t, agent)` for every agent standing there at `t`, sorted by `t` (a valid
    /// plan has at most one agent per cell and time).
    visits: Vec<Vec<(u32, u32)>>,
    /// Whether `visits` has an entry for a cell and time, for the times it covers.
    occupied: Occupancy,
    /// The time from which an agent rests on the cell for good (`NONE`: nobody).
    rest_from: Vec<u32>,
    /// Agent -> the cell it must end on.
    goals: Vec<u32>,
    /// Cell -> the agent whose goal it is (`NONE`: nobody's).
    goal_of: Vec<u32>,
    /// Agent -> the times other agents stand on its goal (unsorted, with repeats).
    goal_visits: Vec<Vec<u32>>,
}

/// One bit per cell and time, times below `times` only, time-major: a search's successors
/// are neighbouring cells at one time, so their bits are near each other.
struct Occupancy {
    words: Vec<u64>,
    /// Words per time.
    stride: usize,
    times: u32,
}

impl Occupancy {
    fn new(cells: usize, times: u32) -> Occupancy {
        let stride = cells.div_ceil(64);
        Occupancy {
            words: vec![0; stride * times as usize],
            stride,
            times,
        }
    }

    fn bytes_for(cells: usize, times: u32) -> u64 {
        cells.div_ceil(64) as u64 * 8 * u64::from(times)
    }

    /// Whether somebody stands on `v` at `t`; `None` for a time the bits do not cover.
    #[inline]
    fn get(&self, v: u32, t: u32) -> Option<bool> {
        (t < self.times).then(|| {
            let i = t as usize * self.stride + v as usize / 64;
            self.words[i] >> (v % 64) & 1 == 1
        })
    }

    #[inline]
    fn set(&mut self, v: u32, t: u32, occupied: bool) {
        if t < self.times {
            let word = &mut self.words[t as usize * self.stride + v as usize / 64];
            let bit = 1u64 << (v % 64);
            if occupied {
                *word |= bit
            } else {
                *word &= !bit
            }
        }
    }
}

impl PathTable {
    /// The table of `paths` (a valid plan) on a graph of `cells` cells, with occupancy bits
    /// for the times below `times` (later times are looked up in the lists alone).
    pub(crate) fn new(cells: usize, goals: &[u32], paths: &[Vec<u32>], times: u32) -> PathTable {
        let mut goal_of = vec![NONE; cells];
        for (a, &g) in goals.iter().enumerate() {
            goal_of[g as usize] = a as u32;
        }
        let mut table = PathTable {
            visits: vec![Vec::new(); cells],
            occupied: Occupancy::new(cells, times),
            rest_from: vec![NONE; cells],
            goals: goals.to_vec(),
            goal_of,
            goal_visits: vec![Vec::new(); goals.len()],
        };
        // Appended unsorted, then sorted once per cell: cheaper than sorted inserts.
        for (a, path) in paths.iter().enumerate() {
            for (t, &v) in path.iter().enumerate() {
                table.visits[v as usize].push((t as u32, a as u32));
                table.occupied.set(v, t as u32, true);
            }
            table.note_goals_and_rest(a as u32, path);
        }
        for list in &mut table.visits {
            list.sort_unstable();
        }
        table
    }

    /// Estimated bytes of the table of `states` path states on `cells` cells (list headers,
    /// entries with growth slack, a visit, the per-cell arrays, the occupancy bits of
    /// `times` times).
    pub(crate) fn bytes_for(cells: usize, states: u64, times: u32) -> u64 {
        states * 20 + cells as u64 * 32 + Occupancy::bytes_for(cells, times)
    }

    /// The times a table for `paths` covers with occupancy bits: twice the longest path,
    /// room for the longer paths refinement may find.
    pub(crate) fn times_for(paths: &[Vec<u32>]) -> u32 {
        let longest = paths.iter().map(Vec::len).max().unwrap_or(0);
        u32::try_from(2 * longest).unwrap_or(u32::MAX)
    }

    pub(crate) fn insert(&mut self, agent: u32, path: &[u32]) {
        for (t, &v) in path.iter().enumerate() {
            self.occupied.set(v, t as u32, true);
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
                self.occupied.set(v, t as u32, false);
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

    /// Whether anybody stands on `v` at `t`: the bit where one covers `t`, else the list.
    fn is_occupied(&self, v: u32, t: u32) -> bool {
        (self.occupied.get(v, t)).unwrap_or_else(|| self.occupant(v, t).is_some())
    }

    fn occupant(&self, v: u32, t: u32) -> Option<u32> {
        if self.occupied.get(v, t) == Some(false) {
            return None;
        }
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
        self.table.rest_from[v as usize] <= t || self.table.is_occupied(v, t)
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
    /// Each arm's (`kind * SIZES.len() + size`) recent improvement per replanned agent.
    weights: [f64; ARMS],
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
    /// Nothing better found this time (the plan may have changed at equal cost).
    Kept,
    /// The deadline passed or a search would not fit the budget: stop refining.
    Stop,
}

impl<'a> Lns<'a> {
    /// `paths[a]` must be a valid solution with every path cut after its final arrival;
    /// `times` as for [`PathTable::new`].
    pub(crate) fn new(
        graph: &'a Graph,
        dist: &'a DistTable<'a>,
        starts: &'a [u32],
        goals: &[u32],
        paths: Vec<Vec<u32>>,
        times: u32,
        seed: u64,
    ) -> Lns<'a> {
        let table = PathTable::new(graph.len(), goals, &paths, times);
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
            weights: [1.0; ARMS],
        }
    }

    pub(crate) fn soc(&self) -> u64 {
        self.soc
    }

    pub(crate) fn paths(&self) -> &[Vec<u32>] {
        &self.paths
    }

    /// `(agent, path)` for every agent whose path in `paths` (a valid solution for the same
    /// agents) differs from this run's: what [`Lns::adopt`] needs to switch to `paths`.
    pub(crate) fn changes_to(&self, paths: &[Vec<u32>]) -> Vec<(u32, Vec<u32>)> {
        self.paths
            .iter()
            .zip(paths)
            .enumerate()
            .filter(|(_, (mine, theirs))| mine != theirs)
            .map(|(a, (_, theirs))| (a as u32, theirs.clone()))
            .collect()
    }

    /// Goes on from another solution, given as its [`Lns::changes_to`] from this run's:
    /// only the changed paths are re-indexed (another worker's improvement changes a few).
    /// What the choice of neighbourhoods has learnt is kept for a solution near this one and
    /// forgotten for a new one (most paths changed: LaCAM*'s), as a fresh run would.
    pub(crate) fn adopt(&mut self, changes: Vec<(u32, Vec<u32>)>) {
        if 2 * changes.len() > self.paths.len() {
            self.weights = [1.0; ARMS];
            self.tabu.iter_mut().for_each(|t| *t = false);
        }
        // Every old path leaves before any new one enters: a new path may use the cells and
        // times of another agent's old one.
        for (a, _) in &changes {
            self.table.remove(*a, &self.paths[*a as usize]);
        }
        for (a, path) in changes {
            self.table.insert(a, &path);
            self.paths[a as usize] = path;
        }
        self.soc = self.paths.iter().map(|p| cost(p)).sum();
    }

    /// One destroy-and-repair step.
    pub(crate) fn step(&mut self, deadline: Deadline, budget: &Budget) -> Step {
        let agents = self.paths.len();
        if agents < 2 {
            return Step::Stop;
        }
        let arm = self.pick_arm();
        let size = SIZES[arm % SIZES.len()].min(agents);
        let mut subset = match KINDS[arm / SIZES.len()] {
            Kind::Blockers => self.blockers(size),
            Kind::Random => Vec::new(),
        };
        self.fill_randomly(&mut subset, size);
        self.rng.shuffle(&mut subset);
        let old: u64 = subset.iter().map(|&a| cost(&self.paths[a as usize])).sum();
        let outcome = self.replan(&subset, old, deadline, budget);
        let gain = match outcome {
            Some(new) => old - new,
            None => 0,
        };
        self.weights[arm] =
            REACTION * gain as f64 / subset.len() as f64 + (1.0 - REACTION) * self.weights[arm];
        if deadline.passed() {
            return Step::Stop;
        }
        match outcome {
            Some(new) if new < old => Step::Improved,
            Some(_) | None => Step::Kept,
        }
    }

    fn pick_arm(&mut self) -> usize {
        let total: f64 = self.weights.iter().sum();
        let mut r = f64::from(self.rng.next_f32()) * total;
        for (k, &w) in self.weights.iter().enumerate() {
            if r < w {
                return k;
            }
            r -= w;
        }
        ARMS - 1
    }

    fn delay(&self, a: usize) -> u64 {
        cost(&self.paths[a]) - u64::from(self.dist.get(a, self.starts[a]))
    }

    /// The most delayed agent not tried lately, with up to `size - 1` agents that stand on
    /// its shortest route at the times it would pass (they are what delays it).
    fn blockers(&mut self, size: usize) -> Vec<u32> {
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
        while subset.len() < size {
            for when in [t, t + 1] {
                if let Some(other) = self.table.occupant(v, when)
                    && !subset.contains(&other)
                    && subset.len() < size
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
    /// their cost when it is at most `old`, and otherwise puts the old paths back.
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
            // Arriving later than this cannot match `old` even if the rest go straight home.
            let Some(latest) = old.checked_sub(spent + left) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The occupancy bits agree with the visit lists through inserts and removals, for times
    /// they cover and past them (where the lists alone answer).
    #[test]
    fn occupancy_bits_follow_the_visit_lists() {
        let cells = 70; // more than one word per time
        let goals = [69, 0, 35];
        let paths = vec![
            vec![1, 2, 3, 69],
            vec![64, 65, 65, 0],
            vec![40, 39, 38, 37, 36, 35],
        ];
        let mut table = PathTable::new(cells, &goals, &paths, 4);
        let mut rng = Rng::new(5);
        let mut extra: Vec<Vec<u32>> = Vec::new();
        for round in 0..200 {
            if round % 3 == 2 && !extra.is_empty() {
                let path = extra.swap_remove(rng.below(extra.len()));
                table.remove(3, &path);
            } else {
                // Agent 3 walks cells no listed path uses at those times.
                let len = 1 + rng.below(8);
                let path: Vec<u32> = (0..len).map(|_| 5 + rng.below(30) as u32).collect();
                let clash = (0..len).any(|t| table.occupant(path[t], t as u32).is_some());
                if !clash {
                    table.insert(3, &path);
                    extra.push(path);
                }
            }
            for v in 0..cells as u32 {
                for t in 0..10u32 {
                    let listed = table.visits[v as usize].iter().any(|&(s, _)| s == t);
                    match table.occupied.get(v, t) {
                        Some(bit) => assert_eq!(bit, listed, "cell {v} time {t}"),
                        None => assert!(t >= 4),
                    }
                    assert_eq!(table.occupant(v, t).is_some(), listed, "cell {v} time {t}");
                    assert_eq!(table.is_occupied(v, t), listed, "cell {v} time {t}");
                }
            }
        }
        assert!(table.occupant(69, 3) == Some(0) && table.occupant(35, 5) == Some(2));
    }

    /// One cell's visits, occupancy per time and resting time.
    type CellContents = (Vec<(u32, u32)>, Vec<bool>, u32);

    /// Everything a table says about the cells and times `0..times`, comparable.
    fn contents(table: &PathTable, times: u32) -> Vec<CellContents> {
        (0..table.visits.len() as u32)
            .map(|v| {
                let bits = (0..times).map(|t| table.is_occupied(v, t)).collect();
                (
                    table.visits[v as usize].clone(),
                    bits,
                    table.rest_from[v as usize],
                )
            })
            .collect()
    }

    /// A run that adopts another's solution (most paths changed, then a few) indexes it
    /// exactly as a fresh table of that solution would.
    #[test]
    fn an_adopted_solution_is_indexed_as_a_fresh_table() {
        use cuplan_grid::{Cell, Grid};
        use cuplan_wavefront::{Backend, DistanceMaps};

        use crate::util::{CompactMaps, Distances};

        let grid = Grid::from_ascii(&"..........\n".repeat(6)).unwrap();
        let graph = Graph::new(&grid);
        let agents = 6u32;
        let id = |x, y| graph.id(Cell::new(x, y));
        let starts: Vec<u32> = (0..agents).map(|y| id(0, y)).collect();
        let goal_cells: Vec<Cell> = (0..agents).map(|y| Cell::new(9, agents - 1 - y)).collect();
        let goals: Vec<u32> = goal_cells.iter().map(|&c| graph.id(c)).collect();
        let maps = DistanceMaps::<u16>::build(&grid, &goal_cells, Backend::Cpu).unwrap();
        let mut compact = CompactMaps::new(&graph, goals.len());
        compact.push(&graph, &maps).unwrap();
        let distances = Distances::Narrow(compact);
        let dist = DistTable::new(&distances, &graph).unwrap();
        // One agent after the other (20 steps apart, each walk shorter): along its row to
        // column 8, down or up it to the goal's row, into column 9. Valid, and improvable.
        let paths: Vec<Vec<u32>> = (0..agents)
            .map(|y| {
                let to = agents - 1 - y;
                let mut path = vec![id(0, y); 20 * y as usize];
                path.extend((0..=8).map(|x| id(x, y)));
                let rows: Vec<u32> = match y < to {
                    true => (y + 1..=to).collect(),
                    false => (to..y).rev().collect(),
                };
                path.extend(rows.into_iter().map(|r| id(8, r)));
                path.push(id(9, to));
                path
            })
            .collect();
        let times = PathTable::times_for(&paths);
        let run = |seed| Lns::new(&graph, &dist, &starts, &goals, paths.clone(), times, seed);
        let (mut a, mut b) = (run(1), run(2));
        let deadline = Deadline::after(std::time::Duration::from_secs(10));
        let budget = Budget::new(u64::MAX);
        let mut adoptions = 0;
        for round in 0..40 {
            for _ in 0..1 + round % 3 {
                b.step(deadline, &budget);
            }
            let changes = a.changes_to(b.paths());
            adoptions += usize::from(!changes.is_empty());
            a.adopt(changes);
            assert_eq!(a.paths(), b.paths());
            assert_eq!(a.soc(), b.soc());
            let fresh = PathTable::new(graph.len(), &goals, b.paths(), times);
            let (mine, theirs) = (contents(&a.table, times + 3), contents(&fresh, times + 3));
            if let Some(v) = (0..mine.len()).find(|&v| mine[v] != theirs[v]) {
                panic!("round {round}: cell {v} is indexed differently after adopting");
            }
            let sorted = |t: &PathTable| -> Vec<Vec<u32>> {
                let mut visits = t.goal_visits.clone();
                visits.iter_mut().for_each(|v| v.sort_unstable());
                visits
            };
            assert_eq!(sorted(&a.table), sorted(&fresh));
            a.step(deadline, &budget);
        }
        assert!(
            adoptions >= 5,
            "the runs never diverged ({adoptions} adoptions)"
        );
        assert!(
            b.soc() < paths.iter().map(|p| cost(p)).sum(),
            "nothing improved"
        );
    }
}

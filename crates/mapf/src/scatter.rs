//! Space-utilisation optimisation (SUO, Okumura AAMAS 2024, lacam3's "scatter"): before the
//! anytime search, every agent gets a spatial path to its goal that is at most `margin`
//! longer than its shortest and, among those, collides least with everyone else's, found by
//! a few rounds of single-agent searches in random order. PIBT then prefers the next cell of
//! an agent's path while the agent stands on it, which spreads a crowd over parallel
//! corridors instead of sending everyone down the same shortest one.
//!
//! The paths are hints only: PIBT still decides every move, so a hint can make a
//! configuration worse, never a plan wrong.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::Limit;
use crate::limit::Budget;
use crate::util::{Deadline, DistTable, Graph, NONE, Rng};

/// What SUO's memory is called in a [`Limit::Memory`].
const SCATTER: &str = "the SUO pre-pass";

/// How much longer than its shortest path an agent's SUO path may be (lacam3's default).
pub(crate) const MARGIN: u32 = 10;

/// Per agent, the next cell of its SUO path from each cell of it.
pub(crate) struct Scatter {
    /// Agent `a`'s hints are `hints[offsets[a]..offsets[a + 1]]`, sorted by cell.
    offsets: Vec<u32>,
    /// `(cell, next cell)` pairs.
    hints: Vec<(u32, u32)>,
}

impl Scatter {
    /// The next cell of `agent`'s SUO path when it stands on `cell`, if the path crosses it.
    pub(crate) fn hint(&self, agent: usize, cell: u32) -> Option<u32> {
        let range = self.offsets[agent] as usize..self.offsets[agent + 1] as usize;
        let hints = &self.hints[range];
        hints
            .binary_search_by_key(&cell, |&(c, _)| c)
            .ok()
            .map(|i| hints[i].1)
    }

    /// Upper bound on the bytes [`Scatter::build`] holds: the paths (each at most its
    /// distance plus [`MARGIN`] plus one cells, held twice while a round runs), the
    /// collision table's entries with growth slack, the hints, the per-cell arrays and one
    /// search's open list.
    pub(crate) fn bytes_for(graph: &Graph, dist: &DistTable, starts: &[u32]) -> u64 {
        let states: u64 = starts
            .iter()
            .enumerate()
            .map(|(a, &s)| u64::from(dist.get(a, s)) + u64::from(MARGIN) + 1)
            .sum();
        let cells = graph.len() as u64;
        states * (8 + 16 + 8) + starts.len() as u64 * 52 + cells * (24 + 4 + 4 + 4 * 24)
    }

    /// SUO paths for every agent, from `starts` to `goals`, searched until a round lowers the
    /// collision count by less than 2 % (at least two rounds) or `deadline`; the memory of
    /// [`Scatter::bytes_for`] is charged to `budget` first. An agent whose search the deadline
    /// cut short keeps its previous path, or none.
    pub(crate) fn build(
        graph: &Graph,
        dist: &DistTable,
        starts: &[u32],
        goals: &[u32],
        seed: u64,
        deadline: Deadline,
        budget: &mut Budget,
    ) -> Result<Scatter, Limit> {
        budget.charge(SCATTER, Scatter::bytes_for(graph, dist, starts))?;
        let mut table = CollisionTable::new(graph.len());
        let mut paths: Vec<Vec<u32>> = vec![Vec::new(); starts.len()];
        let mut search = PathSearch::new(graph.len());
        let mut rng = Rng::new(seed);
        let mut order: Vec<usize> = (0..starts.len()).collect();
        let mut round = 0;
        let mut last = u64::MAX;
        // lacam3 goes on while the count falls at all; on lak303d at 1,000 agents its last
        // five rounds (1.8 s of 4.7) took it from 5,773 to 5,331, and that time is worth
        // more to the guided restarts that follow (SoC / LB at 10 s 1.451 -> 1.438).
        while round < 2 || table.collisions * 100 < last * 98 {
            round += 1;
            last = table.collisions;
            rng.shuffle(&mut order);
            for &a in &order {
                if deadline.passed() {
                    break;
                }
                let old = std::mem::take(&mut paths[a]);
                table.remove(a as u32, &old, &paths);
                let found = search.run(graph, dist, a, starts[a], goals[a], &table, &paths);
                paths[a] = found.unwrap_or(old);
                table.insert(a as u32, &paths[a], &paths);
            }
            if table.collisions == 0 || deadline.passed() {
                break;
            }
        }
        Ok(Scatter::from_paths(&paths))
    }

    fn from_paths(paths: &[Vec<u32>]) -> Scatter {
        let mut offsets = Vec::with_capacity(paths.len() + 1);
        let mut hints = Vec::with_capacity(paths.iter().map(|p| p.len()).sum());
        offsets.push(0);
        for path in paths {
            let from = hints.len();
            hints.extend(path.windows(2).map(|w| (w[0], w[1])));
            hints[from..].sort_unstable();
            offsets.push(hints.len() as u32);
        }
        Scatter { offsets, hints }
    }
}

/// Who stands where when, over the current SUO paths, and the total collision count.
struct CollisionTable {
    /// Cell -> `(t, agent)` of every path state on it, sorted (several agents may share one).
    visits: Vec<Vec<(u32, u32)>>,
    /// Cell -> the last timestep of the path ending on it (`NONE`: none ends there; goals
    /// are distinct, so at most one does).
    ends: Vec<u32>,
    /// Vertex, swap and goal collisions between the enrolled paths, each pair counted once.
    collisions: u64,
}

impl CollisionTable {
    fn new(cells: usize) -> CollisionTable {
        CollisionTable {
            visits: vec![Vec::new(); cells],
            ends: vec![NONE; cells],
            collisions: 0,
        }
    }

    /// Collisions of the move `from -> to` at `t -> t + 1` with the enrolled paths: agents
    /// on `to` at `t + 1`, agents moving `to -> from` at the same time, and an agent already
    /// resting on `to` for good.
    fn cost(&self, from: u32, to: u32, t: u32, paths: &[Vec<u32>]) -> u64 {
        let on_to = &self.visits[to as usize];
        let mut collisions = at_time(on_to, t + 1).len() as u64;
        collisions += at_time(on_to, t)
            .iter()
            .filter(|&&(_, k)| paths[k as usize].get(t as usize + 1) == Some(&from))
            .count() as u64;
        let end = self.ends[to as usize];
        if end != NONE && t + 1 > end {
            collisions += 1;
        }
        collisions
    }

    /// Enrolls `agent`'s `path` (not yet in the table) and counts its collisions.
    fn insert(&mut self, agent: u32, path: &[u32], paths: &[Vec<u32>]) {
        let Some(&goal) = path.last() else { return };
        self.collisions += self.collisions_of(path, paths);
        for (t, &v) in path.iter().enumerate() {
            let list = &mut self.visits[v as usize];
            let at = list.partition_point(|&e| e < (t as u32, agent));
            list.insert(at, (t as u32, agent));
        }
        self.ends[goal as usize] = (path.len() - 1) as u32;
    }

    /// Takes `agent`'s `path` out of the table and its collisions out of the count.
    fn remove(&mut self, agent: u32, path: &[u32], paths: &[Vec<u32>]) {
        let Some(&goal) = path.last() else { return };
        self.ends[goal as usize] = NONE;
        for (t, &v) in path.iter().enumerate() {
            let list = &mut self.visits[v as usize];
            if let Ok(at) = list.binary_search(&(t as u32, agent)) {
                list.remove(at);
            }
        }
        self.collisions -= self.collisions_of(path, paths);
    }

    /// Collisions of `path` (not in the table) with the table: its moves', and those of
    /// agents crossing its goal after it has come to rest there.
    fn collisions_of(&self, path: &[u32], paths: &[Vec<u32>]) -> u64 {
        let moves: u64 = path
            .windows(2)
            .enumerate()
            .map(|(t, w)| self.cost(w[0], w[1], t as u32, paths))
            .sum();
        let last = (path.len() - 1) as u32;
        let goal = path[path.len() - 1];
        let later = self.visits[goal as usize]
            .iter()
            .filter(|&&(t, _)| t > last)
            .count() as u64;
        moves + later
    }
}

/// The entries of a sorted visit list at time `t`.
fn at_time(list: &[(u32, u32)], t: u32) -> &[(u32, u32)] {
    let from = list.partition_point(|&(s, _)| s < t);
    let to = from + list[from..].partition_point(|&(s, _)| s == t);
    &list[from..to]
}

/// An open search node: (collisions, f, cell, g, parent); ties go to the lower f, then the
/// lower cell.
type OpenEntry = (u64, u32, u32, u32, u32);

/// One agent's SUO search: best-first by (collisions, f), over cells (time is the path
/// length so far), within the agent's distance plus [`MARGIN`]; reusable tables.
struct PathSearch {
    /// Cell -> its parent on the search tree (`NONE`: not closed; the start closes to itself).
    parent: Vec<u32>,
    closed: Vec<u32>,
    open: BinaryHeap<Reverse<OpenEntry>>,
}

impl PathSearch {
    fn new(cells: usize) -> PathSearch {
        PathSearch {
            parent: vec![NONE; cells],
            closed: Vec::new(),
            open: BinaryHeap::new(),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        graph: &Graph,
        dist: &DistTable,
        agent: usize,
        start: u32,
        goal: u32,
        table: &CollisionTable,
        paths: &[Vec<u32>],
    ) -> Option<Vec<u32>> {
        let bound = dist.get(agent, start).saturating_add(MARGIN);
        self.open.clear();
        self.open
            .push(Reverse((0, dist.get(agent, start), start, 0, start)));
        let mut found = false;
        while let Some(Reverse((collisions, _, v, g, from))) = self.open.pop() {
            if self.parent[v as usize] != NONE {
                continue;
            }
            self.parent[v as usize] = from;
            self.closed.push(v);
            if v == goal {
                found = true;
                break;
            }
            for u in graph.neighbours(v) {
                let h = dist.get(agent, u);
                if u == start || self.parent[u as usize] != NONE || h.saturating_add(g + 1) > bound
                {
                    continue;
                }
                let c = collisions + table.cost(v, u, g, paths);
                self.open.push(Reverse((c, g + 1 + h, u, g + 1, v)));
            }
        }
        let path = found.then(|| {
            let mut path = vec![goal];
            let mut v = goal;
            while v != start {
                v = self.parent[v as usize];
                path.push(v);
            }
            path.reverse();
            path
        });
        for &v in &self.closed {
            self.parent[v as usize] = NONE;
        }
        self.closed.clear();
        path
    }
}

#[cfg(test)]
mod tests {
    use cuplan_grid::{Cell, Grid};
    use cuplan_wavefront::{Backend, DistanceMaps};

    use super::*;
    use crate::util::{CompactMaps, Distances};

    /// Every hint chain is a legal walk from the start to the goal within the margin, and
    /// two agents whose shortest routes cross get routes that do not collide.
    #[test]
    fn paths_are_legal_and_spread_over_parallel_corridors() {
        // Two parallel corridors (rows 0 and 2) joined at both ends.
        let grid = Grid::from_ascii("......\n.@@@@.\n......\n").unwrap();
        let graph = Graph::new(&grid);
        let cells = [
            Cell::new(0, 0),
            Cell::new(0, 2),
            Cell::new(5, 2),
            Cell::new(5, 0),
        ];
        let maps = DistanceMaps::<u16>::build(&grid, &cells[2..], Backend::Cpu).unwrap();
        let mut compact = CompactMaps::new(&graph, 2);
        compact.push(&graph, &maps).unwrap();
        let distances = Distances::Narrow(compact);
        let dist = DistTable::new(&distances, &graph).unwrap();
        let starts = [graph.id(cells[0]), graph.id(cells[1])];
        let goals = [graph.id(cells[2]), graph.id(cells[3])];
        let mut budget = Budget::new(u64::MAX);
        let deadline = Deadline::after(std::time::Duration::from_secs(10));
        let scatter =
            Scatter::build(&graph, &dist, &starts, &goals, 7, deadline, &mut budget).unwrap();
        let mut walks = Vec::new();
        for (a, (&s, &g)) in starts.iter().zip(&goals).enumerate() {
            let mut walk = vec![s];
            while let Some(next) = scatter.hint(a, *walk.last().unwrap()) {
                assert!(graph.neighbours(*walk.last().unwrap()).any(|u| u == next));
                walk.push(next);
                assert!(walk.len() <= (dist.get(a, s) + MARGIN + 1) as usize);
            }
            assert_eq!(*walk.last().unwrap(), g);
            walks.push(walk);
        }
        // Collision-free SUO paths exist (each agent keeps to its own row until its end).
        for (t, (a, b)) in walks[0].iter().zip(&walks[1]).enumerate() {
            assert_ne!(a, b, "vertex collision at t = {t}");
        }
    }
}

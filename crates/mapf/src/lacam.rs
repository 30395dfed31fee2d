//! LaCAM (Okumura, AAAI 2023): a complete search over joint configurations whose successors
//! come from PIBT, lazily constrained by a low-level search tree of "agent i moves to v".
//!
//! The high level is a depth-first search over configurations with an explored table, so the
//! search never revisits a configuration's successors twice and is complete: when the open
//! stack empties, no solution exists.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::Limit;
use crate::limit::Budget;
use crate::scatter::Scatter;
use crate::util::{Deadline, DistTable, FxHashMap, Graph, NONE, Rng, drop_in_background};

/// LaCAM's search memory (configurations, their priorities and orders, the explored table,
/// the constraint arena), as named in a [`Limit::Memory`].
const SEARCH: &str = "the LaCAM search";

/// Low-level node: "agent `who` moves to `loc`" plus every constraint of its ancestors, one
/// per agent of the high-level node's order up to `depth`. Kept in one arena per search and
/// linked by `parent`, so a child costs O(1) memory, not a copy of its ancestors.
#[derive(Clone, Copy)]
struct Constraint {
    parent: u32,
    who: u32,
    loc: u32,
    depth: u32,
}

const ROOT_CONSTRAINT: u32 = 0;

struct HighNode {
    config: Arc<[u32]>,
    parent: u32,
    priorities: Vec<f32>,
    order: Vec<u32>,
    tree: VecDeque<u32>,
    /// Sum of losses along the best known way from the start (LaCAM*'s `g`).
    g: u64,
    /// Sum of the agents' distances to their goals, an admissible estimate of what is left.
    h: u64,
    /// Configurations known to follow this one (LaCAM*'s edges, for rewiring).
    next: Vec<u32>,
}

impl HighNode {
    fn f(&self) -> u64 {
        self.g + self.h
    }
}

/// How long LaCAM searches.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// Stop at the first solution (vanilla LaCAM).
    FirstSolution,
    /// LaCAM* (Okumura, IJCAI 2023): after the first solution keep searching with costs,
    /// rewiring the configuration graph and pruning what cannot beat the best, until the
    /// deadline or until the search space is exhausted (the best is then optimal for the
    /// sum of losses).
    Anytime,
}

/// What a LaCAM run ended with.
pub(crate) enum LacamResult {
    /// Solved: the solution is the last one handed to `improved`; `proven` when the anytime
    /// search exhausted its space, so no configuration path of smaller sum of losses exists.
    Solved { proven: bool },
    /// The whole configuration space reachable from the start was explored.
    NoSolution,
    /// The deadline passed or the search would outgrow the budget first.
    Limit(Limit),
}

/// Estimated bytes of a high-level node of `agents` agents: its configuration, priorities
/// and order (4 bytes an agent each), the node itself, its entry in the explored table (key,
/// id, control byte and slack) and its slot on the open stack.
fn node_bytes(agents: usize) -> u64 {
    (12 * agents + std::mem::size_of::<HighNode>() + 32 + 4) as u64
}

/// Estimated bytes of one low-level constraint: its arena slot and its queue entry.
const CONSTRAINT_BYTES: u64 = (std::mem::size_of::<Constraint>() + 4) as u64;

/// Bytes of one rewiring edge and of one re-push onto the open stack.
const EDGE_BYTES: u64 = 4;

/// LaCAM*'s chance of restarting the depth-first search from the start instead of going
/// on from a known configuration (lacam2's `RESTART_RATE`): it keeps the anytime search from
/// circling in one region of the configuration graph.
const RESTART_RATE: f32 = 0.001;

/// The loss of the step `from -> to`: every agent pays 1 except one that stays on its goal.
/// Its sum along a solution is at most the solution's sum of costs.
fn loss(from: &[u32], to: &[u32], goals: &[u32]) -> u64 {
    from.iter()
        .zip(to)
        .zip(goals)
        .filter(|&((&a, &b), &g)| !(a == g && b == g))
        .count() as u64
}

/// One configuration: the vertex of every agent, shared between the search nodes and the
/// lookup table of explored configurations.
pub(crate) type Config = Arc<[u32]>;

fn heuristic(config: &[u32], dist: &DistTable) -> u64 {
    config
        .iter()
        .enumerate()
        .map(|(i, &v)| u64::from(dist.get(i, v)))
        .sum()
}

/// What the caller of [`lacam`] answers to a better solution.
pub(crate) struct Handoff {
    /// Bytes to set aside from LaCAM's budget for good (the refiner's share).
    pub(crate) aside: u64,
    /// End the search now with this solution (not proven optimal), e.g. to restart it with
    /// SUO hints.
    pub(crate) stop: bool,
}

/// Runs LaCAM (or LaCAM*, by `mode`), its PIBT preferring `scatter`'s hints when given; each
/// solution (the first, then in anytime mode every better one) is handed to `improved` as it
/// is found, with the bytes left in `budget`, and the result only says how the search ended.
/// What the search charges to `budget` is given back when it returns; what `improved` sets
/// aside is not.
#[allow(clippy::too_many_arguments)]
pub(crate) fn lacam(
    graph: &Graph,
    dist: &DistTable,
    starts: &[u32],
    goals: &[u32],
    scatter: Option<&Scatter>,
    seed: u64,
    deadline: Deadline,
    budget: &mut Budget,
    mode: Mode,
    improved: &mut dyn FnMut(&[Config], u64) -> Handoff,
) -> LacamResult {
    let free_before = budget.remaining();
    let mut aside = 0;
    let mut rng = Rng::new(seed);
    let mut restarts = Rng::new(seed ^ 0x005e_ed0f_4e57_a475);
    let mut pibt = Pibt::new(graph, dist, goals, scatter, seed.wrapping_add(1));
    let mut handed_off = false;
    let mut set_aside = |budget: &mut Budget, handoff: Handoff| {
        // `improved` is told what is left, so this cannot fail.
        let bytes = handoff.aside.min(budget.remaining());
        let _ = budget.charge("the LNS refiner", bytes);
        aside += bytes;
        handoff.stop
    };
    let mut search = Search {
        nodes: Vec::new(),
        goals,
        goal: None,
        open: vec![0],
        dirty: VecDeque::new(),
    };
    let mut explored: FxHashMap<Arc<[u32]>, u32> = FxHashMap::default();
    let mut constraints = vec![Constraint {
        parent: NONE,
        who: NONE,
        loc: NONE,
        depth: 0,
    }];
    let mut chain = Vec::new();
    if let Err(limit) = budget.charge(SEARCH, node_bytes(starts.len())) {
        return LacamResult::Limit(limit);
    }
    let root = new_node(Arc::from(starts), NONE, None, dist, goals);
    explored.insert(root.config.clone(), 0);
    search.nodes.push(root);
    let mut iterations: u64 = 0;
    let stopped = 'search: {
        while let Some(&top) = search.open.last() {
            iterations += 1;
            if iterations.is_multiple_of(32) && deadline.passed() {
                break 'search Some(deadline.reached());
            }
            let node = &search.nodes[top as usize];
            if node.tree.is_empty() || search.goal_bound().is_some_and(|best| node.f() >= best) {
                search.open.pop();
                continue;
            }
            if search.goal.is_none() && *node.config == *goals {
                search.goal = Some(top);
                let handoff = improved(&backtrack(&search.nodes, top), budget.remaining());
                if set_aside(budget, handoff) {
                    handed_off = true;
                    break 'search None;
                }
                if mode == Mode::FirstSolution {
                    break 'search None;
                }
                // Edges met before the first solution were only recorded; settle every `g`
                // over them now, which may already improve on it.
                let pushed_before = search.open.len();
                if search.settle_all(deadline) {
                    let best = backtrack(&search.nodes, top);
                    if set_aside(budget, improved(&best, budget.remaining())) {
                        handed_off = true;
                        break 'search None;
                    }
                }
                let pushed = (search.open.len() - pushed_before) as u64;
                if let Err(limit) = budget.charge(SEARCH, pushed * EDGE_BYTES) {
                    break 'search Some(limit);
                }
                continue;
            }
            let node = &mut search.nodes[top as usize];
            let Some(constraint) = node.tree.pop_front() else {
                continue;
            };
            let before = constraints.len();
            expand_constraint(node, constraint, &mut constraints, graph, &mut rng);
            let added = (constraints.len() - before) as u64;
            if let Err(limit) = budget.charge(SEARCH, added * CONSTRAINT_BYTES) {
                break 'search Some(limit);
            }
            chain.clear();
            let mut c = constraint;
            while c != ROOT_CONSTRAINT {
                let link = constraints[c as usize];
                chain.push((link.who, link.loc));
                c = link.parent;
            }
            chain.reverse();
            let Some(next) = pibt.best_successor(&node.config, &node.order, &chain) else {
                continue;
            };
            if let Some(&known) = explored.get(&*next) {
                if let Err(limit) = budget.charge(SEARCH, 2 * EDGE_BYTES) {
                    break 'search Some(limit);
                }
                if search.goal.is_none() {
                    // Up to the first solution the search is exactly the first-solution
                    // mode's: rewiring now would change which parents its answer follows.
                    if mode == Mode::Anytime {
                        search.record_edge(top, known);
                    }
                    search.open.push(known);
                    continue;
                }
                let pushed_before = search.open.len();
                if search.rewire(top, known, deadline) {
                    let best = backtrack(&search.nodes, search.goal.unwrap_or(0));
                    let handoff = improved(&best, budget.remaining());
                    if set_aside(budget, handoff) {
                        handed_off = true;
                        break 'search None;
                    }
                }
                let pushed = (search.open.len() - pushed_before) as u64;
                if let Err(limit) = budget.charge(SEARCH, pushed * EDGE_BYTES) {
                    break 'search Some(limit);
                }
                // Restarts come only after the first solution, from their own generator, so
                // the search up to it is exactly the first-solution mode's.
                let restart = search.goal.is_some() && restarts.next_f32() < RESTART_RATE;
                let insert = if restart { 0 } else { known };
                search.push_if_promising(insert);
                continue;
            }
            if let Err(limit) = budget.charge(SEARCH, node_bytes(next.len()) + EDGE_BYTES) {
                break 'search Some(limit);
            }
            let config: Arc<[u32]> = Arc::from(next);
            let id = search.nodes.len() as u32;
            let parent = &search.nodes[top as usize];
            let mut child = new_node(config.clone(), top, Some(parent), dist, goals);
            child.g = parent.g + loss(&parent.config, &child.config, goals);
            search.nodes[top as usize].next.push(id);
            search.nodes.push(child);
            explored.insert(config, id);
            search.push_if_promising(id);
        }
        None
    };
    let result = match (search.goal, stopped) {
        (Some(_), stopped) => LacamResult::Solved {
            proven: stopped.is_none() && mode == Mode::Anytime && !handed_off,
        },
        (None, Some(limit)) => LacamResult::Limit(limit),
        (None, None) => LacamResult::NoSolution,
    };
    let garbage = (search.nodes, explored, constraints, search.open);
    if handed_off {
        // Freed now, at the first solution (a small search): what the caller does next on
        // this thread (the refiner, or the guided search) reuses this thread's memory.
        drop(garbage);
    } else {
        drop_in_background(garbage);
    }
    budget.release(free_before - budget.remaining() - aside);
    result
}

/// LaCAM*'s high level: the nodes, the open stack and the best goal node.
struct Search<'a> {
    nodes: Vec<HighNode>,
    goals: &'a [u32],
    /// The goal configuration's node once reached; its `g` is the best solution's cost.
    goal: Option<u32>,
    open: Vec<u32>,
    /// Rewiring's work queue, kept to reuse its memory.
    dirty: VecDeque<u32>,
}

impl Search<'_> {
    /// The cost a node must beat to be worth expanding (`None` before the first solution).
    fn goal_bound(&self) -> Option<u64> {
        self.goal.map(|g| self.nodes[g as usize].g)
    }

    fn push_if_promising(&mut self, id: u32) {
        if self
            .goal_bound()
            .is_none_or(|best| self.nodes[id as usize].f() < best)
        {
            self.open.push(id);
        }
    }

    /// Records the edge `from -> to` and propagates shorter `g`s through the known graph
    /// (Dijkstra with a FIFO queue, as in lacam2: edge costs are small and equal-ish, and
    /// every improvement is pushed again); a node whose `f` drops below the best solution
    /// goes back on the open stack. Returns whether the best solution got cheaper.
    /// Checks `deadline` as it goes: the known graph can be large.
    fn rewire(&mut self, from: u32, to: u32, deadline: Deadline) -> bool {
        self.record_edge(from, to);
        self.dirty.clear();
        self.dirty.push_back(from);
        self.propagate(deadline)
    }

    fn record_edge(&mut self, from: u32, to: u32) {
        let edges = &mut self.nodes[from as usize].next;
        if !edges.contains(&to) {
            edges.push(to);
        }
    }

    /// Propagates shorter `g`s from every node over every recorded edge (as [`rewire`] does
    /// from one); returns whether the best solution got cheaper.
    ///
    /// [`rewire`]: Search::rewire
    fn settle_all(&mut self, deadline: Deadline) -> bool {
        self.dirty.clear();
        self.dirty.extend(0..self.nodes.len() as u32);
        self.propagate(deadline)
    }

    /// Runs the work queue in `dirty` to a fixed point (or the deadline).
    fn propagate(&mut self, deadline: Deadline) -> bool {
        let mut goal_improved = false;
        let mut pops: u32 = 0;
        while let Some(u) = self.dirty.pop_front() {
            pops = pops.wrapping_add(1);
            // Stopping early leaves some `g`s higher than they could be: a worse bound for
            // pruning, never a wrong solution (parents always hold the `g` they give).
            if pops.is_multiple_of(1024) && deadline.passed() {
                break;
            }
            for k in 0..self.nodes[u as usize].next.len() {
                let v = self.nodes[u as usize].next[k];
                let (un, vn) = (&self.nodes[u as usize], &self.nodes[v as usize]);
                let g = un.g + loss(&un.config, &vn.config, self.goals);
                if g >= vn.g {
                    continue;
                }
                let vn = &mut self.nodes[v as usize];
                vn.g = g;
                vn.parent = u;
                self.dirty.push_back(v);
                if Some(v) == self.goal {
                    goal_improved = true;
                } else if self
                    .goal_bound()
                    .is_some_and(|best| self.nodes[v as usize].f() < best)
                {
                    self.open.push(v);
                }
            }
        }
        goal_improved
    }
}

fn backtrack(nodes: &[HighNode], mut id: u32) -> Vec<Arc<[u32]>> {
    let mut configs = Vec::new();
    while id != NONE {
        configs.push(nodes[id as usize].config.clone());
        id = nodes[id as usize].parent;
    }
    configs.reverse();
    configs
}

/// Children of a low-level node: the next agent in order, constrained to each of its moves.
fn expand_constraint(
    node: &mut HighNode,
    id: u32,
    constraints: &mut Vec<Constraint>,
    graph: &Graph,
    rng: &mut Rng,
) {
    let depth = constraints[id as usize].depth as usize;
    if depth >= node.order.len() {
        return;
    }
    let agent = node.order[depth];
    let here = node.config[agent as usize];
    let mut moves: Vec<u32> = graph.neighbours(here).collect();
    moves.push(here);
    rng.shuffle(&mut moves);
    for loc in moves {
        node.tree.push_back(constraints.len() as u32);
        constraints.push(Constraint {
            parent: id,
            who: agent,
            loc,
            depth: depth as u32 + 1,
        });
    }
}

/// A new high-level node. Priorities grow while an agent is away from its goal, so agents
/// that have waited long get planned first (LaCAM's dynamic priorities).
fn new_node(
    config: Arc<[u32]>,
    parent_id: u32,
    parent: Option<&HighNode>,
    dist: &DistTable,
    goals: &[u32],
) -> HighNode {
    let n = config.len();
    let priorities: Vec<f32> = match parent {
        None => (0..n)
            .map(|i| dist.get(i, config[i]) as f32 / n.max(1) as f32)
            .collect(),
        Some(p) => (0..n)
            .map(|i| {
                if config[i] != goals[i] {
                    p.priorities[i] + 1.0
                } else {
                    p.priorities[i] - p.priorities[i].floor()
                }
            })
            .collect(),
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by(|&a, &b| priorities[b as usize].total_cmp(&priorities[a as usize]));
    let mut tree = VecDeque::new();
    tree.push_back(ROOT_CONSTRAINT);
    HighNode {
        h: heuristic(&config, dist),
        config,
        parent: parent_id,
        priorities,
        order,
        tree,
        g: 0,
        next: Vec::new(),
    }
}

/// PIBT runs per successor when SUO guides the search. lacam3 runs 10 on 10 threads; here
/// they run in turn beside the refiner, and measured on the five issue-21 maps at 1,000
/// agents (10 s, SoC / LB) 3 was best: den520d 1.035 / 1.049 / 1.060 for 1 / 3 / 10,
/// lak303d 1.51 / 1.48 / 1.79 (10 too slow to reach a guided solution), ost003d
/// 1.48 / 1.42 / 1.39, warehouse-10-20-10-2-1 2.01 / 1.92 / 1.92.
const CANDIDATES: usize = 3;

/// PIBT (Okumura et al. 2022) as LaCAM's configuration generator, with reusable tables.
struct Pibt<'a> {
    graph: &'a Graph,
    goals: &'a [u32],
    dist: &'a DistTable<'a>,
    scatter: Option<&'a Scatter>,
    occupied_now: Vec<u32>,
    occupied_next: Vec<u32>,
    now: Vec<u32>,
    next: Vec<u32>,
    tie: Vec<f32>,
    rng: Rng,
}

impl<'a> Pibt<'a> {
    fn new(
        graph: &'a Graph,
        dist: &'a DistTable<'a>,
        goals: &'a [u32],
        scatter: Option<&'a Scatter>,
        seed: u64,
    ) -> Pibt<'a> {
        let agents = goals.len();
        Pibt {
            graph,
            goals,
            dist,
            scatter,
            occupied_now: vec![NONE; graph.len()],
            occupied_next: vec![NONE; graph.len()],
            now: vec![NONE; agents],
            next: vec![NONE; agents],
            tie: vec![0.0; graph.len()],
            rng: Rng::new(seed),
        }
    }

    /// With SUO's hints, the successor of least `loss + h` among [`CANDIDATES`] PIBT runs
    /// (their random tie-breaking differs: lacam3's Monte-Carlo configuration generation);
    /// without, one run, vanilla LaCAM's generator.
    fn best_successor(
        &mut self,
        config: &[u32],
        order: &[u32],
        constraint: &[(u32, u32)],
    ) -> Option<Vec<u32>> {
        if self.scatter.is_none() {
            return self.successor(config, order, constraint);
        }
        let mut best: Option<(u64, Vec<u32>)> = None;
        for _ in 0..CANDIDATES {
            let Some(next) = self.successor(config, order, constraint) else {
                continue;
            };
            let f = loss(config, &next, self.goals) + heuristic(&next, self.dist);
            if best.as_ref().is_none_or(|(b, _)| f < *b) {
                best = Some((f, next));
            }
        }
        best.map(|(_, next)| next)
    }

    /// One step from `config` obeying `constraint`; `None` when PIBT fails under it.
    fn successor(
        &mut self,
        config: &[u32],
        order: &[u32],
        constraint: &[(u32, u32)],
    ) -> Option<Vec<u32>> {
        for a in 0..config.len() {
            let old = self.now[a];
            if old != NONE && self.occupied_now[old as usize] == a as u32 {
                self.occupied_now[old as usize] = NONE;
            }
            let old_next = self.next[a];
            if old_next != NONE {
                self.occupied_next[old_next as usize] = NONE;
                self.next[a] = NONE;
            }
        }
        for (a, &v) in config.iter().enumerate() {
            self.now[a] = v;
            self.occupied_now[v as usize] = a as u32;
        }
        for &(i, l) in constraint {
            if self.occupied_next[l as usize] != NONE {
                return None;
            }
            let from = config[i as usize];
            let mover = self.occupied_next[from as usize];
            if mover != NONE && mover == self.occupied_now[l as usize] {
                return None;
            }
            self.next[i as usize] = l;
            self.occupied_next[l as usize] = i;
        }
        for &a in order {
            if self.next[a as usize] == NONE && !self.plan(a) {
                return None;
            }
        }
        self.is_conflict_free().then(|| self.next.clone())
    }

    /// Priority inheritance with backtracking: agent `i` takes its best free neighbour, pushing
    /// a lower-priority occupant out of the way recursively. With the swap emulation of
    /// LaCAM3 (Okumura 2024), an agent blocked head-on in a corridor backs off and pulls the
    /// other agent along until they can pass each other.
    fn plan(&mut self, i: u32) -> bool {
        let agent = i as usize;
        let here = self.now[agent];
        let mut candidates = [NONE; 5];
        let mut count = 0;
        for u in self.graph.neighbours(here) {
            candidates[count] = u;
            count += 1;
        }
        candidates[count] = here;
        count += 1;
        for &u in &candidates[..count] {
            self.tie[u as usize] = self.rng.next_f32();
        }
        let key = |u: u32| self.dist.get(agent, u) as f32 + self.tie[u as usize];
        candidates[..count].sort_by(|&a, &b| key(a).total_cmp(&key(b)));
        // SUO's next cell first, the rest by distance (lacam3's order).
        if let Some(hint) = self.scatter.and_then(|s| s.hint(agent, here))
            && let Some(at) = candidates[..count].iter().position(|&u| u == hint)
        {
            candidates[..=at].rotate_right(1);
        }
        let swap_agent = self.swap_partner(i, candidates[0]);
        if swap_agent != NONE {
            candidates[..count].reverse();
        }
        for (rank, &u) in candidates[..count].iter().enumerate() {
            if self.occupied_next[u as usize] != NONE {
                continue;
            }
            let k = self.occupied_now[u as usize];
            if k != NONE && self.next[k as usize] == here {
                continue;
            }
            self.occupied_next[u as usize] = i;
            self.next[agent] = u;
            if k != NONE && u != here && self.next[k as usize] == NONE && !self.plan(k) {
                continue;
            }
            if rank == 0
                && swap_agent != NONE
                && self.next[swap_agent as usize] == NONE
                && self.occupied_next[here as usize] == NONE
            {
                self.occupied_next[here as usize] = swap_agent;
                self.next[swap_agent as usize] = here;
            }
            return true;
        }
        self.occupied_next[here as usize] = i;
        self.next[agent] = here;
        false
    }

    /// The agent `i` should swap with (pulling it along while backing off), or `NONE`.
    fn swap_partner(&self, i: u32, best: u32) -> u32 {
        let here = self.now[i as usize];
        let j = self.occupied_now[best as usize];
        if j != NONE
            && j != i
            && self.next[j as usize] == NONE
            && self.swap_required(i, j, here, self.now[j as usize])
            && self.swap_possible(self.now[j as usize], here)
        {
            return j;
        }
        if best != here {
            for u in self.graph.neighbours(here) {
                let k = self.occupied_now[u as usize];
                if k != NONE
                    && best != self.now[k as usize]
                    && self.swap_required(k, i, here, best)
                    && self.swap_possible(best, here)
                {
                    return k;
                }
            }
        }
        NONE
    }

    /// Whether a cell is a dead end occupied by an agent that has arrived there for good.
    fn settled_dead_end(&self, u: u32) -> bool {
        let k = self.occupied_now[u as usize];
        k != NONE && self.graph.neighbours(u).count() == 1 && self.goals[k as usize] == u
    }

    /// The one way on from `puller` other than `pusher` in a corridor: `Err(n)` when there are
    /// `n != 1` such ways.
    fn corridor_next(&self, pusher: u32, puller: u32) -> Result<u32, usize> {
        let mut ways = 0;
        let mut next = NONE;
        for u in self.graph.neighbours(puller) {
            if u != pusher && !self.settled_dead_end(u) {
                ways += 1;
                next = u;
            }
        }
        if ways == 1 { Ok(next) } else { Err(ways) }
    }

    fn swap_required(&self, pusher: u32, puller: u32, pusher_at: u32, puller_at: u32) -> bool {
        let (p, q) = (pusher as usize, puller as usize);
        let (mut v_pusher, mut v_puller) = (pusher_at, puller_at);
        while self.dist.get(p, v_puller) < self.dist.get(p, v_pusher) {
            match self.corridor_next(v_pusher, v_puller) {
                Ok(next) => {
                    v_pusher = v_puller;
                    v_puller = next;
                }
                Err(0) => break,
                Err(_) => return false,
            }
        }
        self.dist.get(q, v_pusher) < self.dist.get(q, v_puller)
            && (self.dist.get(p, v_pusher) == 0
                || self.dist.get(p, v_puller) < self.dist.get(p, v_pusher))
    }

    fn swap_possible(&self, pusher_at: u32, puller_at: u32) -> bool {
        let (mut v_pusher, mut v_puller) = (pusher_at, puller_at);
        while v_puller != pusher_at {
            match self.corridor_next(v_pusher, v_puller) {
                Ok(next) => {
                    v_pusher = v_puller;
                    v_puller = next;
                }
                Err(0) => return false,
                Err(_) => return true,
            }
        }
        false
    }

    /// Defensive check of the generated step (vertex and swap conflicts), O(agents).
    fn is_conflict_free(&self) -> bool {
        self.next.iter().enumerate().all(|(a, &v)| {
            if self.occupied_next[v as usize] != a as u32 {
                return false;
            }
            let back = self.occupied_now[v as usize];
            back == NONE || back == a as u32 || self.next[back as usize] != self.now[a]
        })
    }
}

#[cfg(test)]
mod tests {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use cuplan_grid::{Cell, Grid};
    use cuplan_wavefront::{Backend, DistanceMaps};

    use super::*;
    use crate::util::{CompactMaps, Distances};

    /// The least sum of losses over every conflict-free sequence of joint moves from
    /// `starts` to `goals`: Dijkstra over the whole joint space, independent of LaCAM.
    fn optimal_loss(graph: &Graph, starts: &[u32], goals: &[u32]) -> Option<u64> {
        let mut best: FxHashMap<Vec<u32>, u64> = FxHashMap::default();
        let mut heap = BinaryHeap::new();
        best.insert(starts.to_vec(), 0);
        heap.push(Reverse((0u64, starts.to_vec())));
        while let Some(Reverse((g, config))) = heap.pop() {
            if best.get(&config).is_some_and(|&b| b < g) {
                continue;
            }
            if config == goals {
                return Some(g);
            }
            let moves: Vec<Vec<u32>> = config
                .iter()
                .map(|&v| graph.neighbours(v).chain([v]).collect())
                .collect();
            let mut next = vec![0; config.len()];
            let mut choice = vec![0; config.len()];
            'all: loop {
                for (i, m) in moves.iter().enumerate() {
                    next[i] = m[choice[i]];
                }
                let distinct = (0..next.len()).all(|i| (0..i).all(|j| next[i] != next[j]));
                let no_swap = (0..next.len()).all(|i| {
                    (0..next.len()).all(|j| i == j || next[i] != config[j] || next[j] != config[i])
                });
                if distinct && no_swap {
                    let cost = g + loss(&config, &next, goals);
                    if best.get(&next).is_none_or(|&b| cost < b) {
                        best.insert(next.clone(), cost);
                        heap.push(Reverse((cost, next.clone())));
                    }
                }
                for i in 0..choice.len() {
                    choice[i] += 1;
                    if choice[i] < moves[i].len() {
                        continue 'all;
                    }
                    choice[i] = 0;
                }
                break;
            }
        }
        None
    }

    /// LaCAM* with no deadline exhausts tiny configuration spaces, and its best is then the
    /// optimum of the sum of losses it minimises; where no solution exists it says so.
    #[test]
    fn lacam_star_is_eventually_optimal_on_tiny_instances() {
        let mut rng = Rng::new(11);
        let (mut solved, mut unsolvable) = (0, 0);
        for _ in 0..150 {
            let (w, h) = (2 + rng.below(3) as u32, 2 + rng.below(3) as u32);
            let art: String = (0..h)
                .map(|_| {
                    let row: String = (0..w)
                        .map(|_| if rng.below(100) < 20 { '@' } else { '.' })
                        .collect();
                    row + "\n"
                })
                .collect();
            let grid = Grid::from_ascii(&art).unwrap();
            let mut free: Vec<Cell> = (0..h)
                .flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
                .filter(|&c| grid.is_free(c))
                .collect();
            let agents = 2 + rng.below(2);
            if free.len() < agents + 1 {
                continue;
            }
            rng.shuffle(&mut free);
            let starts: Vec<Cell> = free[..agents].to_vec();
            rng.shuffle(&mut free);
            let goals: Vec<Cell> = free[..agents].to_vec();
            let maps = DistanceMaps::<u16>::build(&grid, &goals, Backend::Cpu).unwrap();
            if starts
                .iter()
                .enumerate()
                .any(|(i, &s)| maps.get(i, s).is_none())
            {
                continue; // a goal out of reach: `Instance::new` refuses it
            }
            let graph = Graph::new(&grid);
            let mut compact = CompactMaps::new(&graph, goals.len());
            compact.push(&graph, &maps).unwrap();
            let maps = Distances::Narrow(compact);
            let dist = DistTable::new(&maps, &graph).unwrap();
            let starts: Vec<u32> = starts.iter().map(|&c| graph.id(c)).collect();
            let goals: Vec<u32> = goals.iter().map(|&c| graph.id(c)).collect();
            let optimum = optimal_loss(&graph, &starts, &goals);
            let scatter = optimum.map(|_| {
                let deadline = Deadline::after(std::time::Duration::MAX);
                let mut budget = Budget::new(u64::MAX);
                Scatter::build(&graph, &dist, &starts, &goals, 5, deadline, &mut budget).unwrap()
            });
            // With SUO's hints or without, the anytime search ends at the optimum.
            for hints in [None, scatter.as_ref()] {
                let mut reported: Vec<u64> = Vec::new();
                let result = lacam(
                    &graph,
                    &dist,
                    &starts,
                    &goals,
                    hints,
                    rng.next_u64(),
                    Deadline::after(std::time::Duration::MAX),
                    &mut Budget::new(u64::MAX),
                    Mode::Anytime,
                    &mut |configs, _| {
                        let cost = configs.windows(2).map(|s| loss(&s[0], &s[1], &goals)).sum();
                        reported.push(cost);
                        Handoff {
                            aside: 0,
                            stop: false,
                        }
                    },
                );
                match (result, optimum) {
                    (LacamResult::Solved { proven }, Some(optimum)) => {
                        assert!(proven, "{art}");
                        assert_eq!(
                            reported.last(),
                            Some(&optimum),
                            "{art}{starts:?} -> {goals:?}"
                        );
                        assert!(reported.windows(2).all(|r| r[1] < r[0]), "{reported:?}");
                        solved += 1;
                    }
                    (LacamResult::NoSolution, None) => unsolvable += 1,
                    (_, optimum) => panic!("{art}{starts:?} -> {goals:?}: optimum {optimum:?}"),
                }
            }
        }
        assert!(
            solved > 50 && unsolvable > 0,
            "{solved} solved, {unsolvable} unsolvable"
        );
    }
}

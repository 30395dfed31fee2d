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
}

/// What a LaCAM run ended with.
pub(crate) enum LacamResult {
    /// Configurations from the starts to the goals, one per timestep.
    Solved(Vec<Arc<[u32]>>),
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

pub(crate) fn lacam(
    graph: &Graph,
    dist: &DistTable,
    starts: &[u32],
    goals: &[u32],
    seed: u64,
    deadline: Deadline,
    mut budget: Budget,
) -> LacamResult {
    let mut rng = Rng::new(seed);
    let mut pibt = Pibt::new(graph, dist, goals, seed.wrapping_add(1));
    let mut nodes: Vec<HighNode> = Vec::new();
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
    nodes.push(root);
    let mut open: Vec<u32> = vec![0];
    let mut iterations: u64 = 0;
    let result = 'search: {
        while let Some(&top) = open.last() {
            iterations += 1;
            if iterations.is_multiple_of(32) && deadline.passed() {
                break 'search LacamResult::Limit(deadline.reached());
            }
            let node = &mut nodes[top as usize];
            if *node.config == *goals {
                break 'search LacamResult::Solved(backtrack(&nodes, top));
            }
            let Some(constraint) = node.tree.pop_front() else {
                open.pop();
                continue;
            };
            let before = constraints.len();
            expand_constraint(node, constraint, &mut constraints, graph, &mut rng);
            let added = (constraints.len() - before) as u64;
            if let Err(limit) = budget.charge(SEARCH, added * CONSTRAINT_BYTES) {
                break 'search LacamResult::Limit(limit);
            }
            chain.clear();
            let mut c = constraint;
            while c != ROOT_CONSTRAINT {
                let link = constraints[c as usize];
                chain.push((link.who, link.loc));
                c = link.parent;
            }
            chain.reverse();
            let Some(next) = pibt.successor(&node.config, &node.order, &chain) else {
                continue;
            };
            if let Some(&known) = explored.get(&*next) {
                if let Err(limit) = budget.charge(SEARCH, 4) {
                    break 'search LacamResult::Limit(limit);
                }
                open.push(known);
                continue;
            }
            if let Err(limit) = budget.charge(SEARCH, node_bytes(next.len())) {
                break 'search LacamResult::Limit(limit);
            }
            let config: Arc<[u32]> = Arc::from(next);
            let id = nodes.len() as u32;
            let child = new_node(config.clone(), top, Some(&nodes[top as usize]), dist, goals);
            nodes.push(child);
            explored.insert(config, id);
            open.push(id);
        }
        LacamResult::NoSolution
    };
    drop_in_background((nodes, explored, constraints, open));
    result
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
        config,
        parent: parent_id,
        priorities,
        order,
        tree,
    }
}

/// PIBT (Okumura et al. 2022) as LaCAM's configuration generator, with reusable tables.
struct Pibt<'a> {
    graph: &'a Graph,
    goals: &'a [u32],
    dist: &'a DistTable<'a>,
    occupied_now: Vec<u32>,
    occupied_next: Vec<u32>,
    now: Vec<u32>,
    next: Vec<u32>,
    tie: Vec<f32>,
    rng: Rng,
}

impl<'a> Pibt<'a> {
    fn new(graph: &'a Graph, dist: &'a DistTable<'a>, goals: &'a [u32], seed: u64) -> Pibt<'a> {
        let agents = goals.len();
        Pibt {
            graph,
            goals,
            dist,
            occupied_now: vec![NONE; graph.len()],
            occupied_next: vec![NONE; graph.len()],
            now: vec![NONE; agents],
            next: vec![NONE; agents],
            tie: vec![0.0; graph.len()],
            rng: Rng::new(seed),
        }
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

//! The single-agent space-time A* both PP and CBS call: states (cell, t), waits allowed,
//! rules supplied by the caller (a reservation table or a CBS constraint set).
//!
//! Why not `cuplan_wavefront::space_time_astar`: CBS needs length constraints (a latest
//! finish, goals closed from a time on) and soft conflict counts for tie-breaking among
//! equal-time paths, and it needs no horizon. For PP it is the faster one on den520d
//! (1.3x with 400 agents) and 3x slower on random-64-64-10 with 400 (see the crate docs);
//! both are selectable through [`crate::LowLevel`]. The time beyond the last rule is
//! collapsed, so the state space is finite and "no path" is exact.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::Limit;
use crate::limit::Budget;
use crate::util::{Deadline, FAR, FxHashMap, Graph, MapView, NONE, Weight};

/// The rules of one low-level search. Time-dependent rules must all end by
/// [`Rules::last_rule_time`]; afterwards only permanent ones (agents resting forever) apply.
pub(crate) trait Rules {
    /// The agent may not stand on `v` at time `t`.
    fn vertex_blocked(&self, v: u32, t: u32) -> bool;
    /// The agent may not move `from -> to` arriving at time `t`.
    fn edge_blocked(&self, from: u32, to: u32, t: u32) -> bool;
    /// The earliest time the agent may arrive at its goal and stay forever.
    fn earliest_finish(&self) -> u32;
    /// The latest time the agent may finish (arrivals after it are pruned).
    fn latest_finish(&self) -> u32 {
        u32::MAX
    }
    /// The last time a time-dependent rule (or soft conflict) applies.
    fn last_rule_time(&self) -> u32;
    /// Soft conflicts of the move `from -> to` arriving at `t` (tie-breaking only).
    fn soft_conflicts(&self, _from: u32, _to: u32, _t: u32) -> u32 {
        0
    }
}

/// Outcome of one low-level search.
#[derive(Debug)]
pub(crate) enum LowResult<P = Vec<u32>> {
    /// `path[t]` is the cell at time `t`; the last entry is the goal, the first arrival after
    /// which the agent can stay ([`focal_space_time_astar`]: with its lower bound).
    Found(P),
    /// No path exists under the rules (proven: the collapsed state space was exhausted).
    NoPath,
    /// The deadline passed, or the search's states would not fit the memory left.
    Stopped(Limit),
}

/// Estimated bytes one search state holds: its node (20), its index entry (16 plus the
/// hash table's control byte and slack) and its heap entries (20 each, stale ones included).
pub(crate) const STATE_BYTES: u64 = 64;

/// Heap order: smallest f, then fewest conflicts, then closest to the goal, then deepest
/// (largest t), then oldest.
///
/// Where `f = t + h` "closest" is the same as "deepest"; it differs on the plateau where the
/// earliest finish dominates (`f = finish > t + h`, an agent that must wait for its goal to
/// clear): there it keeps the search near the goal instead of wandering through every
/// state that could still make the finish (measured on den520d, 400 agents: one such agent
/// took 2.4 s with depth first, and the whole PP run dropped from 2.5 s to 0.33 s).
type OpenEntry = (Reverse<u32>, Reverse<u32>, Reverse<u32>, u32, Reverse<u32>);

struct Node {
    v: u32,
    t: u32,
    parent: u32,
    conflicts: u32,
    closed: bool,
}

/// Adds a state first reached now, indexed by its key; returns its id.
fn insert_node(nodes: &mut Vec<Node>, index: &mut FxHashMap<u64, u32>, k: u64, node: Node) -> u32 {
    let id = nodes.len() as u32;
    nodes.push(node);
    index.insert(k, id);
    id
}

impl Node {
    /// A state reached at `t` from `parent`, not yet expanded.
    fn open(v: u32, t: u32, parent: u32, conflicts: u32) -> Node {
        Node {
            v,
            t,
            parent,
            conflicts,
            closed: false,
        }
    }
}

/// Counts a pop and, every 1024th, checks the deadline and the memory `states` hold.
fn over_limits(
    pops: &mut u32,
    deadline: Deadline,
    budget: &Budget,
    states: usize,
) -> Option<Limit> {
    *pops = pops.wrapping_add(1);
    if !pops.is_multiple_of(1024) {
        return None;
    }
    if deadline.passed() {
        return Some(deadline.reached());
    }
    let held = states as u64 * STATE_BYTES;
    budget.check("a single-agent space-time search", held).err()
}

/// The times a search for one agent works within, and its heuristic.
struct Window<'a> {
    /// The earliest time the agent may finish.
    finish: u32,
    /// States at or after this time are keyed as this time: no rule changes after it.
    cap: u32,
    /// The latest time the agent may finish.
    latest: u32,
    h: MapView<'a>,
}

impl<'a> Window<'a> {
    /// `None` where no path can exist: the goal is unreachable or cannot be made in time.
    fn of(start: u32, h: MapView<'a>, rules: &impl Rules) -> Option<Window<'a>> {
        let finish = rules.earliest_finish();
        let latest = rules.latest_finish();
        if h.at(start) == FAR || h.at(start).max(finish) > latest {
            return None;
        }
        let cap = rules.last_rule_time().saturating_add(1).max(finish);
        Some(Window {
            finish,
            cap,
            latest,
            h,
        })
    }

    /// The state `(v, t)`'s key: times past the last rule are one state.
    fn key(&self, v: u32, t: u32) -> u64 {
        (u64::from(v) << 32) | u64::from(t.min(self.cap))
    }

    /// A lower bound on the time still needed from `v` at `t`.
    fn heuristic(&self, v: u32, t: u32) -> u32 {
        self.h.at(v).max(self.finish.saturating_sub(t))
    }
}

/// A minimum-arrival-time path; among those, one with few soft conflicts.
///
/// After [`Rules::last_rule_time`] `T` the rules no longer depend on time, so states at times
/// beyond `T + 1` are merged with time `T + 1`: the state space is finite and `NoPath` is a
/// proof, not a horizon artefact.
pub(crate) fn space_time_astar(
    graph: &Graph,
    start: u32,
    goal: u32,
    h: MapView<'_>,
    rules: &impl Rules,
    deadline: Deadline,
    budget: &Budget,
) -> LowResult {
    let Some(w) = Window::of(start, h, rules) else {
        return LowResult::NoPath;
    };
    let (finish, latest) = (w.finish, w.latest);
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: FxHashMap<u64, u32> = FxHashMap::default();
    let mut open: BinaryHeap<OpenEntry> = BinaryHeap::new();
    insert_node(
        &mut nodes,
        &mut index,
        w.key(start, 0),
        Node::open(start, 0, NONE, 0),
    );
    open.push((
        Reverse(w.heuristic(start, 0)),
        Reverse(0),
        Reverse(h.at(start)),
        0,
        Reverse(0),
    ));
    let mut pops: u32 = 0;
    while let Some((_, Reverse(conflicts), _, _, Reverse(id))) = open.pop() {
        if let Some(limit) = over_limits(&mut pops, deadline, budget, nodes.len()) {
            return LowResult::Stopped(limit);
        }
        let node = &mut nodes[id as usize];
        if node.closed || node.conflicts != conflicts {
            continue;
        }
        node.closed = true;
        let (v, t) = (node.v, node.t);
        if v == goal && t >= finish {
            return LowResult::Found(recover(&nodes, id));
        }
        let nt = t + 1;
        let moves = graph.neighbours(v).chain(std::iter::once(v));
        for u in moves {
            if h.at(u) == FAR
                || nt + w.heuristic(u, nt) > latest
                || rules.vertex_blocked(u, nt)
                || rules.edge_blocked(v, u, nt)
            {
                continue;
            }
            let c = conflicts + rules.soft_conflicts(v, u, nt);
            let k = w.key(u, nt);
            match index.get(&k) {
                Some(&other) => {
                    let o = &mut nodes[other as usize];
                    if o.closed || o.t != nt || o.conflicts <= c {
                        continue;
                    }
                    o.conflicts = c;
                    o.parent = id;
                    open.push((
                        Reverse(nt + w.heuristic(u, nt)),
                        Reverse(c),
                        Reverse(h.at(u)),
                        nt,
                        Reverse(other),
                    ));
                }
                None => {
                    let new = insert_node(&mut nodes, &mut index, k, Node::open(u, nt, id, c));
                    open.push((
                        Reverse(nt + w.heuristic(u, nt)),
                        Reverse(c),
                        Reverse(h.at(u)),
                        nt,
                        Reverse(new),
                    ));
                }
            }
        }
    }
    LowResult::NoPath
}

fn recover(nodes: &[Node], mut id: u32) -> Vec<u32> {
    let mut path = Vec::with_capacity(nodes[id as usize].t as usize + 1);
    while id != NONE {
        path.push(nodes[id as usize].v);
        id = nodes[id as usize].parent;
    }
    path.reverse();
    path
}

/// Focal-list entry: fewest soft conflicts, then smallest f, closest to the goal, deepest,
/// oldest.
type FocalEntry = (Reverse<u32>, Reverse<u32>, Reverse<u32>, u32, Reverse<u32>);

/// The generated states not yet expanded, counted by f, and those not yet offered to focal.
#[derive(Default)]
struct OpenByF {
    count: Vec<u32>,
    waiting: Vec<Vec<u32>>,
}

impl OpenByF {
    fn add(&mut self, f: u32, id: u32, offered: bool) {
        let f = f as usize;
        if self.count.len() <= f {
            self.count.resize(f + 1, 0);
            self.waiting.resize_with(f + 1, Vec::new);
        }
        self.count[f] += 1;
        if !offered {
            self.waiting[f].push(id);
        }
    }

    fn remove(&mut self, f: u32) {
        self.count[f as usize] -= 1;
    }

    /// The smallest f at or above `from` with an open state.
    fn min_from(&self, from: u32) -> Option<u32> {
        (from as usize..self.count.len())
            .find(|&f| self.count[f] > 0)
            .map(|f| f as u32)
    }
}

/// A path of cost at most `w` times the optimum under the rules, with few soft conflicts,
/// and a lower bound `lb` on that optimum with `cost <= w * lb`: focal search (Pearl & Kim
/// 1982), EECBS's low level. Focal admits no state above `room` unless `lb` does (the
/// caller's budget for this path: a path within it keeps the whole plan within its bound).
///
/// Focal holds the open states with `f <= w * lb` ordered by soft conflicts first, where
/// `lb` is the largest minimum f of the open states seen so far. Why `lb` bounds the
/// optimum: the heuristic is consistent, so at every moment some state of an optimal path
/// is open with its exact g, and its f is at most the optimum. States collapse after the
/// last rule as in [`space_time_astar`]; since focal does not expand in f order, a state
/// reached again *earlier* takes the earlier time (and is reopened), which keeps that
/// argument and the finite state space.
#[allow(clippy::too_many_arguments)]
pub(crate) fn focal_space_time_astar(
    graph: &Graph,
    start: u32,
    goal: u32,
    h: MapView<'_>,
    rules: &impl Rules,
    weight: Weight,
    room: u32,
    deadline: Deadline,
    budget: &Budget,
) -> LowResult<(Vec<u32>, u32)> {
    let Some(w) = Window::of(start, h, rules) else {
        return LowResult::NoPath;
    };
    let (finish, latest) = (w.finish, w.latest);
    let bound_of = |lb: u32| {
        let scaled = u32::try_from(weight.scale(u64::from(lb))).unwrap_or(u32::MAX);
        scaled.min(room.max(lb))
    };
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: FxHashMap<u64, u32> = FxHashMap::default();
    let mut open = OpenByF::default();
    let mut focal: BinaryHeap<FocalEntry> = BinaryHeap::new();
    let mut lb = w.heuristic(start, 0);
    let mut bound = bound_of(lb);
    let entry = |node: &Node, id: u32| {
        let f = node.t + w.heuristic(node.v, node.t);
        (
            Reverse(node.conflicts),
            Reverse(f),
            Reverse(h.at(node.v)),
            node.t,
            Reverse(id),
        )
    };
    insert_node(
        &mut nodes,
        &mut index,
        w.key(start, 0),
        Node::open(start, 0, NONE, 0),
    );
    open.add(lb, 0, true);
    focal.push(entry(&nodes[0], 0));
    let mut pops: u32 = 0;
    loop {
        let Some((Reverse(conflicts), Reverse(f), _, t, Reverse(id))) = focal.pop() else {
            // Focal is empty: offer the states of the next f (if any is still open).
            let Some(min) = open.min_from(lb) else {
                return LowResult::NoPath;
            };
            lb = lb.max(min);
            let new_bound = bound_of(lb);
            for g in bound.saturating_add(1)..=new_bound.min(open.waiting.len() as u32 - 1) {
                for id in std::mem::take(&mut open.waiting[g as usize]) {
                    let node = &nodes[id as usize];
                    if !node.closed && node.t + w.heuristic(node.v, node.t) == g {
                        focal.push(entry(node, id));
                    }
                }
            }
            bound = bound.max(new_bound);
            continue;
        };
        if let Some(limit) = over_limits(&mut pops, deadline, budget, nodes.len()) {
            return LowResult::Stopped(limit);
        }
        let node = &mut nodes[id as usize];
        if node.closed || node.conflicts != conflicts || node.t != t {
            continue;
        }
        node.closed = true;
        open.remove(f);
        let v = node.v;
        if v == goal && t >= finish {
            // Lift the bound to the open minimum now: still at most the optimum.
            let lb = open.min_from(lb).map_or(t, |min| lb.max(min.min(t)));
            return LowResult::Found((recover(&nodes, id), lb));
        }
        let nt = t + 1;
        for u in graph.neighbours(v).chain(std::iter::once(v)) {
            let nf = nt + w.heuristic(u, nt);
            if h.at(u) == FAR
                || nf > latest
                || rules.vertex_blocked(u, nt)
                || rules.edge_blocked(v, u, nt)
            {
                continue;
            }
            let c = conflicts + rules.soft_conflicts(v, u, nt);
            let k = w.key(u, nt);
            let target = match index.get(&k) {
                Some(&other) => {
                    let o = &mut nodes[other as usize];
                    let earlier = nt < o.t;
                    if !earlier && (o.closed || o.t != nt || o.conflicts <= c) {
                        continue;
                    }
                    if !o.closed {
                        open.remove(o.t + w.heuristic(o.v, o.t));
                    }
                    o.t = nt;
                    o.conflicts = c;
                    o.parent = id;
                    o.closed = false;
                    other
                }
                None => insert_node(&mut nodes, &mut index, k, Node::open(u, nt, id, c)),
            };
            let offered = nf <= bound;
            open.add(nf, target, offered);
            if offered {
                focal.push(entry(&nodes[target as usize], target));
            }
        }
    }
}

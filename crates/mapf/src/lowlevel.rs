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
use crate::util::{Deadline, FAR, FxHashMap, Graph, MapView, NONE};

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
pub(crate) enum LowResult {
    /// `path[t]` is the cell at time `t`; the last entry is the goal, the first arrival after
    /// which the agent can stay.
    Found(Vec<u32>),
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
    if h.at(start) == FAR {
        return LowResult::NoPath;
    }
    let finish = rules.earliest_finish();
    let cap = rules.last_rule_time().saturating_add(1).max(finish);
    let key = |v: u32, t: u32| (u64::from(v) << 32) | u64::from(t.min(cap));
    let heuristic = |v: u32, t: u32| h.at(v).max(finish.saturating_sub(t));
    let latest = rules.latest_finish();
    if finish > latest || heuristic(start, 0) > latest {
        return LowResult::NoPath;
    }
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: FxHashMap<u64, u32> = FxHashMap::default();
    let mut open: BinaryHeap<OpenEntry> = BinaryHeap::new();
    nodes.push(Node {
        v: start,
        t: 0,
        parent: NONE,
        conflicts: 0,
        closed: false,
    });
    index.insert(key(start, 0), 0);
    open.push((
        Reverse(heuristic(start, 0)),
        Reverse(0),
        Reverse(h.at(start)),
        0,
        Reverse(0),
    ));
    let mut pops: u32 = 0;
    while let Some((_, Reverse(conflicts), _, _, Reverse(id))) = open.pop() {
        pops = pops.wrapping_add(1);
        if pops.is_multiple_of(1024) {
            if deadline.passed() {
                return LowResult::Stopped(deadline.reached());
            }
            let held = nodes.len() as u64 * STATE_BYTES;
            if let Err(limit) = budget.check("a single-agent space-time search", held) {
                return LowResult::Stopped(limit);
            }
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
                || nt + heuristic(u, nt) > latest
                || rules.vertex_blocked(u, nt)
                || rules.edge_blocked(v, u, nt)
            {
                continue;
            }
            let c = conflicts + rules.soft_conflicts(v, u, nt);
            let k = key(u, nt);
            match index.get(&k) {
                Some(&other) => {
                    let o = &mut nodes[other as usize];
                    if o.closed || o.t != nt || o.conflicts <= c {
                        continue;
                    }
                    o.conflicts = c;
                    o.parent = id;
                    open.push((
                        Reverse(nt + heuristic(u, nt)),
                        Reverse(c),
                        Reverse(h.at(u)),
                        nt,
                        Reverse(other),
                    ));
                }
                None => {
                    let new = nodes.len() as u32;
                    nodes.push(Node {
                        v: u,
                        t: nt,
                        parent: id,
                        conflicts: c,
                        closed: false,
                    });
                    index.insert(k, new);
                    open.push((
                        Reverse(nt + heuristic(u, nt)),
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

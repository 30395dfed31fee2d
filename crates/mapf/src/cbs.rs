//! Conflict-based search (Sharon et al. 2015) for the optimal sum of costs, and EECBS (Li, Ruml
//! & Koenig 2021) within a factor `w` of it, on one constraint tree with the improvements of
//! ICBS/CBSH2:
//! - conflicts classified as cardinal, semi-cardinal or non-cardinal through MDDs, and split
//!   cardinal-first (earliest first within a class);
//! - bypassing: a child with the parent's cost and fewer conflicts lends its path to the
//!   parent instead of splitting;
//! - target reasoning (Li et al. 2020): a conflict with an agent that has finished on its goal
//!   splits on that agent's length ("finishes by t", which closes the goal to everyone else
//!   from t, or "finishes after t"), which partitions the solutions and prunes every later
//!   visit of that goal in one branch;
//! - rectangle reasoning (Li, Harabor, Stuckey, Ma & Koenig 2019): a vertex conflict between
//!   two agents on shortest walks from their starts that cross inside a rectangle is split by
//!   two barrier constraints ([`Cbs::rectangle`] proves the split loses no solution),
//!   classified by whether each barrier raises its agent's cost (EECBS: only where both
//!   paths cost their lower bounds); one split replaces the exponentially many vertex splits
//!   of the symmetric crossing;
//! - an admissible CT-node heuristic: the minimum vertex cover of the cardinal conflict graph
//!   (Felner et al. 2018), so nodes are ordered by `cost + h` and the first conflict-free node
//!   popped is optimal.
//!
//! EECBS differs in two places only: the low level is the focal search of
//! [`crate::lowlevel::focal_space_time_astar`] (a path within `w` of the agent's optimum with
//! few conflicts, and a lower bound on that optimum), and nodes are chosen by explicit
//! estimation search ([`Cbs::bounded`]) instead of by `cost + h`.
//!
//! The low level is the space-time A* of [`crate::lowlevel`] with the agent's sparse
//! constraints, its goal's distance map as heuristic and the other agents' paths as
//! tie-breaking soft conflicts. Paths and MDDs live in arenas; CT nodes hold ids.
//!
//! With [`crate::LowLevel::Wavefront`] the low level is instead
//! [`cuplan_wavefront::space_time_astar`] with the agent's constraints as
//! [`cuplan_reservations::Constraints`]. That search has no latest finish time, so target
//! reasoning is off (target conflicts split as plain vertex conflicts, which is the classic,
//! still optimal, CBS split), and no soft conflicts, so ties are broken by the wavefront's
//! own path recovery. Everything else (MDD classification, bypassing, the heuristic) is
//! shared.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

use cuplan_reservations::Constraints;
use cuplan_wavefront::SpaceTimeResult;

use crate::layered::World;
use crate::limit::{Budget, Halt};
use crate::lowlevel::{LowResult, Rules, focal_space_time_astar, space_time_astar};
use crate::util::{
    Deadline, DistTable, FxHashMap, FxHashSet, Graph, NONE, Weight, drop_in_background,
};

pub(crate) enum CbsResult {
    /// The paths and a proven lower bound on the optimal sum of costs (their own cost for
    /// optimal CBS; EECBS's cost is within its factor of it).
    Solved {
        paths: Vec<Vec<u32>>,
        lower_bound: u64,
    },
    /// The constraint tree was exhausted: a proof.
    NoSolution,
    Halted(Halt),
}

/// The constraint tree's memory (nodes, path and MDD arenas, the open list), as named in a
/// [`crate::Limit::Memory`]. CBS cannot prove most unsolvable instances (two agents swapping in a
/// corridor grow the tree forever), so this bound, like the time limit, is what ends them.
const TREE: &str = "the CBS constraint tree";

/// One rule for one agent, added by a split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Constraint {
    agent: u32,
    rule: Rule,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Not on `v` at `t`.
    Vertex { v: u32, t: u32 },
    /// Not moving `from -> v` arriving at `t`.
    Edge { from: u32, v: u32, t: u32 },
    /// The agent, whose goal is `goal`, finishes by `t`: nobody else may be on `goal` from `t`
    /// on.
    FinishBy { goal: u32, t: u32 },
    /// The agent finishes after `t`.
    FinishAfter { t: u32 },
    /// Not on any of the `len` cells `v, v + step, ...`, the `k`-th at `t + k` (a rectangle
    /// conflict's barrier; cells that are blocked are skipped).
    Barrier { v: u32, t: u32, step: i32, len: u32 },
}

impl Rule {
    /// The last time step this rule speaks of.
    fn last(&self) -> u32 {
        match *self {
            Rule::Vertex { t, .. }
            | Rule::Edge { t, .. }
            | Rule::FinishBy { t, .. }
            | Rule::FinishAfter { t } => t,
            Rule::Barrier { t, len, .. } => t + len - 1,
        }
    }

    /// A vertex or barrier rule as its segment `(v, t, step, len)`: it forbids the `k`-th cell
    /// `v + k * step` at `t + k` for `k < len`.
    fn segment(&self) -> Option<(u32, u32, i32, u32)> {
        match *self {
            Rule::Vertex { v, t } => Some((v, t, 0, 1)),
            Rule::Barrier { v, t, step, len } => Some((v, t, step, len)),
            _ => None,
        }
    }

    /// The `(cell, time)` pairs a vertex or barrier rule forbids (none for the others).
    fn cells(&self) -> impl Iterator<Item = (u32, u32)> + use<> {
        let (v, t, step, len) = self.segment().unwrap_or((0, 0, 0, 0));
        (0..len).map(move |k| (v.wrapping_add_signed(step * k as i32), t + k))
    }

    /// Whether this vertex or barrier rule forbids `v` at `t` (in O(1): the low level asks
    /// for every move).
    fn covers(&self, v: u32, t: u32) -> bool {
        self.segment().is_some_and(|(first, from, step, len)| {
            t >= from && t - from < len && first.wrapping_add_signed(step * (t - from) as i32) == v
        })
    }

    /// [`Rule::cells`] on free cells only (blocked cells need no constraint).
    fn vertices<'g>(&self, graph: &'g Graph) -> impl Iterator<Item = (u32, u32)> + 'g {
        self.cells().filter(|&(u, _)| graph.free[u as usize])
    }
}

/// A conflict between agents `a < b` at time `t`: both on `v` (`from == NONE`), or `a` moving
/// `from -> v` while `b` moves `v -> from`, arriving at `t`. `rest` is the agent (if any)
/// that has already finished on `v`, its goal: a target conflict. `rectangle`: the vertex
/// conflict is split by [`Cbs::rectangle`]'s barriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Conflict {
    t: u32,
    a: u32,
    b: u32,
    from: u32,
    v: u32,
    rest: u32,
    rectangle: bool,
}

impl Conflict {
    fn vertex(t: u32, a: u32, b: u32, v: u32) -> Conflict {
        Conflict {
            t,
            a,
            b,
            from: NONE,
            v,
            rest: NONE,
            rectangle: false,
        }
    }

    /// The two branches, each with the agent to replan, as a plain (not rectangle) split.
    ///
    /// A target conflict splits on the finished agent's length (Li et al. 2020): either it
    /// finishes by `t`, and then nobody else may stand on its goal from `t` on (the other
    /// agent is replanned), or it finishes after `t`. Unlike the vertex split, the two
    /// branches partition the solutions and the first prunes every later visit at once.
    fn branches(&self) -> [(Constraint, u32); 2] {
        let on = |agent, rule| (Constraint { agent, rule }, agent);
        let t = self.t;
        if self.rest != NONE {
            let other = if self.rest == self.a { self.b } else { self.a };
            // "Finishes by" is the finished agent's rule, but it is the other agent, kept off
            // the goal from `t` on, that must be replanned.
            let by = Constraint {
                agent: self.rest,
                rule: Rule::FinishBy { goal: self.v, t },
            };
            return [(by, other), on(self.rest, Rule::FinishAfter { t })];
        }
        if self.from == NONE {
            let rule = Rule::Vertex { v: self.v, t };
            return [on(self.a, rule), on(self.b, rule)];
        }
        [
            on(
                self.a,
                Rule::Edge {
                    from: self.from,
                    v: self.v,
                    t,
                },
            ),
            on(
                self.b,
                Rule::Edge {
                    from: self.v,
                    v: self.from,
                    t,
                },
            ),
        ]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Cardinal = 0,
    SemiCardinal = 1,
    NonCardinal = 2,
}

impl Class {
    /// The class of a split whose branches raise the first and the second agent's cost.
    fn of(first: bool, second: bool) -> Class {
        match (first, second) {
            (true, true) => Class::Cardinal,
            (false, false) => Class::NonCardinal,
            _ => Class::SemiCardinal,
        }
    }
}

/// What CBS needs of a multi-valued decision diagram (the union of an agent's cost-optimal
/// paths under its constraints): `single[t]` is the one cell every such path visits at time
/// `t`, or `NONE` when they differ.
#[derive(Debug)]
struct Mdd {
    single: Vec<u32>,
}

impl Mdd {
    /// Whether every optimal path is on `v` at `t` (an agent past its cost rests on its goal).
    fn forces_vertex(&self, v: u32, t: u32) -> bool {
        match self.single.get(t as usize) {
            Some(&cell) => cell == v,
            None => true,
        }
    }

    fn forces_edge(&self, from: u32, v: u32, t: u32) -> bool {
        t >= 1
            && self.forces_vertex(from, t - 1)
            && self.forces_vertex(v, t)
            && (t as usize) < self.single.len()
    }
}

/// A constraint-tree node. Paths and MDDs live in arenas of the search and nodes hold ids,
/// so a node is a few small vectors: cheap to copy and, above all, cheap to drop when the
/// time limit ends a search with a million nodes.
struct CtNode {
    parent: u32,
    constraint: Option<Constraint>,
    paths: Vec<u32>,
    mdds: Vec<u32>,
    cost: u64,
    h: u64,
    /// EECBS: a lower bound on every solution below this node (the sum of its paths' lower
    /// bounds plus `h`, and never below its parent's).
    lb: u64,
    /// EECBS: the inadmissible cost estimate f^ in 1/1024ths.
    fhat: u64,
    /// Number of conflicting agent pairs.
    conflicts: usize,
    chosen: Option<Conflict>,
}

impl CtNode {
    fn f(&self) -> u64 {
        self.cost + self.h
    }
}

/// The rules one agent's low-level search obeys in a CT node.
struct AgentRules<'a> {
    vertex: FxHashSet<u64>,
    edges: FxHashSet<(u32, u32, u32)>,
    /// Cells closed from a time on (other agents' goals under "finishes by").
    barrier: FxHashMap<u32, u32>,
    finish: u32,
    latest: u32,
    last: u32,
    avoid: Option<&'a Avoid>,
}

fn key(v: u32, t: u32) -> u64 {
    (u64::from(v) << 32) | u64::from(t)
}

impl Rules for AgentRules<'_> {
    fn vertex_blocked(&self, v: u32, t: u32) -> bool {
        self.vertex.contains(&key(v, t))
            || (!self.barrier.is_empty() && self.barrier.get(&v).is_some_and(|&from| t >= from))
    }

    fn edge_blocked(&self, from: u32, to: u32, t: u32) -> bool {
        !self.edges.is_empty() && self.edges.contains(&(from, to, t))
    }

    fn earliest_finish(&self) -> u32 {
        self.finish
    }

    fn latest_finish(&self) -> u32 {
        self.latest
    }

    fn last_rule_time(&self) -> u32 {
        self.last
    }

    fn soft_conflicts(&self, from: u32, to: u32, t: u32) -> u32 {
        self.avoid.map_or(0, |a| a.conflicts(from, to, t))
    }
}

/// An agent's rules and one barrier more, checked cell by cell (to classify a rectangle).
struct WithBarrier<'r, 'a> {
    base: &'r AgentRules<'a>,
    barrier: Rule,
    finish: u32,
}

impl<'r, 'a> WithBarrier<'r, 'a> {
    fn new(base: &'r AgentRules<'a>, barrier: Rule, goal: u32) -> WithBarrier<'r, 'a> {
        // A barrier on the goal at `t` means finishing after `t`, as in `rules_from`.
        let finish = barrier
            .cells()
            .filter(|&(v, _)| v == goal)
            .fold(base.finish, |f, (_, t)| f.max(t + 1));
        WithBarrier {
            base,
            barrier,
            finish,
        }
    }
}

impl Rules for WithBarrier<'_, '_> {
    fn vertex_blocked(&self, v: u32, t: u32) -> bool {
        self.base.vertex_blocked(v, t) || self.barrier.covers(v, t)
    }

    fn edge_blocked(&self, from: u32, to: u32, t: u32) -> bool {
        self.base.edge_blocked(from, to, t)
    }

    fn earliest_finish(&self) -> u32 {
        self.finish
    }

    fn latest_finish(&self) -> u32 {
        self.base.latest
    }

    fn last_rule_time(&self) -> u32 {
        self.base.last.max(self.barrier.last())
    }
}

/// Where the other agents are (the conflict avoidance table).
struct Avoid {
    at: FxHashMap<u64, u32>,
    rest_from: FxHashMap<u32, u32>,
    horizon: u32,
}

impl Avoid {
    fn empty() -> Avoid {
        Avoid {
            at: FxHashMap::default(),
            rest_from: FxHashMap::default(),
            horizon: 0,
        }
    }

    fn new(paths: &[&[u32]], except: usize) -> Avoid {
        let total: usize = paths.iter().map(|p| p.len()).sum();
        let mut avoid = Avoid {
            at: FxHashMap::with_capacity_and_hasher(total, Default::default()),
            rest_from: FxHashMap::with_capacity_and_hasher(paths.len(), Default::default()),
            horizon: 0,
        };
        for (agent, path) in paths.iter().enumerate() {
            if agent != except {
                avoid.add(agent, path);
            }
        }
        avoid
    }

    fn add(&mut self, agent: usize, path: &[u32]) {
        let Some(&last) = path.last() else { return };
        for (t, &v) in path.iter().enumerate() {
            self.at.insert(key(v, t as u32), agent as u32);
        }
        self.rest_from.insert(last, (path.len() - 1) as u32);
        self.horizon = self.horizon.max(path.len() as u32);
    }

    fn conflicts(&self, from: u32, to: u32, t: u32) -> u32 {
        let mut c = u32::from(self.at.contains_key(&key(to, t)));
        if self.rest_from.get(&to).is_some_and(|&r| r < t) {
            c += 1;
        }
        if from != to
            && t > 0
            && let Some(x) = self.at.get(&key(to, t - 1))
            && self.at.get(&key(from, t)) == Some(x)
        {
            c += 1;
        }
        c
    }
}

struct Cbs<'a> {
    graph: &'a Graph,
    dist: &'a DistTable<'a>,
    starts: &'a [u32],
    goals: &'a [u32],
    goal_owner: Vec<u32>,
    deadline: Deadline,
    nodes: Vec<CtNode>,
    path_store: Vec<Vec<u32>>,
    /// Each stored path's lower bound on its agent's optimal cost under the constraints it
    /// was planned with (its own cost in optimal CBS).
    path_lb: Vec<u32>,
    mdd_store: Vec<Mdd>,
    /// The dense table of who stands where that finding a node's conflicts fills and then
    /// empties again (kept across nodes: filling a fresh one cost more than hashing).
    occupants: std::cell::RefCell<Vec<u32>>,
    /// EECBS's suboptimality factor; `None` for optimal CBS.
    weight: Option<Weight>,
    /// Whether rectangle conflicts are split by barriers.
    rectangles: bool,
    /// EECBS: the sum of costs a new node may have and still be expanded from FOCAL
    /// (`w * min lb`); the low level keeps a replanned path within what is left of it.
    room: u64,
    /// What the tree may still take.
    budget: Budget,
    /// The layered low level, when chosen.
    wavefront: Option<Wavefront<'a>>,
}

/// The wavefront low level: the world and, per agent, the largest finite distance to its
/// goal (the horizon beyond the last constraint that makes "no path" a proof).
struct Wavefront<'a> {
    world: World<'a>,
    max_dist: Vec<u32>,
}

/// What a constraint-tree search is asked: the instance, EECBS's factor (`None` for optimal
/// CBS) and whether to use rectangle reasoning.
pub(crate) struct Tree<'a> {
    pub(crate) graph: &'a Graph,
    pub(crate) dist: &'a DistTable<'a>,
    pub(crate) starts: &'a [u32],
    pub(crate) goals: &'a [u32],
    pub(crate) weight: Option<Weight>,
    pub(crate) rectangles: bool,
}

/// Optimal CBS or EECBS within the tree's weight of the optimum.
pub(crate) fn cbs(
    tree: &Tree<'_>,
    deadline: Deadline,
    budget: Budget,
    wavefront: Option<World<'_>>,
) -> CbsResult {
    let Tree {
        graph,
        dist,
        starts,
        goals,
        weight,
        rectangles,
    } = *tree;
    let mut goal_owner = vec![NONE; graph.len()];
    for (a, &g) in goals.iter().enumerate() {
        goal_owner[g as usize] = a as u32;
    }
    let mut search = Cbs {
        graph,
        dist,
        starts,
        goals,
        goal_owner,
        deadline,
        nodes: Vec::new(),
        path_store: Vec::new(),
        path_lb: Vec::new(),
        mdd_store: Vec::new(),
        occupants: std::cell::RefCell::new(Vec::new()),
        weight,
        rectangles,
        room: u64::MAX,
        budget,
        wavefront: wavefront.map(|world| Wavefront {
            world,
            max_dist: (0..starts.len())
                .map(|a| dist.map(a).max_finite())
                .collect(),
        }),
    };
    let result = match search.run() {
        Ok(Some((paths, lower_bound))) => CbsResult::Solved { paths, lower_bound },
        Ok(None) => CbsResult::NoSolution,
        Err(halt) => CbsResult::Halted(halt),
    };
    let garbage = (search.nodes, search.path_store, search.mdd_store);
    drop_in_background(garbage);
    result
}

/// A solution's paths and the lower bound proven on the optimal sum of costs.
type Proven = (Vec<Vec<u32>>, u64);

impl Cbs<'_> {
    /// The solution's paths and the proven lower bound, `None` when the tree is exhausted.
    fn run(&mut self) -> Result<Option<Proven>, Halt> {
        let n = self.starts.len();
        let mut planned = Vec::with_capacity(n);
        let mut avoid = Avoid::empty();
        for agent in 0..n {
            self.check_time()?;
            let rules = self.rules_from(&[], agent, Some(&avoid));
            let Some((path, lb)) = self.low_level(agent, &rules, &[], u64::MAX)? else {
                return Ok(None);
            };
            avoid.add(agent, &path);
            planned.push((path, lb));
        }
        let paths = planned
            .into_iter()
            .map(|(p, lb)| self.store_path(p, lb))
            .collect::<Result<Vec<u32>, Halt>>()?;
        let mut root = CtNode {
            parent: NONE,
            constraint: None,
            cost: 0,
            h: 0,
            lb: 0,
            fhat: 0,
            paths,
            mdds: vec![NONE; n],
            conflicts: 0,
            chosen: None,
        };
        self.evaluate(&mut root, &[])?;
        self.push_node(root)?;
        match self.weight {
            None => self.optimal(),
            Some(weight) => self.bounded(weight),
        }
    }

    /// The paths of node `id`.
    fn solution(&self, id: u32) -> Vec<Vec<u32>> {
        let node = &self.nodes[id as usize];
        node.paths
            .iter()
            .map(|&p| self.path_store[p as usize].clone())
            .collect()
    }

    /// Best-first on `cost + h`: the first conflict-free node is optimal.
    fn optimal(&mut self) -> Result<Option<Proven>, Halt> {
        let mut open = BinaryHeap::new();
        open.push(self.entry(0));
        while let Some((_, _, Reverse(id))) = open.pop() {
            self.check_time()?;
            let Some(conflict) = self.nodes[id as usize].chosen else {
                return Ok(Some((self.solution(id), self.nodes[id as usize].cost)));
            };
            let mut children = Vec::new();
            let mut bypassed = false;
            for (constraint, replan) in self.branches(id, conflict) {
                let agent = replan as usize;
                let Some(child) = self.child(id, constraint, agent)? else {
                    continue;
                };
                let parent = &self.nodes[id as usize];
                if child.cost == parent.cost && child.conflicts < parent.conflicts {
                    let mut node = std::mem::replace(&mut self.nodes[id as usize], placeholder());
                    node.paths[agent] = child.paths[agent];
                    let all = self.all_constraints(node.parent, node.constraint);
                    self.evaluate(&mut node, &all)?;
                    self.nodes[id as usize] = node;
                    bypassed = true;
                    break;
                }
                children.push(child);
            }
            if bypassed {
                open.push(self.entry(id));
                continue;
            }
            for child in children {
                let cid = self.push_node(child)?;
                open.push(self.entry(cid));
            }
        }
        Ok(None)
    }

    /// EECBS (Li, Ruml & Koenig 2021): explicit estimation search over the constraint tree.
    ///
    /// Three orders over the unexpanded nodes: CLEANUP by the admissible `lb`, OPEN by the
    /// estimate `f^ = cost + h^` (`h^` learnt online from the one-step errors of each
    /// expansion, as in Thayer & Ruml's EES), FOCAL by conflicts among those with
    /// `f^ <= w * min f^`. A node is expanded from FOCAL, else OPEN, if its cost is within `w`
    /// of the smallest `lb`, else CLEANUP's head raises that bound. Every path of a node costs
    /// at most `w` times its lower bound (the low level's promise; bypassing keeps it), so a
    /// conflict-free node popped costs at most `w * min lb <= w * optimum`.
    fn bounded(&mut self, weight: Weight) -> Result<Option<Proven>, Halt> {
        let mut lists = Lists::default();
        let mut learnt = OneStepErrors::default();
        self.nodes[0].fhat = learnt.fhat(&self.nodes[0]);
        lists.insert(&self.nodes, 0, weight);
        loop {
            self.check_time()?;
            let Some(id) = lists.select(&self.nodes, weight) else {
                return Ok(None);
            };
            let lower_bound = lists.lower_bound().unwrap_or(0);
            self.room = weight.scale(lower_bound);
            lists.remove(&self.nodes, id, weight);
            let Some(conflict) = self.nodes[id as usize].chosen else {
                return Ok(Some((self.solution(id), lower_bound)));
            };
            let mut children = Vec::new();
            let mut bypassed = false;
            for (constraint, replan) in self.branches(id, conflict) {
                let agent = replan as usize;
                let Some(child) = self.child(id, constraint, agent)? else {
                    continue;
                };
                let parent = &self.nodes[id as usize];
                let path = child.paths[agent];
                let keeps_promise = weight.admits(
                    (self.path_store[path as usize].len() - 1) as u64,
                    u64::from(self.path_lb[parent.paths[agent] as usize]),
                );
                if keeps_promise
                    && weight.admits(child.cost, lower_bound)
                    && child.conflicts < parent.conflicts
                {
                    let mut node = std::mem::replace(&mut self.nodes[id as usize], placeholder());
                    let lb = self.path_lb[node.paths[agent] as usize];
                    let path = self.path_store[path as usize].clone();
                    node.paths[agent] = self.store_path(path, lb)?;
                    node.mdds[agent] = NONE;
                    let all = self.all_constraints(node.parent, node.constraint);
                    self.evaluate(&mut node, &all)?;
                    node.fhat = learnt.fhat(&node);
                    self.nodes[id as usize] = node;
                    bypassed = true;
                    break;
                }
                children.push(child);
            }
            if bypassed {
                lists.insert(&self.nodes, id, weight);
                continue;
            }
            learnt.learn(&self.nodes[id as usize], &children);
            for mut child in children {
                child.fhat = learnt.fhat(&child);
                let cid = self.push_node(child)?;
                lists.insert(&self.nodes, cid, weight);
            }
        }
    }

    /// `Err` once the deadline has passed.
    fn check_time(&self) -> Result<(), Halt> {
        if self.deadline.passed() {
            return Err(self.deadline.reached().into());
        }
        Ok(())
    }

    /// Adds a node (and its open-list entry) to the tree, within the budget.
    fn push_node(&mut self, node: CtNode) -> Result<u32, Halt> {
        let bytes = std::mem::size_of::<CtNode>()
            + (node.paths.len() + node.mdds.len()) * 4
            + std::mem::size_of::<(Reverse<u64>, Reverse<usize>, Reverse<u32>)>();
        self.budget.charge(TREE, bytes as u64)?;
        self.nodes.push(node);
        Ok((self.nodes.len() - 1) as u32)
    }

    fn entry(&self, id: u32) -> (Reverse<u64>, Reverse<usize>, Reverse<u32>) {
        let node = &self.nodes[id as usize];
        (Reverse(node.f()), Reverse(node.conflicts), Reverse(id))
    }

    /// The child of `parent` with one more constraint and `agent` replanned; `None` when the
    /// agent has no path.
    fn child(
        &mut self,
        parent: u32,
        constraint: Constraint,
        agent: usize,
    ) -> Result<Option<CtNode>, Halt> {
        let mut all = self.all_constraints(parent, None);
        all.push(constraint);
        let views = self.views(&self.nodes[parent as usize].paths);
        let avoid = Avoid::new(&views, agent);
        let rules = self.rules_from(&all, agent, Some(&avoid));
        let p = &self.nodes[parent as usize];
        let others = p.cost - (self.path_store[p.paths[agent] as usize].len() - 1) as u64;
        let room = self.room.saturating_sub(others);
        let Some((path, lb)) = self.low_level(agent, &rules, &all, room)? else {
            return Ok(None);
        };
        let p = &self.nodes[parent as usize];
        // More constraints never lower an agent's optimum.
        let lb = lb.max(self.path_lb[p.paths[agent] as usize]);
        let path = self.store_path(path, lb)?;
        let p = &self.nodes[parent as usize];
        let mut paths = p.paths.clone();
        let mut mdds = p.mdds.clone();
        paths[agent] = path;
        mdds[agent] = NONE;
        let mut node = CtNode {
            parent,
            constraint: Some(constraint),
            cost: 0,
            h: 0,
            lb: p.lb,
            fhat: 0,
            paths,
            mdds,
            conflicts: 0,
            chosen: None,
        };
        self.evaluate(&mut node, &all)?;
        Ok(Some(node))
    }

    /// Every constraint on the way from the root to `id`, plus `extra`.
    fn all_constraints(&self, mut id: u32, extra: Option<Constraint>) -> Vec<Constraint> {
        let mut out: Vec<Constraint> = extra.into_iter().collect();
        while id != NONE {
            let node = &self.nodes[id as usize];
            out.extend(node.constraint);
            id = node.parent;
        }
        out
    }

    fn rules_from<'b>(
        &self,
        all: &[Constraint],
        agent: usize,
        avoid: Option<&'b Avoid>,
    ) -> AgentRules<'b> {
        let goal = self.goals[agent];
        let mut rules = AgentRules {
            vertex: FxHashSet::default(),
            edges: FxHashSet::default(),
            barrier: FxHashMap::default(),
            finish: 0,
            latest: u32::MAX,
            last: avoid.map_or(0, |a| a.horizon),
            avoid,
        };
        for c in all {
            let mine = c.agent as usize == agent;
            if let Rule::FinishBy { goal, t } = c.rule
                && !mine
            {
                let from = rules.barrier.entry(goal).or_insert(t);
                *from = (*from).min(t);
                rules.last = rules.last.max(t);
                continue;
            }
            if !mine {
                continue;
            }
            rules.last = rules.last.max(c.rule.last());
            match c.rule {
                Rule::FinishBy { t, .. } => rules.latest = rules.latest.min(t),
                Rule::FinishAfter { t } => rules.finish = rules.finish.max(t + 1),
                Rule::Edge { from, v, t } => {
                    rules.edges.insert((from, v, t));
                }
                Rule::Vertex { .. } | Rule::Barrier { .. } => {
                    for (v, t) in c.rule.vertices(self.graph) {
                        rules.vertex.insert(key(v, t));
                        if v == goal {
                            rules.finish = rules.finish.max(t + 1);
                        }
                    }
                }
            }
        }
        rules
    }

    fn store_path(&mut self, path: Vec<u32>, lb: u32) -> Result<u32, Halt> {
        self.budget.charge(
            TREE,
            (path.len() * 4 + std::mem::size_of::<Vec<u32>>() + 4) as u64,
        )?;
        self.path_store.push(path);
        self.path_lb.push(lb);
        Ok((self.path_store.len() - 1) as u32)
    }

    fn views(&self, ids: &[u32]) -> Vec<&[u32]> {
        ids.iter()
            .map(|&p| self.path_store[p as usize].as_slice())
            .collect()
    }

    /// The two branches of node `id`'s chosen conflict, each with the agent to replan: a
    /// rectangle's barriers where [`Cbs::evaluate`] chose them, else the plain split. Without
    /// target reasoning (wavefront low level) a target conflict is a plain vertex conflict.
    fn branches(&self, id: u32, conflict: Conflict) -> [(Constraint, u32); 2] {
        if conflict.rectangle
            && let Some(barriers) = self.rectangle(&self.nodes[id as usize].paths, &conflict)
        {
            return barriers.map(|b| (b, b.agent));
        }
        match self.wavefront {
            Some(_) => Conflict {
                rest: NONE,
                ..conflict
            }
            .branches(),
            None => conflict.branches(),
        }
    }

    /// A minimum-cost path of `agent` under `rules` (sparse) or the constraints of `all`
    /// that concern it (wavefront; the same rules without soft conflicts), with its cost as
    /// lower bound; for EECBS a path within the factor of the optimum and a lower bound on it
    /// (focal search, sparse only).
    fn low_level(
        &self,
        agent: usize,
        rules: &AgentRules<'_>,
        all: &[Constraint],
        room: u64,
    ) -> Result<Option<(Vec<u32>, u32)>, Halt> {
        let map = self.dist.map(agent);
        if let Some(weight) = self.weight {
            return match focal_space_time_astar(
                self.graph,
                self.starts[agent],
                self.goals[agent],
                map,
                rules,
                weight,
                u32::try_from(room).unwrap_or(u32::MAX),
                self.deadline,
                &self.budget,
            ) {
                LowResult::Found(found) => Ok(Some(found)),
                LowResult::NoPath => Ok(None),
                LowResult::Stopped(limit) => Err(limit.into()),
            };
        }
        let with_cost = |path: Vec<u32>| {
            let cost = (path.len() - 1) as u32;
            (path, cost)
        };
        if let Some(wavefront) = &self.wavefront {
            return Ok(self
                .low_level_wavefront(wavefront, agent, all)?
                .map(with_cost));
        }
        match space_time_astar(
            self.graph,
            self.starts[agent],
            self.goals[agent],
            map,
            rules,
            self.deadline,
            &self.budget,
        ) {
            LowResult::Found(p) => Ok(Some(with_cost(p))),
            LowResult::NoPath => Ok(None),
            LowResult::Stopped(limit) => Err(limit.into()),
        }
    }

    fn low_level_wavefront(
        &self,
        wavefront: &Wavefront<'_>,
        agent: usize,
        all: &[Constraint],
    ) -> Result<Option<Vec<u32>>, Halt> {
        let world = &wavefront.world;
        let cell = |v| world.graph.cell(v);
        let mut constraints = Constraints::new();
        let mut last = 0;
        for c in all.iter().filter(|c| c.agent as usize == agent) {
            last = last.max(c.rule.last());
            match c.rule {
                Rule::Vertex { .. } | Rule::Barrier { .. } => {
                    for (v, t) in c.rule.vertices(self.graph) {
                        constraints.add_vertex(cell(v), t);
                    }
                }
                // Conflicts only produce adjacent moves, so this cannot fail.
                Rule::Edge { from, v, t } => {
                    constraints
                        .add_edge(cell(from), cell(v), t)
                        .map_err(|e| Halt::Error(e.into()))?;
                }
                Rule::FinishBy { .. } | Rule::FinishAfter { .. } => {}
            }
        }
        // After `last` nothing depends on time: any path arrives within the goal's largest
        // distance after it, so `HorizonExceeded` here is a proof of "no path".
        let horizon = last
            .saturating_add(2)
            .saturating_add(wavefront.max_dist[agent]);
        let mut query = world
            .query(agent, self.starts[agent], self.goals[agent])
            .with_constraints(&constraints)
            .with_horizon(horizon);
        query.max_bytes = self.budget.remaining().into();
        match cuplan_wavefront::space_time_astar(world.grid, &query) {
            Ok(SpaceTimeResult::Found(path)) => Ok(Some(world.ids(&path))),
            Ok(SpaceTimeResult::HorizonExceeded | SpaceTimeResult::Unreachable) => Ok(None),
            Ok(SpaceTimeResult::TimedOut) => Err(self.deadline.reached().into()),
            // Its memory cap is the budget's remainder: a limit, never a false "no path".
            Err(cuplan_wavefront::WavefrontError::TooLarge { what, bytes, .. }) => {
                Err(self.budget.refused(what, bytes).into())
            }
            Err(other) => Err(Halt::Error(other.into())),
        }
    }

    /// Cost, conflicts, their classes, the conflict to split and the heuristic of a node.
    fn evaluate(&mut self, node: &mut CtNode, all: &[Constraint]) -> Result<(), Halt> {
        let views = self.views(&node.paths);
        node.cost = views.iter().map(|p| (p.len() - 1) as u64).sum();
        let conflicts = self.find_conflicts(&views);
        node.conflicts = conflicts.len();
        node.chosen = None;
        node.h = 0;
        let mut best: Option<(Class, Conflict)> = None;
        let mut cardinal_edges = Vec::new();
        // Each agent's rules in this node, built once for its MDD and its barriers.
        let mut rules_of: FxHashMap<u32, AgentRules<'static>> = FxHashMap::default();
        for (i, mut c) in conflicts.into_iter().enumerate() {
            if i % 16 == 15 {
                self.check_time()?;
            }
            let forced_a = self.forced(node, all, &mut rules_of, c.a as usize, &c, true)?;
            let forced_b = self.forced(node, all, &mut rules_of, c.b as usize, &c, false)?;
            let mut class = Class::of(forced_a, forced_b);
            // An EECBS path above its agent's optimum may dodge a barrier at no cost, so a
            // barrier's class says nothing there (measured: with barriers on such pairs EECBS
            // lost 280 agents on random-32-32-10).
            let exact = self.is_exact(node, c.a) && self.is_exact(node, c.b);
            let rectangle = (self.rectangles && exact)
                .then(|| self.rectangle(&node.paths, &c))
                .flatten();
            if let Some(barriers) = rectangle {
                let [x, y] = barriers.map(|b| {
                    let rules = self.rules_of(&mut rules_of, all, b.agent as usize);
                    self.blocks(node, rules, b)
                });
                let by_barriers = Class::of(x?, y?);
                // The barriers prune at least as much as the vertex split on a tie.
                if by_barriers <= class {
                    class = by_barriers;
                    c.rectangle = true;
                }
            }
            if class == Class::Cardinal && exact {
                cardinal_edges.push((c.a, c.b));
            }
            if best.is_none_or(|b| (class, c) < b) {
                best = Some((class, c));
            }
        }
        node.chosen = best.map(|(_, c)| c);
        node.h = vertex_cover(&cardinal_edges);
        let lbs: u64 = node
            .paths
            .iter()
            .map(|&p| u64::from(self.path_lb[p as usize]))
            .sum();
        node.lb = node.lb.max(lbs + node.h);
        Ok(())
    }

    /// Whether `agent`'s path in `node` costs its lower bound, so that it is optimal under the
    /// node's constraints (always in optimal CBS). Only then does a cardinal conflict say
    /// something about the lower bound: it forces one of the two agents above its path's
    /// cost, and an EECBS path above its bound may have cheaper, conflict-free alternatives.
    fn is_exact(&self, node: &CtNode, agent: u32) -> bool {
        let path = node.paths[agent as usize] as usize;
        (self.path_store[path].len() - 1) as u32 == self.path_lb[path]
    }

    /// Whether every optimal path of `agent` (under the node's constraints) is in conflict
    /// `c`: a constraint against it must raise the agent's cost.
    fn forced(
        &mut self,
        node: &mut CtNode,
        all: &[Constraint],
        rules_of: &mut FxHashMap<u32, AgentRules<'static>>,
        agent: usize,
        c: &Conflict,
        is_a: bool,
    ) -> Result<bool, Halt> {
        if node.mdds[agent] == NONE {
            let cost = (self.path_store[node.paths[agent] as usize].len() - 1) as u32;
            let rules = self.rules_of(rules_of, all, agent);
            let mdd = self.build_mdd(agent, cost, rules)?;
            let bytes = mdd.single.len() * 4 + std::mem::size_of::<Mdd>();
            self.budget.charge(TREE, bytes as u64)?;
            self.mdd_store.push(mdd);
            node.mdds[agent] = (self.mdd_store.len() - 1) as u32;
        }
        let mdd = &self.mdd_store[node.mdds[agent] as usize];
        Ok(if c.from == NONE {
            mdd.forces_vertex(c.v, c.t)
        } else if is_a {
            mdd.forces_edge(c.from, c.v, c.t)
        } else {
            mdd.forces_edge(c.v, c.from, c.t)
        })
    }

    /// `agent`'s rules under `all` (no soft conflicts), from `cache` or built into it.
    fn rules_of<'m>(
        &self,
        cache: &'m mut FxHashMap<u32, AgentRules<'static>>,
        all: &[Constraint],
        agent: usize,
    ) -> &'m AgentRules<'static> {
        cache
            .entry(agent as u32)
            .or_insert_with(|| self.rules_from(all, agent, None))
    }

    /// Whether `barrier` raises its agent's cost: no path of the agent's current cost obeys it
    /// and `rules`, the agent's rules in the node.
    fn blocks(
        &self,
        node: &CtNode,
        rules: &AgentRules<'_>,
        barrier: Constraint,
    ) -> Result<bool, Halt> {
        let agent = barrier.agent as usize;
        let cost = (self.path_store[node.paths[agent] as usize].len() - 1) as u32;
        let with = WithBarrier::new(rules, barrier.rule, self.goals[agent]);
        if with.earliest_finish() > cost {
            return Ok(true);
        }
        let levels = self.mdd_levels(agent, cost, &with)?;
        Ok(levels[cost as usize].is_empty())
    }

    /// The rectangle conflict (Li, Harabor, Stuckey, Ma & Koenig 2019) behind the vertex
    /// conflict `c`, as the two barrier constraints to branch on: `None` where there is none.
    ///
    /// It exists when both agents reach `c.v` at `c.t` on a shortest walk in the open grid
    /// from their starts (`t` = Manhattan distance) going the same way along each axis. Seen
    /// in the frame where both go right and down, each cell `p` has one arrival time
    /// `T(p) = c0 + p.x + p.y` for both, their starts lie on one anti-diagonal, so one agent
    /// ("left") starts left of the other ("top") and below it. `R` is the rectangle from
    /// `(top's start column, left's start row)` to `(X, Y)`. Left's barrier is R's right side
    /// (column `X`), top's its bottom side (row `Y`), each cell `p` at time `T(p)`.
    ///
    /// Why the two branches lose no solution: if left stands on its barrier at `T(p)`, it
    /// has walked there in exactly Manhattan-distance steps, so monotonically, and within R's
    /// columns that walk stays in R's rows: a 4-connected crossing of R from its left side
    /// to its right side. Likewise top's walk crosses R from top to bottom. Two such
    /// crossings share a cell `q`, and both agents are on `q` at `T(q)`: a conflict. So every
    /// conflict-free solution obeys one of the two barriers, whatever the constraints above.
    ///
    /// `(X, Y)` is the largest corner at or beyond `c.v` (within both agents' monotone
    /// walks) that keeps both current paths on their barriers, so that each branch must
    /// replan its agent.
    fn rectangle(&self, paths: &[u32], c: &Conflict) -> Option<[Constraint; 2]> {
        if c.from != NONE || c.rest != NONE {
            return None;
        }
        let xy = |v: u32| {
            let cell = self.graph.cell(v);
            (i64::from(cell.x), i64::from(cell.y))
        };
        let manhattan = |p: (i64, i64), q: (i64, i64)| (p.0 - q.0).abs() + (p.1 - q.1).abs();
        let (a, b) = (c.a as usize, c.b as usize);
        let (sa, sb, at) = (xy(self.starts[a]), xy(self.starts[b]), xy(c.v));
        let t = i64::from(c.t);
        if manhattan(sa, at) != t || manhattan(sb, at) != t {
            return None;
        }
        // Each axis needs one direction both walks follow; a walk that has not moved along
        // it yet takes the other's.
        let agree = |d: i64, e: i64| match (d.signum(), e.signum()) {
            (0, 0) => None,
            (0, s) | (s, 0) => Some(s),
            (s, r) => (s == r).then_some(s),
        };
        let sx = agree(at.0 - sa.0, at.0 - sb.0)?;
        let sy = agree(at.1 - sa.1, at.1 - sb.1)?;
        let frame = |v: u32| {
            let (x, y) = xy(v);
            (sx * x, sy * y)
        };
        // The path from the start for as long as it keeps going right or down.
        let monotone = |agent: usize| {
            let path = self.path_store[paths[agent] as usize].as_slice();
            let mut end = c.t as usize;
            while end + 1 < path.len() {
                let (p, q) = (frame(path[end]), frame(path[end + 1]));
                if q.0 < p.0 || q.1 < p.1 || q.0 + q.1 != p.0 + p.1 + 1 {
                    break;
                }
                end += 1;
            }
            &path[..=end]
        };
        let (left, top) = if frame(self.starts[a]).0 < frame(self.starts[b]).0 {
            (a, b)
        } else {
            (b, a)
        };
        let (walk_left, walk_top) = (monotone(left), monotone(top));
        let near = (frame(self.starts[top]).0, frame(self.starts[left]).1);
        let (end_left, end_top) = (frame(*walk_left.last()?), frame(*walk_top.last()?));
        let far = (end_left.0.min(end_top.0), end_left.1.min(end_top.1));
        let v = frame(c.v);
        // The row where left first reaches each column of R, and the column where top first
        // reaches each row.
        let firsts = |walk: &[u32], along: fn((i64, i64)) -> (i64, i64), lo: i64, hi: i64| {
            let mut first = vec![i64::MAX; (hi - lo + 1) as usize];
            for &u in walk {
                let (k, other) = along(frame(u));
                if (lo..=hi).contains(&k) {
                    let slot = &mut first[(k - lo) as usize];
                    *slot = (*slot).min(other);
                }
            }
            first
        };
        let row_at = firsts(walk_left, |p| p, near.0, far.0);
        let column_at = firsts(walk_top, |(x, y)| (y, x), near.1, far.1);
        // For each right side X, the farthest bottom row Y that top reaches by column X.
        let mut best: Option<(i64, i64, i64)> = None;
        let mut rows = 0;
        for x in v.0..=far.0 {
            while rows < column_at.len() && column_at[rows] <= x {
                rows += 1;
            }
            let y = near.1 + rows as i64 - 1;
            if y < v.1.max(row_at[(x - near.0) as usize]) {
                continue;
            }
            let area = (x - near.0 + 1) * (y - near.1 + 1);
            if best.is_none_or(|(most, _, _)| area > most) {
                best = Some((area, x, y));
            }
        }
        let (area, x, y) = best?;
        if area < 2 {
            return None;
        }
        let width = i64::from(self.graph.width);
        let barrier = |agent: usize, (fx, fy): (i64, i64), step: i64, len: i64| Constraint {
            agent: agent as u32,
            rule: Rule::Barrier {
                v: (sy * fy * width + sx * fx) as u32,
                t: (t - v.0 - v.1 + fx + fy) as u32,
                step: step as i32,
                len: len as u32,
            },
        };
        Some([
            barrier(left, (x, near.1), sy * width, y - near.1 + 1),
            barrier(top, (near.0, y), sx, x - near.0 + 1),
        ])
    }

    fn build_mdd(&self, agent: usize, cost: u32, rules: &AgentRules<'_>) -> Result<Mdd, Halt> {
        let mut levels = self.mdd_levels(agent, cost, rules)?;
        for t in (0..cost as usize).rev() {
            let (head, tail) = levels.split_at_mut(t + 1);
            let after: FxHashSet<u32> = tail[0].iter().copied().collect();
            head[t].retain(|&v| {
                self.graph
                    .neighbours(v)
                    .chain(std::iter::once(v))
                    .any(|u| after.contains(&u) && !rules.edge_blocked(v, u, t as u32 + 1))
            });
        }
        let single = levels
            .iter()
            .map(|l| if l.len() == 1 { l[0] } else { NONE })
            .collect();
        Ok(Mdd { single })
    }

    /// The cells `agent` can be on at each time `0..=cost` on its way to be on its goal at
    /// `cost` under `rules` (the MDD's forward pass; the last level is empty when no such
    /// path exists).
    fn mdd_levels(
        &self,
        agent: usize,
        cost: u32,
        rules: &impl Rules,
    ) -> Result<Vec<Vec<u32>>, Halt> {
        let h = self.dist.map(agent);
        let goal = self.goals[agent];
        let mut levels: Vec<Vec<u32>> = vec![vec![self.starts[agent]]];
        let mut seen: FxHashSet<u32> = FxHashSet::default();
        for t in 1..=cost {
            if t.is_multiple_of(64) {
                self.check_time()?;
            }
            seen.clear();
            let mut next = Vec::new();
            for &v in &levels[t as usize - 1] {
                for u in self.graph.neighbours(v).chain(std::iter::once(v)) {
                    if t + h.at(u) <= cost
                        && (t < cost || u == goal)
                        && !rules.vertex_blocked(u, t)
                        && !rules.edge_blocked(v, u, t)
                        && seen.insert(u)
                    {
                        next.push(u);
                    }
                }
            }
            let stuck = next.is_empty();
            levels.push(next);
            if stuck {
                break;
            }
        }
        levels.resize_with(cost as usize + 1, Vec::new);
        Ok(levels)
    }

    /// The earliest conflict of every conflicting pair, in O(total path length).
    fn find_conflicts(&self, paths: &[&[u32]]) -> Vec<Conflict> {
        let mut scratch = self.occupants.borrow_mut();
        let mut at = Occupants::new(self.graph.len(), paths, &mut scratch);
        let mut earliest: FxHashMap<(u32, u32), Conflict> = FxHashMap::default();
        let mut record = |c: Conflict| {
            let slot = earliest.entry((c.a, c.b)).or_insert(c);
            if c < *slot {
                *slot = c;
            }
        };
        for (a, path) in paths.iter().enumerate() {
            for (t, &v) in path.iter().enumerate() {
                if let Some(b) = at.claim(v, t as u32, a as u32) {
                    record(Conflict::vertex(
                        t as u32,
                        b.min(a as u32),
                        b.max(a as u32),
                        v,
                    ));
                }
                let owner = self.goal_owner[v as usize];
                if owner != NONE && owner as usize != a && t >= paths[owner as usize].len() {
                    let (o, a) = (owner, a as u32);
                    record(Conflict::vertex(t as u32, o.min(a), o.max(a), v));
                }
            }
        }
        for (a, path) in paths.iter().enumerate() {
            for t in 1..path.len() {
                let (from, to) = (path[t - 1], path[t]);
                if from == to {
                    continue;
                }
                let Some(b) = at.get(to, t as u32 - 1) else {
                    continue;
                };
                if (b as usize) > a && paths[b as usize].get(t) == Some(&from) {
                    record(Conflict {
                        from,
                        ..Conflict::vertex(t as u32, a as u32, b, to)
                    });
                }
            }
        }
        at.empty(paths);
        let mut out: Vec<Conflict> = earliest.into_values().collect();
        for c in out.iter_mut().filter(|c| c.from == NONE) {
            let finished = |x: u32| {
                self.goals[x as usize] == c.v && c.t as usize + 1 >= paths[x as usize].len()
            };
            c.rest = if finished(c.a) {
                c.a
            } else if finished(c.b) {
                c.b
            } else {
                NONE
            };
        }
        out.sort_unstable();
        out
    }
}

/// Who stands where in one node's paths (the first agent found on each cell and time), for
/// finding its conflicts: a slot per cell and time in a table kept across nodes where that
/// table is small (the instances CBS solves; hashing every state was 40 % of EECBS's time on
/// random-32-32-10 with 290 agents), else a hash map.
enum Occupants<'s> {
    /// *Invariant*: every slot is [`NONE`] between uses ([`Occupants::empty`]).
    Dense {
        cells: usize,
        slots: &'s mut [u32],
    },
    Sparse(FxHashMap<u64, u32>),
}

impl<'s> Occupants<'s> {
    /// Slots of the kept table at most: 8 MiB.
    const DENSE_SLOTS: usize = 1 << 21;

    /// A table for `paths` on `cells` cells, in `scratch` where it fits.
    fn new(cells: usize, paths: &[&[u32]], scratch: &'s mut Vec<u32>) -> Occupants<'s> {
        let times = paths.iter().map(|p| p.len()).max().unwrap_or(0);
        match cells.checked_mul(times) {
            Some(slots) if slots <= Self::DENSE_SLOTS => {
                if scratch.len() < slots {
                    scratch.resize(slots, NONE);
                }
                Occupants::Dense {
                    cells,
                    slots: &mut scratch[..slots],
                }
            }
            _ => {
                let states: usize = paths.iter().map(|p| p.len()).sum();
                Occupants::Sparse(FxHashMap::with_capacity_and_hasher(
                    states,
                    Default::default(),
                ))
            }
        }
    }

    /// Records `agent` on `v` at `t` unless someone is there already: that one, if so.
    fn claim(&mut self, v: u32, t: u32, agent: u32) -> Option<u32> {
        match self {
            Occupants::Dense { cells, slots } => {
                let slot = &mut slots[t as usize * *cells + v as usize];
                if *slot == NONE {
                    *slot = agent;
                    None
                } else {
                    Some(*slot)
                }
            }
            Occupants::Sparse(at) => match at.entry(key(v, t)) {
                std::collections::hash_map::Entry::Occupied(e) => Some(*e.get()),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(agent);
                    None
                }
            },
        }
    }

    fn get(&self, v: u32, t: u32) -> Option<u32> {
        match self {
            Occupants::Dense { cells, slots } => {
                let a = *slots.get(t as usize * *cells + v as usize)?;
                (a != NONE).then_some(a)
            }
            Occupants::Sparse(at) => at.get(&key(v, t)).copied(),
        }
    }

    /// Clears what `paths` (the ones claimed) filled, for the next use of the kept table.
    fn empty(self, paths: &[&[u32]]) {
        if let Occupants::Dense { cells, slots } = self {
            for path in paths {
                for (t, &v) in path.iter().enumerate() {
                    slots[t * cells + v as usize] = NONE;
                }
            }
        }
    }
}

/// EECBS's three orders over the unexpanded constraint-tree nodes.
#[derive(Default)]
struct Lists {
    cleanup: BTreeSet<(u64, u32)>,
    open: BTreeSet<(u64, u32)>,
    focal: BTreeSet<(usize, u64, u32)>,
    /// `w * min f^` when FOCAL was last brought up to date.
    focal_bound: u64,
}

impl Lists {
    /// Adds node `id` (its keys must not change until it is removed).
    fn insert(&mut self, nodes: &[CtNode], id: u32, weight: Weight) {
        let node = &nodes[id as usize];
        self.cleanup.insert((node.lb, id));
        self.open.insert((node.fhat, id));
        if node.fhat <= self.focal_bound {
            self.focal.insert((node.conflicts, node.fhat, id));
        }
        self.refresh_focal(nodes, weight);
    }

    fn remove(&mut self, nodes: &[CtNode], id: u32, weight: Weight) {
        let node = &nodes[id as usize];
        self.cleanup.remove(&(node.lb, id));
        self.open.remove(&(node.fhat, id));
        self.focal.remove(&(node.conflicts, node.fhat, id));
        self.refresh_focal(nodes, weight);
    }

    /// Keeps FOCAL exactly the OPEN nodes with `f^ <= w * min f^` as that minimum moves.
    fn refresh_focal(&mut self, nodes: &[CtNode], weight: Weight) {
        let bound = self.open.first().map_or(0, |&(f, _)| weight.scale(f));
        let (low, high, add) = match bound.cmp(&self.focal_bound) {
            std::cmp::Ordering::Equal => return,
            std::cmp::Ordering::Greater => (self.focal_bound, bound, true),
            std::cmp::Ordering::Less => (bound, self.focal_bound, false),
        };
        for &(f, id) in self.open.range((low + 1, 0)..=(high, u32::MAX)) {
            let key = (nodes[id as usize].conflicts, f, id);
            if add {
                self.focal.insert(key);
            } else {
                self.focal.remove(&key);
            }
        }
        self.focal_bound = bound;
    }

    fn lower_bound(&self) -> Option<u64> {
        self.cleanup.first().map(|&(lb, _)| lb)
    }

    /// EES's choice: the fewest conflicts, the best estimate, or the best bound.
    fn select(&self, nodes: &[CtNode], weight: Weight) -> Option<u32> {
        let bound = self.lower_bound()?;
        let within = |id: u32| weight.admits(nodes[id as usize].cost, bound);
        if let Some(&(_, _, id)) = self.focal.first()
            && within(id)
        {
            return Some(id);
        }
        if let Some(&(_, id)) = self.open.first()
            && within(id)
        {
            return Some(id);
        }
        self.cleanup.first().map(|&(_, id)| id)
    }
}

/// EES's online correction of the cost estimate: the mean one-step errors of cost (how much
/// a child's `cost + h` exceeds its parent's) and of distance (how far a child's conflict
/// count is from one fewer than its parent's), over every expansion so far.
#[derive(Default)]
struct OneStepErrors {
    cost: f64,
    distance: f64,
    samples: u32,
}

impl OneStepErrors {
    fn learn(&mut self, parent: &CtNode, children: &[CtNode]) {
        let Some(best) = children.iter().min_by_key(|c| (c.f(), c.conflicts)) else {
            return;
        };
        let cost = best.f() as f64 - parent.f() as f64;
        let distance = best.conflicts as f64 + 1.0 - parent.conflicts as f64;
        self.samples += 1;
        let n = f64::from(self.samples);
        self.cost += (cost.max(0.0) - self.cost) / n;
        self.distance += (distance - self.distance) / n;
    }

    /// `cost + h + d^ * mean cost error` with `d^ = conflicts / (1 - mean distance error)`,
    /// in 1/1024ths.
    fn fhat(&self, node: &CtNode) -> u64 {
        let distance = node.conflicts as f64 / (1.0 - self.distance.min(0.99));
        let estimate = node.f() as f64 + distance.max(0.0) * self.cost;
        (estimate * 1024.0).round() as u64
    }
}

fn placeholder() -> CtNode {
    CtNode {
        parent: NONE,
        constraint: None,
        paths: Vec::new(),
        mdds: Vec::new(),
        cost: 0,
        h: 0,
        lb: 0,
        fhat: 0,
        conflicts: 0,
        chosen: None,
    }
}

/// The size of a minimum vertex cover of the cardinal conflict graph (CBSH's CG heuristic,
/// Felner et al. 2018): each cardinal conflict raises one of its two agents' costs, so some
/// cover's worth of agents must each pay at least one more step. Exact for every connected
/// component of up to 64 agents (small in practice: conflicts are local); a larger component
/// counts a maximal matching, which is at most the cover.
fn vertex_cover(edges: &[(u32, u32)]) -> u64 {
    let mut local: FxHashMap<u32, usize> = FxHashMap::default();
    let mut adjacency: Vec<Vec<usize>> = Vec::new();
    for &(a, b) in edges {
        let mut id = |agent: u32| {
            let next = local.len();
            let id = *local.entry(agent).or_insert(next);
            if id == adjacency.len() {
                adjacency.push(Vec::new());
            }
            id
        };
        let (a, b) = (id(a), id(b));
        adjacency[a].push(b);
        adjacency[b].push(a);
    }
    let mut seen = vec![false; adjacency.len()];
    let mut total = 0;
    for root in 0..adjacency.len() {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut component = vec![root];
        let mut next = 0;
        while next < component.len() {
            for &u in &adjacency[component[next]] {
                if !seen[u] {
                    seen[u] = true;
                    component.push(u);
                }
            }
            next += 1;
        }
        total += if component.len() <= 64 {
            let mut bit = vec![0usize; adjacency.len()];
            for (i, &v) in component.iter().enumerate() {
                bit[v] = i;
            }
            let masks: Vec<u64> = component
                .iter()
                .map(|&v| adjacency[v].iter().fold(0, |m, &u| m | 1 << bit[u]))
                .collect();
            let all = if component.len() == 64 {
                u64::MAX
            } else {
                (1 << component.len()) - 1
            };
            u64::from(exact_cover(all, &masks))
        } else {
            let edges: Vec<(u32, u32)> = component
                .iter()
                .flat_map(|&v| adjacency[v].iter().map(move |&u| (v as u32, u as u32)))
                .collect();
            greedy_matching(&edges, adjacency.len())
        };
    }
    total
}

/// Minimum vertex cover of the graph `masks` restricted to `alive`: a degree-1 vertex's
/// neighbour is always in some minimum cover; otherwise branch on a vertex of largest degree
/// (it is in the cover, or all its neighbours are).
fn exact_cover(mut alive: u64, masks: &[u64]) -> u32 {
    let mut taken = 0;
    loop {
        let mut widest = None;
        let mut leaf = None;
        let mut bits = alive;
        while bits != 0 {
            let v = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let degree = (masks[v] & alive).count_ones();
            if degree == 1 {
                leaf = Some(v);
                break;
            }
            if degree > 0 && widest.is_none_or(|(d, _)| degree > d) {
                widest = Some((degree, v));
            }
        }
        if let Some(v) = leaf {
            let neighbour = (masks[v] & alive).trailing_zeros();
            alive &= !(1 << neighbour) & !(1 << v);
            taken += 1;
            continue;
        }
        let Some((_, v)) = widest else {
            return taken;
        };
        let neighbours = masks[v] & alive;
        let with = 1 + exact_cover(alive & !(1 << v), masks);
        let without = neighbours.count_ones() + exact_cover(alive & !neighbours & !(1 << v), masks);
        return taken + with.min(without);
    }
}

/// Size of a greedy maximal matching: a lower bound on the minimum vertex cover.
fn greedy_matching(edges: &[(u32, u32)], agents: usize) -> u64 {
    let mut used = vec![false; agents];
    let mut size = 0;
    for &(a, b) in edges {
        if !used[a as usize] && !used[b as usize] {
            used[a as usize] = true;
            used[b as usize] = true;
            size += 1;
        }
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest cover by trying every subset (the oracle for tiny graphs).
    fn brute_force_cover(edges: &[(u32, u32)], vertices: u32) -> u64 {
        (0u32..1 << vertices)
            .filter(|set| {
                edges
                    .iter()
                    .all(|&(a, b)| set & (1 << a) != 0 || set & (1 << b) != 0)
            })
            .map(|set| u64::from(set.count_ones()))
            .min()
            .unwrap_or(0)
    }

    /// The dense and the hashed table of who stands where answer alike through random paths,
    /// and the kept dense table is empty again after each use.
    #[test]
    fn both_occupant_tables_answer_alike_and_the_kept_one_is_left_empty() {
        let mut rng = crate::util::Rng::new(3);
        let (cells, times) = (40u32, 30u32);
        let mut scratch = Vec::new();
        for round in 0..20 {
            let paths: Vec<Vec<u32>> = (0..1 + rng.below(8))
                .map(|_| {
                    (0..1 + rng.below(times as usize))
                        .map(|_| rng.below(cells as usize) as u32)
                        .collect()
                })
                .collect();
            let views: Vec<&[u32]> = paths.iter().map(Vec::as_slice).collect();
            let mut dense = Occupants::new(cells as usize, &views, &mut scratch);
            assert!(matches!(dense, Occupants::Dense { .. }));
            let mut sparse = Occupants::Sparse(FxHashMap::default());
            for (a, path) in paths.iter().enumerate() {
                for (t, &v) in path.iter().enumerate() {
                    let a = a as u32;
                    assert_eq!(
                        dense.claim(v, t as u32, a),
                        sparse.claim(v, t as u32, a),
                        "round {round}"
                    );
                }
            }
            for v in 0..cells {
                for t in 0..times + 2 {
                    assert_eq!(
                        dense.get(v, t),
                        sparse.get(v, t),
                        "round {round}: {v} at {t}"
                    );
                }
            }
            dense.empty(&views);
            assert!(
                scratch.iter().all(|&s| s == NONE),
                "round {round}: a slot was left filled"
            );
        }
        let big: Vec<&[u32]> = vec![&[0; 3]];
        assert!(matches!(
            Occupants::new(1 << 20, &big, &mut scratch),
            Occupants::Sparse(_)
        ));
    }

    #[test]
    fn vertex_cover_is_minimum_on_random_graphs() {
        let mut rng = crate::util::Rng::new(7);
        for case in 0..2000 {
            let vertices = 1 + rng.below(12) as u32;
            let density = rng.below(100);
            let mut edges = Vec::new();
            for a in 0..vertices {
                for b in a + 1..vertices {
                    if rng.below(100) < density {
                        edges.push((a, b));
                    }
                }
            }
            let expected = brute_force_cover(&edges, vertices);
            assert_eq!(vertex_cover(&edges), expected, "case {case}: {edges:?}");
            assert!(greedy_matching(&edges, vertices as usize) <= expected);
        }
    }

    #[test]
    fn vertex_cover_of_a_large_component_is_a_matching() {
        // A path of 100 agents: one component above the exact limit.
        let edges: Vec<(u32, u32)> = (0..99).map(|a| (a, a + 1)).collect();
        let cover = vertex_cover(&edges);
        assert!((25..=50).contains(&cover), "{cover}");
    }
}

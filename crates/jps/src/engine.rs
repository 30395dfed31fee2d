//! The search engine shared by every algorithm: a reusable node table and a 4-ary heap.
//!
//! Every algorithm is A* over some successor relation: single steps for A*, jump points for the
//! JPS family. An [`Expander`] supplies the successors; [`Searcher::run`] does the rest. Edge
//! costs are always the octile distance between a node and its successor, which is exact
//! because successors lie on a straight or 45° run from their parent (or, for pruned
//! variants, a diagonal run followed by a straight one, whose octile distance is the same).

use std::cmp::Ordering;

use cuplan_grid::{Cell, Direction, Grid, OctileCost};

use crate::heap::{Heap, entry, index_of};

/// An optimal path: waypoints joined by straight or 45° runs, start first, goal last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    /// Start, turning points, goal. A query with start = goal gives `[start]`.
    pub waypoints: Vec<Cell>,
    /// Exact cost of the walk through the waypoints.
    pub cost: OctileCost,
}

/// The result of a search with an expansion limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchOutcome {
    /// An optimal path.
    Found(Path),
    /// The goal cannot be reached from the start.
    NoPath,
    /// The search stopped after the allowed number of expansions without reaching the goal.
    LimitReached,
}

impl SearchOutcome {
    /// The path, if one was found.
    pub fn path(self) -> Option<Path> {
        match self {
            SearchOutcome::Found(p) => Some(p),
            _ => None,
        }
    }
}

/// Work counters of the last query of a [`Searcher`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Nodes taken from the open list and expanded.
    pub expanded: u64,
    /// Successors produced by expansions (before duplicate detection).
    pub generated: u64,
    /// Heap pushes (new nodes and improved ones).
    pub pushes: u64,
}

/// Per-cell search state. `stamp` says whether the rest is valid for the current query:
/// `stamp == open` means generated this query, `open + 1` closed, anything else untouched.
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    stamp: u32,
    parent: u32,
    g: OctileCost,
}

/// Supplies the successors of an expanded node.
pub(crate) trait Expander {
    /// Calls `out` with each successor of `n`, which was reached moving in `arrival`
    /// (`None` for the start).
    fn expand(&self, n: Cell, arrival: Option<Direction>, goal: Cell, out: &mut impl FnMut(Cell));
}

/// Reusable per-thread search state: a node table indexed by cell (validated by a per-query
/// stamp, so nothing is cleared between queries) and a heap. After the first query on a grid
/// no query allocates, unless the heap outgrows its earlier peak.
///
/// One `Searcher` per thread; the grid and planner are shared read-only.
#[derive(Debug, Default)]
pub struct Searcher {
    nodes: Vec<Node>,
    heap: Heap,
    stamp: u32,
    stats: SearchStats,
}

impl Searcher {
    /// An empty searcher; its table grows to the grid on first use.
    pub fn new() -> Searcher {
        Searcher::default()
    }

    /// Counters of the last query.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Bytes held by the node table and the heap.
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.heap.capacity() * std::mem::size_of::<u128>()
    }

    /// Starts a query on a grid of `cells` cells: grows the table if needed and takes a
    /// fresh stamp pair.
    fn begin(&mut self, cells: usize) {
        if self.nodes.len() < cells {
            self.nodes.resize(cells, Node::default());
        }
        if self.stamp >= u32::MAX - 4 {
            self.nodes.fill(Node::default());
            self.stamp = 0;
        }
        self.stamp += 2;
        self.heap.clear();
        self.stats = SearchStats::default();
    }

    /// Records that a query was answered without searching.
    pub(crate) fn reset_stats(&mut self) {
        self.stats = SearchStats::default();
    }

    /// A* from `start` to `goal` (distinct, free, connected) over `expander`'s successors.
    /// `pruned` restores the turning points that pruned variants leave out of parent links.
    pub(crate) fn run<E: Expander>(
        &mut self,
        grid: &Grid,
        expander: &E,
        start: Cell,
        goal: Cell,
        max_expansions: u64,
    ) -> SearchOutcome {
        self.begin(grid.cell_count());
        let width = grid.width();
        let index = |c: Cell| c.y * width + c.x;
        let cell = |i: u32| Cell::new(i % width, i / width);
        let open = self.stamp;
        let closed = open + 1;
        let (start_i, goal_i) = (index(start), index(goal));
        let nodes = &mut self.nodes;
        let heap = &mut self.heap;
        let stats = &mut self.stats;
        nodes[start_i as usize] = Node {
            stamp: open,
            parent: start_i,
            g: OctileCost::ZERO,
        };
        heap.push(entry(OctileCost::between(start, goal).key(), 0, start_i));
        stats.pushes = 1;
        while let Some(e) = heap.pop() {
            let e_index = index_of(e);
            let node = &mut nodes[e_index as usize];
            // Stale entries: the node was closed or improved after this entry was pushed
            // (an improvement lowers g and so f; h is fixed per node).
            if node.stamp != open
                || (node.g + OctileCost::between(cell(e_index), goal)).key() != crate::heap::f_of(e)
            {
                continue;
            }
            node.stamp = closed;
            if e_index == goal_i {
                return SearchOutcome::Found(self.reconstruct(grid, start_i, goal_i));
            }
            if stats.expanded >= max_expansions {
                return SearchOutcome::LimitReached;
            }
            stats.expanded += 1;
            let (g, parent) = (node.g, node.parent);
            let n = cell(e_index);
            let arrival = (e_index != start_i).then(|| arrival_direction(cell(parent), n));
            expander.expand(n, arrival, goal, &mut |succ: Cell| {
                stats.generated += 1;
                let si = index(succ);
                let ng = g + OctileCost::between(n, succ);
                let key = ng.key();
                let node = &mut nodes[si as usize];
                if node.stamp == closed || (node.stamp == open && key >= node.g.key()) {
                    return;
                }
                *node = Node {
                    stamp: open,
                    parent: e_index,
                    g: ng,
                };
                heap.push(entry(key + OctileCost::between(succ, goal).key(), key, si));
                stats.pushes += 1;
            });
        }
        SearchOutcome::NoPath
    }

    /// Follows parent links from the goal, restores turning points of pruned links and
    /// merges collinear runs.
    fn reconstruct(&self, grid: &Grid, start_i: u32, goal_i: u32) -> Path {
        let width = grid.width();
        let cell = |i: u32| Cell::new(i % width, i / width);
        // Walk from the goal back to the start, building the waypoints in reverse.
        let mut waypoints = Vec::with_capacity(16);
        let mut i = goal_i;
        let mut child = cell(goal_i);
        waypoints.push(child);
        while i != start_i {
            i = self.nodes[i as usize].parent;
            let parent = cell(i);
            if let Some(turn) = turning_point(parent, child) {
                push_merging(&mut waypoints, turn);
            }
            push_merging(&mut waypoints, parent);
            child = parent;
        }
        waypoints.reverse();
        Path {
            waypoints,
            cost: self.nodes[goal_i as usize].g,
        }
    }
}

/// For two cells not on one straight or 45° line, the cell reached from `a` by
/// `min(|dx|, |dy|)` diagonal steps toward `b`: the pruned jump point between them.
fn turning_point(a: Cell, b: Cell) -> Option<Cell> {
    let dx = i64::from(b.x) - i64::from(a.x);
    let dy = i64::from(b.y) - i64::from(a.y);
    if dx == 0 || dy == 0 || dx.abs() == dy.abs() {
        return None;
    }
    let k = dx.abs().min(dy.abs());
    Some(Cell::new(
        (i64::from(a.x) + k * dx.signum()) as u32,
        (i64::from(a.y) + k * dy.signum()) as u32,
    ))
}

/// Appends `c`, dropping the previous waypoint when it lies inside one straight run.
fn push_merging(waypoints: &mut Vec<Cell>, c: Cell) {
    let len = waypoints.len();
    if len >= 2 {
        let (a, b) = (waypoints[len - 2], waypoints[len - 1]);
        if unit(a, b) == unit(b, c) {
            waypoints[len - 1] = c;
            return;
        }
    }
    waypoints.push(c);
}

fn unit(a: Cell, b: Cell) -> (i64, i64) {
    (
        (i64::from(b.x) - i64::from(a.x)).signum(),
        (i64::from(b.y) - i64::from(a.y)).signum(),
    )
}

/// The direction a node was reached in from its parent. For a pruned link (diagonal run then
/// straight run) that is the straight run's direction: the axis with the longer offset.
#[inline]
pub(crate) fn arrival_direction(parent: Cell, n: Cell) -> Direction {
    let dx = i64::from(n.x) - i64::from(parent.x);
    let dy = i64::from(n.y) - i64::from(parent.y);
    let (ux, uy) = match dx.abs().cmp(&dy.abs()) {
        Ordering::Greater => (dx.signum(), 0),
        Ordering::Less => (0, dy.signum()),
        Ordering::Equal => (dx.signum(), dy.signum()),
    };
    Direction::from_delta(ux as i32, uy as i32).unwrap_or(Direction::North)
}

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
use crate::nodes::{DenseNodes, Node, NodeStore, PAGE_BYTES, PagedNodes};

/// An optimal path: waypoints joined by straight or 45° runs, start first, goal last.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SearchStats {
    /// Nodes taken from the open list and expanded.
    pub expanded: u64,
    /// Successors produced by expansions (before duplicate detection).
    pub generated: u64,
    /// Heap pushes (new nodes and improved ones).
    pub pushes: u64,
}

/// Supplies the successors of an expanded node.
pub(crate) trait Expander {
    /// Calls `out` with each successor of `n`, which was reached moving in `arrival`
    /// (`None` for the start).
    fn expand(&self, n: Cell, arrival: Option<Direction>, goal: Cell, out: &mut impl FnMut(Cell));
}

/// Reusable per-thread search state: a node table (validated by a per-query stamp, so
/// nothing is cleared between queries) and a heap. After the first query on a grid no query
/// allocates, unless the heap or a paged table outgrows its earlier peak.
///
/// Two node tables (see [`Searcher::bytes`] for what each holds):
/// - [`Searcher::dense`]: one node per cell of the map (16 B per cell), the fastest choice for
///   long queries;
/// - [`Searcher::paged`] / [`Searcher::bounded`]: the two-level table of the seed article: a
///   directory of 16 × 16-cell blocks (4 B per block) and 4 KiB node pages handed out on first
///   touch, so short (NPC-style) queries on a big map cost a few pages instead of a whole-map
///   table; `bounded` caps the pages, ending a query that needs more as
///   [`SearchOutcome::LimitReached`].
///
/// [`Searcher::new`] picks per grid: dense up to [`Searcher::DENSE_MAX_CELLS`] cells, paged
/// beyond.
///
/// One `Searcher` per thread; the grid and planner are shared read-only.
///
/// `Debug` prints the kind of table, its size and the last query's counters, not the nodes.
pub struct Searcher {
    table: Table,
    /// Whether each query picks the table by the grid's size ([`Searcher::new`]).
    automatic: bool,
    heap: Heap,
    stamp: u32,
    stats: SearchStats,
}

impl std::fmt::Debug for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("paged", &self.is_paged())
            .field("automatic", &self.automatic)
            .field("bytes", &self.bytes())
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Default for Searcher {
    fn default() -> Searcher {
        Searcher::new()
    }
}

enum Table {
    Dense(DenseNodes),
    Paged(PagedNodes),
}

impl Default for Table {
    fn default() -> Table {
        Table::Dense(DenseNodes::default())
    }
}

impl Searcher {
    /// Bytes of one page of a paged searcher's node table (16 × 16 cells).
    pub const PAGE_BYTES: usize = PAGE_BYTES;

    /// Largest grid (in cells) on which [`Searcher::new`] uses a dense node table: 2^22 cells
    /// (a 2048 × 2048 map), 64 MiB of nodes per searcher.
    ///
    /// Why there: a dense table costs 16 B per cell of the map whatever a query touches, and
    /// its first query on a grid writes all of it; the paged table costs a directory lookup
    /// per node: measured 5–10 % of A*'s time and within noise for the JPS variants on the
    /// 512² and 1024² benchmark maps. Up to 2^22 cells (every Moving AI benchmark map) the
    /// dense table's memory is modest and it stays the default; beyond, a 16,384² map would
    /// need 4 GiB per searcher (per thread of a batch), so pages follow what the queries
    /// touch (a 4 MiB directory and a few pages for a corner-to-corner JPS-Bit query there).
    pub const DENSE_MAX_CELLS: usize = 1 << 22;

    /// A searcher that picks its node table per grid at each query: dense (as
    /// [`Searcher::dense`]) on grids of at most [`Searcher::DENSE_MAX_CELLS`] cells, paged
    /// without a limit (as [`Searcher::paged`]) on larger ones. Switching drops the other
    /// table.
    pub fn new() -> Searcher {
        Searcher {
            automatic: true,
            ..Searcher::with_table(Table::default())
        }
    }

    /// A searcher with a dense node table on every grid; it grows to the grid on first use.
    pub fn dense() -> Searcher {
        Searcher::with_table(Table::Dense(DenseNodes::default()))
    }

    /// A searcher with a two-level node table whose pages are allocated on demand, without
    /// a limit: memory follows the area a query touches, not the map.
    ///
    /// ```
    /// use cuplan_grid::{Cell, Grid};
    /// use cuplan_jps::{Algorithm, Planner, Searcher};
    ///
    /// let grid = Grid::open(1024, 1024)?;
    /// let planner = Planner::new(grid, Algorithm::JpsBit)?;
    /// let mut searcher = Searcher::paged();
    /// let path = planner.search(&mut searcher, Cell::new(500, 500), Cell::new(530, 540))?;
    /// assert!(path.is_some());
    /// // A few pages, not the 16 MiB a dense table would take for this map.
    /// assert!(searcher.bytes() < 256 << 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn paged() -> Searcher {
        Searcher::with_table(Table::Paged(PagedNodes::new(u32::MAX)))
    }

    /// A paged searcher whose node pages never exceed `max_node_bytes` (at least one page):
    /// a query that would need more ends as [`SearchOutcome::LimitReached`] (and
    /// [`Planner::search`](crate::Planner::search) returns `None`), like the article's node
    /// pool of bounded size for short NPC searches.
    pub fn bounded(max_node_bytes: usize) -> Searcher {
        let pages = (max_node_bytes / PAGE_BYTES).clamp(1, u32::MAX as usize - 1) as u32;
        Searcher::with_table(Table::Paged(PagedNodes::new(pages)))
    }

    fn with_table(table: Table) -> Searcher {
        Searcher {
            table,
            automatic: false,
            heap: Heap::default(),
            stamp: 0,
            stats: SearchStats::default(),
        }
    }

    /// Whether this searcher uses the two-level (paged) node table (for [`Searcher::new`],
    /// the table of the last query's grid).
    pub fn is_paged(&self) -> bool {
        matches!(self.table, Table::Paged(_))
    }

    /// Counters of the last query.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Bytes held by the node table and the heap. Dense: 16 B per cell of the largest grid
    /// searched. Paged: 4 B per 16 × 16 block of the grid plus [`Searcher::PAGE_BYTES`] per
    /// page of the largest query so far.
    pub fn bytes(&self) -> usize {
        let table = match &self.table {
            Table::Dense(t) => t.bytes(),
            Table::Paged(t) => t.bytes(),
        };
        table + self.heap.capacity() * std::mem::size_of::<u128>()
    }

    /// Gives an automatic searcher the table [`Searcher::new`] promises for `grid`.
    fn pick_table(&mut self, grid: &Grid) {
        let paged = grid.cell_count() > Searcher::DENSE_MAX_CELLS;
        if paged != self.is_paged() {
            // A fresh table holds stamp 0, which no query uses (stamps start at 2).
            self.table = if paged {
                Table::Paged(PagedNodes::new(u32::MAX))
            } else {
                Table::Dense(DenseNodes::default())
            };
        }
    }

    /// Starts a query on `grid`: prepares the table and takes a fresh stamp pair.
    fn begin(&mut self, grid: &Grid) -> Query {
        if self.automatic {
            self.pick_table(grid);
        }
        let restamp = self.stamp >= u32::MAX - 4;
        if restamp {
            self.stamp = 0;
        }
        let (w, h) = (grid.width(), grid.height());
        match &mut self.table {
            Table::Dense(t) => t.begin(w, h, restamp),
            Table::Paged(t) => t.begin(w, h, restamp),
        }
        self.stamp += 2;
        self.heap.clear();
        self.stats = SearchStats::default();
        Query {
            width: w,
            open: self.stamp,
        }
    }

    /// Records that a query was answered without searching.
    pub(crate) fn reset_stats(&mut self) {
        self.stats = SearchStats::default();
    }

    /// A* from `start` to `goal` (distinct, free, connected) over `expander`'s successors.
    /// Pruned links are restored to legal waypoints on reconstruction.
    pub(crate) fn run<E: Expander>(
        &mut self,
        grid: &Grid,
        expander: &E,
        start: Cell,
        goal: Cell,
        max_expansions: u64,
    ) -> SearchOutcome {
        let query = self.begin(grid);
        let Searcher {
            table, heap, stats, ..
        } = self;
        let ends = (start, goal, max_expansions);
        match table {
            Table::Dense(t) => query.run(t, heap, stats, expander, ends),
            Table::Paged(t) => query.run(t, heap, stats, expander, ends),
        }
    }
}

/// One query's constants.
#[derive(Clone, Copy)]
struct Query {
    width: u32,
    /// Stamp of generated nodes; `open + 1` marks closed ones.
    open: u32,
}

impl Query {
    #[inline(always)]
    fn index(self, c: Cell) -> u32 {
        c.y * self.width + c.x
    }

    #[inline(always)]
    fn cell(self, i: u32) -> Cell {
        Cell::new(i % self.width, i / self.width)
    }

    fn run<S: NodeStore, E: Expander>(
        self,
        nodes: &mut S,
        heap: &mut Heap,
        stats: &mut SearchStats,
        expander: &E,
        (start, goal, max_expansions): (Cell, Cell, u64),
    ) -> SearchOutcome {
        let (open, closed) = (self.open, self.open + 1);
        let (start_i, goal_i) = (self.index(start), self.index(goal));
        let max_open = nodes.max_open();
        let Some(start_node) = nodes.node(start_i, || start) else {
            return SearchOutcome::LimitReached;
        };
        *start_node = Node {
            stamp: open,
            parent: start_i,
            g: OctileCost::ZERO,
        };
        heap.push(entry(OctileCost::between(start, goal).key(), 0, start_i));
        stats.pushes = 1;
        while let Some(e) = heap.pop() {
            let e_index = index_of(e);
            let node = nodes
                .node(e_index, || self.cell(e_index))
                .expect("a pushed node has its page");
            // Stale entries: the node was closed or improved after this entry was pushed
            // (an improvement lowers g and so f; h is fixed per node).
            if node.stamp != open
                || (node.g + OctileCost::between(self.cell(e_index), goal)).key()
                    != crate::heap::f_of(e)
            {
                continue;
            }
            node.stamp = closed;
            if e_index == goal_i {
                return SearchOutcome::Found(self.reconstruct(nodes, start_i, goal_i));
            }
            if stats.expanded >= max_expansions {
                return SearchOutcome::LimitReached;
            }
            stats.expanded += 1;
            let (g, parent) = (node.g, node.parent);
            let n = self.cell(e_index);
            let arrival = (e_index != start_i).then(|| arrival_direction(self.cell(parent), n));
            let mut out_of_room = false;
            expander.expand(n, arrival, goal, &mut |succ: Cell| {
                stats.generated += 1;
                let si = self.index(succ);
                let ng = g + OctileCost::between(n, succ);
                let g_key = ng.key();
                let Some(node) = nodes.node(si, || succ) else {
                    out_of_room = true;
                    return;
                };
                if S::BOUNDED && heap.len() >= max_open {
                    out_of_room = true;
                    return;
                }
                if node.stamp == closed || (node.stamp == open && g_key >= node.g.key()) {
                    return;
                }
                *node = Node {
                    stamp: open,
                    parent: e_index,
                    g: ng,
                };
                // f's key is the key of the exact sum: keys are rounded, so a sum of keys
                // could tie or swap costs that differ.
                let f_key = (ng + OctileCost::between(succ, goal)).key();
                heap.push(entry(f_key, g_key, si));
                stats.pushes += 1;
            });
            if out_of_room {
                return SearchOutcome::LimitReached;
            }
        }
        SearchOutcome::NoPath
    }

    /// Follows parent links from the goal, restores turning points of pruned links and
    /// merges collinear runs.
    fn reconstruct<S: NodeStore>(self, nodes: &S, start_i: u32, goal_i: u32) -> Path {
        // Walk from the goal back to the start, building the waypoints in reverse.
        let mut waypoints = Vec::with_capacity(16);
        let mut i = goal_i;
        let mut child = self.cell(goal_i);
        waypoints.push(child);
        while i != start_i {
            i = nodes.written(i, child).parent;
            let parent = self.cell(i);
            if let Some(turn) = turning_point(parent, child) {
                push_merging(&mut waypoints, turn);
            }
            push_merging(&mut waypoints, parent);
            child = parent;
        }
        waypoints.reverse();
        let goal = self.cell(goal_i);
        Path {
            waypoints,
            cost: nodes.written(goal_i, goal).g,
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

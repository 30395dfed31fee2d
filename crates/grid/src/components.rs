//! Connected components of the free cells, labelled once and then kept up to date by every
//! change of the grid instead of relabelled.
//!
//! Labels are union–find sets: freeing a cell joins its neighbours' sets (exact, near O(1)).
//! Blocking a cell removes it from its set; that can only split the set when the cell's free
//! 4-neighbours are not joined around it by its 8-neighbourhood (the local "simple cell"
//! test). A block that fails the test is resolved by a bounded search: the pieces around the
//! cell are flooded side by side, and a piece that closes within [`SPLIT_SEARCH_CELLS`] cells
//! is relabelled as its own set; when two pieces stay open, the labelling is marked inexact:
//! cells with different labels are still certainly apart, cells with one label probably
//! together. [`Grid::components`](crate::Grid::components) then relabels on demand, and
//! searches use the labels only to skip hopeless queries
//! ([`Grid::maybe_connected`](crate::Grid::maybe_connected)).

use crate::{Cell, Direction, Grid};

/// Identifier of a connected component, valid until the grid next changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(pub u32);

const BLOCKED: u32 = u32::MAX;

/// Cells a bounded split search may flood around one blocked cell before it gives up and marks
/// the labelling inexact: a room or a dead end of this size is relabelled at once, a split
/// into two large halves waits for the next full labelling.
pub const SPLIT_SEARCH_CELLS: usize = 1024;

/// A component label per cell (4-connected, which equals 8-connected without corner cutting).
#[derive(Debug, Clone)]
pub struct Components {
    /// Per cell: a set id (follow `parent` to the set's root) or `BLOCKED`.
    labels: Vec<u32>,
    /// Per set id: its parent in the union–find forest (itself for a root).
    parent: Vec<u32>,
    /// Per root: its number of free cells.
    sizes: Vec<u32>,
    /// Roots with at least one cell.
    count: usize,
    /// Whether every set is one component (no unresolved split).
    exact: bool,
    width: u32,
}

impl Components {
    /// Labels every free cell of `grid`, components numbered in row-major order of their first
    /// cells. Works on runs of free cells read from the bit rows 64 cells at a time: each run
    /// is joined to the runs it touches in the row above (union–find over runs), then every
    /// run's cells are written with one fill, so the cost follows runs, not cells.
    pub fn label(grid: &Grid) -> Components {
        let (w, h) = (grid.width() as usize, grid.height() as usize);
        // Per run: (row, first column, end column); `run_set` is its union–find parent.
        let mut runs: Vec<(u32, u32, u32)> = Vec::new();
        let mut run_set: Vec<u32> = Vec::new();
        let mut above = 0..0;
        for y in 0..h {
            let row_start = runs.len();
            free_runs(grid.rows(), y + 1, |x0, x1| runs.push((y as u32, x0, x1)));
            let mut j = above.start;
            for r in row_start..runs.len() {
                let (_, x0, x1) = runs[r];
                run_set.push(r as u32);
                // Runs above that end at or before x0 cannot touch this run or later ones.
                while j < above.end && runs[j].2 <= x0 {
                    j += 1;
                }
                let mut k = j;
                while k < above.end && runs[k].1 < x1 {
                    join_runs(&mut run_set, r as u32, k as u32);
                    k += 1;
                }
            }
            above = row_start..runs.len();
        }
        // A set's root is its earliest run (joins keep the smaller index), so numbering roots
        // in run order numbers components by their first cell.
        let mut id_of_root = vec![u32::MAX; runs.len()];
        let mut sizes: Vec<u32> = Vec::new();
        let mut labels = vec![BLOCKED; w * h];
        for (r, &(y, x0, x1)) in runs.iter().enumerate() {
            let root = run_root(&mut run_set, r as u32) as usize;
            if id_of_root[root] == u32::MAX {
                id_of_root[root] = sizes.len() as u32;
                sizes.push(0);
            }
            let id = id_of_root[root];
            sizes[id as usize] += x1 - x0;
            let row = y as usize * w;
            labels[row + x0 as usize..row + x1 as usize].fill(id);
        }
        Components {
            labels,
            parent: (0..sizes.len() as u32).collect(),
            count: sizes.len(),
            sizes,
            exact: true,
            width: grid.width(),
        }
    }

    /// The component of `cell`, or `None` when it is blocked or outside the grid.
    #[inline]
    pub fn of(&self, grid: &Grid, cell: Cell) -> Option<ComponentId> {
        if !grid.contains(cell) {
            return None;
        }
        match self.labels[grid.index(cell).get()] {
            BLOCKED => None,
            l => Some(ComponentId(self.root(l))),
        }
    }

    /// Number of components.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Number of cells in a component.
    pub fn size(&self, id: ComponentId) -> u32 {
        self.sizes[self.root(id.0) as usize]
    }

    /// The largest component, if any cell is free (the first such set on ties).
    pub fn largest(&self) -> Option<ComponentId> {
        (0..self.parent.len() as u32)
            .filter(|&i| self.parent[i as usize] == i && self.sizes[i as usize] > 0)
            .max_by_key(|&i| (self.sizes[i as usize], std::cmp::Reverse(i)))
            .map(ComponentId)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        (self.labels.capacity() + self.parent.capacity() + self.sizes.capacity()) * 4
    }

    /// Whether every label is exactly one component (see the module docs).
    pub(crate) fn is_exact(&self) -> bool {
        self.exact
    }

    #[inline]
    fn root(&self, mut id: u32) -> u32 {
        while self.parent[id as usize] != id {
            id = self.parent[id as usize];
        }
        id
    }

    /// [`Components::root`] with path halving, for updates.
    fn root_compressing(&mut self, mut id: u32) -> u32 {
        while self.parent[id as usize] != id {
            let grand = self.parent[self.parent[id as usize] as usize];
            self.parent[id as usize] = grand;
            id = grand;
        }
        id
    }

    fn index(&self, cell: Cell) -> usize {
        cell.y as usize * self.width as usize + cell.x as usize
    }

    fn new_set(&mut self) -> u32 {
        let id = self.parent.len() as u32;
        self.parent.push(id);
        self.sizes.push(0);
        id
    }

    /// Joins two roots, the smaller under the larger; returns the joined root.
    fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == b {
            return a;
        }
        let (big, small) = if self.sizes[a as usize] >= self.sizes[b as usize] {
            (a, b)
        } else {
            (b, a)
        };
        self.parent[small as usize] = big;
        self.sizes[big as usize] += self.sizes[small as usize];
        self.sizes[small as usize] = 0;
        self.count -= 1;
        big
    }

    /// Brings the labels up to date after `cell` became free on `grid`.
    pub(crate) fn cell_freed(&mut self, grid: &Grid, cell: Cell) {
        let mut joined: Option<u32> = None;
        for n in grid.neighbours4(cell) {
            let r = self.root_compressing(self.labels[self.index(n)]);
            joined = Some(joined.map_or(r, |j| self.union(j, r)));
        }
        let root = joined.unwrap_or_else(|| {
            self.count += 1;
            self.new_set()
        });
        let i = self.index(cell);
        self.labels[i] = root;
        self.sizes[root as usize] += 1;
        self.compact_if_sparse(grid);
    }

    /// Brings the labels up to date after `cell` became blocked on `grid`.
    pub(crate) fn cell_blocked(&mut self, grid: &Grid, cell: Cell) {
        let i = self.index(cell);
        let root = self.root_compressing(self.labels[i]);
        self.labels[i] = BLOCKED;
        self.sizes[root as usize] -= 1;
        if self.sizes[root as usize] == 0 {
            self.count -= 1;
            return;
        }
        if self.exact && !is_simple(grid, cell) {
            self.resolve_split(grid, cell, root);
        }
    }

    /// After a block that may have split set `root` around `cell`: floods the pieces around
    /// the cell side by side, one cell each in turn, within [`SPLIT_SEARCH_CELLS`] cells in
    /// all. Floods that meet are one piece; a flood that runs out of cells is a closed piece,
    /// a component of its own. Once a single piece is left open the labels are exact again.
    fn resolve_split(&mut self, grid: &Grid, cell: Cell, root: u32) {
        let mut race = SplitRace::new(grid.neighbours4(cell), &mut self.labels, self.width);
        let mut closed = Vec::new();
        while race.open_pieces() > 1 && race.visited < SPLIT_SEARCH_CELLS {
            if let Some(piece) = race.step(grid, &mut self.labels, self.width) {
                closed.push(piece);
            }
        }
        let unresolved = race.open_pieces() > 1;
        race.unmark(&mut self.labels, self.width, root);
        for piece in closed {
            self.split_off(&piece, root);
        }
        if unresolved {
            self.exact = false;
        }
    }

    /// Moves the cells of a closed `piece` out of set `root` into a new set.
    fn split_off(&mut self, piece: &[Cell], root: u32) {
        let id = self.new_set();
        for &c in piece {
            let i = self.index(c);
            self.labels[i] = id;
        }
        self.sizes[id as usize] = piece.len() as u32;
        self.sizes[root as usize] -= piece.len() as u32;
        self.count += 1;
    }

    /// Relabels from scratch once set ids outnumber cells, which bounds their memory.
    fn compact_if_sparse(&mut self, grid: &Grid) {
        if self.parent.len() > self.labels.len() + 1024 {
            *self = Components::label(grid);
        }
    }
}

/// Whether blocking `cell` keeps its free 4-neighbours connected through its 8-neighbourhood:
/// walking the ring of 8 neighbours, every free 4-neighbour lies on one run of free cells.
/// (Diagonal ring cells join two 4-neighbours through a 4-connected detour.)
fn is_simple(grid: &Grid, cell: Cell) -> bool {
    // Direction::ALL walks the ring in order: N, NE, E, SE, S, SW, W, NW.
    let free = Direction::ALL.map(|d| {
        let (dx, dy) = d.delta();
        grid.is_free_signed(
            i64::from(cell.x) + i64::from(dx),
            i64::from(cell.y) + i64::from(dy),
        )
    });
    // Count runs of free ring cells that contain a 4-neighbour (even ring position).
    let mut runs = 0;
    for start in 0..8 {
        let begins_run = free[start] && !free[(start + 7) % 8];
        if begins_run {
            let touches_side = (0..8)
                .map(|k| (start + k) % 8)
                .take_while(|&i| free[i])
                .any(|i| i % 2 == 0);
            runs += usize::from(touches_side);
        }
    }
    // No run start at all means the ring is all free (one run) or all blocked.
    runs <= 1
}

/// Side-by-side floods from the free neighbours of a newly blocked cell (see
/// [`Components::resolve_split`]). Visited cells are marked in the labels themselves (with
/// [`MARK`] plus the flood's number), which is faster than a set; every visited cell belonged
/// to the blocked cell's set, so unmarking writes that set's root back.
struct SplitRace {
    /// Per flood: the flood it merged into (itself while it leads a piece).
    merged_into: Vec<u32>,
    /// Per leading flood: its frontier and every cell it (and the floods merged into it) took.
    frontier: Vec<std::collections::VecDeque<Cell>>,
    cells: Vec<Vec<Cell>>,
    /// Leading floods whose frontier is not empty yet.
    open: Vec<u32>,
    turn: usize,
    visited: usize,
}

/// Label of a cell visited by split flood `k`: `MARK + k` (at most 4 floods).
const MARK: u32 = u32::MAX - 8;

fn at(width: u32, c: Cell) -> usize {
    c.y as usize * width as usize + c.x as usize
}

impl SplitRace {
    fn new(starts: impl Iterator<Item = Cell>, labels: &mut [u32], width: u32) -> SplitRace {
        let starts: Vec<Cell> = starts.collect();
        for (k, &c) in starts.iter().enumerate() {
            labels[at(width, c)] = MARK + k as u32;
        }
        SplitRace {
            merged_into: (0..starts.len() as u32).collect(),
            frontier: starts.iter().map(|&c| [c].into()).collect(),
            visited: starts.len(),
            open: (0..starts.len() as u32).collect(),
            cells: starts.into_iter().map(|c| vec![c]).collect(),
            turn: 0,
        }
    }

    fn open_pieces(&self) -> usize {
        self.open.len()
    }

    fn leader(&self, mut k: u32) -> u32 {
        while self.merged_into[k as usize] != k {
            k = self.merged_into[k as usize];
        }
        k
    }

    /// Expands one cell of the next open flood; returns a piece that closed.
    fn step(&mut self, grid: &Grid, labels: &mut [u32], width: u32) -> Option<Vec<Cell>> {
        self.turn = (self.turn + 1) % self.open.len();
        let k = self.open[self.turn];
        let Some(c) = self.frontier[k as usize].pop_front() else {
            self.open.swap_remove(self.turn);
            return Some(std::mem::take(&mut self.cells[k as usize]));
        };
        for n in grid.neighbours4(c) {
            let label = &mut labels[at(width, n)];
            if *label < MARK {
                *label = MARK + k;
                self.visited += 1;
                self.frontier[k as usize].push_back(n);
                self.cells[k as usize].push(n);
            } else {
                let other = self.leader(*label - MARK);
                if other != k {
                    self.merge(other, k);
                }
            }
        }
        None
    }

    /// Folds flood `from` into flood `into`: they reached each other, so they are one piece.
    fn merge(&mut self, from: u32, into: u32) {
        self.merged_into[from as usize] = into;
        let frontier = std::mem::take(&mut self.frontier[from as usize]);
        self.frontier[into as usize].extend(frontier);
        let cells = std::mem::take(&mut self.cells[from as usize]);
        self.cells[into as usize].extend(cells);
        self.open.retain(|&f| f != from);
    }

    /// Writes `root` back over the marks of the pieces still open (closed pieces were handed
    /// out by [`SplitRace::step`] and get labels of their own).
    fn unmark(self, labels: &mut [u32], width: u32, root: u32) {
        for c in self.cells.iter().flatten() {
            labels[at(width, *c)] = root;
        }
    }
}

/// Calls `out(x0, x1)` for each run of free cells `x0..x1` of stored row `r` (grid row
/// `r - 1`), left to right. The blocked border and padding end every run inside the row.
fn free_runs(plane: &crate::BitPlane, r: usize, mut out: impl FnMut(u32, u32)) {
    let words = plane.row(r);
    let mut c = 0;
    while let Some(start) = next_bit(words, c, true) {
        let end = next_bit(words, start, false).unwrap_or(words.len() * 64);
        // Stored column c is grid column c - 1.
        out(start as u32 - 1, end as u32 - 1);
        c = end;
    }
}

/// The first stored column at or after `from` that is free (`free`) or blocked.
fn next_bit(words: &[u64], from: usize, free: bool) -> Option<usize> {
    let mut w = from / 64;
    let mut mask = u64::MAX.checked_shl((from % 64) as u32).unwrap_or(0);
    while w < words.len() {
        let bits = if free { !words[w] } else { words[w] } & mask;
        if bits != 0 {
            return Some(w * 64 + bits.trailing_zeros() as usize);
        }
        w += 1;
        mask = u64::MAX;
    }
    None
}

fn run_root(parent: &mut [u32], mut r: u32) -> u32 {
    while parent[r as usize] != r {
        let grand = parent[parent[r as usize] as usize];
        parent[r as usize] = grand;
        r = grand;
    }
    r
}

/// Joins the sets of runs `a` and `b` under the smaller root (the earlier run).
fn join_runs(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (run_root(parent, a), run_root(parent, b));
    let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
    parent[hi as usize] = lo;
}

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

use crate::{Cell, CellIndex, Direction, Grid};

/// Identifier of a connected component, valid until the grid next changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(pub u32);

const BLOCKED: u32 = u32::MAX;

/// Cells a bounded split search may flood around one blocked cell before it gives up and marks
/// the labelling inexact: a room or a dead end of this size is relabelled at once, a split
/// into two large halves waits for the next full labelling.
pub const SPLIT_SEARCH_CELLS: usize = 1024;

/// A component label per cell (4-connected, which equals 8-connected without corner cutting).
///
/// Memory follows the free cells: labels are kept in pages of 256 cells, and a page with no
/// free cell is not stored (4 B per page in a directory), so a 16,384 × 8,192 map with a few
/// thousand free cells holds about 2 MiB of labels instead of 512 MiB.
///
/// `Debug` prints the counts, not the labels.
#[derive(Clone)]
pub struct Components {
    /// Per cell: a set id (follow `parent` to the set's root) or `BLOCKED`.
    labels: Labels,
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

impl std::fmt::Debug for Components {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Components")
            .field("count", &self.count)
            .field("exact", &self.exact)
            .field("cells", &self.labels.cells)
            .field("bytes", &self.bytes())
            .finish_non_exhaustive()
    }
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
        let mut labels = Labels::all_blocked(w * h);
        for (r, &(y, x0, x1)) in runs.iter().enumerate() {
            let root = run_root(&mut run_set, r as u32) as usize;
            if id_of_root[root] == u32::MAX {
                id_of_root[root] = sizes.len() as u32;
                sizes.push(0);
            }
            let id = id_of_root[root];
            sizes[id as usize] += x1 - x0;
            let row = y as usize * w;
            labels.fill(row + x0 as usize..row + x1 as usize, id);
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
        match self.labels.get(grid.index(cell).get()) {
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
        self.labels.bytes() + (self.parent.capacity() + self.sizes.capacity()) * 4
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
        CellIndex::row_major(self.width, cell.x, cell.y)
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
            let r = self.root_compressing(self.labels.get(self.index(n)));
            joined = Some(joined.map_or(r, |j| self.union(j, r)));
        }
        let root = joined.unwrap_or_else(|| {
            self.count += 1;
            self.new_set()
        });
        let i = self.index(cell);
        self.labels.set(i, root);
        self.sizes[root as usize] += 1;
        self.compact_if_sparse(grid);
    }

    /// Brings the labels up to date after `cell` became blocked on `grid`.
    pub(crate) fn cell_blocked(&mut self, grid: &Grid, cell: Cell) {
        let i = self.index(cell);
        let root = self.root_compressing(self.labels.get(i));
        self.labels.set(i, BLOCKED);
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
            self.labels.set(i, id);
        }
        self.sizes[id as usize] = piece.len() as u32;
        self.sizes[root as usize] -= piece.len() as u32;
        self.count += 1;
    }

    /// Relabels from scratch once set ids outnumber cells, which bounds their memory.
    fn compact_if_sparse(&mut self, grid: &Grid) {
        if self.parent.len() > self.labels.cells() + 1024 {
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
    CellIndex::row_major(width, c.x, c.y)
}

impl SplitRace {
    fn new(starts: impl Iterator<Item = Cell>, labels: &mut Labels, width: u32) -> SplitRace {
        let starts: Vec<Cell> = starts.collect();
        for (k, &c) in starts.iter().enumerate() {
            labels.set(at(width, c), MARK + k as u32);
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
    fn step(&mut self, grid: &Grid, labels: &mut Labels, width: u32) -> Option<Vec<Cell>> {
        self.turn = (self.turn + 1) % self.open.len();
        let k = self.open[self.turn];
        let Some(c) = self.frontier[k as usize].pop_front() else {
            self.open.swap_remove(self.turn);
            return Some(std::mem::take(&mut self.cells[k as usize]));
        };
        for n in grid.neighbours4(c) {
            let label = labels.get_mut(at(width, n));
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
    fn unmark(self, labels: &mut Labels, width: u32, root: u32) {
        for c in self.cells.iter().flatten() {
            labels.set(at(width, *c), root);
        }
    }
}

/// A `u32` per cell in pages of [`LABEL_PAGE_CELLS`] consecutive cells (row-major), where a
/// page whose cells have all been blocked since the grid was labelled is not stored: a map
/// with few free cells costs a directory entry per page plus the pages its free cells touch,
/// not 4 B for each of its cells (512 MiB for a 16,384 × 8,192 map).
#[derive(Debug, Clone)]
struct Labels {
    /// Per page: its index in `pages` (in units of a page), or [`NO_PAGE`].
    directory: Vec<u32>,
    pages: Vec<u32>,
    cells: usize,
}

/// Cells of a page of [`Labels`] (1 KiB of labels): small enough that a sparse map stores
/// little beyond its free cells, large enough that the directory is a 256th of dense labels.
const LABEL_PAGE_CELLS: usize = 1 << LABEL_PAGE_LOG2;
const LABEL_PAGE_LOG2: u32 = 8;
const NO_PAGE: u32 = u32::MAX;

impl Labels {
    fn all_blocked(cells: usize) -> Labels {
        Labels {
            directory: vec![NO_PAGE; cells.div_ceil(LABEL_PAGE_CELLS)],
            pages: Vec::new(),
            cells,
        }
    }

    fn cells(&self) -> usize {
        self.cells
    }

    #[inline]
    fn get(&self, i: usize) -> u32 {
        match self.directory[i >> LABEL_PAGE_LOG2] {
            NO_PAGE => BLOCKED,
            page => self.pages[((page as usize) << LABEL_PAGE_LOG2) | (i & (LABEL_PAGE_CELLS - 1))],
        }
    }

    /// The label of cell `i`, storing its page first if needed.
    fn get_mut(&mut self, i: usize) -> &mut u32 {
        let base = self.stored_page(i >> LABEL_PAGE_LOG2);
        &mut self.pages[base | (i & (LABEL_PAGE_CELLS - 1))]
    }

    /// Where page `slot` starts in `pages`, storing it (all blocked) first if needed.
    fn stored_page(&mut self, slot: usize) -> usize {
        let page = match self.directory[slot] {
            NO_PAGE => self.add_page(slot),
            page => page,
        };
        (page as usize) << LABEL_PAGE_LOG2
    }

    #[cold]
    fn add_page(&mut self, slot: usize) -> u32 {
        let page = (self.pages.len() >> LABEL_PAGE_LOG2) as u32;
        self.pages
            .resize(self.pages.len() + LABEL_PAGE_CELLS, BLOCKED);
        self.directory[slot] = page;
        page
    }

    fn set(&mut self, i: usize, label: u32) {
        if label != BLOCKED || self.directory[i >> LABEL_PAGE_LOG2] != NO_PAGE {
            *self.get_mut(i) = label;
        }
    }

    fn fill(&mut self, cells: std::ops::Range<usize>, label: u32) {
        let mut i = cells.start;
        while i < cells.end {
            let page_end = ((i >> LABEL_PAGE_LOG2) + 1) << LABEL_PAGE_LOG2;
            let end = page_end.min(cells.end);
            let base = self.stored_page(i >> LABEL_PAGE_LOG2);
            let offset = i & (LABEL_PAGE_CELLS - 1);
            self.pages[base + offset..base + offset + (end - i)].fill(label);
            i = end;
        }
    }

    fn bytes(&self) -> usize {
        (self.directory.capacity() + self.pages.capacity()) * 4
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2048 × 512 map with one 10 × 10 room: dense labels would take 4 MiB.
    fn sparse_map() -> Grid {
        let mut art = String::new();
        for y in 0..512 {
            let row: String = (0..2048)
                .map(|x| {
                    if (1000..1010).contains(&x) && (200..210).contains(&y) {
                        '.'
                    } else {
                        '@'
                    }
                })
                .collect();
            art.push_str(&row);
            art.push('\n');
        }
        Grid::from_ascii(&art).unwrap()
    }

    #[test]
    fn labels_of_a_sparse_map_follow_its_free_cells() {
        let mut grid = sparse_map();
        let stored_pages = |grid: &Grid| grid.components().labels.pages.len() / LABEL_PAGE_CELLS;
        // One page per room row, and a directory of 4 B per 256 cells: 32 KiB in all with the
        // pool's spare capacity, where dense labels would take 4 MiB.
        assert_eq!(stored_pages(&grid), 10);
        let bytes = grid.components().bytes();
        assert!(
            bytes <= 2048 * 512 / 64 + 16 * LABEL_PAGE_CELLS * 4 + 64,
            "{bytes} B"
        );
        // Freeing cells far from the room stores their pages; blocking them again finds them.
        let far = [Cell::new(5, 500), Cell::new(6, 500), Cell::new(2047, 0)];
        for c in far {
            grid.set_free(c).unwrap();
        }
        let comps = grid.components();
        assert_eq!(comps.count(), 3);
        assert_eq!(comps.of(&grid, far[0]), comps.of(&grid, far[1]));
        assert_ne!(comps.of(&grid, far[0]), comps.of(&grid, far[2]));
        assert_eq!(comps.of(&grid, Cell::new(0, 0)), None);
        assert_eq!(stored_pages(&grid), 12);
        grid.set_blocked(far[2]).unwrap();
        assert_eq!(grid.components().count(), 2);
        assert_eq!(grid.components().of(&grid, far[2]), None);
    }

    #[test]
    fn fills_across_pages_label_every_cell() {
        let mut labels = Labels::all_blocked(3 * LABEL_PAGE_CELLS + 7);
        labels.fill(LABEL_PAGE_CELLS - 3..2 * LABEL_PAGE_CELLS + 5, 9);
        for i in 0..labels.cells() {
            let inside = (LABEL_PAGE_CELLS - 3..2 * LABEL_PAGE_CELLS + 5).contains(&i);
            assert_eq!(labels.get(i), if inside { 9 } else { BLOCKED }, "cell {i}");
        }
        // Blocking a cell of an absent page stores nothing.
        labels.set(3 * LABEL_PAGE_CELLS + 1, BLOCKED);
        assert_eq!(labels.pages.len(), 3 * LABEL_PAGE_CELLS);
    }
}

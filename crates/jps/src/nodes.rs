//! Node tables: where a [`Searcher`](crate::Searcher) keeps `g`, parent and open/closed state
//! per cell.
//!
//! - [`DenseNodes`]: one node per cell of the map, indexed by cell. Fastest for long queries,
//!   but every searcher holds `16 B × cells` (16 MiB for a 1024² map) even for a 20-step query.
//! - [`PagedNodes`]: the two-level table of the seed article (§3.3.1): a directory with one
//!   entry per `PAGE_SIDE × PAGE_SIDE` block of the map, and node pages handed out on first
//!   touch from a pool kept across queries. A short query touches a handful of pages, so a
//!   searcher costs the directory (4 B per block) plus the pages its largest query needed,
//!   optionally capped ([`Searcher::bounded`](crate::Searcher::bounded)).
//!
//! Both validate entries with the searcher's per-query stamp, so nothing is cleared between
//! queries; a page reused for another block still holds older stamps, which read as untouched.

use cuplan_grid::{Cell, OctileCost};

/// Per-cell search state. `stamp` says whether the rest is valid for the current query:
/// `stamp == open` means generated this query, `open + 1` closed, anything else untouched.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Node {
    pub(crate) stamp: u32,
    pub(crate) parent: u32,
    pub(crate) g: OctileCost,
}

/// Side of a page of [`PagedNodes`], in cells (a page is 16 × 16 cells, 4 KiB of nodes).
const PAGE_SIDE_LOG2: u32 = 4;
const PAGE_SIDE: u32 = 1 << PAGE_SIDE_LOG2;
const PAGE_CELLS: usize = (PAGE_SIDE * PAGE_SIDE) as usize;
/// Bytes of one page of [`PagedNodes`].
pub(crate) const PAGE_BYTES: usize = PAGE_CELLS * std::mem::size_of::<Node>();
/// Directory entry of a block without a page this query.
const NO_PAGE: u32 = u32::MAX;

/// The engine's view of a node table. `index` is the cell's row-major index in the grid and
/// `cell` the same cell; each table uses whichever it needs.
pub(crate) trait NodeStore {
    /// Prepares the table for a query on a `width × height` grid. `restamp` is true when the
    /// stamps wrapped around and every node must be reset.
    fn begin(&mut self, width: u32, height: u32, restamp: bool);
    /// Whether the table can refuse to grow ([`NodeStore::node`] may give `None`, and the
    /// heap is capped by [`NodeStore::max_open`]). Dense tables compile those checks away.
    const BOUNDED: bool;
    /// The node of a cell, made available for writing; `None` when the table may not grow
    /// (a bounded table at its limit). `cell` computes the cell of `index` for tables that
    /// need it (the dense one does not, saving a division per lookup).
    fn node(&mut self, index: u32, cell: impl FnOnce() -> Cell) -> Option<&mut Node>;
    /// The node of a cell written earlier this query (parents on the reconstructed path).
    fn written(&self, index: u32, cell: Cell) -> &Node;
    /// Bytes held.
    fn bytes(&self) -> usize;
    /// Most open-list entries a query may hold (a bounded table caps its heap too).
    fn max_open(&self) -> usize {
        usize::MAX
    }
}

/// One node per cell.
#[derive(Debug, Default)]
pub(crate) struct DenseNodes {
    nodes: Vec<Node>,
}

impl NodeStore for DenseNodes {
    fn begin(&mut self, width: u32, height: u32, restamp: bool) {
        let cells = width as usize * height as usize;
        if self.nodes.len() < cells {
            self.nodes.resize(cells, Node::default());
        }
        if restamp {
            self.nodes.fill(Node::default());
        }
    }

    const BOUNDED: bool = false;

    #[inline(always)]
    fn node(&mut self, index: u32, _cell: impl FnOnce() -> Cell) -> Option<&mut Node> {
        Some(&mut self.nodes[index as usize])
    }

    #[inline(always)]
    fn written(&self, index: u32, _cell: Cell) -> &Node {
        &self.nodes[index as usize]
    }

    fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }
}

/// The two-level table: a directory of pages per block, pages allocated on demand.
#[derive(Debug)]
pub(crate) struct PagedNodes {
    /// Page number of each block this query, or [`NO_PAGE`].
    directory: Vec<u32>,
    blocks_x: u32,
    /// Blocks given a page this query, to reset their directory entries at the next begin.
    touched: Vec<u32>,
    /// The page pool: page `k` is `pages[k * PAGE_CELLS..][..PAGE_CELLS]`. Pages `0..used`
    /// are assigned this query; the rest wait for reuse.
    pages: Vec<Node>,
    used: u32,
    /// Most pages a query may use.
    max_pages: u32,
}

impl PagedNodes {
    /// A table that may hold at most `max_pages` pages.
    pub(crate) fn new(max_pages: u32) -> PagedNodes {
        PagedNodes {
            directory: Vec::new(),
            blocks_x: 0,
            touched: Vec::new(),
            pages: Vec::new(),
            used: 0,
            max_pages,
        }
    }

    #[inline(always)]
    fn block_of(&self, cell: Cell) -> usize {
        ((cell.y >> PAGE_SIDE_LOG2) * self.blocks_x + (cell.x >> PAGE_SIDE_LOG2)) as usize
    }

    #[inline(always)]
    fn offset_in_page(cell: Cell) -> usize {
        (((cell.y & (PAGE_SIDE - 1)) << PAGE_SIDE_LOG2) | (cell.x & (PAGE_SIDE - 1))) as usize
    }

    /// Gives `block` the next page of the pool (growing the pool if needed), or `None` at the
    /// limit.
    #[cold]
    fn assign_page(&mut self, block: usize) -> Option<u32> {
        if self.used >= self.max_pages {
            return None;
        }
        let page = self.used;
        self.used += 1;
        let end = (page as usize + 1) * PAGE_CELLS;
        if self.pages.len() < end {
            // Exact growth under a cap keeps the pool's capacity within it; unbounded tables
            // grow geometrically like any Vec.
            if self.max_pages != u32::MAX {
                self.pages.reserve_exact(end - self.pages.len());
            }
            self.pages.resize(end, Node::default());
        }
        self.directory[block] = page;
        self.touched.push(block as u32);
        Some(page)
    }
}

impl NodeStore for PagedNodes {
    fn begin(&mut self, width: u32, height: u32, restamp: bool) {
        let blocks_x = width.div_ceil(PAGE_SIDE);
        let blocks = blocks_x as usize * height.div_ceil(PAGE_SIDE) as usize;
        if blocks_x != self.blocks_x || self.directory.len() != blocks {
            self.directory.clear();
            self.directory.resize(blocks, NO_PAGE);
            self.blocks_x = blocks_x;
        } else {
            for &b in &self.touched {
                self.directory[b as usize] = NO_PAGE;
            }
        }
        self.touched.clear();
        self.used = 0;
        if restamp {
            self.pages.fill(Node::default());
        }
    }

    const BOUNDED: bool = true;

    #[inline(always)]
    fn node(&mut self, _index: u32, cell: impl FnOnce() -> Cell) -> Option<&mut Node> {
        let cell = cell();
        let block = self.block_of(cell);
        let page = match self.directory[block] {
            NO_PAGE => self.assign_page(block)?,
            page => page,
        };
        Some(&mut self.pages[page as usize * PAGE_CELLS + Self::offset_in_page(cell)])
    }

    #[inline(always)]
    fn written(&self, _index: u32, cell: Cell) -> &Node {
        let page = self.directory[self.block_of(cell)];
        &self.pages[page as usize * PAGE_CELLS + Self::offset_in_page(cell)]
    }

    fn max_open(&self) -> usize {
        (self.max_pages as usize).saturating_mul(PAGE_CELLS)
    }

    fn bytes(&self) -> usize {
        self.directory.capacity() * std::mem::size_of::<u32>()
            + self.touched.capacity() * std::mem::size_of::<u32>()
            + self.pages.capacity() * std::mem::size_of::<Node>()
    }
}

//! Small shared internals: the compact 4-connected graph, BFS distance tables, a fast hasher
//! and a seeded generator. Nothing here is public; every solver builds on it.

use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

use cuplan_grid::{Cell, Grid};
use cuplan_wavefront::{DistanceMaps, UNREACHABLE_U16};

use crate::Limit;

/// Marks "no neighbour" in [`Graph::nbrs`] and "no agent" in per-cell tables.
pub(crate) const NONE: u32 = u32::MAX;

/// Distance value of a cell that cannot reach the goal.
pub(crate) const FAR: u32 = u32::MAX;

/// The free cells of a grid as a 4-connected graph on row-major indices (`y * width + x`).
///
/// *Invariant*: `nbrs[v]` lists the free 4-neighbours of a free `v` (N, E, S, W order), padded
/// with [`NONE`]; blocked cells have no neighbours.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    pub(crate) width: u32,
    pub(crate) nbrs: Vec<[u32; 4]>,
    pub(crate) free: Vec<bool>,
}

impl Graph {
    pub(crate) fn new(grid: &Grid) -> Graph {
        let (w, h) = (grid.width(), grid.height());
        let n = grid.cell_count();
        let mut free = vec![false; n];
        let mut nbrs = vec![[NONE; 4]; n];
        for y in 0..h {
            for x in 0..w {
                let cell = Cell::new(x, y);
                let v = grid.index(cell).get();
                if !grid.is_free(cell) {
                    continue;
                }
                free[v] = true;
                for (k, c) in grid.neighbours4(cell).enumerate() {
                    // Fits a u32: `Instance::new` refuses grids of `NONE` cells or more.
                    nbrs[v][k] = grid.index(c).get() as u32;
                }
            }
        }
        Graph {
            width: w,
            nbrs,
            free,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.free.len()
    }

    /// Heap bytes of the graph of `grid` (charged to the memory budget: 17 bytes a cell).
    pub(crate) fn bytes_for(grid: &Grid) -> u64 {
        grid.cell_count() as u64 * (std::mem::size_of::<[u32; 4]>() + 1) as u64
    }

    #[inline]
    pub(crate) fn id(&self, c: Cell) -> u32 {
        c.y * self.width + c.x
    }

    #[inline]
    pub(crate) fn cell(&self, v: u32) -> Cell {
        Cell::new(v % self.width, v / self.width)
    }

    #[inline]
    pub(crate) fn neighbours(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.nbrs[v as usize]
            .iter()
            .copied()
            .take_while(|&u| u != NONE)
    }

    /// Exact 4-connected distances to `goal` from every cell ([`FAR`] where unreachable).
    pub(crate) fn bfs(&self, goal: u32) -> Vec<u32> {
        let mut dist = vec![FAR; self.len()];
        let mut queue = Vec::with_capacity(self.len());
        dist[goal as usize] = 0;
        queue.push(goal);
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            let d = dist[v as usize] + 1;
            for u in self.neighbours(v) {
                if dist[u as usize] == FAR {
                    dist[u as usize] = d;
                    queue.push(u);
                }
            }
        }
        dist
    }
}

/// Goals per [`cuplan_wavefront::DistanceMaps`] chunk: the deadline is checked between
/// chunks, so building the maps for thousands of agents cannot overrun a short time limit by
/// more than one chunk.
pub(crate) const DIST_CHUNK: usize = 64;

/// The distance maps of one solve, one per agent's goal (goals are distinct, so no two agents
/// share one), in chunks of [`DIST_CHUNK`] goals: `u16` where every distance fits (half the
/// memory), `u32` where one may not, or where the wavefront low level needs them as its
/// heuristic (it reads `u32` maps).
#[derive(Debug)]
pub(crate) enum Distances {
    Narrow(Vec<DistanceMaps<u16>>),
    Wide(Vec<DistanceMaps<u32>>),
}

impl Distances {
    /// The `u32` chunks, when the maps are stored so.
    pub(crate) fn wide(&self) -> Option<&[DistanceMaps<u32>]> {
        match self {
            Distances::Wide(maps) => Some(maps),
            Distances::Narrow(_) => None,
        }
    }
}

/// One agent's distance map as the solvers read it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MapView<'a> {
    Narrow(&'a [u16]),
    Wide(&'a [u32]),
}

impl MapView<'_> {
    /// The distance from `v` to the goal, [`FAR`] where it cannot reach it.
    #[inline]
    pub(crate) fn at(self, v: u32) -> u32 {
        match self {
            MapView::Narrow(map) => match map[v as usize] {
                UNREACHABLE_U16 => FAR,
                d => u32::from(d),
            },
            MapView::Wide(map) => map[v as usize],
        }
    }

    /// The largest finite distance: from any cell of the goal's component the goal is at most
    /// this far, which bounds how long a path may need once the rules stop depending on time.
    pub(crate) fn max_finite(self) -> u32 {
        match self {
            MapView::Narrow(map) => map
                .iter()
                .copied()
                .filter(|&d| d != UNREACHABLE_U16)
                .max()
                .map_or(0, u32::from),
            MapView::Wide(map) => map.iter().copied().filter(|&d| d != FAR).max().unwrap_or(0),
        }
    }
}

/// One exact distance-to-goal table per agent: borrowed row-major views of the
/// [`Distances`] built once per solve (agent `i` is map `i %` [`DIST_CHUNK`] of chunk `i /`
/// [`DIST_CHUNK`]), so lookups are plain slice reads.
#[derive(Debug, Clone)]
pub(crate) struct DistTable<'a> {
    chunks: Vec<MapView<'a>>,
    cells: usize,
}

impl<'a> DistTable<'a> {
    /// The view of `maps`; `None` if an array is not contiguous.
    pub(crate) fn new(maps: &'a Distances) -> Option<DistTable<'a>> {
        let (cells, chunks) = match maps {
            Distances::Narrow(chunks) => (
                chunks.first().map_or(0, |m| m.dims().0 * m.dims().1),
                chunks
                    .iter()
                    .map(|m| m.as_array().as_slice().map(MapView::Narrow))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Distances::Wide(chunks) => (
                chunks.first().map_or(0, |m| m.dims().0 * m.dims().1),
                chunks
                    .iter()
                    .map(|m| m.as_array().as_slice().map(MapView::Wide))
                    .collect::<Option<Vec<_>>>()?,
            ),
        };
        Some(DistTable { chunks, cells })
    }

    #[inline]
    pub(crate) fn get(&self, agent: usize, v: u32) -> u32 {
        let offset = (agent % DIST_CHUNK) * self.cells + v as usize;
        match self.chunks[agent / DIST_CHUNK] {
            MapView::Narrow(chunk) => match chunk[offset] {
                UNREACHABLE_U16 => FAR,
                d => u32::from(d),
            },
            MapView::Wide(chunk) => chunk[offset],
        }
    }

    pub(crate) fn map(&self, agent: usize) -> MapView<'a> {
        let range = (agent % DIST_CHUNK) * self.cells..(agent % DIST_CHUNK + 1) * self.cells;
        match self.chunks[agent / DIST_CHUNK] {
            MapView::Narrow(chunk) => MapView::Narrow(&chunk[range]),
            MapView::Wide(chunk) => MapView::Wide(&chunk[range]),
        }
    }
}

/// FxHash (the rustc hasher): fast and deterministic, fine for integer keys.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word));
        }
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// Hash maps and sets keyed by small integers or configurations.
pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
pub(crate) type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuild>;
pub(crate) type FxHashSet<K> = std::collections::HashSet<K, FxBuild>;

/// SplitMix64: a tiny seeded generator, so runs are reproducible without a dependency.
#[derive(Debug, Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub(crate) fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// A wall-clock deadline checked cheaply inside long loops.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Option<Instant>,
    limit: std::time::Duration,
}

impl Deadline {
    /// `limit` from now; a limit too large for [`Instant`] (`Duration::MAX`) is no limit.
    pub(crate) fn after(limit: std::time::Duration) -> Deadline {
        Deadline {
            at: Instant::now().checked_add(limit),
            limit,
        }
    }

    /// The instant itself (`None`: no limit, the budget overflowed `Instant`).
    pub(crate) fn instant(&self) -> Option<Instant> {
        self.at
    }

    #[inline]
    pub(crate) fn passed(&self) -> bool {
        self.at.is_some_and(|d| Instant::now() >= d)
    }

    /// The limit this deadline enforces, as reported when it passes.
    pub(crate) fn reached(&self) -> Limit {
        Limit::Time { limit: self.limit }
    }
}

/// Frees a large search (millions of small allocations, up to a second) on another thread,
/// so returning at the deadline does not wait for it.
pub(crate) fn drop_in_background<T: Send + 'static>(garbage: T) {
    let spawned = std::thread::Builder::new()
        .name("cuplan-mapf-free".into())
        .spawn(move || drop(garbage));
    // Without a thread the value was dropped inside the failed spawn call.
    let _ = spawned;
}

//! Small shared internals: the compact 4-connected graph, BFS distance tables, a fast hasher
//! and a seeded generator. Nothing here is public; every solver builds on it.

use std::time::Instant;

use cuplan_grid::{Cell, Grid};
use cuplan_wavefront::{DistanceMaps, UNREACHABLE_U16};
use rayon::prelude::*;

use crate::Limit;

/// Marks "no neighbour" in [`Graph::nbrs`] and "no agent" in per-cell tables.
pub(crate) const NONE: u32 = u32::MAX;

/// Distance value of a cell that cannot reach the goal.
pub(crate) const FAR: u32 = u32::MAX;

/// The free cells of a grid as a 4-connected graph on row-major indices (`y * width + x`).
///
/// *Invariant*: `nbrs[v]` lists the free 4-neighbours of a free `v` (N, E, S, W order), padded
/// with [`NONE`]; blocked cells have no neighbours. `rank[v]` numbers the free cells
/// `0..free_count` in row-major order and gives every blocked cell `free_count`.
#[derive(Debug, Clone)]
pub(crate) struct Graph {
    pub(crate) width: u32,
    pub(crate) nbrs: Vec<[u32; 4]>,
    pub(crate) free: Vec<bool>,
    rank: Vec<u32>,
    free_count: u32,
}

impl Graph {
    pub(crate) fn new(grid: &Grid) -> Graph {
        let (w, h) = (grid.width(), grid.height());
        let n = grid.cell_count();
        let mut free = vec![false; n];
        let mut nbrs = vec![[NONE; 4]; n];
        let mut rank = vec![0; n];
        let mut free_count = 0;
        for y in 0..h {
            for x in 0..w {
                let cell = Cell::new(x, y);
                let v = grid.index(cell).get();
                rank[v] = free_count;
                if !grid.is_free(cell) {
                    continue;
                }
                free_count += 1;
                free[v] = true;
                for (k, c) in grid.neighbours4(cell).enumerate() {
                    // Fits a u32: `Instance::new` refuses grids of `NONE` cells or more.
                    nbrs[v][k] = grid.index(c).get() as u32;
                }
            }
        }
        // Blocked cells share the slot after the last free cell.
        for (v, r) in rank.iter_mut().enumerate() {
            if !free[v] {
                *r = free_count;
            }
        }
        Graph {
            width: w,
            nbrs,
            free,
            rank,
            free_count,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.free.len()
    }

    /// Heap bytes of the graph of `grid` (charged to the memory budget: 21 bytes a cell).
    pub(crate) fn bytes_for(grid: &Grid) -> u64 {
        grid.cell_count() as u64 * (std::mem::size_of::<[u32; 4]>() + 1 + 4) as u64
    }

    pub(crate) fn free_count(&self) -> u32 {
        self.free_count
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
/// share one): `u16` over the free cells only where every distance fits (the compact form:
/// 2 bytes a free cell), `u32` over the whole grid where one may not, or where the wavefront
/// low level needs them as its heuristic (it reads `u32` grid maps), in chunks of
/// [`DIST_CHUNK`] goals.
#[derive(Debug)]
pub(crate) enum Distances {
    Narrow(CompactMaps),
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

/// `u16` distance maps indexed by [`Graph`] rank rather than by cell, one after another.
///
/// *Invariant*: every map has `free_count + 1` entries, the last [`UNREACHABLE_U16`], the slot
/// that every blocked cell ranks to, so a lookup needs no branch for blocked cells.
#[derive(Debug)]
pub(crate) struct CompactMaps {
    data: Vec<u16>,
    stride: usize,
}

impl CompactMaps {
    pub(crate) fn new(graph: &Graph, goals: usize) -> CompactMaps {
        let stride = graph.free_count as usize + 1;
        CompactMaps {
            data: Vec::with_capacity(stride * goals),
            stride,
        }
    }

    /// Heap bytes of `goals` compact maps of `graph`.
    pub(crate) fn bytes_for(graph: &Graph, goals: usize) -> u64 {
        (graph.free_count as u64 + 1) * goals as u64 * 2
    }

    /// Appends the maps of `chunk` (grid maps of `graph`'s grid), gathering the free cells
    /// of each map in parallel; `None` if the chunk is not one contiguous array.
    pub(crate) fn push(&mut self, graph: &Graph, chunk: &DistanceMaps<u16>) -> Option<()> {
        let (goals, cells) = (chunk.len(), graph.len());
        let source = chunk.as_array().as_slice()?;
        let start = self.data.len();
        self.data
            .resize(start + goals * self.stride, UNREACHABLE_U16);
        self.data[start..]
            .par_chunks_mut(self.stride)
            .zip(source.par_chunks(cells))
            .for_each(|(out, map)| {
                let mut k = 0;
                for (&d, &free) in map.iter().zip(&graph.free) {
                    if free {
                        out[k] = d;
                        k += 1;
                    }
                }
            });
        Some(())
    }
}

/// One agent's distance map as the solvers read it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MapView<'a> {
    /// A compact map and the ranks that index it.
    Narrow {
        map: &'a [u16],
        rank: &'a [u32],
    },
    Wide(&'a [u32]),
}

impl MapView<'_> {
    /// The distance from `v` to the goal, [`FAR`] where it cannot reach it.
    #[inline]
    pub(crate) fn at(self, v: u32) -> u32 {
        match self {
            MapView::Narrow { map, rank } => widen(map[rank[v as usize] as usize]),
            MapView::Wide(map) => map[v as usize],
        }
    }

    /// The largest finite distance: from any cell of the goal's component the goal is at most
    /// this far, which bounds how long a path may need once the rules stop depending on time.
    pub(crate) fn max_finite(self) -> u32 {
        match self {
            MapView::Narrow { map, .. } => map
                .iter()
                .copied()
                .filter(|&d| d != UNREACHABLE_U16)
                .max()
                .map_or(0, u32::from),
            MapView::Wide(map) => map.iter().copied().filter(|&d| d != FAR).max().unwrap_or(0),
        }
    }
}

#[inline]
fn widen(d: u16) -> u32 {
    match d {
        UNREACHABLE_U16 => FAR,
        d => u32::from(d),
    }
}

/// One exact distance-to-goal table per agent: borrowed views of the [`Distances`] built once
/// per solve (agent `i` is compact map `i`, or map `i %` [`DIST_CHUNK`] of wide chunk `i /`
/// [`DIST_CHUNK`]), so lookups are plain slice reads.
#[derive(Debug, Clone)]
pub(crate) enum DistTable<'a> {
    Narrow {
        data: &'a [u16],
        stride: usize,
        rank: &'a [u32],
    },
    Wide {
        chunks: Vec<&'a [u32]>,
        cells: usize,
    },
}

impl<'a> DistTable<'a> {
    /// The view of `maps`, built for `graph`; `None` if a wide array is not contiguous.
    pub(crate) fn new(maps: &'a Distances, graph: &'a Graph) -> Option<DistTable<'a>> {
        Some(match maps {
            Distances::Narrow(compact) => DistTable::Narrow {
                data: &compact.data,
                stride: compact.stride,
                rank: &graph.rank,
            },
            Distances::Wide(chunks) => DistTable::Wide {
                cells: chunks.first().map_or(0, |m| m.dims().0 * m.dims().1),
                chunks: chunks
                    .iter()
                    .map(|m| m.as_array().as_slice())
                    .collect::<Option<Vec<_>>>()?,
            },
        })
    }

    #[inline]
    pub(crate) fn get(&self, agent: usize, v: u32) -> u32 {
        match self {
            DistTable::Narrow { data, stride, rank } => {
                widen(data[agent * stride + rank[v as usize] as usize])
            }
            DistTable::Wide { chunks, cells } => {
                chunks[agent / DIST_CHUNK][(agent % DIST_CHUNK) * cells + v as usize]
            }
        }
    }

    pub(crate) fn map(&self, agent: usize) -> MapView<'a> {
        match self {
            DistTable::Narrow { data, stride, rank } => MapView::Narrow {
                map: &data[agent * stride..(agent + 1) * stride],
                rank,
            },
            DistTable::Wide { chunks, cells } => {
                let first = (agent % DIST_CHUNK) * cells;
                MapView::Wide(&chunks[agent / DIST_CHUNK][first..first + cells])
            }
        }
    }
}

/// Hash maps and sets keyed by small integers or configurations: `rustc-hash`'s FxHash,
/// fast and deterministic. (A bare multiplicative hash without its final rotation puts keys
/// that differ only in high bits, such as `cell << 32 | t`, in the same bucket.)
pub(crate) type FxHashMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub(crate) type FxHashSet<K> = rustc_hash::FxHashSet<K>;

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

    /// Halfway from now to this deadline (no limit stays no limit), reporting the same limit.
    pub(crate) fn halfway(&self) -> Deadline {
        self.share(2)
    }

    /// A `1 / parts` share of the time from now to this deadline (no limit stays no limit),
    /// reporting the same limit.
    pub(crate) fn share(&self, parts: u32) -> Deadline {
        let now = Instant::now();
        Deadline {
            at: self
                .at
                .map(|at| now + at.saturating_duration_since(now) / parts.max(1)),
            limit: self.limit,
        }
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

/// A suboptimality factor `w >= 1` in thousandths, so that "cost within `w` of a bound" is
/// integer arithmetic and exact (`1.2` is 1200/1000, not the binary fraction nearest 1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Weight(u64);

impl Weight {
    /// The largest factor accepted: beyond it the bound says nothing a user could want.
    pub(crate) const MAX: f64 = 1000.0;

    /// `w` rounded to thousandths; `None` unless `1 <= w <= Weight::MAX`.
    pub(crate) fn new(w: f64) -> Option<Weight> {
        (w.is_finite() && (1.0..=Weight::MAX).contains(&w))
            .then(|| Weight((w * 1000.0).round() as u64))
    }

    /// `floor(w * bound)`: the largest cost within the factor of `bound`.
    pub(crate) fn scale(self, bound: u64) -> u64 {
        let scaled = u128::from(bound) * u128::from(self.0) / 1000;
        u64::try_from(scaled).unwrap_or(u64::MAX)
    }

    /// Whether `cost <= w * bound`.
    pub(crate) fn admits(self, cost: u64, bound: u64) -> bool {
        u128::from(cost) * 1000 <= u128::from(bound) * u128::from(self.0)
    }
}

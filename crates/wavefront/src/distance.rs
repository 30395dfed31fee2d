//! Exact 4-connected cost-to-go maps, one breadth-first wavefront per goal.
//!
//! Two CPU kernels compute the same maps; [`CpuKernel::default`] is the one the benchmark
//! (`benches/distance.rs`) found faster:
//! - [`CpuKernel::Queue`]: a branch-free queue BFS: visited cells as bits in a padded,
//!   cache-sized plane (the blocked border makes neighbour tests bound-free), the queue a ring
//!   buffer only as large as the frontier, a push a store plus a conditional increment, each
//!   distance written once when its cell is dequeued.
//! - [`CpuKernel::BitFrontier`]: the frontier kept as a sparse list of bit-packed 64-cell words;
//!   each sweep dilates every frontier word with word shifts (`<< 1`, `>> 1`, carries to the
//!   neighbouring words, rows above and below), masks with "free and unvisited", and writes
//!   distance `t` for the new bits.

use std::sync::Arc;

use cuplan_grid::{Cell, Grid};
use ndarray::{Array3, ArrayView2, s};
use rayon::prelude::*;

use crate::backend::Resolved;
use crate::{Backend, WavefrontError};

/// Distance of a cell from which the goal cannot be reached (or that is blocked).
pub const UNREACHABLE: u32 = u32::MAX;

/// Default cap on the bytes of one [`DistanceMaps`] (8 GiB); refuses before allocating.
pub const DEFAULT_MAX_MAP_BYTES: u128 = 8 << 30;

/// Which CPU breadth-first kernel fills the maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CpuKernel {
    /// Branch-free queue BFS over a visited bit plane with a ring-buffer queue.
    #[default]
    Queue,
    /// Sparse bit-packed frontier dilated by word shifts.
    BitFrontier,
}

/// Options of [`distance_maps_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DistanceOptions {
    /// Engine.
    pub backend: Backend,
    /// CPU kernel (ignored by other backends).
    pub kernel: CpuKernel,
    /// Refuse to build maps larger than this many bytes.
    pub max_bytes: u128,
}

impl Default for DistanceOptions {
    fn default() -> Self {
        DistanceOptions {
            backend: Backend::Auto,
            kernel: CpuKernel::default(),
            max_bytes: DEFAULT_MAX_MAP_BYTES,
        }
    }
}

/// `n` exact cost-to-go maps: `maps[i, y, x]` is the number of 4-connected unit moves from
/// cell `(x, y)` to goal `i`, or [`UNREACHABLE`].
///
/// *Invariants*: the array is `n × height × width` of the grid it was built from; the goal of
/// map `i` holds 0; every reachable free cell holds one more than its smallest neighbour.
/// Cloning is cheap (the array sits behind an `Arc`), so the maps can be shared as heuristics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistanceMaps {
    maps: Arc<Array3<u32>>,
    goals: Arc<[Cell]>,
}

impl DistanceMaps {
    /// Number of maps (= number of goals).
    pub fn len(&self) -> usize {
        self.goals.len()
    }

    /// Whether there are no maps.
    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }

    /// The goal of each map.
    pub fn goals(&self) -> &[Cell] {
        &self.goals
    }

    /// `(height, width)` of each map.
    pub fn dims(&self) -> (usize, usize) {
        let (_, h, w) = self.maps.dim();
        (h, w)
    }

    /// Moves from `cell` to goal `i`; `None` when unreachable, blocked, or either index is out
    /// of range.
    pub fn get(&self, i: usize, cell: Cell) -> Option<u32> {
        self.maps
            .get((i, cell.y as usize, cell.x as usize))
            .copied()
            .filter(|&d| d != UNREACHABLE)
    }

    /// Map `i` as a `height × width` view (panics if `i >= len()`, like slice indexing).
    pub fn map(&self, i: usize) -> ArrayView2<'_, u32> {
        self.maps.slice(s![i, .., ..])
    }

    /// Map `i` as a row-major slice (`y * width + x`), or `None` when `i` is out of range.
    pub fn map_slice(&self, i: usize) -> Option<&[u32]> {
        let (n, h, w) = self.maps.dim();
        if i >= n {
            return None;
        }
        self.maps
            .as_slice()
            .map(|all| &all[i * h * w..(i + 1) * h * w])
    }

    /// The whole `n × height × width` array.
    pub fn as_array(&self) -> &Array3<u32> {
        &self.maps
    }

    /// Bytes held by the distances.
    pub fn bytes(&self) -> usize {
        self.maps.len() * std::mem::size_of::<u32>()
    }
}

/// One exact distance map per goal, breadth-first on the 4-connected grid.
///
/// Errors: a goal out of range or blocked ([`WavefrontError::InvalidGoal`] naming its index),
/// an unavailable backend, or maps over [`DEFAULT_MAX_MAP_BYTES`].
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_wavefront::{Backend, distance_maps};
///
/// let grid = Grid::from_ascii("...\n.@.\n...")?;
/// let maps = distance_maps(&grid, &[Cell::new(0, 0)], Backend::Cpu)?;
/// assert_eq!(maps.get(0, Cell::new(2, 2)), Some(4));
/// assert_eq!(maps.get(0, Cell::new(1, 1)), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn distance_maps(
    grid: &Grid,
    goals: &[Cell],
    backend: Backend,
) -> Result<DistanceMaps, WavefrontError> {
    distance_maps_with(
        grid,
        goals,
        &DistanceOptions {
            backend,
            ..DistanceOptions::default()
        },
    )
}

/// [`distance_maps`] with an explicit kernel and memory limit.
pub fn distance_maps_with(
    grid: &Grid,
    goals: &[Cell],
    options: &DistanceOptions,
) -> Result<DistanceMaps, WavefrontError> {
    for (index, &goal) in goals.iter().enumerate() {
        grid.check_free(goal)
            .map_err(|source| WavefrontError::InvalidGoal { index, source })?;
    }
    let cells = grid.cell_count();
    let bytes = goals.len() as u128 * cells as u128 * 4;
    if bytes > options.max_bytes {
        return Err(WavefrontError::TooLarge {
            what: "distance maps",
            bytes,
            limit: options.max_bytes,
        });
    }
    // cuda hook (cuplan-wavefront-gpu, see cuda.rs): the GPU fills the maps when asked and able.
    #[cfg(feature = "cuda")]
    if let Some(data) = crate::cuda::distance_data(options.backend, grid, goals)? {
        let shape = (goals.len(), grid.height() as usize, grid.width() as usize);
        let maps = Array3::from_shape_vec(shape, data).map_err(|e| WavefrontError::Internal {
            reason: format!("CUDA distance map shape {shape:?}: {e}"),
        })?;
        return Ok(DistanceMaps {
            maps: Arc::new(maps),
            goals: goals.into(),
        });
    }
    // end cuda hook
    let Resolved::Cpu = options.backend.resolve()?;
    // Zeroed allocations are mapped lazily by the OS; each kernel fills its own maps.
    let mut data = vec![0u32; goals.len() * cells];
    advise_huge_pages(&data);
    if cells > 0 {
        let template = OpenBits::new(grid);
        match options.kernel {
            CpuKernel::Queue => {
                let geo = Geometry::new(&template, grid);
                data.par_chunks_mut(2 * cells)
                    .zip(goals.par_chunks(2))
                    .for_each_init(
                        || (Lane::new(), Lane::new()),
                        |lanes, (out, pair)| queue_bfs(lanes, &template, geo, pair, out),
                    );
            }
            CpuKernel::BitFrontier => data
                .par_chunks_mut(cells)
                .zip(goals.par_iter())
                .for_each_init(FrontierScratch::new, |scratch, (out, &goal)| {
                    scratch.run(&template, grid, goal, out)
                }),
        }
    }
    let shape = (goals.len(), grid.height() as usize, grid.width() as usize);
    let maps = Array3::from_shape_vec(shape, data).map_err(|e| WavefrontError::Internal {
        reason: format!("distance map shape {shape:?}: {e}"),
    })?;
    Ok(DistanceMaps {
        maps: Arc::new(maps),
        goals: goals.into(),
    })
}

/// The open (free) cells of a grid as bits, rows padded to a power-of-two pitch so a bit
/// index splits into row and column with a shift and a mask. Stored coordinates as in the
/// grid's [`BitPlane`](cuplan_grid::BitPlane): real + 1, border blocked (0 here).
struct OpenBits {
    shift: u32,
    words: Vec<u64>,
}

impl OpenBits {
    fn new(grid: &Grid) -> OpenBits {
        let plane = grid.rows();
        let stride = plane.stride();
        let pitch = stride.next_power_of_two();
        let mut words = vec![0u64; pitch * plane.stored_rows()];
        for (r, row) in words.chunks_exact_mut(pitch).enumerate() {
            for (o, &b) in row.iter_mut().zip(plane.row(r)) {
                *o = !b;
            }
        }
        OpenBits {
            shift: (pitch * 64).trailing_zeros(),
            words,
        }
    }
}

/// Bit-index arithmetic shared by every lane of one grid.
#[derive(Clone, Copy)]
struct Geometry {
    shift: u32,
    pitch_bits: usize,
    col_mask: usize,
    width: usize,
}

impl Geometry {
    fn new(template: &OpenBits, grid: &Grid) -> Geometry {
        let pitch_bits = 1usize << template.shift;
        Geometry {
            shift: template.shift,
            pitch_bits,
            col_mask: pitch_bits - 1,
            width: grid.width() as usize,
        }
    }

    /// The output index of bit index `p` (stored row r, column c is grid cell (c-1, r-1)).
    #[inline(always)]
    fn out_index(self, p: usize) -> usize {
        ((p >> self.shift) - 1) * self.width + (p & self.col_mask) - 1
    }
}

/// One breadth-first search of the queue kernel in progress; reused across goals.
///
/// The loop body is latency-bound (a cell's neighbour words are usually the words the
/// previous cell just wrote), so a thread runs two lanes for two goals in lock step and the
/// processor overlaps their independent chains.
struct Lane {
    open: Vec<u64>,
    /// Ring buffer of bit indices; only the frontier's span is live, so it stays cache-sized.
    ring: Vec<u32>,
    head: usize,
    tail: usize,
    level_end: usize,
    t: u32,
}

impl Lane {
    fn new() -> Lane {
        Lane {
            open: Vec::new(),
            ring: vec![0; 1 << 12],
            head: 0,
            tail: 0,
            level_end: 0,
            t: 0,
        }
    }

    fn start(&mut self, template: &OpenBits, geo: Geometry, goal: Cell) {
        self.open.clear();
        self.open.extend_from_slice(&template.words);
        let g = ((goal.y as usize + 1) << geo.shift) | (goal.x as usize + 1);
        self.open[g >> 6] &= !(1u64 << (g & 63));
        self.ring[0] = g as u32;
        (self.head, self.tail, self.level_end, self.t) = (0, 1, 0, 0);
    }

    fn busy(&self) -> bool {
        self.head < self.tail
    }

    /// Dequeues one cell, writes its distance and enqueues its fresh neighbours.
    #[inline(always)]
    fn expand_one(&mut self, geo: Geometry, out: &mut [u32]) {
        if self.head == self.level_end {
            if self.head > 0 {
                self.t += 1;
            }
            self.level_end = self.tail;
            // Each pop adds at most three net entries, so a level fits without regrowing.
            let need = 4 * (self.tail - self.head) + 4;
            if need > self.ring.len() {
                grow_ring(&mut self.ring, self.head, self.tail, need);
            }
        }
        let mask = self.ring.len() - 1;
        let (open, ring) = (&mut self.open[..], &mut self.ring[..]);
        let mut tail = self.tail;
        let p = ring[self.head & mask] as usize;
        self.head += 1;
        out[geo.out_index(p)] = self.t;
        let b = p & 63;
        if b.wrapping_sub(1) < 62 {
            // Both horizontal neighbours share p's word: one read-modify-write for two, so
            // the second does not wait on the first's store.
            let word = &mut open[p >> 6];
            let pair = 0b101u64 << (b - 1);
            let fresh = *word & pair;
            *word &= !pair;
            ring[tail & mask] = (p - 1) as u32;
            tail += usize::from(fresh >> (b - 1) & 1 != 0);
            ring[tail & mask] = (p + 1) as u32;
            tail += usize::from(fresh >> (b + 1) & 1 != 0);
        } else {
            claim(open, ring, mask, &mut tail, p - 1);
            claim(open, ring, mask, &mut tail, p + 1);
        }
        claim(open, ring, mask, &mut tail, p - geo.pitch_bits);
        claim(open, ring, mask, &mut tail, p + geo.pitch_bits);
        self.tail = tail;
    }
}

/// Fills the maps of up to two goals (`out` holds one map per goal), interleaving them.
fn queue_bfs(
    lanes: &mut (Lane, Lane),
    template: &OpenBits,
    geo: Geometry,
    goals: &[Cell],
    out: &mut [u32],
) {
    let cells = out.len() / goals.len().max(1);
    let (out_a, out_b) = out.split_at_mut(cells.min(out.len()));
    let (a, b) = (&mut lanes.0, &mut lanes.1);
    // Filling first also faults the fresh pages in sequentially, which measured faster than
    // leaving the zeroed buffer to be first touched in BFS order (`examples/bfs_timing.rs`).
    out_a.fill(UNREACHABLE);
    out_b.fill(UNREACHABLE);
    match *goals {
        [ga, gb] => {
            a.start(template, geo, ga);
            b.start(template, geo, gb);
            while a.busy() && b.busy() {
                a.expand_one(geo, out_a);
                b.expand_one(geo, out_b);
            }
            while b.busy() {
                b.expand_one(geo, out_b);
            }
        }
        [ga] => a.start(template, geo, ga),
        _ => return,
    }
    while a.busy() {
        a.expand_one(geo, out_a);
    }
}

/// Marks bit `n` reached and enqueues it if it was open, without a branch: the store always
/// happens, the tail only advances for a fresh cell.
#[inline(always)]
fn claim(open: &mut [u64], ring: &mut [u32], mask: usize, tail: &mut usize, n: usize) {
    let word = &mut open[n >> 6];
    let bit = 1u64 << (n & 63);
    let fresh = *word & bit != 0;
    *word &= !bit;
    ring[*tail & mask] = n as u32;
    *tail += usize::from(fresh);
}

/// Grows a power-of-two ring buffer holding the live entries `head..tail` to at least `need`
/// slots, keeping each entry at its index modulo the new size.
fn grow_ring(ring: &mut Vec<u32>, head: usize, tail: usize, need: usize) {
    let old_mask = ring.len() - 1;
    let mut bigger = vec![0u32; need.next_power_of_two()];
    let mask = bigger.len() - 1;
    for k in head..tail {
        bigger[k & mask] = ring[k & old_mask];
    }
    *ring = bigger;
}

/// Per-thread state of the bit-frontier kernel, reused across goals.
struct FrontierScratch {
    /// Free and not yet reached ([`OpenBits`] layout).
    open: Vec<u64>,
    /// Bits gathered for the next sweep, per word; all zero between sweeps.
    next: Vec<u64>,
    frontier: Vec<(u32, u64)>,
    touched: Vec<u32>,
}

impl FrontierScratch {
    fn new() -> FrontierScratch {
        FrontierScratch {
            open: Vec::new(),
            next: Vec::new(),
            frontier: Vec::new(),
            touched: Vec::new(),
        }
    }

    fn run(&mut self, template: &OpenBits, grid: &Grid, goal: Cell, out: &mut [u32]) {
        self.open.clear();
        self.open.extend_from_slice(&template.words);
        self.next.resize(template.words.len(), 0);
        out.fill(UNREACHABLE);
        let word_shift = template.shift - 6;
        let pitch = 1usize << word_shift;
        let width = grid.width() as usize;
        let g = ((goal.y as usize + 1) << template.shift) | (goal.x as usize + 1);
        self.open[g >> 6] &= !(1u64 << (g & 63));
        out[goal.y as usize * width + goal.x as usize] = 0;
        self.frontier.clear();
        self.frontier.push(((g >> 6) as u32, 1u64 << (g & 63)));
        let mut t = 0u32;
        while !self.frontier.is_empty() {
            t += 1;
            self.gather(pitch);
            self.commit(word_shift, width, t, out);
        }
    }

    /// Adds every frontier word's dilation (masked by `open`) to `next`, listing touched words.
    fn gather(&mut self, pitch: usize) {
        let open = &self.open;
        let next = &mut self.next;
        let touched = &mut self.touched;
        let mut add = |i: usize, bits: u64| {
            let m = bits & open[i];
            if m != 0 {
                if next[i] == 0 {
                    touched.push(i as u32);
                }
                next[i] |= m;
            }
        };
        for &(i, f) in &self.frontier {
            let i = i as usize;
            add(i, (f << 1) | (f >> 1));
            // The border keeps column 0 and the padding past the last column blocked, so a
            // frontier bit never sits at the outer edge of the first or last word of a row.
            if f >> 63 != 0 {
                add(i + 1, 1);
            }
            if f & 1 != 0 {
                add(i - 1, 1 << 63);
            }
            add(i - pitch, f);
            add(i + pitch, f);
        }
    }

    /// Moves the gathered bits into the frontier, marks them reached and writes distance `t`.
    fn commit(&mut self, word_shift: u32, width: usize, t: u32, out: &mut [u32]) {
        self.frontier.clear();
        let pitch_mask = (1usize << word_shift) - 1;
        for &i in &self.touched {
            let i = i as usize;
            let bits = std::mem::take(&mut self.next[i]);
            self.open[i] &= !bits;
            self.frontier.push((i as u32, bits));
            let (r, w) = (i >> word_shift, i & pitch_mask);
            // Stored row r, column w·64 + b is grid cell (w·64 + b - 1, r - 1).
            let base = (r - 1) * width + w * 64;
            let mut rest = bits;
            while rest != 0 {
                let b = rest.trailing_zeros() as usize;
                out[base + b - 1] = t;
                rest &= rest - 1;
            }
        }
        self.touched.clear();
    }
}

/// Asks the OS to back a large, not yet touched buffer with transparent huge pages: on a
/// virtual machine a 4 KiB page fault costs microseconds, so batches of big maps otherwise
/// spend more time faulting than searching (measured: `examples/bfs_timing.rs`).
#[cfg(target_os = "linux")]
fn advise_huge_pages<T>(buffer: &[T]) {
    const HUGE: usize = 2 << 20;
    let start = buffer.as_ptr() as usize;
    let end = start + std::mem::size_of_val(buffer);
    let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
    if hi > lo {
        // SAFETY: [lo, hi) lies inside `buffer`'s allocation, which stays mapped; MADV_HUGEPAGE
        // only changes how the kernel backs the range, never its contents or validity. A
        // failure (THP disabled) is harmless and ignored.
        unsafe {
            libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages<T>(_buffer: &[T]) {}

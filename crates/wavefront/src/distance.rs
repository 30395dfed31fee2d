//! Exact 4-connected cost-to-go maps, one breadth-first wavefront per goal.
//!
//! Three CPU kernels compute the same maps; [`CpuKernel::Auto`] (the default) picks one per
//! grid, by what `examples/bfs_timing.rs` and `cargo xtask bench batch` measured:
//! - [`CpuKernel::Sweep`] (`sweep.rs`): Gauss–Seidel sweeps over whole rows, 32 `u16` cells
//!   per AVX-512 operation, exact by construction (the module explains why); the fastest on
//!   grids at least 128 cells wide whose rows' free runs average 6.5 cells or more (open
//!   maps, warehouses, large game and city maps, random maps up to about 15 % obstacles).
//! - [`CpuKernel::BitFrontier`] (`tiles.rs`): a breadth-first search whose frontier is a sparse
//!   set of 8 × 8 bit tiles; a level costs a few word operations per frontier tile and two
//!   masked vector stores for its distances. The fastest on dense random maps (0.7 times the
//!   sweeps' time at 20 % obstacles, 0.6–0.75 times the queue kernel's at 30 %), rooms, 2-wide
//!   mazes and narrow grids.
//! - [`CpuKernel::Queue`]: a branch-free queue BFS: visited cells as bits in a padded,
//!   cache-sized plane (the blocked border makes neighbour tests bound-free), the queue a ring
//!   buffer only as large as the frontier, a push a store plus a conditional increment, each
//!   distance written once when its cell is dequeued, into a `u16` map that stays in cache
//!   from goal to goal and is copied out in order. What `Auto` uses where most free cells have
//!   at most two free neighbours (1-wide mazes: 1.05–1.35× the tiles' speed; grids broken
//!   into small pieces), and on processors without AVX-512.
//!
//! The maps store `u32` by default; [`DistanceMaps::<u16>::build`](DistanceMaps::build) stores
//! `u16`, half the memory and bandwidth, and is an error when a distance does not fit.
//!
//! Memory: each thread keeps its kernels' buffers between calls (up to 32 MiB, a few bytes a
//! cell), and [`DistanceMaps::rebuild`] writes new maps into old ones, so a caller that
//! recomputes its maps does not pay the OS for fresh pages each time.

use std::fmt::Debug;
use std::sync::{Arc, OnceLock};

use cuplan_grid::{Cell, Grid};
use ndarray::{Array3, ArrayView2, s};
use rayon::prelude::*;

use crate::backend::Resolved;
use crate::tiles::{TileBfs, TilePlane};
use crate::{Backend, WavefrontError};

/// Distance of a cell from which the goal cannot be reached (or that is blocked).
pub const UNREACHABLE: u32 = u32::MAX;

/// [`UNREACHABLE`] of `u16` maps ([`DistanceMaps::<u16>::build`](DistanceMaps::build)): the largest distance they hold is
/// one less, 65,534.
pub const UNREACHABLE_U16: u16 = u16::MAX;

mod sealed {
    /// Keeps [`Distance`](super::Distance) to the integer types the kernels are built for.
    pub trait Sealed {
        /// Narrows CUDA `u32` distances ([`UNREACHABLE`](super::UNREACHABLE) kept as such),
        /// or gives them back when one does not fit.
        #[cfg(feature = "cuda")]
        fn narrow(data: Vec<u32>) -> Result<Vec<Self>, Vec<u32>>
        where
            Self: Sized;
    }
}

/// The integer type of one distance in [`DistanceMaps`]: `u32` (the default) or `u16`
/// (half the memory; distances up to 65,534). Sealed: implemented for these two only.
pub trait Distance: sealed::Sealed + Copy + Send + Sync + Debug + Eq + 'static {
    /// The value of a cell that cannot reach the goal ([`UNREACHABLE`] / [`UNREACHABLE_U16`]).
    const UNREACHABLE: Self;

    /// Distance `t` in this type; `t` must be below [`Self::UNREACHABLE`] (larger values are
    /// truncated, and the builders report them as [`WavefrontError::DistanceOverflow`]).
    fn from_level(t: u32) -> Self;

    /// The value widened to `u32`. [`UNREACHABLE_U16`] widens to 65,535, not [`UNREACHABLE`]:
    /// compare with [`Self::UNREACHABLE`] before widening.
    fn to_u32(self) -> u32;
}

impl sealed::Sealed for u32 {
    #[cfg(feature = "cuda")]
    fn narrow(data: Vec<u32>) -> Result<Vec<u32>, Vec<u32>> {
        Ok(data)
    }
}

impl Distance for u32 {
    const UNREACHABLE: u32 = UNREACHABLE;

    #[inline(always)]
    fn from_level(t: u32) -> u32 {
        t
    }

    #[inline(always)]
    fn to_u32(self) -> u32 {
        self
    }
}

impl sealed::Sealed for u16 {
    #[cfg(feature = "cuda")]
    fn narrow(data: Vec<u32>) -> Result<Vec<u16>, Vec<u32>> {
        let fits = |d: u32| d == UNREACHABLE || d < u32::from(UNREACHABLE_U16);
        if !data.iter().all(|&d| fits(d)) {
            return Err(data);
        }
        Ok(data
            .iter()
            .map(|&d| match d {
                UNREACHABLE => UNREACHABLE_U16,
                d => d as u16,
            })
            .collect())
    }
}

impl Distance for u16 {
    const UNREACHABLE: u16 = UNREACHABLE_U16;

    #[inline(always)]
    fn from_level(t: u32) -> u16 {
        t as u16
    }

    #[inline(always)]
    fn to_u32(self) -> u32 {
        u32::from(self)
    }
}

/// Default cap on the bytes of one [`DistanceMaps`] (8 GiB); refuses before allocating.
pub const DEFAULT_MAX_MAP_BYTES: u128 = 8 << 30;

/// Which CPU kernel fills the maps. All give the same maps; they differ in speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum CpuKernel {
    /// The kernel expected to win on the grid: [`CpuKernel::Queue`] where 60 % of the free
    /// cells or more have at most two free neighbours (1-wide mazes, grids broken into small
    /// pieces); [`CpuKernel::Sweep`] on grids at least 128 cells wide whose rows' free runs
    /// average 6.5 cells or more (open maps, warehouses, large game and city maps); else
    /// [`CpuKernel::BitFrontier`] (dense random maps, rooms, 2-wide mazes, narrow grids). In a
    /// batch on sweeps, once most goals' sweeps (two at least) cost more than the tile kernel
    /// would have, the remaining goals of that call use it. On processors without AVX-512,
    /// [`CpuKernel::Queue`].
    #[default]
    Auto,
    /// Branch-free queue BFS over a visited bit plane with a ring-buffer queue.
    Queue,
    /// Breadth-first search over a sparse frontier of 8 × 8 bit tiles (`src/tiles.rs`),
    /// distances written with masked AVX-512 stores (bit by bit without AVX-512). A goal whose
    /// distances pass `u16`, the width the tiles compute in, uses [`CpuKernel::Queue`].
    BitFrontier,
    /// Gauss–Seidel row sweeps, 32 cells per AVX-512 operation (`src/sweep.rs` explains
    /// them). On processors without AVX-512 (`avx512f`, `avx512bw`), every goal uses
    /// [`CpuKernel::Queue`]; a goal whose sweeps give up (mazes wind too much) or whose
    /// distances may not fit in `u16`, the width the sweeps compute in, uses
    /// [`CpuKernel::BitFrontier`].
    Sweep,
}

impl CpuKernel {
    /// Every kernel, for tests and benchmarks that run them all (where AVX-512 is missing,
    /// `Sweep` and `Auto` run the queue kernel, and `BitFrontier` writes bit by bit).
    pub const ALL: [CpuKernel; 4] = [
        CpuKernel::Auto,
        CpuKernel::Sweep,
        CpuKernel::Queue,
        CpuKernel::BitFrontier,
    ];
}

/// How [`distance_maps`], [`DistanceMaps::build`] and [`batched_astar`](crate::batched_astar)
/// build maps: the backend, the CPU kernel and a memory limit.
///
/// A [`Backend`] converts into the options with that backend and the other defaults, so
/// `distance_maps(&grid, &goals, Backend::Cpu)` is the short form; the `with_*` methods set
/// the rest. New options may be added (the struct is `#[non_exhaustive]`), always with a
/// default that keeps today's behaviour.
///
/// ```
/// use cuplan_wavefront::{Backend, CpuKernel, DistanceOptions};
///
/// let options = DistanceOptions::from(Backend::Cpu)
///     .with_kernel(CpuKernel::Queue)
///     .with_max_bytes(1 << 20);
/// assert_eq!(options.backend, Backend::Cpu);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
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

impl DistanceOptions {
    /// These options with another backend.
    pub fn with_backend(self, backend: Backend) -> DistanceOptions {
        DistanceOptions { backend, ..self }
    }

    /// These options with another CPU kernel.
    pub fn with_kernel(self, kernel: CpuKernel) -> DistanceOptions {
        DistanceOptions { kernel, ..self }
    }

    /// These options with another memory limit, in bytes.
    pub fn with_max_bytes(self, max_bytes: u128) -> DistanceOptions {
        DistanceOptions { max_bytes, ..self }
    }
}

impl From<Backend> for DistanceOptions {
    fn from(backend: Backend) -> DistanceOptions {
        DistanceOptions::default().with_backend(backend)
    }
}

impl From<&DistanceOptions> for DistanceOptions {
    fn from(options: &DistanceOptions) -> DistanceOptions {
        *options
    }
}

/// `n` exact cost-to-go maps: `maps[i, y, x]` is the number of 4-connected unit moves from
/// cell `(x, y)` to goal `i`, or [`D::UNREACHABLE`](Distance::UNREACHABLE) ([`UNREACHABLE`]
/// for the default `u32`, [`UNREACHABLE_U16`] for `u16`).
///
/// *Invariants*: the array is `n × height × width` of the grid it was built from; the goal of
/// map `i` holds 0; every reachable free cell holds one more than its smallest neighbour.
/// Cloning is cheap (the array sits behind an `Arc`), so the maps can be shared as heuristics.
///
/// `Debug` prints the shape, the first goals and the bytes held, not the distances.
#[derive(Clone, PartialEq, Eq)]
pub struct DistanceMaps<D: Distance = u32> {
    maps: Arc<Array3<D>>,
    goals: Arc<[Cell]>,
}

impl<D: Distance> std::fmt::Debug for DistanceMaps<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        /// Goals shown; a batch can hold thousands.
        const GOALS_SHOWN: usize = 8;
        let (height, width) = self.dims();
        f.debug_struct("DistanceMaps")
            .field("len", &self.len())
            .field("width", &width)
            .field("height", &height)
            .field("goals", &&self.goals[..self.goals.len().min(GOALS_SHOWN)])
            .field("bytes", &self.bytes())
            .finish_non_exhaustive()
    }
}

impl<D: Distance> Default for DistanceMaps<D> {
    /// No maps: a start for [`DistanceMaps::rebuild`].
    fn default() -> Self {
        DistanceMaps {
            maps: Arc::new(Array3::from_elem((0, 0, 0), D::UNREACHABLE)),
            goals: Arc::from([]),
        }
    }
}

impl<D: Distance> DistanceMaps<D> {
    /// One exact distance map per goal, stored as `D` (`u32` or `u16`): what
    /// [`distance_maps`] builds for `u32`. The memory limit counts `size_of::<D>()` bytes a
    /// cell.
    ///
    /// Errors: those of [`distance_maps`], and [`WavefrontError::DistanceOverflow`] when a
    /// distance does not fit in `D` (a `u16` map holds at most 65,534; only possible on grids
    /// with more free cells than that; build `u32` maps there).
    ///
    /// ```
    /// use cuplan_grid::{Cell, Grid};
    /// use cuplan_wavefront::{Backend, DistanceMaps, UNREACHABLE_U16};
    ///
    /// let grid = Grid::from_ascii("...\n.@.\n...")?;
    /// let maps = DistanceMaps::<u16>::build(&grid, &[Cell::new(0, 0)], Backend::Cpu)?;
    /// assert_eq!(maps.get(0, Cell::new(2, 2)), Some(4));
    /// assert_eq!(maps.map(0)[[1, 1]], UNREACHABLE_U16);
    /// assert_eq!(maps.bytes(), 9 * 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn build(
        grid: &Grid,
        goals: &[Cell],
        options: impl Into<DistanceOptions>,
    ) -> Result<DistanceMaps<D>, WavefrontError> {
        build_maps(grid, goals, &options.into(), Vec::new())
    }

    /// Replaces these maps with the maps of `goals` on `grid`, as [`DistanceMaps::build`]
    /// builds them, writing into the storage these maps hold when no clone shares it. Fresh memory
    /// costs the OS a page fault and a page of zeros before the first write, which can match
    /// the search itself; a server recomputing its maps as obstacles move pays that once.
    ///
    /// Errors: those of [`DistanceMaps::build`]. After an error `self` holds no maps.
    ///
    /// ```
    /// use cuplan_grid::{Cell, Grid};
    /// use cuplan_wavefront::{DistanceMaps, DistanceOptions};
    ///
    /// let mut grid = Grid::from_ascii("....\n....")?;
    /// let mut maps = DistanceMaps::<u32>::default();
    /// let options = DistanceOptions::default();
    /// maps.rebuild(&grid, &[Cell::new(0, 0)], &options)?;
    /// assert_eq!(maps.get(0, Cell::new(2, 1)), Some(3));
    /// grid.set_blocked(Cell::new(1, 1))?;
    /// grid.set_blocked(Cell::new(1, 0))?;
    /// maps.rebuild(&grid, &[Cell::new(0, 0)], &options)?;
    /// assert_eq!(maps.get(0, Cell::new(2, 1)), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rebuild(
        &mut self,
        grid: &Grid,
        goals: &[Cell],
        options: impl Into<DistanceOptions>,
    ) -> Result<(), WavefrontError> {
        let storage = self.take_storage();
        *self = build_maps(grid, goals, &options.into(), storage)?;
        Ok(())
    }

    /// The distances' storage (old values kept, to be overwritten) when no clone shares it;
    /// `self` is left with no maps.
    fn take_storage(&mut self) -> Vec<D> {
        let maps = std::mem::take(self).maps;
        match Arc::try_unwrap(maps) {
            Ok(array) => array.into_raw_vec_and_offset().0,
            Err(_shared) => Vec::new(),
        }
    }

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
            .filter(|&d| d != D::UNREACHABLE)
            .map(D::to_u32)
    }

    /// Map `i` as a `height × width` view (panics if `i >= len()`, like slice indexing).
    pub fn map(&self, i: usize) -> ArrayView2<'_, D> {
        self.maps.slice(s![i, .., ..])
    }

    /// Map `i` as a row-major slice (`y * width + x`), or `None` when `i` is out of range.
    pub fn map_slice(&self, i: usize) -> Option<&[D]> {
        let (n, h, w) = self.maps.dim();
        if i >= n {
            return None;
        }
        self.maps
            .as_slice()
            .map(|all| &all[i * h * w..(i + 1) * h * w])
    }

    /// The whole `n × height × width` array.
    pub fn as_array(&self) -> &Array3<D> {
        &self.maps
    }

    /// The distances as one row-major vector (`(i * height + y) * width + x`), moved out
    /// without a copy when no clone shares them (a clone copies).
    pub fn into_vec(self) -> Vec<D> {
        Arc::unwrap_or_clone(self.maps).into_raw_vec_and_offset().0
    }

    /// Bytes held by the distances (`size_of::<D>()` per cell).
    pub fn bytes(&self) -> usize {
        self.maps.len() * std::mem::size_of::<D>()
    }
}

/// One exact `u32` distance map per goal, breadth-first on the 4-connected grid.
///
/// `options` is a [`Backend`] or a full [`DistanceOptions`] (kernel, memory limit);
/// [`DistanceMaps::<u16>::build`](DistanceMaps::build) stores half the bytes.
///
/// Errors: a goal out of range or blocked ([`WavefrontError::InvalidGoal`] naming its index),
/// an unavailable backend, or maps over the memory limit ([`DEFAULT_MAX_MAP_BYTES`] unless
/// the options say otherwise).
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
    options: impl Into<DistanceOptions>,
) -> Result<DistanceMaps, WavefrontError> {
    DistanceMaps::build(grid, goals, options)
}

/// [`DistanceMaps::build`], writing into `storage` when its capacity holds the maps.
fn build_maps<D: Distance>(
    grid: &Grid,
    goals: &[Cell],
    options: &DistanceOptions,
    storage: Vec<D>,
) -> Result<DistanceMaps<D>, WavefrontError> {
    for (index, &goal) in goals.iter().enumerate() {
        grid.check_free(goal)
            .map_err(|source| WavefrontError::InvalidGoal { index, source })?;
    }
    let cells = grid.cell_count();
    let bytes = goals.len() as u128 * cells as u128 * std::mem::size_of::<D>() as u128;
    if bytes > options.max_bytes {
        return Err(WavefrontError::TooLarge {
            what: "distance maps",
            bytes,
            limit: options.max_bytes,
        });
    }
    // The kernels address cells by 32-bit bit indices into a padded plane.
    let plane_bytes = OpenBits::bytes_for(grid);
    if plane_bytes * 8 > u128::from(u32::MAX) {
        return Err(WavefrontError::TooLarge {
            what: "open-cell plane (32-bit bit indices)",
            bytes: plane_bytes,
            limit: (u128::from(u32::MAX) + 1) / 8,
        });
    }
    let shape = (goals.len(), grid.height() as usize, grid.width() as usize);
    // cuda hook (cuplan-wavefront-gpu, see cuda.rs): the GPU fills the maps when asked and able.
    #[cfg(feature = "cuda")]
    if let Some(data) = crate::cuda::distance_data(options.backend, grid, goals)? {
        let data = D::narrow(data).map_err(|wide| wide_overflow::<D>(&wide, cells))?;
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
    let mut data = reuse_or_allocate(storage, goals.len() * cells);
    // The largest distance of each map, checked against `D` once the kernels are done.
    let mut levels = vec![0u32; goals.len()];
    if cells > 0 {
        match options.kernel {
            #[cfg(target_arch = "x86_64")]
            CpuKernel::Sweep | CpuKernel::Auto if crate::sweep::supported() => {
                let free = crate::sweep::FreeBits::new(grid);
                let adaptive = options.kernel == CpuKernel::Auto;
                if adaptive && free.mostly_corridors() {
                    queue_maps(grid, goals, &mut data, &mut levels);
                } else if adaptive && !free.suits_sweeps() {
                    tile_maps(grid, goals, &mut data, &mut levels);
                } else {
                    sweep_maps(grid, &free, goals, &mut data, &mut levels, adaptive);
                }
            }
            CpuKernel::Queue | CpuKernel::Sweep | CpuKernel::Auto => {
                queue_maps(grid, goals, &mut data, &mut levels);
            }
            CpuKernel::BitFrontier => tile_maps(grid, goals, &mut data, &mut levels),
        }
    }
    // A distance is at most the number of free cells less one, so most grids cannot overflow.
    let limit = D::UNREACHABLE.to_u32();
    if grid.free_count() > u64::from(limit)
        && let Some((goal_index, &max_distance)) =
            levels.iter().enumerate().find(|&(_, &l)| l >= limit)
    {
        return Err(overflow::<D>(goal_index, max_distance));
    }
    let maps = Array3::from_shape_vec(shape, data).map_err(|e| WavefrontError::Internal {
        reason: format!("distance map shape {shape:?}: {e}"),
    })?;
    Ok(DistanceMaps {
        maps: Arc::new(maps),
        goals: goals.into(),
    })
}

/// `len` distances (their values unspecified: every kernel writes every cell), in `storage`
/// when it has the capacity.
fn reuse_or_allocate<D: Distance>(mut storage: Vec<D>, len: usize) -> Vec<D> {
    if storage.capacity() >= len {
        // Only cells past the old length are written here, and only when it grows.
        storage.resize(len, D::UNREACHABLE);
        return storage;
    }
    drop(storage);
    // Zeroed allocations are mapped lazily by the OS, so the kernels' writes are the first.
    let data = vec![D::from_level(0); len];
    advise_huge_pages(&data);
    data
}

/// The kernels' buffers of one thread. A thread keeps them between calls (up to
/// [`KEPT_WORKSPACE_BYTES`]): fresh memory costs a page fault and a page of zeros before its
/// first write, which on a big map can cost as much as a sweep.
#[derive(Default)]
struct Workspace {
    #[cfg(target_arch = "x86_64")]
    sweep: crate::sweep::Scratch,
    queue: QueueBfs,
    tiles: TileBfs,
    /// The `u16` map the sweep and queue kernels search in, copied out when done (the tile
    /// kernel keeps its own, tile-major).
    narrow: Vec<u16>,
}

/// The most bytes of buffers a thread keeps between calls (a 2048² grid's take 9 MiB).
const KEPT_WORKSPACE_BYTES: usize = 32 << 20;

impl Workspace {
    fn bytes(&self) -> usize {
        #[cfg(target_arch = "x86_64")]
        let sweep = self.sweep.bytes();
        #[cfg(not(target_arch = "x86_64"))]
        let sweep = 0;
        sweep + self.queue.bytes() + self.tiles.bytes() + self.narrow.capacity() * 2
    }

    /// Fills the map of `goal` with the queue kernel and returns its largest distance.
    ///
    /// In a batch the search writes a `u16` map in `narrow`, which stays in cache from one
    /// goal to the next, and the map is then copied out in order: scattered writes straight
    /// into a batch's big output missed the caches (a 16-goal batch cost 1.5 times as much
    /// per cell as one goal). A map with distances past `u16` is searched again straight into
    /// `out`. A lone goal is searched straight into `out`, whose one map is as likely to be
    /// cached as `narrow` (the copy cost 5 % there).
    fn queue_map<D: Distance>(
        &mut self,
        template: &OpenBits,
        geo: Geometry,
        goal: Cell,
        out: &mut [D],
        in_batch: bool,
    ) -> u32 {
        let (bfs, narrow) = (&mut self.queue, &mut self.narrow);
        if in_batch {
            narrow.clear();
            narrow.resize(out.len(), UNREACHABLE_U16);
            bfs.start(template, geo, goal);
            bfs.run(geo, narrow);
            if bfs.t < u32::from(UNREACHABLE_U16) {
                widen(narrow, out);
                return bfs.t;
            }
        }
        // Filling first also faults fresh pages in sequentially, which measured faster than
        // leaving them to be first touched in BFS order.
        out.fill(D::UNREACHABLE);
        bfs.start(template, geo, goal);
        bfs.run(geo, out);
        bfs.t
    }

    /// Fills the map of `goal` with the tile kernel and returns its largest distance; a map
    /// with distances past `u16` (which the tile kernel computes in) is searched again by the
    /// queue kernel, straight into `out`, on the plane built once in `queue_plane`.
    fn tile_map<D: Distance>(
        &mut self,
        plane: &TilePlane,
        queue_plane: &OnceLock<OpenBits>,
        grid: &Grid,
        goal: Cell,
        out: &mut [D],
    ) -> u32 {
        if let Some(top) = self.tiles.fill(plane, goal, out) {
            return top;
        }
        let template = queue_plane.get_or_init(|| OpenBits::new(grid));
        self.queue_map(template, Geometry::new(template, grid), goal, out, false)
    }
}

/// Calls `fill` with a workspace, the map, the goal and the slot of its largest distance, for
/// every goal, across rayon's threads (each job borrows its thread's workspace once).
fn for_each_goal<D: Distance>(
    grid: &Grid,
    goals: &[Cell],
    data: &mut [D],
    levels: &mut [u32],
    fill: impl Fn(&mut Workspace, &mut [D], Cell, &mut u32) + Send + Sync,
) {
    data.par_chunks_mut(grid.cell_count())
        .zip(goals.par_iter())
        .zip(levels.par_iter_mut())
        .for_each_init(Lent::from_thread, |lent, ((out, &goal), top)| {
            fill(lent.get(), out, goal, top);
        });
}

thread_local! {
    static WORKSPACE: std::cell::Cell<Option<Box<Workspace>>> = const { std::cell::Cell::new(None) };
}

/// This thread's [`Workspace`], lent to one rayon job (whose goals all reuse it) and handed
/// back when the job ends, if small enough to keep for the next call.
struct Lent(Option<Box<Workspace>>);

impl Lent {
    fn from_thread() -> Lent {
        Lent(WORKSPACE.take())
    }

    fn get(&mut self) -> &mut Workspace {
        self.0.get_or_insert_with(Box::default)
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        if let Some(workspace) = self.0.take()
            && workspace.bytes() <= KEPT_WORKSPACE_BYTES
        {
            // A thread being torn down keeps nothing.
            let _ = WORKSPACE.try_with(|slot| slot.set(Some(workspace)));
        }
    }
}

/// Fills one map per goal with the tile kernel (a goal whose distances pass `u16` with the
/// queue kernel).
fn tile_maps<D: Distance>(grid: &Grid, goals: &[Cell], data: &mut [D], levels: &mut [u32]) {
    let plane = TilePlane::new(grid);
    let queue_plane = OnceLock::new();
    for_each_goal(grid, goals, data, levels, |ws, out, goal, top| {
        *top = ws.tile_map(&plane, &queue_plane, grid, goal, out);
    });
}

/// Fills one map per goal with the queue kernel.
fn queue_maps<D: Distance>(grid: &Grid, goals: &[Cell], data: &mut [D], levels: &mut [u32]) {
    let template = OpenBits::new(grid);
    let geo = Geometry::new(&template, grid);
    let in_batch = goals.len() > 1;
    for_each_goal(grid, goals, data, levels, |ws, out, goal, top| {
        *top = ws.queue_map(&template, geo, goal, out, in_batch);
    });
}

/// Fills one map per goal with the sweep kernel, handing a goal to the tile kernel when its
/// sweeps cannot finish it. `adaptive` ([`CpuKernel::Auto`], which sends grids that do not
/// suit sweeps elsewhere before this): once most goals so far (two at least) had sweeps that
/// ran over budget or cost more than the tile kernel would have, the remaining goals go to
/// the tile kernel.
#[cfg(target_arch = "x86_64")]
fn sweep_maps<D: Distance>(
    grid: &Grid,
    free: &crate::sweep::FreeBits<'_>,
    goals: &[Cell],
    data: &mut [D],
    levels: &mut [u32],
    adaptive: bool,
) {
    use crate::sweep::{self, Swept};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    // The other kernels' planes, built only if some goal falls back to them.
    let (tile_plane, queue_plane) = (OnceLock::new(), OnceLock::new());
    let tiles_only = AtomicBool::new(false);
    // Goals swept so far, and those whose sweeps cost more than the tiles' would have.
    let (swept_goals, costly_goals) = (AtomicUsize::new(0), AtomicUsize::new(0));
    for_each_goal(grid, goals, data, levels, |ws, out, goal, top| {
        if !tiles_only.load(Ordering::Relaxed) {
            let budget = sweep::Budget::Capped;
            let swept = sweep::fill(free, goal, out, &mut ws.sweep, &mut ws.narrow, budget);
            // A stalled goal may just sit in a small part of the grid, and one costly
            // goal may sit in a tangle: only most goals speak for the rest.
            let done = swept_goals.fetch_add(1, Ordering::Relaxed) + 1;
            if matches!(swept, Swept::Costly | Swept::Winding) {
                let costly = costly_goals.fetch_add(1, Ordering::Relaxed) + 1;
                if adaptive && costly >= 2 && 2 * costly >= done {
                    tiles_only.store(true, Ordering::Relaxed);
                }
            }
            // A swept map checked its own overflow; `top` only serves the other kernels'.
            if matches!(swept, Swept::Exact | Swept::Costly) {
                return;
            }
        }
        let plane = tile_plane.get_or_init(|| TilePlane::new(grid));
        *top = ws.tile_map(plane, &queue_plane, grid, goal, out);
    });
}

/// The error for a map of goal `goal_index` whose distances reach `max_distance`, beyond `D`.
fn overflow<D: Distance>(goal_index: usize, max_distance: u32) -> WavefrontError {
    WavefrontError::DistanceOverflow {
        goal_index,
        max_distance,
        limit: D::UNREACHABLE.to_u32() - 1,
    }
}

/// The error for `u32` maps (`cells` each) that do not fit `D`: the first map with a distance
/// past `D`, and its largest distance.
#[cfg(feature = "cuda")]
fn wide_overflow<D: Distance>(wide: &[u32], cells: usize) -> WavefrontError {
    let limit = D::UNREACHABLE.to_u32();
    let (goal_index, max_distance) = wide
        .chunks(cells.max(1))
        .map(|map| map.iter().filter(|&&d| d != UNREACHABLE).max())
        .enumerate()
        .find_map(|(i, top)| top.filter(|&&d| d >= limit).map(|&d| (i, d)))
        .unwrap_or((0, limit));
    overflow::<D>(goal_index, max_distance)
}

/// The open (free) cells of a grid as bits, rows padded to a power-of-two pitch so a bit
/// index splits into row and column with a shift and a mask. Stored coordinates as in the
/// grid's [`BitPlane`](cuplan_grid::BitPlane): real + 1, border blocked (0 here).
struct OpenBits {
    shift: u32,
    words: Vec<u64>,
}

impl OpenBits {
    /// Bytes of the plane [`OpenBits::new`] would build for `grid`.
    fn bytes_for(grid: &Grid) -> u128 {
        let plane = grid.rows();
        plane.stride().next_power_of_two() as u128 * plane.stored_rows() as u128 * 8
    }

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

/// Columns `64 k ..= 64 k + 63` of a grid row as free bits (bit `i`: column `64 k + i` is
/// free; columns past the grid read as blocked), from the row as the grid's
/// [`BitPlane`](cuplan_grid::BitPlane) stores it: column `x` at bit `x + 1`, 1 = blocked,
/// blocked past the last column.
pub(crate) fn free_columns(stored: &[u64], k: usize) -> u64 {
    let lo = stored.get(k).copied().unwrap_or(u64::MAX) >> 1;
    let hi = stored.get(k + 1).copied().unwrap_or(u64::MAX) << 63;
    !(lo | hi)
}

/// Bit-index arithmetic shared by every search of one grid.
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

/// The queue kernel's breadth-first search, its buffers reused across goals.
struct QueueBfs {
    open: Vec<u64>,
    /// Ring buffer of bit indices; only the frontier's span is live, so it stays cache-sized.
    ring: Vec<u32>,
    head: usize,
    tail: usize,
    t: u32,
}

impl Default for QueueBfs {
    fn default() -> QueueBfs {
        QueueBfs {
            open: Vec::new(),
            ring: vec![0; 1 << 12],
            head: 0,
            tail: 0,
            t: 0,
        }
    }
}

impl QueueBfs {
    fn bytes(&self) -> usize {
        self.open.capacity() * 8 + self.ring.capacity() * 4
    }

    fn start(&mut self, template: &OpenBits, geo: Geometry, goal: Cell) {
        self.open.clear();
        self.open.extend_from_slice(&template.words);
        let g = ((goal.y as usize + 1) << geo.shift) | (goal.x as usize + 1);
        self.open[g >> 6] &= !(1u64 << (g & 63));
        self.ring[0] = g as u32;
        (self.head, self.tail, self.t) = (0, 1, 0);
    }

    /// Runs the search [`QueueBfs::start`] began, each level visited as two interleaved
    /// halves: the loop body is latency-bound (a cell's neighbour words are usually the words
    /// the previous cell just wrote), and cells far apart in the queue touch different words,
    /// so the two halves' read-modify-write chains overlap. Order within a level does not
    /// change any distance. Leaves `t` at the largest distance.
    fn run<D: Distance>(&mut self, geo: Geometry, out: &mut [D]) {
        let mut t = 0;
        while self.head < self.tail {
            let (start, end) = (self.head, self.tail);
            let need = 4 * (end - start) + 4;
            if need > self.ring.len() {
                grow_ring(&mut self.ring, start, end, need);
            }
            let mask = self.ring.len() - 1;
            let (open, ring) = (&mut self.open[..], &mut self.ring[..]);
            let d = D::from_level(t);
            let mid = start + (end - start) / 2;
            let mut tail = end;
            // `end - mid >= mid - start`: the second half has the odd cell, if any.
            for k in start..mid {
                let (p, q) = (
                    ring[k & mask] as usize,
                    ring[(k - start + mid) & mask] as usize,
                );
                out[geo.out_index(p)] = d;
                out[geo.out_index(q)] = d;
                visit(open, ring, mask, &mut tail, geo, p);
                visit(open, ring, mask, &mut tail, geo, q);
            }
            if (end - start) % 2 == 1 {
                let q = ring[(end - 1) & mask] as usize;
                out[geo.out_index(q)] = d;
                visit(open, ring, mask, &mut tail, geo, q);
            }
            (self.head, self.tail) = (end, tail);
            t += 1;
        }
        // Called with cells queued, so at least one level ran.
        self.t = t - 1;
    }
}

/// Claims the four neighbours of bit `p` and enqueues the fresh ones at `tail`.
#[inline(always)]
fn visit(
    open: &mut [u64],
    ring: &mut [u32],
    mask: usize,
    tail: &mut usize,
    geo: Geometry,
    p: usize,
) {
    let b = p & 63;
    if b.wrapping_sub(1) < 62 {
        // Both horizontal neighbours share p's word: one read-modify-write for two, so
        // the second does not wait on the first's store.
        let word = &mut open[p >> 6];
        let pair = 0b101u64 << (b - 1);
        let fresh = *word & pair;
        *word &= !pair;
        ring[*tail & mask] = (p - 1) as u32;
        *tail += usize::from(fresh >> (b - 1) & 1 != 0);
        ring[*tail & mask] = (p + 1) as u32;
        *tail += usize::from(fresh >> (b + 1) & 1 != 0);
    } else {
        claim(open, ring, mask, tail, p - 1);
        claim(open, ring, mask, tail, p + 1);
    }
    claim(open, ring, mask, tail, p - geo.pitch_bits);
    claim(open, ring, mask, tail, p + geo.pitch_bits);
}

/// `out` as `u16`, when that is its type.
pub(crate) fn as_u16<D: Distance>(out: &mut [D]) -> Option<&mut [u16]> {
    (size_of::<D>() == 2 && D::UNREACHABLE.to_u32() == u32::from(UNREACHABLE_U16)).then(|| {
        // SAFETY: `Distance` is sealed to `u16` and `u32`, so a two-byte `D` is `u16`.
        unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u16>(), out.len()) }
    })
}

/// Copies a `u16` map into a map of `D` ([`UNREACHABLE_U16`] becomes `D::UNREACHABLE`).
pub(crate) fn widen<D: Distance>(narrow: &[u16], out: &mut [D]) {
    if let Some(out) = as_u16(out) {
        out.copy_from_slice(narrow);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::sweep::widen_u32(narrow, out) {
        return;
    }
    for (wide, &d) in out.iter_mut().zip(narrow) {
        *wide = if d == UNREACHABLE_U16 {
            D::UNREACHABLE
        } else {
            D::from_level(u32::from(d))
        };
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

/// The queue kernel's map of `goal`, the reference of the other kernels' unit tests (the queue
/// kernel itself is tested against a plain BFS in `tests/distance.rs`).
#[cfg(test)]
pub(crate) fn queue_map(grid: &Grid, goal: Cell) -> Vec<u32> {
    let options = DistanceOptions {
        backend: Backend::Cpu,
        kernel: CpuKernel::Queue,
        ..DistanceOptions::default()
    };
    let maps = distance_maps(grid, &[goal], options).unwrap();
    maps.map_slice(0).unwrap().to_vec()
}

#[cfg(all(test, feature = "cuda"))]
mod tests {
    use super::sealed::Sealed;
    use super::*;

    /// The CUDA maps' conversion: unreachable kept, a distance past `u16` refused and named.
    #[test]
    fn narrowing_keeps_unreachable_and_refuses_overflow() {
        let fits = vec![0, 65_534, UNREACHABLE];
        assert_eq!(u16::narrow(fits), Ok(vec![0, 65_534, UNREACHABLE_U16]));
        assert_eq!(u32::narrow(vec![7, UNREACHABLE]), Ok(vec![7, UNREACHABLE]));
        let wide = vec![0, 1, UNREACHABLE, 0, 70_000, 65_535, 0, 1, 2];
        assert_eq!(u16::narrow(wide.clone()), Err(wide.clone()));
        assert_eq!(
            wide_overflow::<u16>(&wide, 3),
            WavefrontError::DistanceOverflow {
                goal_index: 1,
                max_distance: 70_000,
                limit: 65_534,
            }
        );
    }
}

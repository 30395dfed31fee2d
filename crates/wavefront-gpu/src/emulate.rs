//! The kernels run on the host: every thread's body in turn, barrier by barrier.
//!
//! This is exact, not an approximation: within one phase (between two barriers) no body
//! reads a word that another thread writes (see `cuplan_wavefront_kernels::body`), so a
//! sequential order gives the parallel result. It is the reference the GPU is compared with
//! and the code path the host tests cover; it is not meant to be fast.

use cuplan_grid::{Cell, CellPath, Grid};
use cuplan_wavefront_kernels::body;
use cuplan_wavefront_kernels::launch::{DistanceLaunch, ReserveLaunch, SpaceTimeLaunch};
use cuplan_wavefront_kernels::word::DIRECTIONS;

use crate::layout::{cell_index, dims, free_plane, word_bit};
use crate::spacetime::{Ledger, prepare};
use crate::{DistanceConfig, DistanceKernel, GpuError, SpaceTimeLimits};

/// [`Device::distance_maps`](crate::Device::distance_maps) on the host with `threads` threads
/// per (emulated) block and the default launch chunking.
pub fn distance_maps(grid: &Grid, goals: &[Cell], threads: u32) -> Result<Vec<u32>, GpuError> {
    distance_maps_with(
        grid,
        goals,
        &DistanceConfig {
            threads_per_block: threads,
            ..DistanceConfig::default()
        },
    )
}

/// [`distance_maps`] with explicit block size and levels per launch (the host checks for
/// termination between launches exactly as the device path does).
pub fn distance_maps_with(
    grid: &Grid,
    goals: &[Cell],
    config: &DistanceConfig,
) -> Result<Vec<u32>, GpuError> {
    for (index, &goal) in goals.iter().enumerate() {
        grid.check_free(goal).map_err(|source| GpuError::BadCell {
            what: "goal",
            index,
            source,
        })?;
    }
    let dims = dims(grid)?;
    let cells = dims.cells() as usize;
    if goals.is_empty() || cells == 0 {
        return Ok(Vec::new());
    }
    let n = goals.len();
    let words = dims.plane_words() as usize;
    let free = free_plane(grid);
    let goal_cells: Vec<u32> = goals.iter().map(|&g| cell_index(&dims, g) as u32).collect();
    let mut remaining = vec![0u64; n * words];
    let mut frontier = vec![0u64; 2 * n * words];
    let mut dist = vec![0u32; n * cells];
    let mut last_level = vec![0u32; n];
    let sparse = config.kernel == DistanceKernel::Sparse;
    let sized = |len: usize| if sparse { len } else { 0 };
    let mut stamp = vec![0u32; sized(n * words)];
    let mut lists = vec![0u32; sized(3 * n * words)];
    let mut counts = vec![0u32; sized(3 * n)];
    let null_unless = |p: *mut u32| if sparse { p } else { std::ptr::null_mut() };
    let mut launch = DistanceLaunch {
        free: free.as_ptr(),
        goals: goal_cells.as_ptr(),
        remaining: remaining.as_mut_ptr(),
        frontier: frontier.as_mut_ptr(),
        dist: dist.as_mut_ptr(),
        last_level: last_level.as_mut_ptr(),
        stamp: null_unless(stamp.as_mut_ptr()),
        lists: null_unless(lists.as_mut_ptr()),
        counts: null_unless(counts.as_mut_ptr()),
        dims,
        goal_count: n as u32,
        first_level: 1,
        final_level: 0,
    };
    let threads = config.threads_per_block.max(1);
    for goal in 0..n as u32 {
        for thread in 0..threads {
            // SAFETY: the vectors above have the sizes `DistanceLaunch` documents (the sparse
            // ones null when unused) and outlive `launch`; `goal < goal_count`; the emulated
            // threads run one after another, so none touches a word while another writes it.
            unsafe { body::distance_init(&launch, goal, thread, threads) };
        }
    }
    let max_level = dims.cells();
    let step = config.levels_per_launch.max(1);
    let mut first = 1u32;
    while first <= max_level {
        launch.first_level = first;
        launch.final_level = first.saturating_add(step - 1).min(max_level);
        for goal in 0..n as u32 {
            // SAFETY: the buffers are those of `distance_init` above, which ran for every goal
            // (the kernels' precondition), and `goal < goal_count`.
            unsafe { emulate_levels_block(&launch, goal, threads, sparse) };
        }
        // SAFETY: `launch.last_level` points to the `n` elements of `last_level`, alive and
        // not written while this shared view lives (no body runs until the next iteration).
        let levels = unsafe { std::slice::from_raw_parts(launch.last_level, n) };
        if levels.iter().all(|&l| l < launch.final_level) {
            break;
        }
        first = launch.final_level + 1;
    }
    Ok(dist)
}

/// One block of the `distance_levels` (or `distance_sparse_levels`) kernel: the same control
/// flow, each barrier being the end of a loop over the threads.
///
/// # Safety
/// `p` satisfies the contract of [`DistanceLaunch`] with host pointers, `distance_init` ran on
/// it and `goal < p.goal_count`.
unsafe fn emulate_levels_block(p: &DistanceLaunch, goal: u32, threads: u32, sparse: bool) {
    // SAFETY: the caller gives the bodies' contract on `p` and `goal`. The barriers the bodies
    // require are the ends of the loops over `thread`: every thread finishes a phase before
    // any starts the next, and as the threads run one at a time no word is ever shared.
    unsafe {
        if body::distance_finished_before(p, goal, p.first_level) {
            return;
        }
        let mut t = p.first_level;
        while t <= p.final_level && t != 0 {
            if sparse {
                for thread in 0..threads {
                    body::sparse_clear(p, goal, thread, threads, t);
                }
                for thread in 0..threads {
                    body::sparse_level(p, goal, thread, threads, t);
                }
            } else {
                for thread in 0..threads {
                    body::distance_level(p, goal, thread, threads, t);
                }
            }
            if !body::distance_goes_on(p, goal, t) {
                return;
            }
            t = t.wrapping_add(1);
        }
    }
}

/// [`DeviceReservations`](crate::DeviceReservations) on the host: the same planes in host
/// memory, updated and searched by the same kernel bodies.
#[derive(Debug, Clone)]
pub struct HostReservations {
    grid: Grid,
    ledger: Ledger,
    free: Vec<u64>,
    vertex: Vec<u64>,
    edges: Vec<u64>,
    reach: Vec<u64>,
    threads: u32,
}

impl HostReservations {
    /// An empty table for `grid` and timesteps `0..=horizon`; `threads` emulated threads.
    pub fn new(grid: &Grid, horizon: u32, threads: u32) -> Result<HostReservations, GpuError> {
        let ledger = Ledger::new(grid, horizon)?;
        let words = ledger.plane_words();
        let planes = horizon as usize + 1;
        Ok(HostReservations {
            free: free_plane(grid),
            vertex: vec![0; planes * words],
            edges: vec![0; planes * DIRECTIONS as usize * words],
            reach: vec![0; planes * words],
            grid: grid.clone(),
            ledger,
            threads: threads.max(1),
        })
    }

    /// See [`DeviceReservations::from_table`](crate::DeviceReservations::from_table).
    pub fn from_table(
        grid: &Grid,
        table: &cuplan_reservations::ReservationTable,
        threads: u32,
    ) -> Result<HostReservations, GpuError> {
        let (ledger, vertex, edges) = Ledger::from_table(grid, table)?;
        let planes = table.horizon() as usize + 1;
        Ok(HostReservations {
            free: free_plane(grid),
            reach: vec![0; planes * ledger.plane_words()],
            vertex,
            edges,
            grid: grid.clone(),
            ledger,
            threads: threads.max(1),
        })
    }

    /// See [`DeviceReservations::reserve_path`](crate::DeviceReservations::reserve_path).
    pub fn reserve_path(&mut self, path: &[Cell]) -> Result<(), GpuError> {
        let updates = self.ledger.reserve(&self.grid, path)?;
        for (list, table) in [
            (&updates.vertex, &mut self.vertex),
            (&updates.edge, &mut self.edges),
        ] {
            let launch = ReserveLaunch {
                table: table.as_mut_ptr(),
                table_words: table.len() as u64,
                updates: list.as_ptr(),
                count: list.len() as u32,
            };
            for index in 0..launch.count {
                // SAFETY: `table` and `updates` point to vectors of the lengths given, borrowed
                // for the loop; the ledger merges updates per word, so their words are distinct.
                unsafe { body::reserve(&launch, index) };
            }
        }
        Ok(())
    }

    /// See [`DeviceReservations::search`](crate::DeviceReservations::search).
    pub fn search(&mut self, start: Cell, goal: Cell) -> Result<Option<CellPath>, GpuError> {
        self.search_limited(start, goal, &SpaceTimeLimits::default())
    }

    /// See [`DeviceReservations::search_limited`](crate::DeviceReservations::search_limited).
    pub fn search_limited(
        &mut self,
        start: Cell,
        goal: Cell,
        limits: &SpaceTimeLimits,
    ) -> Result<Option<CellPath>, GpuError> {
        let plan = match prepare(&self.grid, &self.ledger, start, goal, limits)? {
            Ok(plan) => plan,
            Err(answer) => return Ok(answer),
        };
        let words = self.ledger.plane_words();
        self.reach[..words].fill(0);
        let (w, bit) = word_bit(&self.ledger.dims, start);
        self.reach[w] = bit;
        let mut arrival = u32::MAX;
        let mut launch = SpaceTimeLaunch {
            free: self.free.as_ptr(),
            vertex: self.vertex.as_ptr(),
            arrived_from: self.edges.as_ptr(),
            reach: self.reach.as_mut_ptr(),
            arrival: &mut arrival,
            dims: self.ledger.dims,
            t: 0,
            goal_x: goal.x,
            goal_y: goal.y,
            goal_free_after: plan.goal_free_after,
        };
        for t in 1..=plan.horizon {
            launch.t = t;
            for thread in 0..self.threads {
                // SAFETY: the planes were sized for `horizon + 1` timesteps by `new` or
                // `from_table` and `1 ≤ t ≤ plan.horizon ≤ horizon`; plane `t − 1` is complete
                // (the start plane, or the previous `t`'s loop over every thread).
                unsafe { body::space_time(&launch, thread, self.threads) };
            }
            // SAFETY: `launch.arrival` points to the local `arrival`, alive for the whole
            // loop and accessed only through this pointer until the loop ends.
            if unsafe { launch.arrival.read() } != u32::MAX {
                break;
            }
        }
        if arrival == u32::MAX {
            return Ok(None);
        }
        let reach = &self.reach[..(arrival as usize + 1) * words];
        Ok(self
            .ledger
            .backtrack(reach, goal, arrival)
            .map(CellPath::new))
    }
}

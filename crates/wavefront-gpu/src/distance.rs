//! Multi-goal distance maps on the device.

use std::time::{Duration, Instant};

use cudarc::driver::LaunchConfig;
use cuplan_grid::{Cell, Grid};
use cuplan_wavefront_kernels::launch::DistanceLaunch;

use crate::device::{addr, addr_mut};
use crate::layout::{cell_index, dims, free_plane};
use crate::{Device, GpuError};

/// Which level kernel [`Device::distance_maps`] runs; both give the same maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DistanceKernel {
    /// Every level sweeps every word of the goal's plane: no atomics, simplest on the GPU.
    #[default]
    Dense,
    /// Every level expands only the words next to the previous frontier (a per-goal list of
    /// frontier words, claimed with atomic stamps): work proportional to the frontier.
    Sparse,
}

/// How [`Device::distance_maps`] launches its kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DistanceConfig {
    /// The level kernel.
    pub kernel: DistanceKernel,
    /// Threads per block (one block per goal); a multiple of 32, at most 1024.
    pub threads_per_block: u32,
    /// Levels one launch runs before the host checks whether every search has ended (one
    /// 4-byte-per-goal copy per check). Larger means fewer round trips; a launch stays short
    /// enough for display watchdogs with the default.
    pub levels_per_launch: u32,
}

impl Default for DistanceConfig {
    fn default() -> Self {
        DistanceConfig {
            kernel: DistanceKernel::default(),
            threads_per_block: 512,
            levels_per_launch: 4096,
        }
    }
}

impl DistanceConfig {
    /// The block size for a grid: no more threads than interior words, rounded to a warp.
    fn block_threads(&self, interior_words: u32) -> u32 {
        let wanted = self.threads_per_block.clamp(32, 1024);
        wanted.min(interior_words.div_ceil(32).max(1) * 32)
    }
}

/// Where the time of one [`Device::distance_maps_profiled`] call went (host wall clock).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DistanceProfile {
    /// Allocating and uploading (grid plane, goals, zeroed state).
    pub setup: Duration,
    /// From the first launch to the end of the last termination check: the search itself.
    pub search: Duration,
    /// Copying the maps back to the host.
    pub download: Duration,
    /// Launches of the level kernel.
    pub launches: u32,
}

impl Device {
    /// One exact 4-connected distance map per goal: `goals.len() × height × width` distances
    /// (row-major per goal, [`UNREACHABLE`](crate::UNREACHABLE) where unreachable), identical
    /// to the CPU backend's.
    ///
    /// All goals run in one launch sequence (one block each); the frontiers stay on the
    /// device; the host reads one word per goal every `config.levels_per_launch` levels and
    /// copies the maps back once at the end.
    ///
    /// Errors: a goal out of range or blocked ([`GpuError::BadCell`]), sizes past the kernels'
    /// 32-bit indices ([`GpuError::TooLarge`]), or a driver failure (e.g. out of memory).
    pub fn distance_maps(
        &self,
        grid: &Grid,
        goals: &[Cell],
        config: &DistanceConfig,
    ) -> Result<Vec<u32>, GpuError> {
        self.distance_maps_profiled(grid, goals, config)
            .map(|(maps, _)| maps)
    }

    /// [`Device::distance_maps`] and where its time went.
    pub fn distance_maps_profiled(
        &self,
        grid: &Grid,
        goals: &[Cell],
        config: &DistanceConfig,
    ) -> Result<(Vec<u32>, DistanceProfile), GpuError> {
        let started = Instant::now();
        let mut profile = DistanceProfile::default();
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
            return Ok((Vec::new(), profile));
        }
        let n = u32::try_from(goals.len()).map_err(|_| GpuError::TooLarge {
            what: "goal count",
            value: goals.len() as u128,
            limit: u32::MAX as u128,
        })?;
        let words = dims.plane_words() as usize;
        let goal_cells: Vec<u32> = goals.iter().map(|&g| cell_index(&dims, g) as u32).collect();
        let free = self.upload(&free_plane(grid))?;
        let goal_buf = self.upload(&goal_cells)?;
        let mut remaining = self.zeros::<u64>(goals.len() * words)?;
        let mut frontier = self.zeros::<u64>(2 * goals.len() * words)?;
        let mut dist = self.zeros::<u32>(goals.len() * cells)?;
        let mut last_level = self.zeros::<u32>(goals.len())?;
        let sparse = config.kernel == DistanceKernel::Sparse;
        // The sparse kernel's buffers (one element where unused: the pointers stay null).
        let sized = |len: usize| if sparse { len } else { 1 };
        let mut stamp = self.zeros::<u32>(sized(goals.len() * words))?;
        let mut lists = self.zeros::<u32>(sized(3 * goals.len() * words))?;
        let mut counts = self.zeros::<u32>(sized(3 * goals.len()))?;
        let null_unless = |p: *mut u32| if sparse { p } else { std::ptr::null_mut() };
        let mut launch = DistanceLaunch {
            free: addr(self, &free),
            goals: addr(self, &goal_buf),
            remaining: addr_mut(self, &mut remaining),
            frontier: addr_mut(self, &mut frontier),
            dist: addr_mut(self, &mut dist),
            last_level: addr_mut(self, &mut last_level),
            stamp: null_unless(addr_mut(self, &mut stamp)),
            lists: null_unless(addr_mut(self, &mut lists)),
            counts: null_unless(addr_mut(self, &mut counts)),
            dims,
            goal_count: n,
            first_level: 1,
            final_level: 0,
        };
        let interior = dims.stride.saturating_mul(dims.height);
        let shape = LaunchConfig {
            grid_dim: (n, 1, 1),
            block_dim: (config.block_threads(interior), 1, 1),
            shared_mem_bytes: 0,
        };
        self.synchronize()?;
        profile.setup = started.elapsed();
        let searching = Instant::now();
        // SAFETY: every buffer above has the size DistanceLaunch documents, frontier and
        // last_level are zeroed, and the launch is one block per goal.
        unsafe { self.launch(&self.distance_init, shape, launch)? };
        // A breadth-first search has at most one level per cell.
        let max_level = dims.cells();
        let step = config.levels_per_launch.max(1);
        let mut first = 1u32;
        while first <= max_level {
            launch.first_level = first;
            launch.final_level = first.saturating_add(step - 1).min(max_level);
            // SAFETY: as above; the previous launch ended at `first - 1`.
            let kernel = if sparse {
                &self.distance_sparse_levels
            } else {
                &self.distance_levels
            };
            // SAFETY: as for the first launch above; the previous launch ended at `first - 1`.
            unsafe { self.launch(kernel, shape, launch)? };
            profile.launches += 1;
            let levels = self.download(&last_level)?;
            if levels.iter().all(|&l| l < launch.final_level) {
                break;
            }
            first = launch.final_level + 1;
        }
        profile.search = searching.elapsed();
        let downloading = Instant::now();
        let maps = self.download(&dist)?;
        profile.download = downloading.elapsed();
        Ok((maps, profile))
    }
}

//! The CUDA paths of [`distance_maps`](crate::distance_maps) (and so of
//! [`batched_astar`](crate::batched_astar)) and of
//! [`space_time_astar`](crate::space_time_astar), compiled only with the `cuda` feature.
//!
//! One process-wide device (ordinal 0), opened on first use and kept; its launches are
//! serialised by a mutex. `Backend::Cuda` without a driver or device is
//! [`WavefrontError::BackendUnavailable`] naming why. For distance maps `Backend::Auto` uses the
//! GPU when there is one and the CPU otherwise (or when a GPU run fails, e.g. out of device
//! memory). The space-time search goes to the GPU only for `Backend::Cuda`: one search does
//! not amortise uploading the table, so `Auto` keeps it on the CPU; for repeated searches
//! against a growing table, use `cuplan_wavefront_gpu::DeviceReservations` directly.

use std::sync::{Mutex, OnceLock};

use cuplan_grid::{Cell, Grid};
use cuplan_wavefront_gpu::{Device, DistanceConfig, GpuError};

use crate::{Backend, SpaceTimeQuery, SpaceTimeResult, WavefrontError};

static DEVICE: OnceLock<Result<Mutex<Device>, GpuError>> = OnceLock::new();

/// The shared device, or why there is none.
fn device() -> Result<&'static Mutex<Device>, &'static GpuError> {
    DEVICE
        .get_or_init(|| Device::open(0).map(Mutex::new))
        .as_ref()
}

/// Runs the maps on the GPU when `backend` asks for it and it can: `Ok(None)` leaves them to
/// the CPU (`Cpu`, or `Auto` without a usable device). Goals are already validated.
pub(crate) fn distance_data(
    backend: Backend,
    grid: &Grid,
    goals: &[Cell],
) -> Result<Option<Vec<u32>>, WavefrontError> {
    let unavailable = |reason: String| WavefrontError::BackendUnavailable { backend, reason };
    match backend {
        Backend::Cpu => Ok(None),
        Backend::Auto => Ok(device().ok().and_then(|d| run(d, grid, goals).ok())),
        Backend::Cuda => {
            let device = device().map_err(|e| unavailable(e.to_string()))?;
            run(device, grid, goals)
                .map(Some)
                .map_err(|e| unavailable(format!("the CUDA run failed: {e}")))
        }
    }
}

/// Runs a space-time search on the GPU when `query.backend` is `Cuda`: `Ok(None)` leaves it
/// to the CPU. The query is validated and `horizon` is the one in force.
///
/// A found path is the CPU backend's path (same arrival, same tie order: wait, N, E, S, W).
/// When the GPU finds none, the CPU search runs to tell `Unreachable` from
/// `HorizonExceeded`, exactly as the CPU backend would. A deadline is not checked on the GPU;
/// CBS constraints are not supported there yet (an error, not a silent CPU run).
pub(crate) fn space_time(
    grid: &Grid,
    query: &SpaceTimeQuery<'_>,
    horizon: u32,
) -> Result<Option<SpaceTimeResult>, WavefrontError> {
    if query.backend != Backend::Cuda {
        return Ok(None);
    }
    let unavailable = |reason: String| WavefrontError::BackendUnavailable {
        backend: Backend::Cuda,
        reason,
    };
    if query.constraints.is_some() {
        return Err(unavailable(
            "the CUDA space-time search does not take CBS constraints yet".into(),
        ));
    }
    if query.tie_break != crate::TieBreak::WaitFirst {
        return Err(unavailable(
            "the CUDA space-time search returns the wait-first tie order only".into(),
        ));
    }
    let device = device().map_err(|e| unavailable(e.to_string()))?;
    let empty;
    let table = match query.table {
        Some(table) => table,
        None => {
            empty = cuplan_reservations::ReservationTable::new(grid, horizon)?;
            &empty
        }
    };
    let limits = cuplan_wavefront_gpu::SpaceTimeLimits {
        horizon: Some(horizon),
        min_arrival: query.min_arrival,
    };
    let found = {
        let device = device.lock().unwrap_or_else(|e| e.into_inner());
        cuplan_wavefront_gpu::DeviceReservations::from_table(&device, grid, table)
            .and_then(|mut gpu| {
                gpu.search_limited(query.start, query.goal, &limits, &Default::default())
            })
            .map_err(|e| unavailable(format!("the CUDA run failed: {e}")))?
    };
    match found {
        Some(path) => Ok(Some(SpaceTimeResult::Found(path))),
        None => {
            let cpu = SpaceTimeQuery {
                backend: Backend::Cpu,
                ..*query
            };
            crate::space_time_astar(grid, &cpu).map(Some)
        }
    }
}

fn run(device: &Mutex<Device>, grid: &Grid, goals: &[Cell]) -> Result<Vec<u32>, GpuError> {
    // A poisoned lock only means another thread panicked mid-call; the device holds no
    // half-updated host state, so it is still usable.
    let device = device.lock().unwrap_or_else(|e| e.into_inner());
    device.distance_maps(grid, goals, &DistanceConfig::default())
}

#[cfg(test)]
mod tests {
    //! CPU backend against the kernels' own code run on the host (`emulate`), and against the
    //! GPU when this machine has one.

    use cuplan_grid::generate;
    use cuplan_wavefront_gpu::DistanceKernel;
    use proptest::prelude::*;

    use super::*;
    use crate::{CpuKernel, DistanceMaps, DistanceOptions, distance_maps};

    fn cpu_maps(grid: &Grid, goals: &[Cell]) -> Vec<u32> {
        let options = DistanceOptions {
            backend: Backend::Cpu,
            kernel: CpuKernel::default(),
            ..DistanceOptions::default()
        };
        let maps = distance_maps(grid, goals, options).unwrap();
        maps.as_array().iter().copied().collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        #[test]
        fn emulated_kernels_equal_the_cpu_backend(
            (w, h, density, seed) in (1u32..150, 1u32..50, 0.0f64..0.4, any::<u64>()),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
        ) {
            let grid = generate::random(w, h, density, seed).unwrap();
            let free: Vec<Cell> = (0..h).flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
                .filter(|&c| grid.is_free(c)).collect();
            prop_assume!(!free.is_empty());
            let goals: Vec<Cell> = picks.iter().map(|i| free[i.index(free.len())]).collect();
            let cpu = cpu_maps(&grid, &goals);
            for kernel in [DistanceKernel::Dense, DistanceKernel::Sparse] {
                let config = DistanceConfig { kernel, threads_per_block: 96, levels_per_launch: 5 };
                let emulated = cuplan_wavefront_gpu::emulate::distance_maps_with(&grid, &goals, &config).unwrap();
                prop_assert_eq!(&emulated, &cpu, "{:?}", kernel);
            }
        }
    }

    /// A random walk of `len` steps (waits included) from `start`.
    fn walk(grid: &Grid, start: Cell, len: usize, mut s: u64) -> Vec<Cell> {
        s |= 1;
        let mut path = vec![start];
        for _ in 0..len {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let cur = path[path.len() - 1];
            let options: Vec<Cell> = std::iter::once(cur).chain(grid.neighbours4(cur)).collect();
            path.push(options[(s % options.len() as u64) as usize]);
        }
        path
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// The GPU space-time kernels (run on the host) find exactly the CPU backend's paths:
        /// same arrival, same cells, and nothing where the CPU finds nothing; also with a
        /// shorter horizon than the table's and an earliest arrival.
        #[test]
        fn emulated_space_time_equals_the_cpu_backend(
            (w, h, density, seed) in (1u32..60, 1u32..20, 0.0f64..0.3, any::<u64>()),
            agents in prop::collection::vec((any::<prop::sample::Index>(), 0usize..25, any::<u64>()), 0..6),
            ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
            horizon in 1u32..60,
            cut in 0u32..10,
            min_arrival in prop_oneof![Just(0u32), 0u32..12],
        ) {
            let grid = generate::random(w, h, density, seed).unwrap();
            let free: Vec<Cell> = (0..h).flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
                .filter(|&c| grid.is_free(c)).collect();
            prop_assume!(!free.is_empty());
            let mut table = cuplan_reservations::ReservationTable::new(&grid, horizon).unwrap();
            for (start, len, s) in agents {
                // The table refuses conflicting paths; those are simply not reserved.
                let _ = table.reserve_path(&walk(&grid, free[start.index(free.len())], len, s));
            }
            let (start, goal) = (free[ends.0.index(free.len())], free[ends.1.index(free.len())]);
            let search_horizon = horizon.saturating_sub(cut);
            let query = crate::SpaceTimeQuery {
                table: Some(&table),
                horizon: Some(search_horizon),
                min_arrival,
                backend: Backend::Cpu,
                ..crate::SpaceTimeQuery::new(start, goal)
            };
            let cpu = crate::space_time_astar(&grid, &query).unwrap().into_path().map(|p| p.cells);
            let mut host = cuplan_wavefront_gpu::emulate::HostReservations::from_table(&grid, &table, 16).unwrap();
            let limits = cuplan_wavefront_gpu::SpaceTimeLimits { horizon: Some(search_horizon), min_arrival };
            let gpu = host.search_limited(start, goal, &limits).unwrap().map(|p| p.cells);
            prop_assert_eq!(gpu, cpu);
        }
    }

    #[test]
    fn cuda_space_time_equals_cpu_or_reports_why_not() {
        let grid = generate::rooms(120, 80, 10, 3).unwrap();
        let mut table = cuplan_reservations::ReservationTable::new(&grid, 400).unwrap();
        let queries = generate::random_queries(&grid, 12, 5);
        for &(start, _) in &queries[..6] {
            let _ = table.reserve_path(&walk(&grid, start, 40, 9));
        }
        for &(start, goal) in &queries[6..] {
            let query = |backend| crate::SpaceTimeQuery {
                table: Some(&table),
                backend,
                ..crate::SpaceTimeQuery::new(start, goal)
            };
            let cpu = crate::space_time_astar(&grid, &query(Backend::Cpu)).unwrap();
            match crate::space_time_astar(&grid, &query(Backend::Cuda)) {
                Ok(gpu) => assert_eq!(gpu, cpu),
                Err(WavefrontError::BackendUnavailable { reason, .. }) => {
                    eprintln!("no GPU run here: {reason}");
                }
                Err(e) => panic!("unexpected error: {e}"),
            }
            // Auto keeps the single search on the CPU.
            assert_eq!(
                crate::space_time_astar(&grid, &query(Backend::Auto)).unwrap(),
                cpu
            );
        }
    }

    /// CUDA maps of `D` equal the CPU's, or CUDA says why it cannot run; Auto always
    /// answers, from whichever engine it found.
    fn cuda_maps_equal_cpu_maps<D: crate::Distance>() {
        let grid = generate::maze(200, 150, 2, 7).unwrap();
        let goals: Vec<Cell> = generate::random_queries(&grid, 20, 3)
            .into_iter()
            .map(|(_, g)| g)
            .collect();
        let options = |backend| DistanceOptions {
            backend,
            ..DistanceOptions::default()
        };
        let cpu = DistanceMaps::<D>::build(&grid, &goals, options(Backend::Cpu)).unwrap();
        match DistanceMaps::<D>::build(&grid, &goals, options(Backend::Cuda)) {
            Ok(gpu) => assert_eq!(gpu, cpu),
            Err(WavefrontError::BackendUnavailable { reason, .. }) => {
                eprintln!("no GPU run here: {reason}");
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
        let auto = DistanceMaps::<D>::build(&grid, &goals, options(Backend::Auto)).unwrap();
        assert_eq!(auto, cpu);
    }

    #[test]
    fn cuda_equals_cpu_or_reports_why_not() {
        cuda_maps_equal_cpu_maps::<u32>();
    }

    #[test]
    fn cuda_u16_maps_equal_cpu_or_report_why_not() {
        cuda_maps_equal_cpu_maps::<u16>();
    }
}

//! The CUDA path of [`distance_maps`](crate::distance_maps) (and so of
//! [`batched_astar`](crate::batched_astar)), compiled only with the `cuda` feature.
//!
//! One process-wide device (ordinal 0), opened on first use and kept; its launches are
//! serialised by a mutex. `Backend::Cuda` without a driver or device is
//! [`WavefrontError::BackendUnavailable`] naming why; `Backend::Auto` then (or when a GPU run
//! fails, e.g. out of device memory) leaves the work to the CPU. The space-time search has no
//! CUDA path here yet, so the `Backend` resolution of the other searches is unchanged.

use std::sync::{Mutex, OnceLock};

use cuplan_grid::{Cell, Grid};
use cuplan_wavefront_gpu::{Device, DistanceConfig, GpuError};

use crate::{Backend, WavefrontError};

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
    use proptest::prelude::*;

    use super::*;
    use crate::{CpuKernel, DistanceOptions, distance_maps_with};

    fn cpu_maps(grid: &Grid, goals: &[Cell]) -> Vec<u32> {
        let options = DistanceOptions {
            backend: Backend::Cpu,
            kernel: CpuKernel::default(),
            ..DistanceOptions::default()
        };
        let maps = distance_maps_with(grid, goals, &options).unwrap();
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
            let emulated = cuplan_wavefront_gpu::emulate::distance_maps(&grid, &goals, 96).unwrap();
            prop_assert_eq!(emulated, cpu_maps(&grid, &goals));
        }
    }

    #[test]
    fn cuda_equals_cpu_or_reports_why_not() {
        let grid = generate::maze(200, 150, 2, 7).unwrap();
        let goals: Vec<Cell> = generate::random_queries(&grid, 20, 3)
            .into_iter()
            .map(|(_, g)| g)
            .collect();
        let options = DistanceOptions {
            backend: Backend::Cuda,
            ..DistanceOptions::default()
        };
        match distance_maps_with(&grid, &goals, &options) {
            Ok(maps) => {
                let gpu: Vec<u32> = maps.as_array().iter().copied().collect();
                assert_eq!(gpu, cpu_maps(&grid, &goals));
            }
            Err(WavefrontError::BackendUnavailable { reason, .. }) => {
                eprintln!("no GPU run here: {reason}");
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
        // Auto always answers, from whichever engine it found.
        let auto = DistanceOptions {
            backend: Backend::Auto,
            ..DistanceOptions::default()
        };
        let maps = distance_maps_with(&grid, &goals, &auto).unwrap();
        assert_eq!(
            maps.as_array().iter().copied().collect::<Vec<_>>(),
            cpu_maps(&grid, &goals)
        );
    }
}

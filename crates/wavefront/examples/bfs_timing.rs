//! Minimum process CPU time of the default distance-map kernel on 1024² open and random (20 %)
//! maps, 1 and 16 goals, on one thread: a contention-robust companion to
//! `benches/distance.rs` (the minimum of 15 runs filters out time lost to other tenants).
//!
//! `cargo run --release -p cuplan-wavefront --example bfs_timing`

use cuplan_grid::{Cell, Grid, generate};
use cuplan_wavefront::{Backend, DistanceOptions, distance_maps_with};

fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a libc constant.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let options = DistanceOptions {
        backend: Backend::Cpu,
        ..DistanceOptions::default()
    };
    for (name, grid) in [
        ("open", Grid::open(1024, 1024)?),
        ("random20", generate::random(1024, 1024, 0.2, 1)?),
    ] {
        for n in [1usize, 16] {
            let goals: Vec<Cell> = generate::random_queries(&grid, n, 7)
                .into_iter()
                .map(|q| q.1)
                .collect();
            let mut best = f64::MAX;
            for _ in 0..15 {
                let t0 = cpu_seconds();
                let maps = pool.install(|| distance_maps_with(&grid, &goals, &options))?;
                best = best.min(cpu_seconds() - t0);
                drop(maps);
            }
            let ns = best * 1e9 / (n * grid.cell_count()) as f64;
            println!("{name}1024 goals={n}: {ns:.2} ns/cell/core (min of 15)");
        }
    }
    Ok(())
}

//! Minimum process CPU time of the default distance-map kernel on 1024² open and random (20 %)
//! maps, 1 and 16 goals, on one thread: a contention-robust companion to
//! `benches/distance.rs` (the minimum of 15 runs filters out time lost to other tenants).
//!
//! Also times the published Python `cuplan` figure's configuration (1,024 maps of a 256²
//! grid with 15 % obstacles: 62 s on its CPU backend, 1.87 s on a laptop GPU) on one thread
//! (CPU time) and on all threads (wall time).
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
    let grid = generate::random(256, 256, 0.15, 1)?;
    let goals: Vec<Cell> = generate::random_queries(&grid, 1024, 9)
        .into_iter()
        .map(|q| q.1)
        .collect();
    let (mut cpu_best, mut wall_best) = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        let t0 = cpu_seconds();
        drop(pool.install(|| distance_maps_with(&grid, &goals, &options))?);
        cpu_best = cpu_best.min(cpu_seconds() - t0);
        let start = std::time::Instant::now();
        drop(distance_maps_with(&grid, &goals, &options)?);
        wall_best = wall_best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "1024 maps of 256² at 15 %: {cpu_best:.3} s CPU on one thread, {wall_best:.3} s wall on {} threads (min of 5)",
        rayon::current_num_threads()
    );
    Ok(())
}

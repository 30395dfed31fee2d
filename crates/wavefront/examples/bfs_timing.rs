//! Temporary A/B timing: min process CPU time over repeated runs.
use cuplan_grid::{Cell, Grid, generate};
use cuplan_wavefront::{Backend, CpuKernel, DistanceOptions, distance_maps_with};
fn cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
fn main() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    for (name, grid) in [("open", Grid::open(1024, 1024).unwrap()), ("random20", generate::random(1024, 1024, 0.2, 1).unwrap())] {
        for n in [1usize, 16] {
            let goals: Vec<Cell> = generate::random_queries(&grid, n, 7).into_iter().map(|q| q.1).collect();
            let o = DistanceOptions { backend: Backend::Cpu, kernel: CpuKernel::Queue, ..Default::default() };
            let mut best = f64::MAX;
            for _ in 0..15 {
                let t0 = cpu();
                let m = pool.install(|| distance_maps_with(&grid, &goals, &o).unwrap());
                best = best.min(cpu() - t0);
                drop(m);
            }
            println!("{name} n={n}: min {:.3} ns/cell", best * 1e9 / (n * grid.cell_count()) as f64);
        }
    }
}

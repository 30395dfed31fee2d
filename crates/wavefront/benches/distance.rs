//! Distance maps: ns per cell per core for every CPU kernel, 1/64/1024 goals on 64², 256²,
//! 1024² open and random (20 %) maps, on a one-thread rayon pool, measured in process CPU time
//! ([`support::cpu_time`]): the `thrpt` line reads in ns of CPU per cell, i.e. ns/cell/core.
//!
//! `cargo bench -p cuplan-wavefront --bench distance -- --quick` for a short run.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

mod support {
    pub(crate) mod cpu_time;
}

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use cuplan_grid::{Cell, Grid, generate};
use cuplan_wavefront::{Backend, CpuKernel, DistanceOptions, distance_maps};
use support::cpu_time::CpuTime;

fn goals(grid: &Grid, n: usize) -> Vec<Cell> {
    generate::random_queries(grid, n, 7)
        .into_iter()
        .map(|(_, g)| g)
        .collect()
}

fn bench(c: &mut Criterion<CpuTime>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    let mut group = c.benchmark_group("distance_maps_1core");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for side in [64u32, 256, 1024] {
        for (family, grid) in [
            ("open", Grid::open(side, side).expect("grid")),
            (
                "random20",
                generate::random(side, side, 0.2, 1).expect("grid"),
            ),
        ] {
            // 1024 maps of 1024² would be 4 GiB: cap the batch at 256 M cells.
            for n in [1usize, 64, 1024] {
                if n * grid.cell_count() > 1 << 28 {
                    continue;
                }
                let goals = goals(&grid, n);
                group.throughput(Throughput::Elements((n * grid.cell_count()) as u64));
                for kernel in CpuKernel::ALL {
                    let options = DistanceOptions::default()
                        .with_backend(Backend::Cpu)
                        .with_kernel(kernel);
                    let id = BenchmarkId::new(format!("{kernel:?}/{family}{side}"), n);
                    group.bench_function(id, |b| {
                        b.iter(|| pool.install(|| distance_maps(&grid, &goals, options)))
                    });
                }
            }
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(CpuTime);
    targets = bench
}
criterion_main!(benches);

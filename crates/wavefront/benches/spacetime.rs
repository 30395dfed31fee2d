//! Space-time search: CPU time per search on 32², 64², 256² random (10 %) maps with 0, 100
//! and 1000 reserved paths (shortest paths between random pairs, reserved as vertex and swap
//! blocks from time 0 — they may overlap each other, unlike agents), 16 random queries per
//! iteration, pruned by the Manhattan bound alone or with the goal's exact distance map
//! (built outside the timing, as MAPF solvers reuse them). The `thrpt` line reads in ns of
//! CPU per search.
//!
//! `cargo bench -p cuplan-wavefront --bench spacetime -- --quick` for a short run.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

mod support {
    pub(crate) mod cpu_time;
}

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use cuplan_grid::{Cell, Grid, generate};
use cuplan_reservations::{ReservationTable, default_horizon};
use cuplan_wavefront::{Backend, SpaceTimeQuery, batched_astar, distance_maps, space_time_astar};
use support::cpu_time::CpuTime;

const QUERIES: usize = 16;

fn reserved_table(grid: &Grid, paths: usize) -> ReservationTable {
    let mut table = ReservationTable::new(grid, default_horizon(grid)).expect("table");
    let pairs = generate::random_queries(grid, paths, 11);
    let starts: Vec<Cell> = pairs.iter().map(|p| p.0).collect();
    let goals: Vec<Cell> = pairs.iter().map(|p| p.1).collect();
    for path in batched_astar(grid, &starts, &goals, Backend::Cpu)
        .expect("paths")
        .into_iter()
        .flatten()
    {
        for (t, &c) in path.cells.iter().enumerate() {
            table.block_vertex(c, t as u32).expect("vertex");
        }
        for (t, w) in path.cells.windows(2).enumerate() {
            table.block_edge(w[1], w[0], t as u32 + 1).expect("edge");
        }
    }
    table
}

fn bench(c: &mut Criterion<CpuTime>) {
    let mut group = c.benchmark_group("space_time_astar");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    for side in [32u32, 64, 256] {
        let grid = generate::random(side, side, 0.1, 3).expect("grid");
        let queries = generate::random_queries(&grid, QUERIES, 5);
        let goals: Vec<Cell> = queries.iter().map(|q| q.1).collect();
        let maps = distance_maps(&grid, &goals, Backend::Cpu).expect("maps");
        for paths in [0usize, 100, 1000] {
            let table = reserved_table(&grid, paths);
            group.throughput(Throughput::Elements(QUERIES as u64));
            for heuristic in [false, true] {
                let name = if heuristic { "with-map" } else { "manhattan" };
                let id = BenchmarkId::new(format!("random10-{side}/{name}"), paths);
                group.bench_function(id, |b| {
                    b.iter(|| {
                        for (i, &(s, g)) in queries.iter().enumerate() {
                            let mut q = SpaceTimeQuery::new(s, g)
                                .with_table(&table)
                                .with_backend(Backend::Cpu);
                            if heuristic {
                                q = q.with_heuristic(&maps, i);
                            }
                            let _ = std::hint::black_box(space_time_astar(&grid, &q));
                        }
                    })
                });
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

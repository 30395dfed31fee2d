//! Criterion benchmarks of the three solvers on generated maps (no benchmark data needed):
//! PP with 128 agents on a 64² map with 5% obstacles (the published Python cuplan PP figure:
//! 0.59 s CPU), LaCAM with 400 agents on a 64² map with 10% obstacles, CBS with 20 agents on
//! a 32² map with 10% obstacles. `cargo bench -p cuplan-mapf`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use cuplan_grid::generate;
use cuplan_mapf::{Instance, SolveOutcome, Solver, SolverConfig, solve};

/// `agents` agents with distinct starts and goals on a random `side²` map.
fn instance(side: u32, density: f64, agents: usize, seed: u64) -> Instance {
    let grid = generate::random(side, side, density, seed).expect("valid generator arguments");
    let (mut starts, mut goals) = (Vec::new(), Vec::new());
    let (mut used_s, mut used_g) = (HashSet::new(), HashSet::new());
    for (s, g) in generate::random_queries(&grid, agents * 8, seed) {
        if starts.len() == agents {
            break;
        }
        if !used_s.contains(&s) && !used_g.contains(&g) {
            used_s.insert(s);
            used_g.insert(g);
            starts.push(s);
            goals.push(g);
        }
    }
    Instance::new(Arc::new(grid), starts, goals).expect("distinct, connected endpoints")
}

fn bench(c: &mut Criterion) {
    let config = SolverConfig::default()
        .with_time_limit(Duration::from_secs(30))
        .with_first_solution(true);
    let cases = [
        ("pp/64x64-5%/128", Solver::Pp, instance(64, 0.05, 128, 1)),
        (
            "lacam/64x64-10%/400",
            Solver::Lacam,
            instance(64, 0.10, 400, 2),
        ),
        ("cbs/32x32-10%/20", Solver::Cbs, instance(32, 0.10, 20, 3)),
    ];
    let mut group = c.benchmark_group("mapf");
    group.sample_size(10);
    for (name, solver, inst) in &cases {
        let lb = inst.lower_bound();
        if let Ok(SolveOutcome::Solved(s)) = solve(inst, *solver, &config) {
            eprintln!(
                "{name}: soc {} / lb {lb} = {:.3}",
                s.soc(),
                s.soc() as f64 / lb.max(1) as f64
            );
        } else {
            eprintln!("{name}: not solved");
        }
        group.bench_function(*name, |b| b.iter(|| solve(inst, *solver, &config)));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

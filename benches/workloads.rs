//! Criterion benchmarks of whole workloads through the facade, each crossing crates the way an
//! embedding user does (benches of one crate live in that crate's `benches/`):
//!
//! - `tick`: a game loop's tick on a 512² rooms map: 16 scattered changes through
//!   `Planner::update_grid` (the grid's journal, the components, the JPS+ repair), then one
//!   query, for an online variant and a table variant.
//! - `cold_start`: from a map's Moving AI text to 1,000 answered queries: parse, build the
//!   planner (components, and the jump table for the table variant), answer the batch.
//! - `warehouse`: a 4-connected fleet: distance maps for 200 goals, `batched_astar` for their
//!   paths, then LaCAM for the same 200 agents.
//!
//! No benchmark data needed (generated maps). `cargo bench --bench workloads`.

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::collections::HashSet;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use cuplan::grid::generate;
use cuplan::prelude::*;

const CHANGES_PER_TICK: usize = 16;

/// Ticks of alternating "close 16 doors" / "open them again", so the map never drifts.
fn door_ticks(grid: &Grid, seed: u64) -> Vec<Vec<Change>> {
    let doors: Vec<Cell> = generate::random_queries(grid, 4 * CHANGES_PER_TICK, seed)
        .into_iter()
        .flat_map(|(a, b)| [a, b])
        .collect::<HashSet<_>>()
        .into_iter()
        .take(CHANGES_PER_TICK)
        .collect();
    let close = doors.iter().map(|&c| Change::Block(c)).collect();
    let open = doors.iter().map(|&c| Change::Free(c)).collect();
    vec![close, open]
}

fn tick(c: &mut Criterion) {
    let grid = generate::rooms(512, 512, 32, 7).expect("valid generator arguments");
    let ticks = door_ticks(&grid, 11);
    let queries = generate::random_queries(&grid, 256, 13);
    let mut group = c.benchmark_group("tick");
    for algo in [Algorithm::JpsBit, Algorithm::JpsBitPrunePre] {
        let mut planner = Planner::new(grid.clone(), algo).expect("a planner for a valid grid");
        let mut searcher = Searcher::new();
        let mut k = 0;
        group.bench_function(algo.name(), |b| {
            b.iter(|| {
                let changes = &ticks[k % ticks.len()];
                let (start, goal) = queries[k % queries.len()];
                k += 1;
                planner
                    .update_grid(|g| g.apply(changes))
                    .expect("cells on the map");
                // A door may sit on an endpoint while closed: that query is an error, as it
                // would be in a game; the tick's work is done either way.
                black_box(planner.search(&mut searcher, start, goal).ok())
            });
        });
    }
    group.finish();
}

fn cold_start(c: &mut Criterion) {
    let grid = generate::rooms(512, 512, 32, 3).expect("valid generator arguments");
    let text = grid.to_movingai_string();
    let queries = generate::random_queries(&grid, 1000, 5);
    let mut group = c.benchmark_group("cold_start");
    group.sample_size(10);
    for algo in [Algorithm::JpsBit, Algorithm::JpsBitPrunePre] {
        group.bench_function(algo.name(), |b| {
            b.iter(|| {
                let grid = Grid::parse_movingai(text.as_bytes(), "rooms.map", 1 << 22)
                    .expect("the text a grid wrote");
                let planner = Planner::new(grid, algo).expect("a planner for a valid grid");
                let paths = find_paths(&planner, &queries);
                assert!(paths.iter().all(|p| matches!(p, Ok(Some(_)))));
                black_box(paths)
            });
        });
    }
    group.finish();
}

/// `agents` distinct starts and distinct goals, pairwise connected.
fn fleet(grid: &Grid, agents: usize, seed: u64) -> (Vec<Cell>, Vec<Cell>) {
    let (mut starts, mut goals) = (Vec::new(), Vec::new());
    let (mut used_s, mut used_g) = (HashSet::new(), HashSet::new());
    for (s, g) in generate::random_queries(grid, agents * 8, seed) {
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
    (starts, goals)
}

fn warehouse(c: &mut Criterion) {
    let grid = generate::random(64, 64, 0.10, 17).expect("valid generator arguments");
    let (starts, goals) = fleet(&grid, 200, 19);
    assert_eq!(
        starts.len(),
        200,
        "the generator gives enough distinct pairs"
    );
    let mut group = c.benchmark_group("warehouse");
    group.sample_size(10);
    group.bench_function("distance_maps+batched_astar/200", |b| {
        b.iter(|| {
            let paths = batched_astar(&grid, &starts, &goals, Backend::Cpu).expect("valid cells");
            black_box(paths)
        });
    });
    let instance =
        Instance::new(Arc::new(grid.clone()), starts.clone(), goals.clone()).expect("valid fleet");
    let config = SolverConfig::default()
        .with_time_limit(Duration::from_secs(30))
        .with_first_solution(true);
    group.bench_function("lacam/200", |b| {
        b.iter(|| {
            let outcome = solve(&instance, Solver::Lacam, &config).expect("a checked instance");
            assert!(matches!(outcome, SolveOutcome::Solved(_)));
            black_box(outcome)
        });
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = tick, cold_start, warehouse
}
criterion_main!(benches);

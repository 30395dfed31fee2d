//! µs per query, per map, for the project's A*, the JPS family and the `pathfinding` crate's
//! A* (the peer of `docs/jps-targets.md`), all in one run on the same queries.
//!
//! Maps: every map of `../shared/data/grid` (when present; every k-th query of its scen,
//! k = n / Q + 1, Q = `CUPLAN_BENCH_QUERIES`, default 60) and the generated default suite
//! (256 × 256, Q random connected queries). One iteration answers all of a map's queries, so
//! µs/query = time per iteration / Q (criterion reports it as throughput too).
//!
//! Run: `cargo bench -p cuplan-jps --bench families` (filter with e.g. `-- dao/`).
//! Ratios: `crates/jps/benches/ratios.py target/criterion` (or your `CARGO_TARGET_DIR`).

// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path as FsPath, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use cuplan_grid::{Cell, Family, Grid, Scenario, generate};
use cuplan_jps::{Algorithm, JumpTable, Planner, Searcher, find_paths_in};

mod peer;

struct Case {
    family: String,
    name: String,
    grid: Grid,
    queries: Vec<(Cell, Cell)>,
}

fn queries_per_map() -> usize {
    std::env::var("CUPLAN_BENCH_QUERIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60)
}

fn sorted_dir(dir: &FsPath) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn shared_cases(q: usize) -> Vec<Case> {
    let grid_dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/grid"
    ));
    if !grid_dir.is_dir() {
        eprintln!(
            "shared data not found at {}: generated maps only",
            grid_dir.display()
        );
        return Vec::new();
    }
    let mut cases = Vec::new();
    for family in sorted_dir(&grid_dir) {
        let fam = family
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if fam == "legacy-scen" {
            continue;
        }
        for map in sorted_dir(&family) {
            let Some(name) = map
                .file_name()
                .and_then(|s| s.to_str())
                .and_then(|s| s.strip_suffix(".map"))
            else {
                continue;
            };
            let (Ok(grid), Ok(scen)) = (
                Grid::read_movingai(&map),
                Scenario::read(format!("{}.scen", map.display())),
            ) else {
                eprintln!("skipping unreadable {}", map.display());
                continue;
            };
            let k = scen.entries.len() / q + 1;
            let queries = scen
                .entries
                .iter()
                .step_by(k)
                .map(|e| (e.start, e.goal))
                .collect();
            cases.push(Case {
                family: fam.clone(),
                name: name.to_string(),
                grid,
                queries,
            });
        }
    }
    cases
}

fn generated_cases(q: usize) -> Vec<Case> {
    Family::DEFAULT_SUITE
        .iter()
        .filter_map(|f| {
            let grid = f.generate(256, 256, 42).ok()?;
            let queries = generate::random_queries(&grid, q, 7);
            Some(Case {
                family: "generated".into(),
                name: f.name(),
                grid,
                queries,
            })
        })
        .collect()
}

fn families(c: &mut Criterion) {
    let q = queries_per_map();
    let cases: Vec<Case> = shared_cases(q)
        .into_iter()
        .chain(generated_cases(q))
        .collect();
    for case in &cases {
        let mut group = c.benchmark_group(format!("{}/{}", case.family, case.name));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(800))
            .throughput(Throughput::Elements(case.queries.len() as u64));
        let grid = &case.grid;
        group.bench_function("pathfinding", |b| {
            b.iter(|| {
                for &(s, g) in &case.queries {
                    black_box(peer::pathfinding_astar(grid, s, g));
                }
            })
        });
        for algo in Algorithm::ALL {
            let Ok(planner) = Planner::new(grid.clone(), algo) else {
                continue;
            };
            let mut searcher = Searcher::new();
            group.bench_function(algo.name(), |b| {
                b.iter(|| {
                    for &(s, g) in &case.queries {
                        let _ = black_box(planner.search(&mut searcher, s, g));
                    }
                })
            });
        }
        group.finish();
    }
}

/// JPS+ table build versus repair after one changed cell, and batch scaling with 1 and 2
/// threads, on the generated maps.
fn tables_and_batches(c: &mut Criterion) {
    let q = queries_per_map();
    for case in generated_cases(q) {
        let mut group = c.benchmark_group(format!("table/{}", case.name));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(800));
        group.bench_function("build", |b| {
            b.iter(|| black_box(JumpTable::build(&case.grid).map(|t| t.bytes())))
        });
        let mut grid = case.grid.clone();
        let Ok(mut table) = JumpTable::build(&grid) else {
            continue;
        };
        let cell = Cell::new(grid.width() / 2, grid.height() / 2);
        // One iteration = two changes (toggle and toggle back), each followed by a repair.
        group.bench_function("repair-2-changes", |b| {
            b.iter(|| {
                for _ in 0..2 {
                    if grid.is_free(cell) {
                        let _ = grid.set_blocked(cell);
                    } else {
                        let _ = grid.set_free(cell);
                    }
                    let _ = black_box(table.repair(&grid));
                }
            })
        });
        group.finish();

        let Ok(planner) = Planner::new(case.grid.clone(), Algorithm::JpsBitPrunePre) else {
            continue;
        };
        let queries = generate::random_queries(&case.grid, 20 * q, 11);
        let mut group = c.benchmark_group(format!("batch/{}", case.name));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(200))
            .measurement_time(Duration::from_millis(800))
            .throughput(Throughput::Elements(queries.len() as u64));
        for threads in [1, 2] {
            let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(threads).build() else {
                continue;
            };
            group.bench_function(format!("threads-{threads}"), |b| {
                b.iter(|| black_box(find_paths_in(&pool, &planner, &queries).len()))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, families, tables_and_batches);
criterion_main!(benches);

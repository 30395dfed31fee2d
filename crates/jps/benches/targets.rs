//! Speed-ups over the `pathfinding` crate's A* per shared benchmark map, next to the floors of
//! `docs/jps-targets.md`, in one run on the same queries.
//!
//! A plain harness (no criterion): per map, every k-th query of its scen (k = n / Q + 1,
//! Q = `CUPLAN_BENCH_QUERIES`, default 100; the notes used ~300), one untimed warm-up pass per
//! algorithm, then `CUPLAN_BENCH_PASSES` (default 3) timed passes of which the fastest counts:
//! the minimum is the estimate least disturbed by other load on a shared machine.
//! Prints a markdown table per map (with, untimed, how much shorter `smooth` makes the
//! optimal paths, and the JPS+ table's build time and size) and the geometric mean of each ratio per family.
//!
//! Run: `cargo bench -p cuplan-jps --bench targets` (filter: `-- dao maze`).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use cuplan_grid::{Cell, Grid, Scenario};
use cuplan_jps::{Algorithm, Planner, Searcher, euclidean_length, smooth};

mod peer;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Fastest of `passes` timed runs of `f` (after one warm-up run), in µs per query.
fn time_min(passes: usize, n: usize, mut f: impl FnMut()) -> f64 {
    f();
    (0..passes.max(1))
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// map name -> (jps-bit floor, best floor), from the table in `docs/jps-targets.md`.
fn floors() -> BTreeMap<String, (f64, f64)> {
    let text = include_str!("../../../docs/jps-targets.md");
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        if f.len() >= 7 {
            let num = |s: &str| s.trim_end_matches('×').parse::<f64>().ok();
            if let (Some(a), Some(b)) = (num(f[4]), num(f[5])) {
                out.insert(f[2].to_string(), (a, b));
            }
        }
    }
    out
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let q = env_usize("CUPLAN_BENCH_QUERIES", 100);
    let passes = env_usize("CUPLAN_BENCH_PASSES", 3);
    let shared = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared"));
    let grid_dir = shared.join("data/grid");
    if !grid_dir.is_dir() {
        eprintln!(
            "shared data not found at {}: nothing to do",
            grid_dir.display()
        );
        return;
    }
    let floors = floors();
    let algos = Algorithm::ALL;
    println!(
        "| family | map | n | pathfinding µs | {} | {} | jps-bit floor | best floor | smoothed shorter | JPS+ table build, size |",
        algos.map(|a| format!("{a} µs")).join(" | "),
        algos.map(|a| format!("{a} ×")).join(" | ")
    );
    let mut per_family: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
    let mut families: Vec<PathBuf> = std::fs::read_dir(&grid_dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    families.sort();
    for family in families {
        let fam = family
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if fam == "legacy-scen" {
            continue;
        }
        let mut maps: Vec<PathBuf> = std::fs::read_dir(&family)
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        maps.sort();
        for map in maps
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "map"))
        {
            let name = map
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !filters.is_empty()
                && !filters
                    .iter()
                    .any(|f| fam.contains(f.as_str()) || name.contains(f.as_str()))
            {
                continue;
            }
            let (Ok(grid), Ok(scen)) = (
                Grid::read_movingai(map),
                Scenario::read(format!("{}.scen", map.display())),
            ) else {
                eprintln!("skipping unreadable {}", map.display());
                continue;
            };
            let k = scen.entries.len() / q + 1;
            let queries: Vec<(Cell, Cell)> = scen
                .entries
                .iter()
                .step_by(k)
                .map(|e| (e.start, e.goal))
                .collect();
            let n = queries.len();
            let grid = &grid;
            let base = time_min(passes, n, || {
                for &(s, g) in &queries {
                    black_box(peer::pathfinding_astar(grid, s, g));
                }
            });
            let mut times = Vec::new();
            let mut table = (0.0, 0.0);
            for algo in algos {
                let Ok(planner) = Planner::new(grid.clone(), algo) else {
                    times.push(f64::NAN);
                    continue;
                };
                if algo == Algorithm::JpsBitPre {
                    table = (
                        planner.preprocess_time().as_secs_f64() * 1e3,
                        planner.table_bytes() as f64 / (1 << 20) as f64,
                    );
                }
                let mut searcher = Searcher::new();
                times.push(time_min(passes, n, || {
                    for &(s, g) in &queries {
                        let _ = black_box(planner.search(&mut searcher, s, g));
                    }
                }));
            }
            let ratios: Vec<f64> = times.iter().map(|t| base / t).collect();
            // Not timed: how much shorter any-angle smoothing makes the optimal paths.
            let (mut octile, mut pulled) = (0.0, 0.0);
            if let Ok(planner) = Planner::new(grid.clone(), Algorithm::JpsBitPrunePre) {
                let mut searcher = Searcher::new();
                for &(s, g) in &queries {
                    if let Ok(Some(path)) = planner.search(&mut searcher, s, g) {
                        octile += path.cost.to_f64();
                        pulled += euclidean_length(&smooth(grid, &path));
                    }
                }
            }
            let shorter = 100.0 * (1.0 - pulled / octile);
            let (fb, fbest) = floors.get(&name).copied().unwrap_or((f64::NAN, f64::NAN));
            println!(
                "| {fam} | {name} | {n} | {base:.1} | {} | {} | {fb} | {fbest} | {shorter:.2}% | {:.1} ms, {:.2} MiB |",
                times
                    .iter()
                    .map(|t| format!("{t:.2}"))
                    .collect::<Vec<_>>()
                    .join(" | "),
                ratios
                    .iter()
                    .map(|r| format!("{r:.1}"))
                    .collect::<Vec<_>>()
                    .join(" | "),
                table.0,
                table.1,
            );
            let mut row = ratios;
            row.extend([fb, fbest]);
            per_family.entry(fam.clone()).or_default().push(row);
        }
    }
    println!();
    println!(
        "| family (geomean) | {} | jps-bit floor | best floor |",
        algos.map(|a| format!("{a} ×")).join(" | ")
    );
    for (fam, rows) in per_family {
        let cols = rows[0].len();
        let gm: Vec<String> = (0..cols)
            .map(|c| {
                let logs: Vec<f64> = rows.iter().map(|r| r[c].ln()).collect();
                format!(
                    "{:.1}",
                    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
                )
            })
            .collect();
        println!("| {fam} | {} |", gm.join(" | "));
    }
}

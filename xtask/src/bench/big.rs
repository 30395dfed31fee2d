//! `cargo xtask bench big`: every algorithm on maps far past the old limits — a 4096² rooms map
//! (more than 2^21 free cells) and a 40,000 × 420 map (rows longer than the JPS+ table's
//! `i16` reach) — with µs per query (single pass, in order), memory per searcher and table.
//!
//! Answers are checked: every path is legal and costs what it claims, every algorithm gives
//! the same exact cost on every query, and the first queries equal the harness's own Dijkstra.

use std::time::{Duration, Instant};

use cuplan::grid::{Cell, Grid, OctileCost, generate};
use cuplan::jps::{Algorithm, Planner, Searcher};

use super::oracle::octile_distances;

/// Queries per map whose cost the harness's Dijkstra also checks (each a whole-map search).
const ORACLE_QUERIES: usize = 2;

/// One map and algorithm.
#[derive(Debug, serde::Serialize)]
pub(crate) struct BigRow {
    map: String,
    width: u32,
    height: u32,
    free_cells: u64,
    algo: &'static str,
    queries: usize,
    avg_us: f64,
    preprocess_ms: f64,
    table_bytes: usize,
    searcher_bytes: usize,
}

/// The maps: name and grid.
pub(crate) fn maps() -> anyhow::Result<Vec<(String, Grid)>> {
    Ok(vec![
        ("rooms32-4096".into(), generate::rooms(4096, 4096, 32, 5)?),
        (
            "rooms32-40000x420".into(),
            generate::rooms(40_000, 420, 32, 5)?,
        ),
    ])
}

/// Runs `queries` seeded queries of every algorithm on `grid`.
pub(crate) fn run(name: &str, grid: &Grid, queries: usize) -> anyhow::Result<Vec<BigRow>> {
    let pairs = generate::random_queries(grid, queries, 17);
    let mut rows = Vec::new();
    let mut reference: Option<Vec<Option<OctileCost>>> = None;
    for algo in Algorithm::ALL {
        let planner = Planner::new(grid.clone(), algo)?;
        let mut searcher = Searcher::new();
        let mut busy = Duration::ZERO;
        let mut costs = Vec::with_capacity(pairs.len());
        for &(a, b) in &pairs {
            let t = Instant::now();
            let path = planner.search(&mut searcher, a, b)?;
            busy += t.elapsed();
            if let Some(p) = &path {
                anyhow::ensure!(
                    grid.octile_path_cost(&p.waypoints)? == p.cost,
                    "{name} {algo}: a path does not cost what it claims"
                );
            }
            costs.push(path.map(|p| p.cost));
        }
        match &reference {
            Some(want) => anyhow::ensure!(
                *want == costs,
                "{name} {algo}: costs differ from {}",
                Algorithm::ALL[0]
            ),
            None => {
                check_against_oracle(grid, &pairs, &costs)?;
                reference = Some(costs);
            }
        }
        rows.push(BigRow {
            map: name.to_string(),
            width: grid.width(),
            height: grid.height(),
            free_cells: grid.free_count(),
            algo: algo.name(),
            queries: pairs.len(),
            avg_us: busy.as_secs_f64() * 1e6 / pairs.len().max(1) as f64,
            preprocess_ms: planner.preprocess_time().as_secs_f64() * 1e3,
            table_bytes: planner.table_bytes(),
            searcher_bytes: searcher.bytes(),
        });
    }
    Ok(rows)
}

fn check_against_oracle(
    grid: &Grid,
    pairs: &[(Cell, Cell)],
    costs: &[Option<OctileCost>],
) -> anyhow::Result<()> {
    for (&(a, b), got) in pairs.iter().zip(costs).take(ORACLE_QUERIES) {
        let want = octile_distances(grid, a)[grid.index(b).get()];
        anyhow::ensure!(*got == want, "{a}->{b}: cost {got:?}, Dijkstra {want:?}");
    }
    Ok(())
}

/// The printed table.
pub(crate) fn table(rows: &[BigRow]) -> String {
    let mut out = format!(
        "{:<18} {:>11} {:>10} {:<16} {:>7} {:>11} {:>10} {:>11} {:>12}\n",
        "map", "size", "free", "algo", "queries", "µs/query", "table ms", "table MB", "searcher MB"
    );
    for r in rows {
        out += &format!(
            "{:<18} {:>11} {:>10} {:<16} {:>7} {:>11.1} {:>10.1} {:>11.1} {:>12.2}\n",
            r.map,
            format!("{}x{}", r.width, r.height),
            r.free_cells,
            r.algo,
            r.queries,
            r.avg_us,
            r.preprocess_ms,
            r.table_bytes as f64 / 1e6,
            r.searcher_bytes as f64 / 1e6
        );
    }
    out
}

//! The library's own speed on a scenario, to compare with `cuplan solve`'s `avg_query_us`:
//! the same map, queries and planner, one reused searcher on one thread, each query timed
//! once in file order after a warm-up of 20 queries.
//!
//! ```sh
//! cargo run --release -p cuplan-cli --example library_pass -- MAP SCEN [ALGO]
//! ```
//!
//! Prints one JSON line: `{"algo":…,"queries":…,"avg_query_us":…}`.

use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use cuplan::grid::{Grid, Scenario};
use cuplan::jps::{Algorithm, Planner, Searcher};

/// Queries answered untimed first, so that the searcher's node table is allocated and the
/// map's rows are in cache, as they are for all but the first few queries of a CLI run.
const WARM_UP: usize = 20;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (map, scen, algo) = match args.as_slice() {
        [map, scen] => (map, scen, "jps-bit"),
        [map, scen, algo] => (map, scen, algo.as_str()),
        _ => bail!("usage: library_pass MAP SCEN [ALGO]"),
    };
    let algo: Algorithm = algo.parse()?;
    let grid = Grid::read_movingai(map)?;
    let queries: Vec<_> = Scenario::read(scen)?
        .entries
        .iter()
        .map(|e| (e.start, e.goal))
        .collect();
    let planner = Planner::new(grid, algo)?;
    let mut searcher = Searcher::new();
    for &(start, goal) in queries.iter().take(WARM_UP) {
        planner.search(&mut searcher, start, goal)?;
    }
    let mut busy = Duration::ZERO;
    for (i, &(start, goal)) in queries.iter().enumerate() {
        let t = Instant::now();
        let path = planner.search(&mut searcher, start, goal);
        busy += t.elapsed();
        path.with_context(|| format!("query {i}"))?;
    }
    let avg_query_us = busy.as_secs_f64() * 1e6 / queries.len().max(1) as f64;
    println!(
        "{}",
        serde_json::json!({
            "algo": algo.name(),
            "queries": queries.len(),
            "avg_query_us": avg_query_us,
        })
    );
    Ok(())
}

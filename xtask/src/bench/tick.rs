//! `cargo xtask bench tick`: the game loop. Each tick makes 16 scattered changes to the map
//! (blocking random free cells, freeing cells blocked earlier) through
//! `Planner::update_grid`, then answers one query. Upkeep is the time of the update: the
//! grid's journal and kept components, and for the table variants the JPS+ repair.
//!
//! Answers are checked: every tick's path is legal on the grid of that moment and, on a
//! sample of ticks, its cost equals the harness's own Dijkstra; at the end each table equals a
//! fresh build.

use std::path::Path;
use std::time::{Duration, Instant};

use cuplan::grid::{Cell, Change, Grid, Scenario, generate};
use cuplan::jps::{Algorithm, JumpTable, Planner, Searcher};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::oracle::octile_distances;

/// Changes per tick.
const CHANGES_PER_TICK: usize = 16;
/// Every this many ticks the query's cost is checked against the oracle.
const ORACLE_EVERY: usize = 25;

/// One map and algorithm over all ticks.
#[derive(Debug, serde::Serialize)]
pub(crate) struct TickRow {
    map: String,
    algo: &'static str,
    ticks: usize,
    upkeep_median_us: f64,
    upkeep_p95_us: f64,
    upkeep_max_us: f64,
    query_median_us: f64,
    rebuilds: usize,
}

/// A map to tick on, with the queries to ask (endpoints free on the original map).
pub(crate) struct TickMap {
    name: String,
    grid: Grid,
    queries: Vec<(Cell, Cell)>,
}

/// arena2 and AR0011SR from `data` (a Moving AI grid folder) when they are there, and always a
/// generated 1024² rooms map.
pub(crate) fn maps(data: Option<&Path>) -> anyhow::Result<Vec<TickMap>> {
    let mut maps = Vec::new();
    for (family, stem) in [("dao", "arena2"), ("bg512", "AR0011SR")] {
        let Some(dir) = data else { break };
        let map = dir.join(family).join(format!("{stem}.map"));
        if !map.is_file() {
            eprintln!("tick: {} not found, skipped", map.display());
            continue;
        }
        let grid = Grid::read_movingai(&map)?;
        let scen = Scenario::read(map.with_extension("map.scen"))?;
        let queries = scen.entries.iter().map(|e| (e.start, e.goal)).collect();
        maps.push(TickMap {
            name: stem.to_string(),
            grid,
            queries,
        });
    }
    let grid = generate::rooms(1024, 1024, 32, 7)?;
    let queries = generate::random_queries(&grid, 2000, 7);
    maps.push(TickMap {
        name: "rooms32-1024".into(),
        grid,
        queries,
    });
    Ok(maps)
}

/// Runs `ticks` ticks of every algorithm on `map`; the same seeded changes for each.
pub(crate) fn run(map: &TickMap, ticks: usize) -> anyhow::Result<Vec<TickRow>> {
    Algorithm::ALL
        .into_iter()
        .map(|algo| run_one(map, algo, ticks))
        .collect()
}

fn run_one(map: &TickMap, algo: Algorithm, ticks: usize) -> anyhow::Result<TickRow> {
    let mut planner = Planner::new(map.grid.clone(), algo)?;
    let mut searcher = Searcher::new();
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut placed: Vec<Cell> = Vec::new();
    let (mut upkeep, mut query) = (Vec::with_capacity(ticks), Vec::with_capacity(ticks));
    let mut rebuilds = 0;
    for tick in 0..ticks {
        let changes = scattered_changes(planner.grid(), &mut placed, &mut rng);
        let generation = planner.table().map(JumpTable::generation);
        let t = Instant::now();
        planner.update_grid(|g| g.apply(&changes))?;
        upkeep.push(t.elapsed());
        let rebuilt = generation.is_some_and(|g| planner.grid().changes_since(g).is_none());
        rebuilds += usize::from(rebuilt);
        let Some((start, goal)) = next_query(map, planner.grid(), tick) else {
            continue;
        };
        let t = Instant::now();
        let path = planner.search(&mut searcher, start, goal)?;
        query.push(t.elapsed());
        check_answer(planner.grid(), start, goal, path.as_ref(), tick)?;
    }
    if let Some(table) = planner.table() {
        anyhow::ensure!(
            *table == JumpTable::build(planner.grid())?,
            "{} {algo}: the repaired table differs from a fresh build",
            map.name
        );
    }
    Ok(TickRow {
        map: map.name.clone(),
        algo: algo.name(),
        ticks,
        upkeep_median_us: quantile_us(&mut upkeep, 0.5),
        upkeep_p95_us: quantile_us(&mut upkeep, 0.95),
        upkeep_max_us: quantile_us(&mut upkeep, 1.0),
        query_median_us: quantile_us(&mut query, 0.5),
        rebuilds,
    })
}

/// Half blocks of random free cells, half frees of cells blocked by earlier ticks, so the map
/// keeps its density; never frees one of the map's own walls.
fn scattered_changes(grid: &Grid, placed: &mut Vec<Cell>, rng: &mut ChaCha8Rng) -> Vec<Change> {
    let mut changes = Vec::with_capacity(CHANGES_PER_TICK);
    while changes.len() < CHANGES_PER_TICK {
        if !placed.is_empty() && rng.random_bool(0.5) {
            let cell = placed.swap_remove(rng.random_range(0..placed.len()));
            changes.push(Change::Free(cell));
        } else {
            let cell = Cell::new(
                rng.random_range(0..grid.width()),
                rng.random_range(0..grid.height()),
            );
            let already = changes.iter().any(|c| c.cell() == cell);
            if grid.is_free(cell) && !already {
                placed.push(cell);
                changes.push(Change::Block(cell));
            }
        }
    }
    changes
}

/// The tick's query: the next scenario query whose endpoints are free right now.
fn next_query(map: &TickMap, grid: &Grid, tick: usize) -> Option<(Cell, Cell)> {
    (0..map.queries.len())
        .map(|k| map.queries[(tick * 7 + k) % map.queries.len()])
        .find(|&(a, b)| grid.is_free(a) && grid.is_free(b))
}

fn check_answer(
    grid: &Grid,
    start: Cell,
    goal: Cell,
    path: Option<&cuplan::jps::Path>,
    tick: usize,
) -> anyhow::Result<()> {
    if let Some(p) = path {
        let cost = grid.octile_path_cost(&p.waypoints)?;
        anyhow::ensure!(
            cost == p.cost,
            "tick {tick}: path cost differs from its claim"
        );
        anyhow::ensure!(
            p.waypoints.first() == Some(&start) && p.waypoints.last() == Some(&goal),
            "tick {tick}: wrong endpoints"
        );
    }
    if tick.is_multiple_of(ORACLE_EVERY) {
        let want = octile_distances(grid, start)[(goal.y * grid.width() + goal.x) as usize];
        anyhow::ensure!(
            path.map(|p| p.cost) == want,
            "tick {tick}: {start}->{goal} cost {:?}, optimum {want:?}",
            path.map(|p| p.cost)
        );
    }
    Ok(())
}

fn quantile_us(times: &mut [Duration], q: f64) -> f64 {
    if times.is_empty() {
        return 0.0;
    }
    times.sort_unstable();
    let i = ((times.len() - 1) as f64 * q).round() as usize;
    times[i].as_secs_f64() * 1e6
}

/// The printed table.
pub(crate) fn table(rows: &[TickRow]) -> String {
    let mut out = format!(
        "{:<14} {:<16} {:>6} {:>12} {:>10} {:>10} {:>10} {:>8}\n",
        "map", "algo", "ticks", "upkeep µs", "p95 µs", "max µs", "query µs", "rebuilds"
    );
    for r in rows {
        out += &format!(
            "{:<14} {:<16} {:>6} {:>12.1} {:>10.1} {:>10.1} {:>10.1} {:>8}\n",
            r.map,
            r.algo,
            r.ticks,
            r.upkeep_median_us,
            r.upkeep_p95_us,
            r.upkeep_max_us,
            r.query_median_us,
            r.rebuilds
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short run on a small generated map: every algorithm ticks, answers are checked inside
    /// `run_one` (legal, oracle-optimal on sampled ticks, tables equal to fresh builds).
    #[test]
    fn ticks_keep_answers_exact() {
        let grid = generate::rooms(96, 64, 8, 3).unwrap();
        let queries = generate::random_queries(&grid, 50, 3);
        let map = TickMap {
            name: "rooms8".into(),
            grid,
            queries,
        };
        let rows = run(&map, 60).unwrap();
        assert_eq!(rows.len(), Algorithm::ALL.len());
        assert!(rows.iter().all(|r| r.ticks == 60));
    }
}

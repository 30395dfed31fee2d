//! Running engines over maps: timing, validation and memory, one record per query.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use cuplan::grid::{Cell, Grid, OctileCost};
use cuplan::jps::{Algorithm, Planner, Searcher};
use rayon::prelude::*;

use super::peer::pathfinding_astar;
use super::suite::{BenchMap, Query};

/// Something the benchmark can time: one of ours, or the peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// One of ours with a dense node table ([`Searcher::new`]).
    Cuplan(Algorithm),
    /// One of ours with the two-level node table ([`Searcher::paged`]), named `ALGO+paged`.
    CuplanPaged(Algorithm),
    PeerAstar,
}

impl Engine {
    pub(crate) const PEER_NAME: &'static str = "pathfinding-astar";
    const PAGED_SUFFIX: &'static str = "+paged";

    pub(crate) fn name(self) -> Cow<'static, str> {
        match self {
            Engine::Cuplan(a) => Cow::Borrowed(a.name()),
            Engine::CuplanPaged(a) => Cow::Owned(format!("{a}{}", Engine::PAGED_SUFFIX)),
            Engine::PeerAstar => Cow::Borrowed(Engine::PEER_NAME),
        }
    }

    pub(crate) fn parse(name: &str) -> anyhow::Result<Engine> {
        if name == Engine::PEER_NAME {
            return Ok(Engine::PeerAstar);
        }
        let algorithm = |n: &str| n.parse().map_err(|e| anyhow::anyhow!("{e}"));
        match name.strip_suffix(Engine::PAGED_SUFFIX) {
            Some(base) => Ok(Engine::CuplanPaged(algorithm(base)?)),
            None => Ok(Engine::Cuplan(algorithm(name)?)),
        }
    }

    fn algorithm(self) -> Option<Algorithm> {
        match self {
            Engine::Cuplan(a) | Engine::CuplanPaged(a) => Some(a),
            Engine::PeerAstar => None,
        }
    }

    fn new_searcher(self) -> Searcher {
        match self {
            Engine::CuplanPaged(_) => Searcher::paged(),
            _ => Searcher::new(),
        }
    }
}

/// How one answer turned out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// Legal and optimal.
    Solved,
    /// Legal but longer than optimal.
    Suboptimal,
    /// Illegal, wrong endpoints, or shorter than the optimum (impossible).
    Invalid,
    /// No path returned for a query that has one.
    Unsolved,
}

/// One timed query.
#[derive(Debug, Clone)]
pub(crate) struct QueryResult {
    pub(crate) time: Duration,
    pub(crate) optimal: f64,
    pub(crate) cost: Option<f64>,
    pub(crate) status: Status,
}

/// Everything measured for one engine on one map.
#[derive(Debug, Clone)]
pub(crate) struct MapRun {
    pub(crate) family: String,
    pub(crate) map: String,
    pub(crate) engine: Engine,
    pub(crate) queries: Vec<QueryResult>,
    pub(crate) preprocess: Duration,
    pub(crate) storage_bytes: usize,
    pub(crate) rss_before_kb: u64,
    pub(crate) rss_after_kb: u64,
}

/// Queries shorter than this are repeated and their median taken.
const CHEAP: Duration = Duration::from_micros(50);
const WARM_UP: usize = 20;

pub(crate) fn run_map(
    map: &BenchMap,
    engine: Engine,
    pool: &rayon::ThreadPool,
) -> anyhow::Result<MapRun> {
    let rss_before_kb = rss_kb();
    let planner = match engine.algorithm() {
        Some(a) => Some(
            Planner::new(map.grid.clone(), a).map_err(|e| anyhow::anyhow!("{}: {e}", map.name))?,
        ),
        None => None,
    };
    // Only building tables counts as preprocessing; the grid's cached components do not.
    let preprocess = planner
        .as_ref()
        .filter(|p| p.algorithm().is_preprocessed())
        .map_or(Duration::ZERO, Planner::preprocess_time);
    let answer = |searcher: &mut Searcher, q: &Query| -> anyhow::Result<Option<Vec<Cell>>> {
        Ok(match &planner {
            Some(p) => p
                .search(searcher, q.start, q.goal)
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .map(|p| p.waypoints),
            None => pathfinding_astar(&map.grid, q.start, q.goal),
        })
    };
    let new_searcher = || engine.new_searcher();
    let mut searcher = new_searcher();
    for q in map.queries.iter().take(WARM_UP) {
        answer(&mut searcher, q)?;
    }
    let time_one = |searcher: &mut Searcher, q: &Query| -> anyhow::Result<QueryResult> {
        let (mut time, path) = timed(|| answer(searcher, q));
        let path = path?;
        if time < CHEAP {
            let mut times = [
                time,
                timed(|| answer(searcher, q)).0,
                timed(|| answer(searcher, q)).0,
            ];
            times.sort();
            time = times[1];
        }
        Ok(judge(&map.grid, q, path.as_deref(), time))
    };
    let queries = if pool.current_num_threads() <= 1 {
        map.queries
            .iter()
            .map(|q| time_one(&mut searcher, q))
            .collect::<anyhow::Result<Vec<_>>>()?
    } else {
        pool.install(|| {
            map.queries
                .par_iter()
                .map_init(new_searcher, time_one)
                .collect::<anyhow::Result<Vec<_>>>()
        })?
    };
    let storage_bytes = planner.as_ref().map_or(0, |p| p.table_bytes()) + searcher.bytes();
    Ok(MapRun {
        family: map.family.clone(),
        map: map.name.clone(),
        engine,
        queries,
        preprocess,
        storage_bytes,
        rss_before_kb,
        rss_after_kb: rss_kb(),
    })
}

fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let t = Instant::now();
    let out = std::hint::black_box(f());
    (t.elapsed(), out)
}

/// Validates an answer step by step and against the optimum.
fn judge(grid: &Grid, q: &Query, path: Option<&[Cell]>, time: Duration) -> QueryResult {
    let optimal = q.optimal.length();
    let Some(path) = path else {
        return QueryResult {
            time,
            optimal,
            cost: None,
            status: Status::Unsolved,
        };
    };
    let ends_ok = path.first() == Some(&q.start) && path.last() == Some(&q.goal);
    let status_cost: (Status, Option<OctileCost>) = match grid.octile_path_cost(path) {
        Ok(cost) if ends_ok && q.optimal.accepts(cost) => (Status::Solved, Some(cost)),
        Ok(cost) if ends_ok && cost.to_f64() > optimal => (Status::Suboptimal, Some(cost)),
        Ok(cost) => (Status::Invalid, Some(cost)),
        Err(_) => (Status::Invalid, None),
    };
    let cost = status_cost.1.map(OctileCost::to_f64);
    // An accepted answer *is* the optimum; the printed length is only rounded (bg512: 2 decimals).
    let optimal = match (status_cost.0, cost) {
        (Status::Solved, Some(c)) => c,
        _ => optimal,
    };
    QueryResult {
        time,
        optimal,
        cost,
        status: status_cost.0,
    }
}

/// Resident set size of this process in KiB (0 where /proc is not available).
pub(crate) fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

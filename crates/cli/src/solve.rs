//! `cuplan solve`: every query of a scenario through one 8-connected algorithm.

use std::time::{Duration, Instant};

use cuplan::grid::ScenEntry;
use cuplan::jps::{
    Algorithm, JpsError, Path, Planner, euclidean_length, smooth, with_thread_searcher,
};
use rayon::prelude::*;

use crate::Failure;
use crate::output::{Destination, QueryArgs, QueryRecord, Summary, Tally, emit};

/// Arguments of `cuplan solve`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    query: QueryArgs,
    /// The algorithm: astar, jps, jps-bit, jps-bitprune, jps-bitpre, jps-bitprunepre.
    #[arg(long, default_value = "jps-bit")]
    algo: String,
    /// Post-process each path by string pulling with exact line of sight (any-angle paths);
    /// `cost` is then the Euclidean length of the smoothed path.
    #[arg(long)]
    smooth: bool,
}

/// One query's answer and how long the search took.
type Timed = (Result<Option<Path>, JpsError>, Duration);

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let out = Destination::prepare(args.query.out.as_deref())?;
    let algo: Algorithm = args.algo.parse().map_err(Failure::bad_input)?;
    let loaded = args.query.load()?;
    // The planner takes the grid: a copy would cost a map's worth of memory and time.
    let planner = Planner::new(loaded.grid, algo).map_err(Failure::bad_input)?;
    warm_up_searchers(
        &loaded.pool,
        &planner,
        loaded.queries.first().map(|(_, q)| q),
    );
    let started = Instant::now();
    let answers = loaded
        .pool
        .install(|| answer_all(&planner, &loaded.queries));
    let wall = started.elapsed();
    let mut records = Vec::with_capacity(answers.len());
    let mut tally = Tally::default();
    for ((index, q), (path, took)) in loaded.queries.iter().zip(answers) {
        let path = path.map_err(|e| Failure::bad_input(format!("query {index}: {e}")))?;
        let smoothed = path
            .as_ref()
            .filter(|_| args.smooth)
            .map(|p| smooth(planner.grid(), p));
        let answer = match (&path, &smoothed) {
            (Some(_), Some(s)) => Some((euclidean_length(s), s.as_slice())),
            (Some(p), None) => Some((p.cost.to_f64(), p.waypoints.as_slice())),
            (None, _) => None,
        };
        tally.add(answer.map(|(len, _)| len), took);
        records.push(QueryRecord::new(*index, q.start, q.goal, answer));
    }
    let summary = Summary::of_searches(
        algo,
        &args.query.map,
        &tally,
        wall.as_secs_f64(),
        planner.preprocess_time().as_secs_f64(),
    );
    emit(out, &records, &summary)
}

/// Sizes every worker's searcher for the map before the clock starts, with one search of
/// `query` on each thread: a thread's first search allocates and fills a node table the size
/// of the map (milliseconds on 512² maps), a one-time cost that the per-query times would
/// otherwise charge to whichever queries come first.
fn warm_up_searchers(pool: &rayon::ThreadPool, planner: &Planner, query: Option<&ScenEntry>) {
    let Some(q) = query else { return };
    pool.broadcast(|_| {
        // The answer is not needed; an error would come back again from the timed search.
        with_thread_searcher(|searcher| drop(planner.search(searcher, q.start, q.goal)));
    });
}

/// Answers every query on the current rayon pool, in input order, timing each search.
///
/// Each worker thread reuses its own searcher for all its queries: rayon's `map_init` would
/// make one per work split, and each new searcher allocates and zeroes a node table the size
/// of the map, which cost more than the searches themselves on 512² maps.
fn answer_all(planner: &Planner, queries: &[(usize, ScenEntry)]) -> Vec<Timed> {
    queries
        .par_iter()
        .map(|(_, q)| {
            with_thread_searcher(|searcher| {
                let t = Instant::now();
                let path = planner.search(searcher, q.start, q.goal);
                (path, t.elapsed())
            })
        })
        .collect()
}

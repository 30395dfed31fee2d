//! `cuplan solve`: every query of a scenario through one 8-connected algorithm.

use std::time::Instant;

use cuplan::jps::{Algorithm, Planner, Searcher, euclidean_length, smooth};
use rayon::prelude::*;

use crate::Failure;
use crate::output::{QueryArgs, QueryRecord, Summary, emit};

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

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let algo: Algorithm = args.algo.parse().map_err(Failure::bad_input)?;
    let loaded = args.query.load()?;
    let planner = Planner::new(loaded.grid.clone(), algo).map_err(Failure::bad_input)?;
    let started = Instant::now();
    let answers: Vec<_> = loaded.pool.install(|| {
        loaded
            .queries
            .par_iter()
            .map_init(Searcher::new, |searcher, (_, q)| {
                let t = Instant::now();
                let path = planner.search(searcher, q.start, q.goal);
                (path, t.elapsed())
            })
            .collect()
    });
    let wall = started.elapsed();
    let mut records = Vec::with_capacity(answers.len());
    let (mut solved, mut total_len, mut busy) = (0, 0.0, 0.0);
    for ((index, q), (path, took)) in loaded.queries.iter().zip(answers) {
        let path = path.map_err(|e| Failure::bad_input(format!("query {index}: {e}")))?;
        busy += took.as_secs_f64();
        solved += usize::from(path.is_some());
        let smoothed = path
            .as_ref()
            .filter(|_| args.smooth)
            .map(|p| smooth(&loaded.grid, p));
        let answer = match (&path, &smoothed) {
            (Some(_), Some(s)) => Some((euclidean_length(s), s.as_slice())),
            (Some(p), None) => Some((p.cost.to_f64(), p.waypoints.as_slice())),
            (None, _) => None,
        };
        total_len += answer.map_or(0.0, |(len, _)| len);
        records.push(QueryRecord::new(*index, q.start, q.goal, answer));
    }
    let n = records.len();
    let summary = Summary {
        algo: algo.name().to_string(),
        map: args.query.map.display().to_string(),
        queries: n,
        solved,
        unsolved: n - solved,
        total_query_s: wall.as_secs_f64(),
        avg_query_us: if n == 0 { 0.0 } else { busy * 1e6 / n as f64 },
        precompute_s: planner.preprocess_time().as_secs_f64(),
        avg_len: if solved == 0 {
            0.0
        } else {
            total_len / solved as f64
        },
    };
    emit(args.query.out.as_deref(), &records, &summary)
}

//! `cuplan batch`: every query of a scenario with 4-connected moves, by batched wavefront.

use std::time::Instant;

use cuplan::grid::Cell;
use cuplan::wavefront::{Backend, batched_astar};

use crate::Failure;
use crate::output::{Destination, QueryArgs, QueryRecord, Summary, emit};

/// Arguments of `cuplan batch`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    query: QueryArgs,
    /// Where the wavefronts run: auto, cpu or cuda.
    #[arg(long, default_value = "auto")]
    backend: String,
    /// Write every cell of each path instead of its turning points.
    #[arg(long)]
    full_path: bool,
}

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let out = Destination::prepare(args.query.out.as_deref())?;
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let loaded = args.query.load()?;
    let starts: Vec<Cell> = loaded.queries.iter().map(|(_, q)| q.start).collect();
    let goals: Vec<Cell> = loaded.queries.iter().map(|(_, q)| q.goal).collect();
    let started = Instant::now();
    let paths = loaded
        .pool
        .install(|| batched_astar(&loaded.grid, &starts, &goals, backend))
        .map_err(Failure::bad_input)?;
    let wall = started.elapsed().as_secs_f64();
    let mut records = Vec::with_capacity(paths.len());
    let (mut solved, mut total_len) = (0, 0.0);
    for ((index, q), path) in loaded.queries.iter().zip(&paths) {
        let cells = path.as_ref().map(|p| {
            if args.full_path {
                p.cells.clone()
            } else {
                turning_points(&p.cells)
            }
        });
        if let Some(p) = path {
            solved += 1;
            total_len += p.moves() as f64;
        }
        let answer = path
            .as_ref()
            .zip(cells.as_deref())
            .map(|(p, c)| (p.moves() as f64, c));
        records.push(QueryRecord::new(*index, q.start, q.goal, answer));
    }
    let n = records.len();
    let summary = Summary {
        algo: format!("batched-astar-{backend}"),
        map: args.query.map.display().to_string(),
        queries: n,
        solved,
        unsolved: n - solved,
        total_query_s: wall,
        avg_query_us: if n == 0 { 0.0 } else { wall * 1e6 / n as f64 },
        precompute_s: 0.0,
        avg_len: if solved == 0 {
            0.0
        } else {
            total_len / solved as f64
        },
    };
    emit(out, &records, &summary)
}

/// The cells where a 4-connected walk changes direction, plus its ends.
fn turning_points(cells: &[Cell]) -> Vec<Cell> {
    let mut out: Vec<Cell> = cells.first().copied().into_iter().collect();
    for w in cells.windows(3) {
        let straight =
            (w[0].x == w[1].x && w[1].x == w[2].x) || (w[0].y == w[1].y && w[1].y == w[2].y);
        if !straight {
            out.push(w[1]);
        }
    }
    if cells.len() > 1 {
        out.extend(cells.last().copied());
    }
    out
}

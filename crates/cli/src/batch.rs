//! `cuplan batch`: every query of a scenario with 4-connected moves, by batched wavefront.

use std::time::Instant;

use cuplan::grid::Cell;
use cuplan::wavefront::{Backend, DistanceOptions, WavefrontError, batched_astar_streamed};

use crate::Failure;
use crate::budget::MemoryLimit;
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
    /// Memory budget of the distance maps and their buffers, e.g. 512MiB or 2GiB: goals are
    /// answered in chunks whose maps fit it, so any scenario runs within it. A budget too
    /// small for one map is exit status 3. Default: half the available memory, at most 2 GiB.
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<MemoryLimit>,
}

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let out = Destination::prepare(args.query.out.as_deref())?;
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let loaded = args.query.load()?;
    let starts: Vec<Cell> = loaded.queries.iter().map(|(_, q)| q.start).collect();
    let goals: Vec<Cell> = loaded.queries.iter().map(|(_, q)| q.goal).collect();
    let budget = MemoryLimit::or_default(args.memory_limit);
    let held = held_bytes(&loaded);
    // What the command itself holds comes out of the same budget.
    let options = DistanceOptions::from(backend)
        .with_max_bytes(u128::from(budget.bytes()).saturating_sub(held));
    let started = Instant::now();
    // Each answer becomes its record as soon as it is found: one full path at a time is
    // held beside the records.
    let mut records: Vec<Option<QueryRecord>> = std::iter::repeat_with(|| None)
        .take(loaded.queries.len())
        .collect();
    let (mut solved, mut total_len) = (0, 0.0);
    loaded
        .pool
        .install(|| {
            batched_astar_streamed(&loaded.grid, &starts, &goals, options, |i, path| {
                let (index, q) = &loaded.queries[i];
                let cells = path.as_ref().map(|p| {
                    if args.full_path {
                        p.cells.clone()
                    } else {
                        turning_points(&p.cells)
                    }
                });
                if let Some(p) = &path {
                    solved += 1;
                    total_len += p.arrival() as f64;
                }
                let answer = path
                    .as_ref()
                    .zip(cells.as_deref())
                    .map(|(p, c)| (p.arrival() as f64, c));
                records[i] = Some(QueryRecord::new(*index, q.start, q.goal, answer));
            })
        })
        .map_err(|e| match e {
            WavefrontError::TooLarge { what, bytes, .. } => {
                let size = |b: u128| bytesize::ByteSize(b as u64).display().iec().to_string();
                Failure::limit(format!(
                    "memory limit {budget} reached: {what} need {} beside the {} the map and \
                     queries take",
                    size(bytes),
                    size(held)
                ))
            }
            e => Failure::bad_input(e),
        })?;
    let wall = started.elapsed().as_secs_f64();
    let records: Vec<QueryRecord> = records.into_iter().flatten().collect();
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

/// Bytes the command holds besides the maps: the grid and the queries (the answers come on
/// top, about 8 B per path cell with --full-path and a few per turn without).
fn held_bytes(loaded: &crate::output::Loaded) -> u128 {
    let query = std::mem::size_of::<(usize, cuplan::grid::ScenEntry)>() + 2 * size_of::<Cell>();
    (loaded.grid.bytes() + loaded.queries.len() * query) as u128
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

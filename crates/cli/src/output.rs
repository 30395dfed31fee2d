//! Shared pieces of the query commands: reading the inputs, choosing queries, JSON output.

use std::io::Write;
use std::num::{NonZeroU64, NonZeroUsize};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cuplan::grid::{Cell, Grid, ScenEntry, Scenario};
use cuplan::jps::Algorithm;
use serde::Serialize;

use crate::Failure;

/// Options every scenario-answering command takes.
#[derive(Debug, clap::Args)]
pub(crate) struct QueryArgs {
    /// The `.map` file.
    #[arg(long)]
    pub(crate) map: PathBuf,
    /// The `.scen` file.
    #[arg(long)]
    pub(crate) scen: PathBuf,
    /// Answer only the queries whose index is a multiple of N.
    #[arg(long, value_name = "N", default_value = "1")]
    pub(crate) every: NonZeroU64,
    /// Answer only the first N queries (after --every).
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<usize>,
    /// Threads for the queries (default: all cores).
    #[arg(long, value_name = "N")]
    pub(crate) threads: Option<NonZeroUsize>,
    /// Write the JSON Lines results here instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub(crate) out: Option<PathBuf>,
}

/// The map, the selected queries (with their scen indices) and the thread pool.
pub(crate) struct Loaded {
    pub(crate) grid: Grid,
    pub(crate) queries: Vec<(usize, ScenEntry)>,
    pub(crate) pool: rayon::ThreadPool,
}

impl QueryArgs {
    pub(crate) fn load(&self) -> Result<Loaded, Failure> {
        let grid = Grid::read_movingai(&self.map).map_err(Failure::bad_input)?;
        let scen = Scenario::read(&self.scen).map_err(Failure::bad_input)?;
        scen.check_against(&grid)
            .map_err(|e| Failure::bad_input(format!("{}: {e}", self.scen.display())))?;
        let queries = scen
            .entries
            .into_iter()
            .enumerate()
            .filter(|(i, _)| (*i as u64).is_multiple_of(self.every.get()))
            .take(self.limit.unwrap_or(usize::MAX))
            .collect();
        let mut pool = rayon::ThreadPoolBuilder::new();
        if let Some(n) = self.threads {
            pool = pool.num_threads(n.get());
        }
        let pool = pool.build().map_err(Failure::io)?;
        Ok(Loaded {
            grid,
            queries,
            pool,
        })
    }
}

/// One line of the JSON Lines output.
#[derive(Debug, Serialize)]
pub(crate) struct QueryRecord {
    pub(crate) index: usize,
    pub(crate) start: [u32; 2],
    pub(crate) goal: [u32; 2],
    pub(crate) cost: Option<f64>,
    pub(crate) path: Option<Vec<[u32; 2]>>,
}

impl QueryRecord {
    pub(crate) fn new(
        index: usize,
        start: Cell,
        goal: Cell,
        answer: Option<(f64, &[Cell])>,
    ) -> QueryRecord {
        QueryRecord {
            index,
            start: xy(start),
            goal: xy(goal),
            cost: answer.map(|(c, _)| c),
            path: answer.map(|(_, p)| p.iter().copied().map(xy).collect()),
        }
    }
}

fn xy(c: Cell) -> [u32; 2] {
    [c.x, c.y]
}

/// The closing summary line.
#[derive(Debug, Serialize)]
pub(crate) struct Summary {
    pub(crate) algo: String,
    pub(crate) map: String,
    pub(crate) queries: usize,
    pub(crate) solved: usize,
    pub(crate) unsolved: usize,
    /// Wall-clock time of the query phase (all threads), seconds.
    pub(crate) total_query_s: f64,
    /// Mean time of one query, microseconds.
    pub(crate) avg_query_us: f64,
    pub(crate) precompute_s: f64,
    /// Mean cost of the solved queries.
    pub(crate) avg_len: f64,
}

/// What the answered queries of an 8-connected command add up to, for its summary.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    queries: usize,
    solved: usize,
    /// Sum of the solved queries' costs.
    total_len: f64,
    /// Sum of the per-query search times.
    busy: Duration,
}

impl Tally {
    /// Counts one query: its cost when it was solved, and how long its search took.
    pub(crate) fn add(&mut self, cost: Option<f64>, took: Duration) {
        self.queries += 1;
        self.solved += usize::from(cost.is_some());
        self.total_len += cost.unwrap_or(0.0);
        self.busy += took;
    }

    /// The sum of the per-query search times.
    pub(crate) fn busy(&self) -> Duration {
        self.busy
    }
}

impl Summary {
    /// The summary of `solve` and `replay`. `avg_query_us` is the mean time of one search as
    /// timed around it (not wall time over threads), so it compares with the library's.
    pub(crate) fn of_searches(
        algo: Algorithm,
        map: &Path,
        tally: &Tally,
        total_query_s: f64,
        precompute_s: f64,
    ) -> Summary {
        let mean = |total: f64, n: usize| if n == 0 { 0.0 } else { total / n as f64 };
        Summary {
            algo: algo.name().to_string(),
            map: map.display().to_string(),
            queries: tally.queries,
            solved: tally.solved,
            unsolved: tally.queries - tally.solved,
            total_query_s,
            avg_query_us: mean(tally.busy.as_secs_f64() * 1e6, tally.queries),
            precompute_s,
            avg_len: mean(tally.total_len, tally.solved),
        }
    }
}

/// Writes the records as JSON Lines (to `--out` or standard output), then the summary as the
/// last line of standard output.
pub(crate) fn emit(
    out: Option<&Path>,
    records: &[QueryRecord],
    summary: &Summary,
) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut sink: Box<dyn Write> = match out {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| Failure::io(format!("{}: {e}", p.display())))?,
        )),
        None => Box::new(std::io::BufWriter::new(stdout.lock())),
    };
    for r in records {
        serde_json::to_writer(&mut sink, r).map_err(Failure::io)?;
        sink.write_all(b"\n").map_err(Failure::io)?;
    }
    sink.flush().map_err(Failure::io)?;
    drop(sink);
    println!("{}", serde_json::to_string(summary).map_err(Failure::io)?);
    Ok(())
}

//! Shared pieces of the commands: reading the inputs, choosing queries, writing results.
//!
//! Output never panics: `print!` would on a closed pipe or a full disk. A closed pipe ends the
//! command quietly (as `head` expects of a Unix tool); any other write error is one line
//! naming the output, exit 1. An `--out` file is checked before any work starts and written to
//! a temporary file beside it, renamed into place only when complete, so a failed run leaves
//! no partial file and an earlier one untouched; one that exists and is not a regular file
//! (`/dev/null`, a FIFO) is written to directly instead of being replaced.

use std::io::{self, Write};
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
    /// Answer only the first N queries (after --every); 0 answers none (only the summary).
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<usize>,
    /// Threads for the queries (default: all cores; at most 4 per core).
    #[arg(long, value_name = "N", value_parser = thread_count)]
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
        warn_of_other_maps(&scen, &self.scen, &self.map);
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

/// The most threads `--threads` takes: 4 per core. More only adds a searcher's node table per
/// thread (memory) and switching; 10,000 threads would take minutes to start.
fn max_threads() -> usize {
    4 * std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// `--threads`: a count from 1 to [`max_threads`].
fn thread_count(text: &str) -> Result<NonZeroUsize, String> {
    let n: usize = text
        .parse()
        .map_err(|_| format!("{text:?} is not a thread count"))?;
    let max = max_threads();
    match NonZeroUsize::new(n) {
        None => Err("must be at least 1".to_string()),
        Some(n) if n.get() > max => Err(format!("must be at most {max} (4 per core here)")),
        Some(n) => Ok(n),
    }
}

/// Warns on stderr (once) when the scenario's queries name another map file than `--map`: a
/// scenario is often used with a renamed copy of its map, so this is not refused, but a wrong
/// pairing of same-sized maps would otherwise answer silently on the wrong map.
fn warn_of_other_maps(scen: &Scenario, scen_path: &Path, map: &Path) {
    let mut others = scen.entries.iter().filter(|e| !e.names_map(map));
    if let Some(first) = others.next() {
        warn(&format!(
            "{}: {} of {} queries (first on line {}) name map {:?}, not {}",
            scen_path.display(),
            1 + others.count(),
            scen.entries.len(),
            first.line,
            first.map,
            map.display()
        ));
    }
}

/// One warning line on stderr. A failed write to stderr is ignored: there is nowhere left to
/// report it, and a warning must not stop the work.
pub(crate) fn warn(message: &str) {
    let _ = writeln!(io::stderr(), "warning: {message}");
}

/// The failure for an error writing `output` (a file's path, or standard output). A closed
/// pipe is not a failure of ours: the reader has all it wanted.
pub(crate) fn write_failure(output: &str, e: &io::Error) -> Failure {
    if e.kind() == io::ErrorKind::BrokenPipe {
        Failure::quiet()
    } else {
        Failure::io(format!("writing {output}: {e}"))
    }
}

/// Runs `body` on buffered standard output and flushes it, mapping write errors with
/// [`write_failure`].
pub(crate) fn to_stdout(
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), Failure> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    body(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| write_failure("standard output", &e))
}

/// Where a command's main output goes: standard output, or the `--out` file.
#[derive(Debug)]
pub(crate) struct Destination {
    file: Option<OutFile>,
}

/// An `--out` file: its path, and the temporary file beside it that becomes it when complete;
/// or something that is not a regular file (`/dev/null`, a FIFO, a terminal), written to
/// directly: renaming over it would put a plain file in its place.
#[derive(Debug)]
enum OutFile {
    Replaced {
        path: PathBuf,
        temp: tempfile::NamedTempFile,
    },
    Direct {
        path: PathBuf,
        file: std::fs::File,
    },
}

impl Destination {
    /// Checks `--out` before any work starts: a folder, a missing folder or one that cannot be
    /// written to is bad input, named in one line.
    pub(crate) fn prepare(out: Option<&Path>) -> Result<Destination, Failure> {
        let Some(path) = out else {
            return Ok(Destination { file: None });
        };
        let refuse = |why: String| Failure::bad_input(format!("--out {}: {why}", path.display()));
        if path.is_dir() {
            return Err(refuse("is a folder".to_string()));
        }
        if path.metadata().is_ok_and(|m| m.permissions().readonly()) {
            return Err(refuse("is read-only".to_string()));
        }
        if path.metadata().is_ok_and(|m| !m.is_file()) {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| refuse(format!("cannot be written to: {}", e.kind())))?;
            return Ok(Destination {
                file: Some(OutFile::Direct {
                    path: path.to_path_buf(),
                    file,
                }),
            });
        }
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !folder.is_dir() {
            return Err(refuse(format!("no folder {}", folder.display())));
        }
        // The error's kind only: its text names the random temporary file.
        let temp = temp_file_in(folder)
            .map_err(|e| refuse(format!("cannot write in its folder: {}", e.kind())))?;
        Ok(Destination {
            file: Some(OutFile::Replaced {
                path: path.to_path_buf(),
                temp,
            }),
        })
    }

    /// Runs `body` on the destination; an `--out` file is renamed into place once complete.
    pub(crate) fn write_with(
        self,
        body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), Failure> {
        let (path, temp) = match self.file {
            None => return to_stdout(body),
            Some(OutFile::Direct { path, file }) => {
                let name = path.display().to_string();
                let mut sink = io::BufWriter::new(file);
                return body(&mut sink)
                    .and_then(|()| sink.flush())
                    .map_err(|e| write_failure(&name, &e));
            }
            Some(OutFile::Replaced { path, temp }) => (path, temp),
        };
        let name = path.display().to_string();
        let mut sink = io::BufWriter::new(temp);
        body(&mut sink)
            .and_then(|()| sink.flush())
            .map_err(|e| write_failure(&name, &e))?;
        let temp = sink
            .into_inner()
            .map_err(|e| write_failure(&name, e.error()))?;
        temp.persist(&path)
            .map_err(|e| write_failure(&name, &e.error))?;
        Ok(())
    }
}

/// A temporary file in `folder` with the permissions a plain new file gets (the umask's), not
/// the owner-only ones of a temporary file, since it becomes the user's output.
fn temp_file_in(folder: &Path) -> io::Result<tempfile::NamedTempFile> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(".cuplan-out-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(folder)
}

/// Writes the records as JSON Lines (to `--out` or standard output), then the summary as the
/// last line of standard output.
pub(crate) fn emit(
    out: Destination,
    records: &[QueryRecord],
    summary: &Summary,
) -> Result<(), Failure> {
    out.write_with(|sink| {
        for r in records {
            serde_json::to_writer(&mut *sink, r)?;
            sink.write_all(b"\n")?;
        }
        Ok(())
    })?;
    to_stdout(|w| {
        serde_json::to_writer(&mut *w, summary)?;
        w.write_all(b"\n")
    })
}

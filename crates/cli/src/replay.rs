//! `cuplan replay`: a game loop's recorded events (cells blocked and freed, queries asked),
//! replayed in order on a live grid, each query answered on the map as it stood then.
//!
//! The events file is JSON Lines, one object per line: `{"block":[x,y]}`, `{"free":[x,y]}`
//! or `{"query":[sx,sy,gx,gy]}`; blank lines are skipped. The changes between two queries
//! form one tick: they go to the planner in one `update_grid` call, so the JPS+ table of the
//! preprocessed algorithms is repaired once per tick, as a game would do it.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cuplan::grid::{Cell, Change, Grid};
use cuplan::jps::{Algorithm, Planner, Searcher};
use serde_json::Value;

use crate::Failure;
use crate::output::{Destination, QueryRecord, Summary, Tally, emit};

/// Events files larger than this are refused before anything is read: a recording is a few
/// bytes per event, so a bigger file is almost surely the wrong file.
const MAX_EVENTS_BYTES: u64 = 1 << 30;

/// The longest events line read: an event is a few dozen bytes, and lines are read one at a
/// time, so this bounds the memory a pipe (or `/dev/zero`) can make the reader take.
const MAX_LINE_BYTES: u64 = 4096;

/// Arguments of `cuplan replay`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `.map` file: the grid before the first event.
    #[arg(long)]
    map: PathBuf,
    /// The JSON Lines events file.
    #[arg(long, value_name = "FILE")]
    events: PathBuf,
    /// The algorithm: astar, jps, jps-bit, jps-bitprune, jps-bitpre, jps-bitprunepre.
    #[arg(long, default_value = "jps-bit")]
    algo: String,
    /// Write the JSON Lines results here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// One line of the events file.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Event {
    /// A cell change, applied with the rest of its tick before the next query.
    Change(Change),
    /// A query, answered on the grid as it stands after every earlier event.
    Query { start: Cell, goal: Cell },
}

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let out = Destination::prepare(args.out.as_deref())?;
    let algo: Algorithm = args.algo.parse().map_err(Failure::bad_input)?;
    let grid = Grid::read_movingai(&args.map).map_err(Failure::bad_input)?;
    let lines = open_events(&args.events)?;
    let mut replay = Replay::new(Planner::new(grid, algo).map_err(Failure::bad_input)?);
    let source = args.events.display().to_string();
    for (number, line) in numbered_lines(lines) {
        let at = |message: String| Failure::bad_input(format!("{source}:{number}: {message}"));
        let line = line.map_err(at)?;
        if line.trim().is_empty() {
            continue;
        }
        let event = parse_event(&line, replay.planner.grid()).map_err(at)?;
        replay.play(event).map_err(at)?;
    }
    // Everything is checked before anything is written, so a bad line leaves no partial
    // output behind.
    let summary = replay.summary(&args.map);
    emit(out, &replay.records, &summary)
}

/// Opens the events file after checking its size, so an oversized file is refused at once.
fn open_events(path: &Path) -> Result<BufReader<impl Read>, Failure> {
    let cannot =
        |e: std::io::Error| Failure::bad_input(format!("{}: cannot read: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(cannot)?;
    let size = file.metadata().map_err(cannot)?.len();
    if size > MAX_EVENTS_BYTES {
        return Err(Failure::bad_input(format!(
            "{}: {size} bytes: events files are limited to {MAX_EVENTS_BYTES} bytes",
            path.display()
        )));
    }
    // A pipe reports no size, and a file may grow while read: `take` bounds the reading, one
    // byte past the limit so that `numbered_lines` can tell "too long" from "ended there".
    Ok(BufReader::new(file.take(MAX_EVENTS_BYTES + 1)))
}

/// The lines of `reader` with their 1-based numbers, as text without the line end (a line
/// that is not UTF-8, or that goes past [`MAX_EVENTS_BYTES`], is an error item).
fn numbered_lines(
    mut reader: impl BufRead,
) -> impl Iterator<Item = (usize, Result<String, String>)> {
    let (mut number, mut total) = (0, 0);
    std::iter::from_fn(move || {
        let mut bytes = Vec::new();
        match (&mut reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut bytes)
        {
            Ok(0) => None,
            Ok(n) => {
                number += 1;
                total += n as u64;
                if total > MAX_EVENTS_BYTES {
                    let limit = format!("events files are limited to {MAX_EVENTS_BYTES} bytes");
                    return Some((number, Err(limit)));
                }
                if n as u64 > MAX_LINE_BYTES {
                    let limit = format!("line longer than {MAX_LINE_BYTES} bytes");
                    return Some((number, Err(limit)));
                }
                let end = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
                let end = end.strip_suffix(b"\r").unwrap_or(end).len();
                bytes.truncate(end);
                let text = String::from_utf8(bytes).map_err(|e| {
                    format!(
                        "line is not UTF-8 (byte {})",
                        e.utf8_error().valid_up_to() + 1
                    )
                });
                Some((number, text))
            }
            Err(e) => {
                number += 1;
                Some((number, Err(e.to_string())))
            }
        }
    })
}

/// Parses one non-blank line, checking its cells against `grid`'s size.
fn parse_event(line: &str, grid: &Grid) -> Result<Event, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| malformed(&e))?;
    let Value::Object(object) = &value else {
        return Err(format!(
            "expected an object such as {{\"query\":[sx,sy,gx,gy]}}, found {}",
            kind(&value)
        ));
    };
    let mut fields = object.iter();
    let (Some((key, args)), None) = (fields.next(), fields.next()) else {
        return Err(format!(
            "expected exactly one key (block, free or query), found {}",
            object.len()
        ));
    };
    match key.as_str() {
        "block" => Ok(Event::Change(Change::Block(cell_of(key, args, grid)?))),
        "free" => Ok(Event::Change(Change::Free(cell_of(key, args, grid)?))),
        "query" => {
            let [sx, sy, gx, gy] = integers::<4>(key, "[sx, sy, gx, gy]", args)?;
            Ok(Event::Query {
                start: on_map(key, "start", [sx, sy], grid)?,
                goal: on_map(key, "goal", [gx, gy], grid)?,
            })
        }
        other => Err(format!(
            "unknown key {other:?}: expected block, free or query"
        )),
    }
}

/// serde_json's message without its position: a line is one JSON text, and the line number
/// is given already; the column is kept.
fn malformed(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let message = message.strip_suffix(&position).unwrap_or(&message);
    format!("malformed JSON at column {}: {message}", e.column())
}

/// What kind of JSON value `v` is, for messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The cell of a `block` or `free` event.
fn cell_of(key: &str, args: &Value, grid: &Grid) -> Result<Cell, String> {
    on_map(key, "cell", integers::<2>(key, "[x, y]", args)?, grid)
}

/// The `N` integers of an event's array (`shape` shows what it should look like).
fn integers<const N: usize>(key: &str, shape: &str, args: &Value) -> Result<[i128; N], String> {
    let Value::Array(items) = args else {
        return Err(format!(
            "{key:?} takes an array {shape}, found {}",
            kind(args)
        ));
    };
    if items.len() != N {
        return Err(format!(
            "{key:?} takes {N} integers {shape}, found {}",
            items.len()
        ));
    }
    let mut out = [0; N];
    for (slot, item) in out.iter_mut().zip(items) {
        *slot =
            integer(item).ok_or_else(|| format!("{key:?} takes integers {shape}, found {item}"))?;
    }
    Ok(out)
}

/// A JSON number that is an integer (`3`, not `3.0` or `"3"`), as a type that holds any.
fn integer(v: &Value) -> Option<i128> {
    v.as_u64()
        .map(i128::from)
        .or_else(|| v.as_i64().map(i128::from))
}

/// `xy` as a cell of `grid`, or why it is not one.
fn on_map(key: &str, what: &str, [x, y]: [i128; 2], grid: &Grid) -> Result<Cell, String> {
    let (width, height) = (grid.width(), grid.height());
    match (u32::try_from(x), u32::try_from(y)) {
        (Ok(cx), Ok(cy)) if cx < width && cy < height => Ok(Cell::new(cx, cy)),
        _ => Err(format!(
            "{key:?} {what} ({x}, {y}) is off the {width}x{height} map"
        )),
    }
}

/// The live state of a replay: the planner on the grid as it stands, the changes of the
/// current tick not yet applied, and the answers so far.
struct Replay {
    planner: Planner,
    searcher: Searcher,
    tick: Vec<Change>,
    records: Vec<QueryRecord>,
    tally: Tally,
    /// Time spent applying ticks (the grid edits and the table repairs).
    upkeep: Duration,
}

impl Replay {
    fn new(planner: Planner) -> Replay {
        Replay {
            planner,
            searcher: Searcher::new(),
            tick: Vec::new(),
            records: Vec::new(),
            tally: Tally::default(),
            upkeep: Duration::ZERO,
        }
    }

    /// Plays one event: a change joins the current tick; a query first applies the tick.
    fn play(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::Change(change) => {
                self.tick.push(change);
                Ok(())
            }
            Event::Query { start, goal } => {
                self.apply_tick()?;
                self.answer(start, goal)
            }
        }
    }

    /// Applies the pending changes in one `update_grid` call (one table repair).
    fn apply_tick(&mut self) -> Result<(), String> {
        if self.tick.is_empty() {
            return Ok(());
        }
        let started = Instant::now();
        let tick = &self.tick;
        // Cells were checked against the map when parsed, so `apply` cannot refuse them.
        let applied = self.planner.update_grid(|g| g.apply(tick).map(drop));
        self.upkeep += started.elapsed();
        self.tick.clear();
        applied.map_err(|e| e.to_string())
    }

    /// Answers one query on the grid as it stands, with the one reused searcher.
    fn answer(&mut self, start: Cell, goal: Cell) -> Result<(), String> {
        let grid = self.planner.grid();
        for (what, c) in [("start", start), ("goal", goal)] {
            if !grid.is_free(c) {
                return Err(format!(
                    "\"query\" {what} ({}, {}) is blocked at this point of the replay",
                    c.x, c.y
                ));
            }
        }
        let started = Instant::now();
        let path = self
            .planner
            .search(&mut self.searcher, start, goal)
            .map_err(|e| e.to_string())?;
        let took = started.elapsed();
        let answer = path
            .as_ref()
            .map(|p| (p.cost.to_f64(), p.waypoints.as_slice()));
        self.tally.add(answer.map(|(cost, _)| cost), took);
        let rank = self.records.len();
        self.records
            .push(QueryRecord::new(rank, start, goal, answer));
        Ok(())
    }

    /// The closing summary: the queries run one after another, so their wall time is the sum
    /// of their search times; `precompute_s` is the table build plus every tick's upkeep.
    fn summary(&self, map: &Path) -> Summary {
        Summary::of_searches(
            self.planner.algorithm(),
            map,
            &self.tally,
            self.tally.busy().as_secs_f64(),
            (self.planner.preprocess_time() + self.upkeep).as_secs_f64(),
        )
    }
}

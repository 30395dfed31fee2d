//! The `cuplan` binary: inspect maps, answer scenario files, replay a game loop's recorded
//! events, run MAPF solvers.
//!
//! Every command reads Moving AI files, writes JSON (Lines) results and, on bad input, prints
//! one line to stderr and exits with status 2. `cuplan mapf` exits 1 when the solver ran to
//! the end without a solution, and 3 when its `--time-limit` or `--memory-limit` was reached
//! first (never reported as "no solution"). `cuplan replay` reads a JSON Lines events file
//! (`{"block":[x,y]}`, `{"free":[x,y]}`, `{"query":[sx,sy,gx,gy]}`, one per line), applies the
//! changes between two queries as one tick through `Planner::update_grid` and answers each
//! query on the map as it stands then, with the same output as `solve`.

#![forbid(unsafe_code)]

mod batch;
mod budget;
mod info;
mod mapf;
mod output;
mod replay;
mod solve;

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Optimal path planning on grid maps.
#[derive(Debug, Parser)]
#[command(name = "cuplan", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Size, free cells and components of a `.map` file, with an optional ASCII preview.
    Info(info::Args),
    /// Answer every query of a `.scen` file with an 8-connected optimal search.
    Solve(solve::Args),
    /// Answer every query of a `.scen` file with 4-connected moves (batched wavefront).
    Batch(batch::Args),
    /// Replay a game loop's recorded events (cells blocked and freed, queries) on a live map.
    Replay(replay::Args),
    /// Solve a multi-agent instance: the first K agents of a MAPF `.scen` file.
    Mapf(mapf::Args),
}

/// A failure with its exit status: 1 for "ran to the end and found nothing" (or an output
/// that could not be written), 2 for bad input, 3 for a limit reached (time, memory, nodes)
/// before an answer was found.
#[derive(Debug)]
pub(crate) struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    pub(crate) fn bad_input(err: impl std::fmt::Display) -> Failure {
        Failure {
            code: 2,
            message: err.to_string(),
        }
    }

    pub(crate) fn not_found(message: impl Into<String>) -> Failure {
        Failure {
            code: 1,
            message: message.into(),
        }
    }

    /// A time, memory or node limit reached before an answer: never reported as "no
    /// solution", since a larger budget might find one.
    pub(crate) fn limit(message: impl Into<String>) -> Failure {
        Failure {
            code: 3,
            message: message.into(),
        }
    }

    /// The end of a command whose reader went away (a closed pipe): exit 0, nothing printed,
    /// as Unix tools behave under `| head`.
    pub(crate) fn quiet() -> Failure {
        Failure {
            code: 0,
            message: String::new(),
        }
    }

    pub(crate) fn io(err: impl std::fmt::Display) -> Failure {
        Failure {
            code: 1,
            message: err.to_string(),
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // clap's own usage errors: keep them to one line too.
            let first = e
                .to_string()
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .to_string();
            report(&first);
            return ExitCode::from(2);
        }
        Err(e) => {
            // --help and --version: their text is the output, so a failed write is a failure.
            let text = e.render().to_string();
            return match output::to_stdout(|w| w.write_all(text.as_bytes())) {
                Ok(()) => ExitCode::SUCCESS,
                Err(f) => finish(f),
            };
        }
    };
    let result = match cli.command {
        Command::Info(a) => info::run(&a),
        Command::Solve(a) => solve::run(&a),
        Command::Batch(a) => batch::run(&a),
        Command::Replay(a) => replay::run(&a),
        Command::Mapf(a) => mapf::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => finish(f),
    }
}

/// The exit status of a failure, after its one line on stderr (none for a quiet one).
fn finish(f: Failure) -> ExitCode {
    if !f.message.is_empty() {
        report(&format!("error: {}", f.message.replace('\n', " ")));
    }
    ExitCode::from(f.code)
}

/// One line on stderr; `eprintln!` would panic where stderr cannot be written (a full disk),
/// and there is nowhere left to report that.
fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

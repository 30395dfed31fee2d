//! `cuplan mapf`: the first K agents of a MAPF scenario through one solver.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cuplan::mapf::{Instance, LowLevel, SolveOutcome, Solver, SolverConfig, solve};
use serde::Serialize;

use crate::Failure;

/// Arguments of `cuplan mapf`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `.map` file.
    #[arg(long)]
    map: PathBuf,
    /// The MAPF `.scen` file; agent i takes query line i.
    #[arg(long)]
    scen: PathBuf,
    /// Number of agents (the first K lines).
    #[arg(long, value_name = "K")]
    agents: usize,
    /// The solver: pp, cbs or lacam.
    #[arg(long, default_value = "lacam")]
    solver: String,
    /// Give up after this many seconds.
    #[arg(
        long,
        value_name = "SEC",
        default_value_t = 60.0,
        allow_negative_numbers = true
    )]
    time_limit: f64,
    /// Low-level search of pp and cbs: sparse (own space-time A*) or wavefront (the
    /// reservation table and the space-time wavefront of the crates below).
    #[arg(long, default_value = "sparse")]
    low_level: String,
    /// Seed for every random choice (results are deterministic for a seed).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write the solution JSON here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
struct Report {
    map: String,
    scen: String,
    solver: String,
    agents: usize,
    soc: u64,
    makespan: u64,
    lb: u64,
    runtime_s: f64,
    paths: Vec<Vec<[u32; 2]>>,
}

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let solver: Solver = args.solver.parse().map_err(Failure::bad_input)?;
    let low_level: LowLevel = args.low_level.parse().map_err(Failure::bad_input)?;
    if !(args.time_limit.is_finite() && args.time_limit > 0.0) {
        return Err(Failure::bad_input(format!(
            "--time-limit must be a positive number of seconds, got {}",
            args.time_limit
        )));
    }
    let instance =
        Instance::from_moving_ai(&args.map, &args.scen, args.agents).map_err(Failure::bad_input)?;
    let config = SolverConfig {
        time_limit: Duration::from_secs_f64(args.time_limit),
        seed: args.seed,
        low_level,
        ..SolverConfig::default()
    };
    let started = Instant::now();
    let outcome = solve(&instance, solver, &config).map_err(Failure::bad_input)?;
    let runtime_s = started.elapsed().as_secs_f64();
    let solution = match outcome {
        SolveOutcome::Solved(s) => s,
        SolveOutcome::TimedOut => {
            return Err(Failure::limit(format!(
                "{solver}: time limit of {} s reached before a solution was found",
                args.time_limit
            )));
        }
        SolveOutcome::NoSolution(why) => {
            return Err(Failure::not_found(format!("{solver}: no solution: {why}")));
        }
    };
    let report = Report {
        map: args.map.display().to_string(),
        scen: args.scen.display().to_string(),
        solver: solver.to_string(),
        agents: args.agents,
        soc: solution.soc(),
        makespan: solution.makespan(),
        lb: instance.lower_bound(),
        runtime_s,
        paths: solution
            .paths
            .iter()
            .map(|p| p.iter().map(|c| [c.x, c.y]).collect())
            .collect(),
    };
    let text = serde_json::to_string(&report).map_err(Failure::io)?;
    match &args.out {
        Some(p) => {
            std::fs::write(p, text + "\n").map_err(|e| Failure::io(format!("{}: {e}", p.display())))
        }
        None => {
            println!("{text}");
            Ok(())
        }
    }
}

//! `cuplan mapf`: the first K agents of a MAPF scenario through one solver.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use cuplan::mapf::{
    Improvement, Instance, Limit, LowLevel, SolveOutcome, Solver, SolverConfig, solve_with_progress,
};
use serde::Serialize;

use crate::Failure;
use crate::budget::MemoryLimit;
use crate::output::Destination;

/// Arguments of `cuplan mapf`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `.map` file.
    #[arg(long)]
    map: PathBuf,
    /// The MAPF `.scen` file; agent i takes query line i.
    #[arg(long)]
    scen: PathBuf,
    /// Number of agents (the first K lines; at least 1).
    #[arg(long, value_name = "K")]
    agents: usize,
    /// The solver: pp, cbs, eecbs or lacam.
    #[arg(long, default_value = "lacam")]
    solver: String,
    /// eecbs: the factor W (1 to 1000) its sum of costs may exceed the optimum by; the
    /// output's `proven_lb` is the bound it proved (soc <= W * proven_lb).
    #[arg(long, value_name = "W", default_value_t = 1.2)]
    suboptimality: f64,
    /// Give up after this many seconds (exit status 3); values too large for the clock
    /// (1e20, inf) mean no limit.
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
    /// Memory budget of the solver (distance maps, search trees, reservations), e.g. 512MiB
    /// or 2GiB; reaching it is exit status 3. Default: half the available memory, at most
    /// 2 GiB.
    #[arg(long, value_name = "SIZE")]
    memory_limit: Option<MemoryLimit>,
    /// Seed for every random choice (results are deterministic for a seed).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// lacam: stop at the first solution instead of improving it until --time-limit.
    #[arg(long)]
    first_solution: bool,
    /// Print every better solution to standard error as it is found (time, sum of costs,
    /// sum of costs over the lower bound, and what found it).
    #[arg(long, short)]
    verbose: bool,
    /// Write the solution JSON here instead of standard output.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

/// `--time-limit` as a duration: positive seconds; a value too large for a `Duration`
/// (`1e20`, `inf`) is no limit at all, `Duration::MAX`.
fn time_limit(seconds: f64) -> Result<Duration, Failure> {
    if seconds.is_nan() || seconds <= 0.0 {
        return Err(Failure::bad_input(format!(
            "--time-limit must be a positive number of seconds, got {seconds}"
        )));
    }
    Ok(Duration::try_from_secs_f64(seconds).unwrap_or(Duration::MAX))
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
    /// A proven lower bound on the optimal sum of costs: the optimum for cbs, the bound
    /// eecbs proved, else `lb`.
    proven_lb: u64,
    runtime_s: f64,
    /// Time to the first solution and to the one reported.
    first_solution_s: f64,
    best_solution_s: f64,
    /// The first solution's sum of costs.
    first_soc: u64,
    /// Every improvement: `[seconds, soc]`, first solution first.
    anytime: Vec<(f64, u64)>,
    paths: Vec<Vec<[u32; 2]>>,
}

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let out = Destination::prepare(args.out.as_deref())?;
    let solver: Solver = args.solver.parse().map_err(Failure::bad_input)?;
    let low_level: LowLevel = args.low_level.parse().map_err(Failure::bad_input)?;
    let time_limit = time_limit(args.time_limit)?;
    if args.agents == 0 {
        return Err(Failure::bad_input(
            "--agents must be at least 1 (an instance without agents has nothing to solve)",
        ));
    }
    let instance =
        Instance::from_moving_ai(&args.map, &args.scen, args.agents).map_err(Failure::bad_input)?;
    let config = SolverConfig::default()
        .with_time_limit(time_limit)
        .with_seed(args.seed)
        .with_low_level(low_level)
        .with_memory_limit(MemoryLimit::or_default(args.memory_limit).bytes())
        .with_first_solution(args.first_solution)
        .with_suboptimality(args.suboptimality);
    let lb = instance.lower_bound();
    let mut anytime: Vec<(f64, u64)> = Vec::new();
    let mut proven_lb = lb;
    let mut record = |found: &Improvement| {
        proven_lb = found.lower_bound;
        let at = found.elapsed.as_secs_f64();
        if args.verbose {
            let ratio = found.soc as f64 / lb.max(1) as f64;
            eprintln!(
                "{at:9.3} s  soc {:>10}  soc/lb {ratio:.4}  by {}",
                found.soc, found.by
            );
        }
        anytime.push((at, found.soc));
    };
    let started = Instant::now();
    let outcome =
        solve_with_progress(&instance, solver, &config, &mut record).map_err(Failure::bad_input)?;
    let runtime_s = started.elapsed().as_secs_f64();
    let solution = match outcome {
        SolveOutcome::Solved(s) => s,
        SolveOutcome::LimitReached(limit) => {
            let option = match limit {
                Limit::Time { .. } => "--time-limit",
                _ => "--memory-limit",
            };
            return Err(Failure::limit(format!(
                "{solver}: {limit} before a solution was found (a larger {option} may find one)"
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
        lb,
        proven_lb,
        runtime_s,
        first_solution_s: anytime.first().map_or(runtime_s, |a| a.0),
        best_solution_s: anytime.last().map_or(runtime_s, |a| a.0),
        first_soc: anytime.first().map_or(solution.soc(), |a| a.1),
        anytime,
        paths: solution
            .paths
            .iter()
            .map(|p| p.iter().map(|c| [c.x, c.y]).collect())
            .collect(),
    };
    out.write_with(|w| {
        serde_json::to_writer(&mut *w, &report)?;
        w.write_all(b"\n")
    })
}

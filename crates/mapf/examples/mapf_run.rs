//! Runs one solver on the first k agents of a MAPF scenario and prints one summary line:
//! `cargo run --release -p cuplan-mapf --example mapf_run -- MAP SCEN K SOLVER [SECONDS [LOW_LEVEL]]`
//! (`LOW_LEVEL`: `sparse`, the default, or `wavefront`).

use std::time::{Duration, Instant};

use cuplan_mapf::{Instance, LowLevel, SolveOutcome, Solver, SolverConfig, solve};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    anyhow::ensure!(
        args.len() >= 4,
        "usage: MAP SCEN K SOLVER [SECONDS [LOW_LEVEL]]"
    );
    let k: usize = args[2].parse()?;
    let solver: Solver = args[3].parse()?;
    let seconds: f64 = args.get(4).map_or(Ok(60.0), |s| s.parse())?;
    let low_level: LowLevel = args.get(5).map_or(Ok(LowLevel::default()), |s| s.parse())?;
    let instance = Instance::from_moving_ai(&args[0], &args[1], k)?;
    let config = SolverConfig::default()
        .with_time_limit(Duration::from_secs_f64(seconds))
        .with_low_level(low_level);
    let lb = instance.lower_bound();
    let clock = Instant::now();
    let outcome = solve(&instance, solver, &config)?;
    let runtime = clock.elapsed().as_secs_f64();
    let map = std::path::Path::new(&args[0])
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let map = map.unwrap_or_default();
    match outcome {
        SolveOutcome::Solved(solution) => {
            let valid = solution
                .validate(&instance)
                .map_or_else(|v| v.to_string(), |()| "valid".into());
            println!(
                "{map} {solver}/{low_level} k={k} solved {runtime:.3}s soc={} lb={lb} soc/lb={:.3} makespan={} {valid}",
                solution.soc(),
                solution.soc() as f64 / lb.max(1) as f64,
                solution.makespan()
            );
        }
        SolveOutcome::NoSolution(why) => {
            println!("{map} {solver} k={k} no-solution {runtime:.3}s: {why}")
        }
        SolveOutcome::LimitReached(limit) => {
            println!("{map} {solver} k={k} limit {runtime:.3}s: {limit}")
        }
    }
    Ok(())
}

//! `cargo xtask bench mapf`: every solver on the MAPF benchmark, increasing the number of agents
//! until it fails, plus the prioritized-planning comparison with the Python package's figure.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cuplan::grid::{Cell, generate};
use cuplan::mapf::{Instance, LowLevel, SolveOutcome, Solver, SolverConfig, solve};
use rand::{SeedableRng, seq::SliceRandom};
use rand_chacha::ChaCha8Rng;

/// One solver run.
#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct MapfRow {
    pub(crate) map: String,
    pub(crate) scen: String,
    pub(crate) solver: String,
    pub(crate) agents: usize,
    pub(crate) solved: bool,
    pub(crate) runtime_s: f64,
    pub(crate) soc: Option<u64>,
    pub(crate) lb: u64,
    pub(crate) soc_over_lb: Option<f64>,
    pub(crate) makespan: Option<u64>,
}

/// What to run.
pub(crate) struct MapfPlan<'a> {
    pub(crate) data: &'a Path,
    pub(crate) solvers: &'a [Solver],
    pub(crate) maps: Option<&'a [String]>,
    pub(crate) time_limit: Duration,
    pub(crate) low_level: LowLevel,
}

/// Agent counts tried per solver; each series stops at the first failure.
fn agent_steps(solver: Solver) -> &'static [usize] {
    match solver {
        Solver::Cbs => &[5, 10, 15, 20, 25, 30, 35, 40, 50, 60],
        _ => &[10, 50, 100, 200, 400, 600, 800, 1000],
    }
}

pub(crate) fn run(
    plan: &MapfPlan<'_>,
    progress: &indicatif::ProgressBar,
) -> anyhow::Result<Vec<MapfRow>> {
    let mut rows = Vec::new();
    for (map, scen) in scenarios(plan)? {
        let scen_lines = std::fs::read_to_string(&scen)?
            .lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .count();
        for &solver in plan.solvers {
            for &k in agent_steps(solver) {
                let k = k.min(scen_lines);
                progress.set_message(format!("{} {solver} k={k}", name(&map)));
                let instance = Instance::from_moving_ai(&map, &scen, k)?;
                let row = run_one(&instance, solver, plan, &name(&map), &name(&scen))?;
                let solved = row.solved;
                rows.push(row);
                if !solved || k == scen_lines {
                    break;
                }
            }
        }
        progress.inc(1);
    }
    Ok(rows)
}

fn run_one(
    instance: &Instance,
    solver: Solver,
    plan: &MapfPlan<'_>,
    map: &str,
    scen: &str,
) -> anyhow::Result<MapfRow> {
    let config = SolverConfig::default()
        .with_time_limit(plan.time_limit)
        .with_low_level(plan.low_level);
    let t = Instant::now();
    let outcome = solve(instance, solver, &config)?;
    let runtime_s = t.elapsed().as_secs_f64();
    let lb = instance.lower_bound();
    let solution = match outcome {
        SolveOutcome::Solved(s) => {
            s.validate(instance)
                .map_err(|v| anyhow::anyhow!("{map} {solver}: invalid solution: {v}"))?;
            Some(s)
        }
        _ => None,
    };
    Ok(MapfRow {
        map: map.to_string(),
        scen: scen.to_string(),
        solver: solver.to_string(),
        agents: instance.num_agents(),
        solved: solution.is_some(),
        runtime_s,
        soc: solution.as_ref().map(|s| s.soc()),
        lb,
        soc_over_lb: solution.as_ref().map(|s| s.soc() as f64 / lb.max(1) as f64),
        makespan: solution.as_ref().map(|s| s.makespan()),
    })
}

/// `(map, scen)` pairs: each map with its `-random-1` scenario.
pub(crate) fn scenarios(plan: &MapfPlan<'_>) -> anyhow::Result<Vec<(PathBuf, PathBuf)>> {
    let maps_dir = plan.data.join("maps");
    let mut maps: Vec<PathBuf> = std::fs::read_dir(&maps_dir)
        .map_err(|e| anyhow::anyhow!("{}: {e}", maps_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .filter(|p| {
            plan.maps
                .is_none_or(|keep| keep.iter().any(|k| name(p) == *k))
        })
        .collect();
    maps.sort();
    Ok(maps
        .into_iter()
        .filter_map(|m| {
            let scen = plan
                .data
                .join("scen-random")
                .join(format!("{}-random-1.scen", name(&m)));
            scen.is_file().then_some((m, scen))
        })
        .collect())
}

fn name(p: &Path) -> String {
    p.file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
}

/// The published Python cuplan figure's setting: 128 agents on a 64² map with 5 % obstacles.
pub(crate) fn pp_reference_row(plan: &MapfPlan<'_>) -> anyhow::Result<MapfRow> {
    let grid = Arc::new(generate::random(64, 64, 0.05, 11)?);
    let largest = grid.components().largest();
    let mut free: Vec<Cell> = (0..64)
        .flat_map(|y| (0..64).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.components().of(&grid, c) == largest && largest.is_some())
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    free.shuffle(&mut rng);
    let starts = free[..128].to_vec();
    let goals = free[128..256].to_vec();
    let instance = Instance::new(grid, starts, goals)?;
    run_one(
        &instance,
        Solver::Pp,
        plan,
        "random64-5%",
        "128 random agents",
    )
}

pub(crate) fn table(rows: &[MapfRow]) -> String {
    let mut out = format!(
        "{:<28} {:<7} {:>6} {:>7} {:>10} {:>9} {:>9} {:>8}\n",
        "map", "solver", "agents", "solved", "runtime s", "soc", "lb", "soc/lb"
    );
    for r in rows {
        out += &format!(
            "{:<28} {:<7} {:>6} {:>7} {:>10.3} {:>9} {:>9} {:>8}\n",
            r.map,
            r.solver,
            r.agents,
            if r.solved { "yes" } else { "no" },
            r.runtime_s,
            r.soc.map_or("-".into(), |s| s.to_string()),
            r.lb,
            r.soc_over_lb.map_or("-".into(), |s| format!("{s:.4}")),
        );
    }
    out
}

//! `cargo xtask bench mapf`: every solver on the MAPF benchmark, increasing the number of agents
//! until it fails, plus the prioritized-planning comparison with the Python package's figure.
//!
//! LaCAM runs anytime (unless `--first-solution`): one run gives both its first solution (the
//! vanilla LaCAM answer: the search up to it is the first-solution mode's) and the best at the
//! time limit, printed beside lacam3's anytime figure where one was measured.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cuplan::grid::{Cell, generate};
use cuplan::mapf::{Instance, LowLevel, SolveOutcome, Solver, SolverConfig, solve_with_progress};
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
    /// Time to the first solution and its SoC / LB (anytime LaCAM; the answer for the others).
    pub(crate) first_solution_s: Option<f64>,
    pub(crate) first_soc_over_lb: Option<f64>,
    /// lacam3's anytime SoC / LB at 10 s on this map and agent count, where measured.
    pub(crate) lacam3_soc_over_lb: Option<f64>,
}

/// lacam3 (Okumura, AAMAS 2024) anytime at a 10 s limit, first `k` agents of the `-random-1`
/// scen, measured side by side on this machine kind (issue 21).
const LACAM3: &[(&str, usize, f64)] = &[
    ("den520d", 1000, 1.05),
    ("warehouse-10-20-10-2-1", 1000, 1.98),
    ("ost003d", 1000, 1.32),
    ("random-64-64-10", 1000, 1.29),
    ("lak303d", 1000, 1.43),
];

/// What to run.
pub(crate) struct MapfPlan<'a> {
    pub(crate) data: &'a Path,
    pub(crate) solvers: &'a [Solver],
    pub(crate) maps: Option<&'a [String]>,
    pub(crate) time_limit: Duration,
    pub(crate) low_level: LowLevel,
    /// LaCAM stops at its first solution.
    pub(crate) first_solution: bool,
    /// Agent counts for every solver instead of the defaults.
    pub(crate) agents: Option<&'a [usize]>,
}

/// Agent counts tried per solver; each series stops at the first failure. Anytime LaCAM
/// uses its whole time limit per run, so it runs the counts of the lacam3 comparison.
fn agent_steps(solver: Solver, first_solution: bool) -> &'static [usize] {
    match solver {
        Solver::Cbs => &[5, 10, 15, 20, 25, 30, 35, 40, 50, 60],
        Solver::Lacam if !first_solution => &[200, 500, 1000],
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
            let steps = plan
                .agents
                .unwrap_or_else(|| agent_steps(solver, plan.first_solution));
            for &k in steps {
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
        .with_low_level(plan.low_level)
        .with_first_solution(plan.first_solution);
    let t = Instant::now();
    let mut first = None;
    let outcome = solve_with_progress(instance, solver, &config, &mut |found| {
        first.get_or_insert((found.elapsed.as_secs_f64(), found.soc));
    })?;
    let runtime_s = t.elapsed().as_secs_f64();
    let lb = instance.lower_bound();
    let ratio = |soc: u64| soc as f64 / lb.max(1) as f64;
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
        soc_over_lb: solution.as_ref().map(|s| ratio(s.soc())),
        makespan: solution.as_ref().map(|s| s.makespan()),
        first_solution_s: first.map(|f| f.0),
        first_soc_over_lb: first.map(|f| ratio(f.1)),
        lacam3_soc_over_lb: LACAM3
            .iter()
            .find(|&&(m, k, _)| m == map && k == instance.num_agents())
            .map(|r| r.2),
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
    let ratio = |r: Option<f64>| r.map_or("-".into(), |s| format!("{s:.4}"));
    let mut out = format!(
        "{:<28} {:<7} {:>6} {:>7} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8}\n",
        "map",
        "solver",
        "agents",
        "solved",
        "runtime s",
        "soc",
        "lb",
        "soc/lb",
        "first s",
        "first/lb",
        "lacam3"
    );
    for r in rows {
        out += &format!(
            "{:<28} {:<7} {:>6} {:>7} {:>10.3} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8}\n",
            r.map,
            r.solver,
            r.agents,
            if r.solved { "yes" } else { "no" },
            r.runtime_s,
            r.soc.map_or("-".into(), |s| s.to_string()),
            r.lb,
            ratio(r.soc_over_lb),
            r.first_solution_s.map_or("-".into(), |s| format!("{s:.3}")),
            ratio(r.first_soc_over_lb),
            ratio(r.lacam3_soc_over_lb),
        );
    }
    out
}

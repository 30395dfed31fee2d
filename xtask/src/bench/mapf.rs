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
    /// The lower bound on the optimum the solver proved with its best solution (the optimum
    /// for CBS, `soc / w` or better for EECBS; `lb` where a solver proves nothing more).
    pub(crate) proven_lb: Option<u64>,
    pub(crate) soc_over_lb: Option<f64>,
    pub(crate) makespan: Option<u64>,
    /// Time to the first solution and its SoC / LB (anytime LaCAM; the answer for the others).
    pub(crate) first_solution_s: Option<f64>,
    pub(crate) first_soc_over_lb: Option<f64>,
    /// lacam3's anytime SoC / LB at 10 s on this map and agent count, where measured.
    pub(crate) lacam3_soc_over_lb: Option<f64>,
    /// Every improvement as `(seconds, SoC / LB)`, first solution first.
    pub(crate) curve: Vec<(f64, f64)>,
    /// Peak resident memory of the run (the crowd case only: it runs with the process's
    /// peak reset first).
    pub(crate) peak_rss_mib: Option<f64>,
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
    /// The `-random-N` scenarios run on each map.
    pub(crate) scens: &'a [u32],
    /// Memory budget of every run, in bytes.
    pub(crate) memory_limit: u64,
    /// EECBS's factor.
    pub(crate) suboptimality: f64,
}

/// Agent counts tried per solver; each series stops at the first failure. Anytime LaCAM
/// uses its whole time limit per run, so it runs the counts of the lacam3 comparison.
fn agent_steps(solver: Solver, first_solution: bool) -> &'static [usize] {
    match solver {
        Solver::Cbs => &[5, 10, 15, 20, 25, 30, 35, 40, 50, 60, 70, 80, 90, 100],
        Solver::Eecbs => &[50, 100, 150, 200, 250, 280, 300, 350, 400],
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
        .with_first_solution(plan.first_solution)
        .with_memory_limit(plan.memory_limit)
        .with_suboptimality(plan.suboptimality);
    let lb = instance.lower_bound();
    let ratio = |soc: u64| soc as f64 / lb.max(1) as f64;
    let t = Instant::now();
    let mut first = None;
    let mut curve = Vec::new();
    let mut proven_lb = None;
    let outcome = solve_with_progress(instance, solver, &config, &mut |found| {
        proven_lb = Some(found.lower_bound);
        let at = found.elapsed.as_secs_f64();
        first.get_or_insert((at, found.soc));
        curve.push((at, ratio(found.soc)));
    })?;
    let runtime_s = t.elapsed().as_secs_f64();
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
        proven_lb: proven_lb.filter(|_| solution.is_some()),
        soc_over_lb: solution.as_ref().map(|s| ratio(s.soc())),
        makespan: solution.as_ref().map(|s| s.makespan()),
        first_solution_s: first.map(|f| f.0),
        first_soc_over_lb: first.map(|f| ratio(f.1)),
        lacam3_soc_over_lb: LACAM3
            .iter()
            .find(|&&(m, k, _)| m == map && k == instance.num_agents())
            .map(|r| r.2),
        curve,
        peak_rss_mib: None,
    })
}

/// The map of issue 21's crowd case, which has no scenario: agents at random cells.
pub(crate) const CROWD_MAP: &str = "warehouse-20-40-10-2-2";

/// Memory budget of the crowd case's solver: issue 21's ceiling for the whole process is
/// 1 GB, and the process holds the grid, the instance and the allocator's slack beside what
/// the solver charges, so the solver gets 940 MiB (986 MB). Below ~930 MiB the refiner's
/// share no longer fits beside the maps and LaCAM's first search, and nothing improves.
pub(crate) const CROWD_MEMORY: u64 = 940 << 20;

/// The crowd case: `agents` agents at seeded random distinct cells of the largest component
/// of [`CROWD_MAP`], one anytime LaCAM run of `time_limit` within [`CROWD_MEMORY`], with its
/// peak resident memory. `None` when the map is not in the data.
pub(crate) fn crowd_row(
    plan: &MapfPlan<'_>,
    agents: usize,
    time_limit: Duration,
) -> anyhow::Result<Option<MapfRow>> {
    let path = plan.data.join("maps").join(format!("{CROWD_MAP}.map"));
    if !path.is_file() {
        return Ok(None);
    }
    let grid = Arc::new(cuplan::grid::Grid::read_movingai(&path)?);
    let instance = random_instance(grid, agents, 21)?;
    let plan = MapfPlan {
        time_limit,
        memory_limit: CROWD_MEMORY,
        ..*plan
    };
    let reset = peak_rss::reset();
    let mut row = run_one(
        &instance,
        Solver::Lacam,
        &plan,
        CROWD_MAP,
        &format!("{agents} random agents"),
    )?;
    row.peak_rss_mib = reset.ok().and_then(|()| peak_rss::mib());
    Ok(Some(row))
}

/// `agents` agents on `grid` with distinct starts and distinct goals drawn from its largest
/// component, seeded.
fn random_instance(
    grid: Arc<cuplan::grid::Grid>,
    agents: usize,
    seed: u64,
) -> anyhow::Result<Instance> {
    let largest = grid.components().largest();
    let mut free: Vec<Cell> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .filter(|&c| largest.is_some() && grid.components().of(&grid, c) == largest)
        .collect();
    anyhow::ensure!(
        free.len() >= 2 * agents,
        "{agents} agents need {} free cells, the largest component has {}",
        2 * agents,
        free.len()
    );
    free.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let starts = free[..agents].to_vec();
    let goals = free[agents..2 * agents].to_vec();
    Ok(Instance::new(grid, starts, goals)?)
}

/// The crowd row in words: time to the first solution, peak memory and the anytime curve.
pub(crate) fn crowd_report(row: &MapfRow) -> String {
    let mut out = format!(
        "crowd: {} {}: first solution {} s, peak RSS {} MiB; SoC/LB by time:",
        row.map,
        row.scen,
        row.first_solution_s
            .map_or("-".into(), |s| format!("{s:.2}")),
        row.peak_rss_mib.map_or("-".into(), |m| format!("{m:.0}")),
    );
    for (at, ratio) in &row.curve {
        out += &format!(" {at:.1}s:{ratio:.4}");
    }
    out
}

/// The process's peak resident set (Linux `VmHWM`), reset through `/proc/self/clear_refs` so
/// one case can be measured inside a longer run.
mod peak_rss {
    pub(super) fn reset() -> std::io::Result<()> {
        std::fs::write("/proc/self/clear_refs", "5")
    }

    pub(super) fn mib() -> Option<f64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib / 1024.0)
    }
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
        .flat_map(|m| {
            plan.scens.iter().filter_map(move |n| {
                let scen = plan
                    .data
                    .join("scen-random")
                    .join(format!("{}-random-{n}.scen", name(&m)));
                scen.is_file().then(|| (m.clone(), scen))
            })
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
    let instance = random_instance(grid, 128, 5)?;
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
        "{:<28} {:<7} {:>6} {:>7} {:>10} {:>9} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8}\n",
        "map",
        "solver",
        "agents",
        "solved",
        "runtime s",
        "soc",
        "lb",
        "proven",
        "soc/lb",
        "first s",
        "first/lb",
        "lacam3"
    );
    for r in rows {
        // The map alone for its `-random-1` scenario (the default), else the scenario.
        let scenario = if r.scen == format!("{}-random-1", r.map) {
            &r.map
        } else {
            &r.scen
        };
        out += &format!(
            "{:<28} {:<7} {:>6} {:>7} {:>10.3} {:>9} {:>9} {:>9} {:>8} {:>8} {:>9} {:>8}\n",
            scenario,
            r.solver,
            r.agents,
            if r.solved { "yes" } else { "no" },
            r.runtime_s,
            r.soc.map_or("-".into(), |s| s.to_string()),
            r.lb,
            r.proven_lb.map_or("-".into(), |b| b.to_string()),
            ratio(r.soc_over_lb),
            r.first_solution_s.map_or("-".into(), |s| format!("{s:.3}")),
            ratio(r.first_soc_over_lb),
            ratio(r.lacam3_soc_over_lb),
        );
    }
    out
}

/// Solvers side by side: for each scenario, the most agents each solver solved within the
/// limit (its series stops at its first failure), with that run's time and SoC / proven
/// bound. The counts the MAPF issues set targets on, one column per solver.
pub(crate) fn most_solved(rows: &[MapfRow]) -> String {
    let mut solvers: Vec<&str> = Vec::new();
    let mut scenarios: Vec<&str> = Vec::new();
    for r in rows {
        if !solvers.contains(&r.solver.as_str()) {
            solvers.push(&r.solver);
        }
        if !scenarios.contains(&r.scen.as_str()) {
            scenarios.push(&r.scen);
        }
    }
    let mut out = format!("{:<40}", "most agents solved (time, soc/proven)");
    for solver in &solvers {
        out += &format!(" {solver:>26}");
    }
    out.push('\n');
    for scen in scenarios {
        out += &format!("{scen:<40}");
        for solver in &solvers {
            let best = rows
                .iter()
                .filter(|r| r.solved && (r.scen.as_str(), r.solver.as_str()) == (scen, solver))
                .max_by_key(|r| r.agents);
            let cell = match best {
                Some(r) => {
                    let proven = match (r.soc, r.proven_lb) {
                        (Some(soc), Some(lb)) => format!("{:.3}", soc as f64 / lb.max(1) as f64),
                        _ => "-".into(),
                    };
                    format!("{} ({:.2} s, {proven})", r.agents, r.runtime_s)
                }
                None => "none".into(),
            };
            out += &format!(" {cell:>26}");
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(map: &str, solver: &str, agents: usize, solved: bool, runtime_s: f64) -> MapfRow {
        MapfRow {
            map: map.into(),
            scen: format!("{map}-random-1"),
            solver: solver.into(),
            agents,
            solved,
            runtime_s,
            soc: solved.then_some(120),
            lb: 100,
            proven_lb: solved.then_some(110),
            soc_over_lb: None,
            makespan: None,
            first_solution_s: None,
            first_soc_over_lb: None,
            lacam3_soc_over_lb: None,
            curve: Vec::new(),
            peak_rss_mib: None,
        }
    }

    /// Each solver's column holds its largest solved count on that scenario, not its last
    /// row, and a solver that solved nothing there says so.
    #[test]
    fn most_solved_puts_each_solvers_largest_count_side_by_side() {
        let rows = [
            row("a", "cbs", 60, true, 0.5),
            row("a", "cbs", 70, true, 4.0),
            row("a", "cbs", 80, false, 60.0),
            row("a", "eecbs", 250, true, 0.1),
            row("a", "eecbs", 280, true, 0.3),
            row("b", "cbs", 5, false, 60.0),
            row("b", "eecbs", 50, true, 0.02),
        ];
        let table = most_solved(&rows);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3, "{table}");
        let cols = |line: &str| {
            line.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(cols(lines[0])[5..], ["cbs", "eecbs"]);
        assert_eq!(
            cols(lines[1]),
            [
                "a-random-1",
                "70",
                "(4.00",
                "s,",
                "1.091)",
                "280",
                "(0.30",
                "s,",
                "1.091)"
            ]
        );
        assert_eq!(cols(lines[2])[..3], ["b-random-1", "none", "50"]);
    }
}

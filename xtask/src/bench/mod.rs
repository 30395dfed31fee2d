//! `cargo xtask bench`: a GPPC-style benchmark of every single-agent algorithm beside a real
//! peer (the `pathfinding` crate's A*), on generated maps or a folder of Moving AI files.
//!
//! Every answer is validated step by step and against the optimal length before its time
//! counts; a wrong answer is reported as invalid, never averaged in. Query times exclude file
//! I/O and preprocessing. Per map and engine the harness runs:
//!
//! 1. a warm-up: the map's first 20 queries, untimed;
//! 2. **the single pass** (the headline): every query timed exactly once, in scenario order, as
//!    GPPC and the peer are timed. `single µs` (`avg_us` in results.json / results.csv), `total
//!    s`, `× peer` (`speedup_vs_peer`: geometric mean over a family's maps of the peer's mean
//!    time over ours) and the plots all come from this pass, for the peer as for ours;
//! 3. **the repeat pass**, after the single pass so the two never mix: every query once more,
//!    and one under 50 µs twice more, the median of the three kept. Its hot-cache figures are
//!    the separate `repeat µs` / `rep × peer` columns (`repeat_median_us`,
//!    `repeat_speedup_vs_peer`); on microsecond queries they are often 1.5–3× below the single
//!    pass (BENCHMARKS.md), which is why they must not be the headline.
//!
//! With `--threads N` the queries are cut into N contiguous shares, one per worker with its own
//! warmed searcher; each worker still times each of its queries once, in order, in each pass.
//!
//! Preprocessing is reported per part: `table ms` (`table_ms`) is the JPS+ jump-table build,
//! [`Planner::preprocess_time`](cuplan::jps::Planner::preprocess_time) of the preprocessed
//! algorithms (0 for the others); `components ms` (`components_ms`) is the connected-components
//! labelling every one of our planners needs to answer unreachable goals, timed once per map on
//! a freshly built copy of the grid (0 for the peer). Family rows sum both over their maps;
//! results.json's `maps` holds the same figures per map.

mod batch;
mod big;
mod mapf;
mod measure;
mod oracle;
mod peer;
mod plot;
mod pypeer;
mod report;
mod spacetime;
mod suite;
mod tick;

use std::path::PathBuf;

use anyhow::Context;
use cuplan::jps::Algorithm;
use indicatif::{ProgressBar, ProgressStyle};

use measure::{Engine, MapRun};

/// Which benchmark to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Suite {
    /// 8-connected single-agent searches (the default).
    Grid,
    /// Distance maps / batched A* (4-connected wavefront).
    Batch,
    /// MAPF solvers on the MAPF benchmark (`--data` = the folder with `maps/`, `scen-random/`).
    Mapf,
    /// One space-time A* search against 0, 100 and 1,000 reserved paths.
    Spacetime,
    /// The CUDA parity suite and GPU benchmark (the same as `cargo xtask gpu-test`).
    Gpu,
    /// The game loop: 16 scattered map changes then one query per tick, upkeep per variant
    /// (`--data` = a Moving AI grid folder with arena2 and AR0011SR; a generated 1024² map
    /// always).
    Tick,
    /// Every algorithm on a 4096² and a 40,000 × 420 generated map: µs per query and memory.
    Big,
}

/// Arguments of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The suite: grid (default), batch, mapf, spacetime, tick, big or gpu.
    #[arg(value_enum, default_value_t = Suite::Grid)]
    suite: Suite,
    /// Moving AI `.map` + `.map.scen` files, grouped by sub-folder as families
    /// (e.g. `../shared/data/grid`). Without it, a generated suite is used.
    #[arg(long)]
    data: Option<PathBuf>,
    /// Comma-separated engines (default: every algorithm and the peer `pathfinding-astar`).
    #[arg(long, value_delimiter = ',')]
    algos: Option<Vec<String>>,
    /// Use every N-th query only.
    #[arg(long, default_value_t = 1)]
    every: usize,
    /// Only queries whose optimal length is at most L (short, NPC-style queries; applied after
    /// --every / --per-map).
    #[arg(long, value_name = "L")]
    max_length: Option<f64>,
    /// With --data: about N queries per map, every k-th with k = queries / N + 1 (the sampling
    /// of `docs/jps-targets.md`). Overrides --every.
    #[arg(long, value_name = "N")]
    per_map: Option<usize>,
    /// Threads answering queries (1 gives the cleanest per-query times).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Output folder for results.json, results.csv and the plots.
    #[arg(long, default_value = "target/cuplan-bench")]
    out: PathBuf,
    /// Generated suite: side of the square maps.
    #[arg(long, default_value_t = 512)]
    size: u32,
    /// Generated suite: queries per map.
    #[arg(long, default_value_t = 2000)]
    queries: usize,
    /// Generated suite: seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    /// Also run the published Python cuplan package (NumPy backend) where it has the same
    /// operation, installed into a virtualenv under `target/`.
    #[arg(long)]
    peer_cuplan_py: bool,
    /// Batch suite: sides of the generated square maps.
    #[arg(long, value_delimiter = ',', default_value = "64,256,1024")]
    batch_sizes: Vec<u32>,
    /// MAPF suite: solvers to run.
    #[arg(long, value_delimiter = ',', default_value = "lacam,pp,cbs,eecbs")]
    solvers: Vec<String>,
    /// MAPF suite: EECBS's suboptimality factor.
    #[arg(long, default_value_t = 1.2)]
    suboptimality: f64,
    /// MAPF suite: only these maps (file stems).
    #[arg(long, value_delimiter = ',')]
    maps: Option<Vec<String>>,
    /// MAPF suite: low-level search of pp and cbs (sparse or wavefront).
    #[arg(long, default_value = "sparse")]
    low_level: String,
    /// MAPF suite: LaCAM stops at its first solution instead of improving it until the limit.
    #[arg(long)]
    first_solution: bool,
    /// MAPF suite: agent counts for every solver (default: 5..100 for cbs, 50..400 for
    /// eecbs, 200,500,1000 for anytime lacam, 10..1000 for the rest).
    #[arg(long = "agents", value_delimiter = ',')]
    mapf_agents: Option<Vec<usize>>,
    /// MAPF suite: which `-random-N` scenarios of each map to run (e.g. `1,2`).
    #[arg(long = "scens", value_delimiter = ',', default_value = "1")]
    mapf_scens: Vec<u32>,
    /// MAPF suite: agents of the crowd case (anytime LaCAM on warehouse-20-40-10-2-2, agents
    /// at random cells, peak memory measured); 0 skips it.
    #[arg(long, default_value_t = 10_000)]
    crowd: usize,
    /// MAPF suite: seconds of the crowd case.
    #[arg(long, default_value_t = 60.0)]
    crowd_time_limit: f64,
    /// MAPF suite: seconds per solver run.
    #[arg(long, default_value_t = 10.0)]
    time_limit: f64,
    /// Batch suite: numbers of goals (distance maps) per run.
    #[arg(long, value_delimiter = ',', default_value = "1,64,1024")]
    batch_goals: Vec<usize>,
    /// Batch suite: build u16 distance maps instead of u32 (same checksum against the peer).
    #[arg(long = "u16")]
    batch_u16: bool,
    /// Tick suite: ticks per map and algorithm.
    #[arg(long, default_value_t = 500)]
    ticks: usize,
}

pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    match args.suite {
        Suite::Grid => run_grid(args),
        Suite::Batch => run_batch(args),
        Suite::Mapf => run_mapf(args),
        Suite::Spacetime => run_spacetime(args),
        Suite::Tick => run_tick(args),
        Suite::Big => run_big(args),
        Suite::Gpu => crate::gpu::run(&crate::gpu::Args {
            build_only: false,
            rest: Vec::new(),
        }),
    }
}

fn python_peer(args: &Args) -> anyhow::Result<Option<pypeer::PyPeer>> {
    if !args.peer_cuplan_py {
        return Ok(None);
    }
    let target = args
        .out
        .parent()
        .map_or_else(|| PathBuf::from("target"), PathBuf::from);
    pypeer::PyPeer::setup(&target)
}

fn run_batch(args: &Args) -> anyhow::Result<()> {
    let peer = python_peer(args)?;
    let mapf_maps = args
        .data
        .as_ref()
        .map(|d| d.join("maps"))
        .filter(|d| d.is_dir());
    let plan = batch::BatchPlan {
        sizes: &args.batch_sizes,
        goal_counts: &args.batch_goals,
        mapf_maps: mapf_maps.as_deref(),
        threads: args.threads.max(1),
        peer: peer.as_ref(),
        u16: args.batch_u16,
    };
    let rows = batch::run(&plan)?;
    print!("{}", batch::table(&rows));
    write_rows(&args.out, "batch.json", plan.threads, &rows)?;
    Ok(())
}

/// Writes a suite's rows, with the machine's description, as pretty JSON under `out`.
fn write_rows(
    out: &std::path::Path,
    file: &str,
    threads: usize,
    rows: &impl serde::Serialize,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let json = serde_json::json!({ "meta": report::Meta::collect(threads), "rows": rows });
    std::fs::write(out.join(file), serde_json::to_string_pretty(&json)?)?;
    Ok(())
}

fn run_big(args: &Args) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for (name, grid) in big::maps()? {
        rows.extend(big::run(&name, &grid, args.queries.min(100))?);
    }
    print!("{}", big::table(&rows));
    write_rows(&args.out, "big.json", 1, &rows)?;
    Ok(())
}

fn run_tick(args: &Args) -> anyhow::Result<()> {
    let mut rows = Vec::new();
    for map in tick::maps(args.data.as_deref())? {
        rows.extend(tick::run(&map, args.ticks)?);
    }
    print!("{}", tick::table(&rows));
    write_rows(&args.out, "tick.json", 1, &rows)?;
    Ok(())
}

fn run_spacetime(args: &Args) -> anyhow::Result<()> {
    let peer = python_peer(args)?;
    let rows = spacetime::run(&[32, 64, 256], &[0, 100, 1000], peer.as_ref())?;
    print!("{}", spacetime::table(&rows));
    write_rows(&args.out, "spacetime.json", 1, &rows)?;
    Ok(())
}

fn run_mapf(args: &Args) -> anyhow::Result<()> {
    let solvers: Vec<cuplan::mapf::Solver> = args
        .solvers
        .iter()
        .map(|s| s.parse().map_err(|e| anyhow::anyhow!("{e}")))
        .collect::<anyhow::Result<_>>()?;
    let default_data = PathBuf::from("../shared/data/mapf");
    let data = args.data.clone().unwrap_or(default_data);
    let limit = std::time::Duration::from_secs_f64(args.time_limit);
    let low_level = args.low_level.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
    let plan = mapf::MapfPlan {
        data: &data,
        solvers: &solvers,
        maps: args.maps.as_deref(),
        time_limit: limit,
        low_level,
        first_solution: args.first_solution,
        agents: args.mapf_agents.as_deref(),
        scens: &args.mapf_scens,
        memory_limit: cuplan::mapf::DEFAULT_MEMORY_LIMIT,
        suboptimality: args.suboptimality,
    };
    let mut rows = if data.join("maps").is_dir() {
        let progress = progress_bar(args.quiet, mapf::scenarios(&plan)?.len() as u64);
        let rows = mapf::run(&plan, &progress)?;
        progress.finish_and_clear();
        rows
    } else {
        eprintln!(
            "mapf: no MAPF benchmark at {} (pass --data); running the generated comparison only",
            data.display()
        );
        Vec::new()
    };
    std::fs::create_dir_all(&args.out)?;
    // The plot covers the benchmark maps only, not the generated PP comparison below.
    plot::success_plot(&rows, &args.out)?;
    let crowd_wanted = args
        .maps
        .as_ref()
        .is_none_or(|m| m.iter().any(|m| m == mapf::CROWD_MAP));
    if args.crowd > 0 && crowd_wanted && solvers.contains(&cuplan::mapf::Solver::Lacam) {
        let limit = std::time::Duration::from_secs_f64(args.crowd_time_limit);
        if let Some(row) = mapf::crowd_row(&plan, args.crowd, limit)? {
            println!("{}", mapf::crowd_report(&row));
            rows.push(row);
        }
    }
    if solvers.contains(&cuplan::mapf::Solver::Pp) {
        rows.push(mapf::pp_reference_row(&plan)?);
    }
    print!("{}", mapf::table(&rows));
    if solvers.len() > 1 {
        print!("{}", mapf::most_solved(&rows));
    }
    println!("published Python cuplan PP (128 agents, 64², 5 %): 0.59 s CPU, 0.289 s GPU");
    write_rows(&args.out, "mapf.json", 1, &rows)
}

fn run_grid(args: &Args) -> anyhow::Result<()> {
    let engines = engines(args.algos.as_deref())?;
    let maps = match &args.data {
        Some(dir) => suite::from_data(dir, args.every, args.per_map)?,
        None => {
            let mut maps = suite::generated(args.size, args.queries, args.seed)?;
            for m in &mut maps {
                m.queries = m
                    .queries
                    .iter()
                    .step_by(args.every.max(1))
                    .cloned()
                    .collect();
            }
            maps
        }
    };
    let maps = keep_short_queries(maps, args.max_length);
    anyhow::ensure!(!maps.is_empty(), "no query left under --max-length");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.max(1))
        .build()?;
    let progress = progress_bar(args.quiet, (maps.len() * engines.len()) as u64);
    let mut runs: Vec<MapRun> = Vec::new();
    for map in &maps {
        for &engine in &engines {
            progress.set_message(format!("{} / {}", map.name, engine.name()));
            runs.push(measure::run_map(map, engine, &pool)?);
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    let rows = report::rows(&runs, &engines);
    print!("{}", report::table(&rows, false));
    write_outputs(args, &rows, &runs, &engines)
}

/// With `max_length`, only the queries whose optimal length is at most that, and only the maps
/// that keep some.
fn keep_short_queries(
    mut maps: Vec<suite::BenchMap>,
    max_length: Option<f64>,
) -> Vec<suite::BenchMap> {
    if let Some(limit) = max_length {
        for m in &mut maps {
            m.queries.retain(|q| q.optimal.length() <= limit);
        }
        maps.retain(|m| !m.queries.is_empty());
    }
    maps
}

fn engines(names: Option<&[String]>) -> anyhow::Result<Vec<Engine>> {
    match names {
        Some(names) => names.iter().map(|n| Engine::parse(n.trim())).collect(),
        None => Ok(Algorithm::ALL
            .into_iter()
            .map(Engine::Cuplan)
            .chain([Engine::PeerAstar])
            .collect()),
    }
}

fn progress_bar(quiet: bool, len: u64) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

fn write_outputs(
    args: &Args,
    rows: &[report::Row],
    runs: &[MapRun],
    engines: &[Engine],
) -> anyhow::Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let json = serde_json::json!({
        "meta": report::Meta::collect(args.threads),
        "rows": rows,
        "maps": report::map_rows(runs),
    });
    std::fs::write(
        args.out.join("results.json"),
        serde_json::to_string_pretty(&json)?,
    )?;
    std::fs::write(args.out.join("results.csv"), report::csv(rows))?;
    let owned: Vec<_> = engines.iter().map(|e| e.name()).collect();
    let names: Vec<&str> = owned.iter().map(|n| n.as_ref()).collect();
    plot::time_vs_length(runs, &names, &args.out)?;
    plot::speedup_bars(rows, &args.out)?;
    if !args.quiet {
        println!("results: {}", args.out.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cuplan::grid::Family;

    /// The table's layout on a tiny fixed suite, timings masked.
    #[test]
    fn table_layout_snapshot() {
        let maps: Vec<_> = [Family::Random(0.2), Family::Rooms(8)]
            .into_iter()
            .map(|f| suite::generated_map(f, 48, 30, 3).unwrap())
            .collect();
        let engines = [Engine::Cuplan(Algorithm::AStar), Engine::PeerAstar];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let runs: Vec<_> = maps
            .iter()
            .flat_map(|m| {
                engines
                    .iter()
                    .map(|&e| measure::run_map(m, e, &pool).unwrap())
            })
            .collect();
        let rows = report::rows(&runs, &engines);
        for r in &rows {
            assert_eq!((r.invalid, r.unsolved, r.suboptimal), (0, 0, 0), "{r:?}");
        }
        insta::assert_snapshot!(report::table(&rows, true));
    }

    #[test]
    fn paged_engines_parse_name_and_answer_like_dense_ones() {
        for a in Algorithm::ALL {
            let paged = Engine::parse(&format!("{a}+paged")).unwrap();
            assert_eq!(paged, Engine::CuplanPaged(a));
            assert_eq!(Engine::parse(&paged.name()).unwrap(), paged);
        }
        assert!(Engine::parse("jps-bit+pages").is_err());
        let map = suite::generated_map(Family::Maze(2), 96, 40, 5).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let dense = measure::run_map(&map, Engine::Cuplan(Algorithm::JpsBit), &pool).unwrap();
        let paged = measure::run_map(&map, Engine::CuplanPaged(Algorithm::JpsBit), &pool).unwrap();
        for (d, p) in dense.queries.iter().zip(&paged.queries) {
            assert_eq!((d.cost, d.status), (p.cost, p.status));
        }
        assert_eq!(paged.engine.name(), "jps-bit+paged");
    }

    #[test]
    fn max_length_keeps_only_short_queries_and_drops_empty_maps() {
        let maps: Vec<_> = [Family::Random(0.1), Family::Rooms(8)]
            .into_iter()
            .map(|f| suite::generated_map(f, 64, 50, 2).unwrap())
            .collect();
        let all: usize = maps.iter().map(|m| m.queries.len()).sum();
        let short = keep_short_queries(maps.clone(), Some(20.0));
        let kept: usize = short.iter().map(|m| m.queries.len()).sum();
        assert!(kept < all);
        assert!(
            short
                .iter()
                .flat_map(|m| &m.queries)
                .all(|q| q.optimal.length() <= 20.0)
        );
        assert!(keep_short_queries(maps, Some(0.5)).is_empty());
    }
}

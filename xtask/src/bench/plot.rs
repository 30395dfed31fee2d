//! The benchmark's plots: time per query against optimal length, speed-up over the peer per
//! family, and MAPF success rate against the number of agents.
//!
//! Each chart is drawn by one function generic over the plotters backend and written twice, as
//! `NAME.svg` and, when a TrueType font is found ([`font`]), as `NAME.png` for the README, so the
//! two cannot drift. Every chart draws a number of elements bounded by its bins, families,
//! engines and solvers, never by the number of queries, which keeps each file well under 1 MiB.

mod font;

use std::path::Path;

use anyhow::Context;
use plotters::coord::Shift;
use plotters::prelude::*;

use cuplan::mapf::Solver;

use super::mapf::MapfRow;
use super::measure::MapRun;
use super::report::Row;

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn palette(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

const CAPTION_SIZE: u32 = 20;

/// Writes `time_vs_length.svg` (and `.png`) to `out`: per engine, the median µs per query in
/// each optimal-length bin, with its 10th–90th percentile.
pub(crate) fn time_vs_length(runs: &[MapRun], engines: &[&str], out: &Path) -> anyhow::Result<()> {
    write_chart(&TimeVsLength::from_runs(runs, engines), out)
}

/// Writes `speedup.svg` (and `.png`) to `out`, unless no row has a speed-up over the peer.
pub(crate) fn speedup_bars(rows: &[Row], out: &Path) -> anyhow::Result<()> {
    match Speedup::from_rows(rows) {
        Some(chart) => write_chart(&chart, out),
        None => Ok(()),
    }
}

/// Writes `mapf_success.svg` (and `.png`) to `out`: the share of maps each solver solves
/// against the number of agents.
pub(crate) fn success_plot(rows: &[MapfRow], out: &Path) -> anyhow::Result<()> {
    write_chart(&MapfSuccess::from_rows(rows), out)
}

/// A chart drawn the same way on any plotters backend.
trait Chart {
    /// The file name without its extension.
    const STEM: &'static str;
    /// Width and height in pixels.
    const SIZE: (u32, u32);

    /// Draws the chart on a white `root`.
    fn draw<DB>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static;
}

fn write_chart<C: Chart>(chart: &C, out: &Path) -> anyhow::Result<()> {
    // First, since it registers the font that lays out the SVG's labels too.
    let with_png = font::can_rasterise();
    let svg = out.join(format!("{}.svg", C::STEM));
    render(chart, SVGBackend::new(&svg, C::SIZE))
        .with_context(|| format!("writing {}", svg.display()))?;
    if with_png {
        let png = svg.with_extension("png");
        render(chart, BitMapBackend::new(&png, C::SIZE))
            .with_context(|| format!("writing {}", png.display()))?;
    }
    Ok(())
}

fn render<C, DB>(chart: &C, backend: DB) -> anyhow::Result<()>
where
    C: Chart,
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    let root = backend.into_drawing_area();
    root.fill(&WHITE)?;
    chart.draw(&root)?;
    root.present()?;
    Ok(())
}

/// How many equal bins the optimal-length axis is cut into.
const LENGTH_BINS: usize = 60;
/// The share of a bin's width the engines' markers are spread over, so bars do not overlap.
const DODGE_SHARE: f64 = 0.8;
/// Times are clamped to this (µs) so that the log axis stays finite.
const MIN_US: f64 = 0.01;

/// One engine in one length bin.
#[derive(Debug, Clone, Copy, PartialEq)]
struct BinSummary {
    x: f64,
    p10: f64,
    median: f64,
    p90: f64,
}

struct TimeVsLength {
    max_len: f64,
    /// Per engine, its non-empty bins in length order.
    engines: Vec<(String, Vec<BinSummary>)>,
}

impl TimeVsLength {
    fn from_runs(runs: &[MapRun], engines: &[&str]) -> TimeVsLength {
        let max_len = runs
            .iter()
            .flat_map(|r| &r.queries)
            .map(|q| q.optimal)
            .filter(|l| l.is_finite())
            .fold(1.0, f64::max);
        let bin_width = max_len / LENGTH_BINS as f64;
        let summaries = engines.iter().enumerate().map(|(i, name)| {
            let dodge = dodge_offset(i, engines.len()) * bin_width;
            let bins = times_per_bin(runs, name, bin_width)
                .into_iter()
                .enumerate()
                .filter_map(|(b, mut times)| {
                    let x = (b as f64 + 0.5) * bin_width + dodge;
                    summarise(x, &mut times)
                })
                .collect();
            (name.to_string(), bins)
        });
        TimeVsLength {
            max_len,
            engines: summaries.collect(),
        }
    }

    /// The 10th and 90th percentiles' extent, padded; a decade when nothing was timed.
    fn time_range(&self) -> (f64, f64) {
        let bins = || self.engines.iter().flat_map(|(_, bins)| bins);
        let lo = bins().map(|b| b.p10).fold(f64::INFINITY, f64::min);
        let hi = bins().map(|b| b.p90).fold(0.0, f64::max);
        if lo > hi {
            (1.0, 10.0)
        } else {
            (lo * 0.8, hi * 1.25)
        }
    }
}

/// Where engine `i` of `n` sits within a bin, as a share of the bin's width from its centre.
fn dodge_offset(i: usize, n: usize) -> f64 {
    ((i as f64 + 0.5) / n.max(1) as f64 - 0.5) * DODGE_SHARE
}

/// The engine's single-pass times in µs, one list per length bin.
fn times_per_bin(runs: &[MapRun], engine: &str, bin_width: f64) -> Vec<Vec<f64>> {
    let mut bins = vec![Vec::new(); LENGTH_BINS];
    let queries = runs
        .iter()
        .filter(|r| r.engine.name() == engine)
        .flat_map(|r| &r.queries)
        .filter(|q| q.optimal.is_finite());
    for q in queries {
        // The longest query lands on the upper edge: it belongs to the last bin.
        let bin = ((q.optimal / bin_width) as usize).min(LENGTH_BINS - 1);
        bins[bin].push((q.time.as_secs_f64() * 1e6).max(MIN_US));
    }
    bins
}

/// The bin's percentiles at `x`; `None` for an empty bin.
fn summarise(x: f64, times: &mut [f64]) -> Option<BinSummary> {
    if times.is_empty() {
        return None;
    }
    times.sort_unstable_by(f64::total_cmp);
    Some(BinSummary {
        x,
        p10: percentile(times, 0.1),
        median: percentile(times, 0.5),
        p90: percentile(times, 0.9),
    })
}

/// Linear interpolation between the closest ranks of a sorted, non-empty slice.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let rank = q * (sorted.len() - 1) as f64;
    let below = rank.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (sorted[above] - sorted[below]) * (rank - below as f64)
}

impl Chart for TimeVsLength {
    const STEM: &'static str = "time_vs_length";
    const SIZE: (u32, u32) = (1100, 660);

    fn draw<DB>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let (lo, hi) = self.time_range();
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Time per query (single timed pass) against optimal path length: \
                 median per length bin, bars 10–90 %",
                (font::FAMILY, CAPTION_SIZE),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..self.max_len * 1.02, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("optimal length")
            .y_desc("µs per query (log)")
            .draw()?;
        for (i, (name, bins)) in self.engines.iter().enumerate() {
            let color = palette(i);
            chart
                .draw_series(bins.iter().map(|b| {
                    PathElement::new(vec![(b.x, b.p10), (b.x, b.p90)], color.mix(0.45))
                }))?;
            chart.draw_series(LineSeries::new(
                bins.iter().map(|b| (b.x, b.median)),
                color.stroke_width(2),
            ))?;
            chart
                .draw_series(
                    bins.iter()
                        .map(|b| Circle::new((b.x, b.median), 3, color.filled())),
                )?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    EmptyElement::at((x + 8, y))
                        + PathElement::new(vec![(-8, 0), (8, 0)], color.stroke_width(2))
                        + Circle::new((0, 0), 3, color.filled())
                });
        }
        chart
            .configure_series_labels()
            .label_font((font::FAMILY, 14))
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .draw()?;
        Ok(())
    }
}

/// One bar of the speed-up chart.
struct SpeedupBar {
    family: usize,
    engine: usize,
    speedup: f64,
}

struct Speedup {
    families: Vec<String>,
    engines: Vec<String>,
    bars: Vec<SpeedupBar>,
}

impl Speedup {
    /// `None` when no row has a speed-up over the peer.
    fn from_rows(rows: &[Row]) -> Option<Speedup> {
        let mut chart = Speedup {
            families: Vec::new(),
            engines: Vec::new(),
            bars: Vec::new(),
        };
        for r in rows {
            let Some(speedup) = r.speedup_vs_peer else {
                continue;
            };
            let bar = SpeedupBar {
                family: index_or_push(&mut chart.families, &r.family),
                engine: index_or_push(&mut chart.engines, &r.algo),
                speedup,
            };
            chart.bars.push(bar);
        }
        (!chart.bars.is_empty()).then_some(chart)
    }

    /// The smallest and largest speed-up, 1× always within.
    fn extent(&self) -> (f64, f64) {
        let speedups = || self.bars.iter().map(|b| b.speedup);
        (
            speedups().fold(1.0, f64::min),
            speedups().fold(1.0, f64::max),
        )
    }
}

/// The position of `name` in `names`, appended first when it is new.
fn index_or_push(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_string());
            names.len() - 1
        }
    }
}

impl Chart for Speedup {
    const STEM: &'static str = "speedup";
    const SIZE: (u32, u32) = (1100, 600);

    fn draw<DB>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let (min, max) = self.extent();
        let floor = min * 0.5;
        let slots = self.engines.len() as f64 + 1.0;
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Speed-up over the pathfinding crate's A* (single timed pass, geometric mean per family)",
                (font::FAMILY, CAPTION_SIZE),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            // Groups centred on integers so the labels sit under them; headroom above for the legend.
            .build_cartesian_2d(
                -0.5..self.families.len() as f64 - 0.5,
                (floor..max * 30.0).log_scale(),
            )?;
        let family_label = |x: &f64| {
            let i = x.round();
            if (x - i).abs() > 1e-6 || i < 0.0 {
                return String::new();
            }
            self.families.get(i as usize).cloned().unwrap_or_default()
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(self.families.len())
            .x_label_formatter(&family_label)
            .y_desc("× faster (log)")
            .draw()?;
        for (e, engine) in self.engines.iter().enumerate() {
            let color = palette(e);
            let bars = self.bars.iter().filter(|b| b.engine == e).map(|b| {
                let x0 = b.family as f64 - 0.5 + (e as f64 + 0.5) / slots;
                Rectangle::new([(x0, floor), (x0 + 1.0 / slots, b.speedup)], color.filled())
            });
            chart
                .draw_series(bars)?
                .label(engine.as_str())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
        }
        chart
            .configure_series_labels()
            .label_font((font::FAMILY, 14))
            .position(SeriesLabelPosition::UpperLeft)
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .draw()?;
        Ok(())
    }
}

/// One solver's line.
struct SolverCurve {
    /// Its place in [`Solver::ALL`], which fixes its colour across runs.
    colour: usize,
    name: &'static str,
    /// (agents, share of maps solved).
    points: Vec<(f64, f64)>,
}

struct MapfSuccess {
    max_agents: f64,
    /// The solvers that ran.
    solvers: Vec<SolverCurve>,
}

impl MapfSuccess {
    fn from_rows(rows: &[MapfRow]) -> MapfSuccess {
        let solvers = Solver::ALL.iter().enumerate().filter_map(|(i, solver)| {
            let mine: Vec<&MapfRow> = rows.iter().filter(|r| r.solver == solver.name()).collect();
            (!mine.is_empty()).then(|| SolverCurve {
                colour: i,
                name: solver.name(),
                points: success_curve(&mine),
            })
        });
        MapfSuccess {
            max_agents: rows.iter().map(|r| r.agents).max().unwrap_or(1) as f64,
            solvers: solvers.collect(),
        }
    }
}

/// One solver's share of maps solved at each number of agents it tried.
fn success_curve(mine: &[&MapfRow]) -> Vec<(f64, f64)> {
    let mut ks: Vec<usize> = mine.iter().map(|r| r.agents).collect();
    ks.sort_unstable();
    ks.dedup();
    // Only the maps this solver ran on. A map counts as solved at k when it solved a run of at
    // least k agents, or when it never failed (its scenario offers fewer than k agents).
    let maps: std::collections::BTreeSet<&str> = mine.iter().map(|r| r.map.as_str()).collect();
    let solved_at = |m: &str, k: usize| {
        let runs = mine.iter().filter(|r| r.map == m);
        runs.clone().all(|r| r.solved) || runs.clone().any(|r| r.solved && r.agents >= k)
    };
    ks.iter()
        .map(|&k| {
            let ok = maps.iter().filter(|m| solved_at(m, k)).count();
            (k as f64, ok as f64 / maps.len().max(1) as f64)
        })
        .collect()
}

impl Chart for MapfSuccess {
    const STEM: &'static str = "mapf_success";
    const SIZE: (u32, u32) = (900, 560);

    fn draw<DB>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
    where
        DB: DrawingBackend,
        DB::ErrorType: 'static,
    {
        let mut chart = ChartBuilder::on(root)
            .caption(
                "MAPF: share of maps solved within the time limit",
                (font::FAMILY, CAPTION_SIZE),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..self.max_agents * 1.05, 0.0..1.05)?;
        chart
            .configure_mesh()
            .x_desc("agents")
            .y_desc("success rate")
            .draw()?;
        for curve in &self.solvers {
            let color = palette(curve.colour);
            chart
                .draw_series(LineSeries::new(
                    curve.points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(curve.name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .label_font((font::FAMILY, 14))
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .draw()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use cuplan::jps::Algorithm;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::super::measure::{Engine, QueryResult, Status};
    use super::super::report;
    use super::*;

    const MIB: u64 = 1 << 20;

    /// `queries` synthetic answers per engine, spread over four maps in two families, with
    /// times that grow with the length and scatter over two decades.
    fn synthetic_runs(engines: &[Engine], queries: usize) -> Vec<MapRun> {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let maps = [
            ("random", "r0"),
            ("random", "r1"),
            ("rooms", "m0"),
            ("rooms", "m1"),
        ];
        let mut runs = Vec::new();
        for (e, &engine) in engines.iter().enumerate() {
            for (family, map) in maps {
                let queries = (0..queries / maps.len())
                    .map(|_| {
                        let optimal = rng.random_range(1.0..700.0);
                        let us = optimal * (e + 1) as f64 * 10f64.powf(rng.random_range(-1.0..1.0));
                        QueryResult {
                            time: Duration::from_secs_f64(us * 1e-6),
                            repeat: Duration::from_secs_f64(us * 0.5e-6),
                            optimal,
                            cost: Some(optimal),
                            status: Status::Solved,
                        }
                    })
                    .collect();
                runs.push(MapRun {
                    family: family.to_string(),
                    map: map.to_string(),
                    engine,
                    queries,
                    table: Duration::ZERO,
                    components: Duration::ZERO,
                    storage_bytes: 0,
                    rss_before_kb: 0,
                    rss_after_kb: 0,
                });
            }
        }
        runs
    }

    /// Every solver on 50 maps, at 40 agent counts each.
    fn synthetic_mapf_rows() -> Vec<MapfRow> {
        let mut rows = Vec::new();
        for solver in Solver::ALL {
            for m in 0..50 {
                for step in 1..=40 {
                    rows.push(MapfRow {
                        map: format!("map{m}"),
                        scen: format!("map{m}-random-1"),
                        solver: solver.name().to_string(),
                        agents: step * 25,
                        solved: step * 25 <= 500 + m * 10,
                        runtime_s: 0.1,
                        soc: None,
                        lb: 0,
                        soc_over_lb: None,
                        makespan: None,
                        first_solution_s: None,
                        first_soc_over_lb: None,
                        proven_lb: None,
                        lacam3_soc_over_lb: None,
                        curve: Vec::new(),
                        peak_rss_mib: None,
                    });
                }
            }
        }
        rows
    }

    #[test]
    fn every_plot_stays_under_a_mebibyte_for_200k_queries_per_engine() {
        let engines = [
            Engine::Cuplan(Algorithm::AStar),
            Engine::Cuplan(Algorithm::JpsBit),
            Engine::PeerAstar,
        ];
        let runs = synthetic_runs(&engines, 200_000);
        let names: Vec<String> = engines.iter().map(|e| e.name().to_string()).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let rows = report::rows(&runs, &engines);
        let out = tempfile::tempdir().unwrap();
        time_vs_length(&runs, &names, out.path()).unwrap();
        speedup_bars(&rows, out.path()).unwrap();
        success_plot(&synthetic_mapf_rows(), out.path()).unwrap();

        let mut expected = vec!["mapf_success.svg", "speedup.svg", "time_vs_length.svg"];
        if font::can_rasterise() {
            expected.extend(["mapf_success.png", "speedup.png", "time_vs_length.png"]);
        }
        expected.sort_unstable();
        let mut written = Vec::new();
        for entry in std::fs::read_dir(out.path()).unwrap() {
            let entry = entry.unwrap();
            let size = entry.metadata().unwrap().len();
            let name = entry.file_name().into_string().unwrap();
            assert!(size > 1000, "{name} is nearly empty: {size} bytes");
            assert!(size < MIB, "{name} is {size} bytes, over 1 MiB");
            written.push(name);
        }
        written.sort_unstable();
        assert_eq!(written, expected);
    }

    #[test]
    fn bins_summarise_each_engines_times_by_length() {
        let runs = synthetic_runs(&[Engine::Cuplan(Algorithm::AStar)], 20_000);
        let chart = TimeVsLength::from_runs(&runs, &["astar", "not-run"]);
        let (_, astar) = &chart.engines[0];
        assert_eq!(astar.len(), LENGTH_BINS);
        for b in astar {
            assert!(b.p10 <= b.median && b.median <= b.p90, "{b:?}");
            // Times are length × 10^±1 µs: the median sits near the bin's length.
            assert!((b.median / b.x).log10().abs() < 0.2, "{b:?}");
        }
        assert!(chart.engines[1].1.is_empty());
    }

    #[test]
    fn percentiles_interpolate_between_ranks() {
        let sorted = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0];
        assert_eq!(percentile(&sorted, 0.5), 6.0);
        assert_eq!(percentile(&sorted, 0.1), 2.0);
        assert_eq!(percentile(&sorted, 0.9), 10.0);
        assert_eq!(percentile(&[4.0], 0.9), 4.0);
        assert_eq!(percentile(&[1.0, 2.0], 0.5), 1.5);
    }
}

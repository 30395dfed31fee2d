//! SVG plots: time per query against optimal length, speed-up over the peer per family, and MAPF
//! success rate against the number of agents.

use std::path::Path;

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

/// Scatter of µs per query (log scale) against optimal length, one colour per engine.
pub(crate) fn time_vs_length(runs: &[MapRun], engines: &[&str], path: &Path) -> anyhow::Result<()> {
    let max_len = runs
        .iter()
        .flat_map(|r| r.queries.iter())
        .map(|q| q.optimal)
        .fold(1.0, f64::max);
    let (lo, hi) = runs
        .iter()
        .flat_map(|r| r.queries.iter())
        .map(|q| (q.time.as_secs_f64() * 1e6).max(0.01))
        .fold((f64::MAX, 0.0f64), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let root = SVGBackend::new(path, (1000, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Time per query (single timed pass) against optimal path length",
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(
            0.0..max_len * 1.02,
            (lo.min(hi) * 0.8..hi.max(lo) * 1.25).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("optimal length")
        .y_desc("µs per query (log)")
        .draw()?;
    for (i, name) in engines.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(points(runs, name).map(|p| Circle::new(p, 2, color.mix(0.5).filled())))?
            .label(*name)
            .legend(move |(x, y)| Circle::new((x + 8, y), 4, color.filled()));
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.85))
        .draw()?;
    root.present()?;
    Ok(())
}

fn points<'a>(runs: &'a [MapRun], name: &'a str) -> impl Iterator<Item = (f64, f64)> + 'a {
    runs.iter()
        .filter(move |r| r.engine.name() == name)
        .flat_map(|r| r.queries.iter())
        .map(|q| (q.optimal, (q.time.as_secs_f64() * 1e6).max(0.01)))
}

/// Grouped bars: speed-up over the peer A* per family (log scale), one bar per engine.
pub(crate) fn speedup_bars(rows: &[Row], path: &Path) -> anyhow::Result<()> {
    let rated: Vec<&Row> = rows
        .iter()
        .filter(|r| r.speedup_vs_peer.is_some())
        .collect();
    let mut families: Vec<&str> = Vec::new();
    let mut engines: Vec<&str> = Vec::new();
    for r in &rated {
        if !families.contains(&r.family.as_str()) {
            families.push(&r.family);
        }
        if !engines.contains(&r.algo.as_str()) {
            engines.push(&r.algo);
        }
    }
    if families.is_empty() {
        return Ok(());
    }
    let max = rated
        .iter()
        .filter_map(|r| r.speedup_vs_peer)
        .fold(1.0, f64::max);
    let min = rated
        .iter()
        .filter_map(|r| r.speedup_vs_peer)
        .fold(1.0, f64::min);
    let root = SVGBackend::new(path, (1100, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let slots = engines.len() as f64 + 1.0;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "Speed-up over the pathfinding crate's A* (single timed pass, geometric mean per family)",
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        // Groups centred on integers so the labels sit under them; headroom above for the legend.
        .build_cartesian_2d(
            -0.5..families.len() as f64 - 0.5,
            (min * 0.5..max * 30.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(families.len())
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() > 1e-6 || i < 0.0 {
                return String::new();
            }
            families
                .get(i as usize)
                .map_or(String::new(), |f| f.to_string())
        })
        .y_desc("× faster (log)")
        .draw()?;
    for (e, engine) in engines.iter().enumerate() {
        let color = PALETTE[e % PALETTE.len()];
        let bars = rated.iter().filter(|r| r.algo == *engine).filter_map(|r| {
            let f = families.iter().position(|f| *f == r.family)? as f64;
            let x0 = f - 0.5 + (e as f64 + 0.5) / slots;
            Some(Rectangle::new(
                [(x0, min * 0.5), (x0 + 1.0 / slots, r.speedup_vs_peer?)],
                color.filled(),
            ))
        });
        chart
            .draw_series(bars)?
            .label(*engine)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE.mix(0.85))
        .draw()?;
    root.present()?;
    Ok(())
}

/// Success rate against number of agents, one line per solver, over every map run.
pub(crate) fn success_plot(rows: &[MapfRow], path: &Path) -> anyhow::Result<()> {
    let max_k = rows.iter().map(|r| r.agents).max().unwrap_or(1) as f64;
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "MAPF: share of maps solved within the time limit",
            ("sans-serif", 22),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_k * 1.05, 0.0..1.05)?;
    chart
        .configure_mesh()
        .x_desc("agents")
        .y_desc("success rate")
        .draw()?;
    for (i, solver) in Solver::ALL.iter().enumerate() {
        let mine: Vec<&MapfRow> = rows.iter().filter(|r| r.solver == solver.name()).collect();
        if mine.is_empty() {
            continue;
        }
        let mut ks: Vec<usize> = mine.iter().map(|r| r.agents).collect();
        ks.sort_unstable();
        ks.dedup();
        // Only the maps this solver ran on. A map counts as solved at k when it solved a run of
        // at least k agents, or when it never failed (its scenario offers fewer than k agents).
        let maps: std::collections::BTreeSet<&str> = mine.iter().map(|r| r.map.as_str()).collect();
        let solved_at = |m: &str, k: usize| {
            let runs = mine.iter().filter(|r| r.map == m);
            runs.clone().all(|r| r.solved) || runs.clone().any(|r| r.solved && r.agents >= k)
        };
        let series: Vec<(f64, f64)> = ks
            .iter()
            .map(|&k| {
                let ok = maps.iter().filter(|m| solved_at(m, k)).count();
                (k as f64, ok as f64 / maps.len().max(1) as f64)
            })
            .collect();
        let color = PALETTE[i % PALETTE.len()];
        chart
            .draw_series(LineSeries::new(series, color.stroke_width(2)))?
            .label(solver.name())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.85))
        .draw()?;
    root.present()?;
    Ok(())
}

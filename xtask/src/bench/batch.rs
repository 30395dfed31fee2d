//! `cargo xtask bench batch`: distance maps (the batched wavefront) on generated and MAPF maps,
//! each CPU kernel, `u32` maps (or `u16` with `--u16`), with the Python cuplan package as an
//! optional peer.

use std::path::Path;
use std::time::{Duration, Instant};

use cuplan::grid::{Cell, Grid, generate};
use cuplan::wavefront::{Backend, CpuKernel, Distance, DistanceMaps, DistanceOptions};

use super::pypeer::PyPeer;

/// One measured configuration.
#[derive(Debug, serde::Serialize)]
pub(crate) struct BatchRow {
    map: String,
    cells: usize,
    goals: usize,
    kernel: String,
    /// Integer type of the distances: `u32` or `u16`.
    distance: &'static str,
    threads: usize,
    seconds: f64,
    maps_per_s: f64,
    ns_per_cell_core: f64,
    peer_seconds: Option<f64>,
    speedup_vs_peer: Option<f64>,
}

pub(crate) struct BatchPlan<'a> {
    pub(crate) sizes: &'a [u32],
    pub(crate) goal_counts: &'a [usize],
    pub(crate) mapf_maps: Option<&'a Path>,
    pub(crate) threads: usize,
    pub(crate) peer: Option<&'a PyPeer>,
    /// Build `u16` maps instead of `u32`.
    pub(crate) u16: bool,
}

pub(crate) fn run(plan: &BatchPlan<'_>) -> anyhow::Result<Vec<BatchRow>> {
    let mut maps: Vec<(String, Grid)> = Vec::new();
    for &s in plan.sizes {
        maps.push((format!("random15-{s}"), generate::random(s, s, 0.15, 7)?));
    }
    if let Some(dir) = plan.mapf_maps {
        let mut paths: Vec<_> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        paths.sort();
        for p in paths
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "map"))
        {
            let name = p
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            maps.push((name, Grid::read_movingai(&p)?));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(plan.threads)
        .build()?;
    let mut rows = Vec::new();
    for (name, grid) in &maps {
        for &n in plan.goal_counts {
            let goals = spread_goals(grid, n);
            let peer = match plan.peer {
                Some(p) if grid.cell_count() * n <= 256 * 256 * 1024 => {
                    Some(p.distance_maps(grid, &goals)?)
                }
                _ => None,
            };
            for kernel in CpuKernel::ALL {
                let options = DistanceOptions::default()
                    .with_backend(Backend::Cpu)
                    .with_kernel(kernel);
                let want_sum = peer.is_some();
                let (seconds, sum) = if plan.u16 {
                    pool.install(|| measure::<u16>(grid, &goals, &options, want_sum))?
                } else {
                    pool.install(|| measure::<u32>(grid, &goals, &options, want_sum))?
                };
                if let Some((_, checksum)) = peer {
                    anyhow::ensure!(
                        Some(checksum) == sum,
                        "{name}: the Python peer's distances differ from ours"
                    );
                }
                let secs = seconds.as_secs_f64();
                rows.push(BatchRow {
                    map: name.clone(),
                    cells: grid.cell_count(),
                    goals: n,
                    kernel: format!("{kernel:?}"),
                    distance: if plan.u16 { "u16" } else { "u32" },
                    threads: plan.threads,
                    seconds: secs,
                    maps_per_s: n as f64 / secs,
                    ns_per_cell_core: secs * 1e9 * plan.threads as f64
                        / (n * grid.cell_count()) as f64,
                    peer_seconds: peer.map(|p| p.0),
                    speedup_vs_peer: peer.map(|p| p.0 / secs),
                });
            }
        }
    }
    Ok(rows)
}

/// `n` free goals spread over the grid (deterministic).
fn spread_goals(grid: &Grid, n: usize) -> Vec<Cell> {
    let free: Vec<Cell> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect();
    (0..n)
        .map(|i| free[(i * 7919 + i / free.len()) % free.len()])
        .collect()
}

/// Best time of building `D` maps, and the sum of their finite distances when `want_sum`.
fn measure<D: Distance>(
    grid: &Grid,
    goals: &[Cell],
    options: &DistanceOptions,
    want_sum: bool,
) -> anyhow::Result<(Duration, Option<u64>)> {
    let (seconds, maps) = best_of(grid.cell_count() * goals.len(), || {
        DistanceMaps::<D>::build(grid, goals, options)
    })?;
    Ok((seconds, want_sum.then(|| finite_sum(&maps))))
}

/// Best time of a few runs (fewer for big jobs, but at least three: the first big job of a
/// process can pay the system's first hand-out of hundreds of MiB, measured up to 5× slower,
/// and a second run was not always enough), and the last result.
fn best_of<T, E: std::fmt::Display>(
    work: usize,
    mut f: impl FnMut() -> Result<T, E>,
) -> anyhow::Result<(Duration, T)> {
    let runs = if work > 2_000_000 { 3 } else { 7 };
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let out = f().map_err(|e| anyhow::anyhow!("{e}"))?;
        best = best.min(t.elapsed());
        last = Some(out);
    }
    Ok((best, last.expect("at least one run")))
}

fn finite_sum<D: Distance>(maps: &DistanceMaps<D>) -> u64 {
    maps.as_array()
        .iter()
        .filter(|&&d| d != D::UNREACHABLE)
        .map(|&d| u64::from(d.to_u32()))
        .sum()
}

pub(crate) fn table(rows: &[BatchRow]) -> String {
    let mut out = format!(
        "{:<22} {:>9} {:>6} {:>12} {:>5} {:>8} {:>11} {:>12} {:>12} {:>9}\n",
        "map",
        "cells",
        "goals",
        "kernel",
        "dist",
        "time s",
        "maps/s",
        "ns/cell/core",
        "peer s",
        "× peer"
    );
    for r in rows {
        out += &format!(
            "{:<22} {:>9} {:>6} {:>12} {:>5} {:>8.4} {:>11.1} {:>12.3} {:>12} {:>9}\n",
            r.map,
            r.cells,
            r.goals,
            r.kernel,
            r.distance,
            r.seconds,
            r.maps_per_s,
            r.ns_per_cell_core,
            r.peer_seconds.map_or("-".into(), |s| format!("{s:.3}")),
            r.speedup_vs_peer.map_or("-".into(), |s| format!("{s:.1}")),
        );
    }
    out
}

//! `cargo xtask bench spacetime`: one space-time A* search against a table holding 0, 100 or
//! 1,000 reserved paths, on 32², 64² and 256² maps, beside the Python cuplan package.

use std::time::{Duration, Instant};

use cuplan::grid::{Cell, Grid, generate};
use cuplan::reservations::ReservationTable;
use cuplan::wavefront::{Backend, SpaceTimeResult, space_time_astar};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::pypeer::PyPeer;

#[derive(Debug, serde::Serialize)]
pub(crate) struct SpaceTimeRow {
    map: String,
    reserved_paths: usize,
    horizon: u32,
    arrival: Option<u32>,
    search_us: f64,
    peer_us: Option<f64>,
    speedup_vs_peer: Option<f64>,
}

pub(crate) fn run(
    sizes: &[u32],
    counts: &[usize],
    peer: Option<&PyPeer>,
) -> anyhow::Result<Vec<SpaceTimeRow>> {
    let mut rows = Vec::new();
    for &size in sizes {
        let grid = generate::random(size, size, 0.1, 21)?;
        let horizon = cuplan::reservations::default_horizon(&grid);
        for &n in counts {
            let mut rng = ChaCha8Rng::seed_from_u64(size as u64 * 1000 + n as u64);
            let (table, paths, used) = reserve_agents(&grid, n, horizon, &mut rng)?;
            let (start, goal) = fresh_pair(&grid, &used, &mut rng);
            let search = || {
                space_time_astar(
                    &grid,
                    &cuplan::wavefront::SpaceTimeQuery::new(start, goal)
                        .with_table(&table)
                        .with_backend(Backend::Cpu),
                )
            };
            let mut best = Duration::MAX;
            let mut arrival = None;
            for _ in 0..5 {
                let t = Instant::now();
                let out = search()?;
                best = best.min(t.elapsed());
                arrival = match out {
                    SpaceTimeResult::Found(p) => Some(p.arrival()),
                    _ => None,
                };
            }
            let peer_run = match peer {
                Some(p) => Some(p.space_time(&grid, &paths, horizon, start, goal)?),
                None => None,
            };
            if let Some((_, peer_arrival)) = peer_run {
                anyhow::ensure!(
                    peer_arrival == arrival.map(u64::from),
                    "size {size}, {n} paths: the Python peer arrives at {peer_arrival:?}, we at {arrival:?}"
                );
            }
            let search_us = best.as_secs_f64() * 1e6;
            let peer_us = peer_run.map(|(s, _)| s * 1e6);
            rows.push(SpaceTimeRow {
                map: format!("random10-{size}"),
                reserved_paths: paths.len(),
                horizon,
                arrival,
                search_us,
                peer_us,
                speedup_vs_peer: peer_us.map(|p| p / search_us),
            });
        }
    }
    Ok(rows)
}

/// Plans up to `n` agents one after another (prioritized), reserving each path, on distinct
/// starts and goals. Returns the table, the reserved paths and the cells they use as ends.
fn reserve_agents(
    grid: &Grid,
    n: usize,
    horizon: u32,
    rng: &mut ChaCha8Rng,
) -> anyhow::Result<(ReservationTable, Vec<Vec<Cell>>, Vec<Cell>)> {
    let mut table = ReservationTable::new(grid, horizon)?;
    let mut paths = Vec::new();
    let mut used: Vec<Cell> = Vec::new();
    let cap = (grid.free_count() as usize / 4).min(n);
    let mut attempts = 0;
    while paths.len() < cap && attempts < cap * 4 {
        attempts += 1;
        let (start, goal) = fresh_pair(grid, &used, rng);
        if let SpaceTimeResult::Found(p) = space_time_astar(
            grid,
            &cuplan::wavefront::SpaceTimeQuery::new(start, goal)
                .with_table(&table)
                .with_backend(Backend::Cpu),
        )? {
            table.reserve_path(&p.cells)?;
            used.extend([start, goal]);
            paths.push(p.cells);
        }
    }
    Ok((table, paths, used))
}

/// A connected start/goal pair on free cells no reserved agent starts or ends on.
fn fresh_pair(grid: &Grid, used: &[Cell], rng: &mut ChaCha8Rng) -> (Cell, Cell) {
    let mut pick = || loop {
        let c = Cell::new(
            rng.random_range(0..grid.width()),
            rng.random_range(0..grid.height()),
        );
        if grid.is_free(c) && !used.contains(&c) {
            return c;
        }
    };
    loop {
        let (a, b) = (pick(), pick());
        if a != b && grid.connected(a, b) {
            return (a, b);
        }
    }
}

pub(crate) fn table(rows: &[SpaceTimeRow]) -> String {
    let mut out = format!(
        "{:<14} {:>8} {:>8} {:>8} {:>12} {:>12} {:>9}\n",
        "map", "reserved", "horizon", "arrival", "search µs", "peer µs", "× peer"
    );
    for r in rows {
        out += &format!(
            "{:<14} {:>8} {:>8} {:>8} {:>12.1} {:>12} {:>9}\n",
            r.map,
            r.reserved_paths,
            r.horizon,
            r.arrival.map_or("-".into(), |a| a.to_string()),
            r.search_us,
            r.peer_us.map_or("-".into(), |p| format!("{p:.1}")),
            r.speedup_vs_peer.map_or("-".into(), |s| format!("{s:.1}")),
        );
    }
    out
}

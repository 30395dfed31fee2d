//! What a benchmark runs on: maps grouped in families, each with queries of known optimal cost.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use cuplan::grid::{Cell, Family, Grid, OctileCost, ScenEntry, Scenario};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::oracle::octile_distances;

/// The optimal length of a query, as far as it is known.
#[derive(Debug, Clone)]
pub(crate) enum Optimal {
    /// Computed exactly by the harness's Dijkstra (generated maps).
    Exact(OctileCost),
    /// Printed in a `.scen` file.
    Printed(ScenEntry),
}

impl Optimal {
    pub(crate) fn length(&self) -> f64 {
        match self {
            Optimal::Exact(c) => c.to_f64(),
            Optimal::Printed(e) => e.optimal,
        }
    }

    pub(crate) fn accepts(&self, cost: OctileCost) -> bool {
        match self {
            Optimal::Exact(c) => *c == cost,
            Optimal::Printed(e) => e.accepts(cost),
        }
    }
}

/// One query.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    pub(crate) start: Cell,
    pub(crate) goal: Cell,
    pub(crate) optimal: Optimal,
}

/// One map with its queries.
#[derive(Debug, Clone)]
pub(crate) struct BenchMap {
    pub(crate) family: String,
    pub(crate) name: String,
    pub(crate) grid: Grid,
    pub(crate) queries: Vec<Query>,
    /// Time to label the grid's connected components (see [`time_components`]).
    pub(crate) components: Duration,
}

impl BenchMap {
    fn new(family: String, name: String, grid: Grid, queries: Vec<Query>) -> anyhow::Result<Self> {
        let components = time_components(&grid)?;
        Ok(BenchMap {
            family,
            name,
            grid,
            queries,
            components,
        })
    }
}

/// The time to label `grid`'s connected components from scratch: the preprocessing every one of
/// our planners pays beside any jump table. Timed on a copy rebuilt from the cells, because
/// `Grid::clone` carries the cached labelling along and would time nothing.
pub(crate) fn time_components(grid: &Grid) -> anyhow::Result<Duration> {
    let fresh = Grid::from_array(&grid.to_array())?;
    let started = Instant::now();
    std::hint::black_box(fresh.components());
    Ok(started.elapsed())
}

/// The default suite: every generated family at `size × size`, `queries` queries each.
///
/// Queries come in groups sharing a start, so one Dijkstra per start gives every optimal cost.
pub(crate) fn generated(size: u32, queries: usize, seed: u64) -> anyhow::Result<Vec<BenchMap>> {
    Family::DEFAULT_SUITE
        .iter()
        .map(|&family| generated_map(family, size, queries, seed))
        .collect()
}

pub(crate) fn generated_map(
    family: Family,
    size: u32,
    queries: usize,
    seed: u64,
) -> anyhow::Result<BenchMap> {
    const GOALS_PER_START: usize = 40;
    let grid = family.generate(size, size, seed)?;
    let free: Vec<Cell> = (0..size)
        .flat_map(|y| (0..size).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect();
    anyhow::ensure!(
        free.len() >= 2,
        "{} map has fewer than two free cells",
        family.name()
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut out = Vec::with_capacity(queries);
    while out.len() < queries {
        let start = free[rng.random_range(0..free.len())];
        // Queries live in the largest component, as the Moving AI scenarios do on dense maps.
        if grid.components().of(&grid, start) != grid.components().largest() {
            continue;
        }
        let dist = octile_distances(&grid, start);
        let mut taken = 0;
        while taken < GOALS_PER_START.min(queries - out.len()) {
            let goal = free[rng.random_range(0..free.len())];
            if let Some(optimal) = dist[grid.index(goal).get()].filter(|_| goal != start) {
                out.push(Query {
                    start,
                    goal,
                    optimal: Optimal::Exact(optimal),
                });
                taken += 1;
            }
        }
    }
    BenchMap::new(
        family.name(),
        format!("{}-{size}", family.name()),
        grid,
        out,
    )
}

/// Every `X.map` with an `X.map.scen` beside it under `dir`, the family being the sub-folder.
pub(crate) fn from_data(
    dir: &Path,
    every: usize,
    per_map: Option<usize>,
) -> anyhow::Result<Vec<BenchMap>> {
    let mut scens = Vec::new();
    collect_scens(dir, &mut scens)?;
    scens.sort();
    anyhow::ensure!(
        !scens.is_empty(),
        "no `X.map` + `X.map.scen` pairs under {}",
        dir.display()
    );
    let mut maps = Vec::new();
    for scen_path in scens {
        let map_path = PathBuf::from(scen_path.to_string_lossy().trim_end_matches(".scen"));
        let grid = Grid::read_movingai(&map_path)?;
        let scen = Scenario::read(&scen_path)?;
        scen.check_against(&grid)?;
        let family = map_path
            .parent()
            .filter(|p| p != &dir)
            .and_then(|p| p.file_name())
            .map_or_else(|| "data".to_string(), |f| f.to_string_lossy().into_owned());
        let name = map_path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let step = per_map.map_or(every.max(1), |n| scen.entries.len() / n.max(1) + 1);
        let queries = scen
            .entries
            .into_iter()
            .step_by(step)
            .map(|e| Query {
                start: e.start,
                goal: e.goal,
                optimal: Optimal::Printed(e),
            })
            .collect();
        maps.push(BenchMap::new(family, name, grid, queries)?);
    }
    Ok(maps)
}

fn collect_scens(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect_scens(&path, out)?;
        } else if path.to_string_lossy().ends_with(".map.scen")
            && Path::new(path.to_string_lossy().trim_end_matches(".scen")).is_file()
        {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Why `time_components` rebuilds the grid: a clone keeps the cached labelling (its bytes
    /// include it), the rebuilt copy starts without one. Bytes are compared copy against copy,
    /// because the generated grid also holds the change journal its generator wrote.
    #[test]
    fn components_are_timed_on_a_grid_without_the_cache() {
        let grid = Family::Rooms(8).generate(64, 64, 1).unwrap();
        let clone_before = grid.clone().bytes();
        grid.components();
        assert!(
            grid.clone().bytes() > clone_before,
            "a clone carries the components"
        );
        let fresh = Grid::from_array(&grid.to_array()).unwrap();
        assert_eq!(fresh, grid);
        let bare = fresh.bytes();
        fresh.components();
        assert!(fresh.bytes() > bare, "the rebuilt grid had none yet");
        assert!(time_components(&grid).unwrap() > Duration::ZERO);
    }
}

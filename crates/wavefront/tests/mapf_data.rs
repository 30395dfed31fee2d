//! The MAPF benchmark maps of `../shared/data/mapf`: batched paths against the test's own
//! BFS on every map with every scen file (sampled), and prioritized planning of several
//! agents through one reservation table, checked by an independent joint-plan validator.
//! Skips with a message when the data is absent.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::{bfs, data_dir};
use cuplan_grid::{Cell, Grid, Scenario};
use cuplan_reservations::{ReservationTable, default_horizon};
use cuplan_wavefront::{
    Backend, SpaceTimeQuery, SpaceTimeResult, batched_astar, distance_maps, space_time_astar,
};

/// Maps up to this many cells are checked on every scen query; larger ones on a sample.
const CHECK_ALL_UP_TO_CELLS: usize = 128 * 128;
/// Queries checked per scen file of a larger map, spread evenly over the file.
const QUERIES_PER_SCEN: usize = 64;
/// Agents planned one after another per map.
const AGENTS: usize = 24;

fn maps(dir: &Path) -> Vec<PathBuf> {
    let mut maps: Vec<PathBuf> = std::fs::read_dir(dir.join("mapf/maps"))
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    maps.retain(|p| p.extension().is_some_and(|e| e == "map"));
    maps.sort();
    maps
}

fn scens(dir: &Path, map: &Path) -> Vec<PathBuf> {
    let stem = map.file_stem().unwrap().to_string_lossy().into_owned();
    let mut out = Vec::new();
    for (folder, kind) in [("scen-random", "random"), ("scen-even", "even")] {
        for k in 1..=2 {
            let p = dir
                .join("mapf")
                .join(folder)
                .join(format!("{stem}-{kind}-{k}.scen"));
            if p.is_file() {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn batched_paths_are_optimal_on_every_mapf_map_and_scen() {
    let Some(dir) = data_dir() else {
        eprintln!("skipping: ../shared/data not found (MAPF conformance needs the benchmark data)");
        return;
    };
    let maps = maps(&dir);
    assert!(!maps.is_empty(), "no maps under {}", dir.display());
    let mut checked = 0;
    for map in &maps {
        let grid = Grid::read_movingai(map).unwrap();
        let scens = scens(&dir, map);
        if scens.is_empty() {
            // Maps shipped for generated instances (warehouse-20-40-10-2-2: 10,000 agents at
            // random cells) have no scenario files.
            eprintln!("no scen for {}: map skipped", map.display());
            continue;
        }
        for scen in scens {
            let entries = Scenario::read(&scen).unwrap().entries;
            let every = if grid.cell_count() <= CHECK_ALL_UP_TO_CELLS {
                1
            } else {
                entries.len().div_ceil(QUERIES_PER_SCEN).max(1)
            };
            let sample: Vec<_> = entries.iter().step_by(every).collect();
            let starts: Vec<Cell> = sample.iter().map(|e| e.start).collect();
            let goals: Vec<Cell> = sample.iter().map(|e| e.goal).collect();
            let paths = batched_astar(&grid, &starts, &goals, Backend::Cpu).unwrap();
            let mut oracle: HashMap<Cell, Vec<Option<u32>>> = HashMap::new();
            for ((s, g), path) in starts.iter().zip(&goals).zip(&paths) {
                let dist = oracle.entry(*g).or_insert_with(|| bfs(&grid, *g));
                let want = dist[(s.y * grid.width() + s.x) as usize];
                let got = path
                    .as_ref()
                    .map(|p| grid.four_path_moves(&p.cells).unwrap());
                assert_eq!(got, want, "{} {s} -> {g}", scen.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no MAPF query checked under {}", dir.display());
    eprintln!("checked {checked} queries on {} maps", maps.len());
}

/// Independent check of a joint plan: legal moves, no vertex conflict, no swap, agents stay
/// on their goals after arrival.
fn validate(grid: &Grid, plans: &[Vec<Cell>]) {
    let end = plans.iter().map(|p| p.len()).max().unwrap_or(0) + 1;
    let at = |p: &Vec<Cell>, t: usize| p[t.min(p.len() - 1)];
    for p in plans {
        for w in p.windows(2) {
            assert!(w[0] == w[1] || w[0].manhattan(w[1]) == 1, "jump {w:?}");
        }
        assert!(p.iter().all(|&c| grid.is_free(c)));
    }
    for t in 0..end {
        let mut seen: HashMap<Cell, usize> = HashMap::new();
        for (i, p) in plans.iter().enumerate() {
            if let Some(j) = seen.insert(at(p, t), i) {
                panic!("agents {j} and {i} both on {} at {t}", at(p, t));
            }
        }
        if t + 1 < end {
            let moves: HashMap<(Cell, Cell), usize> = plans
                .iter()
                .enumerate()
                .filter(|(_, p)| at(p, t) != at(p, t + 1))
                .map(|(i, p)| ((at(p, t), at(p, t + 1)), i))
                .collect();
            for (&(a, b), &i) in &moves {
                if let Some(&j) = moves.get(&(b, a)) {
                    panic!("agents {i} and {j} swap {a} <-> {b} at {}", t + 1);
                }
            }
        }
    }
}

#[test]
fn prioritized_plans_on_mapf_maps_are_conflict_free() {
    let Some(dir) = data_dir() else {
        eprintln!(
            "skipping: ../shared/data not found (MAPF joint-plan test needs the benchmark data)"
        );
        return;
    };
    for map in maps(&dir) {
        let grid = Grid::read_movingai(&map).unwrap();
        let Some(scen) = scens(&dir, &map).into_iter().next() else {
            continue;
        };
        let entries = Scenario::read(&scen).unwrap().entries;
        let agents: Vec<_> = entries.iter().take(AGENTS).collect();
        let goals: Vec<Cell> = agents.iter().map(|e| e.goal).collect();
        let maps = distance_maps(&grid, &goals, Backend::Cpu).unwrap();
        let horizon = default_horizon(&grid);
        let mut table = ReservationTable::new(&grid, horizon).unwrap();
        let mut plans = Vec::new();
        for (i, e) in agents.iter().enumerate() {
            let query = SpaceTimeQuery::new(e.start, e.goal)
                .with_table(&table)
                .with_heuristic(&maps, i);
            match space_time_astar(&grid, &query).unwrap() {
                SpaceTimeResult::Found(path) => {
                    let optimal = maps.get(i, e.start).unwrap();
                    assert!(path.arrival() >= optimal);
                    table.reserve_path(&path.cells).unwrap_or_else(|err| {
                        panic!(
                            "{}: agent {i}: the search returned a path the table refuses: {err}",
                            map.display()
                        )
                    });
                    plans.push(path.cells);
                }
                other => eprintln!("{}: agent {i} not planned: {other:?}", map.display()),
            }
        }
        assert!(
            plans.len() * 2 >= agents.len(),
            "{}: only {} of {} planned",
            map.display(),
            plans.len(),
            agents.len()
        );
        validate(&grid, &plans);
    }
}

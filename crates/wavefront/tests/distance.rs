//! Distance maps and batched paths against an independent plain BFS.

mod common;

use common::{arb_grid, bfs, pick, pick_free};
use cuplan_grid::{Cell, Grid};
use cuplan_wavefront::{
    Backend, CpuKernel, DistanceOptions, UNREACHABLE, WavefrontError, batched_astar, distance_maps,
    distance_maps_with,
};
use proptest::prelude::*;

fn check_maps(grid: &Grid, goals: &[Cell], kernel: CpuKernel) {
    let options = DistanceOptions {
        backend: Backend::Cpu,
        kernel,
        ..DistanceOptions::default()
    };
    let maps = distance_maps_with(grid, goals, &options).unwrap();
    assert_eq!(maps.len(), goals.len());
    assert_eq!(maps.goals(), goals);
    for (i, &goal) in goals.iter().enumerate() {
        let want = bfs(grid, goal);
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let c = Cell::new(x, y);
                let w = want[(y * grid.width() + x) as usize];
                assert_eq!(maps.get(i, c), w, "kernel {kernel:?} goal {goal} cell {c}");
                assert_eq!(
                    maps.map(i)[[y as usize, x as usize]],
                    w.unwrap_or(UNREACHABLE)
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn both_kernels_match_bfs(grid in arb_grid(), picks in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0), 0..4)) {
        let goals: Vec<Cell> = picks.iter().filter_map(|&(fx, fy)| pick_free(&grid, fx, fy)).collect();
        check_maps(&grid, &goals, CpuKernel::Queue);
        check_maps(&grid, &goals, CpuKernel::BitFrontier);
    }

    #[test]
    fn batched_paths_are_legal_and_optimal(grid in arb_grid(), picks in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0), 0..8)) {
        let queries: Vec<(Cell, Cell)> = picks
            .iter()
            .filter_map(|&(a, b, c, d)| Some((pick_free(&grid, a, b)?, pick_free(&grid, c, d)?)))
            .collect();
        let starts: Vec<Cell> = queries.iter().map(|q| q.0).collect();
        let goals: Vec<Cell> = queries.iter().map(|q| q.1).collect();
        let paths = batched_astar(&grid, &starts, &goals, Backend::Auto).unwrap();
        prop_assert_eq!(paths.len(), queries.len());
        for (path, &(s, g)) in paths.iter().zip(&queries) {
            let want = bfs(&grid, g)[(s.y * grid.width() + s.x) as usize];
            match (path, want) {
                (None, None) => {}
                (Some(p), Some(d)) => {
                    prop_assert_eq!(p.cells.first(), Some(&s));
                    prop_assert_eq!(p.cells.last(), Some(&g));
                    prop_assert_eq!(grid.four_path_moves(&p.cells).unwrap(), d);
                    prop_assert_eq!(p.moves(), d);
                }
                (p, w) => prop_assert!(false, "query {s}->{g}: got {p:?}, BFS says {w:?}"),
            }
        }
    }

    #[test]
    fn bad_goals_are_named(grid in arb_grid(), fx in 0.0f64..1.0, fy in 0.0f64..1.0) {
        let cell = pick(&grid, fx, fy);
        let outside = Cell::new(grid.width(), 0);
        let goals = [cell, outside];
        let err = distance_maps(&grid, &goals, Backend::Cpu).unwrap_err();
        let want_index = if grid.is_free(cell) { 1 } else { 0 };
        let ok = matches!(err, WavefrontError::InvalidGoal { index, .. } if index == want_index);
        prop_assert!(ok, "{}", err);
    }
}

#[test]
fn one_by_n_and_unreachable() {
    let grid = Grid::from_ascii("..@...").unwrap();
    let maps = distance_maps(&grid, &[Cell::new(0, 0)], Backend::Cpu).unwrap();
    assert_eq!(maps.get(0, Cell::new(1, 0)), Some(1));
    assert_eq!(maps.get(0, Cell::new(3, 0)), None);
    assert_eq!(maps.get(0, Cell::new(2, 0)), None);
    let paths = batched_astar(
        &grid,
        &[Cell::new(0, 0), Cell::new(5, 0), Cell::new(4, 0)],
        &[Cell::new(5, 0), Cell::new(3, 0), Cell::new(4, 0)],
        Backend::Cpu,
    )
    .unwrap();
    assert!(paths[0].is_none());
    assert_eq!(paths[1].as_ref().unwrap().moves(), 2);
    assert_eq!(paths[2].as_ref().unwrap().cells, vec![Cell::new(4, 0)]);
}

#[test]
fn batched_errors_name_the_query() {
    let grid = Grid::from_ascii("..@.").unwrap();
    let ok = Cell::new(0, 0);
    assert!(matches!(
        batched_astar(&grid, &[ok], &[], Backend::Cpu),
        Err(WavefrontError::LengthMismatch {
            starts: 1,
            goals: 0
        })
    ));
    let err = batched_astar(&grid, &[ok, Cell::new(2, 0)], &[ok, ok], Backend::Cpu).unwrap_err();
    assert!(
        matches!(err, WavefrontError::InvalidQuery { index: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("query 1: start"), "{err}");
    let err = batched_astar(&grid, &[ok], &[Cell::new(9, 9)], Backend::Cpu).unwrap_err();
    assert!(err.to_string().contains("query 0: goal"), "{err}");
}

#[test]
fn backend_parsing_and_cuda_refusal() {
    for b in [Backend::Auto, Backend::Cpu, Backend::Cuda] {
        assert_eq!(b.to_string().parse::<Backend>().unwrap(), b);
    }
    assert!("gpu".parse::<Backend>().is_err());
    let grid = Grid::open(3, 3).unwrap();
    // With the `cuda` feature on a GPU machine, Cuda may legitimately succeed.
    if !cfg!(feature = "cuda") {
        let err = distance_maps(&grid, &[Cell::new(0, 0)], Backend::Cuda).unwrap_err();
        assert!(
            matches!(err, WavefrontError::BackendUnavailable { .. }),
            "{err}"
        );
    }
    assert!(distance_maps(&grid, &[Cell::new(0, 0)], Backend::Auto).is_ok());
}

#[test]
fn memory_limit_refuses_before_allocating() {
    let grid = Grid::open(1000, 1000).unwrap();
    let options = DistanceOptions {
        max_bytes: 1 << 20,
        ..DistanceOptions::default()
    };
    let err = distance_maps_with(&grid, &[Cell::new(0, 0)], &options).unwrap_err();
    assert!(matches!(err, WavefrontError::TooLarge { .. }));
}

#[test]
fn maps_are_cheap_to_clone_and_sized() {
    let grid = Grid::open(5, 4).unwrap();
    let maps = distance_maps(&grid, &[Cell::new(0, 0), Cell::new(4, 3)], Backend::Cpu).unwrap();
    let copy = maps.clone();
    assert!(std::ptr::eq(maps.as_array(), copy.as_array()));
    assert_eq!(maps.bytes(), 2 * 20 * 4);
    assert_eq!(maps.as_array().dim(), (2, 4, 5));
    assert_eq!(maps.get(1, Cell::new(0, 0)), Some(7));
    assert_eq!(maps.get(2, Cell::new(0, 0)), None);
}

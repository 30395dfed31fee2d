//! Distance maps and batched paths against an independent plain BFS.

mod common;

use common::{arb_grid, bfs, pick, pick_free};
use cuplan_grid::{Cell, Grid, generate};
use cuplan_wavefront::{
    Backend, CpuKernel, Distance, DistanceMaps, DistanceOptions, UNREACHABLE, UNREACHABLE_U16,
    WavefrontError, batched_astar, distance_maps,
};
use ndarray::Array2;
use proptest::prelude::*;

fn cpu_options(kernel: CpuKernel) -> DistanceOptions {
    DistanceOptions::default()
        .with_backend(Backend::Cpu)
        .with_kernel(kernel)
}

fn check_maps(grid: &Grid, goals: &[Cell], kernel: CpuKernel) {
    let maps = distance_maps(grid, goals, cpu_options(kernel)).unwrap();
    check_against_bfs(grid, goals, &maps, kernel);
}

fn check_against_bfs<D: Distance>(
    grid: &Grid,
    goals: &[Cell],
    maps: &DistanceMaps<D>,
    kernel: CpuKernel,
) {
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
                    w.map_or(D::UNREACHABLE, D::from_level)
                );
            }
        }
    }
}

/// The queries `picks` name on `grid` (fractions of its free cells), as pairs and as start
/// and goal lists.
fn free_queries(
    grid: &Grid,
    picks: &[(f64, f64, f64, f64)],
) -> (Vec<(Cell, Cell)>, Vec<Cell>, Vec<Cell>) {
    let queries: Vec<(Cell, Cell)> = picks
        .iter()
        .filter_map(|&(a, b, c, d)| Some((pick_free(grid, a, b)?, pick_free(grid, c, d)?)))
        .collect();
    let starts = queries.iter().map(|q| q.0).collect();
    let goals = queries.iter().map(|q| q.1).collect();
    (queries, starts, goals)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_kernel_matches_bfs(grid in arb_grid(), picks in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0), 0..4)) {
        let goals: Vec<Cell> = picks.iter().filter_map(|&(fx, fy)| pick_free(&grid, fx, fy)).collect();
        for kernel in CpuKernel::ALL {
            check_maps(&grid, &goals, kernel);
        }
    }

    #[test]
    fn u16_maps_match_bfs(grid in arb_grid(), picks in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0), 0..4)) {
        let goals: Vec<Cell> = picks.iter().filter_map(|&(fx, fy)| pick_free(&grid, fx, fy)).collect();
        let maps = DistanceMaps::<u16>::build(&grid, &goals, Backend::Cpu).unwrap();
        check_against_bfs(&grid, &goals, &maps, CpuKernel::default());
        for kernel in CpuKernel::ALL {
            let maps = DistanceMaps::<u16>::build(&grid, &goals, cpu_options(kernel)).unwrap();
            check_against_bfs(&grid, &goals, &maps, kernel);
        }
    }

    #[test]
    fn batched_paths_are_legal_and_optimal(grid in arb_grid(), picks in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0), 0..8)) {
        let (queries, starts, goals) = free_queries(&grid, &picks);
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
                    prop_assert_eq!(p.arrival(), d);
                }
                (p, w) => prop_assert!(false, "query {s}->{g}: got {p:?}, BFS says {w:?}"),
            }
        }
    }

    /// Budgets from one map's worth up: the goals are answered a few at a time, and every
    /// answer is the unchunked one's (a fresh chunk must not see an earlier chunk's maps).
    #[test]
    fn chunked_batches_answer_like_one_batch(
        grid in arb_grid(),
        picks in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0), 1..12),
        maps_in_budget in 1u128..5,
    ) {
        let (queries, starts, goals) = free_queries(&grid, &picks);
        let whole = batched_astar(&grid, &starts, &goals, Backend::Cpu).unwrap();
        let cells = grid.cell_count() as u128;
        let buffers = rayon::current_num_threads() as u128 * cells * 4;
        let options = DistanceOptions::default().with_backend(Backend::Cpu).with_max_bytes(buffers + maps_in_budget * cells * 2);
        let chunked = batched_astar(&grid, &starts, &goals, options).unwrap();
        prop_assert_eq!(chunked.len(), whole.len());
        for ((a, b), &(s, g)) in chunked.iter().zip(&whole).zip(&queries) {
            prop_assert_eq!(a.as_ref().map(|p| p.arrival()), b.as_ref().map(|p| p.arrival()));
            if let Some(p) = a {
                prop_assert_eq!(p.cells.first(), Some(&s));
                prop_assert_eq!(p.cells.last(), Some(&g));
                prop_assert_eq!(grid.four_path_moves(&p.cells).unwrap(), p.arrival());
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
    assert_eq!(paths[1].as_ref().unwrap().arrival(), 2);
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
    let options = DistanceOptions::default().with_max_bytes(1 << 20);
    let err = distance_maps(&grid, &[Cell::new(0, 0)], options).unwrap_err();
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

/// [`DistanceMaps::rebuild`] gives the maps a fresh build gives, whatever the maps held
/// before (more goals, fewer, another grid), leaves clones sharing the old maps alone, and
/// writes into the old storage when nothing shares it.
#[test]
fn rebuilt_maps_equal_fresh_ones() {
    let grids = [
        generate::random(70, 50, 0.2, 1).unwrap(),
        generate::maze(41, 63, 1, 2).unwrap(),
        Grid::open(90, 40).unwrap(),
        generate::random(70, 50, 0.1, 3).unwrap(),
    ];
    for kernel in CpuKernel::ALL {
        let options = cpu_options(kernel);
        let mut maps = DistanceMaps::<u32>::default();
        let mut narrow = DistanceMaps::<u16>::default();
        assert!(maps.is_empty());
        let mut before: Option<(&Grid, Vec<Cell>)> = None;
        for (k, grid) in grids.iter().enumerate() {
            let goals: Vec<Cell> = generate::random_queries(grid, [3, 1, 5, 2][k], k as u64)
                .into_iter()
                .map(|q| q.1)
                .collect();
            let kept = maps.clone();
            maps.rebuild(grid, &goals, options).unwrap();
            check_against_bfs(grid, &goals, &maps, kernel);
            narrow.rebuild(grid, &goals, options).unwrap();
            check_against_bfs(grid, &goals, &narrow, kernel);
            if let Some((old_grid, old_goals)) = &before {
                check_against_bfs(old_grid, old_goals, &kept, kernel);
            }
            before = Some((grid, goals));
        }
        // Unshared, the same maps again land in the same storage.
        let (grid, goals) = before.unwrap();
        let storage = maps.as_array().as_ptr();
        maps.rebuild(grid, &goals, options).unwrap();
        assert_eq!(maps.as_array().as_ptr(), storage);
        check_against_bfs(grid, &goals, &maps, kernel);
        let blocked = (0..grids[0].width())
            .map(|x| Cell::new(x, 0))
            .find(|&c| !grids[0].is_free(c))
            .unwrap();
        let err = maps.rebuild(&grids[0], &[Cell::new(0, 0), blocked], options);
        assert!(
            matches!(err, Err(WavefrontError::InvalidGoal { index: 1, .. })),
            "{err:?}"
        );
        assert!(maps.is_empty());
        assert_eq!(maps.as_array().len(), 0);
    }
}

#[test]
fn u16_and_u32_maps_agree_on_a_random_256_grid() {
    let grid = generate::random(256, 256, 0.2, 11).unwrap();
    let goals: Vec<Cell> = generate::random_queries(&grid, 7, 3)
        .into_iter()
        .map(|q| q.1)
        .collect();
    for kernel in CpuKernel::ALL {
        let wide = distance_maps(&grid, &goals, cpu_options(kernel)).unwrap();
        let narrow = DistanceMaps::<u16>::build(&grid, &goals, cpu_options(kernel)).unwrap();
        assert_eq!(narrow.goals(), wide.goals());
        assert_eq!(narrow.as_array().dim(), wide.as_array().dim());
        assert_eq!(narrow.bytes() * 2, wide.bytes());
        let mut reachable = 0;
        for (&n, &w) in narrow.as_array().iter().zip(wide.as_array()) {
            if w == UNREACHABLE {
                assert_eq!(n, UNREACHABLE_U16, "kernel {kernel:?}");
            } else {
                assert_eq!(u32::from(n), w, "kernel {kernel:?}");
                reachable += 1;
            }
        }
        assert!(reachable > 7 * 256 * 256 / 2, "{reachable}");
    }
}

/// A `side × side` serpentine: every odd row is a wall with one gap, alternately at the right
/// and the left end, so the one corridor from the top left corner is about `side² / 2` long.
fn serpentine(side: usize) -> Grid {
    let free = Array2::from_shape_fn((side, side), |(y, x)| {
        y % 2 == 0 || x == if y % 4 == 1 { side - 1 } else { 0 }
    });
    Grid::from_array(&free).unwrap()
}

#[test]
fn u16_maps_refuse_distances_past_65534() {
    let grid = serpentine(400);
    let (middle, corner) = (Cell::new(200, 200), Cell::new(0, 0));
    let wide = distance_maps(&grid, &[middle, corner], Backend::Cpu).unwrap();
    let longest = |i: usize| {
        wide.map(i)
            .iter()
            .copied()
            .filter(|&d| d != UNREACHABLE)
            .max()
            .unwrap()
    };
    assert!(longest(0) < 65_535, "{}", longest(0));
    assert!(longest(1) > 65_535, "{}", longest(1));
    for kernel in CpuKernel::ALL {
        let options = cpu_options(kernel);
        // The middle goal fits; the corner goal (alone, and second in a batch) does not.
        assert!(DistanceMaps::<u16>::build(&grid, &[middle], options).is_ok());
        for (goals, goal_index) in [(vec![corner], 0), (vec![middle, corner], 1)] {
            let err = DistanceMaps::<u16>::build(&grid, &goals, options).unwrap_err();
            assert_eq!(
                err,
                WavefrontError::DistanceOverflow {
                    goal_index,
                    max_distance: longest(1),
                    limit: 65_534,
                },
                "kernel {kernel:?}"
            );
            assert!(err.to_string().contains("u32"), "{err}");
        }
    }
    let err = DistanceMaps::<u16>::build(&grid, &[corner], Backend::Cpu).unwrap_err();
    assert!(
        matches!(err, WavefrontError::DistanceOverflow { .. }),
        "{err}"
    );
}

/// A budget below one map is a limit, named as one; any budget above it answers everything.
#[test]
fn batches_under_a_tiny_budget_are_refused_as_too_large() {
    let grid = Grid::open(512, 512).unwrap();
    let (starts, goals) = ([Cell::new(0, 0)], [Cell::new(511, 511)]);
    let options = DistanceOptions::default().with_max_bytes(512 * 512);
    let err = batched_astar(&grid, &starts, &goals, options).unwrap_err();
    assert!(matches!(err, WavefrontError::TooLarge { .. }), "{err}");
    assert!(err.to_string().contains("one distance map"), "{err}");
}

/// Many goals, a budget of about three maps: chunks reuse one allocation and all goals are
/// answered, with distances past 65,534 (the serpentine's far end) answered from `u32` maps
/// once a `u16` chunk overflows.
#[test]
fn chunked_batches_switch_to_u32_maps_past_65534() {
    let grid = serpentine(400);
    let far = Cell::new(0, 0);
    let mut goals: Vec<Cell> = (0..8).map(|i| Cell::new(50 * i, 200)).collect();
    goals.insert(5, far);
    goals.push(Cell::new(399, 398));
    let starts: Vec<Cell> = goals.iter().map(|_| Cell::new(399, 398)).collect();
    let cells = grid.cell_count() as u128;
    let options = DistanceOptions::default()
        .with_max_bytes(rayon::current_num_threads() as u128 * cells * 4 + 3 * cells * 4);
    let paths = batched_astar(&grid, &starts, &goals, options).unwrap();
    let wide = distance_maps(&grid, &goals, Backend::Cpu).unwrap();
    for (i, (path, &start)) in paths.iter().zip(&starts).enumerate() {
        let path = path.as_ref().expect("the serpentine is one corridor");
        assert_eq!(
            Some(path.arrival()),
            wide.get(i, start),
            "goal {}",
            goals[i]
        );
        assert_eq!(grid.four_path_moves(&path.cells).unwrap(), path.arrival());
    }
    assert!(paths[5].as_ref().unwrap().arrival() > 65_534);
}

/// Distances past `u16` in `u32` maps: the kernels that search in `u16` first (sweeps and the
/// queue's cache-resident map) must notice and search again in `u32`.
#[test]
fn u32_maps_hold_distances_past_65535() {
    let grid = serpentine(400);
    let goals = [Cell::new(0, 0), Cell::new(399, 398)];
    for kernel in CpuKernel::ALL {
        check_maps(&grid, &goals, kernel);
    }
}

#[test]
fn u16_maps_hold_exactly_up_to_65534() {
    for kernel in CpuKernel::ALL {
        let options = cpu_options(kernel);
        let fits = Grid::open(65_535, 1).unwrap();
        let maps = DistanceMaps::<u16>::build(&fits, &[Cell::new(0, 0)], options).unwrap();
        assert_eq!(maps.get(0, Cell::new(65_534, 0)), Some(65_534));
        let over = Grid::open(65_536, 1).unwrap();
        let err = DistanceMaps::<u16>::build(&over, &[Cell::new(0, 0)], options).unwrap_err();
        assert_eq!(
            err,
            WavefrontError::DistanceOverflow {
                goal_index: 0,
                max_distance: 65_535,
                limit: 65_534,
            }
        );
    }
}

#[test]
fn memory_limit_counts_two_bytes_per_u16_cell() {
    let grid = Grid::open(1000, 1000).unwrap();
    let options = DistanceOptions::default().with_max_bytes(3_000_000);
    let goal = [Cell::new(0, 0)];
    let maps = DistanceMaps::<u16>::build(&grid, &goal, options).unwrap();
    assert_eq!(maps.bytes(), 2_000_000);
    assert!(matches!(
        distance_maps(&grid, &goal, options),
        Err(WavefrontError::TooLarge {
            bytes: 4_000_000,
            ..
        })
    ));
    let tight = options.with_max_bytes(1 << 20);
    assert!(matches!(
        DistanceMaps::<u16>::build(&grid, &goal, tight),
        Err(WavefrontError::TooLarge {
            bytes: 2_000_000,
            limit: 1_048_576,
            ..
        })
    ));
}

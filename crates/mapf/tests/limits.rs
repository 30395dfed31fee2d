//! Resource limits: every solver reports a time or memory limit as
//! [`SolveOutcome::LimitReached`], never as "no solution", and solves the same instance
//! once the budget is large enough; `u16` distance maps give way to `u32` where paths are
//! longer than 65,534 moves.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cuplan_grid::{Cell, Grid};
use cuplan_mapf::{
    DEFAULT_MEMORY_LIMIT, Instance, Limit, LowLevel, SolveOutcome, Solver, SolverConfig, solve,
};

/// Bytes of the map graph: 21 a cell.
fn graph_bytes(instance: &Instance) -> u64 {
    instance.grid().cell_count() as u64 * 21
}

/// Bytes of building `goals` compact `u16` distance maps: one chunk of 64 grid maps (2 bytes
/// a cell) and the compact maps (2 bytes a free cell, plus one slot).
fn narrow_bytes(instance: &Instance, goals: usize) -> u64 {
    let cells = instance.grid().cell_count() as u64;
    let free = instance.grid().free_count();
    cells * 2 * goals.min(64) as u64 + (free + 1) * 2 * goals as u64
}

/// Bytes of the map graph and the distance maps of `instance`: what every solve charges
/// before its search starts.
fn fixed_bytes(instance: &Instance) -> u64 {
    graph_bytes(instance) + narrow_bytes(instance, instance.goals().len())
}

/// LaCAM stops at its first solution: anytime LaCAM would use the whole time limit.
fn with_memory(memory_limit: u64) -> SolverConfig {
    SolverConfig::default()
        .with_time_limit(Duration::from_secs(60))
        .with_memory_limit(memory_limit)
        .with_first_solution(true)
}

/// The `what` of a memory limit, panicking on anything else.
fn memory_limit_what(outcome: SolveOutcome) -> &'static str {
    match outcome {
        SolveOutcome::LimitReached(Limit::Memory { what, bytes, limit }) => {
            assert!(bytes > limit, "{what}: {bytes} <= {limit}");
            what
        }
        other => panic!("expected a memory limit, got {other:?}"),
    }
}

/// Two agents swapping ends of a one-wide corridor: unsolvable, and CBS cannot prove it.
fn corridor_swap() -> Instance {
    let grid = Grid::open(6, 1).unwrap();
    Instance::new(
        Arc::new(grid),
        vec![Cell::new(0, 0), Cell::new(5, 0)],
        vec![Cell::new(5, 0), Cell::new(0, 0)],
    )
    .unwrap()
}

#[test]
fn cbs_on_an_unsolvable_corridor_swap_stops_at_the_memory_limit() {
    let instance = corridor_swap();
    let clock = Instant::now();
    let outcome = solve(&instance, Solver::Cbs, &with_memory(1 << 20)).unwrap();
    assert_eq!(memory_limit_what(outcome), "the CBS constraint tree");
    assert!(
        clock.elapsed() < Duration::from_secs(20),
        "{:?}",
        clock.elapsed()
    );
    // LaCAM is complete: on the same instance it proves there is no solution.
    let lacam = solve(&instance, Solver::Lacam, &with_memory(1 << 20)).unwrap();
    assert!(matches!(lacam, SolveOutcome::NoSolution(_)), "{lacam:?}");
}

#[test]
fn maps_over_the_budget_are_a_memory_limit_for_every_solver() {
    let instance = (0..)
        .find_map(|seed| common::random_instance(32, 32, 10, 40, seed))
        .unwrap();
    let budget = fixed_bytes(&instance) - 1;
    for solver in Solver::ALL {
        let outcome = solve(&instance, solver, &with_memory(budget)).unwrap();
        assert_eq!(memory_limit_what(outcome), "the distance maps", "{solver}");
        let roomy = solve(&instance, solver, &with_memory(budget + (64 << 20))).unwrap();
        assert!(
            !matches!(roomy, SolveOutcome::LimitReached(Limit::Memory { .. })),
            "{solver}: {roomy:?}"
        );
    }
    // Anytime, under the same budget: whichever limit ends the improving, the answer is the
    // best solution found.
    let anytime = with_memory(budget + (64 << 20))
        .with_first_solution(false)
        .with_time_limit(Duration::from_secs(3));
    let SolveOutcome::Solved(best) = solve(&instance, Solver::Lacam, &anytime).unwrap() else {
        panic!("anytime LaCAM lost its first solution at the memory limit");
    };
    assert_eq!(best.validate(&instance), Ok(()));
}

#[test]
fn a_search_over_the_budget_is_a_memory_limit_for_every_solver() {
    let instance = (0..)
        .find_map(|seed| common::random_instance(32, 32, 10, 60, seed))
        .unwrap();
    // The graph and the maps fit; 64 bytes more do not hold any solver's search.
    let budget = fixed_bytes(&instance) + 64;
    let cases = [
        (Solver::Pp, LowLevel::Sparse),
        (Solver::Pp, LowLevel::Wavefront),
        (Solver::Cbs, LowLevel::Sparse),
        (Solver::Lacam, LowLevel::Sparse),
    ];
    for (solver, low_level) in cases {
        // The wavefront low level keeps u32 maps: give it the difference too.
        let wide = match low_level {
            LowLevel::Wavefront => {
                let cells = instance.grid().cell_count() as u64;
                let agents = instance.goals().len();
                cells * 4 * agents as u64 - narrow_bytes(&instance, agents)
            }
            _ => 0,
        };
        let config = with_memory(budget + wide).with_low_level(low_level);
        let outcome = solve(&instance, solver, &config).unwrap();
        let what = memory_limit_what(outcome);
        assert_ne!(what, "the distance maps", "{solver}/{low_level}");
        assert_ne!(what, "the map graph", "{solver}/{low_level}");
    }
}

#[test]
fn pp_on_the_wavefront_crossing_an_open_map_is_a_limit_then_a_solution() {
    // One agent corner to corner: the dense reservation table holds one layer per timestep.
    let grid = Grid::open(128, 128).unwrap();
    let instance = Instance::new(
        Arc::new(grid),
        vec![Cell::new(0, 0)],
        vec![Cell::new(127, 127)],
    )
    .unwrap();
    let config = |memory_limit| with_memory(memory_limit).with_low_level(LowLevel::Wavefront);
    let outcome = solve(&instance, Solver::Pp, &config(2 << 20)).unwrap();
    assert_eq!(memory_limit_what(outcome), "the PP reservation table");
    let SolveOutcome::Solved(solution) = solve(&instance, Solver::Pp, &config(64 << 20)).unwrap()
    else {
        panic!("one agent on an open map must be solved within 64 MiB");
    };
    assert_eq!(solution.validate(&instance), Ok(()));
    assert_eq!(solution.soc(), 254);
}

#[test]
fn a_time_limit_too_large_for_the_clock_is_no_limit() {
    let instance = corridor_swap();
    let config = SolverConfig::default().with_time_limit(Duration::MAX);
    let outcome = solve(&instance, Solver::Lacam, &config).unwrap();
    assert!(
        matches!(outcome, SolveOutcome::NoSolution(_)),
        "{outcome:?}"
    );
}

/// A one-wide serpentine corridor of `rows` rows of `width` cells, joined at alternating ends.
fn serpentine(width: u32, rows: u32) -> (Grid, Cell) {
    let mut grid = Grid::open(width, 2 * rows - 1).unwrap();
    for wall in 0..rows - 1 {
        let y = 2 * wall + 1;
        let gap = if wall % 2 == 0 { width - 1 } else { 0 };
        for x in (0..width).filter(|&x| x != gap) {
            grid.set_blocked(Cell::new(x, y)).unwrap();
        }
    }
    let end_x = if rows % 2 == 1 { width - 1 } else { 0 };
    (grid, Cell::new(end_x, 2 * rows - 2))
}

#[test]
fn paths_longer_than_u16_distances_use_u32_maps() {
    let (grid, end) = serpentine(600, 111);
    let start = Cell::new(0, 0);
    let expected = common::bfs_distance(&grid, start, end).unwrap();
    assert!(expected > 65_535, "{expected}");
    let instance = Instance::new(Arc::new(grid), vec![start], vec![end]).unwrap();
    let SolveOutcome::Solved(solution) =
        solve(&instance, Solver::Pp, &SolverConfig::default()).unwrap()
    else {
        panic!("a single agent in a corridor is solvable");
    };
    assert_eq!(solution.validate(&instance), Ok(()));
    assert_eq!(solution.soc(), expected);
}

#[test]
fn pp_builds_its_maps_a_chunk_at_a_time_when_they_do_not_fit() {
    let instance = (0..)
        .find_map(|seed| common::random_instance(48, 48, 5, 200, seed))
        .unwrap();
    // The graph, one chunk of 64 maps and room for the search; not all 200 maps.
    let budget = graph_bytes(&instance) + narrow_bytes(&instance, 64) + (300 << 10);
    assert!(budget < fixed_bytes(&instance));
    let lacam = solve(&instance, Solver::Lacam, &with_memory(budget)).unwrap();
    assert_eq!(memory_limit_what(lacam), "the distance maps");
    for priority in cuplan_mapf::PriorityOrder::ALL {
        let config = |memory_limit| {
            with_memory(memory_limit)
                .with_priority(priority)
                .with_seed(7)
        };
        let eager = solve(&instance, Solver::Pp, &config(DEFAULT_MEMORY_LIMIT)).unwrap();
        let lazy = solve(&instance, Solver::Pp, &config(budget)).unwrap();
        assert_eq!(lazy, eager, "{priority}");
        if let SolveOutcome::Solved(solution) = lazy {
            assert_eq!(solution.validate(&instance), Ok(()));
        }
    }
}

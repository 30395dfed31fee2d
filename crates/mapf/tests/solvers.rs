//! Every solver on random small instances (proptest) and on the shared MAPF benchmark:
//! solutions validate, CBS matches the exhaustive joint-space optimum, LaCAM reports
//! "no solution" exactly when the oracle does, runs are deterministic and time limits hold.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cuplan_grid::{Cell, Grid};
use cuplan_mapf::{Instance, Limit, PriorityOrder, SolveOutcome, Solver, SolverConfig, solve};
use proptest::prelude::*;

/// LaCAM stops at its first solution here (deterministic, and quick); `anytime.rs` tests the
/// anytime mode.
fn config(seconds: u64) -> SolverConfig {
    SolverConfig::default()
        .with_time_limit(Duration::from_secs(seconds))
        .with_first_solution(true)
}

/// The solution (checked) or `None` for "no solution"; panics on a time-out.
fn solved(
    instance: &Instance,
    solver: Solver,
    cfg: &SolverConfig,
) -> Option<cuplan_mapf::Solution> {
    solved_or_timeout(instance, solver, cfg).unwrap_or_else(|| panic!("{solver} timed out"))
}

/// `Some(solved(..))`, or `None` on a time-out.
fn solved_or_timeout(
    instance: &Instance,
    solver: Solver,
    cfg: &SolverConfig,
) -> Option<Option<cuplan_mapf::Solution>> {
    Some(match solve(instance, solver, cfg).unwrap() {
        SolveOutcome::Solved(s) => {
            if let Err(v) = s.validate(instance) {
                panic!("{solver} returned an invalid solution: {v}");
            }
            assert!(s.soc() >= instance.lower_bound());
            for (path, goal) in s.paths.iter().zip(instance.goals()) {
                assert_eq!(path.last(), Some(goal));
                assert_eq!(
                    cuplan_mapf::Solution::agent_cost(path) as usize,
                    path.len() - 1,
                    "path not trimmed"
                );
            }
            Some(s)
        }
        SolveOutcome::NoSolution(why) => {
            assert!(!why.is_empty());
            None
        }
        SolveOutcome::LimitReached(Limit::Time { .. }) => return None,
        SolveOutcome::LimitReached(other) => panic!("{solver}: {other}"),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Tiny grids with 2-3 agents: CBS is optimal, LaCAM is complete, PP is valid when it
    /// succeeds. CBS may time out only where the optimum lies far above the lower bound
    /// (agents reordering in corridors, where the constraint tree grows exponentially with
    /// the number of unit cost increments); everywhere else it must finish and match.
    #[test]
    fn cbs_optimal_lacam_complete_on_tiny_instances(
        seed in any::<u64>(), w in 2u32..6, h in 2u32..5, agents in 2usize..4, density in 0u64..30,
    ) {
        let Some(inst) = common::random_instance(w, h, density, agents, seed) else { return Ok(()) };
        let optimum = common::optimal_soc(&inst);
        let lacam = solved(&inst, Solver::Lacam, &config(20));
        prop_assert_eq!(lacam.is_some(), optimum.is_some());
        if let Some(opt) = optimum {
            let quick = config(0).with_time_limit(Duration::from_secs(2));
            match solved_or_timeout(&inst, Solver::Cbs, &quick) {
                Some(cbs) => prop_assert_eq!(cbs.map(|s| s.soc()), Some(opt)),
                None => prop_assert!(opt >= inst.lower_bound() + 6, "CBS timed out: optimum {opt}"),
            }
            prop_assert!(lacam.unwrap().soc() >= opt);
        }
        if let Some(pp) = solved(&inst, Solver::Pp, &config(20)) {
            prop_assert!(optimum.is_some_and(|o| pp.soc() >= o));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// Denser random instances: every solver's answer validates (CBS within a short limit);
    /// PP under every order.
    #[test]
    fn solutions_validate_on_random_instances(seed in any::<u64>(), agents in 2usize..16, density in 0u64..25) {
        let Some(inst) = common::random_instance(10, 8, density, agents, seed) else { return Ok(()) };
        let lacam = solved(&inst, Solver::Lacam, &config(20));
        if lacam.is_some() {
            let quick = config(0).with_time_limit(Duration::from_millis(500));
            let _ = solved_or_timeout(&inst, Solver::Cbs, &quick);
        }
        for priority in PriorityOrder::ALL {
            let cfg = config(20).with_priority(priority).with_seed(seed);
            if solved(&inst, Solver::Pp, &cfg).is_some() {
                prop_assert!(lacam.is_some());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(80))]

    /// Open grids, where rectangle conflicts are common: CBS with rectangle reasoning (the
    /// default) matches the exhaustive optimum for 3 agents.
    #[test]
    fn cbs_with_rectangles_matches_the_oracle_on_open_grids(
        seed in any::<u64>(), w in 4u32..7, h in 4u32..7, density in 0u64..10,
    ) {
        let Some(inst) = common::random_instance(w, h, density, 3, seed) else { return Ok(()) };
        let quick = config(2);
        if let (Some(optimum), Some(cbs)) = (common::optimal_soc(&inst), solved_or_timeout(&inst, Solver::Cbs, &quick)) {
            prop_assert_eq!(cbs.map(|s| s.soc()), Some(optimum));
        }
    }

    /// More agents than the oracle can take: CBS with rectangles, CBS without them (the
    /// plain vertex split) and EECBS at w = 1 find the same optimum wherever each finishes.
    #[test]
    fn rectangles_never_change_the_optimum(
        seed in any::<u64>(), agents in 4usize..14, density in 0u64..15,
    ) {
        let Some(inst) = common::random_instance(9, 9, density, agents, seed) else { return Ok(()) };
        let quick = config(1);
        let runs = [
            solved_or_timeout(&inst, Solver::Cbs, &quick),
            solved_or_timeout(&inst, Solver::Cbs, &quick.clone().with_rectangles(false)),
            solved_or_timeout(&inst, Solver::Eecbs, &quick.clone().with_suboptimality(1.0)),
        ];
        let costs: Vec<Option<u64>> = runs.into_iter().flatten().map(|s| s.map(|s| s.soc())).collect();
        prop_assert!(costs.windows(2).all(|w| w[0] == w[1]), "{costs:?}");
    }
}

/// The textbook rectangle (Li et al. 2019): on an empty grid every pair of shortest paths of
/// these two agents meets inside the 6 × 6 square between them, so plain CBS splits one
/// conflict after another without raising the cost (a tree exponential in the square's size),
/// while rectangle reasoning's two barriers settle it in one split. The tree's memory is the
/// observable: a small budget suffices with barriers and runs out without.
#[test]
fn rectangle_reasoning_settles_a_crossing_in_one_split() {
    let row = ".".repeat(16) + "\n";
    let grid = Arc::new(Grid::from_ascii(&row.repeat(16)).unwrap());
    let inst = Instance::new(
        grid,
        vec![Cell::new(0, 5), Cell::new(5, 0)],
        vec![Cell::new(12, 10), Cell::new(10, 12)],
    )
    .unwrap();
    let tight = config(60).with_memory_limit(256 << 10);
    let with = solved(&inst, Solver::Cbs, &tight).expect("solvable");
    assert_eq!(with.soc(), inst.lower_bound() + 1);
    let without = solve(&inst, Solver::Cbs, &tight.with_rectangles(false)).unwrap();
    assert!(
        matches!(without, SolveOutcome::LimitReached(Limit::Memory { .. })),
        "{without:?}"
    );
}

#[test]
fn solves_trivial_instances() {
    let grid = Arc::new(Grid::from_ascii("..\n..\n").unwrap());
    let empty = Instance::new(grid.clone(), vec![], vec![]).unwrap();
    let home = Instance::new(grid, vec![Cell::new(0, 0)], vec![Cell::new(0, 0)]).unwrap();
    for solver in Solver::ALL {
        assert_eq!(solved(&empty, solver, &config(5)).unwrap().paths.len(), 0);
        let s = solved(&home, solver, &config(5)).unwrap();
        assert_eq!(s.paths, vec![vec![Cell::new(0, 0)]]);
        assert_eq!((s.soc(), s.makespan()), (0, 0));
    }
}

#[test]
fn reports_unsolvable_instances() {
    // Two agents swapping ends of a corridor: impossible.
    let grid = Arc::new(Grid::from_ascii("...\n").unwrap());
    let inst = Instance::new(
        grid,
        vec![Cell::new(0, 0), Cell::new(2, 0)],
        vec![Cell::new(2, 0), Cell::new(0, 0)],
    )
    .unwrap();
    assert_eq!(common::optimal_soc(&inst), None);
    assert!(matches!(
        solve(&inst, Solver::Lacam, &config(5)).unwrap(),
        SolveOutcome::NoSolution(_)
    ));
    assert!(matches!(
        solve(&inst, Solver::Pp, &config(5)).unwrap(),
        SolveOutcome::NoSolution(_)
    ));
    // The constraint tree cannot prove it: the time limit ends the search, never a plan.
    for solver in [Solver::Cbs, Solver::Eecbs] {
        let outcome = solve(
            &inst,
            solver,
            &config(0).with_time_limit(Duration::from_millis(300)),
        )
        .unwrap();
        assert!(
            matches!(
                outcome,
                SolveOutcome::LimitReached(Limit::Time { .. }) | SolveOutcome::NoSolution(_)
            ),
            "{solver}: {outcome:?}"
        );
    }
}

#[test]
fn pp_reports_which_agent_failed() {
    // Agent 0 (planned first in the given order) parks on the junction agent 1 must cross;
    // planned the other way round, agent 0 steps into the side pocket and both succeed.
    let grid = Arc::new(Grid::from_ascii(".....\n@@.@@\n").unwrap());
    let starts = vec![Cell::new(1, 0), Cell::new(0, 0)];
    let goals = vec![Cell::new(2, 0), Cell::new(4, 0)];
    let inst = Instance::new(grid, starts, goals).unwrap();
    let given = config(5).with_priority(PriorityOrder::Given);
    match solve(&inst, Solver::Pp, &given).unwrap() {
        SolveOutcome::NoSolution(why) => assert!(why.contains("agent 1"), "{why}"),
        other => panic!("expected a PP failure, got {other:?}"),
    }
    let longest = config(5).with_priority(PriorityOrder::LongestFirst);
    assert!(solved(&inst, Solver::Pp, &longest).is_some());
    let optimum = common::optimal_soc(&inst).unwrap();
    assert_eq!(
        solved(&inst, Solver::Cbs, &config(5)).unwrap().soc(),
        optimum
    );
    assert!(solved(&inst, Solver::Lacam, &config(5)).unwrap().soc() >= optimum);
}

#[test]
fn deterministic_for_a_seed() {
    let inst = (0..)
        .find_map(|seed| common::random_instance(12, 12, 15, 30, seed))
        .unwrap();
    for solver in Solver::ALL {
        let cfg = config(20).with_seed(7).with_priority(PriorityOrder::Random);
        let a = solve(&inst, solver, &cfg).unwrap();
        let b = solve(&inst, solver, &cfg).unwrap();
        assert_eq!(a, b, "{solver}");
    }
}

#[test]
fn time_limits_hold_on_a_hard_instance() {
    // 300 agents on a 30x30 map: CBS cannot finish in 200 ms.
    let inst = (0..)
        .find_map(|seed| common::random_instance(30, 30, 10, 300, seed))
        .unwrap();
    let limit = Duration::from_millis(200);
    let clock = Instant::now();
    let outcome = solve(&inst, Solver::Cbs, &config(0).with_time_limit(limit)).unwrap();
    assert_eq!(outcome, SolveOutcome::LimitReached(Limit::Time { limit }));
    assert!(
        clock.elapsed() < limit + Duration::from_millis(500),
        "{:?}",
        clock.elapsed()
    );
    let zero = config(0).with_time_limit(Duration::ZERO);
    for solver in Solver::ALL {
        assert_eq!(
            solve(&inst, solver, &zero).unwrap(),
            SolveOutcome::LimitReached(Limit::Time {
                limit: Duration::ZERO
            }),
            "{solver}"
        );
    }
}

/// (map, scen, agents for LaCAM and PP, agents for CBS or 0)
const SHARED: &[(&str, &str, usize, usize)] = &[
    (
        "random-32-32-10",
        "scen-random/random-32-32-10-random-1.scen",
        150,
        30,
    ),
    (
        "random-32-32-20",
        "scen-even/random-32-32-20-even-1.scen",
        100,
        15,
    ),
    (
        "room-32-32-4",
        "scen-random/room-32-32-4-random-1.scen",
        100,
        10,
    ),
    (
        "maze-32-32-2",
        "scen-random/maze-32-32-2-random-1.scen",
        60,
        8,
    ),
    ("empty-8-8", "scen-even/empty-8-8-even-1.scen", 32, 10),
    (
        "warehouse-10-20-10-2-1",
        "scen-random/warehouse-10-20-10-2-1-random-1.scen",
        300,
        0,
    ),
    ("den312d", "scen-random/den312d-random-1.scen", 200, 0),
    ("ost003d", "scen-even/ost003d-even-1.scen", 200, 0),
];

#[test]
fn shared_mapf_benchmark_solutions_validate() {
    let Some(dir) = common::mapf_data() else {
        return;
    };
    for &(map, scen, k, k_cbs) in SHARED {
        let map_path = dir.join("maps").join(format!("{map}.map"));
        let inst = Instance::from_moving_ai(&map_path, dir.join(scen), k).unwrap();
        assert!(
            solved(&inst, Solver::Lacam, &config(60)).is_some(),
            "lacam failed on {map}"
        );
        let _ = solved(&inst, Solver::Pp, &config(60));
        if k_cbs > 0 {
            let small = Instance::from_moving_ai(&map_path, dir.join(scen), k_cbs).unwrap();
            assert!(
                solved(&small, Solver::Cbs, &config(60)).is_some(),
                "cbs failed on {map}"
            );
        }
    }
}

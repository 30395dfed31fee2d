//! EECBS (bounded-suboptimal CBS): every answer validates, its sum of costs is within the
//! factor of the optimum (the exhaustive joint-space oracle on tiny instances, optimal CBS on
//! larger ones), the lower bound it reports is at most the optimum and proves the factor,
//! `w = 1` is optimal, and bad factors are refused.

mod common;

use std::sync::Arc;
use std::time::Duration;

use cuplan_grid::{Cell, Grid};
use cuplan_mapf::{
    Instance, Limit, MapfError, SolveOutcome, Solver, SolverConfig, solve, solve_with_progress,
};
use proptest::prelude::*;

fn config(w: f64, limit: Duration) -> SolverConfig {
    SolverConfig::default()
        .with_time_limit(limit)
        .with_suboptimality(w)
}

/// `Some((soc, lower bound))`, `None` for a time-out; panics on anything else wrong.
fn eecbs(instance: &Instance, w: f64, limit: Duration) -> Option<(u64, u64)> {
    let mut reports = Vec::new();
    let outcome = solve_with_progress(instance, Solver::Eecbs, &config(w, limit), &mut |r| {
        reports.push(r.clone())
    })
    .unwrap();
    match outcome {
        SolveOutcome::Solved(s) => {
            if let Err(v) = s.validate(instance) {
                panic!("eecbs returned an invalid solution: {v}");
            }
            let [report] = reports.as_slice() else {
                panic!("one report expected: {reports:?}");
            };
            assert_eq!((report.soc, report.by), (s.soc(), "eecbs"));
            let lb = report.lower_bound;
            assert!(lb >= instance.lower_bound() && lb <= s.soc());
            assert!(
                s.soc() as f64 <= w * lb as f64 + 1e-9,
                "soc {} above {w} x lower bound {lb}",
                s.soc()
            );
            Some((s.soc(), lb))
        }
        SolveOutcome::LimitReached(Limit::Time { .. }) => None,
        other => panic!("eecbs: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Tiny grids with 2-3 agents against the oracle: within the factor, the bound at most the
    /// optimum, and optimal at `w = 1`. A time-out is allowed only where the optimum lies far
    /// above the lower bound (as for CBS).
    #[test]
    fn within_the_factor_of_the_oracle(
        seed in any::<u64>(), w in 2u32..6, h in 2u32..5, agents in 2usize..4,
        density in 0u64..30, factor in prop::sample::select(vec![1.0, 1.05, 1.2, 1.5, 2.0]),
    ) {
        let Some(inst) = common::random_instance(w, h, density, agents, seed) else { return Ok(()) };
        let Some(opt) = common::optimal_soc(&inst) else { return Ok(()) };
        match eecbs(&inst, factor, Duration::from_secs(2)) {
            Some((soc, lb)) => {
                prop_assert!(soc >= opt && lb <= opt, "soc {} lb {} optimum {}", soc, lb, opt);
                prop_assert!(soc as f64 <= factor * opt as f64 + 1e-9);
                if factor == 1.0 {
                    prop_assert_eq!(soc, opt);
                }
            }
            None => prop_assert!(opt >= inst.lower_bound() + 6, "timed out: optimum {}", opt),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Up to 16 agents on a 10 x 8 grid: within the factor of optimal CBS wherever CBS
    /// finishes.
    #[test]
    fn within_the_factor_of_optimal_cbs(seed in any::<u64>(), agents in 2usize..16, density in 0u64..25) {
        let Some(inst) = common::random_instance(10, 8, density, agents, seed) else { return Ok(()) };
        let quick = SolverConfig::default().with_time_limit(Duration::from_secs(1));
        let SolveOutcome::Solved(optimal) = solve(&inst, Solver::Cbs, &quick).unwrap() else {
            return Ok(());
        };
        let opt = optimal.soc();
        for factor in [1.0, 1.1, 1.5] {
            if let Some((soc, lb)) = eecbs(&inst, factor, Duration::from_secs(5)) {
                prop_assert!(lb <= opt && soc >= opt);
                prop_assert!(soc as f64 <= factor * opt as f64 + 1e-9);
            }
        }
    }
}

#[test]
fn refuses_bad_factors() {
    let grid = Arc::new(Grid::from_ascii("...\n...\n").unwrap());
    let inst = Instance::new(grid, vec![Cell::new(0, 0)], vec![Cell::new(2, 1)]).unwrap();
    for w in [0.5, 0.999, f64::NAN, f64::INFINITY, 1000.5, -1.0] {
        match solve(&inst, Solver::Eecbs, &config(w, Duration::from_secs(5))) {
            Err(MapfError::InvalidArgument(why)) => assert!(why.contains("suboptimality"), "{why}"),
            other => panic!("w = {w}: {other:?}"),
        }
    }
    // The factor is EECBS's alone: the other solvers ignore it.
    assert!(matches!(
        solve(&inst, Solver::Cbs, &config(0.5, Duration::from_secs(5))),
        Ok(SolveOutcome::Solved(_))
    ));
}

/// Hundreds of agents on the shared benchmark (skipped without it).
#[test]
fn solves_a_hundred_and_fifty_agents_on_random_32_32_10() {
    let Some(dir) = common::mapf_data() else {
        return;
    };
    let inst = Instance::from_moving_ai(
        dir.join("maps/random-32-32-10.map"),
        dir.join("scen-random/random-32-32-10-random-1.scen"),
        150,
    )
    .unwrap();
    let (soc, lb) = eecbs(&inst, 1.2, Duration::from_secs(60)).expect("eecbs timed out");
    assert!(soc >= inst.lower_bound() && lb >= inst.lower_bound());
}

//! The layered low level (`LowLevel::Wavefront`: `cuplan_wavefront::space_time_astar` over
//! `cuplan_reservations` tables and constraints): PP's plans validate, CBS returns the same
//! optimal sum of costs as with the sparse low level and as the exhaustive joint-space
//! oracle of `common`, on random instances and on the shared MAPF benchmark.

mod common;

use std::time::Duration;

use cuplan_mapf::{
    Instance, Limit, LowLevel, PriorityOrder, Solution, SolveOutcome, Solver, SolverConfig, solve,
};
use proptest::prelude::*;

fn config(low_level: LowLevel, limit: Duration) -> SolverConfig {
    SolverConfig::default()
        .with_time_limit(limit)
        .with_low_level(low_level)
}

/// `Some(Some(solution))` (validated, paths trimmed), `Some(None)` for "no solution",
/// `None` on a time-out.
fn outcome(instance: &Instance, solver: Solver, cfg: &SolverConfig) -> Option<Option<Solution>> {
    match solve(instance, solver, cfg).unwrap() {
        SolveOutcome::Solved(s) => {
            if let Err(v) = s.validate(instance) {
                panic!(
                    "{solver}/{} returned an invalid solution: {v}",
                    cfg.low_level
                );
            }
            for path in &s.paths {
                assert_eq!(Solution::agent_cost(path) as usize, path.len() - 1);
            }
            assert!(s.soc() >= instance.lower_bound());
            Some(Some(s))
        }
        SolveOutcome::NoSolution(why) => {
            assert!(!why.is_empty());
            Some(None)
        }
        SolveOutcome::LimitReached(Limit::Time { .. }) => None,
        SolveOutcome::LimitReached(other) => panic!("{other}"),
    }
}

#[test]
fn low_level_names_round_trip() {
    for low in LowLevel::ALL {
        assert_eq!(low.name().parse::<LowLevel>().unwrap(), low);
        assert_eq!(low.to_string(), low.name());
    }
    assert_eq!(LowLevel::default(), LowLevel::Sparse);
    assert_eq!(SolverConfig::default().low_level, LowLevel::Sparse);
    assert!("dense".parse::<LowLevel>().is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Tiny instances: CBS on the wavefront matches the oracle and CBS on the sparse low
    /// level (time-outs allowed only far above the lower bound, as in `solvers.rs`); PP on
    /// the wavefront validates and never beats the optimum.
    #[test]
    fn wavefront_cbs_is_optimal_and_pp_valid_on_tiny_instances(
        seed in any::<u64>(), w in 2u32..6, h in 2u32..5, agents in 2usize..4, density in 0u64..30,
    ) {
        let Some(inst) = common::random_instance(w, h, density, agents, seed) else { return Ok(()) };
        let optimum = common::optimal_soc(&inst);
        if let Some(opt) = optimum {
            // Far above the lower bound the constraint tree grows exponentially: a short
            // limit there, and a time-out is accepted only there.
            let hard = opt >= inst.lower_bound() + 6;
            let limit = Duration::from_millis(if hard { 200 } else { 2000 });
            match outcome(&inst, Solver::Cbs, &config(LowLevel::Wavefront, limit)) {
                Some(found) => {
                    let soc = found.map(|s| s.soc());
                    prop_assert_eq!(soc, Some(opt));
                    let sparse = outcome(&inst, Solver::Cbs, &config(LowLevel::Sparse, limit));
                    if let Some(Some(s)) = sparse {
                        prop_assert_eq!(s.soc(), opt);
                    }
                }
                None => prop_assert!(hard, "CBS (wavefront) timed out: optimum {opt}"),
            }
        }
        let pp = outcome(&inst, Solver::Pp, &config(LowLevel::Wavefront, Duration::from_secs(20)));
        let pp = pp.expect("PP (wavefront) timed out");
        if let Some(pp) = pp {
            prop_assert!(optimum.is_some_and(|o| pp.soc() >= o));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Denser 10x8 instances with up to 15 agents: PP on the wavefront validates under every
    /// priority order.
    #[test]
    fn wavefront_pp_validates_on_random_instances(
        seed in any::<u64>(), agents in 2usize..16, density in 0u64..25,
    ) {
        let Some(inst) = common::random_instance(10, 8, density, agents, seed) else { return Ok(()) };
        for priority in PriorityOrder::ALL {
            let cfg = config(LowLevel::Wavefront, Duration::from_secs(20)).with_priority(priority).with_seed(seed);
            prop_assert!(outcome(&inst, Solver::Pp, &cfg).is_some(), "PP (wavefront) timed out");
        }
    }
}

/// PP on the wavefront on real benchmark maps: the plans validate (failures are allowed,
/// PP is incomplete, but must be reported cleanly).
#[test]
fn shared_mapf_benchmark_wavefront_pp_validates() {
    let Some(dir) = common::mapf_data() else {
        return;
    };
    let cases = [
        (
            "random-64-64-10",
            "scen-random/random-64-64-10-random-1.scen",
            200,
        ),
        ("den520d", "scen-random/den520d-random-1.scen", 200),
    ];
    for (map, scen, k) in cases {
        let map_path = dir.join("maps").join(format!("{map}.map"));
        let inst = Instance::from_moving_ai(&map_path, dir.join(scen), k).unwrap();
        let cfg = config(LowLevel::Wavefront, Duration::from_secs(60));
        assert!(
            outcome(&inst, Solver::Pp, &cfg).is_some(),
            "PP (wavefront) timed out on {map}"
        );
    }
}

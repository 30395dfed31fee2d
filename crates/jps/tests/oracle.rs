//! Property tests: on generated grids (random densities, mazes, rooms; widths around word
//! boundaries and thin 1×N / N×1 strips) every algorithm's answer equals an independent
//! Dijkstra exactly, every path is legal, unreachable goals give `None`, and bad endpoints
//! give the matching `Err`.

mod common;

use cuplan_grid::{Cell, Grid, generate};
use cuplan_jps::{Algorithm, Endpoint, JpsError, Planner, SearchOutcome, Searcher};
use proptest::prelude::*;

/// Widths that straddle 64-bit words, plus thin and random ones.
fn side() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(1u32),
        Just(2),
        Just(63),
        Just(64),
        Just(65),
        Just(127),
        Just(128),
        Just(129),
        1u32..100,
    ]
}

#[derive(Debug, Clone)]
enum Kind {
    Random(f64),
    Maze(u32),
    Rooms(u32),
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        (0.0f64..0.45).prop_map(Kind::Random),
        (1u32..4).prop_map(Kind::Maze),
        (3u32..12).prop_map(Kind::Rooms),
    ]
}

/// A grid of at most ~6000 cells so Dijkstra per start stays cheap.
fn grid() -> impl Strategy<Value = Grid> {
    (side(), side(), kind(), any::<u64>(), any::<bool>()).prop_map(|(w, h, k, seed, flip)| {
        let (w, h) = if flip { (h, w) } else { (w, h) };
        let h = h.min((6000 / w).max(1));
        let made = match k {
            Kind::Random(d) => generate::random(w, h, d, seed),
            Kind::Maze(c) => generate::maze(w, h, c, seed),
            Kind::Rooms(r) => generate::rooms(w, h, r, seed),
        };
        made.or_else(|_| generate::random(w, h, 0.2, seed))
            .expect("random grids of any size build")
    })
}

fn planners(grid: &Grid) -> Vec<Planner<'_>> {
    Algorithm::ALL
        .into_iter()
        .map(|a| Planner::new(grid, a).unwrap_or_else(|e| panic!("{a}: {e}")))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_algorithm_equals_dijkstra(grid in grid(), picks in prop::collection::vec(any::<prop::sample::Index>(), 6)) {
        let free = common::free_cells(&grid);
        prop_assume!(!free.is_empty());
        let planners = planners(&grid);
        let mut searcher = Searcher::new();
        for s in picks.iter().take(2) {
            let start = free[s.index(free.len())];
            let dist = common::dijkstra(&grid, start);
            for g in &picks {
                let goal = free[g.index(free.len())];
                let expected = dist[goal.y as usize * grid.width() as usize + goal.x as usize];
                for p in &planners {
                    let got = p.search(&mut searcher, start, goal).expect("valid endpoints");
                    match (got, expected) {
                        (None, None) => {}
                        (Some(path), Some(cost)) => {
                            prop_assert_eq!(path.cost, cost, "{} {}->{}", p.algorithm(), start, goal);
                            prop_assert_eq!(grid.octile_path_cost(&path.waypoints), Ok(cost));
                            prop_assert_eq!(path.waypoints.first(), Some(&start));
                            prop_assert_eq!(path.waypoints.last(), Some(&goal));
                        }
                        (got, want) => prop_assert!(false, "{} {}->{}: got {:?}, want {:?}", p.algorithm(), start, goal, got, want),
                    }
                }
            }
        }
    }

    #[test]
    fn bad_endpoints_are_errors_naming_the_endpoint(grid in grid(), pick in any::<prop::sample::Index>()) {
        let free = common::free_cells(&grid);
        prop_assume!(!free.is_empty());
        let ok = free[pick.index(free.len())];
        let outside = Cell::new(grid.width(), pick.index(grid.height() as usize + 3) as u32);
        let blocked = (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
            .find(|&c| !grid.is_free(c));
        let mut searcher = Searcher::new();
        for p in planners(&grid) {
            let is_out = |r: Result<_, JpsError>, e: Endpoint| matches!(r, Err(JpsError::OutOfRange { endpoint, .. }) if endpoint == e);
            prop_assert!(is_out(p.search(&mut searcher, outside, ok), Endpoint::Start));
            prop_assert!(is_out(p.search(&mut searcher, ok, outside), Endpoint::Goal));
            if let Some(b) = blocked {
                let is_blocked = |r: Result<_, JpsError>, e: Endpoint| matches!(r, Err(JpsError::Blocked { endpoint, .. }) if endpoint == e);
                prop_assert!(is_blocked(p.search(&mut searcher, b, ok), Endpoint::Start));
                prop_assert!(is_blocked(p.search(&mut searcher, ok, b), Endpoint::Goal));
            }
            let same = p.search(&mut searcher, ok, ok).expect("valid").expect("trivial path");
            prop_assert_eq!(same.waypoints, vec![ok]);
            prop_assert_eq!(same.cost, cuplan_grid::OctileCost::ZERO);
        }
    }
}

#[test]
fn expansion_limit_is_reported_not_confused_with_no_path() {
    let grid = generate::maze(63, 63, 1, 7).expect("maze");
    let free = common::free_cells(&grid);
    let (start, goal) = (free[0], free[free.len() - 1]);
    let mut searcher = Searcher::new();
    for p in planners(&grid) {
        let limited = p
            .search_limited(&mut searcher, start, goal, 3)
            .expect("valid");
        assert_eq!(limited, SearchOutcome::LimitReached, "{}", p.algorithm());
        assert!(searcher.stats().expanded <= 3);
        let full = p
            .search_limited(&mut searcher, start, goal, u64::MAX)
            .expect("valid");
        assert!(matches!(full, SearchOutcome::Found(_)), "{}", p.algorithm());
        assert!(searcher.stats().expanded > 3 && searcher.stats().pushes > 0);
    }
}

#[test]
fn unknown_algorithm_names_list_the_valid_ones() {
    let err = "dijkstra".parse::<Algorithm>().expect_err("unknown");
    let msg = err.to_string();
    for a in Algorithm::ALL {
        assert!(msg.contains(a.name()), "{msg}");
        assert_eq!(a.name().parse::<Algorithm>(), Ok(a));
        assert_eq!(a.to_string(), a.name());
    }
}

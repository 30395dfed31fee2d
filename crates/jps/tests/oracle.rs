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

fn planners(grid: &Grid) -> Vec<Planner> {
    Algorithm::ALL
        .into_iter()
        .map(|a| Planner::new(grid.clone(), a).unwrap_or_else(|e| panic!("{a}: {e}")))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn every_algorithm_equals_dijkstra(grid in grid(), picks in prop::collection::vec(any::<prop::sample::Index>(), 6)) {
        let free = common::free_cells(&grid);
        prop_assume!(!free.is_empty());
        let planners = planners(&grid);
        let mut searchers = [Searcher::new(), Searcher::paged(), Searcher::bounded(2 * Searcher::PAGE_BYTES)];
        for s in picks.iter().take(2) {
            let start = free[s.index(free.len())];
            let dist = common::dijkstra(&grid, start);
            for g in &picks {
                let goal = free[g.index(free.len())];
                let expected = dist[grid.index(goal).get()];
                for p in &planners {
                for (si, searcher) in searchers.iter_mut().enumerate() {
                    let got = match p.search_limited(searcher, start, goal, u64::MAX).expect("valid endpoints") {
                        SearchOutcome::Found(path) => Some(path),
                        SearchOutcome::NoPath => None,
                        // Only the bounded searcher may stop short, and only when its two
                        // pages cannot cover the grid's 16 × 16 blocks.
                        SearchOutcome::LimitReached => {
                            let blocks = grid.width().div_ceil(16) * grid.height().div_ceil(16);
                            prop_assert!(si == 2 && blocks > 2, "{} searcher {si} gave up on {blocks} blocks", p.algorithm());
                            prop_assert!(expected.is_some(), "limit reported for an unreachable goal");
                            continue;
                        }
                    };
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

#[test]
fn paged_searchers_follow_the_queried_area_and_survive_grid_changes() {
    // One searcher of each kind reused across grids of different shapes (the paged directory
    // is rebuilt when the width changes), answers checked against Dijkstra.
    let grids = [
        generate::random(300, 200, 0.2, 1).expect("grid"),
        generate::rooms(97, 301, 9, 2).expect("grid"),
        generate::maze(300, 200, 2, 3).expect("grid"),
        generate::random(40, 40, 0.1, 4).expect("grid"),
    ];
    let mut dense = Searcher::new();
    let mut paged = Searcher::paged();
    for grid in &grids {
        let free = common::free_cells(grid);
        let planner = Planner::new(grid.clone(), Algorithm::JpsBitPrune).expect("planner");
        for k in 0..20 {
            let start = free[(k * 7919) % free.len()];
            let goal = free[(k * 104_729 + 13) % free.len()];
            let dist = common::dijkstra(grid, start);
            let want = dist[grid.index(goal).get()];
            for searcher in [&mut dense, &mut paged] {
                let got = planner.search(searcher, start, goal).expect("valid");
                assert_eq!(got.map(|p| p.cost), want, "{start}->{goal}");
            }
        }
    }
}

#[test]
fn a_short_query_on_a_big_map_costs_a_few_pages_and_bounded_searchers_keep_their_cap() {
    let grid = generate::random(1024, 1024, 0.1, 5).expect("grid");
    let planner = Planner::new(grid.clone(), Algorithm::JpsBitPrunePre).expect("planner");
    let free = common::free_cells(&grid);
    let start = free[free.len() / 2];
    let goal = free
        .iter()
        .copied()
        .find(|c| c.y == start.y + 20 && c.x + 30 >= start.x && grid.connected(start, *c))
        .expect("a goal 20 rows down");
    let mut dense = Searcher::new();
    let mut paged = Searcher::paged();
    let want = planner.search(&mut dense, start, goal).expect("valid");
    assert_eq!(
        planner.search(&mut paged, start, goal).expect("valid"),
        want
    );
    let directory = 64 * 64 * 4;
    assert!(dense.bytes() >= 1024 * 1024 * 16);
    assert!(
        paged.bytes() < directory + 64 * Searcher::PAGE_BYTES,
        "{} bytes for a 20-row query",
        paged.bytes()
    );
    // A cap too small for the query: the search stops, never answers wrongly; a cap that fits
    // gives the same path, and the pages never exceed the cap.
    let mut tiny = Searcher::bounded(Searcher::PAGE_BYTES);
    assert_eq!(
        planner
            .search_limited(&mut tiny, start, goal, u64::MAX)
            .expect("valid"),
        SearchOutcome::LimitReached
    );
    let cap = 256 * Searcher::PAGE_BYTES;
    let mut roomy = Searcher::bounded(cap);
    for (a, b) in generate::random_queries(&grid, 200, 6) {
        let outcome = planner
            .search_limited(&mut roomy, a, b, u64::MAX)
            .expect("valid");
        if let SearchOutcome::Found(path) = outcome {
            let full = planner
                .search(&mut dense, a, b)
                .expect("valid")
                .expect("path");
            assert_eq!(path.cost, full.cost);
        }
        // Pages within the cap, and the heap within one entry (16 B) per node the pages hold.
        let heap_cap = cap / Searcher::PAGE_BYTES * 256 * 16;
        assert!(
            roomy.bytes() <= cap + heap_cap + directory + 1024,
            "{} bytes",
            roomy.bytes()
        );
    }
    assert_eq!(
        planner.search(&mut roomy, start, goal).expect("valid"),
        want
    );
}

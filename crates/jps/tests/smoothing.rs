//! Any-angle smoothing: `line_of_sight` equals an independent segment-versus-closed-square
//! test, and smoothed paths keep their endpoints, have line of sight between consecutive
//! waypoints and are never longer than the octile optimum.

mod common;

use cuplan_grid::{Cell, Grid, generate};
use cuplan_jps::{Algorithm, Planner, Searcher, euclidean_length, line_of_sight, smooth};
use proptest::prelude::*;

/// Exact oracle: the segment between cell centres (in half units) meets the closed square of
/// a blocked cell iff their bounding boxes overlap and the square's corners are not all
/// strictly on one side of the segment's line.
fn oracle(grid: &Grid, a: Cell, b: Cell) -> bool {
    if !grid.is_free(a) || !grid.is_free(b) {
        return false;
    }
    let (ax, ay) = (2 * i64::from(a.x) + 1, 2 * i64::from(a.y) + 1);
    let (bx, by) = (2 * i64::from(b.x) + 1, 2 * i64::from(b.y) + 1);
    for y in -1..=i64::from(grid.height()) {
        for x in -1..=i64::from(grid.width()) {
            if grid.is_free_signed(x, y) {
                continue;
            }
            let (x0, x1, y0, y1) = (2 * x, 2 * x + 2, 2 * y, 2 * y + 2);
            if ax.max(bx) < x0 || ax.min(bx) > x1 || ay.max(by) < y0 || ay.min(by) > y1 {
                continue;
            }
            let side = |px: i64, py: i64| ((bx - ax) * (py - ay) - (by - ay) * (px - ax)).signum();
            let s = [side(x0, y0), side(x1, y0), side(x0, y1), side(x1, y1)];
            if !(s.iter().all(|&v| v > 0) || s.iter().all(|&v| v < 0)) {
                return false;
            }
        }
    }
    true
}

fn grid() -> impl Strategy<Value = Grid> {
    (1u32..40, 1u32..40, 0.0f64..0.35, any::<u64>())
        .prop_map(|(w, h, d, seed)| generate::random(w, h, d, seed).expect("grid"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn line_of_sight_is_exact(grid in grid(), picks in prop::collection::vec(any::<prop::sample::Index>(), 8)) {
        let free = common::free_cells(&grid);
        prop_assume!(!free.is_empty());
        for p in &picks {
            for q in &picks {
                let (a, b) = (free[p.index(free.len())], free[q.index(free.len())]);
                prop_assert_eq!(line_of_sight(&grid, a, b), oracle(&grid, a, b), "{} {}", a, b);
            }
        }
    }

    #[test]
    fn smoothed_paths_are_visible_and_no_longer(grid in grid(), picks in prop::collection::vec(any::<prop::sample::Index>(), 6)) {
        let free = common::free_cells(&grid);
        prop_assume!(!free.is_empty());
        let planner = Planner::new(grid.clone(), Algorithm::JpsBit).expect("planner");
        let mut searcher = Searcher::new();
        for w in picks.windows(2) {
            let (a, b) = (free[w[0].index(free.len())], free[w[1].index(free.len())]);
            let Some(path) = planner.search(&mut searcher, a, b).expect("valid") else { continue };
            let s = smooth(&grid, &path);
            prop_assert_eq!(s.first(), Some(&a));
            prop_assert_eq!(s.last(), Some(&b));
            for seg in s.windows(2) {
                prop_assert!(oracle(&grid, seg[0], seg[1]), "{} {}", seg[0], seg[1]);
            }
            prop_assert!(euclidean_length(&s) <= path.cost.to_f64() + 1e-9);
        }
    }
}

#[test]
fn a_segment_may_not_pass_between_diagonal_blocks_or_touch_corners() {
    let grid = Grid::from_ascii(
        "
        ....
        .@..
        ..@.
        ....
    ",
    )
    .expect("grid");
    // Through the shared corner of the two blocked cells.
    assert!(!line_of_sight(&grid, Cell::new(3, 0), Cell::new(0, 3)));
    // Touching one blocked corner is a corner cut, as in the octile rule.
    assert!(!line_of_sight(&grid, Cell::new(0, 1), Cell::new(1, 0)));
    assert!(!line_of_sight(&grid, Cell::new(0, 0), Cell::new(2, 1)));
    assert!(line_of_sight(&grid, Cell::new(0, 0), Cell::new(3, 0)));
    assert!(line_of_sight(&grid, Cell::new(3, 1), Cell::new(3, 3)));
}

/// A 65,536-cell corridor is one run: pulled in one line-of-sight test (a test per cell, each
/// as long as the run so far, took seconds per query before).
#[test]
fn a_long_corridor_is_pulled_to_its_ends() {
    let width = 1 << 16;
    let grid = Grid::open(width, 1).expect("grid");
    let planner = Planner::new(grid.clone(), Algorithm::JpsBit).expect("planner");
    let (a, b) = (Cell::new(0, 0), Cell::new(width - 1, 0));
    let path = planner
        .search(&mut Searcher::new(), a, b)
        .expect("valid")
        .expect("path");
    assert_eq!(smooth(&grid, &path), vec![a, b]);
    assert_eq!(euclidean_length(&[a, b]), f64::from(width - 1));
}

/// Long runs that are partly hidden from the anchor: every pulled segment is checked against
/// the oracle, and the pulled path is no longer than the octile one.
#[test]
fn runs_hidden_in_part_are_cut_where_sight_ends() {
    let grid = Grid::from_ascii(
        "
        ..............................
        ..............................
        ..............................
        ..........@@@@@...............
        ..............................
        ..............................
    ",
    )
    .expect("grid");
    // The straight line between the ends crosses the block; either octile answer has a run
    // of which the start sees only a part.
    let (a, b) = (Cell::new(0, 5), Cell::new(29, 0));
    assert!(!line_of_sight(&grid, a, b));
    let planner = Planner::new(grid.clone(), Algorithm::AStar).expect("planner");
    let path = planner
        .search(&mut Searcher::new(), a, b)
        .expect("valid")
        .expect("path");
    let s = smooth(&grid, &path);
    assert_eq!((s.first(), s.last()), (Some(&a), Some(&b)));
    for seg in s.windows(2) {
        assert!(oracle(&grid, seg[0], seg[1]), "{} {}", seg[0], seg[1]);
    }
    assert!(euclidean_length(&s) < path.cost.to_f64());
}

#[test]
fn a_path_of_one_cell_has_length_plus_zero() {
    let grid = Grid::open(3, 3).expect("grid");
    let planner = Planner::new(grid.clone(), Algorithm::Jps).expect("planner");
    let c = Cell::new(1, 1);
    let path = planner
        .search(&mut Searcher::new(), c, c)
        .expect("valid")
        .expect("path");
    let s = smooth(&grid, &path);
    assert_eq!(s, vec![c]);
    let length = euclidean_length(&s);
    assert!(length == 0.0 && length.is_sign_positive(), "{length:?}");
}

//! Property tests of the grid's invariants: the transposed copy, components, round trips.

use cuplan_grid::{Cell, Direction, Family, Grid, generate};
use proptest::prelude::*;

/// Checks, bit by bit, that `cols()` is the transpose of `rows()` including the border.
fn assert_transpose_consistent(grid: &Grid) {
    let (rows, cols) = (grid.rows(), grid.cols());
    assert_eq!(rows.stored_rows(), cols.stored_cols());
    assert_eq!(rows.stored_cols(), cols.stored_rows());
    for r in 0..rows.stored_rows() {
        for c in 0..rows.stored_cols() {
            assert_eq!(
                rows.is_blocked_stored(r, c),
                cols.is_blocked_stored(c, r),
                "stored ({c}, {r})"
            );
        }
    }
    // The border and the padding past the last column are blocked in both planes.
    for (plane, real_cols) in [
        (rows, grid.width() as usize),
        (cols, grid.height() as usize),
    ] {
        for r in 0..plane.stored_rows() {
            for c in real_cols + 1..plane.stride() * 64 {
                assert!(
                    plane.is_blocked_stored(r, c),
                    "padding bit ({r}, {c}) must be blocked"
                );
            }
            assert!(plane.is_blocked_stored(r, 0));
        }
    }
}

/// Component labels from an independent BFS over `is_free` only, as a partition of cells.
fn flood_fill_partition(grid: &Grid) -> Vec<Option<usize>> {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let mut label = vec![None; w * h];
    let mut next = 0;
    for s in 0..w * h {
        let cell = Cell::new((s % w) as u32, (s / w) as u32);
        if label[s].is_some() || !grid.is_free(cell) {
            continue;
        }
        let mut queue = std::collections::VecDeque::from([s]);
        label[s] = Some(next);
        while let Some(i) = queue.pop_front() {
            let (x, y) = ((i % w) as i64, (i / w) as i64);
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let (nx, ny) = (x + dx, y + dy);
                if grid.is_free_signed(nx, ny) {
                    let j = ny as usize * w + nx as usize;
                    if label[j].is_none() {
                        label[j] = Some(next);
                        queue.push_back(j);
                    }
                }
            }
        }
        next += 1;
    }
    label
}

fn assert_components_match_flood_fill(grid: &Grid) {
    let oracle = flood_fill_partition(grid);
    let comps = grid.components();
    let w = grid.width() as usize;
    let mut map = std::collections::HashMap::new();
    for (i, o) in oracle.iter().enumerate() {
        let cell = Cell::new((i % w) as u32, (i / w) as u32);
        let got = comps.of(grid, cell);
        assert_eq!(
            o.is_some(),
            got.is_some(),
            "free/blocked mismatch at {cell}"
        );
        if let (Some(o), Some(g)) = (o, got) {
            // A bijection between oracle labels and component ids.
            assert_eq!(*map.entry(*o).or_insert(g), g, "component split at {cell}");
        }
    }
    let distinct: std::collections::HashSet<_> = map.values().collect();
    assert_eq!(distinct.len(), map.len(), "two oracle components merged");
    assert_eq!(comps.count(), map.len());
}

fn arb_grid() -> impl Strategy<Value = Grid> {
    (1u32..140, 1u32..70, 0.0f64..0.6, any::<u64>())
        .prop_map(|(w, h, d, seed)| generate::random(w, h, d, seed).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn transpose_stays_in_sync_under_updates(
        grid in arb_grid(),
        changes in prop::collection::vec((any::<u32>(), any::<u32>(), any::<bool>()), 0..200),
    ) {
        let mut grid = grid;
        let gen0 = grid.generation();
        let mut changed = 0u64;
        for (x, y, block) in changes {
            let cell = Cell::new(x % grid.width(), y % grid.height());
            let before = grid.is_free(cell);
            let did = if block { grid.set_blocked(cell).unwrap() } else { grid.set_free(cell).unwrap() };
            prop_assert_eq!(did, before == block);
            prop_assert_eq!(grid.is_free(cell), !block);
            changed += u64::from(did);
        }
        prop_assert_eq!(grid.generation(), gen0 + changed);
        assert_transpose_consistent(&grid);
        let free = (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
            .filter(|&c| grid.is_free(c)).count() as u64;
        prop_assert_eq!(grid.free_count(), free);
    }

    #[test]
    fn components_agree_with_flood_fill_after_updates(
        grid in arb_grid(),
        changes in prop::collection::vec((any::<u32>(), any::<u32>(), any::<bool>()), 0..40),
    ) {
        let mut grid = grid;
        assert_components_match_flood_fill(&grid);
        for (x, y, block) in changes {
            let cell = Cell::new(x % grid.width(), y % grid.height());
            if block { grid.set_blocked(cell).unwrap(); } else { grid.set_free(cell).unwrap(); }
        }
        assert_components_match_flood_fill(&grid);
    }

    #[test]
    fn map_text_round_trips(grid in arb_grid()) {
        let text = grid.to_movingai_string();
        let back = Grid::parse_movingai(text.as_bytes(), "<roundtrip>", 1 << 20).unwrap();
        prop_assert_eq!(&back, &grid);
        prop_assert_eq!(back.to_array(), grid.to_array());
        prop_assert_eq!(Grid::from_array(&grid.to_array()).unwrap(), grid);
    }

    #[test]
    fn legal_steps_follow_the_no_corner_cutting_rule(grid in arb_grid(), x in any::<u32>(), y in any::<u32>()) {
        let c = Cell::new(x % grid.width(), y % grid.height());
        for dir in Direction::ALL {
            let (dx, dy) = dir.delta();
            let (cx, cy) = (i64::from(c.x), i64::from(c.y));
            let free = |a: i64, b: i64| grid.is_free_signed(a, b);
            let expected = free(cx + i64::from(dx), cy + i64::from(dy))
                && (!dir.is_diagonal() || (free(cx + i64::from(dx), cy) && free(cx, cy + i64::from(dy))));
            prop_assert_eq!(grid.can_step(c, dir), expected);
        }
    }
}

#[test]
fn generators_are_deterministic_and_shaped() {
    for family in Family::DEFAULT_SUITE {
        let a = family.generate(130, 70, 7).unwrap();
        let b = family.generate(130, 70, 7).unwrap();
        assert_eq!(a, b, "{}", family.name());
        assert_eq!((a.width(), a.height()), (130, 70));
        assert!(a.free_count() > 0, "{} has no free cell", family.name());
        assert_transpose_consistent(&a);
    }
    // A perfect maze is one component; rooms with doors too.
    for grid in [
        generate::maze(101, 61, 4, 3).unwrap(),
        generate::rooms(100, 64, 8, 3).unwrap(),
    ] {
        assert_eq!(grid.components().count(), 1);
    }
    let dense = generate::random(200, 200, 0.25, 1).unwrap();
    let frac = 1.0 - dense.free_count() as f64 / 40_000.0;
    assert!((frac - 0.25).abs() < 0.02, "density {frac}");
}

#[test]
fn random_queries_are_connected_pairs() {
    let grid = generate::random(90, 50, 0.35, 11).unwrap();
    let qs = generate::random_queries(&grid, 500, 5);
    assert_eq!(qs.len(), 500);
    for (a, b) in qs {
        assert!(grid.is_free(a) && grid.is_free(b));
        assert!(grid.connected(a, b));
    }
}

//! Property tests of the grid's invariants: the transposed copy, components, round trips.

use cuplan_grid::{Cell, CellIndex, Change, Direction, Family, Grid, generate};
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

/// Mostly blocked grids, wide enough that whole label pages (256 cells) stay blocked: the
/// pages a change must add, or find absent, are exercised.
fn arb_sparse_grid() -> impl Strategy<Value = Grid> {
    (200u32..700, 1u32..12, 0.85f64..0.995, any::<u64>())
        .prop_map(|(w, h, d, seed)| generate::random(w, h, d, seed).unwrap())
}

fn arb_dense_or_sparse_grid() -> impl Strategy<Value = Grid> {
    prop_oneof![arb_grid(), arb_sparse_grid()]
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
        let mut changed = Vec::new();
        for (x, y, block) in changes {
            let cell = Cell::new(x % grid.width(), y % grid.height());
            let (before, generation) = (grid.is_free(cell), grid.generation());
            let did = if block { grid.set_blocked(cell).unwrap() } else { grid.set_free(cell).unwrap() };
            prop_assert_eq!(did, before == block);
            prop_assert_eq!(grid.is_free(cell), !block);
            // A change takes a new generation; a no-op keeps it.
            prop_assert_eq!(grid.generation() != generation, did);
            if did {
                changed.push(cell);
            }
        }
        // The journal holds exactly the cells that changed, in order.
        prop_assert_eq!(grid.changes_since(gen0), Some(changed.as_slice()));
        prop_assert_eq!(grid.changes_since(grid.generation()), Some(&[][..]));
        assert_transpose_consistent(&grid);
        let free = (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
            .filter(|&c| grid.is_free(c)).count() as u64;
        prop_assert_eq!(grid.free_count(), free);
    }

    #[test]
    fn components_agree_with_flood_fill_after_updates(
        grid in arb_dense_or_sparse_grid(),
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

    /// The kept labels after every single change, through every mutation path: exact while
    /// `components()` says so (it is what the change left, not a relabelling, unless a split
    /// stayed open), and `maybe_connected` never says "apart" for connected cells.
    #[test]
    fn kept_components_follow_each_change(
        grid in arb_dense_or_sparse_grid(),
        changes in prop::collection::vec((any::<u32>(), any::<u32>(), 0u8..3), 1..60),
        probes in prop::collection::vec((any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()), 8),
    ) {
        let mut grid = grid;
        grid.components();
        for (x, y, how) in changes {
            let cell = Cell::new(x % grid.width(), y % grid.height());
            match how {
                0 => { grid.set_blocked(cell).unwrap(); }
                1 => { grid.set_free(cell).unwrap(); }
                _ => { grid.apply(&[Change::Block(cell), Change::Free(Cell::new(cell.y % grid.width(), cell.x % grid.height()))]).unwrap(); }
            }
            let oracle = flood_fill_partition(&grid);
            for &(ax, ay, bx, by) in &probes {
                let a = Cell::new(ax % grid.width(), ay % grid.height());
                let b = Cell::new(bx % grid.width(), by % grid.height());
                let joined = oracle[grid.index(a).get()].is_some()
                    && oracle[grid.index(a).get()] == oracle[grid.index(b).get()];
                if joined {
                    prop_assert!(grid.maybe_connected(a, b), "{a} and {b} are connected");
                }
            }
            assert_components_match_flood_fill(&grid);
        }
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
    fn cell_indices_are_the_layout_of_the_slice_constructors(grid in arb_grid()) {
        // Row by row, left to right: the order `from_blocked` reads, so an index made by the
        // grid addresses the same cell in any per-cell table built in that layout.
        let blocked: Vec<bool> = (0..grid.height())
            .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
            .map(|c| !grid.is_free(c))
            .collect();
        prop_assert_eq!(&Grid::from_blocked(grid.width(), grid.height(), &blocked).unwrap(), &grid);
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let c = Cell::new(x, y);
                let i = grid.index(c);
                prop_assert_eq!(i.get(), CellIndex::row_major(grid.width(), x, y));
                prop_assert_eq!(blocked[i.get()], !grid.is_free(c));
                prop_assert_eq!(grid.cell(i), c);
            }
        }
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

/// A wall drawn across an open map splits it into two halves far larger than the split search
/// covers: the kept labels become inexact, `maybe_connected` may still say "together", and
/// `components()` labels afresh and is exact; reopening a door joins them again in O(1).
#[test]
fn large_splits_fall_back_to_a_fresh_labelling() {
    let mut grid = Grid::open(200, 100).unwrap();
    let (left, right) = (Cell::new(10, 50), Cell::new(190, 50));
    assert!(grid.connected(left, right));
    for y in 0..100 {
        grid.set_blocked(Cell::new(100, y)).unwrap();
    }
    assert!(
        grid.maybe_connected(left, right),
        "the last block's split is left open"
    );
    assert!(!grid.connected(left, right));
    assert_components_match_flood_fill(&grid);
    assert!(
        !grid.maybe_connected(left, right),
        "the fresh labelling is used once made"
    );
    grid.set_free(Cell::new(100, 30)).unwrap();
    assert!(grid.maybe_connected(left, right));
    assert_components_match_flood_fill(&grid);
    // A closed room is split off at once, without a fresh labelling.
    for c in [
        (20, 20),
        (21, 20),
        (22, 20),
        (20, 22),
        (21, 22),
        (22, 22),
        (20, 21),
    ] {
        grid.set_blocked(Cell::new(c.0, c.1)).unwrap();
    }
    grid.set_blocked(Cell::new(22, 21)).unwrap();
    assert!(!grid.maybe_connected(Cell::new(21, 21), left));
    assert_components_match_flood_fill(&grid);
}

/// The journal is bounded: past its capacity the oldest generations are forgotten (and a
/// cache that old must rebuild), recent ones stay answerable; clones share the history up to
/// the clone and no generation of one grid names a state of an unrelated grid.
#[test]
fn journal_is_bounded_and_specific_to_a_history() {
    let mut grid = Grid::open(64, 64).unwrap();
    let first = grid.generation();
    let other = Grid::open(64, 64).unwrap();
    assert_ne!(
        other.generation(),
        first,
        "fresh grids never share a generation"
    );
    assert_eq!(other.changes_since(first), None);
    let mut marks = Vec::new();
    for i in 0..5000u32 {
        let cell = Cell::new(i % 64, (i / 64) % 64);
        if i % 2 == 0 {
            grid.set_blocked(cell).unwrap();
        } else {
            grid.set_free(Cell::new((i - 1) % 64, ((i - 1) / 64) % 64))
                .unwrap();
        }
        marks.push(grid.generation());
    }
    assert_eq!(
        grid.changes_since(first),
        None,
        "5,000 changes exceed the 1,024 kept"
    );
    let recent = marks[4900];
    assert_eq!(grid.changes_since(recent).map(<[Cell]>::len), Some(99));
    let mut clone = grid.clone();
    assert_eq!(clone.generation(), grid.generation());
    clone.set_blocked(Cell::new(63, 63)).unwrap();
    grid.set_blocked(Cell::new(0, 63)).unwrap();
    assert_ne!(clone.generation(), grid.generation());
    assert_eq!(
        clone.changes_since(grid.generation()),
        None,
        "diverged histories"
    );
    assert_eq!(clone.changes_since(recent).map(<[Cell]>::len), Some(100));
}

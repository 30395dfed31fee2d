//! The slice constructors (`from_blocked`, `from_free`, `from_occupancy`) against `from_fn`,
//! their refusals, and the bounded `Debug` of big grids.

use cuplan_grid::{Cell, Change, Grid, GridError};

/// A fixed irregular pattern, blocked where `true`.
fn pattern(x: u32, y: u32) -> bool {
    (x * 7 + y * 13).is_multiple_of(5) || x == y
}

fn flags(width: u32, height: u32, f: impl Fn(u32, u32) -> bool) -> Vec<bool> {
    (0..height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .map(|(x, y)| f(x, y))
        .collect()
}

#[test]
fn slice_constructors_agree_with_from_fn() {
    // 67 columns: rows span two words, so the row-major indexing is exercised across words.
    let (w, h) = (67, 5);
    let expected = Grid::from_fn(w, h, |x, y| !pattern(x, y)).unwrap();
    let blocked = flags(w, h, pattern);
    let free: Vec<bool> = blocked.iter().map(|b| !b).collect();
    assert_eq!(Grid::from_blocked(w, h, &blocked).unwrap(), expected);
    assert_eq!(Grid::from_free(w, h, &free).unwrap(), expected);
    let bytes: Vec<u8> = blocked.iter().map(|&b| if b { 255 } else { 0 }).collect();
    assert_eq!(Grid::from_occupancy(w, h, &bytes, 1).unwrap(), expected);
    assert_eq!(Grid::from_occupancy(w, h, &bytes, 255).unwrap(), expected);
    let built = Grid::from_blocked(w, h, &blocked).unwrap();
    assert_eq!(built.free_count(), expected.free_count());
    assert!(built.changes_since(built.generation()).unwrap().is_empty());
}

#[test]
fn occupancy_threshold_is_inclusive() {
    let bytes = [0, 1, 49, 50, 51, 100, 255];
    let grid = Grid::from_occupancy(7, 1, &bytes, 50).unwrap();
    let free: Vec<bool> = (0..7).map(|x| grid.is_free(Cell::new(x, 0))).collect();
    assert_eq!(free, [true, true, true, false, false, false, false]);
    assert_eq!(
        Grid::from_occupancy(7, 1, &bytes, 0).unwrap().free_count(),
        0
    );
    assert_eq!(
        Grid::from_occupancy(7, 1, &bytes, 1).unwrap().free_count(),
        1
    );
}

#[test]
fn length_mismatches_and_bad_sizes_are_errors() {
    let short = vec![false; 11];
    let long = vec![false; 13];
    for cells in [&short, &long] {
        for result in [
            Grid::from_blocked(4, 3, cells),
            Grid::from_free(4, 3, cells),
            Grid::from_occupancy(4, 3, &vec![0; cells.len()], 1),
        ] {
            let err = result.unwrap_err();
            assert!(
                matches!(
                    err,
                    GridError::InvalidSize {
                        width: 4,
                        height: 3,
                        ..
                    }
                ),
                "{err:?}"
            );
            assert!(err.to_string().contains("expected 12"), "{err}");
        }
    }
    assert!(matches!(
        Grid::from_blocked(0, 3, &[]),
        Err(GridError::InvalidSize { .. })
    ));
    // A side over the limit is refused before the length is compared (no overflow).
    assert!(matches!(
        Grid::from_free(u32::MAX, u32::MAX, &[]),
        Err(GridError::InvalidSize { .. })
    ));
}

#[test]
fn debug_of_a_big_grid_is_short() {
    let mut grid = Grid::from_fn(300, 200, |x, y| !pattern(x, y)).unwrap();
    grid.components();
    let changes: Vec<Change> = (0..500)
        .map(|i| Change::Free(Cell::new(i % 300, i % 200)))
        .collect();
    grid.apply(&changes).unwrap();
    grid.connected(Cell::new(1, 0), Cell::new(299, 199));
    for text in [format!("{grid:?}"), format!("{grid:#?}")] {
        assert!(text.len() < 1024, "{} bytes:\n{text}", text.len());
        assert!(
            text.contains("width: 300") && text.contains("height: 200"),
            "{text}"
        );
        assert!(text.contains("192 more rows"), "{text}");
    }
    let components = format!("{:?}", grid.components());
    assert!(components.len() < 1024, "{components}");
}

#[test]
fn debug_of_a_small_grid_shows_its_cells() {
    let grid = Grid::from_ascii(
        "
        .@.
        ...
        ",
    )
    .unwrap();
    let text = format!("{grid:?}");
    assert!(text.contains(r#"[".@.", "..."]"#), "{text}");
}

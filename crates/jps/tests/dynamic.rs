//! Dynamic obstacles: after random batches of `set_blocked` / `set_free`, a repaired JPS+ table
//! equals a freshly built one, and every algorithm (the preprocessed ones through
//! `Planner::with_table` with the repaired table) equals an independent Dijkstra.

mod common;

use cuplan_grid::{Cell, Grid, generate};
use cuplan_jps::{Algorithm, JpsError, JumpTable, Planner, Searcher};
use proptest::prelude::*;

fn grid() -> impl Strategy<Value = Grid> {
    (
        prop_oneof![Just(1u32), Just(63), Just(64), Just(65), 2u32..90],
        1u32..40,
        0.0f64..0.4,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(w, h, d, seed, flip)| {
            let (w, h) = if flip { (h, w) } else { (w, h) };
            generate::random(w, h, d, seed).expect("random grid")
        })
}

/// A batch of cell toggles, as (x, y) fractions of the grid.
fn batches() -> impl Strategy<Value = Vec<Vec<(f64, f64)>>> {
    prop::collection::vec(
        prop::collection::vec((0.0f64..1.0, 0.0f64..1.0), 1..8),
        1..4,
    )
}

fn check_all(
    grid: &Grid,
    table: &JumpTable,
    picks: &[prop::sample::Index],
) -> Result<(), TestCaseError> {
    let free = common::free_cells(grid);
    if free.is_empty() {
        return Ok(());
    }
    let mut searcher = Searcher::new();
    let start = free[picks[0].index(free.len())];
    let dist = common::dijkstra(grid, start);
    for algo in Algorithm::ALL {
        let planner = if algo.is_preprocessed() {
            Planner::with_table(grid, algo, table.clone()).expect("current table")
        } else {
            Planner::new(grid, algo).expect("planner")
        };
        for g in picks {
            let goal = free[g.index(free.len())];
            let want = dist[(goal.y * grid.width() + goal.x) as usize];
            let got = planner.search(&mut searcher, start, goal).expect("valid");
            prop_assert_eq!(
                got.as_ref().map(|p| p.cost),
                want,
                "{} {}->{}",
                algo,
                start,
                goal
            );
            if let Some(p) = got {
                prop_assert_eq!(grid.octile_path_cost(&p.waypoints), Ok(p.cost));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn repaired_tables_equal_rebuilt_ones_and_searches_stay_exact(
        mut grid in grid(),
        batches in batches(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 5),
    ) {
        let mut table = JumpTable::build(&grid).expect("table");
        for batch in batches {
            let mut changed = Vec::new();
            for (fx, fy) in batch {
                let c = Cell::new(
                    ((fx * f64::from(grid.width())) as u32).min(grid.width() - 1),
                    ((fy * f64::from(grid.height())) as u32).min(grid.height() - 1),
                );
                if grid.is_free(c) {
                    grid.set_blocked(c).expect("in range");
                } else {
                    grid.set_free(c).expect("in range");
                }
                changed.push(c);
            }
            // Before the repair the table is stale and refused.
            let stale = matches!(
                Planner::with_table(&grid, Algorithm::JpsBitPre, table.clone()),
                Err(JpsError::StaleTable { .. })
            );
            prop_assert!(stale, "a stale table was accepted");
            table.repair(&grid, &changed).expect("repair");
            prop_assert_eq!(&table, &JumpTable::build(&grid).expect("table"));
            check_all(&grid, &table, &picks)?;
        }
    }
}

#[test]
fn tables_are_refused_by_algorithms_without_one() {
    let grid = Grid::open(10, 10).expect("grid");
    let table = JumpTable::build(&grid).expect("table");
    assert!(matches!(
        Planner::with_table(&grid, Algorithm::JpsBit, table),
        Err(JpsError::NoTable(Algorithm::JpsBit))
    ));
}

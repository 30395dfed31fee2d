//! Dynamic obstacles: random sequences of changes through every public mutation path (the
//! grid's `set_blocked` / `set_free` / `apply`, a planner's `update_grid` and `replace_grid`,
//! a table handed to `with_table`), interleaved with repairs and searches. After each step a
//! repaired JPS+ table equals a freshly built one, and every algorithm equals an independent
//! Dijkstra. No caller supplies a list of changes anywhere: the grid's journal does.

mod common;

use std::sync::Arc;

use cuplan_grid::{Cell, Change, Grid, generate};
use cuplan_jps::{Algorithm, JpsError, JumpTable, Planner, Searcher, Upkeep};
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

/// How a batch of toggles reaches the planner.
#[derive(Debug, Clone, Copy)]
enum Path {
    /// `Planner::update_grid` with `set_blocked` / `set_free`, one call per batch.
    UpdateCells,
    /// `Planner::update_grid` with one `Grid::apply`.
    UpdateApply,
    /// The user's own copy of the grid is edited, then `Planner::replace_grid`.
    Replace,
    /// The table is taken out, the grid edited on its own, and `Planner::with_table` rebinds.
    Rebind,
}

fn paths() -> impl Strategy<Value = Path> {
    prop_oneof![
        Just(Path::UpdateCells),
        Just(Path::UpdateApply),
        Just(Path::Replace),
        Just(Path::Rebind),
    ]
}

/// A batch of cell toggles, as (x, y) fractions of the grid, and how it is applied.
fn batches() -> impl Strategy<Value = Vec<(Path, Vec<(f64, f64)>)>> {
    prop::collection::vec(
        (
            paths(),
            prop::collection::vec((0.0f64..1.0, 0.0f64..1.0), 1..8),
        ),
        1..5,
    )
}

fn toggles(grid: &Grid, batch: &[(f64, f64)]) -> Vec<Change> {
    let mut now = grid.clone();
    batch
        .iter()
        .map(|&(fx, fy)| {
            let c = Cell::new(
                ((fx * f64::from(grid.width())) as u32).min(grid.width() - 1),
                ((fy * f64::from(grid.height())) as u32).min(grid.height() - 1),
            );
            let change = if now.is_free(c) {
                Change::Block(c)
            } else {
                Change::Free(c)
            };
            now.apply(&[change]).expect("in range");
            change
        })
        .collect()
}

fn apply_batch(planner: Planner, path: Path, changes: &[Change]) -> Planner {
    let algorithm = planner.algorithm();
    match path {
        Path::UpdateCells => {
            let mut planner = planner;
            planner.update_grid(|g| {
                for &c in changes {
                    match c {
                        Change::Block(cell) => g.set_blocked(cell),
                        Change::Free(cell) => g.set_free(cell),
                    }
                    .expect("in range");
                }
            });
            planner
        }
        Path::UpdateApply => {
            let mut planner = planner;
            planner.update_grid(|g| g.apply(changes).expect("in range"));
            planner
        }
        Path::Replace => {
            let mut mine: Grid = planner.grid().clone();
            mine.apply(changes).expect("in range");
            let mut planner = planner;
            let upkeep = planner.replace_grid(mine).expect("same size");
            assert!(!algorithm.is_preprocessed() || matches!(upkeep, Upkeep::Repaired { .. }));
            planner
        }
        Path::Rebind => {
            let mut grid = planner.grid().clone();
            let table = planner.into_table();
            grid.apply(changes).expect("in range");
            match table {
                Some(table) => Planner::with_table(grid, algorithm, table).expect("rebinds"),
                None => Planner::new(grid, algorithm).expect("planner"),
            }
        }
    }
}

fn check_answers(
    planner: &Planner,
    searcher: &mut Searcher,
    picks: &[prop::sample::Index],
) -> Result<(), TestCaseError> {
    let grid = planner.grid();
    let free = common::free_cells(grid);
    if free.is_empty() {
        return Ok(());
    }
    let start = free[picks[0].index(free.len())];
    let dist = common::dijkstra(grid, start);
    for g in picks {
        let goal = free[g.index(free.len())];
        let want = dist[(goal.y * grid.width() + goal.x) as usize];
        let got = planner.search(searcher, start, goal).expect("valid");
        prop_assert_eq!(
            got.as_ref().map(|p| p.cost),
            want,
            "{} {}->{}",
            planner.algorithm(),
            start,
            goal
        );
        if let Some(p) = got {
            prop_assert_eq!(grid.octile_path_cost(&p.waypoints), Ok(p.cost));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_mutation_path_keeps_tables_fresh_and_answers_exact(
        grid in grid(),
        batches in batches(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 5),
    ) {
        let grid = Arc::new(grid);
        let mut planners: Vec<Planner> = Algorithm::ALL
            .iter()
            .map(|&a| Planner::new(Arc::clone(&grid), a).expect("planner"))
            .collect();
        let mut searcher = Searcher::new();
        for (path, batch) in batches {
            let changes = toggles(planners[0].grid(), &batch);
            planners = planners
                .into_iter()
                .map(|p| apply_batch(p, path, &changes))
                .collect();
            for planner in &planners {
                prop_assert_eq!(planner.grid(), planners[0].grid());
                if let Some(table) = planner.table() {
                    prop_assert!(table.is_current(planner.grid()));
                    prop_assert_eq!(table, &JumpTable::build(planner.grid()).expect("table"));
                }
                check_answers(planner, &mut searcher, &picks)?;
            }
        }
        // The planners' edits never reached the grid they were made from (copy-on-write).
        prop_assert_eq!(Arc::strong_count(&grid), 1);
    }

    /// A table kept aside while its grid changes any number of times is brought up to date by
    /// `repair` from the journal alone, and equals a fresh build; nothing the caller says is
    /// trusted, because the caller says nothing.
    #[test]
    fn repair_reads_the_journal(
        grid in grid(),
        batches in batches(),
    ) {
        let mut grid = grid;
        let mut table = JumpTable::build(&grid).expect("table");
        for (_, batch) in batches {
            let changes = toggles(&grid, &batch);
            grid.apply(&changes).expect("in range");
            prop_assert!(!table.is_current(&grid));
            let upkeep = table.repair(&grid).expect("repair");
            prop_assert_eq!(upkeep, Upkeep::Repaired { changes: changes.len() });
            prop_assert_eq!(&table, &JumpTable::build(&grid).expect("table"));
            prop_assert_eq!(table.repair(&grid).expect("repair"), Upkeep::Current);
        }
    }
}

/// Past the journal's reach, and for a table of another grid, `repair` and `with_table`
/// rebuild: a table is never marked current without describing the grid.
#[test]
fn tables_the_journal_cannot_reach_are_rebuilt() {
    let mut grid = generate::random(40, 30, 0.2, 3).expect("grid");
    let mut table = JumpTable::build(&grid).expect("table");
    for i in 0..3000u32 {
        let c = Cell::new(i % 40, (i / 40) % 30);
        if grid.is_free(c) {
            grid.set_blocked(c).expect("in range");
        } else {
            grid.set_free(c).expect("in range");
        }
    }
    assert_eq!(grid.changes_since(table.generation()), None);
    assert_eq!(table.repair(&grid).expect("repair"), Upkeep::Rebuilt);
    assert_eq!(table, JumpTable::build(&grid).expect("table"));

    // Another grid of the same size and even the same cells: another history, rebuilt for.
    let other = generate::random(40, 30, 0.2, 4).expect("grid");
    let planner = Planner::with_table(other.clone(), Algorithm::JpsBitPre, table).expect("binds");
    assert_eq!(
        planner.table(),
        Some(&JumpTable::build(&other).expect("table"))
    );
    // Another size.
    let small = Grid::open(5, 5).expect("grid");
    let mut table = planner.into_table().expect("table");
    assert_eq!(table.repair(&small).expect("repair"), Upkeep::Rebuilt);
    assert!(table.is_current(&small));
}

#[test]
fn tables_are_refused_by_algorithms_without_one_and_given_back() {
    let grid = Grid::open(10, 10).expect("grid");
    let table = JumpTable::build(&grid).expect("table");
    let refused = Planner::with_table(grid, Algorithm::JpsBit, table.clone())
        .expect_err("no table for jps-bit");
    assert_eq!(refused.error, JpsError::NoTable(Algorithm::JpsBit));
    assert_eq!(refused.table, table);
}

/// The planner that a game keeps beside its grid: stored in a struct with its searcher,
/// cloned into threads (the clones keep answering for the grid they were cloned with while
/// the original is edited), `Send + Sync`.
#[test]
fn planners_live_in_structs_and_clones_are_snapshots() {
    struct Nav {
        planner: Planner,
        searcher: Searcher,
    }
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Planner>();

    let grid = Grid::open(30, 10).expect("grid");
    let mut nav = Nav {
        planner: Planner::new(grid, Algorithm::JpsBitPrunePre).expect("planner"),
        searcher: Searcher::new(),
    };
    let (a, b) = (Cell::new(0, 5), Cell::new(29, 5));
    let snapshot = nav.planner.clone();
    nav.planner.update_grid(|g| {
        for y in 0..10 {
            g.set_blocked(Cell::new(15, y)).expect("in range");
        }
    });
    assert_eq!(nav.planner.search(&mut nav.searcher, a, b), Ok(None));
    let old = std::thread::scope(|s| {
        s.spawn(|| snapshot.search(&mut Searcher::new(), a, b))
            .join()
            .expect("thread")
    });
    assert_eq!(old.expect("valid").map(|p| p.cost.straight), Some(29));
    nav.planner
        .update_grid(|g| g.set_free(Cell::new(15, 0)).expect("in range"));
    let around = nav.planner.search(&mut nav.searcher, a, b).expect("valid");
    assert!(around.is_some());
}

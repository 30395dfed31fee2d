//! Batch search (`find_paths`, `find_paths_in`, `find_paths_with`) agrees with one query at a
//! time, with and without the `rayon` feature, and `Debug` of the big types stays short.

use cuplan_grid::{Cell, generate};
use cuplan_jps::{Algorithm, JpsError, Path, Planner, Searcher, find_paths, find_paths_with};

fn case() -> (Planner, Vec<(Cell, Cell)>) {
    let grid = generate::random(300, 200, 0.25, 7).unwrap();
    let mut queries = generate::random_queries(&grid, 40, 3);
    // An unreachable goal and an out-of-range one: each result stays in its place.
    queries.push((queries[0].0, Cell::new(300, 0)));
    let planner = Planner::new(grid, Algorithm::JpsBitPrunePre).unwrap();
    (planner, queries)
}

fn one_by_one(planner: &Planner, queries: &[(Cell, Cell)]) -> Vec<Result<Option<Path>, JpsError>> {
    let mut searcher = Searcher::new();
    queries
        .iter()
        .map(|&(a, b)| planner.search(&mut searcher, a, b))
        .collect()
}

#[test]
fn batches_agree_with_single_queries_in_input_order() {
    let (planner, queries) = case();
    let expected = one_by_one(&planner, &queries);
    assert!(expected.last().unwrap().is_err());
    assert_eq!(find_paths(&planner, &queries), expected);
    assert_eq!(
        find_paths_with(&planner, &queries, Searcher::paged),
        expected
    );
    assert_eq!(find_paths(&planner, &[]), Vec::new());
}

#[cfg(feature = "rayon")]
#[test]
fn batches_run_on_a_given_pool() {
    use cuplan_jps::find_paths_in;
    let (planner, queries) = case();
    let expected = one_by_one(&planner, &queries);
    for threads in [1, 3] {
        let pool = cuplan_jps::rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        assert_eq!(find_paths_in(&pool, &planner, &queries), expected);
    }
}

#[test]
fn debug_of_big_types_is_short() {
    let (planner, queries) = case();
    let mut searcher = Searcher::dense();
    planner
        .search(&mut searcher, queries[0].0, queries[0].1)
        .unwrap();
    let mut paged = Searcher::paged();
    planner
        .search(&mut paged, queries[1].0, queries[1].1)
        .unwrap();
    let texts = [
        format!("{planner:#?}"),
        format!("{:?}", planner.table().unwrap()),
        format!("{searcher:?}"),
        format!("{paged:?}"),
    ];
    for text in texts {
        assert!(text.len() < 1024, "{} bytes:\n{text}", text.len());
    }
}

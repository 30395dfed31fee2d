//! Many threads searching one shared grid at once, mixed algorithms: every answer equals the
//! single-threaded answer, and searchers reused across thousands of queries stay bounded.

use cuplan::grid::{Family, generate};
use cuplan::jps::{Algorithm, Planner, Searcher};
use rayon::prelude::*;

#[test]
fn shared_grid_many_threads_same_answers() {
    let grid = Family::Rooms(16).generate(300, 200, 4).unwrap();
    let queries = generate::random_queries(&grid, 400, 8);
    let planners: Vec<Planner> = Algorithm::ALL
        .iter()
        .map(|&a| Planner::new(grid.clone(), a).unwrap())
        .collect();

    let serial: Vec<Vec<_>> = planners
        .iter()
        .map(|p| {
            let mut s = Searcher::new();
            queries
                .iter()
                .map(|&(a, b)| p.search(&mut s, a, b).unwrap().map(|p| p.cost))
                .collect()
        })
        .collect();
    // All engines agree with each other...
    for (i, answers) in serial.iter().enumerate() {
        assert_eq!(
            answers,
            &serial[0],
            "{} disagrees with {}",
            Algorithm::ALL[i],
            Algorithm::ALL[0]
        );
    }
    // ...and interleaved on a pool, each job picking an algorithm by its index, with one
    // searcher per thread shared by every algorithm, nothing changes.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(8)
        .build()
        .unwrap();
    let jobs: Vec<(usize, usize)> = (0..queries.len() * planners.len())
        .map(|j| (j % planners.len(), j / planners.len()))
        .collect();
    let parallel: Vec<_> = pool.install(|| {
        jobs.par_iter()
            .map_init(Searcher::new, |s, &(algo, q)| {
                let (a, b) = queries[q];
                let path = planners[algo].search(s, a, b).unwrap();
                if let Some(p) = &path {
                    assert_eq!(grid.octile_path_cost(&p.waypoints).unwrap(), p.cost);
                }
                (algo, q, path.map(|p| p.cost))
            })
            .collect()
    });
    for (algo, q, cost) in parallel {
        assert_eq!(
            cost,
            serial[algo][q],
            "{} on query {q}",
            Algorithm::ALL[algo]
        );
    }
}

#[test]
fn searcher_memory_is_bounded_by_the_map() {
    let grid = generate::random(256, 256, 0.25, 3).unwrap();
    let queries = generate::random_queries(&grid, 3000, 2);
    for algo in Algorithm::ALL {
        let planner = Planner::new(grid.clone(), algo).unwrap();
        let mut searcher = Searcher::new();
        for &(a, b) in &queries[..100] {
            planner.search(&mut searcher, a, b).unwrap();
        }
        let warm = searcher.bytes();
        for &(a, b) in &queries[100..] {
            planner.search(&mut searcher, a, b).unwrap();
        }
        // One node table per map, plus a heap that can at most hold every cell once more.
        assert!(
            searcher.bytes() <= warm.max(1) * 2,
            "{algo}: {} -> {} bytes",
            warm,
            searcher.bytes()
        );
        assert!(
            searcher.bytes() < 64 * grid.cell_count() + (1 << 20),
            "{algo}: {} bytes",
            searcher.bytes()
        );
    }
}

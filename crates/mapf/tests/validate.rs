//! The validator against hand-built violations of every kind, good solutions, and (proptest)
//! a naive O(agents² · time) checker on random, often broken, solutions.

mod common;

use std::sync::Arc;

use cuplan_grid::{Cell, Grid};
use cuplan_mapf::{Instance, Solution, Violation};
use proptest::prelude::*;

fn c(x: u32, y: u32) -> Cell {
    Cell::new(x, y)
}

/// A 4×3 map with one wall cell at (1, 1); agent 0 goes (0,0) -> (3,0), agent 1 (3,2) -> (0,2).
fn instance() -> Instance {
    let grid = Grid::from_ascii("....\n.@..\n....\n").unwrap();
    Instance::new(
        Arc::new(grid),
        vec![c(0, 0), c(3, 2)],
        vec![c(3, 0), c(0, 2)],
    )
    .unwrap()
}

fn good() -> Vec<Vec<Cell>> {
    vec![
        vec![c(0, 0), c(1, 0), c(2, 0), c(3, 0)],
        vec![c(3, 2), c(2, 2), c(1, 2), c(0, 2)],
    ]
}

fn check(paths: Vec<Vec<Cell>>) -> Result<(), Violation> {
    Solution { paths }.validate(&instance())
}

#[test]
fn accepts_good_solutions_and_counts_costs() {
    assert_eq!(check(good()), Ok(()));
    let mut waiting = good();
    waiting[0].insert(1, c(0, 0));
    waiting[0].push(c(3, 0));
    let s = Solution { paths: waiting };
    assert_eq!(s.validate(&instance()), Ok(()));
    // Agent 0 arrives at t = 4 and stays (the trailing wait costs nothing); agent 1 at t = 3.
    assert_eq!(s.soc(), 7);
    assert_eq!(s.makespan(), 4);
}

#[test]
fn agent_cost_counts_leaving_the_goal() {
    // At the goal at t = 1, away at t = 2, back for good at t = 3.
    assert_eq!(
        Solution::agent_cost(&[c(0, 0), c(1, 0), c(0, 0), c(1, 0)]),
        3
    );
    assert_eq!(Solution::agent_cost(&[c(1, 0)]), 0);
    assert_eq!(Solution::agent_cost(&[c(1, 0), c(1, 0)]), 0);
}

#[test]
fn catches_count_and_empty() {
    assert!(matches!(
        check(vec![good()[0].clone()]),
        Err(Violation::WrongAgentCount {
            expected: 2,
            found: 1
        })
    ));
    let mut p = good();
    p[1].clear();
    assert_eq!(check(p), Err(Violation::EmptyPath { agent: 1 }));
}

#[test]
fn catches_bounds_and_obstacles() {
    let mut p = good();
    p[0][1] = c(9, 0);
    assert!(matches!(
        check(p),
        Err(Violation::OutOfBounds { agent: 0, t: 1, .. })
    ));
    let mut p = good();
    p[0] = vec![c(0, 0), c(0, 1), c(1, 1), c(2, 1), c(3, 1), c(3, 0)];
    assert_eq!(
        check(p),
        Err(Violation::Obstacle {
            agent: 0,
            t: 2,
            cell: c(1, 1)
        })
    );
}

#[test]
fn catches_start_goal_and_jumps() {
    let mut p = good();
    p[0][0] = c(1, 0);
    assert!(matches!(
        check(p),
        Err(Violation::WrongStart { agent: 0, .. })
    ));
    let mut p = good();
    p[1].pop();
    assert!(matches!(
        check(p),
        Err(Violation::WrongGoal { agent: 1, .. })
    ));
    let mut p = good();
    p[0] = vec![c(0, 0), c(2, 0), c(3, 0)];
    assert_eq!(
        check(p),
        Err(Violation::NotAdjacent {
            agent: 0,
            t: 0,
            from: c(0, 0),
            to: c(2, 0)
        })
    );
    let mut p = good();
    p[0] = vec![c(0, 0), c(1, 0), c(2, 1), c(3, 0)];
    assert!(matches!(
        check(p),
        Err(Violation::NotAdjacent { agent: 0, t: 1, .. })
    ));
}

#[test]
fn catches_vertex_conflicts() {
    // Both pass through (2, 1)... agent 0 via the middle row at t = 3, agent 1 at t = 3.
    let paths = vec![
        vec![c(0, 0), c(1, 0), c(2, 0), c(2, 1), c(3, 1), c(3, 0)],
        vec![
            c(3, 2),
            c(3, 1),
            c(2, 1),
            c(2, 1),
            c(2, 2),
            c(1, 2),
            c(0, 2),
        ],
    ];
    assert_eq!(
        check(paths),
        Err(Violation::VertexConflict {
            a: 0,
            b: 1,
            t: 3,
            cell: c(2, 1)
        })
    );
}

#[test]
fn catches_an_agent_running_into_a_finished_one() {
    let grid = Grid::from_ascii("....\n").unwrap();
    let inst = Instance::new(
        Arc::new(grid),
        vec![c(0, 0), c(3, 0)],
        vec![c(1, 0), c(0, 0)],
    )
    .unwrap();
    // Agent 0 finishes on (1, 0) at t = 1; agent 1 walks through it at t = 2.
    let s = Solution {
        paths: vec![
            vec![c(0, 0), c(1, 0)],
            vec![c(3, 0), c(2, 0), c(1, 0), c(0, 0)],
        ],
    };
    assert_eq!(
        s.validate(&inst),
        Err(Violation::VertexConflict {
            a: 0,
            b: 1,
            t: 2,
            cell: c(1, 0)
        })
    );
}

#[test]
fn catches_swaps() {
    let grid = Grid::from_ascii("...\n").unwrap();
    let inst = Instance::new(
        Arc::new(grid),
        vec![c(0, 0), c(2, 0)],
        vec![c(2, 0), c(0, 0)],
    )
    .unwrap();
    let s = Solution {
        paths: vec![
            vec![c(0, 0), c(1, 0), c(2, 0)],
            vec![c(2, 0), c(2, 0), c(1, 0), c(0, 0)],
        ],
    };
    // t = 1: agent 0 on (1, 0); t = 2: agent 0 to (2, 0) while agent 1 goes (2, 0) -> (1, 0).
    assert!(matches!(
        s.validate(&inst),
        Err(Violation::SwapConflict {
            a: 0,
            b: 1,
            t: 1,
            ..
        })
    ));
    let s = Solution {
        paths: vec![
            vec![c(0, 0), c(1, 0), c(2, 0)],
            vec![c(2, 0), c(1, 0), c(0, 0)],
        ],
    };
    assert!(matches!(
        s.validate(&inst),
        Err(Violation::VertexConflict { t: 1, .. })
    ));
}

/// Position of an agent at time t (resting on its last cell afterwards).
fn at(path: &[Cell], t: usize) -> Cell {
    path[t.min(path.len() - 1)]
}

/// Naive conflict check over all pairs and all times.
fn naive_conflict(paths: &[Vec<Cell>]) -> bool {
    let horizon = paths.iter().map(Vec::len).max().unwrap_or(0);
    for t in 0..horizon {
        for i in 0..paths.len() {
            for j in 0..i {
                if at(&paths[i], t) == at(&paths[j], t) {
                    return true;
                }
                if t + 1 < horizon
                    && at(&paths[i], t) == at(&paths[j], t + 1)
                    && at(&paths[j], t) == at(&paths[i], t + 1)
                    && at(&paths[i], t) != at(&paths[i], t + 1)
                {
                    return true;
                }
            }
        }
    }
    false
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random walks (sometimes jumping) on a small open map: the validator agrees with the
    /// naive checker, and every reported conflict really is one.
    #[test]
    fn agrees_with_a_naive_checker(seed in any::<u64>(), agents in 1usize..5, len in 1usize..8) {
        let mut rng = common::TestRng::new(seed);
        let grid = Arc::new(Grid::open(4, 4).unwrap());
        let mut paths = Vec::new();
        for _ in 0..agents {
            let mut p = vec![Cell::new(rng.below(4) as u32, rng.below(4) as u32)];
            for _ in 1..len + rng.below(3) as usize {
                let last = *p.last().unwrap();
                let (x, y) = (i64::from(last.x), i64::from(last.y));
                let (dx, dy) = [(0, 0), (0, 1), (1, 0), (0, -1), (-1, 0)][rng.below(5) as usize];
                let (nx, ny) = ((x + dx).clamp(0, 3), (y + dy).clamp(0, 3));
                p.push(Cell::new(nx as u32, ny as u32));
            }
            paths.push(p);
        }
        let starts: Vec<Cell> = paths.iter().map(|p| p[0]).collect();
        let goals: Vec<Cell> = paths.iter().map(|p| *p.last().unwrap()).collect();
        let Ok(inst) = Instance::new(grid, starts, goals) else { return Ok(()) };
        let result = Solution { paths: paths.clone() }.validate(&inst);
        prop_assert_eq!(result.is_ok(), !naive_conflict(&paths), "{:?}", result);
        match result {
            Err(Violation::VertexConflict { a, b, t, cell }) => {
                prop_assert!(at(&paths[a], t) == cell && at(&paths[b], t) == cell);
            }
            Err(Violation::SwapConflict { a, b, t, from, to }) => {
                prop_assert!(at(&paths[a], t) == from && at(&paths[a], t + 1) == to);
                prop_assert!(at(&paths[b], t) == to && at(&paths[b], t + 1) == from);
            }
            Ok(()) => {}
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }
}

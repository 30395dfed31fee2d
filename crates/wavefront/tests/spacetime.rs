//! Space-time search against a plain `(cell, t)` BFS over an independent model of the same
//! reservations and constraints.

mod common;

use std::collections::{HashMap, HashSet, VecDeque};

use common::{arb_grid_small, pick_free};
use cuplan_grid::{Cell, Grid};
use cuplan_reservations::{Constraints, ReservationTable};
use cuplan_wavefront::{
    Backend, SpaceTimeQuery, SpaceTimeResult, WavefrontError, distance_maps, space_time_astar,
};
use proptest::prelude::*;

/// The reservations as plain sets, built without the table.
#[derive(Default, Debug)]
struct Model {
    occupied: HashSet<(Cell, u32)>,
    parked: HashMap<Cell, u32>,
    forbidden: HashSet<(Cell, Cell, u32)>,
}

impl Model {
    fn taken(&self, cell: Cell, t: u32) -> bool {
        self.occupied.contains(&(cell, t)) || self.parked.get(&cell).is_some_and(|&s| s <= t)
    }

    fn add_path(&mut self, cells: &[Cell]) {
        for (t, &c) in cells.iter().enumerate() {
            self.occupied.insert((c, t as u32));
        }
        for (t, w) in cells.windows(2).enumerate() {
            if w[0] != w[1] {
                self.forbidden.insert((w[1], w[0], t as u32 + 1));
            }
        }
        self.parked
            .insert(cells[cells.len() - 1], cells.len() as u32 - 1);
    }

    /// Earliest arrival by BFS over `(cell, t)`, `t <= horizon`, with the settle rule.
    fn earliest(&self, grid: &Grid, start: Cell, goal: Cell, horizon: u32) -> Option<u32> {
        self.earliest_after(grid, start, goal, horizon, 0)
    }

    /// [`Model::earliest`] arriving no earlier than `min_arrival`.
    fn earliest_after(
        &self,
        grid: &Grid,
        start: Cell,
        goal: Cell,
        horizon: u32,
        min_arrival: u32,
    ) -> Option<u32> {
        if self.parked.contains_key(&goal) {
            return None;
        }
        let settle = self
            .occupied
            .iter()
            .filter(|(c, _)| *c == goal)
            .map(|&(_, t)| t + 1)
            .max()
            .unwrap_or(0)
            .max(min_arrival);
        if self.taken(start, 0) {
            return None;
        }
        let mut seen = HashSet::from([(start, 0u32)]);
        let mut queue = VecDeque::from([(start, 0u32)]);
        while let Some((c, t)) = queue.pop_front() {
            if c == goal && t >= settle {
                return Some(t);
            }
            if t == horizon {
                continue;
            }
            let mut next = vec![c];
            next.extend(grid.neighbours4(c));
            for n in next {
                let state = (n, t + 1);
                if self.taken(n, t + 1) || self.forbidden.contains(&(c, n, t + 1)) {
                    continue;
                }
                if seen.insert(state) {
                    queue.push_back(state);
                }
            }
        }
        None
    }

    fn check_path(&self, grid: &Grid, path: &[Cell], start: Cell, goal: Cell) {
        assert_eq!(path.first(), Some(&start));
        assert_eq!(path.last(), Some(&goal));
        for (t, &c) in path.iter().enumerate() {
            assert!(grid.is_free(c), "blocked cell {c} at {t}");
            assert!(!self.taken(c, t as u32), "enters reserved {c} at {t}");
        }
        for (t, w) in path.windows(2).enumerate() {
            assert!(w[0] == w[1] || w[0].manhattan(w[1]) == 1, "jump {w:?}");
            assert!(
                !self.forbidden.contains(&(w[0], w[1], t as u32 + 1)),
                "swap {w:?} at {}",
                t + 1
            );
        }
        let arrival = path.len() as u32 - 1;
        assert!(
            !self
                .occupied
                .iter()
                .any(|&(c, t)| c == goal && t >= arrival),
            "settles on {goal} at {arrival} before a later reservation"
        );
    }
}

/// A random walk of `len` steps (waits included) from `start`, staying on free cells.
fn walk(grid: &Grid, start: Cell, choices: &[u8]) -> Vec<Cell> {
    let mut cells = vec![start];
    let mut cur = start;
    for &k in choices {
        let options: Vec<Cell> = std::iter::once(cur).chain(grid.neighbours4(cur)).collect();
        cur = options[k as usize % options.len()];
        cells.push(cur);
    }
    cells
}

type Agent = (f64, f64, Vec<u8>);

fn agents() -> impl Strategy<Value = Vec<Agent>> {
    proptest::collection::vec(
        (
            0.0f64..1.0,
            0.0f64..1.0,
            proptest::collection::vec(any::<u8>(), 0..14),
        ),
        0..6,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn matches_plain_space_time_bfs(
        grid in arb_grid_small(),
        others in agents(),
        ends in (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
        horizon in 0u32..40,
        use_heuristic in any::<bool>(),
        own in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0usize..5, 0u32..25), 0..6),
    ) {
        let (Some(start), Some(goal)) = (pick_free(&grid, ends.0, ends.1), pick_free(&grid, ends.2, ends.3)) else {
            return Ok(());
        };
        let mut table = ReservationTable::new(&grid, 40).unwrap();
        let mut model = Model::default();
        for (fx, fy, choices) in &others {
            let Some(s) = pick_free(&grid, *fx, *fy) else { continue };
            let path = walk(&grid, s, choices);
            if table.reserve_path(&path).is_ok() {
                model.add_path(&path);
            }
        }
        // The agent's own constraints on top of the table (d == 4: a vertex constraint).
        let mut constraints = Constraints::new();
        for &(fx, fy, d, t) in &own {
            let from = common::pick(&grid, fx, fy);
            match grid.neighbours4(from).nth(d) {
                Some(to) if d < 4 => {
                    constraints.add_edge(from, to, t).unwrap();
                    model.forbidden.insert((from, to, t));
                }
                _ => {
                    constraints.add_vertex(from, t);
                    model.occupied.insert((from, t));
                }
            }
        }
        let maps = distance_maps(&grid, &[goal], Backend::Cpu).unwrap();
        let mut query = SpaceTimeQuery::new(start, goal)
            .with_table(&table)
            .with_constraints(&constraints)
            .with_horizon(horizon);
        if use_heuristic {
            query = query.with_heuristic(&maps, 0);
        }
        let got = space_time_astar(&grid, &query).unwrap();
        let want = model.earliest(&grid, start, goal, horizon);
        match (&got, want) {
            (SpaceTimeResult::Found(p), Some(t)) => {
                prop_assert_eq!(p.arrival(), t);
                model.check_path(&grid, &p.cells, start, goal);
            }
            (SpaceTimeResult::HorizonExceeded, None) => {}
            (SpaceTimeResult::Unreachable, None) => {
                // "At any horizon": a much longer plain search finds nothing either.
                prop_assert_eq!(model.earliest(&grid, start, goal, 4 * horizon + 200), None);
            }
            _ => prop_assert!(false, "got {:?}, plain BFS says {:?}", got, want),
        }
    }

    #[test]
    fn constraints_match_plain_space_time_bfs(
        grid in arb_grid_small(),
        ends in (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
        vertex in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0u32..20), 0..12),
        edges in proptest::collection::vec((0.0f64..1.0, 0.0f64..1.0, 0usize..4, 1u32..20), 0..12),
        horizon in 0u32..30,
        min_arrival in 0u32..8,
    ) {
        let (Some(start), Some(goal)) = (pick_free(&grid, ends.0, ends.1), pick_free(&grid, ends.2, ends.3)) else {
            return Ok(());
        };
        let mut constraints = Constraints::new();
        let mut model = Model::default();
        for &(fx, fy, t) in &vertex {
            let c = common::pick(&grid, fx, fy);
            constraints.add_vertex(c, t);
            model.occupied.insert((c, t));
        }
        for &(fx, fy, d, t) in &edges {
            let from = common::pick(&grid, fx, fy);
            let Some(to) = grid.neighbours4(from).nth(d) else { continue };
            constraints.add_edge(from, to, t).unwrap();
            model.forbidden.insert((from, to, t));
        }
        let query = SpaceTimeQuery::new(start, goal)
            .with_constraints(&constraints)
            .with_horizon(horizon)
            .with_min_arrival(min_arrival);
        let got = space_time_astar(&grid, &query).unwrap();
        let want = model.earliest_after(&grid, start, goal, horizon, min_arrival);
        match (&got, want) {
            (SpaceTimeResult::Found(p), Some(t)) => {
                prop_assert_eq!(p.arrival(), t);
                model.check_path(&grid, &p.cells, start, goal);
            }
            (SpaceTimeResult::HorizonExceeded, None) => {}
            (SpaceTimeResult::Unreachable, None) => {
                prop_assert_eq!(model.earliest(&grid, start, goal, 4 * horizon + 200), None);
            }
            _ => prop_assert!(false, "got {:?}, plain BFS says {:?}", got, want),
        }
    }
}

#[test]
fn waits_for_a_crossing_agent_and_honours_the_settle_rule() {
    let grid = Grid::from_ascii("...").unwrap();
    let mut table = ReservationTable::new(&grid, 10).unwrap();
    let (a, b, c) = (Cell::new(0, 0), Cell::new(1, 0), Cell::new(2, 0));
    // Another agent passes through the goal at time 3 and leaves... it cannot leave a
    // corridor, so block the goal with a vertex reservation instead.
    table.block_vertex(c, 3).unwrap();
    let r = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(a, c)
            .with_table(&table)
            .with_backend(Backend::Cpu),
    )
    .unwrap();
    let path = r.into_path().unwrap();
    assert_eq!(path.arrival(), 4);
    assert_eq!(path.cells[4], c);
    assert_ne!(path.cells[3], c);
    // A swap is refused: agent moving c -> b at time 1 blocks b -> c at time 1.
    let mut table = ReservationTable::new(&grid, 10).unwrap();
    table.block_edge(b, c, 1).unwrap();
    let r = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(b, c)
            .with_table(&table)
            .with_backend(Backend::Cpu),
    )
    .unwrap();
    assert_eq!(r.path().unwrap().arrival(), 2);
}

#[test]
fn classifies_failures() {
    let grid = Grid::from_ascii(".@.").unwrap();
    let (a, c) = (Cell::new(0, 0), Cell::new(2, 0));
    let r = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(a, c).with_backend(Backend::Cpu),
    )
    .unwrap();
    assert_eq!(r, SpaceTimeResult::Unreachable);
    let grid = Grid::open(5, 1).unwrap();
    let r = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(a, Cell::new(4, 0))
            .with_horizon(3)
            .with_backend(Backend::Cpu),
    )
    .unwrap();
    assert_eq!(r, SpaceTimeResult::HorizonExceeded);
    // Goal taken forever by a parked agent.
    let mut table = ReservationTable::new(&grid, 20).unwrap();
    table.reserve_path(&[Cell::new(4, 0)]).unwrap();
    let r = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(a, Cell::new(4, 0))
            .with_table(&table)
            .with_backend(Backend::Cpu),
    )
    .unwrap();
    assert_eq!(r, SpaceTimeResult::Unreachable);
    // A deadline in the past.
    let q = SpaceTimeQuery::new(a, Cell::new(4, 0)).with_deadline(std::time::Instant::now());
    assert_eq!(
        space_time_astar(&grid, &q).unwrap(),
        SpaceTimeResult::TimedOut
    );
}

#[test]
fn bad_input_is_an_error() {
    let grid = Grid::from_ascii("..@").unwrap();
    let a = Cell::new(0, 0);
    let err = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(a, Cell::new(2, 0)).with_backend(Backend::Cpu),
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("goal"), "{err}");
    let err = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(Cell::new(7, 0), a).with_backend(Backend::Cpu),
    )
    .unwrap_err();
    assert!(err.to_string().starts_with("start"), "{err}");
    let table = ReservationTable::new(&grid, 5).unwrap();
    let err = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(a, a)
            .with_table(&table)
            .with_horizon(6)
            .with_backend(Backend::Cpu),
    )
    .unwrap_err();
    assert!(matches!(err, WavefrontError::HorizonBeyondTable { .. }));
    let other = Grid::open(4, 4).unwrap();
    let table = ReservationTable::new(&other, 5).unwrap();
    let err = space_time_astar(
        &grid,
        &cuplan_wavefront::SpaceTimeQuery::new(a, a)
            .with_table(&table)
            .with_backend(Backend::Cpu),
    )
    .unwrap_err();
    assert!(matches!(err, WavefrontError::TableSizeMismatch { .. }));
    let maps = distance_maps(&grid, &[Cell::new(1, 0)], Backend::Cpu).unwrap();
    let q = SpaceTimeQuery::new(a, a).with_heuristic(&maps, 0);
    assert!(matches!(
        space_time_astar(&grid, &q),
        Err(WavefrontError::BadHeuristic { .. })
    ));
    if !cfg!(feature = "cuda") {
        let err = space_time_astar(
            &grid,
            &cuplan_wavefront::SpaceTimeQuery::new(a, a).with_backend(Backend::Cuda),
        )
        .unwrap_err();
        assert!(matches!(err, WavefrontError::BackendUnavailable { .. }));
    }
}

#[test]
fn an_unbounded_horizon_without_a_table_terminates() {
    let grid = Grid::from_ascii("....\n.@@.\n....").unwrap();
    let (a, g) = (Cell::new(0, 1), Cell::new(3, 1));
    let maps = distance_maps(&grid, &[g], Backend::Cpu).unwrap();
    let q = SpaceTimeQuery::new(a, g)
        .with_horizon(u32::MAX)
        .with_heuristic(&maps, 0);
    assert_eq!(
        space_time_astar(&grid, &q)
            .unwrap()
            .path()
            .map(|p| p.arrival()),
        Some(5)
    );
    let walled = Grid::from_ascii(".@.").unwrap();
    let r = space_time_astar(
        &walled,
        &cuplan_wavefront::SpaceTimeQuery::new(Cell::new(0, 0), Cell::new(2, 0))
            .with_horizon(u32::MAX)
            .with_backend(Backend::Cpu),
    );
    assert_eq!(r.unwrap(), SpaceTimeResult::Unreachable);
}

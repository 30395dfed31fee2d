//! The reservation table against a plain model of reserved states and forbidden moves.

use std::collections::{HashMap, HashSet};

use cuplan_grid::{Cell, Grid};
use cuplan_reservations::{Constraints, Move, ReservationError, ReservationTable, default_horizon};
use proptest::prelude::*;

const W: u32 = 7;
const H: u32 = 5;
const HORIZON: u32 = 12;

/// Plain sets: who is where when, which moves are forbidden, who parks where from when.
#[derive(Default)]
struct Model {
    occupied: HashSet<(Cell, u32)>,
    parked: HashMap<Cell, u32>,
    forbidden: HashSet<(Cell, Cell, u32)>,
}

impl Model {
    fn taken(&self, c: Cell, t: u32) -> bool {
        self.occupied.contains(&(c, t)) || self.parked.get(&c).is_some_and(|&s| s <= t)
    }

    /// Whether an agent following `path` (then parking) conflicts with the model.
    fn conflicts(&self, path: &[Cell]) -> bool {
        let end = path.len() as u32 - 1;
        let last = path[path.len() - 1];
        path.iter()
            .enumerate()
            .any(|(t, &c)| self.taken(c, t as u32))
            || path
                .windows(2)
                .enumerate()
                .any(|(t, w)| self.forbidden.contains(&(w[0], w[1], t as u32 + 1)))
            || self.occupied.iter().any(|&(c, t)| c == last && t > end)
            || self.parked.get(&last).is_some_and(|&s| s > end)
    }

    fn add(&mut self, path: &[Cell]) {
        for (t, &c) in path.iter().enumerate().take(path.len() - 1) {
            self.occupied.insert((c, t as u32));
        }
        for (t, w) in path.windows(2).enumerate() {
            if w[0] != w[1] {
                self.forbidden.insert((w[1], w[0], t as u32 + 1));
            }
        }
        self.parked
            .insert(path[path.len() - 1], path.len() as u32 - 1);
    }
}

fn walk(start: Cell, steps: &[u8]) -> Vec<Cell> {
    let mut cells = vec![start];
    let mut cur = start;
    for &s in steps {
        let next = match s % 5 {
            0 => Some(cur),
            k => cur.step(Move::ALL[k as usize - 1].direction()),
        };
        if let Some(n) = next.filter(|n| n.x < W && n.y < H) {
            cur = n;
        }
        cells.push(cur);
    }
    cells
}

fn assert_same(table: &ReservationTable, model: &Model) {
    for y in 0..H {
        for x in 0..W {
            let c = Cell::new(x, y);
            for t in 0..=HORIZON {
                assert_eq!(
                    table.is_vertex_reserved(c, t),
                    model.taken(c, t),
                    "{c} at {t}"
                );
                for m in Move::ALL {
                    if let Some(n) = c.step(m.direction()).filter(|n| n.x < W && n.y < H) {
                        assert_eq!(
                            table.is_edge_reserved(c, n, t),
                            model.forbidden.contains(&(c, n, t)),
                            "{c} -> {n} at {t}"
                        );
                    }
                }
            }
            let want_last = if model.parked.contains_key(&c) {
                Some(HORIZON)
            } else {
                model
                    .occupied
                    .iter()
                    .filter(|(o, _)| *o == c)
                    .map(|&(_, t)| t)
                    .max()
            };
            assert_eq!(table.last_vertex_time(c), want_last, "last time of {c}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn table_matches_model_and_refuses_conflicts(
        paths in proptest::collection::vec((0..W, 0..H, proptest::collection::vec(any::<u8>(), 0..12)), 1..8)
    ) {
        let grid = Grid::open(W, H).unwrap();
        let mut table = ReservationTable::new(&grid, HORIZON).unwrap();
        let mut model = Model::default();
        for (x, y, steps) in &paths {
            let path = walk(Cell::new(*x, *y), steps);
            let conflict = model.conflicts(&path);
            match table.reserve_path(&path) {
                Ok(()) => {
                    prop_assert!(!conflict, "accepted a conflicting path {:?}", path);
                    model.add(&path);
                }
                Err(ReservationError::VertexConflict { .. } | ReservationError::EdgeConflict { .. }) => {
                    prop_assert!(conflict, "refused a compatible path {:?}", path);
                }
                Err(e) => prop_assert!(false, "unexpected error {}", e),
            }
            // A refused path leaves the table exactly as it was.
            assert_same(&table, &model);
        }
    }
}

#[test]
fn errors_name_the_input() {
    let grid = Grid::open(4, 3).unwrap();
    let mut table = ReservationTable::new(&grid, 5).unwrap();
    let (a, b) = (Cell::new(0, 0), Cell::new(1, 0));
    assert_eq!(table.reserve_path(&[]), Err(ReservationError::EmptyPath));
    assert!(matches!(
        table.reserve_path(&[a; 7]),
        Err(ReservationError::PathTooLong {
            moves: 6,
            horizon: 5
        })
    ));
    assert!(matches!(
        table.reserve_path(&[a, Cell::new(2, 0)]),
        Err(ReservationError::NotAdjacent { .. })
    ));
    assert!(matches!(
        table.block_vertex(Cell::new(4, 0), 1),
        Err(ReservationError::OutOfRange { .. })
    ));
    assert!(matches!(
        table.block_vertex(a, 6),
        Err(ReservationError::BeyondHorizon { t: 6, .. })
    ));
    assert!(matches!(
        table.block_edge(a, Cell::new(1, 1), 1),
        Err(ReservationError::NotAdjacent { .. })
    ));
    table.block_edge(a, b, 2).unwrap();
    assert!(table.is_edge_reserved(a, b, 2));
    assert!(!table.is_edge_reserved(b, a, 2));
    let err = table.reserve_path(&[a, a, b]).unwrap_err();
    assert_eq!(
        err,
        ReservationError::EdgeConflict {
            from: a,
            to: b,
            t: 2
        }
    );
    assert!(err.to_string().contains("(0, 0) -> (1, 0)"), "{err}");
    table.clear();
    assert!(!table.is_edge_reserved(a, b, 2));
    assert_eq!(table.latest_time(), None);
}

#[test]
fn memory_is_reported_and_limited() {
    let grid = Grid::open(100, 100).unwrap();
    let mut table = ReservationTable::with_memory_limit(&grid, 100, 200_000).unwrap();
    let empty = table.bytes();
    table.block_vertex(Cell::new(0, 0), 3).unwrap();
    assert!(table.bytes() > empty);
    let mut failures = 0;
    for t in 0..=100 {
        if let Err(e) = table.block_vertex(Cell::new(5, 5), t) {
            assert!(matches!(e, ReservationError::TooLarge { .. }), "{e}");
            failures += 1;
        }
        assert!(table.bytes() <= 200_000);
    }
    assert!(failures > 0);
    assert!(matches!(
        ReservationTable::with_memory_limit(&grid, 100, 1000),
        Err(ReservationError::TooLarge { .. })
    ));
    assert_eq!(default_horizon(&grid), 800);
}

#[test]
fn constraints_are_sparse_sets() {
    let mut c = Constraints::new();
    let (a, b) = (Cell::new(3, 3), Cell::new(3, 4));
    assert!(c.add_vertex(a, 5));
    assert!(!c.add_vertex(a, 5));
    assert!(c.add_vertex(a, 2));
    assert!(c.add_edge(a, b, 4).unwrap());
    assert!(c.add_edge(Cell::new(2, 4), b, 4).unwrap());
    assert!(c.add_edge(a, a, 4).is_err());
    assert_eq!(c.len(), 4);
    assert!(c.is_vertex_forbidden(a, 2) && !c.is_vertex_forbidden(a, 3));
    assert!(c.is_edge_forbidden(a, b, 4) && !c.is_edge_forbidden(b, a, 4));
    assert_eq!(c.last_vertex_time(a), Some(5));
    assert_eq!(c.at(4).map(|s| s.edges.len()), Some(2));
    assert_eq!(c.latest_time(), Some(5));
}

#[test]
fn a_path_over_the_memory_limit_is_refused_whole() {
    let grid = Grid::open(64, 64).unwrap();
    let fixed = ReservationTable::new(&grid, 40).unwrap().bytes() as u128;
    // Room for the fixed part and three layers only.
    let layer = 5 * 64 * 2 * 8;
    let mut table = ReservationTable::with_memory_limit(&grid, 40, fixed + 3 * layer).unwrap();
    let path: Vec<Cell> = (0..4).map(|x| Cell::new(x, 0)).collect();
    assert!(matches!(
        table.reserve_path(&path),
        Err(ReservationError::TooLarge { .. })
    ));
    assert!((0..=40).all(|t| (0..4).all(|x| !table.is_vertex_reserved(Cell::new(x, 0), t))));
    assert_eq!(table.latest_time(), None);
    table.reserve_path(&path[..3]).unwrap();
    assert_eq!(
        table.arrived_from(Cell::new(2, 0), 2),
        Some(Cell::new(1, 0))
    );
    assert_eq!(table.arrived_from(Cell::new(2, 0), 1), None);
}

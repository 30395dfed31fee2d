//! The kernels run on the host (`emulate`) against independent oracles written here: a plain
//! queue BFS for distance maps, a plain BFS over `(cell, time)` states for space-time.

use std::collections::HashSet;

use cuplan_grid::{Cell, Grid, generate};
use cuplan_wavefront_gpu::emulate::{self, HostReservations};
use cuplan_wavefront_gpu::{DistanceConfig, DistanceKernel, GpuError, UNREACHABLE};
use proptest::prelude::*;

/// The shared plain-BFS oracle (`cuplan_grid::testkit`), unreachable as [`UNREACHABLE`].
fn bfs(grid: &Grid, goal: Cell) -> Vec<u32> {
    cuplan_grid::testkit::bfs4(grid, goal)
        .into_iter()
        .map(|d| d.unwrap_or(UNREACHABLE))
        .collect()
}

fn free_cells(grid: &Grid) -> Vec<Cell> {
    (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect()
}

fn grid_strategy() -> impl Strategy<Value = Grid> {
    // Widths around word boundaries (62..66 stored columns) and beyond one word.
    (1u32..140, 1u32..40, 0.0f64..0.45, any::<u64>())
        .prop_map(|(w, h, density, seed)| generate::random(w, h, density, seed).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn emulated_distance_maps_equal_bfs(
        grid in grid_strategy(),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..5),
        threads in 1u32..70,
        levels_per_launch in 1u32..9,
        sparse in any::<bool>(),
    ) {
        let free = free_cells(&grid);
        prop_assume!(!free.is_empty());
        let goals: Vec<Cell> = picks.iter().map(|i| free[i.index(free.len())]).collect();
        let kernel = if sparse { DistanceKernel::Sparse } else { DistanceKernel::Dense };
        let config = DistanceConfig { kernel, threads_per_block: threads, levels_per_launch };
        let got = emulate::distance_maps_with(&grid, &goals, &config).unwrap();
        let cells = grid.cell_count();
        prop_assert_eq!(got.len(), goals.len() * cells);
        for (i, &g) in goals.iter().enumerate() {
            prop_assert_eq!(&got[i * cells..(i + 1) * cells], &bfs(&grid, g)[..], "goal {} = {}", i, g);
        }
    }
}

#[test]
fn generated_families_match_bfs() {
    for grid in [
        generate::maze(97, 61, 1, 3).unwrap(),
        generate::rooms(130, 70, 12, 5).unwrap(),
        generate::random(200, 9, 0.3, 11).unwrap(),
        Grid::open(64, 3).unwrap(),
        Grid::open(1, 1).unwrap(),
    ] {
        let free = free_cells(&grid);
        let goals: Vec<Cell> = free.iter().step_by(free.len() / 3 + 1).copied().collect();
        let cells = grid.cell_count();
        for kernel in [DistanceKernel::Dense, DistanceKernel::Sparse] {
            let config = DistanceConfig {
                kernel,
                threads_per_block: 128,
                levels_per_launch: 7,
            };
            let got = emulate::distance_maps_with(&grid, &goals, &config).unwrap();
            for (i, &g) in goals.iter().enumerate() {
                assert_eq!(
                    &got[i * cells..(i + 1) * cells],
                    &bfs(&grid, g)[..],
                    "{kernel:?}"
                );
            }
        }
    }
}

#[test]
fn a_blocked_goal_is_an_error_naming_its_index() {
    let grid = Grid::from_ascii("..\n.@").unwrap();
    let err = emulate::distance_maps(&grid, &[Cell::new(0, 0), Cell::new(1, 1)], 32).unwrap_err();
    assert!(
        matches!(
            err,
            GpuError::BadCell {
                what: "goal",
                index: 1,
                ..
            }
        ),
        "{err}"
    );
    assert!(emulate::distance_maps(&grid, &[], 32).unwrap().is_empty());
}

/// Reservations as sets, for the oracle and the path checks.
#[derive(Default)]
struct Reserved {
    vertex: HashSet<(Cell, u32)>,
    /// (from, to, arrival time) of reserved moves.
    moves: HashSet<(Cell, Cell, u32)>,
}

impl Reserved {
    fn add(&mut self, path: &[Cell], horizon: u32) {
        for t in 0..=horizon {
            self.vertex
                .insert((path[(t as usize).min(path.len() - 1)], t));
        }
        for (i, p) in path.windows(2).enumerate() {
            self.moves.insert((p[0], p[1], i as u32 + 1));
        }
    }

    fn step_ok(&self, from: Cell, to: Cell, t: u32) -> bool {
        !self.vertex.contains(&(to, t)) && (from == to || !self.moves.contains(&(to, from, t)))
    }

    /// Earliest arrival time by BFS over (cell, t), staying at the goal allowed to the end.
    fn oracle(&self, grid: &Grid, start: Cell, goal: Cell, horizon: u32) -> Option<u32> {
        let last_at_goal = self
            .vertex
            .iter()
            .filter(|(c, _)| *c == goal)
            .map(|&(_, t)| t)
            .max();
        let done = |c: Cell, t: u32| c == goal && last_at_goal.is_none_or(|l| t > l);
        if self.vertex.contains(&(start, 0)) {
            return None;
        }
        if done(start, 0) {
            return Some(0);
        }
        let mut layer: HashSet<Cell> = HashSet::from([start]);
        for t in 1..=horizon {
            let mut next = HashSet::new();
            for &c in &layer {
                for n in std::iter::once(c).chain(grid.neighbours4(c)) {
                    if self.step_ok(c, n, t) {
                        next.insert(n);
                    }
                }
            }
            if next.iter().any(|&c| done(c, t)) {
                return Some(t);
            }
            layer = next;
        }
        None
    }
}

/// A random walk of `len` steps (waits included) over free cells.
fn walk(grid: &Grid, start: Cell, len: usize, seed: u64) -> Vec<Cell> {
    let mut s = seed | 1;
    let mut path = vec![start];
    for _ in 0..len {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let cur = *path.last().unwrap();
        let options: Vec<Cell> = std::iter::once(cur).chain(grid.neighbours4(cur)).collect();
        path.push(options[(s % options.len() as u64) as usize]);
    }
    path
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn emulated_space_time_is_optimal_and_conflict_free(
        grid in (1u32..80, 1u32..20, 0.0f64..0.3, any::<u64>())
            .prop_map(|(w, h, d, s)| generate::random(w, h, d, s).unwrap()),
        agents in prop::collection::vec((any::<prop::sample::Index>(), 0usize..30, any::<u64>()), 0..6),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        horizon in 1u32..60,
        threads in 1u32..40,
    ) {
        let free = free_cells(&grid);
        prop_assume!(!free.is_empty());
        let mut table = HostReservations::new(&grid, horizon, threads).unwrap();
        let mut reserved = Reserved::default();
        for (start, len, seed) in agents {
            let path = walk(&grid, free[start.index(free.len())], len, seed);
            table.reserve_path(&path).unwrap();
            reserved.add(&path, horizon);
        }
        let (start, goal) = (free[ends.0.index(free.len())], free[ends.1.index(free.len())]);
        let got = table.search(start, goal).unwrap();
        let want = reserved.oracle(&grid, start, goal, horizon);
        prop_assert_eq!(got.as_ref().map(|p| p.arrival()), want);
        if let Some(path) = got {
            prop_assert_eq!(path.cells[0], start);
            prop_assert_eq!(*path.cells.last().unwrap(), goal);
            for (i, p) in path.cells.windows(2).enumerate() {
                let t = i as u32 + 1;
                prop_assert!(p[0] == p[1] || p[0].manhattan(p[1]) == 1, "step {} not a move", i);
                prop_assert!(reserved.step_ok(p[0], p[1], t), "conflict at t = {}", t);
            }
        }
    }
}

#[test]
fn a_path_with_a_jump_is_refused() {
    let grid = Grid::open(5, 5).unwrap();
    let mut table = HostReservations::new(&grid, 10, 8).unwrap();
    let err = table
        .reserve_path(&[Cell::new(0, 0), Cell::new(2, 0)])
        .unwrap_err();
    assert!(
        matches!(err, GpuError::BadPathStep { index: 0, .. }),
        "{err}"
    );
}

/// Earliest arrival by BFS over (cell, t), asking the table itself about every state and move.
fn table_oracle(
    grid: &Grid,
    table: &cuplan_reservations::ReservationTable,
    start: Cell,
    goal: Cell,
) -> Option<u32> {
    let settle = table.last_vertex_time(goal);
    let done = |c: Cell, t: u32| c == goal && settle.is_none_or(|l| t > l);
    if table.is_vertex_reserved(start, 0) {
        return None;
    }
    if done(start, 0) {
        return Some(0);
    }
    let mut layer: HashSet<Cell> = HashSet::from([start]);
    for t in 1..=table.horizon() {
        let mut next = HashSet::new();
        for &c in &layer {
            for n in std::iter::once(c).chain(grid.neighbours4(c)) {
                if !table.is_vertex_reserved(n, t) && !table.is_edge_reserved(c, n, t) {
                    next.insert(n);
                }
            }
        }
        if next.iter().any(|&c| done(c, t)) {
            return Some(t);
        }
        layer = next;
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A table built by the reservations crate, uploaded whole, then more paths reserved as
    /// word updates: the same arrivals as asking the full table state by state.
    #[test]
    fn a_reservation_table_converts_exactly(
        grid in (1u32..70, 1u32..16, 0.0f64..0.3, any::<u64>())
            .prop_map(|(w, h, d, s)| generate::random(w, h, d, s).unwrap()),
        agents in prop::collection::vec((any::<prop::sample::Index>(), 0usize..25, any::<u64>()), 0..6),
        ends in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        horizon in 1u32..50,
    ) {
        let free = free_cells(&grid);
        prop_assume!(!free.is_empty());
        let mut full = cuplan_reservations::ReservationTable::new(&grid, horizon).unwrap();
        let mut accepted = Vec::new();
        for (start, len, seed) in agents {
            let path = walk(&grid, free[start.index(free.len())], len, seed);
            // The table refuses conflicting paths; keep the ones it takes.
            if full.reserve_path(&path).is_ok() {
                accepted.push(path);
            }
        }
        let half = accepted.len() / 2;
        let mut early = cuplan_reservations::ReservationTable::new(&grid, horizon).unwrap();
        for path in &accepted[..half] {
            early.reserve_path(path).unwrap();
        }
        let mut host = HostReservations::from_table(&grid, &early, 16).unwrap();
        for path in &accepted[half..] {
            host.reserve_path(path).unwrap();
        }
        let (start, goal) = (free[ends.0.index(free.len())], free[ends.1.index(free.len())]);
        let got = host.search(start, goal).unwrap();
        prop_assert_eq!(got.map(|p| p.arrival()), table_oracle(&grid, &full, start, goal));
    }
}

//! Helpers shared by the MAPF integration tests: an independent exhaustive joint-space
//! search (the optimality oracle), a naive conflict checker, and random tiny instances.
#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use cuplan_grid::{Cell, Grid};
use cuplan_mapf::Instance;

/// `../shared/data/mapf`, or `None` (with a message) when the data is absent.
pub(crate) fn mapf_data() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data/mapf"
    ));
    if dir.join("maps").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: MAPF benchmark data not found at {}",
            dir.display()
        );
        None
    }
}

/// 4-neighbours of a free cell (plain, not using the crate under test).
fn moves(grid: &Grid, c: Cell) -> Vec<Cell> {
    let mut out = vec![c];
    let (x, y) = (i64::from(c.x), i64::from(c.y));
    for (dx, dy) in [(0, -1), (1, 0), (0, 1), (-1, 0)] {
        if grid.is_free_signed(x + dx, y + dy) {
            out.push(Cell::new((x + dx) as u32, (y + dy) as u32));
        }
    }
    out
}

/// Plain BFS distance between two cells (4-connected; the shared oracle in
/// `cuplan_grid::testkit`, independent of mapf and wavefront).
pub(crate) fn bfs_distance(grid: &Grid, from: Cell, to: Cell) -> Option<u64> {
    let dist = cuplan_grid::testkit::bfs4(grid, to);
    dist[grid.index(from).get()].map(u64::from)
}

/// The optimal sum of costs by Dijkstra over joint states (positions, finished flags).
///
/// An agent's cost is the time it arrives at its goal for good; "finished" agents are
/// committed to stay on their goals, so a step costs the number of unfinished agents.
/// `None` when no solution exists.
pub(crate) fn optimal_soc(instance: &Instance) -> Option<u64> {
    let grid = instance.grid();
    let starts = instance.starts();
    let goals = instance.goals();
    let n = starts.len();
    type State = (Vec<Cell>, u32);
    let mut best: HashMap<State, u64> = HashMap::new();
    let mut heap: BinaryHeap<(Reverse<u64>, Vec<Cell>, u32)> = BinaryHeap::new();
    let at_goal = |pos: &[Cell]| -> u32 {
        (0..n)
            .filter(|&i| pos[i] == goals[i])
            .fold(0, |m, i| m | (1 << i))
    };
    let all = (1u32 << n) - 1;
    // Every subset of the agents already on their goals may be declared finished.
    let push_subsets = |pos: Vec<Cell>,
                        done: u32,
                        cost: u64,
                        heap: &mut BinaryHeap<_>,
                        best: &mut HashMap<State, u64>| {
        let optional = at_goal(&pos) & !done;
        let mut sub = optional;
        loop {
            let key = (pos.clone(), done | sub);
            if best.get(&key).is_none_or(|&c| cost < c) {
                best.insert(key, cost);
                heap.push((Reverse(cost), pos.clone(), done | sub));
            }
            if sub == 0 {
                break;
            }
            sub = (sub - 1) & optional;
        }
    };
    push_subsets(starts.to_vec(), 0, 0, &mut heap, &mut best);
    while let Some((Reverse(cost), pos, done)) = heap.pop() {
        if best.get(&(pos.clone(), done)).is_some_and(|&c| c < cost) {
            continue;
        }
        if done == all {
            return Some(cost);
        }
        let step = u64::from(n as u32 - done.count_ones());
        let options: Vec<Vec<Cell>> = (0..n)
            .map(|i| {
                if done >> i & 1 == 1 {
                    vec![pos[i]]
                } else {
                    moves(grid, pos[i])
                }
            })
            .collect();
        let mut choice = vec![0usize; n];
        'outer: loop {
            let next: Vec<Cell> = (0..n).map(|i| options[i][choice[i]]).collect();
            let legal = (0..n).all(|i| {
                (0..i).all(|j| next[i] != next[j] && !(next[i] == pos[j] && next[j] == pos[i]))
            });
            if legal {
                push_subsets(next, done, cost + step, &mut heap, &mut best);
            }
            for i in 0..n {
                choice[i] += 1;
                if choice[i] < options[i].len() {
                    continue 'outer;
                }
                choice[i] = 0;
            }
            break;
        }
    }
    None
}

/// A tiny deterministic generator for test instances (independent of the crate's).
pub(crate) struct TestRng(u64);

impl TestRng {
    pub(crate) fn new(seed: u64) -> TestRng {
        TestRng(
            seed.wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407),
        )
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random grid with `agents` agents on distinct free, mutually reachable cells, or `None`
/// when this seed does not give a valid instance.
pub(crate) fn random_instance(
    width: u32,
    height: u32,
    density_pct: u64,
    agents: usize,
    seed: u64,
) -> Option<Instance> {
    let mut rng = TestRng::new(seed);
    let mut art = String::new();
    for _ in 0..height {
        for _ in 0..width {
            art.push(if rng.below(100) < density_pct {
                '@'
            } else {
                '.'
            });
        }
        art.push('\n');
    }
    let grid = Grid::from_ascii(&art).ok()?;
    let free: Vec<Cell> = (0..height)
        .flat_map(|y| (0..width).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect();
    if free.len() < agents {
        return None;
    }
    let pick = |rng: &mut TestRng| -> Vec<Cell> {
        let mut cells = free.clone();
        for i in (1..cells.len()).rev() {
            cells.swap(i, rng.below(i as u64 + 1) as usize);
        }
        cells.truncate(agents);
        cells
    };
    let starts = pick(&mut rng);
    let goals = pick(&mut rng);
    Instance::new(Arc::new(grid), starts, goals).ok()
}

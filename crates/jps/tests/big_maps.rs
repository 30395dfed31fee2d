//! Maps beyond the old limits: rows and columns longer than an `i16` jump-table entry (70,000
//! cells, so runs of more than 32,767 and 65,536 steps), more than 2^21 free cells (where the
//! old heap key stopped being exact), and the grid crate's largest map (16,384²), each checked
//! against an exact oracle or a closed form.

mod common;

use std::sync::Arc;

use cuplan_grid::{Cell, Direction, Grid, OctileCost};
use cuplan_jps::{Algorithm, JumpTable, Planner, Searcher, Upkeep};

/// A small deterministic generator (xorshift64*), so the queries are the same every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }

    fn free_cell(&mut self, grid: &Grid) -> Cell {
        loop {
            let c = Cell::new(
                self.below(u64::from(grid.width())) as u32,
                self.below(u64::from(grid.height())) as u32,
            );
            if grid.is_free(c) {
                return c;
            }
        }
    }
}

fn blocked_at(width: u32, height: u32, cells: &[(u32, u32)]) -> Grid {
    let mut grid = Grid::open(width, height).expect("valid size");
    for &(x, y) in cells {
        grid.set_blocked(Cell::new(x, y)).expect("inside");
    }
    grid
}

/// 70,000 × 3 with its obstacles near the east end, so the runs from the west edge are longer
/// than 65,536 cells: row 0 ends at a wall after 67,999 steps; row 1 meets a jump point at
/// x = 68,001 (forced by the wall in row 0) and row 2 one at x = 69,001.
const LONG: u32 = 70_000;
const LONG_ROW_OBSTACLES: [(u32, u32); 4] = [(68_000, 0), (69_000, 1), (69_500, 1), (69_800, 2)];

fn long_rows() -> Grid {
    blocked_at(LONG, 3, &LONG_ROW_OBSTACLES)
}

/// [`long_rows`] transposed: 3 × 70,000, long columns.
fn long_columns() -> Grid {
    let transposed: Vec<(u32, u32)> = LONG_ROW_OBSTACLES.iter().map(|&(x, y)| (y, x)).collect();
    blocked_at(3, LONG, &transposed)
}

/// Queries along and across the long runs: goals on runs longer than 32,767 and 65,536 steps
/// in both directions, goals just before and after the jump points and walls, and random ones.
fn long_run_queries(along: impl Fn(u32, u32) -> Cell, grid: &Grid, seed: u64) -> Vec<(Cell, Cell)> {
    let mut queries = vec![
        // Row 0 east to just before its wall (67,999 steps), and back.
        (along(0, 0), along(67_999, 0)),
        (along(67_999, 0), along(0, 0)),
        // Goals on a run with a jump point beyond them (row 1's jump point is at 68,001).
        (along(0, 1), along(40_000, 1)),
        (along(0, 1), along(68_000, 1)),
        (along(0, 1), along(68_001, 1)),
        (along(0, 1), along(68_002, 1)),
        // Exactly one and two chain steps (32,766 cells) and around i16::MAX.
        (along(0, 2), along(32_766, 2)),
        (along(0, 2), along(32_767, 2)),
        (along(0, 2), along(32_768, 2)),
        (along(1, 2), along(65_533, 2)),
        (along(69_999, 2), along(1, 2)),
        // Changing rows: diagonal steps at both ends, and around the obstacles.
        (along(0, 0), along(69_999, 2)),
        (along(69_999, 0), along(0, 2)),
        (along(3, 1), along(69_999, 0)),
        (along(69_999, 1), along(2, 0)),
    ];
    let mut rng = Rng(seed);
    for _ in 0..4 {
        let s = rng.free_cell(grid);
        for _ in 0..3 {
            queries.push((s, rng.free_cell(grid)));
        }
    }
    queries
}

#[test]
fn every_algorithm_is_exact_on_rows_longer_than_65536() {
    let grid = long_rows();
    let queries = long_run_queries(Cell::new, &grid, 1);
    common::check_every_algorithm(grid, &queries);
}

#[test]
fn every_algorithm_is_exact_on_columns_longer_than_65536() {
    let grid = long_columns();
    let queries = long_run_queries(|x, y| Cell::new(y, x), &grid, 2);
    common::check_every_algorithm(grid, &queries);
}

#[test]
fn every_algorithm_is_exact_with_more_than_2_pow_21_free_cells() {
    // 1,500² with 3 % random obstacles: about 2.18 million free cells, beyond the old limit.
    let mut grid = Grid::open(1500, 1500).expect("valid size");
    let mut rng = Rng(3);
    for _ in 0..(1500 * 1500 * 3 / 100) {
        let c = Cell::new(rng.below(1500) as u32, rng.below(1500) as u32);
        grid.set_blocked(c).expect("inside");
    }
    assert!(
        grid.free_count() > 1 << 21,
        "{} free cells",
        grid.free_count()
    );
    let corners = [
        Cell::new(0, 0),
        Cell::new(1499, 1499),
        Cell::new(1499, 0),
        Cell::new(0, 1499),
    ];
    let corners: Vec<Cell> = corners.into_iter().filter(|&c| grid.is_free(c)).collect();
    let s = corners[0];
    let mut queries: Vec<(Cell, Cell)> = corners[1..].iter().map(|&g| (s, g)).collect();
    for _ in 0..3 {
        queries.push((s, rng.free_cell(&grid)));
    }
    common::check_every_algorithm(grid, &queries);
}

#[test]
fn bit_jumps_are_exact_on_the_largest_map() {
    // 16,384² = 2^28 cells, the grid crate's default limit. Only the bit-scanning variants:
    // A* and cell-by-cell JPS would spend seconds per long query, and the JPS+ table would be
    // 16 B × 2^28 = 4 GiB (too much for CI; long runs of the table are tested above).
    const SIDE: u32 = 16_384;
    let grid = Arc::new(Grid::open(SIDE, SIDE).expect("2^28 cells are accepted"));
    let far = SIDE - 1;
    let queries = [
        (Cell::new(0, 0), Cell::new(far, far)),
        (Cell::new(far, 0), Cell::new(0, far)),
        (Cell::new(0, 0), Cell::new(far, 0)),
        (Cell::new(5, 16_000), Cell::new(16_380, 3)),
        (Cell::new(8_000, 8_100), Cell::new(100, 12_345)),
    ];
    for algo in [Algorithm::JpsBit, Algorithm::JpsBitPrune] {
        let planner =
            Planner::new(Arc::clone(&grid), algo).unwrap_or_else(|e| panic!("{algo}: {e}"));
        let mut searcher = Searcher::new();
        for &(s, g) in &queries {
            let path = planner
                .search(&mut searcher, s, g)
                .expect("valid endpoints")
                .expect("an open map is connected");
            // On an open map the octile distance is the optimum.
            assert_eq!(path.cost, OctileCost::between(s, g), "{algo} {s}->{g}");
            assert_eq!(grid.octile_path_cost(&path.waypoints), Ok(path.cost));
        }
        // The automatic searcher chose pages: far below the 4 GiB of a dense table.
        assert!(searcher.is_paged());
        let dense_bytes = 16 * grid.cell_count();
        assert!(
            searcher.bytes() < dense_bytes / 256,
            "{} bytes held, dense would be {dense_bytes}",
            searcher.bytes()
        );
    }
}

#[test]
fn automatic_searchers_switch_tables_with_the_grid() {
    let small = Arc::new(Grid::open(64, 64).expect("valid size"));
    let big = Arc::new(Grid::open(4096, 1025).expect("valid size"));
    assert!(big.cell_count() > Searcher::DENSE_MAX_CELLS);
    let mut searcher = Searcher::new();
    for (grid, paged) in [(&small, false), (&big, true), (&small, false)] {
        let planner = Planner::new(Arc::clone(grid), Algorithm::JpsBit).expect("planner");
        let (s, g) = (Cell::new(1, 2), Cell::new(grid.width() - 3, 40));
        let path = planner
            .search(&mut searcher, s, g)
            .expect("valid")
            .expect("open");
        assert_eq!(path.cost, OctileCost::between(s, g));
        assert_eq!(
            searcher.is_paged(),
            paged,
            "{}x{}",
            grid.width(),
            grid.height()
        );
    }
    // `dense` keeps the dense table on a big grid.
    let planner = Planner::new(Arc::clone(&big), Algorithm::JpsBit).expect("planner");
    let mut dense = Searcher::dense();
    let path = planner
        .search(&mut dense, Cell::new(0, 0), Cell::new(4095, 1024))
        .expect("valid");
    assert!(path.is_some());
    assert!(!dense.is_paged());
    assert!(dense.bytes() >= 16 * big.cell_count());
}

/// The table's definition computed with `i32` values, independently of the crate: for each
/// cell and direction, `k > 0` for a jump point `k` cells on, `-k` for `k` legal steps then a
/// stop.
fn reference_table(grid: &Grid) -> Vec<[i32; 8]> {
    let (w, h) = (i64::from(grid.width()), i64::from(grid.height()));
    let blocked = |x: i64, y: i64| !grid.is_free_signed(x, y);
    let at = |x: i64, y: i64| (y * w + x) as usize;
    let longer = |k: i32| if k > 0 { k + 1 } else { k - 1 };
    let mut table = vec![[0i32; 8]; (w * h) as usize];
    // Visit cells so that the next cell along (dx, dy) comes first.
    let order = |dx: i32, dy: i32| {
        let xs: Vec<i64> = if dx > 0 {
            (0..w).rev().collect()
        } else {
            (0..w).collect()
        };
        let ys: Vec<i64> = if dy > 0 {
            (0..h).rev().collect()
        } else {
            (0..h).collect()
        };
        ys.into_iter()
            .flat_map(move |y| xs.clone().into_iter().map(move |x| (x, y)))
    };
    let straight = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
    ];
    for d in straight {
        let (dx, dy) = d.delta();
        let (dx64, dy64) = (i64::from(dx), i64::from(dy));
        for (x, y) in order(dx, dy) {
            let (nx, ny) = (x + dx64, y + dy64);
            table[at(x, y)][d.index()] = if blocked(x, y) || blocked(nx, ny) {
                0
            } else if [1i64, -1].into_iter().any(|s| {
                let (sx, sy) = (nx + s * dy64, ny + s * dx64);
                blocked(sx - dx64, sy - dy64) && !blocked(sx, sy)
            }) {
                1
            } else {
                longer(table[at(nx, ny)][d.index()])
            };
        }
    }
    for d in Direction::DIAGONAL {
        let (dx, dy) = d.delta();
        let (dx64, dy64) = (i64::from(dx), i64::from(dy));
        let (hd, vd) = d.components();
        for (x, y) in order(dx, dy) {
            let (nx, ny) = (x + dx64, y + dy64);
            table[at(x, y)][d.index()] =
                if blocked(x, y) || blocked(nx, ny) || blocked(nx, y) || blocked(x, ny) {
                    0
                } else {
                    let next = table[at(nx, ny)];
                    if next[hd.index()] > 0 || next[vd.index()] > 0 {
                        1
                    } else {
                        longer(next[d.index()])
                    }
                };
        }
    }
    table
}

#[test]
fn saturated_table_decodes_to_the_exact_table_on_long_rows() {
    // Four rows, so that long runs exist both with and without jump points, and repairs.
    let mut grid = blocked_at(LONG, 4, &[(68_000, 0), (69_000, 1), (100, 3), (69_800, 2)]);
    let mut table = JumpTable::build(&grid).expect("any size builds");
    for round in 0..3 {
        let reference = reference_table(&grid);
        let mut saturated = 0;
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let c = Cell::new(x, y);
                let stored = table.distances(c).expect("inside");
                let want = &reference[(y * grid.width() + x) as usize];
                for d in Direction::ALL {
                    let i = d.index();
                    let exact = table.distance(c, d).expect("inside");
                    assert_eq!(exact, want[i], "round {round}: {c} {d:?}");
                    let clamped = want[i].clamp(i32::from(i16::MIN), i32::from(i16::MAX));
                    assert_eq!(i32::from(stored[i]), clamped, "round {round}: {c} {d:?}");
                    saturated += usize::from(clamped != want[i]);
                }
            }
        }
        assert!(saturated > 0);
        if round == 0 {
            // Runs of both signs beyond two chain steps: row 0 ends at a wall, row 2 at a
            // jump point.
            let east = |v: &[i32; 8]| v[Direction::East.index()];
            assert!(reference.iter().any(|v| east(v) > 65_536));
            assert!(reference.iter().any(|v| east(v) < -65_536));
        }
        // Repair with saturated values: block a cell mid-row, free it, block it again.
        let c = Cell::new(30_000, 1);
        if round % 2 == 0 {
            grid.set_blocked(c).expect("inside");
        } else {
            grid.set_free(c).expect("inside");
        }
        let upkeep = table.repair(&grid).expect("repairs");
        assert_eq!(upkeep, Upkeep::Repaired { changes: 1 });
        assert_eq!(
            table,
            JumpTable::build(&grid).expect("builds"),
            "repair after {c}"
        );
    }
}

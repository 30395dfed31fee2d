//! A small map from the first bytes, queries from the rest: every single-agent algorithm
//! returns a legal path of the same exact cost as A*, or the same "no path", or the same error.
#![no_main]

use cuplan::grid::{Cell, Grid};
use cuplan::jps::{Algorithm, find_path};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&dims, rest)) = data.split_first() else { return };
    let (w, h) = (u32::from(dims & 15) + 1, u32::from(dims >> 4) + 1);
    let cells = (w * h) as usize;
    if rest.len() < cells.div_ceil(8) {
        return;
    }
    let (bits, queries) = rest.split_at(cells.div_ceil(8));
    let mut grid = Grid::open(w, h).expect("valid size");
    for i in 0..cells {
        if bits[i / 8] >> (i % 8) & 1 == 1 {
            grid.set_blocked(Cell::new(i as u32 % w, i as u32 / w)).expect("in range");
        }
    }
    for q in queries.chunks_exact(2).take(8) {
        // Coordinates may fall outside the grid on purpose: errors must agree too.
        let start = Cell::new(u32::from(q[0] & 15), u32::from(q[0] >> 4));
        let goal = Cell::new(u32::from(q[1] & 15), u32::from(q[1] >> 4));
        let reference = find_path(&grid, Algorithm::AStar, start, goal);
        for algo in Algorithm::ALL {
            let got = find_path(&grid, algo, start, goal);
            match (&reference, &got) {
                (Ok(Some(a)), Ok(Some(b))) => {
                    assert_eq!(grid.octile_path_cost(&b.waypoints).expect("legal path"), b.cost, "{algo}");
                    assert_eq!(a.cost, b.cost, "{algo} on {start} -> {goal}");
                    assert_eq!((b.waypoints[0], *b.waypoints.last().unwrap()), (start, goal));
                }
                (Ok(None), Ok(None)) | (Err(_), Err(_)) => {}
                _ => panic!("{algo} disagrees with astar on {start} -> {goal}: {got:?} vs {reference:?}"),
            }
        }
    }
});

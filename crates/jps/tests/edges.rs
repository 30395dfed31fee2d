//! Edge cases the JPS literature gets wrong, each checked against the independent Dijkstra:
//! jumps along map borders, diagonal squeezes between two blocked cells (illegal), goals on a
//! jump line, and forced neighbours at 64-bit word boundaries (x = 63, 64, 127, 128).

mod common;

use cuplan_grid::{Cell, Grid, OctileCost};
use cuplan_jps::{Algorithm, Planner, Searcher};

/// Checks every implemented algorithm on `queries` against Dijkstra (exact cost, legal path,
/// `None` exactly when unreachable).
fn check(grid: &Grid, queries: &[(Cell, Cell)]) {
    common::check_every_algorithm(grid.clone(), queries);
}

/// All pairs of the given cells (both orders).
fn all_pairs(cells: &[Cell]) -> Vec<(Cell, Cell)> {
    cells
        .iter()
        .flat_map(|&a| cells.iter().map(move |&b| (a, b)))
        .collect()
}

#[test]
fn jumps_along_every_border() {
    for (w, h) in [(130, 3), (3, 130), (64, 64), (65, 2), (1, 129), (129, 1)] {
        let grid = Grid::open(w, h).expect("grid");
        let corners = [
            Cell::new(0, 0),
            Cell::new(w - 1, 0),
            Cell::new(0, h - 1),
            Cell::new(w - 1, h - 1),
            Cell::new(w / 2, 0),
            Cell::new(0, h / 2),
        ];
        check(&grid, &all_pairs(&corners));
    }
}

#[test]
fn a_diagonal_squeeze_between_two_blocked_cells_is_illegal() {
    let grid = Grid::from_ascii(
        "
        .@
        @.
    ",
    )
    .expect("grid");
    let planner = Planner::new(grid.clone(), Algorithm::JpsBit).expect("planner");
    let got = planner
        .search(&mut Searcher::new(), Cell::new(0, 0), Cell::new(1, 1))
        .expect("valid");
    assert_eq!(got, None);
    check(&grid, &[(Cell::new(0, 0), Cell::new(1, 1))]);

    // A squeeze on the short way forces a detour; corner-cutting code would take it.
    let grid = Grid::from_ascii(
        "
        ..........
        ....@.....
        .....@....
        ..........
    ",
    )
    .expect("grid");
    check(
        &grid,
        &all_pairs(&[
            Cell::new(4, 2),
            Cell::new(5, 1),
            Cell::new(0, 3),
            Cell::new(9, 0),
        ]),
    );
}

#[test]
fn goals_on_jump_lines_are_found() {
    let grid = Grid::open(200, 150).expect("grid");
    let s = Cell::new(10, 10);
    // Straight, diagonal and "on a straight probe of a diagonal" goals.
    let goals = [
        Cell::new(150, 10),
        Cell::new(10, 140),
        Cell::new(100, 100),
        Cell::new(199, 50),
        Cell::new(30, 149),
        Cell::new(0, 10),
        Cell::new(10, 0),
    ];
    let mut mut_searcher = Searcher::new();
    for algo in Algorithm::ALL.into_iter().skip(1) {
        let planner = Planner::new(grid.clone(), algo).expect("planner");
        for g in goals {
            let p = planner
                .search(&mut mut_searcher, s, g)
                .expect("valid")
                .expect("open grid");
            assert_eq!(p.cost, OctileCost::between(s, g), "{algo} {g}");
            // On an open grid a jump search expands only a handful of nodes.
            assert!(
                mut_searcher.stats().expanded <= 4,
                "{algo} {g}: {:?}",
                mut_searcher.stats()
            );
        }
    }
    check(&grid, &goals.map(|g| (s, g)));
}

/// Walls ending at a word boundary make forced neighbours exactly at x (or y) = 63, 64, 127,
/// 128 in both scan directions and on both sides.
#[test]
fn forced_neighbours_at_word_boundaries() {
    for x in [62u32, 63, 64, 65, 126, 127, 128, 129] {
        for transpose in [false, true] {
            let (w, h) = (200u32, 7u32);
            let mut art = vec![vec![b'.'; w as usize]; h as usize];
            // Row 1 blocked up to x - 1 (from the left), row 5 blocked from x + 1 (to the right):
            // moving east on row 2 meets a forced neighbour above at x; moving west on row 4
            // meets one below at x.
            art[1][..x as usize].fill(b'@');
            art[5][x as usize + 1..].fill(b'@');
            let text: Vec<String> = if transpose {
                (0..w as usize)
                    .map(|cx| (0..h as usize).map(|cy| art[cy][cx] as char).collect())
                    .collect()
            } else {
                art.iter()
                    .map(|r| String::from_utf8_lossy(r).into_owned())
                    .collect()
            };
            let grid = Grid::from_ascii(&text.join("\n")).expect("grid");
            let at = |cx: u32, cy: u32| {
                if transpose {
                    Cell::new(cy, cx)
                } else {
                    Cell::new(cx, cy)
                }
            };
            let cells = [
                at(0, 2),
                at(0, 0),
                at(x, 0),
                at(x + 3, 0),
                at(w - 1, 4),
                at(w - 1, 6),
                at(x, 6),
                at(x - 3, 6),
                at(0, 6),
            ];
            check(&grid, &all_pairs(&cells));
        }
    }
}

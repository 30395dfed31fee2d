//! Instance construction: every kind of bad input is refused with a clear error before any
//! search, and the lower bound matches an independent BFS.

mod common;

use std::io::Write;
use std::sync::Arc;

use cuplan_grid::{Cell, Endpoint, Grid};
use cuplan_mapf::{Instance, MapfError, Solver};

fn c(x: u32, y: u32) -> Cell {
    Cell::new(x, y)
}

fn grid() -> Arc<Grid> {
    // Right column is cut off by a wall: (3, 0) is unreachable from the left part.
    Arc::new(Grid::from_ascii("..@.\n..@@\n....\n").unwrap())
}

#[test]
fn refuses_bad_instances() {
    let g = grid;
    let err = |starts: Vec<Cell>, goals: Vec<Cell>| Instance::new(g(), starts, goals).unwrap_err();
    assert!(matches!(
        err(vec![c(0, 0)], vec![]),
        MapfError::LengthMismatch {
            starts: 1,
            goals: 0
        }
    ));
    assert!(matches!(
        err(vec![c(9, 0)], vec![c(0, 0)]),
        MapfError::OutOfRange {
            agent: 0,
            endpoint: Endpoint::Start,
            ..
        }
    ));
    assert!(matches!(
        err(vec![c(0, 0)], vec![c(0, 7)]),
        MapfError::OutOfRange {
            agent: 0,
            endpoint: Endpoint::Goal,
            ..
        }
    ));
    assert!(matches!(
        err(vec![c(2, 0)], vec![c(0, 0)]),
        MapfError::Blocked {
            agent: 0,
            endpoint: Endpoint::Start,
            ..
        }
    ));
    assert!(matches!(
        err(vec![c(0, 0), c(1, 0)], vec![c(1, 1), c(2, 1)]),
        MapfError::Blocked {
            agent: 1,
            endpoint: Endpoint::Goal,
            ..
        }
    ));
    assert!(matches!(
        err(vec![c(0, 0), c(0, 0)], vec![c(1, 1), c(0, 1)]),
        MapfError::Duplicate {
            first: 0,
            second: 1,
            endpoint: Endpoint::Start,
            ..
        }
    ));
    assert!(matches!(
        err(vec![c(0, 0), c(1, 0)], vec![c(1, 1), c(1, 1)]),
        MapfError::Duplicate {
            first: 0,
            second: 1,
            endpoint: Endpoint::Goal,
            ..
        }
    ));
    let e = err(vec![c(0, 0)], vec![c(3, 0)]);
    assert!(matches!(e, MapfError::Unreachable { agent: 0, .. }));
    assert!(e.to_string().contains("cannot be reached"), "{e}");
}

#[test]
fn accepts_edge_cases() {
    let empty = Instance::new(grid(), vec![], vec![]).unwrap();
    assert_eq!(empty.num_agents(), 0);
    assert_eq!(empty.lower_bound(), 0);
    // A goal equal to another agent's start is legal.
    let swap = Instance::new(grid(), vec![c(0, 0), c(1, 0)], vec![c(1, 0), c(0, 0)]).unwrap();
    assert_eq!(swap.lower_bound(), 2);
}

#[test]
fn parses_names_and_errors() {
    assert_eq!("pp".parse::<Solver>().unwrap(), Solver::Pp);
    assert_eq!("CBS".parse::<Solver>().unwrap(), Solver::Cbs);
    assert_eq!(Solver::Lacam.to_string(), "lacam");
    assert!(matches!(
        "astar".parse::<Solver>(),
        Err(MapfError::InvalidArgument(_))
    ));
    for order in cuplan_mapf::PriorityOrder::ALL {
        assert_eq!(
            order.name().parse::<cuplan_mapf::PriorityOrder>().unwrap(),
            order
        );
    }
}

fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cuplan-mapf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    path
}

#[test]
fn reads_moving_ai_files_and_refuses_bad_ones() {
    let map = temp_file("m.map", "type octile\nheight 2\nwidth 4\nmap\n....\n..@.\n");
    let line =
        |sx: u32, sy: u32, gx: u32, gy: u32| format!("0\tm.map\t4\t2\t{sx}\t{sy}\t{gx}\t{gy}\t1\n");
    let scen = temp_file(
        "ok.scen",
        &format!("version 1\n{}{}", line(0, 0, 3, 0), line(1, 0, 0, 1)),
    );
    let inst = Instance::from_moving_ai(&map, &scen, 2).unwrap();
    assert_eq!(inst.starts(), &[c(0, 0), c(1, 0)]);
    assert_eq!(inst.goals(), &[c(3, 0), c(0, 1)]);
    assert_eq!(
        Instance::from_moving_ai(&map, &scen, 1)
            .unwrap()
            .num_agents(),
        1
    );

    let e = Instance::from_moving_ai(&map, &scen, 3).unwrap_err();
    assert!(
        matches!(
            e,
            MapfError::TooFewAgents {
                requested: 3,
                available: 2,
                ..
            }
        ),
        "{e}"
    );
    let blocked = temp_file("b.scen", &format!("version 1\n{}", line(2, 1, 0, 0)));
    assert!(matches!(
        Instance::from_moving_ai(&map, &blocked, 1),
        Err(MapfError::Blocked { .. })
    ));
    let dup = temp_file(
        "d.scen",
        &format!("version 1\n{}{}", line(0, 0, 3, 0), line(1, 0, 3, 0)),
    );
    assert!(matches!(
        Instance::from_moving_ai(&map, &dup, 2),
        Err(MapfError::Duplicate {
            endpoint: Endpoint::Goal,
            ..
        })
    ));
    let other = temp_file("o.scen", "version 1\n0\tm.map\t5\t2\t0\t0\t1\t0\t1\n");
    let e = Instance::from_moving_ai(&map, &other, 1).unwrap_err();
    assert!(
        matches!(e, MapfError::ScenarioMismatch { line: 2, .. }),
        "{e}"
    );
    let e = Instance::from_moving_ai(map.with_extension("missing"), &scen, 1).unwrap_err();
    assert!(matches!(e, MapfError::Grid(_)), "{e}");
    assert!(e.to_string().contains("missing"), "{e}");
    let garbage = temp_file("g.scen", "version 1\nnot a line\n");
    assert!(matches!(
        Instance::from_moving_ai(&map, &garbage, 1),
        Err(MapfError::Grid(_))
    ));
}

#[test]
fn lower_bound_matches_plain_bfs() {
    for seed in 0..30 {
        let Some(inst) = common::random_instance(9, 7, 25, 5, seed) else {
            continue;
        };
        let expected: u64 = inst
            .starts()
            .iter()
            .zip(inst.goals())
            .map(|(&s, &g)| common::bfs_distance(inst.grid(), s, g).unwrap())
            .sum();
        assert_eq!(inst.lower_bound(), expected, "seed {seed}");
    }
}

#[test]
fn reads_every_shared_mapf_scenario() {
    let Some(dir) = common::mapf_data() else {
        return;
    };
    for kind in ["scen-random", "scen-even"] {
        for entry in std::fs::read_dir(dir.join(kind)).unwrap() {
            let scen = entry.unwrap().path();
            let name = scen.file_name().unwrap().to_string_lossy().into_owned();
            let map_name = name.rsplitn(3, '-').nth(2).unwrap().to_owned() + ".map";
            let inst = Instance::from_moving_ai(dir.join("maps").join(&map_name), &scen, 10)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(inst.num_agents(), 10);
        }
    }
}

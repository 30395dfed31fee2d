//! The library's side of the bad-input catalogue: every crate answers bad input with its own
//! error value (never a panic), and the message names the input at fault. The CLI's side lives in
//! `crates/cli/tests/cli.rs`; malformed files in `crates/grid/tests/malformed.rs`.

use std::sync::Arc;

use cuplan::grid::{Cell, Grid};
use cuplan::jps::{Algorithm, JpsError, find_path};
use cuplan::mapf::{Instance, MapfError};
use cuplan::reservations::{ReservationError, ReservationTable};
use cuplan::wavefront::{
    Backend, SpaceTimeResult, WavefrontError, batched_astar, distance_maps, space_time_astar,
};

fn grid() -> Grid {
    Grid::from_ascii(
        "
        ....@...
        ....@...
        ....@...
        ",
    )
    .unwrap()
}

fn c(x: u32, y: u32) -> Cell {
    Cell::new(x, y)
}

#[test]
fn single_agent_search_refuses_bad_endpoints() {
    let g = grid();
    for algo in Algorithm::ALL {
        let err = find_path(&g, algo, c(9, 0), c(0, 0)).unwrap_err();
        assert!(matches!(err, JpsError::OutOfRange { .. }), "{algo}: {err}");
        assert!(
            err.to_string().contains("start cell (9, 0) is outside"),
            "{err}"
        );
        let err = find_path(&g, algo, c(0, 0), c(4, 1)).unwrap_err();
        assert!(
            err.to_string().contains("goal cell (4, 1) is blocked"),
            "{algo}: {err}"
        );
        // Unreachable is not an error: it is "no path".
        assert_eq!(
            find_path(&g, algo, c(0, 0), c(7, 2)).unwrap(),
            None,
            "{algo}"
        );
        // start = goal is a path of one cell and cost zero.
        let p = find_path(&g, algo, c(2, 2), c(2, 2)).unwrap().unwrap();
        assert_eq!((p.waypoints.len(), p.cost.to_f64()), (1, 0.0), "{algo}");
    }
    assert!(matches!(
        "a-star".parse::<Algorithm>(),
        Err(JpsError::UnknownAlgorithm { .. })
    ));
}

#[test]
fn wavefront_refuses_bad_batches_and_backends() {
    let g = grid();
    let err = batched_astar(&g, &[c(0, 0)], &[], Backend::Cpu).unwrap_err();
    assert!(
        matches!(err, WavefrontError::LengthMismatch { .. }),
        "{err}"
    );
    let err =
        batched_astar(&g, &[c(0, 0), c(1, 1)], &[c(1, 0), c(4, 2)], Backend::Cpu).unwrap_err();
    assert!(err.to_string().starts_with("query 1"), "{err}");
    let err = distance_maps(&g, &[c(0, 0), c(0, 7)], Backend::Cpu).unwrap_err();
    assert!(err.to_string().starts_with("goal 1"), "{err}");
    assert!(matches!(
        "gpu0".parse::<Backend>(),
        Err(WavefrontError::UnknownBackend { .. })
    ));
    // Without the `cuda` feature (or a device) CUDA is an error, never a silent CPU run.
    if !cfg!(feature = "cuda") {
        let err = distance_maps(&g, &[c(0, 0)], Backend::Cuda).unwrap_err();
        assert!(
            matches!(err, WavefrontError::BackendUnavailable { .. }),
            "{err}"
        );
        assert!(distance_maps(&g, &[c(0, 0)], Backend::Auto).is_ok());
    }
}

#[test]
fn reservations_refuse_conflicts_and_horizons() {
    let g = grid();
    assert!(matches!(
        ReservationTable::new(&g, u32::MAX),
        Err(ReservationError::InvalidHorizon { .. })
    ));
    let huge = ReservationTable::with_memory_limit(&g, 1_000_000, 1 << 20);
    assert!(
        matches!(huge, Err(ReservationError::TooLarge { .. })),
        "{huge:?}"
    );
    let mut table = ReservationTable::new(&g, 10).unwrap();
    table.reserve_path(&[c(0, 0), c(1, 0), c(2, 0)]).unwrap();
    let clash = table.reserve_path(&[c(2, 1), c(2, 0)]);
    assert!(
        matches!(clash, Err(ReservationError::VertexConflict { .. })),
        "{clash:?}"
    );
    let long: Vec<Cell> = (0..4).cycle().take(12).map(|x| c(x, 2)).collect();
    assert!(table.reserve_path(&long).is_err());
    assert!(matches!(
        table.reserve_path(&[]),
        Err(ReservationError::EmptyPath)
    ));
    assert!(
        table.reserve_path(&[c(0, 2), c(2, 2)]).is_err(),
        "a jump is not a move"
    );
    assert!(table.block_vertex(c(0, 9), 1).is_err());
    assert!(table.block_vertex(c(0, 1), 11).is_err());
    // A horizon too small for the trip is a distinct result, not an error and not "unreachable".
    let out = space_time_astar(
        &g,
        &cuplan::wavefront::SpaceTimeQuery::new(c(0, 2), c(3, 0))
            .with_horizon(2)
            .with_backend(Backend::Cpu),
    )
    .unwrap();
    assert_eq!(out, SpaceTimeResult::HorizonExceeded);
    let out = space_time_astar(
        &g,
        &cuplan::wavefront::SpaceTimeQuery::new(c(0, 2), c(7, 0))
            .with_horizon(50)
            .with_backend(Backend::Cpu),
    )
    .unwrap();
    assert_eq!(out, SpaceTimeResult::Unreachable);
    let err = space_time_astar(
        &g,
        &cuplan::wavefront::SpaceTimeQuery::new(c(0, 2), c(3, 0))
            .with_table(&table)
            .with_horizon(11)
            .with_backend(Backend::Cpu),
    )
    .unwrap_err();
    assert!(
        matches!(err, WavefrontError::HorizonBeyondTable { .. }),
        "{err}"
    );
}

#[test]
fn mapf_instances_are_checked_before_any_search() {
    let g = Arc::new(grid());
    let new = |s: Vec<Cell>, t: Vec<Cell>| Instance::new(g.clone(), s, t);
    assert!(matches!(
        new(vec![c(0, 0)], vec![]),
        Err(MapfError::LengthMismatch { .. })
    ));
    assert!(matches!(
        new(vec![c(0, 0), c(0, 0)], vec![c(1, 1), c(2, 2)]),
        Err(MapfError::Duplicate { .. })
    ));
    assert!(matches!(
        new(vec![c(0, 0), c(1, 0)], vec![c(2, 2), c(2, 2)]),
        Err(MapfError::Duplicate { .. })
    ));
    assert!(matches!(
        new(vec![c(4, 0)], vec![c(1, 1)]),
        Err(MapfError::Blocked { .. })
    ));
    assert!(matches!(
        new(vec![c(0, 0)], vec![c(8, 1)]),
        Err(MapfError::OutOfRange { .. })
    ));
    assert!(matches!(
        new(vec![c(0, 0)], vec![c(6, 1)]),
        Err(MapfError::Unreachable { .. })
    ));
    let err = Instance::from_moving_ai("/nonexistent.map", "/nonexistent.scen", 3).unwrap_err();
    assert!(err.to_string().contains("/nonexistent.map"), "{err}");
}

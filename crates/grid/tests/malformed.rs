//! The catalogue of malformed inputs: each is refused with the right error, none panics.

use cuplan_grid::{Cell, Grid, GridError, Scenario};

fn parse_map(text: &[u8]) -> Result<Grid, GridError> {
    Grid::parse_movingai(text, "t.map", cuplan_grid::DEFAULT_MAX_CELLS)
}

fn syntax_at(err: GridError) -> (usize, usize, String) {
    match err {
        GridError::Syntax {
            line,
            column,
            message,
            source_name,
        } => {
            assert!(source_name.ends_with(".map") || source_name.ends_with(".scen"));
            (line, column, message)
        }
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn map_catalogue() {
    let ok = b"type octile\nheight 2\nwidth 3\nmap\n.@.\nTGS\n";
    let grid = parse_map(ok).unwrap();
    assert!(!grid.is_free(Cell::new(1, 0)) && !grid.is_free(Cell::new(0, 1)));
    assert!(grid.is_free(Cell::new(1, 1)) && grid.is_free(Cell::new(2, 1)));

    let crlf = b"type octile\r\nheight 2\r\nwidth 3\r\nmap\r\n.@.\r\nTGS\r\n";
    assert_eq!(parse_map(crlf).unwrap(), grid);

    let cases: &[(&[u8], (usize, usize), &str)] = &[
        (b"", (1, 1), "truncated header"),
        (b"type octile\nheight 2\n", (3, 1), "truncated header"),
        (
            b"type octile\nheight 2\nwidth 3\nmap\n.@.\n",
            (6, 1),
            "truncated map",
        ),
        (
            b"type octile\nheight 2\nwidth 3\nmap\n.@.\n.@\n",
            (6, 3),
            "has 2 characters",
        ),
        (
            b"type octile\nheight 2\nwidth 3\nmap\n.@.\n.@..\n",
            (6, 4),
            "has 4 characters",
        ),
        (
            b"type octile\nheight 2\nwidth 3\nmap\n.@.\n.x.\n",
            (6, 2),
            "unknown map character",
        ),
        (
            b"type octile\nheight 1\nwidth 3\nmap\n...\n...\n",
            (6, 1),
            "more than 1 map rows",
        ),
        (
            b"type octile\nheight two\nwidth 3\nmap\n",
            (2, 8),
            "height is not",
        ),
        (b"type octile\nheight 2\nmap\n", (3, 1), "missing `width`"),
        (b"height 1\nwidth 1\nmap\n.\n", (1, 1), "missing `type`"),
        (
            b"type octile\nheigth 1\nwidth 1\nmap\n.\n",
            (2, 1),
            "unexpected header",
        ),
        (b"\xff\xfe\x00garbage", (1, 1), "not UTF-8"),
        (
            b"type octagonal\nheight 1\nwidth 1\nmap\n.\n",
            (1, 6),
            "map type \"octagonal\" is not supported",
        ),
        (
            b"type octile\nheight 1\ntype octile\nwidth 1\nmap\n.\n",
            (3, 1),
            "repeated `type` line",
        ),
        (
            b"type octile\nheight 1\nwidth 1\nheight 2\nmap\n.\n",
            (4, 1),
            "repeated `height` line",
        ),
        (
            b"type octile\nheight +3\nwidth 1\nmap\n",
            (2, 8),
            "height is not a plain non-negative integer",
        ),
        (
            b"type octile\nheight 1\nwidth  -0\nmap\n",
            (3, 8),
            "width is not a plain",
        ),
        (
            b"type octile\nheight 1\nwidth 2\nmap\n.\xc3\n",
            (5, 2),
            "unknown map character",
        ),
    ];
    for (text, (line, col), needle) in cases {
        let err = parse_map(text).expect_err(&String::from_utf8_lossy(text));
        let msg = err.to_string();
        let (l, c, m) = syntax_at(err);
        assert_eq!((l, c), (*line, *col), "{msg}");
        assert!(m.contains(needle), "{msg:?} should contain {needle:?}");
    }
}

#[test]
fn impossible_sizes_fail_fast_without_allocating() {
    let huge = b"type octile\nheight 1000000000\nwidth 1000000000\nmap\n";
    assert!(matches!(
        parse_map(huge),
        Err(GridError::InvalidSize { .. })
    ));
    let zero = b"type octile\nheight 0\nwidth 5\nmap\n";
    assert!(matches!(
        parse_map(zero),
        Err(GridError::InvalidSize { .. })
    ));
    let over_limit = b"type octile\nheight 100\nwidth 100\nmap\n";
    assert!(matches!(
        Grid::parse_movingai(over_limit, "t.map", 9_999),
        Err(GridError::InvalidSize { .. })
    ));
    assert!(matches!(
        Grid::open(0, 3),
        Err(GridError::InvalidSize { .. })
    ));
    assert!(matches!(
        Grid::open(1 << 21, 1),
        Err(GridError::InvalidSize { .. })
    ));
}

#[test]
fn scenario_catalogue() {
    let good =
        b"version 1\n0\tmaps/x.map\t3\t2\t0\t0\t2\t1\t2.41421356\n0 x.map   3 2 2 1 0 0  2.41\n";
    let scen = Scenario::parse(good, "t.scen").unwrap();
    assert_eq!(scen.entries.len(), 2);
    assert_eq!(scen.entries[1].goal, Cell::new(0, 0));
    assert_eq!(
        Scenario::parse(b"version 1.0\n", "t.scen").unwrap().version,
        1.0
    );
    let diag = cuplan_grid::OctileCost::new(1, 1);
    assert!(scen.entries[0].accepts(diag) && scen.entries[1].accepts(diag));
    assert!(!scen.entries[0].accepts(cuplan_grid::OctileCost::new(3, 0)));

    let cases: &[(&[u8], (usize, usize), &str)] = &[
        (b"", (1, 1), "no `version`"),
        (b"versio 1\n", (1, 1), "expected `version 1`"),
        (
            b"version 1\n0\tx.map\t3\t2\t0\t0\t2\t1\n",
            (2, 1),
            "expected 9 fields",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t-1\t0\t2\t1\t2.0\n",
            (2, 13),
            "start x",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t0\t0\t2\t1\tnan\n",
            (2, 21),
            "optimal length",
        ),
        (b"version 2\n", (1, 9), "version \"2\" is not supported"),
        (
            b"version 1.00\n",
            (1, 9),
            "version \"1.00\" is not supported",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t0\t0\t2\t1\t2.0\nversion 1\n",
            (3, 1),
            "repeated `version` line",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t+0\t0\t2\t1\t2.0\n",
            (2, 13),
            "start x is not a plain",
        ),
        (
            b"version 1\n+0\tx.map\t3\t2\t0\t0\t2\t1\t2.0\n",
            (2, 1),
            "bucket is not a plain",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t0\t0\t2\t1\t+2.0\n",
            (2, 21),
            "optimal length is not a plain",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t0\t0\t2\t1\t1e3\n",
            (2, 21),
            "optimal length is not a plain",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t0\t0\t2\t1\tinf\n",
            (2, 21),
            "optimal length is not a plain",
        ),
        (
            b"version 1\n0\tx.map\t3\t2\t0\t0\t2\t1\t\xff\n",
            (2, 21),
            "not UTF-8",
        ),
    ];
    for (text, (line, col), needle) in cases {
        let err = Scenario::parse(text, "t.scen").expect_err(&String::from_utf8_lossy(text));
        let msg = err.to_string();
        let (l, c, m) = syntax_at(err);
        assert_eq!((l, c), (*line, *col), "{msg}");
        assert!(m.contains(needle), "{msg:?} should contain {needle:?}");
    }
}

#[test]
fn scenario_checked_against_its_map() {
    let grid = Grid::from_ascii("...\n.@.").unwrap();
    let check = |line: &str| {
        let text = format!("version 1\n{line}\n");
        Scenario::parse(text.as_bytes(), "t.scen")
            .unwrap()
            .check_against(&grid)
    };
    assert!(check("0 m 3 2 0 0 2 1 2.41").is_ok());
    let msg = |line| check(line).unwrap_err().to_string();
    assert!(msg("0 m 4 2 0 0 2 1 2.41").contains("4x2 map"));
    assert!(msg("0 m 3 2 0 0 1 1 1.41").contains("goal cell (1, 1) is blocked"));
    assert!(msg("0 m 3 2 5 0 1 0 1").contains("start cell (5, 0) is outside"));
}

#[test]
fn queries_name_their_map_by_file_name() {
    let scen = Scenario::parse(
        b"version 1\n0\tmaps/dao/arena.map\t3\t2\t0\t0\t2\t1\t2.0\n0 C:\\m\\x.map 3 2 0 0 2 1 2.0\n",
        "t.scen",
    )
    .unwrap();
    let (dao, windows) = (&scen.entries[0], &scen.entries[1]);
    assert!(dao.names_map(std::path::Path::new("/data/grid/dao/arena.map")));
    assert!(dao.names_map(std::path::Path::new("arena.map")));
    assert!(!dao.names_map(std::path::Path::new("/data/arena2.map")));
    assert!(windows.names_map(std::path::Path::new("x.map")));
    assert!(!windows.names_map(std::path::Path::new("arena.map")));
}

/// Devices, pipes and folders are refused before a byte is read (`/dev/zero` would never
/// end), and a file over the size limit is refused from its length alone.
#[test]
fn only_regular_files_within_the_limit_are_read() {
    for special in ["/dev/zero", "/dev/null", "/tmp"] {
        if !std::path::Path::new(special).exists() {
            continue;
        }
        for err in [
            Grid::read_movingai(special).unwrap_err(),
            Scenario::read(special).unwrap_err(),
        ] {
            assert_eq!(
                err.to_string(),
                format!("{special}: cannot read: not a regular file")
            );
        }
    }
    let dir = std::env::temp_dir().join(format!("cuplan-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.scen");
    let file = std::fs::File::create(&big).unwrap();
    // Sparse: a length past the limit without writing it.
    file.set_len(cuplan_grid::MAX_SCEN_BYTES + 1).unwrap();
    let err = Scenario::read(&big).unwrap_err().to_string();
    assert!(err.contains("over the limit of 67108864 bytes"), "{err}");
    let map = dir.join("big.map");
    let file = std::fs::File::create(&map).unwrap();
    file.set_len(cuplan_grid::max_map_bytes(cuplan_grid::DEFAULT_MAX_CELLS) + 1)
        .unwrap();
    let err = Grid::read_movingai(&map).unwrap_err().to_string();
    assert!(err.contains("over the limit"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn io_errors_name_the_file() {
    let err = Grid::read_movingai("/nonexistent/dir/x.map").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("/nonexistent/dir/x.map: cannot read"),
        "{err}"
    );
}

#[test]
fn paths_are_validated_cell_by_cell() {
    let grid = Grid::from_ascii(
        "
        ....
        .@..
        ....
        ",
    )
    .unwrap();
    let c = Cell::new;
    assert_eq!(
        grid.octile_path_cost(&[c(0, 0), c(0, 2), c(3, 2)])
            .unwrap()
            .to_f64(),
        5.0
    );
    assert!(grid.octile_path_cost(&[c(2, 0), c(3, 1), c(3, 2)]).is_ok());
    // Corner cutting past (1,1) is illegal, and so is a knight's move.
    assert!(grid.octile_path_cost(&[c(0, 0), c(2, 2)]).is_err());
    assert!(grid.octile_path_cost(&[c(0, 0), c(1, 2)]).is_err());
    assert!(grid.octile_path_cost(&[]).is_err());
    assert!(grid.octile_path_cost(&[c(9, 9)]).is_err());
    assert_eq!(
        grid.four_path_moves(&[c(0, 0), c(1, 0), c(2, 0)]).unwrap(),
        2
    );
    assert!(grid.four_path_moves(&[c(0, 0), c(1, 1)]).is_err());
    assert!(grid.four_path_moves(&[c(0, 1), c(1, 1)]).is_err());
}

//! End-to-end tests of the `cuplan` binary: outputs on generated maps, and the one-line errors
//! (snapshotted) for every kind of bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuplan::grid::{Cell, Grid, OctileCost, generate};

/// A scratch folder per test, removed and recreated on each run.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cuplan-cli-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `path` field of a JSON Lines record as cells.
fn path_of(rec: &serde_json::Value) -> Vec<Cell> {
    let xy = |v: &serde_json::Value| v.as_u64().unwrap() as u32;
    rec["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| Cell::new(xy(&p[0]), xy(&p[1])))
        .collect()
}

fn cuplan(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_cuplan"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Writes a map and a scen of `queries` (with the harness-independent costs left at 0: the
/// CLI does not read them) and returns their paths as strings.
fn write_case(dir: &Path, grid: &Grid, queries: &[(Cell, Cell)]) -> (String, String) {
    let map = dir.join("m.map");
    grid.write_movingai(&map).unwrap();
    let mut scen = String::from("version 1\n");
    for (s, g) in queries {
        scen += &format!(
            "0\tm.map\t{}\t{}\t{}\t{}\t{}\t{}\t0\n",
            grid.width(),
            grid.height(),
            s.x,
            s.y,
            g.x,
            g.y
        );
    }
    let scen_path = dir.join("m.map.scen");
    std::fs::write(&scen_path, scen).unwrap();
    (map.display().to_string(), scen_path.display().to_string())
}

#[test]
fn solve_writes_json_lines_and_a_summary() {
    let dir = scratch("solve");
    let grid = generate::rooms(70, 40, 8, 2).unwrap();
    let queries = generate::random_queries(&grid, 12, 3);
    let (map, scen) = write_case(&dir, &grid, &queries);
    for algo in ["astar", "jps", "jps-bit"] {
        let (code, stdout, stderr) = cuplan(&[
            "solve", "--map", &map, "--scen", &scen, "--algo", algo, "--every", "2",
        ]);
        assert_eq!(code, 0, "{stderr}");
        let lines: Vec<serde_json::Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 7, "6 answers (every 2nd of 12) and a summary");
        for (k, rec) in lines[..6].iter().enumerate() {
            assert_eq!(rec["index"], k * 2);
            let (s, g) = queries[k * 2];
            assert_eq!(rec["start"], serde_json::json!([s.x, s.y]));
            let path = path_of(rec);
            assert_eq!((path[0], *path.last().unwrap()), (s, g));
            let cost = grid.octile_path_cost(&path).unwrap();
            assert!((cost.to_f64() - rec["cost"].as_f64().unwrap()).abs() < 1e-9);
        }
        let summary = &lines[6];
        assert_eq!(summary["algo"], algo);
        assert_eq!(
            (summary["queries"].as_u64(), summary["solved"].as_u64()),
            (Some(6), Some(6))
        );
    }
}

#[test]
fn solve_answers_agree_across_algorithms_and_threads() {
    let dir = scratch("agree");
    let grid = generate::random(90, 90, 0.3, 9).unwrap();
    let queries = generate::random_queries(&grid, 40, 1);
    let (map, scen) = write_case(&dir, &grid, &queries);
    let costs = |algo: &str, threads: &str| -> Vec<f64> {
        let (code, stdout, stderr) = cuplan(&[
            "solve",
            "--map",
            &map,
            "--scen",
            &scen,
            "--algo",
            algo,
            "--threads",
            threads,
        ]);
        assert_eq!(code, 0, "{stderr}");
        stdout
            .lines()
            .filter(|l| l.contains("\"index\""))
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["cost"]
                    .as_f64()
                    .unwrap()
            })
            .collect()
    };
    let reference = costs("astar", "1");
    assert_eq!(reference.len(), 40);
    assert_eq!(costs("jps-bit", "2"), reference);
    assert_eq!(costs("jps", "2"), reference);
}

#[test]
fn smoothing_gives_legal_any_angle_paths_no_longer_than_octile() {
    let dir = scratch("smooth");
    let grid = generate::random(60, 60, 0.2, 4).unwrap();
    let queries = generate::random_queries(&grid, 20, 6);
    let (map, scen) = write_case(&dir, &grid, &queries);
    let run = |extra: &[&str]| -> Vec<serde_json::Value> {
        let mut args = vec!["solve", "--map", &map, "--scen", &scen, "--algo", "jps-bit"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = cuplan(&args);
        assert_eq!(code, 0, "{stderr}");
        stdout
            .lines()
            .filter(|l| l.contains("\"index\""))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (plain, smooth) = (run(&[]), run(&["--smooth"]));
    for (p, s) in plain.iter().zip(&smooth) {
        let (octile, any_angle) = (p["cost"].as_f64().unwrap(), s["cost"].as_f64().unwrap());
        assert!(any_angle <= octile + 1e-9, "{any_angle} > {octile}");
        assert_eq!(p["path"][0], s["path"][0]);
    }
    let total =
        |rs: &[serde_json::Value]| rs.iter().map(|r| r["cost"].as_f64().unwrap()).sum::<f64>();
    assert!(
        total(&smooth) < total(&plain),
        "smoothing shortened nothing on a 20% random map"
    );
}

#[test]
fn batch_answers_with_four_connected_moves() {
    let dir = scratch("batch");
    let grid = generate::random(40, 30, 0.2, 5).unwrap();
    let queries = generate::random_queries(&grid, 10, 2);
    let (map, scen) = write_case(&dir, &grid, &queries);
    let out = dir.join("r.jsonl");
    let (code, stdout, stderr) = cuplan(&[
        "batch",
        "--map",
        &map,
        "--scen",
        &scen,
        "--backend",
        "cpu",
        "--full-path",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["solved"], 10);
    for line in std::fs::read_to_string(&out).unwrap().lines() {
        let rec: serde_json::Value = serde_json::from_str(line).unwrap();
        let cells = path_of(&rec);
        let moves = grid.four_path_moves(&cells).unwrap();
        assert_eq!(f64::from(moves), rec["cost"].as_f64().unwrap());
    }
}

#[test]
fn info_reports_size_and_components() {
    let dir = scratch("info");
    let grid = Grid::from_ascii("..@..\n..@..\n..@..").unwrap();
    let (map, _) = write_case(&dir, &grid, &[]);
    let (code, stdout, _) = cuplan(&["info", "--map", &map, "--preview", "5"]);
    assert_eq!(code, 0);
    let stdout = stdout.replace(&map, "<map>");
    insta::assert_snapshot!(stdout);
}

/// Every kind of bad input: one line on stderr, exit status 2, never a panic.
#[test]
fn bad_input_gets_one_line_and_status_2() {
    let dir = scratch("bad");
    let grid = Grid::from_ascii("....\n.@..\n....").unwrap();
    let (map, scen) = write_case(&dir, &grid, &[(Cell::new(0, 0), Cell::new(3, 2))]);
    let write = |name: &str, text: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let truncated = write(
        "truncated.map",
        b"type octile\nheight 3\nwidth 4\nmap\n....\n",
    );
    let garbage = write("garbage.map", b"\x00\xff\xfe binary junk");
    let huge = write(
        "huge.map",
        b"type octile\nheight 1000000000\nwidth 1000000000\nmap\n",
    );
    let blocked = write(
        "blocked.scen",
        b"version 1\n0\tm.map\t4\t3\t1\t1\t3\t2\t2.0\n",
    );
    let outside = write(
        "outside.scen",
        b"version 1\n0\tm.map\t4\t3\t0\t0\t9\t2\t2.0\n",
    );
    let short = write("short.scen", b"version 1\n0\tm.map\t4\t3\t0\t0\n");
    let mapf_scen = write(
        "dup.scen",
        b"version 1\n0\tm.map\t4\t3\t0\t0\t3\t2\t2.0\n0\tm.map\t4\t3\t0\t0\t3\t0\t2.0\n",
    );
    let cases: Vec<(&str, Vec<&str>)> = vec![
        (
            "missing map file",
            vec!["info", "--map", "/nonexistent/x.map"],
        ),
        ("truncated map", vec!["info", "--map", &truncated]),
        ("garbage map", vec!["info", "--map", &garbage]),
        ("huge header", vec!["info", "--map", &huge]),
        (
            "blocked start",
            vec!["solve", "--map", &map, "--scen", &blocked],
        ),
        (
            "goal outside",
            vec!["solve", "--map", &map, "--scen", &outside],
        ),
        (
            "short scen line",
            vec!["solve", "--map", &map, "--scen", &short],
        ),
        (
            "unknown algorithm",
            vec![
                "solve",
                "--map",
                &map,
                "--scen",
                &scen,
                "--algo",
                "dijkstra9",
            ],
        ),
        (
            "zero every",
            vec!["solve", "--map", &map, "--scen", &scen, "--every", "0"],
        ),
        (
            "unknown backend",
            vec!["batch", "--map", &map, "--scen", &scen, "--backend", "tpu"],
        ),
        (
            "duplicate starts",
            vec!["mapf", "--map", &map, "--scen", &mapf_scen, "--agents", "2"],
        ),
        (
            "too many agents",
            vec!["mapf", "--map", &map, "--scen", &scen, "--agents", "5"],
        ),
        (
            "unknown solver",
            vec![
                "mapf", "--map", &map, "--scen", &scen, "--agents", "1", "--solver", "magic",
            ],
        ),
        (
            "bad time limit",
            vec![
                "mapf",
                "--map",
                &map,
                "--scen",
                &scen,
                "--agents",
                "1",
                "--time-limit",
                "-1",
            ],
        ),
    ];
    let mut report = String::new();
    for (what, args) in cases {
        let (code, _, stderr) = cuplan(&args);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{what}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        report += &format!(
            "{what}: {}\n",
            stderr.trim_end().replace(dir.to_str().unwrap(), "<dir>")
        );
    }
    insta::assert_snapshot!(report);
}

#[test]
fn exact_costs_are_printed_in_full() {
    let dir = scratch("exact");
    let grid = Grid::open(8, 8).unwrap();
    let (map, scen) = write_case(&dir, &grid, &[(Cell::new(0, 0), Cell::new(7, 5))]);
    let (_, stdout, _) = cuplan(&["solve", "--map", &map, "--scen", &scen, "--algo", "astar"]);
    let rec: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(
        rec["cost"].as_f64().unwrap(),
        OctileCost::new(2, 5).to_f64()
    );
}

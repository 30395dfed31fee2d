//! End-to-end tests of the `cuplan` binary: outputs on generated maps, and the one-line errors
//! (snapshotted) for every kind of bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

use cuplan::grid::{Cell, Change, Grid, OctileCost, generate};
use cuplan::jps::{Algorithm, Planner, Searcher};

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

/// A budget below one distance map is a limit (status 3, one line naming it); a budget that
/// holds a few maps answers like the default; a budget that is not a size is bad input.
#[test]
fn batch_memory_limits_chunk_goals_or_are_reported_as_limits() {
    let dir = scratch("batch-budget");
    let grid = generate::random(700, 700, 0.2, 3).unwrap();
    let queries = generate::random_queries(&grid, 40, 4);
    let (map, scen) = write_case(&dir, &grid, &queries);
    let run = |limit: &str, out: &str| {
        let out = dir.join(out);
        let (code, _, stderr) = cuplan(&[
            "batch",
            "--map",
            &map,
            "--scen",
            &scen,
            "--backend",
            "cpu",
            "--threads",
            "2",
            "--memory-limit",
            limit,
            "--out",
            out.to_str().unwrap(),
        ]);
        (
            code,
            stderr,
            std::fs::read_to_string(out).unwrap_or_default(),
        )
    };
    let (code, stderr, _) = run("1MiB", "tiny.jsonl");
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("memory limit 1.0 MiB reached: one distance map"),
        "{stderr}"
    );
    // 700² cells: 2 threads' buffers take 3.7 MiB, each u16 map 0.9 MiB.
    let (code, stderr, chunked) = run("8MiB", "chunked.jsonl");
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr, whole) = run("2GiB", "whole.jsonl");
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(chunked.lines().count(), 40);
    assert_eq!(chunked, whole);
    let (code, stderr, _) = run("lots", "bad.jsonl");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not a size"), "{stderr}");
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
        (
            "NaN time limit",
            vec![
                "mapf",
                "--map",
                &map,
                "--scen",
                &scen,
                "--agents",
                "1",
                "--time-limit",
                "NaN",
            ],
        ),
        (
            "zero time limit",
            vec![
                "mapf",
                "--map",
                &map,
                "--scen",
                &scen,
                "--agents",
                "1",
                "--time-limit",
                "0",
            ],
        ),
        (
            "zero agents",
            vec!["mapf", "--map", &map, "--scen", &scen, "--agents", "0"],
        ),
        (
            "memory limit not a size",
            vec![
                "mapf",
                "--map",
                &map,
                "--scen",
                &scen,
                "--agents",
                "1",
                "--memory-limit",
                "lots",
            ],
        ),
        (
            "memory limit too small",
            vec![
                "mapf",
                "--map",
                &map,
                "--scen",
                &scen,
                "--agents",
                "1",
                "--memory-limit",
                "1K",
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

/// The second catalogue (issue 18): files that are not regular or break the header rules,
/// `--out` paths that cannot be written, numeric options out of range. Each is one line on
/// stderr, status 2, and nothing on stdout.
#[test]
fn bad_files_and_options_get_one_line_and_status_2() {
    let dir = scratch("bad2");
    let grid = Grid::from_ascii("....\n.@..\n....").unwrap();
    let (map, scen) = write_case(&dir, &grid, &[(Cell::new(0, 0), Cell::new(3, 2))]);
    let write = |name: &str, text: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let hex = write("hex.map", b"type hexagonal\nheight 1\nwidth 1\nmap\n.\n");
    let signed = write("signed.map", b"type octile\nheight +3\nwidth 4\nmap\n");
    let twice = write(
        "twice.map",
        b"type octile\nheight 3\nwidth 4\nwidth 4\nmap\n",
    );
    let version = write("v2.scen", b"version 2\n0\tm.map\t4\t3\t0\t0\t3\t2\t2.0\n");
    let plus = write(
        "plus.scen",
        b"version 1\n0\tm.map\t4\t3\t0\t0\t+3\t2\t2.0\n",
    );
    let missing_folder = dir.join("no-such-folder").join("out.jsonl");
    let missing_folder = missing_folder.display().to_string();
    let folder = dir.display().to_string();
    let solve = |extra: &[&'static str]| {
        let mut args = vec!["solve", "--map", &map, "--scen", &scen];
        args.extend_from_slice(extra);
        args
    };
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("map is a device", vec!["info", "--map", "/dev/zero"]),
        ("map is a folder", vec!["info", "--map", &folder]),
        (
            "scen is a device",
            vec!["solve", "--map", &map, "--scen", "/dev/zero"],
        ),
        ("map type not octile", vec!["info", "--map", &hex]),
        ("signed height", vec!["info", "--map", &signed]),
        ("repeated width", vec!["info", "--map", &twice]),
        (
            "scen version 2",
            vec!["solve", "--map", &map, "--scen", &version],
        ),
        (
            "signed goal x",
            vec!["batch", "--map", &map, "--scen", &plus],
        ),
        (
            "out is a folder",
            vec!["solve", "--map", &map, "--scen", &scen, "--out", &folder],
        ),
        (
            "out in a missing folder",
            vec![
                "batch",
                "--map",
                &map,
                "--scen",
                &scen,
                "--out",
                &missing_folder,
            ],
        ),
        (
            "zero preview",
            vec!["info", "--map", &map, "--preview", "0"],
        ),
        ("zero threads", solve(&["--threads", "0"])),
        ("negative limit", solve(&["--limit", "-1"])),
    ];
    let mut report = String::new();
    for (what, args) in cases {
        let (code, stdout, stderr) = cuplan(&args);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert_eq!(stdout, "", "{what}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{what}: {stderr}");
        report += &format!(
            "{what}: {}\n",
            stderr.trim_end().replace(dir.to_str().unwrap(), "<dir>")
        );
    }
    insta::assert_snapshot!(report);
    // The bound depends on the cores, so it is checked outside the snapshot.
    let (code, _, stderr) = cuplan(&solve(&["--threads", "100000"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("must be at most"), "{stderr}");
    assert!(
        std::fs::read_dir(&dir).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with(".cuplan-out")),
        "a refused --out leaves no temporary file"
    );
}

/// A large output, a reader that goes away after one line: the command stops quietly with
/// status 0 (as under `| head -1`), and a full disk is one line and status 1. Neither panics.
#[test]
fn closed_pipes_end_quietly_and_full_disks_fail_in_one_line() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let dir = scratch("pipes");
    let map = dir.join("big.map");
    generate::random(2000, 2000, 0.2, 5)
        .unwrap()
        .write_movingai(&map)
        .unwrap();
    let map = map.display().to_string();
    let args = ["info", "--map", &map, "--preview", "2000"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_cuplan"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("map "), "{first}");
    // The reader is gone; ~4 MB of preview is still to be written.
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");

    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped the full-disk half: no /dev/full here");
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_cuplan"))
        .args(args)
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "error: writing standard output: No space left on device (os error 28)"
    );
}

/// `--limit 0` answers nothing and says so in the summary; a run refused for bad input leaves
/// an earlier `--out` file as it was; a complete run replaces it.
#[test]
fn limit_zero_and_out_files_behave_as_documented() {
    let dir = scratch("limit0");
    let grid = generate::rooms(40, 30, 8, 1).unwrap();
    let queries = generate::random_queries(&grid, 5, 2);
    let (map, scen) = write_case(&dir, &grid, &queries);
    let (code, stdout, stderr) = cuplan(&["solve", "--map", &map, "--scen", &scen, "--limit", "0"]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "only the summary: {stdout}");
    let summary: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(summary["queries"], 0);

    let out = dir.join("answers.jsonl");
    std::fs::write(&out, "earlier run\n").unwrap();
    let out_arg = out.display().to_string();
    let (code, ..) = cuplan(&["solve", "--map", &map, "--scen", &map, "--out", &out_arg]);
    assert_eq!(code, 2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "earlier run\n");
    let (code, ..) = cuplan(&["solve", "--map", &map, "--scen", &scen, "--out", &out_arg]);
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 5);
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".cuplan-out")),
        "{names:?}"
    );
}

/// An `--out` that is not a regular file (here a FIFO; `/dev/null` alike) is written to, never
/// replaced by a plain file.
#[cfg(unix)]
#[test]
fn out_to_a_fifo_writes_through_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("fifo");
    let grid = generate::rooms(40, 30, 8, 1).unwrap();
    let queries = generate::random_queries(&grid, 5, 2);
    let (map, scen) = write_case(&dir, &grid, &queries);
    let fifo = dir.join("answers.fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out_arg = fifo.display().to_string();
    let (code, _, stderr) = cuplan(&["solve", "--map", &map, "--scen", &scen, "--out", &out_arg]);
    assert_eq!(code, 0, "{stderr}");
    // Checked before joining: had the FIFO been replaced, the reader would wait forever.
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "--out replaced the FIFO: {kind:?}");
    assert_eq!(reader.join().unwrap().lines().count(), 5);
}

/// A scenario whose queries name another map file gets one warning line, and is answered.
#[test]
fn a_scenario_for_another_map_name_is_warned_of() {
    let dir = scratch("othermap");
    let grid = generate::rooms(40, 30, 8, 1).unwrap();
    let queries = generate::random_queries(&grid, 3, 2);
    let (map, scen) = write_case(&dir, &grid, &queries);
    let renamed = dir.join("renamed.map");
    std::fs::copy(&map, &renamed).unwrap();
    let renamed = renamed.display().to_string();
    let (code, _, stderr) = cuplan(&["solve", "--map", &map, "--scen", &scen]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (code, stdout, stderr) = cuplan(&["solve", "--map", &renamed, "--scen", &scen]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 4);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "warning: {scen}: 3 of 3 queries (first on line 2) name map \"m.map\", not {renamed}"
        )
    );
}

/// `cuplan mapf` with `extra` options on `grid` and `agents` as `(start, goal)`.
fn mapf(dir: &Path, grid: &Grid, agents: &[(Cell, Cell)], extra: &[&str]) -> (i32, String) {
    let (map, scen) = write_case(dir, grid, agents);
    let count = agents.len().to_string();
    let mut args = vec!["mapf", "--map", &map, "--scen", &scen, "--agents", &count];
    args.extend_from_slice(extra);
    let (code, _, stderr) = cuplan(&args);
    assert!(!stderr.contains("panicked"), "{stderr}");
    (code, stderr)
}

/// Every limit is exit status 3 with one line naming it, never "no solution" (1).
#[test]
fn mapf_limits_get_one_line_naming_them_and_status_3() {
    let dir = scratch("mapf-limits");
    // Two agents swapping ends of a corridor: unsolvable, and CBS cannot prove it.
    let corridor = Grid::open(6, 1).unwrap();
    let swap = [
        (Cell::new(0, 0), Cell::new(5, 0)),
        (Cell::new(5, 0), Cell::new(0, 0)),
    ];
    let cbs = ["--solver", "cbs"];
    let (code, stderr) = mapf(
        &dir,
        &corridor,
        &swap,
        &[&cbs[..], &["--memory-limit", "1MiB"]].concat(),
    );
    assert_eq!(code, 3, "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cbs: memory limit of 1048576 bytes"),
        "{stderr}"
    );
    assert!(stderr.contains("the CBS constraint tree"), "{stderr}");
    let (code, stderr) = mapf(
        &dir,
        &corridor,
        &swap,
        &[&cbs[..], &["--time-limit", "0.2"]].concat(),
    );
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains("cbs: time limit of 0.2 s reached"),
        "{stderr}"
    );
    // LaCAM proves it: that is "no solution", status 1.
    let (code, stderr) = mapf(&dir, &corridor, &swap, &["--solver", "lacam"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("no solution"), "{stderr}");
    // The layered PP crossing an open map: its reservation table over the budget is a limit,
    // and a larger budget solves it.
    let open = Grid::open(128, 128).unwrap();
    let crossing = [(Cell::new(0, 0), Cell::new(127, 127))];
    let layered = ["--solver", "pp", "--low-level", "wavefront"];
    let (code, stderr) = mapf(
        &dir,
        &open,
        &crossing,
        &[&layered[..], &["--memory-limit", "2MiB"]].concat(),
    );
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("the PP reservation table"), "{stderr}");
    let (code, stderr) = mapf(
        &dir,
        &open,
        &crossing,
        &[&layered[..], &["--memory-limit", "64MiB"]].concat(),
    );
    assert_eq!(code, 0, "{stderr}");
}

/// A time limit too large for the clock is no limit, not a panic.
#[test]
fn mapf_huge_time_limits_mean_no_limit() {
    let dir = scratch("mapf-huge");
    let grid = Grid::open(8, 8).unwrap();
    let agents = [
        (Cell::new(0, 0), Cell::new(7, 7)),
        (Cell::new(7, 0), Cell::new(0, 7)),
    ];
    for limit in ["1e20", "inf", "1.8e308"] {
        for solver in ["pp", "cbs", "lacam"] {
            let (code, stderr) = mapf(
                &dir,
                &grid,
                &agents,
                &["--solver", solver, "--time-limit", limit],
            );
            assert_eq!(code, 0, "{solver} {limit}: {stderr}");
        }
    }
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

/// One event of a recorded game loop, as `cuplan replay` reads them.
#[derive(Debug, Clone, Copy)]
enum Event {
    Change(Change),
    Query(Cell, Cell),
}

impl Event {
    fn json(self) -> String {
        match self {
            Event::Change(Change::Block(c)) => format!("{{\"block\":[{},{}]}}", c.x, c.y),
            Event::Change(Change::Free(c)) => format!("{{\"free\":[{},{}]}}", c.x, c.y),
            Event::Query(s, g) => format!("{{\"query\":[{},{},{},{}]}}", s.x, s.y, g.x, g.y),
        }
    }
}

/// A small xorshift generator: the test's own choices, reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }

    /// A free cell of `grid` with `x` in `xs`.
    fn free_cell(&mut self, grid: &Grid, xs: std::ops::Range<u32>) -> Cell {
        loop {
            let c = Cell::new(
                xs.start + self.below(xs.end - xs.start),
                self.below(grid.height()),
            );
            if grid.is_free(c) {
                return c;
            }
        }
    }
}

/// A game on `grid`: random queries; then a wall across the whole map (queries from one side
/// to the other have no path); a gap opened in it; a box walled off around a region and
/// reopened; and random cells toggled between queries. Each query's endpoints are free on
/// the grid as it stands when the query is asked (`grid` follows the events).
fn record_game(grid: &mut Grid, seed: u64) -> Vec<Event> {
    let mut rng = Rng(seed);
    let (w, h) = (grid.width(), grid.height());
    let mut events = Vec::new();
    let change = |grid: &mut Grid, events: &mut Vec<Event>, c: Change| {
        grid.apply(&[c]).unwrap();
        events.push(Event::Change(c));
    };
    let across = |grid: &Grid, events: &mut Vec<Event>, rng: &mut Rng, n: usize| {
        for _ in 0..n {
            let s = rng.free_cell(grid, 0..w / 2);
            let g = rng.free_cell(grid, w / 2 + 1..w);
            events.push(Event::Query(s, g));
        }
    };
    across(grid, &mut events, &mut rng, 8);
    for y in 0..h {
        change(grid, &mut events, Change::Block(Cell::new(w / 2, y)));
    }
    across(grid, &mut events, &mut rng, 8);
    for y in h / 2 - 1..=h / 2 + 1 {
        for x in w / 2 - 1..=w / 2 + 1 {
            change(grid, &mut events, Change::Free(Cell::new(x, y)));
        }
    }
    across(grid, &mut events, &mut rng, 8);
    // A box around the region 2..8 × 2..8; its inside is reached only once a side reopens.
    let ring = (1..9).flat_map(|i| [(i, 1), (i, 8), (1, i), (8, i)]);
    for (x, y) in ring {
        change(grid, &mut events, Change::Block(Cell::new(x, y)));
    }
    let inside = Cell::new(4, 4);
    change(grid, &mut events, Change::Free(inside));
    for _ in 0..4 {
        events.push(Event::Query(inside, rng.free_cell(grid, 10..w)));
    }
    change(grid, &mut events, Change::Free(Cell::new(8, 4)));
    change(grid, &mut events, Change::Free(Cell::new(9, 4)));
    for _ in 0..4 {
        events.push(Event::Query(inside, rng.free_cell(grid, 10..w)));
    }
    for _ in 0..40 {
        for _ in 0..rng.below(4) {
            let c = Cell::new(rng.below(w), rng.below(h));
            let c = if rng.below(2) == 0 {
                Change::Block(c)
            } else {
                Change::Free(c)
            };
            change(grid, &mut events, c);
        }
        let s = rng.free_cell(grid, 0..w);
        events.push(Event::Query(s, rng.free_cell(grid, 0..w)));
    }
    events.push(Event::Query(inside, inside));
    events
}

#[test]
fn replay_answers_each_query_on_the_map_as_it_stands_then() {
    let dir = scratch("replay");
    let start_grid = generate::rooms(40, 28, 7, 3).unwrap();
    let (map, _) = write_case(&dir, &start_grid, &[]);
    let events = record_game(&mut start_grid.clone(), 11);
    // Blank lines (empty, spaces, a lone `\r`) are skipped wherever they are.
    let mut text = String::from("\n");
    for (i, e) in events.iter().enumerate() {
        text += &e.json();
        text += if i % 7 == 3 { "\n  \n\r\n" } else { "\n" };
    }
    let events_path = dir.join("game.jsonl");
    std::fs::write(&events_path, text).unwrap();
    // The expected answers: A* from the library on a grid the test edits itself.
    let mut grid = start_grid.clone();
    let mut expected = Vec::new();
    for e in &events {
        match *e {
            Event::Change(c) => drop(grid.apply(&[c]).unwrap()),
            Event::Query(s, g) => {
                let planner = Planner::new(grid.clone(), Algorithm::AStar).unwrap();
                let path = planner.search(&mut Searcher::new(), s, g).unwrap();
                expected.push((grid.clone(), s, g, path.map(|p| p.cost)));
            }
        }
    }
    let unreachable = expected.iter().filter(|q| q.3.is_none()).count();
    assert!(
        (8..expected.len() / 2).contains(&unreachable),
        "{unreachable} unreachable"
    );
    for algo in [
        "astar",
        "jps",
        "jps-bit",
        "jps-bitprune",
        "jps-bitpre",
        "jps-bitprunepre",
    ] {
        let out = dir.join(format!("{algo}.jsonl"));
        let (code, stdout, stderr) = cuplan(&[
            "replay",
            "--map",
            &map,
            "--events",
            events_path.to_str().unwrap(),
            "--algo",
            algo,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{algo}: {stderr}");
        let records: Vec<serde_json::Value> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(records.len(), expected.len(), "{algo}");
        for (k, (rec, (grid, s, g, cost))) in records.iter().zip(&expected).enumerate() {
            assert_eq!(rec["index"], k, "{algo}");
            assert_eq!(rec["start"], serde_json::json!([s.x, s.y]), "{algo} #{k}");
            assert_eq!(rec["goal"], serde_json::json!([g.x, g.y]), "{algo} #{k}");
            let Some(cost) = cost else {
                assert!(
                    rec["cost"].is_null() && rec["path"].is_null(),
                    "{algo} #{k}"
                );
                continue;
            };
            assert_eq!(rec["cost"].as_f64(), Some(cost.to_f64()), "{algo} #{k}");
            let path = path_of(rec);
            assert_eq!((path[0], *path.last().unwrap()), (*s, *g), "{algo} #{k}");
            assert_eq!(grid.octile_path_cost(&path).unwrap(), *cost, "{algo} #{k}");
        }
        let summary: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(summary["algo"], algo);
        assert_eq!(summary["queries"], expected.len());
        assert_eq!(summary["unsolved"], unreachable);
    }
}

/// Every kind of bad event: one line on stderr naming the file and line, exit status 2, and
/// no `--out` file, even when queries before the bad line were answered.
#[test]
fn bad_events_get_one_line_and_status_2() {
    let dir = scratch("bad-events");
    let grid = Grid::from_ascii("....\n.@..\n....").unwrap();
    let (map, _) = write_case(&dir, &grid, &[]);
    let huge = dir.join("huge.jsonl");
    // Sparse: the size is refused before a byte is read.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((1 << 30) + 1)
        .unwrap();
    let cases: [(&str, &[u8]); 19] = [
        ("unknown key", b"\n\n{\"jump\":[1,1]}\n"),
        ("block arity", b"{\"block\":[1,2,3]}\n"),
        ("query arity", b"{\"query\":[0,0,3]}\n"),
        ("not an array", b"{\"free\":5}\n"),
        ("non-integer", b"{\"free\":[1.5,0]}\n"),
        ("integer as text", b"{\"block\":[\"1\",0]}\n"),
        ("off the map", b"{\"block\":[4,0]}\n"),
        ("negative", b"{\"query\":[-1,0,3,2]}\n"),
        ("past u32", b"{\"query\":[0,0,3,4294967296]}\n"),
        ("blocked in the map", b"{\"query\":[1,1,3,2]}\n"),
        (
            "blocked by then",
            b"{\"query\":[0,0,3,2]}\n{\"block\":[3,2]}\n{\"query\":[0,0,3,2]}\n",
        ),
        (
            "malformed JSON",
            b"{\"query\":[0,0,3,2]}\n{\"block\":[1,1]\n",
        ),
        ("not an object", b"[1,2]\n"),
        ("two keys", b"{\"block\":[0,0],\"free\":[0,0]}\n"),
        ("no key", b"{}\n"),
        ("not UTF-8", b"{\"block\":[0,0]}\n{\"free\":\xff}\n"),
        ("missing file", b""),
        ("too large", b""),
        ("endless line", b""),
    ];
    let mut report = String::new();
    for (what, text) in cases {
        let events = match what {
            "missing file" => dir.join("nonexistent.jsonl"),
            "too large" => huge.clone(),
            // A device: no size to check, no line end ever; read a line's worth, then refused.
            "endless line" => std::path::PathBuf::from("/dev/zero"),
            _ => {
                let p = dir.join(format!("{}.jsonl", what.replace(' ', "-")));
                std::fs::write(&p, text).unwrap();
                p
            }
        };
        let out = dir.join("out.jsonl");
        let (code, stdout, stderr) = cuplan(&[
            "replay",
            "--map",
            &map,
            "--events",
            events.to_str().unwrap(),
            "--algo",
            "jps-bitpre",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{what}: {stderr}");
        assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        assert!(stdout.is_empty() && !out.exists(), "{what}: output written");
        report += &format!(
            "{what}: {}\n",
            stderr.trim_end().replace(dir.to_str().unwrap(), "<dir>")
        );
    }
    insta::assert_snapshot!(report);
}

/// `--solver lacam` improves its answer until the limit and records how (`--verbose` prints
/// each improvement to stderr); `--first-solution` stops at the first.
#[test]
fn mapf_lacam_is_anytime_unless_asked_for_the_first_solution() {
    let dir = scratch("mapf-anytime");
    let mut grid = Grid::open(24, 24).unwrap();
    for i in (2..22).step_by(4) {
        for j in 3..21 {
            grid.set_blocked(Cell::new(i, j)).unwrap();
        }
    }
    let free: Vec<Cell> = (0..24)
        .flat_map(|y| (0..24).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect();
    let n = 120;
    let agents: Vec<(Cell, Cell)> = (0..n)
        .map(|i| (free[i * 3], free[(i * 7 + 101) % free.len()]))
        .collect();
    let goals: std::collections::HashSet<Cell> = agents.iter().map(|a| a.1).collect();
    assert_eq!(goals.len(), n, "distinct goals");
    let out = dir.join("any.json");
    let out_arg = out.display().to_string();
    let (code, stderr) = mapf(
        &dir,
        &grid,
        &agents,
        &["--time-limit", "1.5", "--verbose", "--out", &out_arg],
    );
    assert_eq!(code, 0, "{stderr}");
    let rec: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let curve = rec["anytime"].as_array().unwrap();
    assert!(curve.len() >= 2, "no improvement: {rec}");
    assert_eq!(
        stderr.lines().filter(|l| l.contains("soc/lb")).count(),
        curve.len()
    );
    let socs: Vec<u64> = curve.iter().map(|p| p[1].as_u64().unwrap()).collect();
    assert!(socs.windows(2).all(|w| w[1] < w[0]), "{socs:?}");
    assert_eq!(rec["soc"], curve.last().unwrap()[1]);
    assert_eq!(rec["first_soc"], curve[0][1]);
    let secs = |k: &str| rec[k].as_f64().unwrap();
    assert!(secs("first_solution_s") <= secs("best_solution_s"));
    assert!(secs("best_solution_s") <= secs("runtime_s") && secs("runtime_s") < 1.65);

    let first = dir.join("first.json");
    let first_arg = first.display().to_string();
    let (code, stderr) = mapf(
        &dir,
        &grid,
        &agents,
        &[
            "--time-limit",
            "1.5",
            "--first-solution",
            "--out",
            &first_arg,
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "quiet without --verbose: {stderr}");
    let once: serde_json::Value = serde_json::from_slice(&std::fs::read(&first).unwrap()).unwrap();
    assert_eq!(once["anytime"].as_array().unwrap().len(), 1);
    assert_eq!(
        once["soc"], rec["first_soc"],
        "the same search up to the first solution"
    );
}

/// `--solver eecbs`: within `--suboptimality` of the proven bound it reports, optimal at 1,
/// and a factor below 1 is bad input (status 2, one line).
#[test]
fn mapf_eecbs_reports_its_bound_and_refuses_bad_factors() {
    let dir = scratch("mapf-eecbs");
    let mut grid = Grid::open(12, 12).unwrap();
    for y in 2..10 {
        grid.set_blocked(Cell::new(6, y)).unwrap();
    }
    let free: Vec<Cell> = (0..12)
        .flat_map(|y| (0..12).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect();
    let agents: Vec<(Cell, Cell)> = (0..20)
        .map(|i| (free[i * 5], free[(i * 11 + 37) % free.len()]))
        .collect();
    let run = |extra: &[&str]| {
        let out = dir.join("eecbs.json");
        let out_arg = out.display().to_string();
        let (code, stderr) = mapf(
            &dir,
            &grid,
            &agents,
            &[extra, &["--out", &out_arg]].concat(),
        );
        assert_eq!(code, 0, "{stderr}");
        serde_json::from_slice::<serde_json::Value>(&std::fs::read(&out).unwrap()).unwrap()
    };
    let get = |rec: &serde_json::Value, k: &str| rec[k].as_u64().unwrap();
    let optimal = run(&["--solver", "cbs"]);
    assert_eq!(get(&optimal, "proven_lb"), get(&optimal, "soc"));
    for w in ["1", "1.1", "2"] {
        let rec = run(&["--solver", "eecbs", "--suboptimality", w]);
        let factor: f64 = w.parse().unwrap();
        let (soc, proven) = (get(&rec, "soc"), get(&rec, "proven_lb"));
        assert!(
            proven >= get(&rec, "lb") && proven <= get(&optimal, "soc"),
            "{rec}"
        );
        assert!(soc as f64 <= factor * proven as f64 + 1e-9, "{rec}");
        assert!(soc >= get(&optimal, "soc"));
    }
    let (code, stderr) = mapf(
        &dir,
        &grid,
        &agents,
        &["--solver", "eecbs", "--suboptimality", "0.9"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("suboptimality"), "{stderr}");
}

//! Peak memory of the commands whose memory must follow a budget or the free cells, measured
//! as the largest resident set of this test's child processes (`getrusage`). Its own test
//! binary, so no other test's children count.

#![cfg(target_os = "linux")]

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use cuplan::grid::{Cell, Grid};

const MIB: u64 = 1 << 20;

/// The largest resident set of any child of this process that has ended, in bytes.
fn peak_child_rss() -> u64 {
    // SAFETY: `rusage` is plain integers, so all zeros is a valid value, and getrusage only
    // writes one `rusage` through the pointer, which points to that value.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage), 0);
        usage
    };
    // Linux reports ru_maxrss in KiB.
    u64::try_from(usage.ru_maxrss).unwrap() * 1024
}

fn cuplan(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_cuplan"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn write_scen(path: &Path, grid: &Grid, queries: &[(Cell, Cell)]) {
    let mut scen = String::from("version 1\n");
    for (s, g) in queries {
        let (w, h) = (grid.width(), grid.height());
        writeln!(
            scen,
            "0\tm.map\t{w}\t{h}\t{}\t{}\t{}\t{}\t0",
            s.x, s.y, g.x, g.y
        )
        .unwrap();
    }
    std::fs::write(path, scen).unwrap();
}

/// A `width × height` map blocked everywhere but a `side × side` room at its middle.
fn write_sparse_map(path: &Path, width: u32, height: u32, side: u32) {
    let (x0, y0) = (width / 2, height / 2);
    let blocked = "@".repeat(width as usize);
    let mut text = format!("type octile\nheight {height}\nwidth {width}\nmap\n");
    text.reserve((width as usize + 1) * height as usize);
    for y in 0..height {
        if (y0..y0 + side).contains(&y) {
            let row: String = (0..width)
                .map(|x| {
                    if (x0..x0 + side).contains(&x) {
                        '.'
                    } else {
                        '@'
                    }
                })
                .collect();
            text.push_str(&row);
        } else {
            text.push_str(&blocked);
        }
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// `batch` with 400 distinct goals on a 512² map, whose maps together take 200 MiB, within a
/// 32 MiB budget; then `solve` on an 8,192 × 4,096 map with 3,600 free cells, where per-cell
/// component labels or node tables would take 128 MiB or more.
#[test]
fn batch_stays_within_its_budget_and_solve_follows_free_cells() {
    let dir = std::env::temp_dir().join(format!("cuplan-memory-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let base = peak_child_rss();

    let grid = Grid::open(512, 512).unwrap();
    let queries: Vec<(Cell, Cell)> = (0..400)
        .map(|i| {
            (
                Cell::new(i, 511 - i),
                Cell::new((i * 7) % 512, (i * 13) % 512),
            )
        })
        .collect();
    let (map, scen) = (dir.join("m.map"), dir.join("m.map.scen"));
    grid.write_movingai(&map).unwrap();
    write_scen(&scen, &grid, &queries);
    let (map, scen) = (map.to_str().unwrap(), scen.to_str().unwrap());
    let out = dir.join("batch.jsonl");
    let summary = cuplan(&[
        "batch",
        "--map",
        map,
        "--scen",
        scen,
        "--backend",
        "cpu",
        "--threads",
        "2",
        "--memory-limit",
        "32MiB",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(summary.contains("\"solved\":400"), "{summary}");
    let batch_peak = peak_child_rss();
    // The budget, plus the binary, the grid, the records and allocator slack.
    assert!(
        batch_peak < (32 + 24) * MIB,
        "batch peaked at {} MiB (before it: {} MiB)",
        batch_peak / MIB,
        base / MIB
    );

    let map = dir.join("sparse.map");
    write_sparse_map(&map, 8192, 4096, 60);
    let room = |i: u32| Cell::new(4096 + (i * 7) % 60, 2048 + (i * 11) % 60);
    let queries: Vec<(Cell, Cell)> = (0..50).map(|i| (room(i), room(i + 25))).collect();
    let sparse = Grid::read_movingai(&map).unwrap();
    let scen = dir.join("sparse.map.scen");
    write_scen(&scen, &sparse, &queries);
    drop(sparse);
    for algo in ["jps-bit", "astar"] {
        let summary = cuplan(&[
            "solve",
            "--map",
            map.to_str().unwrap(),
            "--scen",
            scen.to_str().unwrap(),
            "--algo",
            algo,
            "--threads",
            "2",
            "--out",
            dir.join("solve.jsonl").to_str().unwrap(),
        ]);
        assert!(summary.contains("\"solved\":50"), "{summary}");
    }
    // The map's text (32 MiB, read whole under the size limit) and its two bit planes (8 MiB)
    // dominate; per-cell labels alone would add 128 MiB.
    let solve_peak = peak_child_rss();
    assert!(
        solve_peak < 80 * MIB,
        "solve peaked at {} MiB",
        solve_peak / MIB
    );
    let _ = std::fs::remove_dir_all(&dir);
}

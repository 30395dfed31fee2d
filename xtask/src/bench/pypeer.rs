//! The published Python `cuplan` package (PyPI, NumPy backend) as a peer, run in a private
//! virtualenv under `target/` when pip can install it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::Context;
use cuplan::grid::{Cell, Grid};

/// A ready virtualenv with `cuplan` installed.
#[derive(Debug)]
pub(crate) struct PyPeer {
    python: PathBuf,
}

/// The script the peer runs: one JSON job on stdin, one JSON result on stdout.
const SCRIPT: &str = r#"
import json, sys, time
import numpy as np
import cuplan
job = json.load(sys.stdin)
rows = job["grid"]
obstacles = np.array([[ch == "@" for ch in row] for row in rows], dtype=bool)
grid = cuplan.Grid(obstacles)
if job["kind"] == "distance_maps":
    sources = np.array(job["sources"], dtype=np.int32)
    t = time.perf_counter()
    d = cuplan.distance_maps(grid, sources, backend="cpu")
    seconds = time.perf_counter() - t
    print(json.dumps({"seconds": seconds, "checksum": int(d[d >= 0].astype(np.int64).sum())}))
elif job["kind"] == "space_time":
    table = cuplan.ReservationTable(grid, job["horizon"])
    for p in job["paths"]:
        table.reserve_path([tuple(c) for c in p])
    t = time.perf_counter()
    path = cuplan.space_time_astar(grid, tuple(job["start"]), tuple(job["goal"]), table=table, backend="cpu")
    seconds = time.perf_counter() - t
    print(json.dumps({"seconds": seconds, "arrival": None if path is None else len(path) - 1}))
"#;

impl PyPeer {
    /// Creates (once) `target/cuplan-py-venv` and installs `cuplan` into it. `Ok(None)` with a
    /// message on stderr when Python or pip cannot provide it.
    pub(crate) fn setup(target: &Path) -> anyhow::Result<Option<PyPeer>> {
        let venv = target.join("cuplan-py-venv");
        let python = venv.join("bin/python");
        if !python.exists() {
            let made = Command::new("python3")
                .args(["-m", "venv"])
                .arg(&venv)
                .status();
            if !made.is_ok_and(|s| s.success()) {
                eprintln!("peer cuplan-py: skipped (python3 -m venv failed)");
                return Ok(None);
            }
        }
        let have = Command::new(&python)
            .args(["-c", "import cuplan, numpy"])
            .stderr(Stdio::null())
            .status();
        if !have.is_ok_and(|s| s.success()) {
            let pip = Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "cuplan", "numpy"])
                .status()
                .context("running pip")?;
            if !pip.success() {
                eprintln!("peer cuplan-py: skipped (pip could not install cuplan)");
                return Ok(None);
            }
        }
        Ok(Some(PyPeer { python }))
    }

    fn run(&self, job: serde_json::Value) -> anyhow::Result<serde_json::Value> {
        let mut child = Command::new(&self.python)
            .args(["-c", SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("starting the Python peer")?;
        child
            .stdin
            .take()
            .context("peer stdin")?
            .write_all(job.to_string().as_bytes())?;
        let out = child.wait_with_output()?;
        anyhow::ensure!(out.status.success(), "the Python peer failed");
        Ok(serde_json::from_slice(&out.stdout)?)
    }

    /// Seconds for the peer's CPU distance maps from `goals`, and the sum of its finite entries.
    pub(crate) fn distance_maps(&self, grid: &Grid, goals: &[Cell]) -> anyhow::Result<(f64, u64)> {
        let sources: Vec<[u32; 2]> = goals.iter().map(|c| [c.y, c.x]).collect();
        let out = self.run(
            serde_json::json!({"kind": "distance_maps", "grid": rows(grid), "sources": sources}),
        )?;
        Ok((
            out["seconds"].as_f64().context("seconds")?,
            out["checksum"].as_u64().context("checksum")?,
        ))
    }

    /// Seconds for the peer's CPU space-time search after reserving `paths` (each `paths[i][t]`)
    /// in a table of `horizon`, and its arrival time.
    pub(crate) fn space_time(
        &self,
        grid: &Grid,
        paths: &[Vec<Cell>],
        horizon: u32,
        start: Cell,
        goal: Cell,
    ) -> anyhow::Result<(f64, Option<u64>)> {
        let paths: Vec<Vec<[u32; 2]>> = paths
            .iter()
            .map(|p| p.iter().map(|c| [c.y, c.x]).collect())
            .collect();
        let job = serde_json::json!({"kind": "space_time", "grid": rows(grid), "paths": paths, "horizon": horizon,
            "start": [start.y, start.x], "goal": [goal.y, goal.x]});
        let out = self.run(job)?;
        Ok((
            out["seconds"].as_f64().context("seconds")?,
            out["arrival"].as_u64(),
        ))
    }
}

fn rows(grid: &Grid) -> Vec<String> {
    grid.to_movingai_string()
        .lines()
        .skip(4)
        .map(str::to_string)
        .collect()
}

//! Aggregating map runs into per-family rows, and writing the table, JSON and CSV.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::measure::{Engine, MapRun, QueryResult, Status};

/// One row of the table: an engine on a family of maps.
///
/// Times without a `repeat` in their name come from the single timed pass (each query once, in
/// scenario order); the `repeat_*` ones from the second, hot-cache pass.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Row {
    pub(crate) family: String,
    pub(crate) algo: String,
    pub(crate) maps: usize,
    pub(crate) queries: usize,
    pub(crate) solved: usize,
    pub(crate) suboptimal: usize,
    pub(crate) invalid: usize,
    pub(crate) unsolved: usize,
    /// Sum of the single-pass times.
    pub(crate) total_s: f64,
    /// Mean single-pass time per query: the headline µs/query.
    pub(crate) avg_us: f64,
    /// GPPC's "time to the first 20 steps": these planners return whole paths, so it equals the
    /// query time.
    pub(crate) first20_us: f64,
    /// Geometric mean over the family's maps of (peer's mean time / this engine's), both from the
    /// single pass: the headline speed-up.
    pub(crate) speedup_vs_peer: Option<f64>,
    /// Mean repeat-median time per query (second pass; see `measure::repeat_median`).
    pub(crate) repeat_median_us: f64,
    /// `speedup_vs_peer` computed from the repeat medians of both engines instead.
    pub(crate) repeat_speedup_vs_peer: Option<f64>,
    pub(crate) avg_len: f64,
    pub(crate) avg_subopt: f64,
    /// Jump-table builds summed over the family's maps (0 for algorithms without a table).
    pub(crate) table_ms: f64,
    /// Connected-components labellings summed over the family's maps (0 for the peer).
    pub(crate) components_ms: f64,
    pub(crate) storage_bytes: usize,
    pub(crate) rss_before_kb: u64,
    pub(crate) rss_after_kb: u64,
}

/// One engine on one map, for the per-map part of results.json.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MapRow {
    pub(crate) family: String,
    pub(crate) map: String,
    pub(crate) algo: String,
    pub(crate) queries: usize,
    pub(crate) avg_us: f64,
    pub(crate) repeat_median_us: f64,
    pub(crate) speedup_vs_peer: Option<f64>,
    pub(crate) repeat_speedup_vs_peer: Option<f64>,
    pub(crate) table_ms: f64,
    pub(crate) components_ms: f64,
    pub(crate) storage_bytes: usize,
}

/// Which of a query's two timings a figure is computed from.
#[derive(Debug, Clone, Copy)]
enum Timing {
    Single,
    Repeat,
}

impl Timing {
    fn of(self, q: &QueryResult) -> f64 {
        match self {
            Timing::Single => q.time.as_secs_f64(),
            Timing::Repeat => q.repeat.as_secs_f64(),
        }
    }
}

fn avg_us(run: &MapRun, timing: Timing) -> f64 {
    let n = run.queries.len().max(1) as f64;
    run.queries.iter().map(|q| timing.of(q)).sum::<f64>() * 1e6 / n
}

/// The peer's mean time per map, by map name.
type PeerTimes<'a> = BTreeMap<&'a str, f64>;

fn peer_times(runs: &[MapRun], timing: Timing) -> PeerTimes<'_> {
    runs.iter()
        .filter(|r| r.engine == Engine::PeerAstar)
        .map(|r| (r.map.as_str(), avg_us(r, timing)))
        .collect()
}

/// Geometric mean over `group` of peer time / engine time; `None` unless the peer ran on every
/// map of the group.
fn speedup(group: &[&MapRun], peer: &PeerTimes<'_>, timing: Timing) -> Option<f64> {
    let ratios: Vec<f64> = group
        .iter()
        .filter_map(|r| {
            peer.get(r.map.as_str())
                .map(|p| p / avg_us(r, timing).max(1e-9))
        })
        .collect();
    (ratios.len() == group.len() && !ratios.is_empty())
        .then(|| (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp())
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One row per run, in the order they ran.
pub(crate) fn map_rows(runs: &[MapRun]) -> Vec<MapRow> {
    let peer = peer_times(runs, Timing::Single);
    let peer_repeat = peer_times(runs, Timing::Repeat);
    runs.iter()
        .map(|r| MapRow {
            family: r.family.clone(),
            map: r.map.clone(),
            algo: r.engine.name().to_string(),
            queries: r.queries.len(),
            avg_us: avg_us(r, Timing::Single),
            repeat_median_us: avg_us(r, Timing::Repeat),
            speedup_vs_peer: speedup(&[r], &peer, Timing::Single),
            repeat_speedup_vs_peer: speedup(&[r], &peer_repeat, Timing::Repeat),
            table_ms: ms(r.table),
            components_ms: ms(r.components),
            storage_bytes: r.storage_bytes,
        })
        .collect()
}

/// Rows in family order, engines in the order they ran.
pub(crate) fn rows(runs: &[MapRun], engine_order: &[Engine]) -> Vec<Row> {
    let peer = peer_times(runs, Timing::Single);
    let peer_repeat = peer_times(runs, Timing::Repeat);
    let mut families: Vec<&str> = Vec::new();
    for r in runs {
        if !families.contains(&r.family.as_str()) {
            families.push(&r.family);
        }
    }
    let mut out = Vec::new();
    for family in families {
        for &engine in engine_order {
            let group: Vec<&MapRun> = runs
                .iter()
                .filter(|r| r.family == family && r.engine == engine)
                .collect();
            if !group.is_empty() {
                out.push(row(family, engine, &group, [&peer, &peer_repeat]));
            }
        }
    }
    out
}

/// `peer`: the peer's single-pass and repeat-median times.
fn row(family: &str, engine: Engine, group: &[&MapRun], peer: [&PeerTimes<'_>; 2]) -> Row {
    let all = || group.iter().flat_map(|r| r.queries.iter());
    let count = |s: Status| all().filter(|q| q.status == s).count();
    let queries = all().count();
    let total_s: f64 = all().map(|q| q.time.as_secs_f64()).sum();
    let valid: Vec<_> = all()
        .filter(|q| matches!(q.status, Status::Solved | Status::Suboptimal))
        .collect();
    let mean = |xs: &mut dyn Iterator<Item = f64>, n: usize| {
        if n == 0 {
            0.0
        } else {
            xs.sum::<f64>() / n as f64
        }
    };
    let avg_len = mean(&mut valid.iter().filter_map(|q| q.cost), valid.len());
    let avg_subopt = mean(
        &mut valid.iter().map(|q| {
            if q.optimal > 0.0 {
                q.cost.unwrap_or(0.0) / q.optimal
            } else {
                1.0
            }
        }),
        valid.len(),
    );
    let per_query_us = |total_s: f64| {
        if queries == 0 {
            0.0
        } else {
            total_s * 1e6 / queries as f64
        }
    };
    let avg = per_query_us(total_s);
    let repeat_s: f64 = all().map(|q| q.repeat.as_secs_f64()).sum();
    Row {
        family: family.to_string(),
        algo: engine.name().to_string(),
        maps: group.len(),
        queries,
        solved: count(Status::Solved),
        suboptimal: count(Status::Suboptimal),
        invalid: count(Status::Invalid),
        unsolved: count(Status::Unsolved),
        total_s,
        avg_us: avg,
        first20_us: avg,
        speedup_vs_peer: speedup(group, peer[0], Timing::Single),
        repeat_median_us: per_query_us(repeat_s),
        repeat_speedup_vs_peer: speedup(group, peer[1], Timing::Repeat),
        avg_len,
        avg_subopt,
        table_ms: group.iter().map(|r| ms(r.table)).sum(),
        components_ms: group.iter().map(|r| ms(r.components)).sum(),
        storage_bytes: group.iter().map(|r| r.storage_bytes).max().unwrap_or(0),
        rss_before_kb: group.iter().map(|r| r.rss_before_kb).min().unwrap_or(0),
        rss_after_kb: group.iter().map(|r| r.rss_after_kb).max().unwrap_or(0),
    }
}

/// The aligned terminal table. With `mask_times`, every timing prints as `*` (for snapshots).
///
/// `single µs` and `× peer` are the headline (single timed pass); `repeat µs` and `rep × peer`
/// the hot-cache repeat medians, printed beside them so the gap stays visible.
pub(crate) fn table(rows: &[Row], mask_times: bool) -> String {
    let header = [
        "family",
        "algo",
        "queries",
        "solved",
        "subopt",
        "invalid",
        "unsolved",
        "single µs",
        "total s",
        "× peer",
        "repeat µs",
        "rep × peer",
        "avg len",
        "subopt×",
        "table ms",
        "components ms",
        "bytes",
    ];
    let time = |v: f64, prec: usize| {
        if mask_times {
            "*".to_string()
        } else {
            format!("{v:.prec$}")
        }
    };
    let ratio = |s: Option<f64>| s.map_or_else(|| "-".into(), |s| time(s, 1));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.family.clone(),
                r.algo.clone(),
                r.queries.to_string(),
                r.solved.to_string(),
                r.suboptimal.to_string(),
                r.invalid.to_string(),
                r.unsolved.to_string(),
                time(r.avg_us, 2),
                time(r.total_s, 3),
                ratio(r.speedup_vs_peer),
                time(r.repeat_median_us, 2),
                ratio(r.repeat_speedup_vs_peer),
                format!("{:.2}", r.avg_len),
                format!("{:.6}", r.avg_subopt),
                time(r.table_ms, 2),
                time(r.components_ms, 2),
                if mask_times {
                    "*".into()
                } else {
                    r.storage_bytes.to_string()
                },
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|i| {
            cells
                .iter()
                .map(|c| c[i].chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let line = |out: &mut String, values: &[String]| {
        let parts: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let pad = widths[i] - v.chars().count();
                if i < 2 {
                    format!("{v}{}", " ".repeat(pad))
                } else {
                    format!("{}{v}", " ".repeat(pad))
                }
            })
            .collect();
        let _ = writeln!(out, "{}", parts.join("  ").trim_end());
    };
    line(&mut out, &header.map(String::from));
    line(
        &mut out,
        &widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>(),
    );
    for c in &cells {
        line(&mut out, c);
    }
    out
}

/// The rows as CSV (the same fields as results.json's rows).
pub(crate) fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "family,algo,maps,queries,solved,suboptimal,invalid,unsolved,total_s,avg_us,first20_us,speedup_vs_peer,repeat_median_us,repeat_speedup_vs_peer,avg_len,avg_subopt,table_ms,components_ms,storage_bytes,rss_before_kb,rss_after_kb\n",
    );
    let ratio = |s: Option<f64>| s.map_or_else(String::new, |s| format!("{s:.3}"));
    for r in rows {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{:.6},{:.3},{:.3},{},{:.3},{},{:.4},{:.6},{:.3},{:.3},{},{},{}",
            r.family,
            r.algo,
            r.maps,
            r.queries,
            r.solved,
            r.suboptimal,
            r.invalid,
            r.unsolved,
            r.total_s,
            r.avg_us,
            r.first20_us,
            ratio(r.speedup_vs_peer),
            r.repeat_median_us,
            ratio(r.repeat_speedup_vs_peer),
            r.avg_len,
            r.avg_subopt,
            r.table_ms,
            r.components_ms,
            r.storage_bytes,
            r.rss_before_kb,
            r.rss_after_kb
        );
    }
    out
}

/// Machine, commit and date, for results.json.
#[derive(Debug, Serialize)]
pub(crate) struct Meta {
    pub(crate) date_utc: String,
    pub(crate) commit: String,
    pub(crate) machine: String,
    pub(crate) cores: usize,
    pub(crate) threads: usize,
    pub(crate) command: String,
}

impl Meta {
    pub(crate) fn collect(threads: usize) -> Meta {
        let run = |cmd: &str, args: &[&str]| {
            std::process::Command::new(cmd)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .unwrap_or_else(|| "unknown".into())
        };
        let machine = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        Meta {
            date_utc: run("date", &["-u", "+%Y-%m-%dT%H:%M:%SZ"]),
            commit: run("git", &["rev-parse", "--short", "HEAD"]),
            machine,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            threads,
            command: std::env::args().collect::<Vec<_>>().join(" "),
        }
    }
}

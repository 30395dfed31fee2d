//! Temporary timing probe.
#[path = "../benches/peer/mod.rs"]
#[allow(unreachable_pub)]
mod peer;
use cuplan_grid::{Grid, Scenario};
use cuplan_jps::{Algorithm, Planner, Searcher};
struct Instant(u64);
impl Instant {
    fn now() -> Instant {
        Instant(cpu_ns())
    }
    fn elapsed(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(cpu_ns() - self.0)
    }
}
#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}
unsafe extern "C" {
    fn clock_gettime(clk: i32, ts: *mut Timespec) -> i32;
}
fn cpu_ns() -> u64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(3, &mut ts) }; // CLOCK_THREAD_CPUTIME_ID
    ts.sec as u64 * 1_000_000_000 + ts.nsec as u64
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let every_div: usize = args[1].parse().unwrap();
    let with_peer = args[2] == "1";
    let only: Option<Algorithm> = std::env::var("ONLY").ok().map(|s| s.parse().unwrap());
    for map in &args[3..] {
        let grid = Grid::read_movingai(map).unwrap();
        let scen = Scenario::read(format!("{map}.scen")).unwrap();
        let k = scen.entries.len() / every_div + 1;
        let q: Vec<_> = scen.entries.iter().step_by(k).collect();
        let mut base = f64::NAN;
        let mut line = format!(
            "{:22}",
            map.rsplit('/').next().unwrap().trim_end_matches(".map")
        );
        if with_peer {
            let t = Instant::now();
            for e in &q {
                peer::pathfinding_astar(&grid, e.start, e.goal).unwrap();
            }
            base = t.elapsed().as_secs_f64() * 1e6 / q.len() as f64;
            line += &format!(" pf {base:.0}us");
            println!(
                "{:40} {:16} {base:10.1} us",
                map.rsplit('/').next().unwrap(),
                "pathfinding"
            );
        }
        for algo in Algorithm::ALL {
            let Ok(p) = Planner::new(&grid, algo) else {
                continue;
            };
            if algo == Algorithm::AStar && !with_peer && only.is_none() {
                continue;
            }
            if only.is_some_and(|o| o != algo) {
                continue;
            }
            let mut s = Searcher::new();
            let t = Instant::now();
            let mut exp = 0;
            let rep: usize = std::env::var("REPEAT")
                .ok()
                .map_or(1, |s| s.parse().unwrap());
            for e in &q {
                p.search(&mut s, e.start, e.goal).unwrap().unwrap();
            }
            let t = Instant::now();
            for e in q.iter().cycle().take(q.len() * rep) {
                p.search(&mut s, e.start, e.goal).unwrap().unwrap();
                exp += s.stats().expanded;
            }
            let us = t.elapsed().as_secs_f64() * 1e6 / (q.len() * rep) as f64;
            let exp = exp / rep as u64;
            println!(
                "{:40} {algo:16} {us:10.1} us  x{:7.1}  {:8} exp n={} pre={:?}",
                "",
                base / us,
                exp / q.len() as u64,
                q.len(),
                p.preprocess_time()
            );
        }
        println!("{line}");
    }
}

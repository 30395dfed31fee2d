//! `cuplan-gpu-test`: the GPU parity suite and benchmark, one self-contained binary (build it
//! with `cargo xtask gpu-test`, copy it to a GPU machine; no Rust toolchain needed there).
//!
//! Parity: device distance maps against an independent queue BFS (distances are unique, so
//! this is parity with the CPU backend, which the workspace tests check against BFS too) and
//! against the kernels run on the host; paths descended from device and BFS maps identical;
//! space-time searches on the device against the host-run kernels (arrival and every cell).
//! Benchmark: 1,024 maps of 256² and of 1024², end to end (upload, search, copy back).
//!
//! Usage: `cuplan-gpu-test [--data DIR] [--require-gpu] [--quick]`. Without a CUDA driver or
//! device it prints why and exits 0 (1 with `--require-gpu`); any parity failure exits 1.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cuplan_grid::{Cell, Grid, generate};
use cuplan_wavefront_gpu::emulate::{self, HostReservations};
use cuplan_wavefront_gpu::{
    Device, DeviceReservations, DistanceConfig, DistanceKernel, SpaceTimeConfig, UNREACHABLE,
};

const KERNELS: [DistanceKernel; 2] = [DistanceKernel::Dense, DistanceKernel::Sparse];

struct Options {
    data: Option<PathBuf>,
    require_gpu: bool,
    quick: bool,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        data: None,
        require_gpu: false,
        quick: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--data" => options.data = Some(args.next().ok_or("--data needs a directory")?.into()),
            "--require-gpu" => options.require_gpu = true,
            "--quick" => options.quick = true,
            "-h" | "--help" => {
                return Err("usage: cuplan-gpu-test [--data DIR] [--require-gpu] [--quick]".into());
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(o) => o,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    let device = match Device::open(0) {
        Ok(d) => d,
        Err(e) => {
            println!("cuplan-gpu-test: SKIPPED, no GPU run possible here: {e}");
            return if options.require_gpu {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let (free, total) = device.memory().unwrap_or((0, 0));
    println!(
        "cuplan-gpu-test on {} ({:.1} GiB free of {:.1} GiB)",
        device.name(),
        free as f64 / f64::from(1 << 30),
        total as f64 / f64::from(1 << 30)
    );
    let mut failures = 0usize;
    let mut report = |name: &str, result: Result<String, String>| match result {
        Ok(detail) => println!("  ok    {name}: {detail}"),
        Err(detail) => {
            failures += 1;
            println!("  FAIL  {name}: {detail}");
        }
    };
    println!("parity:");
    let grids: Vec<(String, Grid, usize)> = parity_grids()
        .into_iter()
        .map(|(name, grid)| (name, grid, 32))
        .chain(
            benchmark_grids(options.data.as_deref())
                .into_iter()
                .map(|(name, grid)| (name, grid, 16)),
        )
        .collect();
    for kernel in KERNELS {
        for (name, grid, goals) in &grids {
            report(
                &format!("distances {kernel:?} {name}"),
                distance_parity(&device, grid, *goals, kernel),
            );
        }
    }
    for seed in 0..6 {
        report(
            &format!("space-time random seed {seed}"),
            space_time_parity(&device, seed),
        );
        report(
            &format!("space-time from a ReservationTable, seed {seed}"),
            table_parity(&device, seed),
        );
    }
    if failures == 0 {
        println!("benchmark (end to end: upload, search, copy back; best of 3):");
        println!(
            "  {:<22} {:<7} {:>6} {:>10} {:>10} {:>10} {:>9}",
            "grid", "kernel", "maps", "total ms", "search ms", "copy ms", "launches"
        );
        let mut cases = vec![("open 256x256", Grid::open(256, 256).ok(), 1024)];
        cases.push((
            "random20 256x256",
            generate::random(256, 256, 0.2, 1).ok(),
            1024,
        ));
        if !options.quick {
            cases.push(("open 1024x1024", Grid::open(1024, 1024).ok(), 1024));
            cases.push((
                "random20 1024x1024",
                generate::random(1024, 1024, 0.2, 1).ok(),
                1024,
            ));
        }
        for (name, grid, n) in cases {
            let Some(grid) = grid else { continue };
            for kernel in KERNELS {
                let label = format!("{kernel:?}");
                match benchmark(&device, &grid, n, kernel) {
                    Ok(line) => println!("  {name:<22} {label:<7} {n:>6} {line}"),
                    Err(e) => println!("  {name:<22} {label:<7} {n:>6} error: {e}"),
                }
            }
        }
    }
    if failures > 0 {
        println!("cuplan-gpu-test: {failures} parity failure(s)");
        return ExitCode::FAILURE;
    }
    println!("cuplan-gpu-test: all parity checks passed");
    ExitCode::SUCCESS
}

fn parity_grids() -> Vec<(String, Grid)> {
    let mut grids = Vec::new();
    for (w, h, density, seed) in [
        (1, 1, 0.0, 1),
        (63, 7, 0.2, 2),
        (64, 64, 0.3, 3),
        (130, 77, 0.35, 4),
        (257, 129, 0.1, 5),
    ] {
        if let Ok(g) = generate::random(w, h, density, seed) {
            grids.push((format!("random {w}x{h} d={density}"), g));
        }
    }
    if let Ok(g) = generate::maze(301, 201, 1, 6) {
        grids.push(("maze 301x201".into(), g));
    }
    if let Ok(g) = generate::rooms(512, 256, 16, 7) {
        grids.push(("rooms 512x256".into(), g));
    }
    grids
}

/// The first map of each family under `DIR/grid/<family>/*.map` (the shared benchmark data).
fn benchmark_grids(data: Option<&std::path::Path>) -> Vec<(String, Grid)> {
    let Some(root) = data.map(|d| d.join("grid")) else {
        return Vec::new();
    };
    let Ok(families) = std::fs::read_dir(&root) else {
        println!("  (no benchmark maps at {}: skipped)", root.display());
        return Vec::new();
    };
    let mut family_dirs: Vec<PathBuf> = families.filter_map(|e| e.ok().map(|e| e.path())).collect();
    family_dirs.sort();
    let mut grids = Vec::new();
    for dir in family_dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut maps: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "map"))
            .collect();
        maps.sort();
        if let Some(map) = maps.first()
            && let Ok(grid) = Grid::read_movingai(map)
        {
            grids.push((map.display().to_string(), grid));
        }
    }
    grids
}

/// The shared plain-BFS oracle (`cuplan_grid::testkit`), unreachable as [`UNREACHABLE`].
fn bfs(grid: &Grid, goal: Cell) -> Vec<u32> {
    cuplan_grid::testkit::bfs4(grid, goal)
        .into_iter()
        .map(|d| d.unwrap_or(UNREACHABLE))
        .collect()
}

/// Gradient descent on one map, neighbours in the order N, E, S, W.
fn descend(grid: &Grid, map: &[u32], start: Cell) -> Option<Vec<Cell>> {
    let at = |c: Cell| map[grid.index(c).get()];
    let mut d = at(start);
    if d == UNREACHABLE {
        return None;
    }
    let mut path = vec![start];
    let mut cur = start;
    while d > 0 {
        cur = grid
            .neighbours4(cur)
            .into_iter()
            .find(|&n| at(n) == d - 1)?;
        path.push(cur);
        d -= 1;
    }
    Some(path)
}

fn distance_parity(
    device: &Device,
    grid: &Grid,
    goals: usize,
    kernel: DistanceKernel,
) -> Result<String, String> {
    let queries = generate::random_queries(grid, goals, 17);
    if queries.is_empty() {
        return Ok("no free cells".into());
    }
    let goal_cells: Vec<Cell> = queries.iter().map(|&(_, g)| g).collect();
    // A small level budget per launch exercises the resumed launches too.
    let config = DistanceConfig {
        levels_per_launch: (grid.width() + grid.height()) / 2 + 1,
        kernel,
        ..DistanceConfig::default()
    };
    let gpu = device
        .distance_maps(grid, &goal_cells, &config)
        .map_err(|e| e.to_string())?;
    let cells = grid.cell_count();
    for (i, (&(start, goal), map)) in queries.iter().zip(gpu.chunks(cells)).enumerate() {
        let want = bfs(grid, goal);
        if let Some(c) = (0..cells).find(|&c| map[c] != want[c]) {
            return Err(format!(
                "goal {i} ({goal}): cell index {c} is {} on the GPU, {} by BFS",
                map[c], want[c]
            ));
        }
        if descend(grid, map, start) != descend(grid, &want, start) {
            return Err(format!("query {i}: paths differ"));
        }
    }
    if cells <= 1 << 16 {
        let host =
            emulate::distance_maps_with(grid, &goal_cells, &config).map_err(|e| e.to_string())?;
        if host != gpu {
            return Err("GPU maps differ from the kernels run on the host".into());
        }
    }
    Ok(format!("{} maps identical", goal_cells.len()))
}

/// A random walk of `len` steps (waits included) from `start`.
fn walk(grid: &Grid, start: Cell, len: usize, seed: u64) -> Vec<Cell> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut path = vec![start];
    for _ in 0..len {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let cur = path[path.len() - 1];
        let options: Vec<Cell> = std::iter::once(cur).chain(grid.neighbours4(cur)).collect();
        path.push(options[(s % options.len() as u64) as usize]);
    }
    path
}

fn space_time_parity(device: &Device, seed: u64) -> Result<String, String> {
    let grid = generate::random(96, 80, 0.2, seed).map_err(|e| e.to_string())?;
    let horizon = 400;
    let mut gpu = DeviceReservations::new(device, &grid, horizon).map_err(|e| e.to_string())?;
    let mut host = HostReservations::new(&grid, horizon, 64).map_err(|e| e.to_string())?;
    let queries = generate::random_queries(&grid, 40, seed);
    let (mut found, mut checked) = (0, 0);
    for (i, &(start, goal)) in queries.iter().enumerate() {
        if i % 2 == 0 {
            // Every other query reserves a wandering agent first, so the table keeps growing.
            let path = walk(&grid, start, 60, seed * 1000 + i as u64);
            gpu.reserve_path(&path).map_err(|e| e.to_string())?;
            host.reserve_path(&path).map_err(|e| e.to_string())?;
        }
        let a = gpu
            .search(start, goal, &SpaceTimeConfig::default())
            .map_err(|e| e.to_string())?;
        let b = host.search(start, goal).map_err(|e| e.to_string())?;
        if a != b {
            return Err(format!(
                "query {i} {start} -> {goal}: GPU {:?} vs host {:?}",
                a.map(|p| p.arrival()),
                b.map(|p| p.arrival())
            ));
        }
        checked += 1;
        found += usize::from(a.is_some());
    }
    Ok(format!("{checked} searches identical ({found} found)"))
}

/// A table from the reservations crate uploaded whole: device and host-run kernels agree.
fn table_parity(device: &Device, seed: u64) -> Result<String, String> {
    let grid = generate::random(128, 64, 0.15, seed + 100).map_err(|e| e.to_string())?;
    let mut table =
        cuplan_reservations::ReservationTable::new(&grid, 300).map_err(|e| e.to_string())?;
    let queries = generate::random_queries(&grid, 60, seed + 7);
    let mut reserved = 0;
    for (i, &(start, _)) in queries.iter().enumerate().take(30) {
        if table
            .reserve_path(&walk(&grid, start, 80, seed * 31 + i as u64))
            .is_ok()
        {
            reserved += 1;
        }
    }
    let mut gpu =
        DeviceReservations::from_table(device, &grid, &table).map_err(|e| e.to_string())?;
    let mut host = HostReservations::from_table(&grid, &table, 64).map_err(|e| e.to_string())?;
    for (i, &(start, goal)) in queries.iter().enumerate().skip(30) {
        let a = gpu
            .search(start, goal, &SpaceTimeConfig::default())
            .map_err(|e| e.to_string())?;
        let b = host.search(start, goal).map_err(|e| e.to_string())?;
        if a != b {
            return Err(format!("query {i} {start} -> {goal}: GPU and host differ"));
        }
    }
    Ok(format!("{reserved} reserved paths, 30 searches identical"))
}

fn benchmark(
    device: &Device,
    grid: &Grid,
    n: usize,
    kernel: DistanceKernel,
) -> Result<String, String> {
    let goals: Vec<Cell> = generate::random_queries(grid, n, 99)
        .into_iter()
        .map(|(_, g)| g)
        .collect();
    let config = DistanceConfig {
        kernel,
        ..DistanceConfig::default()
    };
    let mut best: Option<(Duration, cuplan_wavefront_gpu::DistanceProfile)> = None;
    for _ in 0..3 {
        let started = Instant::now();
        let (maps, profile) = device
            .distance_maps_profiled(grid, &goals, &config)
            .map_err(|e| e.to_string())?;
        let total = started.elapsed();
        drop(maps);
        if best.is_none_or(|(t, _)| total < t) {
            best = Some((total, profile));
        }
    }
    let Some((total, p)) = best else {
        return Err("no run".into());
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Ok(format!(
        "{:>10.2} {:>10.2} {:>10.2} {:>9}",
        ms(total),
        ms(p.search),
        ms(p.download),
        p.launches
    ))
}

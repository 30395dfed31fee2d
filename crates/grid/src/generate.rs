//! Seeded map generators in the Moving AI synthetic families, and random query sets.
//!
//! The default benchmark and most tests run on these, so cuplan works with no external data.
//! Every generator is deterministic for a given seed (ChaCha8, stable across platforms).

use rand::{Rng, SeedableRng, seq::SliceRandom};
use rand_chacha::ChaCha8Rng;

use crate::{Cell, CellIndex, Grid, GridError, Result};

/// A synthetic map family with its parameter, as in the Moving AI benchmark sets.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Family {
    /// Each cell blocked independently with this probability (0.0..=1.0).
    Random(f64),
    /// A perfect maze (recursive backtracker) with corridors this wide and 1-cell walls.
    Maze(u32),
    /// Square rooms of this pitch separated by 1-cell walls, one door per wall segment.
    Rooms(u32),
    /// No obstacles.
    Open,
}

impl Family {
    /// The default benchmark suite: random 10/25/40 %, mazes 1/4/32, rooms 8/32/64, open.
    pub const DEFAULT_SUITE: [Family; 10] = [
        Family::Random(0.10),
        Family::Random(0.25),
        Family::Random(0.40),
        Family::Maze(1),
        Family::Maze(4),
        Family::Maze(32),
        Family::Rooms(8),
        Family::Rooms(32),
        Family::Rooms(64),
        Family::Open,
    ];

    /// A short name, e.g. `random25`, `maze4`, `room32`, `open`.
    pub fn name(self) -> String {
        match self {
            Family::Random(d) => format!("random{}", (d * 100.0).round() as u32),
            Family::Maze(c) => format!("maze{c}"),
            Family::Rooms(r) => format!("room{r}"),
            Family::Open => "open".to_string(),
        }
    }

    /// Generates a `width × height` map of this family.
    pub fn generate(self, width: u32, height: u32, seed: u64) -> Result<Grid> {
        match self {
            Family::Random(d) => random(width, height, d, seed),
            Family::Maze(c) => maze(width, height, c, seed),
            Family::Rooms(r) => rooms(width, height, r, seed),
            Family::Open => Grid::open(width, height),
        }
    }
}

/// Random obstacles: each cell blocked with probability `density`.
pub fn random(width: u32, height: u32, density: f64, seed: u64) -> Result<Grid> {
    if !(0.0..=1.0).contains(&density) {
        return Err(GridError::InvalidArgument(format!(
            "density {density} is not in 0..=1"
        )));
    }
    let mut grid = Grid::open(width, height)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for y in 0..height {
        for x in 0..width {
            if rng.random_bool(density) {
                grid.set_blocked_unchecked(Cell::new(x, y));
            }
        }
    }
    grid.reset_generation();
    Ok(grid)
}

/// A perfect maze with `corridor`-wide passages and 1-cell walls (lattice pitch `corridor+1`).
/// Any rim left over when the size is not a multiple of the pitch stays blocked.
pub fn maze(width: u32, height: u32, corridor: u32, seed: u64) -> Result<Grid> {
    if corridor == 0 {
        return Err(GridError::InvalidArgument(
            "maze corridor width must be at least 1".into(),
        ));
    }
    let mut grid = Grid::open(width, height)?;
    let pitch = corridor + 1;
    let (nx, ny) = (
        width.saturating_sub(1) / pitch,
        height.saturating_sub(1) / pitch,
    );
    let mut carved = vec![false; (width * height) as usize];
    let mut carve = |x0: u32, y0: u32, w: u32, h: u32| {
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                carved[CellIndex::row_major(width, x, y)] = true;
            }
        }
    };
    if nx > 0 && ny > 0 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut visited = vec![false; (nx * ny) as usize];
        let mut stack = vec![(0u32, 0u32)];
        visited[0] = true;
        carve(1, 1, corridor, corridor);
        while let Some(&(i, j)) = stack.last() {
            let mut next: Vec<(u32, u32)> = [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)]
                .into_iter()
                .filter_map(|(di, dj)| {
                    let (a, b) = (i64::from(i) + di, i64::from(j) + dj);
                    (a >= 0 && b >= 0 && a < i64::from(nx) && b < i64::from(ny))
                        .then_some((a as u32, b as u32))
                })
                .filter(|&(a, b)| !visited[(b * nx + a) as usize])
                .collect();
            if next.is_empty() {
                stack.pop();
                continue;
            }
            next.shuffle(&mut rng);
            let (a, b) = next[0];
            visited[(b * nx + a) as usize] = true;
            let (x0, y0) = (a * pitch + 1, b * pitch + 1);
            carve(x0, y0, corridor, corridor);
            // Open the wall between the two lattice cells.
            let (wx, wy, ww, wh) = if a != i {
                (i.max(a) * pitch, y0, 1, corridor)
            } else {
                (x0, j.max(b) * pitch, corridor, 1)
            };
            carve(wx, wy, ww, wh);
            stack.push((a, b));
        }
    }
    for y in 0..height {
        for x in 0..width {
            if !carved[CellIndex::row_major(width, x, y)] {
                grid.set_blocked_unchecked(Cell::new(x, y));
            }
        }
    }
    grid.reset_generation();
    Ok(grid)
}

/// Rooms of pitch `room` (walls on every multiple of `room`, `room - 1` free cells between),
/// with one door at a random place in every wall segment between two rooms.
pub fn rooms(width: u32, height: u32, room: u32, seed: u64) -> Result<Grid> {
    if room < 3 {
        return Err(GridError::InvalidArgument(
            "room pitch must be at least 3".into(),
        ));
    }
    let mut grid = Grid::open(width, height)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let is_wall = |v: u32| v > 0 && v.is_multiple_of(room);
    for y in 0..height {
        for x in 0..width {
            if is_wall(x) || is_wall(y) {
                grid.set_blocked_unchecked(Cell::new(x, y));
            }
        }
    }
    // One door per wall segment: segments lie between consecutive wall lines.
    let segments = |len: u32| -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        let mut s = 0;
        while s < len {
            let start = if s == 0 { 0 } else { s + 1 };
            let end = ((s / room + 1) * room).min(len);
            if start < end {
                out.push((start, end));
            }
            s = (s / room + 1) * room;
        }
        out
    };
    for wx in (room..width).step_by(room as usize) {
        for (y0, y1) in segments(height) {
            let y = rng.random_range(y0..y1);
            grid.set_free(Cell::new(wx, y)).expect("in range");
        }
    }
    for wy in (room..height).step_by(room as usize) {
        for (x0, x1) in segments(width) {
            let x = rng.random_range(x0..x1);
            grid.set_free(Cell::new(x, wy)).expect("in range");
        }
    }
    grid.reset_generation();
    Ok(grid)
}

/// `n` random queries whose start and goal are free and connected (they lie in one component,
/// chosen with probability proportional to its size). Start may equal goal only on a grid whose
/// components all have one cell. Empty when the grid has no free cell.
pub fn random_queries(grid: &Grid, n: usize, seed: u64) -> Vec<(Cell, Cell)> {
    let free: Vec<Cell> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .filter(|&c| grid.is_free(c))
        .collect();
    if free.is_empty() {
        return Vec::new();
    }
    let comps = grid.components();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut tries = 0usize;
    while out.len() < n {
        let a = free[rng.random_range(0..free.len())];
        let b = free[rng.random_range(0..free.len())];
        tries += 1;
        let same = comps.of(grid, a) == comps.of(grid, b);
        if same && (a != b || tries > 64 * n + 1024) {
            out.push((a, b));
        }
    }
    out
}

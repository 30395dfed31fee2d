//! `cuplan._core`: the native half of the Python package `cuplan` (PyO3 + numpy).
//!
//! **Job**: expose the Rust searches to Python with NumPy in and out, the GIL released during
//! every search. The Python half (`python/cuplan/`) keeps the 0.1 API — signatures, defaults,
//! `(row, col)` cells, `int32` maps with `-1`, `ValueError` on bad input — and calls this.
//!
//! **Main items**: [`NativeGrid`] (the immutable map, built once per Python `Grid`),
//! `distance_maps`, `batched_paths`, [`NativeReservations`] and `space_time_astar`
//! (the reservation model and the one space-time search of `cuplan-wavefront`, with 0.1's tie
//! order), [`NativePlanner`] (the JPS family), `solve_mapf` (PP, CBS, LaCAM), `load_map`,
//! `load_scen`, `first_conflict`. The functions are private to Rust (Python reaches them
//! through the module), so they are named, not linked.
//!
//! **Invariants**: Python cells are `(row, col)` = `(y, x)`; every search runs with the GIL
//! released on data copied out of Python objects first, so no NumPy buffer is read while other
//! Python threads run; bad input is `ValueError`, a limit reached is `RuntimeError` naming it,
//! never "no path".
//!
//! **Tests**: `crates/python/tests/` (pytest): every 0.1 name, answers equal to cuplan 0.1's
//! on random instances (when pip can fetch it), independent BFS oracles, error paths.
//!
//! ```text
//! >>> import cuplan, numpy as np
//! >>> grid = cuplan.Grid(np.zeros((4, 4), dtype=bool))
//! >>> cuplan.distance_maps(grid, np.array([[0, 0]]))[0, 3, 3]
//! 6
//! ```

use std::sync::Arc;
use std::time::Duration;

use cuplan::grid::{Cell, Grid};
use cuplan::jps::{Algorithm, Planner};
use cuplan::mapf::{Instance, SolveOutcome, Solver, SolverConfig};
use cuplan::reservations::ReservationTable;
use cuplan::wavefront::{Backend, SpaceTimeQuery, SpaceTimeResult, TieBreak, UNREACHABLE};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

/// A `(row, col)` pair as Python passes it.
type RowCol = (i64, i64);

/// A path as Python receives it: `(row, col)` per step or waypoint.
type PyPath = Vec<(u32, u32)>;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An immutable occupancy grid on the Rust side: built once from a C-contiguous boolean
/// `(height, width)` array, truthy = blocked.
#[pyclass(frozen, name = "Grid", module = "cuplan._core")]
#[derive(Debug)]
pub struct NativeGrid {
    grid: Arc<Grid>,
}

#[pymethods]
impl NativeGrid {
    /// `NativeGrid(obstacles)`: `obstacles` a C-contiguous `bool` array, `True` = blocked.
    #[new]
    fn new(obstacles: PyReadonlyArray2<'_, bool>) -> PyResult<NativeGrid> {
        let shape = obstacles.shape();
        let (h, w) = (shape[0], shape[1]);
        let blocked = obstacles
            .as_slice()
            .map_err(|_| PyValueError::new_err("obstacles must be C-contiguous"))?;
        let side = |n: usize| u32::try_from(n).map_err(|_| value_error("grid side too large"));
        let grid = Grid::from_blocked(side(w)?, side(h)?, blocked).map_err(value_error)?;
        Ok(NativeGrid {
            grid: Arc::new(grid),
        })
    }

    /// Number of columns.
    #[getter]
    fn width(&self) -> u32 {
        self.grid.width()
    }

    /// Number of rows.
    #[getter]
    fn height(&self) -> u32 {
        self.grid.height()
    }
}

impl NativeGrid {
    /// The cell at `(row, col)`, or `ValueError` naming `what` when outside the grid.
    fn cell(&self, rc: RowCol, what: &str) -> PyResult<Cell> {
        cell_on(&self.grid, rc, what)
    }

    /// The cell at `(row, col)`, free, or `ValueError` naming `what`.
    fn free_cell(&self, rc: RowCol, what: &str) -> PyResult<Cell> {
        let cell = self.cell(rc, what)?;
        if self.grid.is_free(cell) {
            Ok(cell)
        } else {
            Err(value_error(format!(
                "{what} ({}, {}) is blocked or out of bounds",
                rc.0, rc.1
            )))
        }
    }

    fn cells(&self, pairs: &[RowCol], what: &str) -> PyResult<Vec<Cell>> {
        pairs.iter().map(|&rc| self.free_cell(rc, what)).collect()
    }
}

/// The cell of `grid` at `(row, col)`, or `ValueError` naming `what` when outside it.
fn cell_on(grid: &Grid, (row, col): RowCol, what: &str) -> PyResult<Cell> {
    let inside = |v: i64, n: u32| (0..i64::from(n)).contains(&v);
    if inside(col, grid.width()) && inside(row, grid.height()) {
        Ok(Cell::new(col as u32, row as u32))
    } else {
        Err(value_error(format!(
            "{what} ({row}, {col}) is out of bounds"
        )))
    }
}

fn row_col(cell: Cell) -> (u32, u32) {
    (cell.y, cell.x)
}

/// The `(n, 2)` integer array `pairs` as `(row, col)` tuples.
fn pairs_of(array: PyReadonlyArray2<'_, i64>) -> PyResult<Vec<RowCol>> {
    let view = array.as_array();
    if view.ncols() != 2 {
        return Err(value_error("cells must have shape (n, 2)"));
    }
    Ok(view.rows().into_iter().map(|r| (r[0], r[1])).collect())
}

/// Exact 4-connected distances from each source: an `int32` array `(n, height, width)`,
/// `-1` where unreachable (blocked cells included).
#[pyfunction]
fn distance_maps<'py>(
    py: Python<'py>,
    grid: &NativeGrid,
    sources: PyReadonlyArray2<'_, i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let sources = grid.cells(&pairs_of(sources)?, "source")?;
    if grid.grid.free_count() > i32::MAX as u64 {
        return Err(value_error("distances on this grid may not fit in int32"));
    }
    let (w, h) = (grid.grid.width() as usize, grid.grid.height() as usize);
    let n = sources.len();
    let data = py
        .detach(|| cuplan::wavefront::distance_maps(&grid.grid, &sources, Backend::Cpu))
        .map_err(value_error)?
        .into_vec();
    let array = PyArray1::from_vec(py, data).reshape([n, h, w])?;
    // Every distance is below 2^31 (checked above) and `UNREACHABLE` has the bits of -1, so
    // an int32 view of the numbers is 0.1's map, without a pass over 4 bytes a cell.
    const _: () = assert!(UNREACHABLE == u32::MAX);
    array.call_method1("view", (numpy::dtype::<i32>(py),))
}

/// Goals per chunk of distance maps in [`batched_paths`]: bounds memory to
/// `CHUNK × cells × 4` bytes however many queries there are.
const PATH_CHUNK: usize = 64;

/// Optimal 4-connected paths, one per `(start, goal)`, as lists of `(row, col)` (`None`
/// where unreachable). Paths descend the goal's distance map trying up, down, left, right
/// in that order, cuplan 0.1's tie order.
#[pyfunction]
fn batched_paths(
    py: Python<'_>,
    grid: &NativeGrid,
    starts: PyReadonlyArray2<'_, i64>,
    goals: PyReadonlyArray2<'_, i64>,
) -> PyResult<Vec<Option<PyPath>>> {
    let (starts, goals) = (pairs_of(starts)?, pairs_of(goals)?);
    if starts.len() != goals.len() {
        return Err(value_error("starts and goals must have the same shape"));
    }
    let goals = grid.cells(&goals, "source")?;
    let starts: Vec<Cell> = starts
        .iter()
        .map(|&rc| grid.cell(rc, "start"))
        .collect::<PyResult<_>>()?;
    let g = &grid.grid;
    let paths = py.detach(|| {
        let mut paths = Vec::with_capacity(starts.len());
        for (starts, goals) in starts.chunks(PATH_CHUNK).zip(goals.chunks(PATH_CHUNK)) {
            let maps = cuplan::wavefront::distance_maps(g, goals, Backend::Cpu)?;
            for (i, &start) in starts.iter().enumerate() {
                let map = maps.map_slice(i).unwrap_or_default();
                paths.push(descend(g, map, start, goals[i]));
            }
        }
        Ok::<_, cuplan::wavefront::WavefrontError>(paths)
    });
    paths.map_err(value_error)
}

/// The path from `start` down `map` (distances to `goal`), up/down/left/right first.
fn descend(grid: &Grid, map: &[u32], start: Cell, goal: Cell) -> Option<PyPath> {
    use cuplan::grid::Direction::{East, North, South, West};
    let at = |c: Cell| map[grid.index(c).get()];
    let mut d = at(start);
    if d == UNREACHABLE {
        return None;
    }
    let mut cell = start;
    let mut path = vec![row_col(cell)];
    while cell != goal {
        cell = [North, South, West, East]
            .into_iter()
            .filter_map(|dir| cell.step(dir))
            .find(|&n| grid.contains(n) && at(n) == d - 1)?;
        d -= 1;
        path.push(row_col(cell));
    }
    Some(path)
}

/// Vertex and edge reservations over times `0..=horizon` (cuplan-reservations' table).
#[pyclass(name = "ReservationTable", module = "cuplan._core")]
#[derive(Debug)]
pub struct NativeReservations {
    grid: Arc<Grid>,
    table: ReservationTable,
}

#[pymethods]
impl NativeReservations {
    /// An empty table for `grid` over times `0..=horizon`.
    #[new]
    fn new(grid: &NativeGrid, horizon: u32) -> PyResult<NativeReservations> {
        let table = ReservationTable::new(&grid.grid, horizon).map_err(value_error)?;
        Ok(NativeReservations {
            grid: grid.grid.clone(),
            table,
        })
    }

    /// The last time covered.
    #[getter]
    fn horizon(&self) -> u32 {
        self.table.horizon()
    }

    /// Reserves `path` (`path[t]` at time `t`) and parks it on its last cell; refuses
    /// (`ValueError`) a path that is too long, not made of unit steps, or in conflict.
    fn reserve_path(&mut self, path: &Bound<'_, PyAny>) -> PyResult<()> {
        let pairs: Vec<[i64; 2]> = path
            .extract()
            .map_err(|_| value_error("a path is a sequence of (row, col) pairs"))?;
        let cells = pairs
            .iter()
            .map(|&[row, col]| self.cell((row, col), "path cell"))
            .collect::<PyResult<Vec<_>>>()?;
        self.table.reserve_path(&cells).map_err(value_error)
    }

    /// Occupies `cell` at time `t`.
    fn block_vertex(&mut self, cell: RowCol, t: u32) -> PyResult<()> {
        let cell = self.cell(cell, "cell")?;
        self.table.block_vertex(cell, t).map_err(value_error)
    }

    /// Forbids the move `u → v` arriving at time `t`.
    fn block_edge(&mut self, u: RowCol, v: RowCol, t: u32) -> PyResult<()> {
        let (u, v) = (self.cell(u, "cell")?, self.cell(v, "cell")?);
        self.table.block_edge(u, v, t).map_err(value_error)
    }

    /// The last time `cell` is occupied (the horizon when an agent parks there), `-1` if never.
    fn last_vertex_time(&self, cell: RowCol) -> PyResult<i64> {
        let cell = self.cell(cell, "cell")?;
        Ok(self.table.last_vertex_time(cell).map_or(-1, i64::from))
    }

    /// A snapshot of the vertex reservations: `uint8` `(horizon + 1, cells)`.
    fn vertex_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let data = self.dense(|cell, t| u8::from(self.table.is_vertex_reserved(cell, t)));
        self.shaped(py, data)
    }

    /// A snapshot of `arrived_from[t, v]`: the linear index an agent moved into `v` from at
    /// `t`, `-1` where none did (waits included).
    fn arrived_from_array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let data = self.dense(|cell, t| {
            self.table
                .arrived_from(cell, t)
                // Fits an i32 (0.1 returns int32): `Grid::from_blocked` keeps to 2^28 cells.
                .map_or(-1, |u| self.grid.index(u).get() as i32)
        });
        self.shaped(py, data)
    }
}

impl NativeReservations {
    fn cell(&self, rc: RowCol, what: &str) -> PyResult<Cell> {
        cell_on(&self.grid, rc, what)
    }

    /// `value(cell, t)` for every time and cell, time-major, cells row-major.
    fn dense<T>(&self, value: impl Fn(Cell, u32) -> T) -> Vec<T> {
        let (w, h) = (self.grid.width(), self.grid.height());
        (0..=self.table.horizon())
            .flat_map(|t| (0..h).flat_map(move |y| (0..w).map(move |x| (Cell::new(x, y), t))))
            .map(|(cell, t)| value(cell, t))
            .collect()
    }

    fn shaped<'py, T: numpy::Element>(
        &self,
        py: Python<'py>,
        data: Vec<T>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shape = [self.table.horizon() as usize + 1, self.grid.cell_count()];
        Ok(PyArray1::from_vec(py, data).reshape(shape)?.into_any())
    }
}

/// A minimal-time path from `start` to `goal` honouring `table` within `horizon`, as
/// `path[t]` = `(row, col)`, or `None` when none settles on the goal by the horizon. Ties go
/// as in cuplan 0.1 (see `TieBreak::MovesFirst`), so its paths are 0.1's cell for cell.
#[pyfunction]
#[pyo3(signature = (grid, start, goal, table, horizon))]
fn space_time_astar(
    py: Python<'_>,
    grid: &NativeGrid,
    start: RowCol,
    goal: RowCol,
    table: Option<PyRef<'_, NativeReservations>>,
    horizon: u32,
) -> PyResult<Option<PyPath>> {
    let start = grid.free_cell(start, "start")?;
    let goal = grid.free_cell(goal, "goal")?;
    let table = table.as_deref().map(|t| &t.table);
    let mut query = SpaceTimeQuery::new(start, goal)
        .with_horizon(horizon)
        .with_backend(Backend::Cpu)
        .with_tie_break(TieBreak::MovesFirst);
    if let Some(table) = table {
        query = query.with_table(table);
    }
    let g = &grid.grid;
    let result = py
        .detach(|| cuplan::wavefront::space_time_astar(g, &query))
        .map_err(value_error)?;
    match result {
        SpaceTimeResult::Found(path) => Ok(Some(path.cells.into_iter().map(row_col).collect())),
        SpaceTimeResult::HorizonExceeded | SpaceTimeResult::Unreachable => Ok(None),
        SpaceTimeResult::TimedOut => Err(PyRuntimeError::new_err("time limit reached")),
    }
}

/// One of the JPS family's engines over an 8-connected map (octile costs, no corner cutting).
#[pyclass(frozen, name = "Planner", module = "cuplan._core")]
#[derive(Debug)]
pub struct NativePlanner {
    planner: Planner,
    grid: Arc<Grid>,
}

#[pymethods]
impl NativePlanner {
    /// `Planner(grid, algorithm)`, `algorithm` one of astar, jps, jps-bit, jps-bitprune,
    /// jps-bitpre, jps-bitprunepre.
    #[new]
    fn new(py: Python<'_>, grid: &NativeGrid, algorithm: &str) -> PyResult<NativePlanner> {
        let algorithm: Algorithm = algorithm.parse().map_err(value_error)?;
        let g = grid.grid.clone();
        let planner = py
            .detach(|| Planner::new(g, algorithm))
            .map_err(value_error)?;
        Ok(NativePlanner {
            planner,
            grid: grid.grid.clone(),
        })
    }

    /// The engine's name.
    #[getter]
    fn algorithm(&self) -> String {
        self.planner.algorithm().to_string()
    }

    /// `(cost, waypoints)` of an optimal path, or `None` when none exists.
    fn search(
        &self,
        py: Python<'_>,
        start: RowCol,
        goal: RowCol,
    ) -> PyResult<Option<(f64, PyPath)>> {
        let start = self.free_cell(start, "start")?;
        let goal = self.free_cell(goal, "goal")?;
        let found = py
            .detach(|| cuplan::jps::with_thread_searcher(|s| self.planner.search(s, start, goal)))
            .map_err(value_error)?;
        Ok(found.map(|p| {
            let waypoints = p.waypoints.into_iter().map(row_col).collect();
            (p.cost.to_f64(), waypoints)
        }))
    }

    /// Costs of many queries in parallel: `float64` `(n,)`, `inf` where no path exists.
    fn find_costs<'py>(
        &self,
        py: Python<'py>,
        starts: PyReadonlyArray2<'_, i64>,
        goals: PyReadonlyArray2<'_, i64>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let queries = self.queries(starts, goals)?;
        let results = py.detach(|| cuplan::jps::find_paths(&self.planner, &queries));
        let costs = results
            .into_iter()
            .map(|r| r.map(|p| p.map_or(f64::INFINITY, |p| p.cost.to_f64())))
            .collect::<Result<Vec<f64>, _>>()
            .map_err(value_error)?;
        Ok(PyArray1::from_vec(py, costs))
    }

    /// Waypoints of many queries in parallel: per query an `int32` `(k, 2)` array of
    /// `(row, col)` turning points, or `None`.
    fn find_waypoints<'py>(
        &self,
        py: Python<'py>,
        starts: PyReadonlyArray2<'_, i64>,
        goals: PyReadonlyArray2<'_, i64>,
    ) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
        let queries = self.queries(starts, goals)?;
        let results = py.detach(|| cuplan::jps::find_paths(&self.planner, &queries));
        results
            .into_iter()
            .map(|r| {
                let path = r.map_err(value_error)?;
                path.map(|p| {
                    let k = p.waypoints.len();
                    let flat: Vec<i32> = p
                        .waypoints
                        .iter()
                        .flat_map(|c| [c.y as i32, c.x as i32])
                        .collect();
                    Ok(PyArray1::from_vec(py, flat).reshape([k, 2])?.into_any())
                })
                .transpose()
            })
            .collect()
    }
}

impl NativePlanner {
    fn free_cell(&self, rc: RowCol, what: &str) -> PyResult<Cell> {
        NativeGrid {
            grid: self.grid.clone(),
        }
        .free_cell(rc, what)
    }

    fn queries(
        &self,
        starts: PyReadonlyArray2<'_, i64>,
        goals: PyReadonlyArray2<'_, i64>,
    ) -> PyResult<Vec<(Cell, Cell)>> {
        let (starts, goals) = (pairs_of(starts)?, pairs_of(goals)?);
        if starts.len() != goals.len() {
            return Err(value_error("starts and goals must have the same shape"));
        }
        starts
            .into_iter()
            .zip(goals)
            .map(|(s, g)| Ok((self.free_cell(s, "start")?, self.free_cell(g, "goal")?)))
            .collect()
    }
}

/// Solves a MAPF instance with `solver` (`"pp"`, `"cbs"`, `"eecbs"`, `"lacam"`): the paths
/// (lists of `(row, col)`, one per agent), or `None` when proven unsolvable (or, for PP, when
/// the planner fails). A time or memory limit reached is a `RuntimeError` naming it;
/// `suboptimality` is EECBS's factor (a `ValueError` unless 1 to 1000).
#[pyfunction]
#[pyo3(signature = (grid, starts, goals, solver, time_limit=60.0, seed=0, first_solution=false, suboptimality=1.2))]
#[allow(clippy::too_many_arguments)]
fn solve_mapf(
    py: Python<'_>,
    grid: &NativeGrid,
    starts: Vec<RowCol>,
    goals: Vec<RowCol>,
    solver: &str,
    time_limit: f64,
    seed: u64,
    first_solution: bool,
    suboptimality: f64,
) -> PyResult<Option<Vec<PyPath>>> {
    let solver: Solver = solver.parse().map_err(value_error)?;
    if time_limit.is_nan() || time_limit <= 0.0 {
        return Err(value_error(format!(
            "time_limit must be positive, got {time_limit}"
        )));
    }
    let starts = grid.cells(&starts, "start")?;
    let goals = grid.cells(&goals, "goal")?;
    let instance = Instance::new(grid.grid.clone(), starts, goals).map_err(value_error)?;
    let config = SolverConfig::default()
        .with_time_limit(Duration::try_from_secs_f64(time_limit).unwrap_or(Duration::MAX))
        .with_seed(seed)
        .with_first_solution(first_solution)
        .with_suboptimality(suboptimality);
    let outcome = py
        .detach(|| cuplan::mapf::solve(&instance, solver, &config))
        .map_err(value_error)?;
    match outcome {
        SolveOutcome::Solved(solution) => Ok(Some(
            solution
                .paths
                .into_iter()
                .map(|p| p.into_iter().map(row_col).collect())
                .collect(),
        )),
        SolveOutcome::NoSolution(_) => Ok(None),
        SolveOutcome::LimitReached(limit) => {
            Err(PyRuntimeError::new_err(format!("limit reached: {limit}")))
        }
    }
}

/// Reads a Moving AI `.map` file: a `bool` `(height, width)` array, `True` = blocked.
#[pyfunction]
fn load_map<'py>(py: Python<'py>, path: std::path::PathBuf) -> PyResult<Bound<'py, PyAny>> {
    let grid = py
        .detach(|| Grid::read_movingai(&path))
        .map_err(value_error)?;
    let (w, h) = (grid.width(), grid.height());
    let blocked: Vec<bool> = (0..h)
        .flat_map(|y| (0..w).map(move |x| Cell::new(x, y)))
        .map(|c| !grid.is_free(c))
        .collect();
    Ok(PyArray1::from_vec(py, blocked)
        .reshape([h as usize, w as usize])?
        .into_any())
}

/// Reads a Moving AI `.scen` file: one `(bucket, map, width, height, start, goal, optimal)`
/// tuple per line, cells as `(row, col)`.
#[pyfunction]
fn load_scen(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Vec<ScenRow>> {
    let scen = py
        .detach(|| cuplan::grid::Scenario::read(&path))
        .map_err(value_error)?;
    Ok(scen
        .entries
        .into_iter()
        .map(|e| {
            (
                e.bucket,
                e.map,
                e.width,
                e.height,
                row_col(e.start),
                row_col(e.goal),
                e.optimal,
            )
        })
        .collect())
}

/// One `.scen` line as [`load_scen`] returns it.
type ScenRow = (u32, String, u32, u32, (u32, u32), (u32, u32), f64);

/// The earliest conflict of a joint plan, in cuplan 0.1's order, as
/// `(kind, i, j, t, cell_i, cell_j)`, or `None`. Paths are padded: an agent stays on its last
/// cell. At each time, vertex conflicts (the lowest cell code first, then the two lowest agent
/// indices on it) come before swaps between `t` and `t + 1` (reported at `t + 1`, the lowest
/// `(i, j)`); then shared final cells.
#[pyfunction]
fn first_conflict(
    py: Python<'_>,
    paths: Vec<Vec<RowCol>>,
) -> PyResult<Option<conflicts::Conflict>> {
    if paths.iter().any(Vec::is_empty) {
        return Err(value_error("every path needs at least one cell"));
    }
    Ok(py.detach(|| conflicts::first(&paths)))
}

mod conflicts {
    //! The conflict scan behind [`super::first_conflict`].

    use std::collections::HashMap;

    use super::RowCol;

    /// A conflict: `(kind, i, j, t, cell_i, cell_j)`.
    pub(super) type Conflict = (&'static str, usize, usize, usize, RowCol, RowCol);

    fn at(path: &[RowCol], t: usize) -> RowCol {
        path[t.min(path.len() - 1)]
    }

    pub(super) fn first(paths: &[Vec<RowCol>]) -> Option<Conflict> {
        if paths.len() < 2 {
            return None;
        }
        let horizon = paths.iter().map(Vec::len).max().unwrap_or(0);
        for t in 0..horizon {
            if let Some(c) = vertex(paths, t) {
                return Some(c);
            }
            if let Some(c) = swap(paths, t) {
                return Some(c);
            }
        }
        vertex(paths, horizon)
    }

    /// Two agents on one cell at `t`: the lowest cell (row-major) shared, its two lowest agents.
    fn vertex(paths: &[Vec<RowCol>], t: usize) -> Option<Conflict> {
        let mut first_on: HashMap<RowCol, usize> = HashMap::with_capacity(paths.len());
        let mut best: Option<(RowCol, usize, usize)> = None;
        for (i, p) in paths.iter().enumerate() {
            let cell = at(p, t);
            match first_on.get(&cell) {
                Some(&j) => {
                    if best.is_none_or(|(c, _, _)| cell < c) {
                        best = Some((cell, j, i));
                    }
                }
                None => {
                    first_on.insert(cell, i);
                }
            }
        }
        best.map(|(cell, i, j)| ("vertex", i, j, t, cell, cell))
    }

    /// Two agents swapping cells between `t` and `t + 1`: the lowest `(i, j)`.
    fn swap(paths: &[Vec<RowCol>], t: usize) -> Option<Conflict> {
        let mut moving: HashMap<(RowCol, RowCol), usize> = HashMap::new();
        for (i, p) in paths.iter().enumerate() {
            let (a, b) = (at(p, t), at(p, t + 1));
            if a != b {
                moving.insert((a, b), i);
            }
        }
        paths
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let (a, b) = (at(p, t), at(p, t + 1));
                let j = *moving.get(&(b, a))?;
                (a != b && i < j).then_some((i, j))
            })
            .min()
            .map(|(i, j)| {
                let t1 = t + 1;
                ("edge", i, j, t1, at(&paths[i], t1), at(&paths[j], t1))
            })
    }
}

/// The native module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeGrid>()?;
    m.add_class::<NativeReservations>()?;
    m.add_class::<NativePlanner>()?;
    m.add_function(wrap_pyfunction!(distance_maps, m)?)?;
    m.add_function(wrap_pyfunction!(batched_paths, m)?)?;
    m.add_function(wrap_pyfunction!(space_time_astar, m)?)?;
    m.add_function(wrap_pyfunction!(solve_mapf, m)?)?;
    m.add_function(wrap_pyfunction!(load_map, m)?)?;
    m.add_function(wrap_pyfunction!(load_scen, m)?)?;
    m.add_function(wrap_pyfunction!(first_conflict, m)?)?;
    Ok(())
}

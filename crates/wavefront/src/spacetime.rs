//! Space-time search: minimal-time paths among reservations, as one masked bit-plane
//! dilation per timestep.
//!
//! States are `(cell, t)`; each step moves to a 4-neighbour or waits. The set `R_t` of states
//! reachable at time `t` is a bit plane in the grid's row layout, and
//! `R_{t+1} = (R_t ∪ ⋃_m shift_m(R_t ∖ forbid_m[t+1])) ∩ free ∖ occupied[t+1]`, all word
//! shifts over whole rows (64 cells per instruction). Because every move costs one
//! timestep, the first `t >= earliest settle time` with the goal in `R_t` is the optimal
//! arrival; the path is recovered backwards through the stored planes. Runs are bounded by
//! an arrival bound that grows from the lower bound (iterative deepening), so each timestep
//! only dilates the rows next to reachable rows, masked to the Manhattan band that can still
//! make the bound.

use std::time::Instant;

use cuplan_grid::{Cell, CellPath, Endpoint, Grid};
use cuplan_reservations::{Constraints, Layer, ReservationTable, default_horizon, plane_bit};

use crate::backend::Resolved;
use crate::{Backend, DistanceMaps, UNREACHABLE, WavefrontError};

/// Default cap on the bytes of stored reachable sets in one search (2 GiB).
pub const DEFAULT_MAX_SEARCH_BYTES: u128 = 2 << 30;

/// Outcome of a space-time search that had valid input.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SpaceTimeResult {
    /// A minimal-time path.
    Found(CellPath),
    /// No path settles on the goal within the horizon (a longer horizon might find one).
    HorizonExceeded,
    /// No path at any horizon: the goal is not connected to the start, the start is
    /// occupied at time 0, the goal is taken forever by a parked agent, or every state
    /// died out under the reservations.
    Unreachable,
    /// The deadline passed before the search finished.
    TimedOut,
}

impl SpaceTimeResult {
    /// The path, if one was found.
    pub fn path(&self) -> Option<&CellPath> {
        match self {
            SpaceTimeResult::Found(p) => Some(p),
            _ => None,
        }
    }

    /// Consumes the result into its path, if one was found.
    pub fn into_path(self) -> Option<CellPath> {
        match self {
            SpaceTimeResult::Found(p) => Some(p),
            _ => None,
        }
    }
}

/// Which of several minimal-time paths a search returns: the order in which the walk back from
/// the goal tries a state's predecessors (every order gives a minimal-arrival path).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum TieBreak {
    /// Wait first, then the cell to the north, east, south, west (the CUDA backend's order).
    #[default]
    WaitFirst,
    /// The Python `cuplan` 0.1 order: entered from the south, north, east, west neighbour,
    /// then by waiting, so paths equal 0.1's `space_time_astar` cell for cell.
    MovesFirst,
}

impl TieBreak {
    /// Candidate predecessors of `cell`, in this order (`None` off the grid's edge).
    fn predecessors(self, cell: Cell) -> [Option<Cell>; 5] {
        use cuplan_grid::Direction::{East, North, South, West};
        let next = |d| cell.step(d);
        match self {
            TieBreak::WaitFirst => [Some(cell), next(North), next(East), next(South), next(West)],
            TieBreak::MovesFirst => [next(South), next(North), next(East), next(West), Some(cell)],
        }
    }
}

/// A goal's exact distance map used to prune states that cannot reach the goal in time.
#[derive(Debug, Clone, Copy)]
pub struct Heuristic<'a> {
    /// The maps (built for the same grid).
    pub maps: &'a DistanceMaps,
    /// Which map: its goal must be the query's goal.
    pub index: usize,
}

/// Everything a space-time search takes besides the grid; build with [`SpaceTimeQuery::new`]
/// and the `with_*` methods (new options may be added, with defaults that keep today's
/// behaviour).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct SpaceTimeQuery<'a> {
    /// Cell at time 0.
    pub start: Cell,
    /// Cell to settle on.
    pub goal: Cell,
    /// Other agents' reservations.
    pub table: Option<&'a ReservationTable>,
    /// This agent's own constraints (CBS).
    pub constraints: Option<&'a Constraints>,
    /// Last time considered; default: the table's horizon, else [`default_horizon`].
    pub horizon: Option<u32>,
    /// Prune states `(v, t)` with `t + dist(v) > horizon`.
    pub heuristic: Option<Heuristic<'a>>,
    /// Give up with [`SpaceTimeResult::TimedOut`] after this instant.
    pub deadline: Option<Instant>,
    /// Do not arrive before this time (the path waits or wanders instead).
    pub min_arrival: u32,
    /// Engine.
    pub backend: Backend,
    /// Refuse to store more than this many bytes of reachable sets.
    pub max_bytes: u128,
    /// Which minimal-time path to return.
    pub tie_break: TieBreak,
}

impl<'a> SpaceTimeQuery<'a> {
    /// A query from `start` to `goal` with no reservations, default horizon, CPU/auto backend.
    pub fn new(start: Cell, goal: Cell) -> SpaceTimeQuery<'a> {
        SpaceTimeQuery {
            start,
            goal,
            table: None,
            constraints: None,
            horizon: None,
            heuristic: None,
            deadline: None,
            min_arrival: 0,
            backend: Backend::Auto,
            max_bytes: DEFAULT_MAX_SEARCH_BYTES,
            tie_break: TieBreak::WaitFirst,
        }
    }

    /// Honour a reservation table.
    pub fn with_table(mut self, table: &'a ReservationTable) -> Self {
        self.table = Some(table);
        self
    }

    /// Honour a constraint set.
    pub fn with_constraints(mut self, constraints: &'a Constraints) -> Self {
        self.constraints = Some(constraints);
        self
    }

    /// Search times `0..=horizon`.
    pub fn with_horizon(mut self, horizon: u32) -> Self {
        self.horizon = Some(horizon);
        self
    }

    /// Prune with map `index` of `maps` (whose goal must be this query's goal).
    pub fn with_heuristic(mut self, maps: &'a DistanceMaps, index: usize) -> Self {
        self.heuristic = Some(Heuristic { maps, index });
        self
    }

    /// Stop at `deadline`.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Arrive no earlier than `t`.
    pub fn with_min_arrival(mut self, t: u32) -> Self {
        self.min_arrival = t;
        self
    }

    /// Run on `backend`.
    pub fn with_backend(mut self, backend: Backend) -> Self {
        self.backend = backend;
        self
    }

    /// Store at most `max_bytes` of reachable sets.
    pub fn with_max_bytes(mut self, max_bytes: u128) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// Return the minimal-time path this order prefers.
    pub fn with_tie_break(mut self, tie_break: TieBreak) -> Self {
        self.tie_break = tie_break;
        self
    }
}

/// A minimal-time path from `query.start` to `query.goal` honouring the query's reservation
/// table and constraints within its horizon (default: the table's, else [`default_horizon`]):
/// the space-time search of prioritized planning and CBS. Waiting is legal; the agent settles
/// on the goal only after the last vertex reservation or constraint touching it.
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_reservations::ReservationTable;
/// use cuplan_wavefront::{Backend, SpaceTimeQuery, SpaceTimeResult, space_time_astar};
///
/// let grid = Grid::from_ascii("...\n.@.\n...")?;
/// let mut table = ReservationTable::new(&grid, 20)?;
/// // Another agent crosses (1, 0) at time 1.
/// table.reserve_path(&[Cell::new(2, 0), Cell::new(1, 0), Cell::new(1, 0)])?;
/// let query = SpaceTimeQuery::new(Cell::new(0, 0), Cell::new(2, 2))
///     .with_table(&table)
///     .with_backend(Backend::Cpu);
/// let result = space_time_astar(&grid, &query)?;
/// let SpaceTimeResult::Found(path) = result else { panic!("{result:?}") };
/// assert_eq!(path.arrival(), 4);
/// assert!(!path.cells.contains(&Cell::new(1, 0)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Complete within the horizon: `Found` holds a minimal-arrival path; `HorizonExceeded`
/// means none settles by the horizon; `Unreachable` means none exists at any horizon;
/// `TimedOut` means the deadline passed (checked every 8 timesteps).
///
/// The search runs as iterative deepening on the arrival bound `b`, from the lower bound
/// (settle time, Manhattan distance, the heuristic's exact distance) up to the horizon,
/// doubling the slack: each run dilates only states with `t + |v − goal| ≤ b`, so a path
/// close to the lower bound costs a corridor, not the whole grid. With a heuristic map the
/// final (full-horizon) run also drops states whose exact distance cannot reach the goal by
/// the horizon. None of this changes the answer within the horizon; `HorizonExceeded` may be
/// returned where a bounded-away proof of `Unreachable` was not completed.
///
/// Errors: start or goal out of range or blocked, a table of another grid size, a horizon
/// beyond the table's, a heuristic map of another goal or size, an unavailable backend, or
/// the stored reachable sets exceeding `max_bytes`.
pub fn space_time_astar(
    grid: &Grid,
    query: &SpaceTimeQuery<'_>,
) -> Result<SpaceTimeResult, WavefrontError> {
    let horizon = validate(grid, query)?;
    // cuda hook (cuplan-wavefront-gpu, see cuda.rs): `Backend::Cuda` searches on the GPU.
    #[cfg(feature = "cuda")]
    if let Some(result) = crate::cuda::space_time(grid, query, horizon)? {
        return Ok(result);
    }
    // end cuda hook
    let Resolved::Cpu = query.backend.resolve()?;
    let (start, goal) = (query.start, query.goal);
    let table = query.table;
    let constraints = query.constraints;
    let vertex_taken = |cell: Cell, t: u32| {
        table.is_some_and(|tb| tb.is_vertex_reserved(cell, t))
            || constraints.is_some_and(|c| c.is_vertex_forbidden(cell, t))
    };
    if !grid.connected(start, goal)
        || table.is_some_and(|tb| tb.parked_since(goal).is_some())
        || vertex_taken(start, 0)
    {
        return Ok(SpaceTimeResult::Unreachable);
    }
    let settle = [
        table.and_then(|tb| tb.last_vertex_time(goal)),
        constraints.and_then(|c| c.last_vertex_time(goal)),
    ]
    .into_iter()
    .flatten()
    .map(|t| t.saturating_add(1))
    .max()
    .unwrap_or(0)
    .max(query.min_arrival)
    .max(start.manhattan(goal));
    let from_start = query
        .heuristic
        .and_then(|h| h.maps.map_slice(h.index))
        .map_or(0, |map| map[grid.index(start).get()]);
    let lower_bound = settle.max(from_start);
    if lower_bound > horizon {
        return Ok(SpaceTimeResult::HorizonExceeded);
    }
    // Iterative deepening on the arrival bound: a run with bound `b` drops every state
    // `(v, t)` with `t + h(v) > b`, so when the answer is close to the lower bound only a
    // corridor around the shortest paths is dilated. A run that finds a path has found the
    // optimum (every earlier arrival is within its bound); a run that proves "no path" without
    // having dropped anything is a proof at every horizon.
    let mut bound = lower_bound;
    loop {
        let mut search = Wavefront::new(grid, query, bound, bound == horizon)?;
        match search.run(settle)? {
            SpaceTimeResult::HorizonExceeded if bound < horizon => {
                let slack = (bound - lower_bound).max(2) * 2;
                bound = bound.saturating_add(slack).min(horizon);
            }
            result => return Ok(result),
        }
    }
}

/// Checks the query against the grid; returns the horizon in force.
fn validate(grid: &Grid, query: &SpaceTimeQuery<'_>) -> Result<u32, WavefrontError> {
    let bad = |endpoint| move |source| WavefrontError::InvalidEndpoint { endpoint, source };
    grid.check_free(query.start).map_err(bad(Endpoint::Start))?;
    grid.check_free(query.goal).map_err(bad(Endpoint::Goal))?;
    let mut horizon = query.horizon.unwrap_or_else(|| default_horizon(grid));
    if let Some(table) = query.table {
        let (tw, th) = table.dims();
        if (tw, th) != (grid.width(), grid.height()) {
            return Err(WavefrontError::TableSizeMismatch {
                table_width: tw,
                table_height: th,
                width: grid.width(),
                height: grid.height(),
            });
        }
        match query.horizon {
            None => horizon = table.horizon(),
            Some(h) if h > table.horizon() => {
                return Err(WavefrontError::HorizonBeyondTable {
                    horizon: h,
                    table: table.horizon(),
                });
            }
            Some(_) => {}
        }
    }
    if let Some(h) = query.heuristic {
        let reason = if h.index >= h.maps.len() {
            Some(format!("map {} of {}", h.index, h.maps.len()))
        } else if h.maps.goals()[h.index] != query.goal {
            Some(format!(
                "map {} is for goal {}, not {}",
                h.index,
                h.maps.goals()[h.index],
                query.goal
            ))
        } else if h.maps.dims() != (grid.height() as usize, grid.width() as usize) {
            Some("maps were built for a grid of another size".to_string())
        } else {
            None
        };
        if let Some(reason) = reason {
            return Err(WavefrontError::BadHeuristic { reason });
        }
    }
    Ok(horizon)
}

/// The state of one search: stored reachable planes and the masks that change over time.
struct Wavefront<'q> {
    grid: &'q Grid,
    query: &'q SpaceTimeQuery<'q>,
    /// The arrival bound of this run (at most the search horizon).
    horizon: u32,
    height: usize,
    stride: usize,
    /// `R_0, R_1, ...`, each `height × stride` words.
    planes: Vec<u64>,
    /// Cells taken by parked agents up to the current time.
    parked_now: Vec<u64>,
    /// Parked agents sorted by the time they park.
    parked: Vec<(u32, Cell)>,
    next_parked: usize,
    zeros: Vec<u64>,
    pruning: Option<Pruning>,
    /// Time after which nothing but pruning changes the masks.
    quiet_after: u32,
    /// First and last non-empty row of the newest plane.
    active_rows: (usize, usize),
    /// Scratch: the allowed bits of the row being dilated.
    band: Vec<u64>,
    /// Whether the bound dropped any state: then "no path" is only "none within the bound".
    pruned_any: bool,
}

/// Heuristic pruning: `allowed` holds the cells with `dist <= horizon - t`; cells leave it
/// in order of decreasing distance as `t` grows.
struct Pruning {
    allowed: Vec<u64>,
    /// Cells by decreasing distance (only those with a distance `<= horizon`).
    order: Vec<(u32, Cell)>,
    next: usize,
}

impl<'q> Wavefront<'q> {
    fn new(
        grid: &'q Grid,
        query: &'q SpaceTimeQuery<'q>,
        horizon: u32,
        final_run: bool,
    ) -> Result<Wavefront<'q>, WavefrontError> {
        let height = grid.height() as usize;
        let stride = grid.rows().stride();
        let words = height * stride;
        let mut parked: Vec<(u32, Cell)> = query
            .table
            .map(|t| t.parked().iter().map(|&(c, s)| (s, c)).collect())
            .unwrap_or_default();
        parked.sort_unstable();
        let quiet_after = [
            query.table.and_then(ReservationTable::latest_time),
            query.constraints.and_then(Constraints::latest_time),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
        // Per-cell pruning by the distance map costs O(cells) to set up, more than a narrow
        // bounded run; those runs prune by the Manhattan band and profit from the map through
        // the exact lower bound, the final (full-horizon) run prunes by the map too.
        let pruning = query
            .heuristic
            .filter(|_| final_run)
            .map(|h| Pruning::new(h, grid, stride, horizon));
        let mut search = Wavefront {
            grid,
            query,
            horizon,
            height,
            stride,
            planes: Vec::new(),
            parked_now: vec![0; words],
            parked,
            next_parked: 0,
            zeros: vec![0; words],
            pruning,
            quiet_after,
            active_rows: (query.start.y as usize, query.start.y as usize),
            band: vec![0; stride],
            pruned_any: false,
        };
        search.reserve_plane()?;
        search.planes.resize(words, 0);
        search.advance_parked(0);
        let (w, bit) = plane_bit(stride, query.start);
        search.planes[w] = bit;
        Ok(search)
    }

    fn plane_words(&self) -> usize {
        self.height * self.stride
    }

    fn plane(&self, t: u32) -> &[u64] {
        let n = self.plane_words();
        &self.planes[t as usize * n..(t as usize + 1) * n]
    }

    fn reserve_plane(&mut self) -> Result<(), WavefrontError> {
        let bytes = (self.planes.len() + self.plane_words()) as u128 * 8;
        if bytes > self.query.max_bytes {
            return Err(WavefrontError::TooLarge {
                what: "space-time reachable sets",
                bytes,
                limit: self.query.max_bytes,
            });
        }
        self.planes.reserve(self.plane_words());
        Ok(())
    }

    /// Adds parked agents whose parking starts by `t` to `parked_now`.
    fn advance_parked(&mut self, t: u32) {
        while let Some(&(since, cell)) = self.parked.get(self.next_parked) {
            if since > t {
                break;
            }
            let (w, bit) = plane_bit(self.stride, cell);
            self.parked_now[w] |= bit;
            self.next_parked += 1;
        }
    }

    fn run(&mut self, settle: u32) -> Result<SpaceTimeResult, WavefrontError> {
        let goal = self.query.goal;
        let (gw, gbit) = plane_bit(self.stride, goal);
        let mut t = 0u32;
        loop {
            if t >= settle && self.plane(t)[gw] & gbit != 0 {
                return self.recover(t).map(SpaceTimeResult::Found);
            }
            if t >= self.horizon {
                return Ok(SpaceTimeResult::HorizonExceeded);
            }
            if t.is_multiple_of(8) && self.query.deadline.is_some_and(|d| Instant::now() >= d) {
                return Ok(SpaceTimeResult::TimedOut);
            }
            self.reserve_plane()?;
            let alive = self.step(t + 1);
            t += 1;
            let settled = t > self.quiet_after && t > settle && self.plane(t) == self.plane(t - 1);
            if !alive || settled {
                // Nothing changes any more (or nothing is left): the goal never appears.
                return Ok(if self.pruned_any {
                    SpaceTimeResult::HorizonExceeded
                } else {
                    SpaceTimeResult::Unreachable
                });
            }
        }
    }

    /// Appends `R_t` computed from `R_{t-1}`; returns whether it is non-empty.
    fn step(&mut self, t: u32) -> bool {
        self.advance_parked(t);
        if let Some(p) = self.pruning.as_mut() {
            p.advance(self.horizon, t, self.stride);
        }
        let n = self.plane_words();
        let stride = self.stride;
        let prev_start = (t as usize - 1) * n;
        self.planes.resize(prev_start + 2 * n, 0);
        let (before, next) = self.planes.split_at_mut(prev_start + n);
        let prev = &before[prev_start..];
        let layer = self.query.table.and_then(|tb| tb.layer(t));
        let zeros = &self.zeros[..];
        let Layer { vertex, forbid } = layer.unwrap_or(Layer {
            vertex: zeros,
            forbid: [zeros; 4],
        });
        let [f_north, f_east, f_south, f_west] = forbid;
        let free = self.grid.rows().words();
        let allowed = self.pruning.as_ref().map(|p| &p.allowed[..]);
        let mut any = 0u64;
        let mut pruned = 0u64;
        // Only rows next to a reachable row can become reachable.
        let (lo, hi) = self.active_rows;
        let (lo, hi) = (lo.saturating_sub(1), (hi + 1).min(self.height - 1));
        let mut new_rows = (usize::MAX, 0);
        // Rows farther from the goal than the time left are dropped whole (Manhattan bound).
        let goal = self.query.goal;
        let left = i64::from(self.horizon) - i64::from(t);
        let gy = i64::from(goal.y);
        let (y_lo, y_hi) = ((gy - left).max(0), gy + left);
        if (lo as i64) < y_lo || (hi as i64) > y_hi {
            pruned |= 1;
        }
        let (lo, hi) = (lo.max(y_lo.max(0) as usize), (hi as i64).min(y_hi));
        let end = if hi < lo as i64 { lo } else { hi as usize + 1 };
        for y in lo..end {
            let r = y * stride;
            let row = r..r + stride;
            let reach = left - (y as i64 - gy).abs();
            interval_row(
                &mut self.band,
                i64::from(goal.x) - reach,
                i64::from(goal.x) + reach,
            );
            if let Some(allowed) = allowed {
                for (b, &a) in self.band.iter_mut().zip(&allowed[row.clone()]) {
                    *b &= a;
                }
            }
            let masks = RowMasks {
                // Stored row y + 1 of the grid plane is grid row y.
                blocked: &free[r + stride..r + 2 * stride],
                vertex: &vertex[row.clone()],
                parked: &self.parked_now[row.clone()],
                allowed: Some(&self.band),
            };
            let from_above = (y > 0).then(|| (&prev[r - stride..r], &f_south[r - stride..r]));
            let from_below = (y + 1 < self.height).then(|| {
                (
                    &prev[r + stride..r + 2 * stride],
                    &f_north[r + stride..r + 2 * stride],
                )
            });
            let (row_any, row_pruned) = dilate_row(
                &mut next[row.clone()],
                &prev[row.clone()],
                (&f_east[row.clone()], &f_west[row]),
                from_above,
                from_below,
                &masks,
            );
            if row_any != 0 {
                new_rows = (new_rows.0.min(y), y);
            }
            any |= row_any;
            pruned |= row_pruned;
        }
        self.active_rows = new_rows;
        self.pruned_any |= pruned != 0;
        if let Some(c) = self.query.constraints.and_then(|c| c.at(t)) {
            self.apply_constraints(t, &c.vertices, &c.edges);
            any = self.plane(t).iter().fold(0, |a, &w| a | w);
        }
        any != 0
    }

    /// Removes the states of `R_t` that a vertex constraint forbids, and those only reached
    /// through a constrained edge.
    fn apply_constraints(&mut self, t: u32, vertices: &[Cell], edges: &[(Cell, Cell)]) {
        let n = self.plane_words();
        let base = t as usize * n;
        for &cell in vertices {
            if self.grid.contains(cell) {
                let (w, bit) = plane_bit(self.stride, cell);
                self.planes[base + w] &= !bit;
            }
        }
        for &(_, to) in edges {
            if !self.grid.contains(to) {
                continue;
            }
            let (w, bit) = plane_bit(self.stride, to);
            if self.planes[base + w] & bit != 0 && self.predecessor(to, t).is_none() {
                self.planes[base + w] &= !bit;
            }
        }
    }

    fn contains(&self, t: u32, cell: Cell) -> bool {
        let (w, bit) = plane_bit(self.stride, cell);
        self.plane(t)[w] & bit != 0
    }

    /// Whether the move `from → to` arriving at `t` is allowed by edge reservations and
    /// constraints (waits always are).
    fn move_allowed(&self, from: Cell, to: Cell, t: u32) -> bool {
        from == to
            || !(self
                .query
                .table
                .is_some_and(|tb| tb.is_edge_reserved(from, to, t))
                || self
                    .query
                    .constraints
                    .is_some_and(|c| c.is_edge_forbidden(from, to, t)))
    }

    /// A state of `R_{t-1}` from which `cell` at `t` is legally entered.
    fn predecessor(&self, cell: Cell, t: u32) -> Option<Cell> {
        self.query
            .tie_break
            .predecessors(cell)
            .into_iter()
            .flatten()
            .filter(|&u| self.grid.contains(u))
            .find(|&u| self.contains(t - 1, u) && self.move_allowed(u, cell, t))
    }

    /// Walks back from the goal at `arrival` through the stored planes.
    fn recover(&self, arrival: u32) -> Result<CellPath, WavefrontError> {
        let mut cells = Vec::with_capacity(arrival as usize + 1);
        let mut cur = self.query.goal;
        cells.push(cur);
        for t in (1..=arrival).rev() {
            cur = self
                .predecessor(cur, t)
                .ok_or_else(|| WavefrontError::Internal {
                    reason: format!("no predecessor of {cur} at time {t}"),
                })?;
            cells.push(cur);
        }
        cells.reverse();
        Ok(CellPath::new(cells))
    }
}

/// Sets `band` to the bits of grid columns `lo..=hi` (clipped to the row) in the stored
/// layout (column `x` is bit `x + 1`).
fn interval_row(band: &mut [u64], lo: i64, hi: i64) {
    let (lo, hi) = (lo.max(0) + 1, hi + 1);
    for (w, word) in band.iter_mut().enumerate() {
        let (first, last) = (64 * w as i64, 64 * w as i64 + 63);
        let (a, b) = (lo.max(first), hi.min(last));
        *word = if a > b {
            0
        } else {
            let len = (b - a + 1) as u32;
            let ones = if len == 64 {
                u64::MAX
            } else {
                (1u64 << len) - 1
            };
            ones << (a - first)
        };
    }
}

/// The masks of one output row.
struct RowMasks<'a> {
    /// The grid's blocked bits (1 = blocked, border included).
    blocked: &'a [u64],
    vertex: &'a [u64],
    parked: &'a [u64],
    allowed: Option<&'a [u64]>,
}

/// One row of the masked dilation: `out = (wait ∪ east ∪ west ∪ south ∪ north moves) ∖
/// masks`. `sideways` holds the forbidden east and west moves of this row; `from_above` /
/// `from_below` the neighbouring row with its forbidden south / north moves. Returns the
/// union of the row's bits and of the bits the pruning removed.
#[inline]
fn dilate_row(
    out: &mut [u64],
    cur: &[u64],
    (f_east, f_west): (&[u64], &[u64]),
    from_above: Option<(&[u64], &[u64])>,
    from_below: Option<(&[u64], &[u64])>,
    masks: &RowMasks<'_>,
) -> (u64, u64) {
    let n = out.len();
    let (mut any, mut pruned) = (0u64, 0u64);
    let mut east_carry = 0u64;
    for w in 0..n {
        let east = cur[w] & !f_east[w];
        let mut into = cur[w] | (east << 1) | east_carry;
        east_carry = east >> 63;
        into |= (cur[w] & !f_west[w]) >> 1;
        if w + 1 < n {
            into |= (cur[w + 1] & !f_west[w + 1]) << 63;
        }
        if let Some((above, f_south)) = from_above {
            into |= above[w] & !f_south[w];
        }
        if let Some((below, f_north)) = from_below {
            into |= below[w] & !f_north[w];
        }
        let mut bits = into & !masks.blocked[w] & !masks.vertex[w] & !masks.parked[w];
        if let Some(allowed) = masks.allowed {
            pruned |= bits & !allowed[w];
            bits &= allowed[w];
        }
        out[w] = bits;
        any |= bits;
    }
    (any, pruned)
}

impl Pruning {
    fn new(h: Heuristic<'_>, grid: &Grid, stride: usize, horizon: u32) -> Pruning {
        let width = grid.width() as usize;
        let mut allowed = vec![0u64; grid.height() as usize * stride];
        let map = h.maps.map_slice(h.index).unwrap_or(&[]);
        // Counting sort by decreasing distance (a run per search bound must stay O(cells)).
        // Distances above `cap` never pass, and `cap` is at most the largest finite distance.
        let largest = map.iter().filter(|&&d| d != UNREACHABLE).max().copied();
        let cap = largest.unwrap_or(0).min(horizon);
        let mut starts = vec![0usize; cap as usize + 2];
        for &d in map {
            if d <= cap {
                starts[(cap - d) as usize + 1] += 1;
            }
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut order = vec![(0u32, Cell::default()); starts[starts.len() - 1]];
        for (i, &d) in map.iter().enumerate() {
            if d <= cap {
                let cell = Cell::new((i % width) as u32, (i / width) as u32);
                let (w, bit) = plane_bit(stride, cell);
                allowed[w] |= bit;
                let slot = &mut starts[(cap - d) as usize];
                order[*slot] = (d, cell);
                *slot += 1;
            }
        }
        Pruning {
            allowed,
            order,
            next: 0,
        }
    }

    /// Leaves in `allowed` only the cells with `dist <= horizon - t`.
    fn advance(&mut self, horizon: u32, t: u32, stride: usize) {
        let limit = horizon.saturating_sub(t);
        while let Some(&(d, cell)) = self.order.get(self.next) {
            if d <= limit {
                break;
            }
            let (w, bit) = plane_bit(stride, cell);
            self.allowed[w] &= !bit;
            self.next += 1;
        }
    }
}

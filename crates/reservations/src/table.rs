//! `ReservationTable`: dense per-time bit planes of reserved vertices and forbidden moves.

use cuplan_grid::{Cell, CellIndex, Grid};

use crate::ReservationError;
use crate::moves::{Move, plane_bit, plane_stride};

/// Default memory limit of [`ReservationTable::new`]: 1 GiB.
pub const DEFAULT_MAX_BYTES: u128 = 1 << 30;

/// Largest horizon accepted (keeps every time, plus one, inside `u32`).
pub const MAX_HORIZON: u32 = 1 << 24;

/// The generous default horizon for a grid: `4 × (width + height)` timesteps.
pub fn default_horizon(grid: &Grid) -> u32 {
    let side = u64::from(grid.width()) + u64::from(grid.height());
    (4 * side).min(u64::from(MAX_HORIZON)) as u32
}

/// Planes per time layer: vertex occupancy, then one forbidden-move plane per [`Move`].
const PLANES: usize = 5;

/// No time recorded for a cell.
const NONE: u32 = u32::MAX;

/// A read-only view of one time layer, for searches that mask whole rows at once.
///
/// Every plane has `height` rows of [`ReservationTable::stride`] words; bit `x + 1` of row
/// `y` (see [`plane_bit`](crate::plane_bit)) is cell `(x, y)`.
#[derive(Debug, Clone, Copy)]
pub struct Layer<'a> {
    /// Cells occupied at this time (parked agents excluded: see [`ReservationTable::parked`]).
    pub vertex: &'a [u64],
    /// `forbid[m]`: cells from which move `m` arriving at this time is forbidden (an agent
    /// arrived at that cell from the cell the move would enter, or the edge was blocked).
    pub forbid: [&'a [u64]; 4],
}

/// Space-time reservations on a 4-connected grid with waits, over times `0..=horizon`.
///
/// *Layout*: one layer per time, allocated on first use, each `5` dense bit planes over the
/// cells: vertex occupancy, and `forbid[m]` for each move `m` — the bit-plane form of
/// `arrived_from[t, v]`: when an agent arrives at `v` from `u`, the move `v → u` arriving at
/// `t` is forbidden, which rules out every swap. Any number of blocked edges can share a
/// `(t, cell)`. Agents whose path has ended *park* on their last cell forever; parked cells
/// live in one plane plus the time parking starts, so a short path costs no memory up to the
/// horizon. Every query is an O(1) lookup.
///
/// *Invariants*: no two reserved paths occupy one cell at one time or swap along an edge
/// (`reserve_path` refuses instead of overwriting); `bytes()` never exceeds the limit given
/// at construction.
///
/// `Debug` prints the size, horizon and layer count, not the bit planes.
#[derive(Clone)]
pub struct ReservationTable {
    width: u32,
    height: u32,
    stride: usize,
    horizon: u32,
    layers: Vec<Option<Box<[u64]>>>,
    allocated_layers: usize,
    parked: Vec<(Cell, u32)>,
    parked_since: Vec<u32>,
    last_vertex: Vec<u32>,
    latest: Option<u32>,
    max_bytes: u128,
}

impl std::fmt::Debug for ReservationTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReservationTable")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("horizon", &self.horizon)
            .field("layers", &self.layer_count())
            .field("parked", &self.parked.len())
            .field("latest", &self.latest)
            .field("bytes", &self.bytes())
            .finish_non_exhaustive()
    }
}

impl ReservationTable {
    /// An empty table for `grid` over times `0..=horizon`, limited to [`DEFAULT_MAX_BYTES`].
    pub fn new(grid: &Grid, horizon: u32) -> Result<ReservationTable, ReservationError> {
        ReservationTable::with_memory_limit(grid, horizon, DEFAULT_MAX_BYTES)
    }

    /// An empty table that refuses to grow beyond `max_bytes` (checked now for the fixed part
    /// and whenever a time layer is first used).
    pub fn with_memory_limit(
        grid: &Grid,
        horizon: u32,
        max_bytes: u128,
    ) -> Result<ReservationTable, ReservationError> {
        if horizon > MAX_HORIZON {
            return Err(ReservationError::InvalidHorizon {
                horizon,
                reason: format!("at most {MAX_HORIZON} timesteps"),
            });
        }
        let cells = grid.cell_count() as u128;
        let fixed = cells * 8 + (u128::from(horizon) + 1) * 8;
        if fixed > max_bytes {
            return Err(ReservationError::TooLarge {
                bytes: fixed,
                limit: max_bytes,
            });
        }
        Ok(ReservationTable {
            width: grid.width(),
            height: grid.height(),
            stride: plane_stride(grid.width()),
            horizon,
            layers: vec![None; horizon as usize + 1],
            allocated_layers: 0,
            parked: Vec::new(),
            parked_since: vec![NONE; grid.cell_count()],
            last_vertex: vec![NONE; grid.cell_count()],
            latest: None,
            max_bytes,
        })
    }

    /// The last time the table describes.
    pub fn horizon(&self) -> u32 {
        self.horizon
    }

    /// `(width, height)` of the grid the table was built for.
    pub fn dims(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Words per row of every plane (equal to the grid's `rows().stride()`).
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.fixed_bytes() + self.layer_count() * self.layer_bytes()
    }

    fn fixed_bytes(&self) -> usize {
        self.parked_since.len() * 4
            + self.last_vertex.len() * 4
            + self.layers.len() * std::mem::size_of::<Option<Box<[u64]>>>()
            + self.parked.capacity() * std::mem::size_of::<(Cell, u32)>()
    }

    fn layer_bytes(&self) -> usize {
        PLANES * self.plane_words() * 8
    }

    fn plane_words(&self) -> usize {
        self.height as usize * self.stride
    }

    fn layer_count(&self) -> usize {
        self.allocated_layers
    }

    /// Removes every reservation (keeps the horizon and the limit).
    pub fn clear(&mut self) {
        self.layers.iter_mut().for_each(|l| *l = None);
        self.allocated_layers = 0;
        self.parked.clear();
        self.parked_since.fill(NONE);
        self.last_vertex.fill(NONE);
        self.latest = None;
    }

    /// The layer at time `t`, or `None` when nothing time-specific is reserved then.
    pub fn layer(&self, t: u32) -> Option<Layer<'_>> {
        let words = self.layers.get(t as usize)?.as_deref()?;
        let n = self.plane_words();
        Some(Layer {
            vertex: &words[..n],
            forbid: [
                &words[n..2 * n],
                &words[2 * n..3 * n],
                &words[3 * n..4 * n],
                &words[4 * n..5 * n],
            ],
        })
    }

    /// Every parked agent as `(cell, since)`: it occupies `cell` at every time `>= since`,
    /// beyond the horizon too. In reservation order.
    pub fn parked(&self) -> &[(Cell, u32)] {
        &self.parked
    }

    /// The time from which an agent parks on `cell`, if one does.
    pub fn parked_since(&self, cell: Cell) -> Option<u32> {
        let i = self.index(cell)?;
        Some(self.parked_since[i]).filter(|&t| t != NONE)
    }

    /// The last time at which anything time-specific happens: after it, every time looks the
    /// same (only parked agents). `None` for an empty table.
    pub fn latest_time(&self) -> Option<u32> {
        self.latest
    }

    /// Whether `cell` is occupied at time `t` (by a path, a parked agent or a blocked vertex).
    /// Out-of-range cells are never reserved.
    pub fn is_vertex_reserved(&self, cell: Cell, t: u32) -> bool {
        let Some(i) = self.index(cell) else {
            return false;
        };
        if self.parked_since[i] <= t {
            return true;
        }
        self.layer(t).is_some_and(|layer| {
            let (w, bit) = plane_bit(self.stride, cell);
            layer.vertex[w] & bit != 0
        })
    }

    /// Whether the move `from → to` arriving at time `t` is forbidden by an edge reservation
    /// (a swap with a reserved agent, or [`block_edge`](Self::block_edge)). Waits and
    /// non-adjacent pairs are never edge-reserved.
    pub fn is_edge_reserved(&self, from: Cell, to: Cell, t: u32) -> bool {
        let (Some(_), Some(m)) = (self.index(from), Move::between(from, to)) else {
            return false;
        };
        self.layer(t).is_some_and(|layer| {
            let (w, bit) = plane_bit(self.stride, from);
            layer.forbid[m.index()][w] & bit != 0
        })
    }

    /// The cell a reserved agent arrived at `cell` from at time `t` (the `arrived_from[t, v]`
    /// view of the forbidden-move planes), `None` when nobody moved into `cell` then. With
    /// blocked edges several moves may be forbidden; the first in [`Move`] order is named.
    pub fn arrived_from(&self, cell: Cell, t: u32) -> Option<Cell> {
        self.index(cell)?;
        let layer = self.layer(t)?;
        let (w, bit) = plane_bit(self.stride, cell);
        Move::ALL
            .into_iter()
            .find(|m| layer.forbid[m.index()][w] & bit != 0)
            .and_then(|m| cell.step(m.direction()))
    }

    /// The last time `cell` is occupied: the horizon when an agent parks there, else the last
    /// vertex reservation, `None` when never. An agent may only settle on a goal after it.
    pub fn last_vertex_time(&self, cell: Cell) -> Option<u32> {
        let i = self.index(cell)?;
        if self.parked_since[i] != NONE {
            return Some(self.horizon);
        }
        Some(self.last_vertex[i]).filter(|&t| t != NONE)
    }

    /// Marks `cell` occupied at time `t`. Blocking an already reserved vertex is allowed
    /// (a block is not an agent).
    pub fn block_vertex(&mut self, cell: Cell, t: u32) -> Result<(), ReservationError> {
        self.check_cell(cell)?;
        self.check_time(t)?;
        self.set_vertex(cell, t)
    }

    /// Forbids the move `from → to` arriving at time `t` (`from` at `t - 1`, `to` at `t`).
    pub fn block_edge(&mut self, from: Cell, to: Cell, t: u32) -> Result<(), ReservationError> {
        self.check_cell(from)?;
        self.check_cell(to)?;
        self.check_time(t)?;
        match Move::between(from, to) {
            Some(m) => self.set_forbid(from, m, t),
            None => Err(ReservationError::NotAdjacent { from, to }),
        }
    }

    /// Reserves one agent's path: `cells[t]` is its cell at time `t`; afterwards it parks on
    /// the last cell forever. Consecutive cells must be equal (a wait) or 4-adjacent.
    ///
    /// Errors, with the table unchanged: an empty path, more moves than the horizon, a cell
    /// out of range, a non-adjacent step, a cell already occupied at that time (also any
    /// time after arrival at the last cell), a swap with a reserved move or a blocked edge, or
    /// the memory limit.
    pub fn reserve_path(&mut self, cells: &[Cell]) -> Result<(), ReservationError> {
        let Some(&last) = cells.last() else {
            return Err(ReservationError::EmptyPath);
        };
        let moves = cells.len() - 1;
        if moves > self.horizon as usize {
            return Err(ReservationError::PathTooLong {
                moves,
                horizon: self.horizon,
            });
        }
        self.check_path(cells)?;
        let end = moves as u32;
        self.check_layers_fit(cells)?;
        for (t, pair) in cells.windows(2).enumerate() {
            let t = t as u32 + 1;
            self.set_vertex(pair[0], t - 1)?;
            if let Some(m) = Move::between(pair[0], pair[1]) {
                // The agent arrived at pair[1] from pair[0]: forbid the swap pair[1] -> pair[0].
                self.set_forbid(pair[1], m.reverse(), t)?;
            }
        }
        let i = self.index(last).unwrap_or(0);
        self.parked_since[i] = end;
        self.parked.push((last, end));
        self.last_vertex[i] = self.horizon;
        self.latest = Some(self.latest.map_or(end, |l| l.max(end)));
        Ok(())
    }

    /// Checks every step of a path against the grid size and the current reservations.
    fn check_path(&self, cells: &[Cell]) -> Result<(), ReservationError> {
        for &cell in cells {
            self.check_cell(cell)?;
        }
        for (t, &cell) in cells.iter().enumerate() {
            let t = t as u32;
            if self.is_vertex_reserved(cell, t) {
                return Err(ReservationError::VertexConflict { cell, t });
            }
        }
        for (t, pair) in cells.windows(2).enumerate() {
            let (from, to, t) = (pair[0], pair[1], t as u32 + 1);
            if !Move::is_step(from, to) {
                return Err(ReservationError::NotAdjacent { from, to });
            }
            if self.is_edge_reserved(from, to, t) {
                return Err(ReservationError::EdgeConflict { from, to, t });
            }
        }
        // Parked from arrival on: nothing may be reserved on the last cell later.
        let last = cells[cells.len() - 1];
        let arrival = cells.len() as u32 - 1;
        if let Some(i) = self.index(last) {
            let later = match self.parked_since[i] {
                NONE => self.last_vertex[i],
                since => since,
            };
            if later != NONE && later > arrival {
                return Err(ReservationError::VertexConflict {
                    cell: last,
                    t: later,
                });
            }
        }
        Ok(())
    }

    /// Errors when the layers a path needs would take the table over its limit.
    fn check_layers_fit(&self, cells: &[Cell]) -> Result<(), ReservationError> {
        // Vertices use layers 0..end, swaps 1..=end.
        let missing = (0..cells.len())
            .filter(|&t| self.layers[t].is_none())
            .count();
        self.check_growth(missing)
    }

    fn check_growth(&self, new_layers: usize) -> Result<(), ReservationError> {
        let bytes = self.bytes() as u128 + (new_layers * self.layer_bytes()) as u128;
        if new_layers > 0 && bytes > self.max_bytes {
            return Err(ReservationError::TooLarge {
                bytes,
                limit: self.max_bytes,
            });
        }
        Ok(())
    }

    fn layer_mut(&mut self, t: u32) -> Result<&mut [u64], ReservationError> {
        if self.layers[t as usize].is_none() {
            self.check_growth(1)?;
            self.layers[t as usize] = Some(vec![0u64; PLANES * self.plane_words()].into());
            self.allocated_layers += 1;
        }
        self.latest = Some(self.latest.map_or(t, |l| l.max(t)));
        Ok(self.layers[t as usize].as_deref_mut().unwrap_or(&mut []))
    }

    fn set_vertex(&mut self, cell: Cell, t: u32) -> Result<(), ReservationError> {
        let (w, bit) = plane_bit(self.stride, cell);
        self.layer_mut(t)?[w] |= bit;
        if let Some(i) = self.index(cell) {
            let last = &mut self.last_vertex[i];
            if *last == NONE || (*last < t) {
                *last = t;
            }
        }
        Ok(())
    }

    fn set_forbid(&mut self, from: Cell, m: Move, t: u32) -> Result<(), ReservationError> {
        let (w, bit) = plane_bit(self.stride, from);
        let n = self.plane_words();
        self.layer_mut(t)?[(1 + m.index()) * n + w] |= bit;
        Ok(())
    }

    fn index(&self, cell: Cell) -> Option<usize> {
        (cell.x < self.width && cell.y < self.height)
            .then(|| CellIndex::row_major(self.width, cell.x, cell.y))
    }

    fn check_cell(&self, cell: Cell) -> Result<(), ReservationError> {
        self.index(cell)
            .map(|_| ())
            .ok_or(ReservationError::OutOfRange {
                cell,
                width: self.width,
                height: self.height,
            })
    }

    fn check_time(&self, t: u32) -> Result<(), ReservationError> {
        if t > self.horizon {
            return Err(ReservationError::BeyondHorizon {
                t,
                horizon: self.horizon,
            });
        }
        Ok(())
    }
}

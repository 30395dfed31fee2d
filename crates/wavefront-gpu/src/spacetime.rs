//! Single-agent space-time search against a reservation table resident on the device.
//!
//! Model: unit timesteps; each step the agent waits or moves to a 4-neighbour. A *vertex*
//! reservation `(cell, t)` forbids being at `cell` at `t`; an *edge* reservation forbids the
//! swap with an agent that moves `v → u` arriving at `t` while we move `u → v`. A reserved path
//! occupies its last cell from its end to the horizon. The agent has arrived at `T` when it is
//! at the goal at `T` and the goal is not reserved at any later time. A start reserved at time
//! 0 has no path (as in the CPU backend).

use std::collections::{BTreeMap, HashMap, HashSet};

use cudarc::driver::{CudaSlice, LaunchConfig};
use cuplan_grid::{Cell, CellPath, Grid};
use cuplan_reservations::ReservationTable;
use cuplan_wavefront_kernels::launch::{Dims, ReservationUpdate, ReserveLaunch, SpaceTimeLaunch};
use cuplan_wavefront_kernels::word::{DIRECTIONS, EAST, NORTH, SOUTH, WEST};

use crate::device::{addr, addr_mut};
use crate::layout::{dims, free_plane, word_bit};
use crate::{Device, GpuError};

/// Limits of one search beyond the table: a shorter horizon, an earliest arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpaceTimeLimits {
    /// Last timestep searched; `None` or anything past the table's horizon means the table's.
    pub horizon: Option<u32>,
    /// Do not arrive before this time (the agent waits or wanders instead).
    pub min_arrival: u32,
}

/// What a search runs with once its endpoints are checked.
pub(crate) struct Plan {
    /// Last timestep searched.
    pub(crate) horizon: u32,
    /// The arrival must come after this time.
    pub(crate) goal_free_after: u32,
}

/// How [`DeviceReservations::search`] launches its kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceTimeConfig {
    /// Threads per block of the per-timestep kernel.
    pub threads_per_block: u32,
    /// Timesteps launched between two reads of the arrival word.
    pub steps_per_check: u32,
}

impl Default for SpaceTimeConfig {
    fn default() -> Self {
        SpaceTimeConfig {
            threads_per_block: 256,
            steps_per_check: 32,
        }
    }
}

/// Host-side bookkeeping of a reservation table: what the backtracking needs (edge
/// reservations, the last reserved time of each cell), and the word updates for the planes.
#[derive(Debug, Clone)]
pub(crate) struct Ledger {
    pub(crate) dims: Dims,
    pub(crate) horizon: u32,
    /// `(cell index, t, direction)` of every edge reservation.
    edges: HashSet<(u32, u32, u32)>,
    /// Last reserved time of each reserved cell.
    last_reserved: HashMap<u32, u32>,
    /// Cells reserved at time 0 (no search may start there).
    taken_at_zero: HashSet<u32>,
}

/// Word updates of one reserved path: vertex planes and edge planes.
pub(crate) struct Updates {
    pub(crate) vertex: Vec<ReservationUpdate>,
    pub(crate) edge: Vec<ReservationUpdate>,
}

/// The direction (plane index) of the move `from → to`, if they are 4-adjacent.
fn direction(from: Cell, to: Cell) -> Option<u32> {
    let (dx, dy) = (
        i64::from(to.x) - i64::from(from.x),
        i64::from(to.y) - i64::from(from.y),
    );
    match (dx, dy) {
        (0, -1) => Some(NORTH),
        (1, 0) => Some(EAST),
        (0, 1) => Some(SOUTH),
        (-1, 0) => Some(WEST),
        _ => None,
    }
}

/// The neighbour of `cell` in plane direction `d` (may leave the grid: `None` below 0).
fn neighbour(cell: Cell, d: u32) -> Option<Cell> {
    match d {
        NORTH => cell.y.checked_sub(1).map(|y| Cell::new(cell.x, y)),
        EAST => cell.x.checked_add(1).map(|x| Cell::new(x, cell.y)),
        SOUTH => cell.y.checked_add(1).map(|y| Cell::new(cell.x, y)),
        _ => cell.x.checked_sub(1).map(|x| Cell::new(x, cell.y)),
    }
}

impl Ledger {
    pub(crate) fn new(grid: &Grid, horizon: u32) -> Result<Ledger, GpuError> {
        let dims = dims(grid)?;
        let planes =
            (u128::from(horizon) + 1) * u128::from(DIRECTIONS) * u128::from(dims.plane_words());
        if planes > u128::from(u32::MAX) * 64 {
            return Err(GpuError::TooLarge {
                what: "reservation table words",
                value: planes,
                limit: u128::from(u32::MAX) * 64,
            });
        }
        Ok(Ledger {
            dims,
            horizon,
            edges: HashSet::new(),
            last_reserved: HashMap::new(),
            taken_at_zero: HashSet::new(),
        })
    }

    /// The ledger and the full vertex and edge planes of an existing table (parked agents
    /// become vertex reservations up to the horizon).
    pub(crate) fn from_table(
        grid: &Grid,
        table: &ReservationTable,
    ) -> Result<(Ledger, Vec<u64>, Vec<u64>), GpuError> {
        let (table_width, table_height) = table.dims();
        if (table_width, table_height) != (grid.width(), grid.height()) {
            return Err(GpuError::TableSize {
                table_width,
                table_height,
                width: grid.width(),
                height: grid.height(),
            });
        }
        let mut ledger = Ledger::new(grid, table.horizon())?;
        let words = ledger.plane_words();
        let stride = ledger.dims.stride as usize;
        let planes = table.horizon() as usize + 1;
        let mut vertex = vec![0u64; planes * words];
        let mut edges = vec![0u64; planes * DIRECTIONS as usize * words];
        for t in 0..=table.horizon() {
            let Some(layer) = table.layer(t) else {
                continue;
            };
            // The table has no border rows: its row y is our stored row y + 1.
            let at = |plane: usize| plane * words + stride;
            let copy = |dst: &mut [u64], src: &[u64]| {
                dst.iter_mut().zip(src).for_each(|(d, &s)| *d |= s);
            };
            copy(&mut vertex[at(t as usize)..], layer.vertex);
            for (d, forbid) in layer.forbid.iter().enumerate() {
                let plane = t as usize * DIRECTIONS as usize + d;
                copy(&mut edges[at(plane)..], forbid);
                for (i, &bits) in forbid.iter().enumerate() {
                    let (row, column_word) = (i / stride, i % stride);
                    cuplan_wavefront_kernels::word::for_each_cell(
                        bits,
                        row as u32 + 1,
                        column_word as u32,
                        ledger.dims.width,
                        |cell| {
                            ledger.edges.insert((cell, t, d as u32));
                        },
                    );
                }
            }
        }
        for &(cell, since) in table.parked() {
            let (w, bit) = word_bit(&ledger.dims, cell);
            for t in since..=table.horizon() {
                vertex[t as usize * words + w] |= bit;
            }
        }
        for y in 0..grid.height() {
            for x in 0..grid.width() {
                let cell = Cell::new(x, y);
                if let Some(t) = table.last_vertex_time(cell) {
                    ledger.last_reserved.insert(ledger.index(cell), t);
                }
                if table.is_vertex_reserved(cell, 0) {
                    ledger.taken_at_zero.insert(ledger.index(cell));
                }
            }
        }
        Ok((ledger, vertex, edges))
    }

    pub(crate) fn plane_words(&self) -> usize {
        self.dims.plane_words() as usize
    }

    fn index(&self, cell: Cell) -> u32 {
        cell.y * self.dims.width + cell.x
    }

    /// Whether the move `from → from + d` arriving at `t` swaps with a reserved move.
    fn edge_reserved(&self, from: Cell, t: u32, d: u32) -> bool {
        self.edges.contains(&(self.index(from), t, d))
    }

    /// Validates `path` (free cells, 4-adjacent or equal steps), records it, and returns the
    /// word updates: vertex `(path[t], t)` up to the horizon (the last cell held to the end)
    /// and the edge of each move. Cells past the horizon are ignored.
    pub(crate) fn reserve(&mut self, grid: &Grid, path: &[Cell]) -> Result<Updates, GpuError> {
        for (index, &cell) in path.iter().enumerate() {
            grid.check_free(cell).map_err(|source| GpuError::BadCell {
                what: "path cell",
                index,
                source,
            })?;
        }
        for (index, pair) in path.windows(2).enumerate() {
            if pair[0] != pair[1] && direction(pair[0], pair[1]).is_none() {
                return Err(GpuError::BadPathStep {
                    index,
                    from: pair[0],
                    to: pair[1],
                });
            }
        }
        let words = self.plane_words() as u64;
        let mut vertex: BTreeMap<u64, u64> = BTreeMap::new();
        let mut edge: BTreeMap<u64, u64> = BTreeMap::new();
        if let Some(&first) = path.first() {
            self.taken_at_zero.insert(self.index(first));
        }
        let Some(&last) = path.last() else {
            return Ok(Updates {
                vertex: Vec::new(),
                edge: Vec::new(),
            });
        };
        for t in 0..=self.horizon {
            let cell = path.get(t as usize).copied().unwrap_or(last);
            let (w, bit) = word_bit(&self.dims, cell);
            *vertex.entry(u64::from(t) * words + w as u64).or_default() |= bit;
            let entry = self.last_reserved.entry(self.index(cell)).or_default();
            *entry = (*entry).max(t);
        }
        for (t, pair) in path.windows(2).enumerate().map(|(i, p)| (i as u32 + 1, p)) {
            if t > self.horizon {
                break;
            }
            // The mover arrives at pair[1] from its neighbour pair[0].
            if let Some(d) = direction(pair[1], pair[0]) {
                let (w, bit) = word_bit(&self.dims, pair[1]);
                let plane = u64::from(t) * u64::from(DIRECTIONS) + u64::from(d);
                *edge.entry(plane * words + w as u64).or_default() |= bit;
                self.edges.insert((self.index(pair[1]), t, d));
            }
        }
        let list = |m: BTreeMap<u64, u64>| {
            m.into_iter()
                .map(|(word, bits)| ReservationUpdate { word, bits })
                .collect()
        };
        Ok(Updates {
            vertex: list(vertex),
            edge: list(edge),
        })
    }

    /// Rebuilds the path ending at `goal` at time `arrival` from the reach planes
    /// `0..=arrival`, preferring at each step: wait, then the predecessor N, E, S, W.
    pub(crate) fn backtrack(&self, reach: &[u64], goal: Cell, arrival: u32) -> Option<Vec<Cell>> {
        let words = self.plane_words();
        let reached = |cell: Cell, t: u32| {
            let (w, bit) = word_bit(&self.dims, cell);
            reach
                .get(t as usize * words + w)
                .is_some_and(|&x| x & bit != 0)
        };
        let inside = |c: Cell| c.x < self.dims.width && c.y < self.dims.height;
        let mut cells = vec![goal];
        let mut cur = goal;
        for t in (1..=arrival).rev() {
            let pred = std::iter::once(cur)
                .chain((0..DIRECTIONS).filter_map(|d| neighbour(cur, d)))
                .filter(|&u| inside(u))
                .find(|&u| {
                    reached(u, t - 1)
                        && (u == cur
                            || direction(u, cur).is_some_and(|d| !self.edge_reserved(u, t, d)))
                })?;
            cells.push(pred);
            cur = pred;
        }
        cells.reverse();
        Some(cells)
    }
}

/// Checks a search's endpoints, decides the trivial cases (`Err(answer)`), else plans it.
pub(crate) fn prepare(
    grid: &Grid,
    ledger: &Ledger,
    start: Cell,
    goal: Cell,
    limits: &SpaceTimeLimits,
) -> Result<Result<Plan, Option<CellPath>>, GpuError> {
    for (what, cell) in [("start", start), ("goal", goal)] {
        grid.check_free(cell).map_err(|source| GpuError::BadCell {
            what,
            index: 0,
            source,
        })?;
    }
    // As the CPU backend: an occupied start or an unconnected goal has no path at all.
    if ledger.taken_at_zero.contains(&ledger.index(start)) || !grid.connected(start, goal) {
        return Ok(Err(None));
    }
    let reserved = ledger.last_reserved.get(&ledger.index(goal)).copied();
    if start == goal && reserved.is_none() && limits.min_arrival == 0 {
        return Ok(Err(Some(CellPath::new(vec![start]))));
    }
    Ok(Ok(Plan {
        horizon: limits
            .horizon
            .map_or(ledger.horizon, |h| h.min(ledger.horizon)),
        goal_free_after: reserved
            .unwrap_or(0)
            .max(limits.min_arrival.saturating_sub(1)),
    }))
}

/// A reservation table resident on the device, with the single-agent search against it.
///
/// Planes for timesteps `0..=horizon`: vertex planes (`(horizon+1)·P` words), edge planes
/// (`(horizon+1)·4·P`) and the search's reach planes (`(horizon+1)·P`), `P` words per plane.
#[derive(Debug)]
pub struct DeviceReservations<'d> {
    device: &'d Device,
    grid: Grid,
    ledger: Ledger,
    free: CudaSlice<u64>,
    vertex: CudaSlice<u64>,
    edges: CudaSlice<u64>,
    reach: CudaSlice<u64>,
    arrival: CudaSlice<u32>,
}

impl<'d> DeviceReservations<'d> {
    /// An empty table for `grid` and timesteps `0..=horizon`.
    pub fn new(device: &'d Device, grid: &Grid, horizon: u32) -> Result<Self, GpuError> {
        let ledger = Ledger::new(grid, horizon)?;
        let words = ledger.plane_words();
        let planes = horizon as usize + 1;
        Ok(DeviceReservations {
            free: device.upload(&free_plane(grid))?,
            vertex: device.zeros(planes * words)?,
            edges: device.zeros(planes * DIRECTIONS as usize * words)?,
            reach: device.zeros(planes * words)?,
            arrival: device.zeros(1)?,
            device,
            grid: grid.clone(),
            ledger,
        })
    }

    /// A device copy of an existing reservation table (uploaded once; later reservations go
    /// through [`reserve_path`](Self::reserve_path) as word updates).
    pub fn from_table(
        device: &'d Device,
        grid: &Grid,
        table: &ReservationTable,
    ) -> Result<Self, GpuError> {
        let (ledger, vertex, edges) = Ledger::from_table(grid, table)?;
        let words = ledger.plane_words();
        let planes = table.horizon() as usize + 1;
        Ok(DeviceReservations {
            free: device.upload(&free_plane(grid))?,
            vertex: device.upload(&vertex)?,
            edges: device.upload(&edges)?,
            reach: device.zeros(planes * words)?,
            arrival: device.zeros(1)?,
            device,
            grid: grid.clone(),
            ledger,
        })
    }

    /// The table's last timestep.
    pub fn horizon(&self) -> u32 {
        self.ledger.horizon
    }

    /// Reserves `path` (`path[t]` at time `t`, the last cell held to the horizon): uploads
    /// only the changed words and ORs them in on the device.
    pub fn reserve_path(&mut self, path: &[Cell]) -> Result<(), GpuError> {
        let updates = self.ledger.reserve(&self.grid, path)?;
        let device = self.device;
        for (list, table) in [
            (&updates.vertex, &mut self.vertex),
            (&updates.edge, &mut self.edges),
        ] {
            if list.is_empty() {
                continue;
            }
            // Two u64s per update: the `#[repr(C)]` layout of ReservationUpdate.
            let flat: Vec<u64> = list.iter().flat_map(|u| [u.word, u.bits]).collect();
            let buf = device.upload(&flat)?;
            let launch = ReserveLaunch {
                table_words: table.len() as u64,
                table: addr_mut(device, table),
                updates: addr(device, &buf).cast::<ReservationUpdate>(),
                count: list.len() as u32,
            };
            let shape = LaunchConfig::for_num_elems(launch.count);
            // SAFETY: the updates have distinct words (merged per word) inside the table.
            unsafe { device.launch(&device.reserve_words, shape, launch)? };
        }
        Ok(())
    }

    /// The earliest-arrival path from `start` (time 0) to `goal` within the horizon, or
    /// `None`. One launch per timestep; the arrival word is read every
    /// `config.steps_per_check` steps; the reach planes come back once, for the path.
    pub fn search(
        &mut self,
        start: Cell,
        goal: Cell,
        config: &SpaceTimeConfig,
    ) -> Result<Option<CellPath>, GpuError> {
        self.search_limited(start, goal, &SpaceTimeLimits::default(), config)
    }

    /// [`search`](Self::search) with a shorter horizon or an earliest arrival.
    pub fn search_limited(
        &mut self,
        start: Cell,
        goal: Cell,
        limits: &SpaceTimeLimits,
        config: &SpaceTimeConfig,
    ) -> Result<Option<CellPath>, GpuError> {
        let plan = match prepare(&self.grid, &self.ledger, start, goal, limits)? {
            Ok(plan) => plan,
            Err(answer) => return Ok(answer),
        };
        let device = self.device;
        let dims = self.ledger.dims;
        let words = self.ledger.plane_words();
        let mut plane0 = vec![0u64; words];
        let (w, bit) = word_bit(&dims, start);
        plane0[w] = bit;
        device
            .stream()
            .memcpy_htod(&plane0, &mut self.reach.slice_mut(0..words))
            .map_err(GpuError::driver("copying the start plane"))?;
        device
            .stream()
            .memcpy_htod(&[u32::MAX], &mut self.arrival)
            .map_err(GpuError::driver("resetting the arrival word"))?;
        let mut launch = SpaceTimeLaunch {
            free: addr(device, &self.free),
            vertex: addr(device, &self.vertex),
            arrived_from: addr(device, &self.edges),
            reach: addr_mut(device, &mut self.reach),
            arrival: addr_mut(device, &mut self.arrival),
            dims,
            t: 0,
            goal_x: goal.x,
            goal_y: goal.y,
            goal_free_after: plan.goal_free_after,
        };
        let interior = dims.stride.saturating_mul(dims.height);
        let threads = config.threads_per_block.clamp(32, 1024);
        let shape = LaunchConfig {
            grid_dim: (interior.div_ceil(threads).max(1), 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let check = config.steps_per_check.max(1);
        let mut arrival = u32::MAX;
        for t in 1..=plan.horizon {
            launch.t = t;
            // SAFETY: the buffers have the sizes SpaceTimeLaunch documents; plane t - 1 was
            // written by the previous launch on this stream (or above, for t = 1).
            unsafe { device.launch(&device.space_time_step, shape, launch)? };
            if t % check == 0 || t == plan.horizon {
                arrival = device.download(&self.arrival)?[0];
                if arrival != u32::MAX {
                    break;
                }
            }
        }
        if arrival == u32::MAX {
            return Ok(None);
        }
        let reach = device.download(&self.reach.slice(0..(arrival as usize + 1) * words))?;
        Ok(self
            .ledger
            .backtrack(&reach, goal, arrival)
            .map(CellPath::new))
    }
}

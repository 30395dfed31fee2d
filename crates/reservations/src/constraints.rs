//! `Constraints`: a sparse set of vertex and edge constraints for one agent (CBS).

use std::collections::{BTreeMap, HashMap, HashSet};

use cuplan_grid::Cell;

use crate::ReservationError;
use crate::moves::Move;

/// The constraints active at one time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TimeConstraints {
    /// Cells the agent may not occupy at this time.
    pub vertices: Vec<Cell>,
    /// Moves `(from, to)` the agent may not make arriving at this time.
    pub edges: Vec<(Cell, Cell)>,
}

/// Vertex and edge constraints of one agent, as conflict-based search adds them: any number
/// per time and cell, stored sparsely (a CBS node holds a handful).
///
/// *Invariants*: no duplicates; [`at`](Self::at) lists exactly the constraints of a time;
/// [`last_vertex_time`](Self::last_vertex_time) is the largest time of a vertex constraint on
/// that cell.
#[derive(Debug, Clone, Default)]
pub struct Constraints {
    vertices: HashSet<(Cell, u32)>,
    edges: HashSet<(Cell, Cell, u32)>,
    by_time: BTreeMap<u32, TimeConstraints>,
    last_vertex: HashMap<Cell, u32>,
}

impl Constraints {
    /// No constraints.
    pub fn new() -> Constraints {
        Constraints::default()
    }

    /// Forbids being on `cell` at time `t`. Returns whether it was new.
    pub fn add_vertex(&mut self, cell: Cell, t: u32) -> bool {
        if !self.vertices.insert((cell, t)) {
            return false;
        }
        self.by_time.entry(t).or_default().vertices.push(cell);
        let last = self.last_vertex.entry(cell).or_insert(t);
        *last = (*last).max(t);
        true
    }

    /// Forbids the move `from → to` arriving at time `t`. Returns whether it was new; errors
    /// when the cells are not 4-adjacent (a wait is not an edge).
    pub fn add_edge(&mut self, from: Cell, to: Cell, t: u32) -> Result<bool, ReservationError> {
        if Move::between(from, to).is_none() {
            return Err(ReservationError::NotAdjacent { from, to });
        }
        if !self.edges.insert((from, to, t)) {
            return Ok(false);
        }
        self.by_time.entry(t).or_default().edges.push((from, to));
        Ok(true)
    }

    /// Whether being on `cell` at `t` is forbidden.
    pub fn is_vertex_forbidden(&self, cell: Cell, t: u32) -> bool {
        self.vertices.contains(&(cell, t))
    }

    /// Whether the move `from → to` arriving at `t` is forbidden.
    pub fn is_edge_forbidden(&self, from: Cell, to: Cell, t: u32) -> bool {
        self.edges.contains(&(from, to, t))
    }

    /// The last time `cell` is vertex-constrained, if ever.
    pub fn last_vertex_time(&self, cell: Cell) -> Option<u32> {
        self.last_vertex.get(&cell).copied()
    }

    /// The constraints at time `t`, if any.
    pub fn at(&self, t: u32) -> Option<&TimeConstraints> {
        self.by_time.get(&t)
    }

    /// The largest time of any constraint.
    pub fn latest_time(&self) -> Option<u32> {
        self.by_time.keys().next_back().copied()
    }

    /// Number of constraints (vertex plus edge).
    pub fn len(&self) -> usize {
        self.vertices.len() + self.edges.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every constraint, in time order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &TimeConstraints)> {
        self.by_time.iter().map(|(&t, c)| (t, c))
    }
}

//! Multi-agent path finding (MAPF) on 4-connected grids: prioritized planning, optimal CBS and
//! LaCAM, with the instance model and an independent solution validator.
//!
//! **Job**: given a map and one start and goal per agent, find one timed path per agent with
//! no two agents on one cell at one time (an agent that has finished stays on its goal) and no
//! two agents swapping cells along an edge; each agent moves to a 4-neighbour or waits per step.
//!
//! **Main types**
//! - [`Instance`]: the grid, starts and goals, checked on construction (free, distinct,
//!   reachable cells); [`Instance::from_moving_ai`] reads the first `k` agents of a MAPF
//!   benchmark scenario; [`Instance::lower_bound`] sums single-agent BFS distances.
//! - [`Solution`]: `paths[i][t]`; [`Solution::soc`] (an agent's cost is the time it last
//!   arrives at its goal), [`Solution::makespan`], [`Solution::validate`] (first
//!   [`Violation`], O(cells + total path length)).
//! - [`solve`] with a [`Solver`]: [`Solver::Pp`] (prioritized planning, incomplete),
//!   [`Solver::Cbs`] (optimal sum of costs), [`Solver::Lacam`] (complete, suboptimal, for
//!   thousands of agents); [`SolverConfig`] sets the time and memory limits, seed and PP
//!   priority order. A limit reached is [`SolveOutcome::LimitReached`] with its [`Limit`]
//!   (time, or memory naming the structure that would have outgrown the budget), never
//!   [`SolveOutcome::NoSolution`].
//!
//! **How**: every solver reads exact distance-to-goal maps from
//! [`DistanceMaps::<u16>::build`](cuplan_wavefront::DistanceMaps::build) (`u16`, 2 bytes a
//! cell and agent; `u32` where a
//! distance exceeds 65,534 and for the wavefront low level, whose heuristic reads `u32`),
//! one per agent (goals are distinct, so none is shared), built once per call in chunks of
//! 64 goals with the deadline checked between chunks. The graph, the maps and what each
//! solver grows (CBS's constraint tree, LaCAM's configurations, PP's reservations, every
//! single-agent search) are charged by estimate to the [`SolverConfig::memory_limit`]
//! before they are allocated; the dense reservation table and the wavefront's stored planes
//! get the remainder as their caps. PP on the sparse low level needs an agent's map only
//! while it plans that agent: when all maps would take more than half the budget it builds
//! them 64 goals at a time in planning order (twice the BFS work for a length-ordered
//! priority, which needs every length first); CBS and LaCAM read every map throughout, so
//! for them maps over the budget are a memory limit. PP plans agents in priority order with a space-time A* against a
//! sparse reservation table; CBS is ICBS with MDD-classified conflicts, bypassing, target
//! reasoning and a cardinal-conflict-graph heuristic; LaCAM is LaCAM with PIBT (with the
//! LaCAM3 swap emulation for corridors) as the configuration generator, complete.
//! [`SolverConfig::low_level`] picks the single-agent search of PP and CBS: [`LowLevel::Sparse`]
//! (the default: this crate's A* of `lowlevel.rs` over hash-based reservations, the only one
//! with CBS's target reasoning and soft conflicts) or [`LowLevel::Wavefront`] (the layered
//! route, [`cuplan_wavefront::space_time_astar`] over a dense
//! [`cuplan_reservations::ReservationTable`] or [`cuplan_reservations::Constraints`]).
//! Measured end to end (distance maps included; `examples/mapf_run.rs`, random-1 scen,
//! release, min of 7 on the shared 2-core CPU), PP sparse vs wavefront: den520d 128 agents
//! 0.081 s vs 0.084 s (0.031 s vs 0.075 s on an idle machine), 400 agents 0.33 s vs 0.44 s
//! (sparse 1.3x faster); random-64-64-10 128 agents 0.009 s vs 0.005 s, 400 agents 0.058 s
//! vs 0.018 s (wavefront 3x faster). Sparse is the default because CBS needs it (with the
//! wavefront CBS loses target reasoning and soft conflicts: random-32-32-10 with 60 agents
//! takes 5 s sparse and times out at 15 s on the wavefront) and it is the faster PP on
//! den520d; the wavefront wins where agents wait long for their goals to clear.
//! `examples/mapf_run.rs` solves a Moving AI scenario from the command line and prints
//! runtime, SOC and SOC / LB; `benches/mapf.rs` benchmarks the three on generated maps.
//!
//! **Invariants**: solvers only see valid [`Instance`]s; every [`SolveOutcome::Solved`]
//! solution passes [`Solution::validate`] and ends each path at the first time its agent
//! reaches its goal for good; runs are deterministic for a given seed; the time limit is
//! checked inside every long loop, the single-agent searches included; a limit is never
//! reported as "no solution" (CBS cannot prove most unsolvable instances, such as two agents
//! swapping in a corridor: its memory limit is what ends them, LaCAM proves them).
//!
//! **Tests** live in `crates/mapf/tests/`: the validator against hand-built violations, every
//! solver on random instances (proptest) and on `../shared/data/mapf` when present, CBS
//! against an exhaustive joint-space search, and instance errors; `wavefront_low_level.rs`
//! runs PP and CBS on [`LowLevel::Wavefront`] (CBS against the oracle and the sparse low
//! level); a unit test in `pp.rs` forces the layered PP to regrow its horizon; `limits.rs`
//! drives every solver into its time and memory limits and paths past `u16` distances.
//!
//! ```
//! use std::sync::Arc;
//! use cuplan_mapf::{Cell, Grid, Instance, SolveOutcome, Solver, SolverConfig, solve};
//!
//! let grid = Arc::new(Grid::from_ascii("
//!     ....
//!     .@@.
//!     ....
//! ")?);
//! let instance = Instance::new(
//!     grid,
//!     vec![Cell::new(0, 0), Cell::new(3, 0)],
//!     vec![Cell::new(3, 0), Cell::new(0, 0)],
//! )?;
//! let SolveOutcome::Solved(solution) = solve(&instance, Solver::Cbs, &SolverConfig::default())?
//! else { panic!("solvable") };
//! assert!(solution.validate(&instance).is_ok());
//! assert_eq!(instance.lower_bound(), 6);
//! assert_eq!(solution.soc(), 3 + 7); // one agent takes the long way round the wall
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

mod cbs;
mod error;
mod instance;
mod lacam;
mod layered;
mod limit;
mod lowlevel;
mod pp;
mod solution;
mod util;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use cuplan_wavefront::{Backend, DistanceMaps, WavefrontError};

pub use error::MapfError;
pub use instance::Instance;
pub use limit::{DEFAULT_MEMORY_LIMIT, Limit};
pub use solution::{Solution, Violation};
// The grid types this crate's API takes and returns, so one dependency is enough.
pub use cuplan_grid::{self as grid, Cell, CellPath, Endpoint, Grid, GridError, Scenario};

use limit::{Budget, Halt};
use util::{DIST_CHUNK, Deadline, DistTable, Distances, Graph, Rng};

/// The available MAPF solvers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "&'static str", try_from = "String"))]
#[non_exhaustive]
pub enum Solver {
    /// Prioritized planning: fast, incomplete, suboptimal.
    Pp,
    /// Conflict-based search: optimal sum of costs, for tens of agents.
    Cbs,
    /// LaCAM with PIBT: complete, suboptimal, for thousands of agents.
    Lacam,
}

impl Solver {
    /// Every solver, in a fixed order.
    pub const ALL: [Solver; 3] = [Solver::Pp, Solver::Cbs, Solver::Lacam];

    /// The lower-case name used on the command line (`"pp"`, `"cbs"`, `"lacam"`).
    pub fn name(self) -> &'static str {
        match self {
            Solver::Pp => "pp",
            Solver::Cbs => "cbs",
            Solver::Lacam => "lacam",
        }
    }
}

/// Serialises as the name.
impl From<Solver> for &'static str {
    fn from(value: Solver) -> &'static str {
        value.name()
    }
}

/// Parses a name as [`FromStr`] does (the serde form).
impl TryFrom<String> for Solver {
    type Error = MapfError;

    fn try_from(name: String) -> Result<Solver, MapfError> {
        name.parse()
    }
}

impl fmt::Display for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Solver {
    type Err = MapfError;

    fn from_str(s: &str) -> Result<Solver, MapfError> {
        Solver::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                MapfError::InvalidArgument(format!(
                    "unknown solver {s:?}: expected one of pp, cbs, lacam"
                ))
            })
    }
}

/// The order in which prioritized planning plans agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "&'static str", try_from = "String"))]
#[non_exhaustive]
pub enum PriorityOrder {
    /// Agent index order (scenario line order).
    Given,
    /// Shortest single-agent distance first.
    ShortestFirst,
    /// Longest single-agent distance first (the usual default: long paths are the hardest
    /// to fit in later).
    #[default]
    LongestFirst,
    /// A random permutation drawn from the seed.
    Random,
}

impl PriorityOrder {
    /// Every order, in a fixed order.
    pub const ALL: [PriorityOrder; 4] = [
        PriorityOrder::Given,
        PriorityOrder::ShortestFirst,
        PriorityOrder::LongestFirst,
        PriorityOrder::Random,
    ];

    /// The kebab-case name (`"given"`, `"shortest-first"`, `"longest-first"`, `"random"`).
    pub fn name(self) -> &'static str {
        match self {
            PriorityOrder::Given => "given",
            PriorityOrder::ShortestFirst => "shortest-first",
            PriorityOrder::LongestFirst => "longest-first",
            PriorityOrder::Random => "random",
        }
    }
}

/// Serialises as the name.
impl From<PriorityOrder> for &'static str {
    fn from(value: PriorityOrder) -> &'static str {
        value.name()
    }
}

/// Parses a name as [`FromStr`] does (the serde form).
impl TryFrom<String> for PriorityOrder {
    type Error = MapfError;

    fn try_from(name: String) -> Result<PriorityOrder, MapfError> {
        name.parse()
    }
}

impl fmt::Display for PriorityOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PriorityOrder {
    type Err = MapfError;

    fn from_str(s: &str) -> Result<PriorityOrder, MapfError> {
        PriorityOrder::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                MapfError::InvalidArgument(format!(
                    "unknown priority order {s:?}: expected given, shortest-first, longest-first or random"
                ))
            })
    }
}

/// The single-agent search under PP and CBS.
///
/// Both find minimum-arrival paths, so CBS's optimal sum of costs does not depend on the
/// choice; PP's plans (and so its sum of costs, and whether it succeeds) may differ, as the
/// two break ties between equal-arrival paths differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "&'static str", try_from = "String"))]
#[non_exhaustive]
pub enum LowLevel {
    /// The crate's own space-time A* over a sparse (hash) reservation table or CBS constraint
    /// set: needs no horizon, supports every CBS improvement (target reasoning, soft
    /// conflicts). The default (see the crate docs for the measurements).
    #[default]
    Sparse,
    /// The layered route: [`cuplan_wavefront::space_time_astar`] against a dense
    /// [`cuplan_reservations::ReservationTable`] (PP, horizon grown and the table rebuilt on
    /// `HorizonExceeded`) or an agent's [`cuplan_reservations::Constraints`] (CBS), with the
    /// goal's distance map as heuristic and the solver deadline. The wavefront cannot express
    /// a latest finish time nor soft conflicts, so CBS runs without target reasoning (target
    /// conflicts split as plain vertex conflicts) and without conflict-avoidance
    /// tie-breaking; it stays optimal.
    Wavefront,
}

impl LowLevel {
    /// Both low levels, in a fixed order.
    pub const ALL: [LowLevel; 2] = [LowLevel::Sparse, LowLevel::Wavefront];

    /// The lower-case name (`"sparse"`, `"wavefront"`).
    pub fn name(self) -> &'static str {
        match self {
            LowLevel::Sparse => "sparse",
            LowLevel::Wavefront => "wavefront",
        }
    }
}

/// Serialises as the name.
impl From<LowLevel> for &'static str {
    fn from(value: LowLevel) -> &'static str {
        value.name()
    }
}

/// Parses a name as [`FromStr`] does (the serde form).
impl TryFrom<String> for LowLevel {
    type Error = MapfError;

    fn try_from(name: String) -> Result<LowLevel, MapfError> {
        name.parse()
    }
}

impl fmt::Display for LowLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for LowLevel {
    type Err = MapfError;

    fn from_str(s: &str) -> Result<LowLevel, MapfError> {
        LowLevel::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                MapfError::InvalidArgument(format!(
                    "unknown low level {s:?}: expected sparse or wavefront"
                ))
            })
    }
}

/// Settings shared by all solvers: start from [`SolverConfig::default`] and change what you
/// need with the `with_*` methods (new settings may be added, each with a default that keeps
/// today's behaviour).
///
/// ```
/// use std::time::Duration;
/// use cuplan_mapf::{PriorityOrder, SolverConfig};
///
/// let config = SolverConfig::default()
///     .with_time_limit(Duration::from_secs(10))
///     .with_seed(7)
///     .with_priority(PriorityOrder::ShortestFirst);
/// assert_eq!(config.seed, 7);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SolverConfig {
    /// Wall-clock budget of one [`solve`] call, distance tables included.
    pub time_limit: Duration,
    /// Seed of every random choice (LaCAM's tie-breaking, PP's random order).
    pub seed: u64,
    /// PP's planning order (ignored by the other solvers).
    pub priority: PriorityOrder,
    /// The single-agent search of PP and CBS (ignored by LaCAM).
    pub low_level: LowLevel,
    /// Memory budget of one [`solve`] call in bytes ([`DEFAULT_MEMORY_LIMIT`] by default):
    /// the map graph, the distance maps, and what the solver grows (CBS's constraint tree,
    /// LaCAM's configurations, PP's reservations and the single-agent searches) are charged
    /// to it by estimate before they are allocated; reaching it is
    /// [`SolveOutcome::LimitReached`] with [`Limit::Memory`].
    pub memory_limit: u64,
}

impl Default for SolverConfig {
    /// 60 s, seed 0, longest first, sparse low level, [`DEFAULT_MEMORY_LIMIT`].
    fn default() -> SolverConfig {
        SolverConfig {
            time_limit: Duration::from_secs(60),
            seed: 0,
            priority: PriorityOrder::default(),
            low_level: LowLevel::default(),
            memory_limit: DEFAULT_MEMORY_LIMIT,
        }
    }
}

impl SolverConfig {
    /// This config with another wall-clock budget.
    pub fn with_time_limit(self, time_limit: Duration) -> SolverConfig {
        SolverConfig { time_limit, ..self }
    }

    /// This config with another seed.
    pub fn with_seed(self, seed: u64) -> SolverConfig {
        SolverConfig { seed, ..self }
    }

    /// This config with another planning order (PP).
    pub fn with_priority(self, priority: PriorityOrder) -> SolverConfig {
        SolverConfig { priority, ..self }
    }

    /// This config with another single-agent search (PP, CBS).
    pub fn with_low_level(self, low_level: LowLevel) -> SolverConfig {
        SolverConfig { low_level, ..self }
    }

    /// This config with another memory budget, in bytes.
    pub fn with_memory_limit(self, memory_limit: u64) -> SolverConfig {
        SolverConfig {
            memory_limit,
            ..self
        }
    }
}

/// How a [`solve`] call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum SolveOutcome {
    /// A valid solution (optimal sum of costs for CBS).
    Solved(Solution),
    /// Proven unsolvable, or (PP) the planner failed; the string says why.
    NoSolution(String),
    /// A time or memory limit was reached first: nothing is known about the instance.
    LimitReached(Limit),
}

/// Solves `instance` with `solver` within `config.time_limit` and `config.memory_limit`.
///
/// `Err` only for bad arguments (the instance itself was checked when it was built) or a
/// lower layer refusing its input.
pub fn solve(
    instance: &Instance,
    solver: Solver,
    config: &SolverConfig,
) -> Result<SolveOutcome, MapfError> {
    match solve_within_limits(instance, solver, config) {
        Ok(outcome) => Ok(outcome),
        Err(Halt::Limit(limit)) => Ok(SolveOutcome::LimitReached(limit)),
        Err(Halt::Error(err)) => Err(err),
    }
}

/// The distance maps' memory, as named in a [`Limit::Memory`].
const MAPS: &str = "the distance maps";

/// [`solve`], with limits and errors as one [`Halt`].
fn solve_within_limits(
    instance: &Instance,
    solver: Solver,
    config: &SolverConfig,
) -> Result<SolveOutcome, Halt> {
    let deadline = Deadline::after(config.time_limit);
    let mut budget = Budget::new(config.memory_limit);
    budget.charge("the map graph", Graph::bytes_for(instance.grid()))?;
    let graph = Graph::new(instance.grid());
    let (starts, goals) = instance.vertex_ids(&graph);
    // PP can build its maps a chunk at a time: it does when all of them would take more than
    // half of what is left, leaving the search its room.
    if solver == Solver::Pp
        && config.low_level == LowLevel::Sparse
        && map_bytes(instance.grid(), goals.len(), 2) > budget.remaining() / 2
    {
        return lazy_pp(instance, &graph, &starts, &goals, config, deadline, budget);
    }
    // The wavefront low level reads u32 maps as its heuristic; everything else takes u16
    // where the distances fit.
    let wide = solver != Solver::Lacam && config.low_level == LowLevel::Wavefront;
    let maps = distances(
        instance.grid(),
        instance.goals(),
        wide,
        deadline,
        &mut budget,
    )?;
    let dist = DistTable::new(&maps)
        .ok_or_else(|| internal("distance maps are not one contiguous array"))?;
    let world = || -> Result<layered::World<'_>, Halt> {
        let wide = maps
            .wide()
            .ok_or_else(|| internal("the wavefront low level needs u32 maps"))?;
        Ok(layered::World::new(instance.grid(), &graph, wide, deadline))
    };
    let outcome = match solver {
        Solver::Lacam => run_lacam(
            &graph,
            &dist,
            &starts,
            &goals,
            config.seed,
            deadline,
            budget,
        )?,
        Solver::Pp => {
            let order = priority_order(config, starts.len(), |a| dist.get(a, starts[a]));
            let planned = match config.low_level {
                LowLevel::Sparse => pp::prioritized(
                    &graph,
                    &mut dist.clone(),
                    &starts,
                    &goals,
                    &order,
                    deadline,
                    budget,
                ),
                LowLevel::Wavefront => {
                    pp::prioritized_wavefront(&world()?, &dist, &starts, &goals, &order, budget)
                }
            };
            pp_outcome(&graph, planned, config)?
        }
        Solver::Cbs => {
            let layered = match config.low_level {
                LowLevel::Wavefront => Some(world()?),
                LowLevel::Sparse => None,
            };
            match cbs::cbs(&graph, &dist, &starts, &goals, deadline, budget, layered) {
                cbs::CbsResult::Solved(paths) => SolveOutcome::Solved(from_paths(&graph, paths)),
                cbs::CbsResult::NoSolution => SolveOutcome::NoSolution(
                    "no solution exists: CBS exhausted its constraint tree".into(),
                ),
                cbs::CbsResult::Halted(halt) => return Err(halt),
            }
        }
    };
    Ok(outcome)
}

/// PP's plan as an outcome (its failure to plan is "no solution", its halts stay halts).
fn pp_outcome(
    graph: &Graph,
    planned: Result<Vec<Vec<u32>>, pp::PpFailure>,
    config: &SolverConfig,
) -> Result<SolveOutcome, Halt> {
    match planned {
        Ok(paths) => Ok(SolveOutcome::Solved(from_paths(graph, paths))),
        Err(pp::PpFailure::Halted(halt)) => Err(halt),
        Err(pp::PpFailure::Blocked { agent, rank, why }) => Ok(SolveOutcome::NoSolution(format!(
            "prioritized planning failed: agent {agent} (planned {}th, order {}) {why} \
             around the {rank} agents planned before it",
            rank + 1,
            config.priority
        ))),
    }
}

/// Bytes of `agents` distance maps of `grid` at `width` bytes a cell.
fn map_bytes(grid: &Grid, agents: usize, width: u64) -> u64 {
    grid.cell_count() as u64 * agents as u64 * width
}

/// PP (sparse low level) when the distance maps of all agents do not fit the budget: each
/// agent needs its map only while it is planned, so the maps are built [`DIST_CHUNK`] goals
/// at a time in planning order and dropped after (a length-ordered priority builds them
/// once more beforehand, for the lengths). Twice the BFS work, a chunk's memory.
fn lazy_pp(
    instance: &Instance,
    graph: &Graph,
    starts: &[u32],
    goals: &[u32],
    config: &SolverConfig,
    deadline: Deadline,
    mut budget: Budget,
) -> Result<SolveOutcome, Halt> {
    let grid = instance.grid();
    // u32 where a distance might not fit u16 (more free cells than u16 distances).
    let width = if grid.free_count() < 65_535 { 2 } else { 4 };
    budget.charge(MAPS, map_bytes(grid, DIST_CHUNK.min(goals.len()), width))?;
    let by_length = matches!(
        config.priority,
        PriorityOrder::ShortestFirst | PriorityOrder::LongestFirst
    );
    let mut lengths = vec![0; starts.len()];
    if by_length {
        for (first, chunk) in instance.goals().chunks(DIST_CHUNK).enumerate() {
            let maps = distances(grid, chunk, false, deadline, &mut Budget::new(u64::MAX))?;
            let dist = DistTable::new(&maps).ok_or_else(|| internal("maps not contiguous"))?;
            for i in 0..chunk.len() {
                let agent = first * DIST_CHUNK + i;
                lengths[agent] = dist.get(i, starts[agent]);
            }
        }
    }
    let order = priority_order(config, starts.len(), |a| lengths[a]);
    let mut maps = LazyMaps {
        grid,
        goals: instance.goals(),
        order: &order,
        deadline,
        next: 0,
        chunk: None,
        slot: vec![usize::MAX; starts.len()],
    };
    let planned = pp::prioritized(graph, &mut maps, starts, goals, &order, deadline, budget);
    pp_outcome(graph, planned, config)
}

/// Distance maps built [`DIST_CHUNK`] goals at a time in planning order (see [`lazy_pp`]);
/// the caller charged one chunk to the budget.
struct LazyMaps<'a> {
    grid: &'a Grid,
    goals: &'a [Cell],
    order: &'a [usize],
    deadline: Deadline,
    /// Position in `order` of the next chunk.
    next: usize,
    chunk: Option<Distances>,
    /// Agent -> its map's index in `chunk` (`usize::MAX`: not held).
    slot: Vec<usize>,
}

impl pp::MapSource for LazyMaps<'_> {
    fn map(&mut self, agent: usize) -> Result<util::MapView<'_>, Halt> {
        if self.slot[agent] == usize::MAX {
            self.build_next_chunk()?;
        }
        let chunk = self
            .chunk
            .as_ref()
            .ok_or_else(|| internal("no chunk built"))?;
        let slot = self.slot[agent];
        if slot == usize::MAX {
            return Err(internal("agents planned out of order"));
        }
        let dist = DistTable::new(chunk).ok_or_else(|| internal("maps not contiguous"))?;
        Ok(dist.map(slot))
    }
}

impl LazyMaps<'_> {
    fn build_next_chunk(&mut self) -> Result<(), Halt> {
        if let Some(old) = self.chunk.take() {
            drop(old); // before the next chunk is allocated: one chunk is charged
            let held = &self.order[self.next - DIST_CHUNK.min(self.next)..self.next];
            held.iter().for_each(|&a| self.slot[a] = usize::MAX);
        }
        let agents = &self.order[self.next..(self.next + DIST_CHUNK).min(self.order.len())];
        let goals: Vec<Cell> = agents.iter().map(|&a| self.goals[a]).collect();
        let maps = distances(
            self.grid,
            &goals,
            false,
            self.deadline,
            &mut Budget::new(u64::MAX),
        )?;
        for (i, &a) in agents.iter().enumerate() {
            self.slot[a] = i;
        }
        self.next += agents.len();
        self.chunk = Some(maps);
        Ok(())
    }
}

fn internal(reason: &str) -> Halt {
    Halt::Error(MapfError::Wavefront(WavefrontError::Internal {
        reason: reason.into(),
    }))
}

/// One BFS map per goal, the exact heuristic of every solver: `u16` unless `wide` or a
/// distance does not fit, charged to `budget` before anything is allocated, built in chunks
/// so the deadline is checked between them. Goals are distinct ([`Instance`] checks it), so
/// no map is built twice.
fn distances(
    grid: &Grid,
    goals: &[Cell],
    wide: bool,
    deadline: Deadline,
    budget: &mut Budget,
) -> Result<Distances, Halt> {
    let cells = grid.cell_count() as u64 * goals.len() as u64;
    if !wide {
        budget.charge(MAPS, cells * 2)?;
        match chunked::<u16>(grid, goals, deadline) {
            Err(Halt::Error(MapfError::Wavefront(WavefrontError::DistanceOverflow { .. }))) => {
                // Paths longer than 65,534 moves (huge mazes): u32 maps instead.
                budget.release(cells * 2);
            }
            narrow => return narrow.map(Distances::Narrow),
        }
    }
    budget.charge(MAPS, cells * 4)?;
    chunked::<u32>(grid, goals, deadline).map(Distances::Wide)
}

/// [`DistanceMaps::build`] over chunks of [`DIST_CHUNK`] goals, the deadline checked between chunks.
fn chunked<D: cuplan_wavefront::Distance>(
    grid: &Grid,
    goals: &[Cell],
    deadline: Deadline,
) -> Result<Vec<DistanceMaps<D>>, Halt> {
    let mut maps = Vec::with_capacity(goals.len().div_ceil(DIST_CHUNK));
    for chunk in goals.chunks(DIST_CHUNK) {
        if deadline.passed() {
            return Err(deadline.reached().into());
        }
        maps.push(DistanceMaps::<D>::build(grid, chunk, Backend::Auto).map_err(MapfError::from)?);
    }
    if deadline.passed() {
        return Err(deadline.reached().into());
    }
    Ok(maps)
}

/// LaCAM in a thread whose stack grows with the number of agents: PIBT's priority
/// inheritance recurses once per agent in a push chain.
fn run_lacam(
    graph: &Graph,
    dist: &DistTable<'_>,
    starts: &[u32],
    goals: &[u32],
    seed: u64,
    deadline: Deadline,
    budget: Budget,
) -> Result<SolveOutcome, Halt> {
    let run = || match lacam::lacam(graph, dist, starts, goals, seed, deadline, budget) {
        lacam::LacamResult::Solved(configs) => {
            Ok(SolveOutcome::Solved(from_configs(graph, &configs)))
        }
        lacam::LacamResult::NoSolution => Ok(SolveOutcome::NoSolution(
            "no solution exists: LaCAM explored every reachable configuration".into(),
        )),
        lacam::LacamResult::Limit(limit) => Err(Halt::Limit(limit)),
    };
    let stack = (1 << 20) + 512 * starts.len();
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("cuplan-lacam".into())
            .stack_size(stack)
            .spawn_scoped(scope, run);
        match worker.map(|handle| handle.join()) {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread available: run here (fine unless the push chains are enormous).
            Err(_) => run(),
        }
    })
}

/// PP's planning order of `agents` agents; `length(a)` is agent `a`'s distance to its goal.
fn priority_order(
    config: &SolverConfig,
    agents: usize,
    length: impl Fn(usize) -> u32,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..agents).collect();
    match config.priority {
        PriorityOrder::Given => {}
        PriorityOrder::ShortestFirst => order.sort_by_key(|&a| length(a)),
        PriorityOrder::LongestFirst => order.sort_by_key(|&a| std::cmp::Reverse(length(a))),
        PriorityOrder::Random => Rng::new(config.seed).shuffle(&mut order),
    }
    order
}

/// Per-agent vertex paths to cells, each cut after its agent's final arrival.
fn from_paths(graph: &Graph, paths: Vec<Vec<u32>>) -> Solution {
    Solution {
        paths: paths
            .into_iter()
            .map(|p| trimmed(p.iter().map(|&v| graph.cell(v)).collect()))
            .collect(),
    }
}

/// Joint configurations (one per timestep) to per-agent paths.
fn from_configs(graph: &Graph, configs: &[std::sync::Arc<[u32]>]) -> Solution {
    let agents = configs.first().map_or(0, |c| c.len());
    Solution {
        paths: (0..agents)
            .map(|i| trimmed(configs.iter().map(|c| graph.cell(c[i])).collect()))
            .collect(),
    }
}

fn trimmed(mut path: Vec<Cell>) -> Vec<Cell> {
    let keep = Solution::agent_cost(&path) as usize + 1;
    path.truncate(keep);
    path
}

/// The README's example, compiled and run as a doctest (so the crates.io page matches the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

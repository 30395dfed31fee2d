//! Multi-agent path finding (MAPF) on 4-connected grids: prioritized planning, optimal CBS,
//! bounded-suboptimal EECBS and LaCAM, with the instance model and an independent solution
//! validator.
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
//!   [`Solver::Cbs`] (optimal sum of costs), [`Solver::Eecbs`] (within
//!   [`SolverConfig::suboptimality`] of the optimum, for hundreds of agents),
//!   [`Solver::Lacam`] (complete, for thousands of agents; anytime by default, see below);
//!   [`SolverConfig`] sets the time and memory limits, seed, PP priority order, EECBS's
//!   factor and whether CBS and EECBS use rectangle reasoning. [`Improvement::lower_bound`]
//!   is the proven lower bound that comes with each solution. A limit reached is [`SolveOutcome::LimitReached`] with its [`Limit`]
//!   (time, or memory naming the structure that would have outgrown the budget), never
//!   [`SolveOutcome::NoSolution`].
//!
//! **How**: every solver reads exact distance-to-goal maps from
//! [`DistanceMaps::<u16>::build`](cuplan_wavefront::DistanceMaps::build), built in parallel
//! in chunks of 64 goals with the deadline checked between chunks and gathered into a compact
//! table of 2 bytes per *free* cell and agent (blocked cells share one slot); `u32` grid maps
//! where a distance might exceed 65,534 and for the wavefront low level, whose heuristic
//! reads `u32`. One map per agent (goals are distinct, so none is shared). The graph, the maps and what each
//! solver grows (CBS's constraint tree, LaCAM's configurations, PP's reservations, every
//! single-agent search) are charged by estimate to the [`SolverConfig::memory_limit`]
//! before they are allocated; the dense reservation table and the wavefront's stored planes
//! get the remainder as their caps. PP on the sparse low level needs an agent's map only
//! while it plans that agent: when all maps would take more than half the budget it builds
//! them 64 goals at a time in planning order (twice the BFS work for a length-ordered
//! priority, which needs every length first); CBS and LaCAM read every map throughout, so
//! for them maps over the budget are a memory limit. PP plans agents in priority order with a space-time A* against a
//! sparse reservation table; CBS is ICBS with MDD-classified conflicts, bypassing, target
//! reasoning and a cardinal-conflict-graph heuristic (its exact minimum vertex cover); EECBS
//! (Li, Ruml & Koenig 2021) searches the same constraint tree by explicit estimation search
//! (nodes within `w` of the smallest lower bound, fewest conflicts first, with an online-learnt
//! cost estimate) over paths from a focal low level (`lowlevel.rs`: within `w` of each agent's
//! optimum, fewest conflicts with the others), so its sum of costs is at most `w` times the
//! lower bound it reports; LaCAM is LaCAM with PIBT (with the
//! LaCAM3 swap emulation for corridors) as the configuration generator, complete; unless
//! [`SolverConfig::first_solution`] is set it is *anytime*: after the first solution LaCAM*
//! (Okumura, IJCAI 2023: edge costs are sums of losses, known configurations are rewired by a
//! Dijkstra pass, nodes whose `g + h` cannot beat the best are pruned) starts over guided as
//! lacam3 (Okumura, AAMAS 2024) is: a space-utilisation pre-pass (`scatter.rs`, SUO) gives
//! every agent a near-shortest path that avoids the others', PIBT prefers its next cell, and
//! each successor is the best of 3 PIBT runs. That LaCAM* gets a tenth of the time left; then
//! the guided first-solution search is restarted with fresh seeds until the limit, keeping
//! the best. It keeps searching on one thread while large-neighbourhood search (`refine.rs`,
//! after MAPF-LNS) replans 8 agents at a time against the others on a second, both improving
//! one shared best until the time limit ([`solve_with_progress`] reports each improvement);
//! when the pre-pass does not fit the memory left, the first search ends at its solution and
//! LNS refines alone on its thread. A proven-optimal LaCAM* (the whole reachable
//! configuration space exhausted) ends the call early.
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
//! reaches its goal for good; runs are deterministic for a given seed (anytime LaCAM up to its
//! first solution; what its two threads improve after it depends on timing); the time limit is
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
mod refine;
mod scatter;
mod solution;
mod util;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::time::{Duration, Instant};

use cuplan_wavefront::{Backend, DistanceMaps, WavefrontError};

pub use error::MapfError;
pub use instance::Instance;
pub use limit::{DEFAULT_MEMORY_LIMIT, Limit};
pub use solution::{Solution, Violation};
// The grid types this crate's API takes and returns, so one dependency is enough.
pub use cuplan_grid::{self as grid, Cell, CellPath, Endpoint, Grid, GridError, Scenario};

use limit::{Budget, Halt};
use scatter::Scatter;
use util::{CompactMaps, DIST_CHUNK, Deadline, DistTable, Distances, Graph, Rng, Weight};

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
    /// Explicit estimation CBS: a sum of costs within [`SolverConfig::suboptimality`] of
    /// the optimum, for hundreds of agents.
    Eecbs,
}

impl Solver {
    /// Every solver, in a fixed order.
    pub const ALL: [Solver; 4] = [Solver::Pp, Solver::Cbs, Solver::Lacam, Solver::Eecbs];

    /// The lower-case name used on the command line (`"pp"`, `"cbs"`, `"lacam"`,
    /// `"eecbs"`).
    pub fn name(self) -> &'static str {
        match self {
            Solver::Pp => "pp",
            Solver::Cbs => "cbs",
            Solver::Lacam => "lacam",
            Solver::Eecbs => "eecbs",
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
                    "unknown solver {s:?}: expected one of pp, cbs, lacam, eecbs"
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
#[derive(Debug, Clone, PartialEq)]
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
    /// LaCAM only: stop at the first solution (vanilla LaCAM) instead of improving it until
    /// [`SolverConfig::time_limit`] (the default, `false`: a SUO-guided LaCAM* and its
    /// restarts on one thread and large-neighbourhood search replanning a few agents at a
    /// time on another; the search ends early only when LaCAM* has proven its best optimal).
    #[cfg_attr(feature = "serde", serde(default))]
    pub first_solution: bool,
    /// EECBS only: the factor `w` (1 to 1000, rounded to thousandths) its sum of costs may
    /// exceed the optimum by; 1.2 by default. `w = 1` is optimal.
    #[cfg_attr(feature = "serde", serde(default = "default_suboptimality"))]
    pub suboptimality: f64,
    /// CBS and EECBS: rectangle reasoning, splitting a rectangle conflict by two barrier
    /// constraints (on by default; EECBS uses it where both agents' paths cost their lower
    /// bounds). Off, every vertex conflict is split on its one cell, as in plain CBS: the same
    /// optimum, for ablation studies.
    #[cfg_attr(feature = "serde", serde(default = "default_rectangles"))]
    pub rectangles: bool,
}

/// EECBS's default factor, the one its paper's headline results use.
const DEFAULT_SUBOPTIMALITY: f64 = 1.2;

#[cfg(feature = "serde")]
fn default_suboptimality() -> f64 {
    DEFAULT_SUBOPTIMALITY
}

#[cfg(feature = "serde")]
fn default_rectangles() -> bool {
    true
}

impl Default for SolverConfig {
    /// 60 s, seed 0, longest first, sparse low level, [`DEFAULT_MEMORY_LIMIT`], anytime,
    /// rectangle reasoning.
    fn default() -> SolverConfig {
        SolverConfig {
            time_limit: Duration::from_secs(60),
            seed: 0,
            priority: PriorityOrder::default(),
            low_level: LowLevel::default(),
            memory_limit: DEFAULT_MEMORY_LIMIT,
            first_solution: false,
            suboptimality: DEFAULT_SUBOPTIMALITY,
            rectangles: true,
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

    /// This config stopping LaCAM at its first solution (`true`) or improving it until the
    /// time limit (`false`, the default).
    pub fn with_first_solution(self, first_solution: bool) -> SolverConfig {
        SolverConfig {
            first_solution,
            ..self
        }
    }

    /// This config with another EECBS factor (checked by [`solve`]: 1 to 1000).
    pub fn with_suboptimality(self, suboptimality: f64) -> SolverConfig {
        SolverConfig {
            suboptimality,
            ..self
        }
    }

    /// This config with rectangle reasoning on (the default) or off (CBS, EECBS).
    pub fn with_rectangles(self, rectangles: bool) -> SolverConfig {
        SolverConfig { rectangles, ..self }
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

/// A better solution found during a [`solve_with_progress`] call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Improvement {
    /// Time since the call began (distance maps included).
    pub elapsed: Duration,
    /// The new solution's sum of costs (each strictly below the one before).
    pub soc: u64,
    /// What found it: `"pp"`, `"cbs"`, `"eecbs"`, `"lacam"` (the first solution), `"lacam*"`
    /// (LaCAM*'s rewiring) or `"lns"` (large-neighbourhood refinement).
    pub by: &'static str,
    /// A proven lower bound on the optimal sum of costs: the optimum itself for CBS (and for
    /// a LaCAM* that has proven its best), EECBS's bound (`soc <= w * lower_bound`), else
    /// [`Instance::lower_bound`].
    pub lower_bound: u64,
}

/// Solves `instance` with `solver` within `config.time_limit` and `config.memory_limit`.
///
/// `Err` only for bad arguments (the instance itself was checked when it was built) or a
/// lower layer refusing its input. Anytime LaCAM (the default; see
/// [`SolverConfig::first_solution`]) returns the best solution found by the time limit.
pub fn solve(
    instance: &Instance,
    solver: Solver,
    config: &SolverConfig,
) -> Result<SolveOutcome, MapfError> {
    solve_with_progress(instance, solver, config, &mut |_| {})
}

/// [`solve`], telling `on_improvement` (on the calling thread) of every better solution as it
/// is found: once for PP and CBS, the first solution and each improvement for LaCAM. The last
/// improvement reported is the solution returned.
pub fn solve_with_progress(
    instance: &Instance,
    solver: Solver,
    config: &SolverConfig,
    on_improvement: &mut dyn FnMut(&Improvement),
) -> Result<SolveOutcome, MapfError> {
    let started = Instant::now();
    let outcome = solve_within_limits(instance, solver, config, started, on_improvement);
    if let Ok((SolveOutcome::Solved(solution), lower_bound)) = &outcome
        && solver != Solver::Lacam
    {
        on_improvement(&Improvement {
            elapsed: started.elapsed(),
            soc: solution.soc(),
            by: solver.name(),
            lower_bound: (*lower_bound).max(instance.lower_bound()),
        });
    }
    match outcome {
        Ok((outcome, _)) => Ok(outcome),
        Err(Halt::Limit(limit)) => Ok(SolveOutcome::LimitReached(limit)),
        Err(Halt::Error(err)) => Err(err),
    }
}

/// The distance maps' memory, as named in a [`Limit::Memory`].
const MAPS: &str = "the distance maps";

/// [`solve`], with limits and errors as one [`Halt`]; beside the outcome, the solver's own
/// proven lower bound on the optimum (0 where it has none).
fn solve_within_limits(
    instance: &Instance,
    solver: Solver,
    config: &SolverConfig,
    started: Instant,
    on_improvement: &mut dyn FnMut(&Improvement),
) -> Result<(SolveOutcome, u64), Halt> {
    let weight = match solver {
        Solver::Eecbs => Some(Weight::new(config.suboptimality).ok_or_else(|| {
            MapfError::InvalidArgument(format!(
                "the suboptimality factor must be a number from 1 to {}, got {}",
                Weight::MAX,
                config.suboptimality
            ))
        })?),
        _ => None,
    };
    let deadline = Deadline::after(config.time_limit);
    let mut budget = Budget::new(config.memory_limit);
    budget.charge("the map graph", Graph::bytes_for(instance.grid()))?;
    let graph = Graph::new(instance.grid());
    let (starts, goals) = instance.vertex_ids(&graph);
    // PP can build its maps a chunk at a time: it does when all of them would take more than
    // half of what is left, leaving the search its room.
    if solver == Solver::Pp
        && config.low_level == LowLevel::Sparse
        && CompactMaps::bytes_for(&graph, goals.len()) > budget.remaining() / 2
    {
        let outcome = lazy_pp(instance, &graph, &starts, &goals, config, deadline, budget)?;
        return Ok((outcome, 0));
    }
    // The wavefront low level reads u32 maps as its heuristic; everything else takes u16
    // where the distances fit.
    let wide =
        matches!(solver, Solver::Pp | Solver::Cbs) && config.low_level == LowLevel::Wavefront;
    let maps = distances(
        instance.grid(),
        &graph,
        instance.goals(),
        wide,
        deadline,
        &mut budget,
    )?;
    let dist = DistTable::new(&maps, &graph)
        .ok_or_else(|| internal("distance maps are not one contiguous array"))?;
    let world = || -> Result<layered::World<'_>, Halt> {
        let wide = maps
            .wide()
            .ok_or_else(|| internal("the wavefront low level needs u32 maps"))?;
        Ok(layered::World::new(instance.grid(), &graph, wide, deadline))
    };
    let outcome = match solver {
        Solver::Lacam => (
            run_lacam(
                &Problem {
                    graph: &graph,
                    dist: &dist,
                    starts: &starts,
                    goals: &goals,
                },
                config,
                deadline,
                budget,
                started,
                on_improvement,
            )?,
            0,
        ),
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
            (pp_outcome(&graph, planned, config)?, 0)
        }
        Solver::Cbs | Solver::Eecbs => {
            // EECBS's focal low level is the sparse one.
            let layered = match config.low_level {
                LowLevel::Wavefront if weight.is_none() => Some(world()?),
                _ => None,
            };
            let tree = cbs::cbs(
                &cbs::Tree {
                    graph: &graph,
                    dist: &dist,
                    starts: &starts,
                    goals: &goals,
                    weight,
                    rectangles: config.rectangles,
                },
                deadline,
                budget,
                layered,
            );
            match tree {
                cbs::CbsResult::Solved { paths, lower_bound } => {
                    (SolveOutcome::Solved(from_paths(&graph, paths)), lower_bound)
                }
                cbs::CbsResult::NoSolution => (
                    SolveOutcome::NoSolution(format!(
                        "no solution exists: {solver} exhausted its constraint tree"
                    )),
                    0,
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

/// Bytes of building `goals` distance maps: the `u16` grid maps of one chunk while it is
/// compacted, and the compact maps.
fn narrow_bytes(grid: &Grid, graph: &Graph, goals: usize) -> u64 {
    map_bytes(grid, DIST_CHUNK.min(goals), 2) + CompactMaps::bytes_for(graph, goals)
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
    let chunk = DIST_CHUNK.min(goals.len());
    if grid.free_count() < 65_535 {
        budget.charge(MAPS, narrow_bytes(grid, graph, chunk))?;
    } else {
        budget.charge(MAPS, map_bytes(grid, chunk, 4))?;
    }
    let by_length = matches!(
        config.priority,
        PriorityOrder::ShortestFirst | PriorityOrder::LongestFirst
    );
    let mut lengths = vec![0; starts.len()];
    if by_length {
        for (first, chunk) in instance.goals().chunks(DIST_CHUNK).enumerate() {
            let unlimited = &mut Budget::new(u64::MAX);
            let maps = distances(grid, graph, chunk, false, deadline, unlimited)?;
            let dist =
                DistTable::new(&maps, graph).ok_or_else(|| internal("maps not contiguous"))?;
            for i in 0..chunk.len() {
                let agent = first * DIST_CHUNK + i;
                lengths[agent] = dist.get(i, starts[agent]);
            }
        }
    }
    let order = priority_order(config, starts.len(), |a| lengths[a]);
    let mut maps = LazyMaps {
        grid,
        graph,
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
    graph: &'a Graph,
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
        let dist =
            DistTable::new(chunk, self.graph).ok_or_else(|| internal("maps not contiguous"))?;
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
            self.graph,
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

/// One BFS map per goal, the exact heuristic of every solver: compact `u16` unless `wide` or
/// a distance does not fit, charged to `budget` before anything is allocated, built in chunks
/// so the deadline is checked between them. Goals are distinct ([`Instance`] checks it), so
/// no map is built twice.
fn distances(
    grid: &Grid,
    graph: &Graph,
    goals: &[Cell],
    wide: bool,
    deadline: Deadline,
    budget: &mut Budget,
) -> Result<Distances, Halt> {
    if !wide {
        let bytes = narrow_bytes(grid, graph, goals.len());
        budget.charge(MAPS, bytes)?;
        match compact(grid, graph, goals, deadline) {
            Err(Halt::Error(MapfError::Wavefront(WavefrontError::DistanceOverflow { .. }))) => {
                // Paths longer than 65,534 moves (huge mazes): u32 maps instead.
                budget.release(bytes);
            }
            // The chunk compacted last is gone, but its bytes stay charged: a little slack
            // (one chunk against all the maps) for a budget that never undercounts.
            narrow => return narrow.map(Distances::Narrow),
        }
    }
    budget.charge(MAPS, map_bytes(grid, goals.len(), 4))?;
    chunked(grid, goals, deadline).map(Distances::Wide)
}

/// Compact `u16` maps, one [`DIST_CHUNK`] of grid maps at a time, the deadline checked
/// between chunks.
fn compact(
    grid: &Grid,
    graph: &Graph,
    goals: &[Cell],
    deadline: Deadline,
) -> Result<CompactMaps, Halt> {
    let mut maps = CompactMaps::new(graph, goals.len());
    for chunk in goals.chunks(DIST_CHUNK) {
        if deadline.passed() {
            return Err(deadline.reached().into());
        }
        let chunk =
            DistanceMaps::<u16>::build(grid, chunk, Backend::Auto).map_err(MapfError::from)?;
        maps.push(graph, &chunk)
            .ok_or_else(|| internal("distance maps are not one contiguous array"))?;
    }
    if deadline.passed() {
        return Err(deadline.reached().into());
    }
    Ok(maps)
}

/// `u32` grid maps over chunks of [`DIST_CHUNK`] goals, the deadline checked between chunks.
fn chunked(
    grid: &Grid,
    goals: &[Cell],
    deadline: Deadline,
) -> Result<Vec<DistanceMaps<u32>>, Halt> {
    let mut maps = Vec::with_capacity(goals.len().div_ceil(DIST_CHUNK));
    for chunk in goals.chunks(DIST_CHUNK) {
        if deadline.passed() {
            return Err(deadline.reached().into());
        }
        maps.push(DistanceMaps::<u32>::build(grid, chunk, Backend::Auto).map_err(MapfError::from)?);
    }
    if deadline.passed() {
        return Err(deadline.reached().into());
    }
    Ok(maps)
}

/// What every solver thread reads.
#[derive(Clone, Copy)]
struct Problem<'a> {
    graph: &'a Graph,
    dist: &'a DistTable<'a>,
    starts: &'a [u32],
    goals: &'a [u32],
}

/// The best solution so far, shared by LaCAM* and the refiner.
struct Best {
    /// Per agent, cut after its final arrival.
    paths: Vec<Vec<u32>>,
    soc: u64,
    /// Bumped on every improvement, so a thread sees whether someone else improved.
    version: u64,
}

/// The meeting point of anytime LaCAM's threads.
struct Shared {
    best: Mutex<Option<Best>>,
    /// Signalled at the first solution and when LaCAM ends.
    wake: Condvar,
    /// LaCAM has ended with nothing left to improve: proven optimal, or no solution at all.
    finished: AtomicBool,
    /// The refiner's memory budget, set aside from LaCAM's at the first solution (stored
    /// before the first solution is offered).
    refiner_bytes: AtomicU64,
    /// The refiner runs on LaCAM's thread once its search has ended (stored before the first
    /// solution is offered); the refiner's own thread then ends.
    refine_on_search_thread: AtomicBool,
    started: Instant,
    /// The instance's lower bound, reported with every improvement.
    lower_bound: u64,
}

impl Shared {
    /// Takes `paths` as the best if they beat it, telling `progress`; returns the new version.
    fn offer(
        &self,
        paths: Vec<Vec<u32>>,
        by: &'static str,
        progress: &mpsc::Sender<Improvement>,
    ) -> Option<u64> {
        let soc: u64 = paths.iter().map(|p| p.len() as u64 - 1).sum();
        let mut best = self.best.lock().unwrap_or_else(|e| e.into_inner());
        if best.as_ref().is_some_and(|b| b.soc <= soc) {
            return None;
        }
        let version = best.as_ref().map_or(0, |b| b.version + 1);
        *best = Some(Best {
            paths,
            soc,
            version,
        });
        // The receiver lives until every sender is gone: a failed send cannot happen.
        let _ = progress.send(Improvement {
            elapsed: self.started.elapsed(),
            soc,
            by,
            lower_bound: self.lower_bound,
        });
        self.wake.notify_all();
        Some(version)
    }

    fn finish(&self, nothing_left: bool) {
        self.finished.store(nothing_left, Ordering::Release);
        // Take the lock so a refiner between its check and its wait cannot miss the signal.
        drop(self.best.lock().unwrap_or_else(|e| e.into_inner()));
        self.wake.notify_all();
    }

    fn finished(&self) -> bool {
        self.finished.load(Ordering::Acquire)
    }
}

/// LaCAM, in a thread whose stack grows with the number of agents (PIBT's priority
/// inheritance recurses once per agent in a push chain); anytime, with the LNS refiner on a
/// second thread, both improving one shared best solution until the deadline. LaCAM has the
/// whole budget up to its first solution; then it sets aside what the refiner needs for that
/// solution (its path table and one capped search; later solutions are smaller) and the
/// search starts over with the rest, guided by SUO's hints ([`guided`]), when the pre-pass
/// fits beside the refiner's share. When it does not (10,000 agents in 1 GB), the first
/// search ends there and its thread goes on as the refiner: continuing it beside the refiner
/// found no improvement in 20 s at that scale (every one came from LNS), and refining on the
/// same thread reuses the memory the search freed, which glibc keeps in the freeing thread's
/// arena (peak RSS 888 MiB instead of 989 MiB with the search continued beside a refiner
/// thread; see BENCHMARKS). Once the guided search stops beating the best, its thread
/// becomes a second LNS worker on the best solution ([`refine_from`]) with what is left of
/// LaCAM's budget. Reaching either budget after the first solution just ends that thread's
/// improving.
fn run_lacam(
    problem: &Problem<'_>,
    config: &SolverConfig,
    deadline: Deadline,
    budget: Budget,
    started: Instant,
    on_improvement: &mut dyn FnMut(&Improvement),
) -> Result<SolveOutcome, Halt> {
    let anytime = !config.first_solution;
    let mode = if anytime {
        lacam::Mode::Anytime
    } else {
        lacam::Mode::FirstSolution
    };
    let shared = Shared {
        best: Mutex::new(None),
        wake: Condvar::new(),
        finished: AtomicBool::new(false),
        refiner_bytes: AtomicU64::new(0),
        refine_on_search_thread: AtomicBool::new(false),
        started,
        lower_bound: (0..problem.starts.len())
            .map(|a| u64::from(problem.dist.get(a, problem.starts[a])))
            .sum(),
    };
    let (progress, reports) = mpsc::channel::<Improvement>();
    let search = |progress: mpsc::Sender<Improvement>| {
        let p = problem;
        let mut budget = budget;
        let mut found = 0;
        // SUO's hints need their pre-pass's memory beside what the refiner sets aside.
        let suo_bytes = Scatter::bytes_for(p.graph, p.dist, p.starts);
        let suo = std::cell::Cell::new(false);
        // Solutions that beat the best when offered: how the guided restarts see that they
        // no longer keep up with the refiner.
        let accepted = std::cell::Cell::new(0u64);
        let mut improved = |configs: &[lacam::Config], left: u64| {
            let by = if found == 0 { "lacam" } else { "lacam*" };
            let paths = vertex_paths(configs);
            // The refiner's share, set aside before it can see the solution it will index.
            let mut handoff = lacam::Handoff {
                aside: 0,
                stop: false,
            };
            if anytime && found == 0 {
                let bytes = refiner_bytes(p.graph, &paths).min(left);
                shared.refiner_bytes.store(bytes, Ordering::Release);
                handoff.aside = bytes;
                suo.set(left - bytes >= suo_bytes);
                handoff.stop = true;
                // Told before the solution is offered, which is what wakes the refiner.
                shared
                    .refine_on_search_thread
                    .store(!suo.get(), Ordering::Release);
            }
            found += 1;
            if shared.offer(paths, by, &progress).is_some() {
                accepted.set(accepted.get() + 1);
            }
            handoff
        };
        let vanilla = lacam::lacam(
            p.graph,
            p.dist,
            p.starts,
            p.goals,
            None,
            config.seed,
            deadline,
            &mut budget,
            mode,
            &mut improved,
        );
        let before_suo = budget.remaining();
        let result = if suo.get() && !deadline.passed() {
            // The first solution came from plain PIBT; the anytime search starts over with
            // SUO's hints (built within half the time left, as lacam3 does).
            match Scatter::build(
                p.graph,
                p.dist,
                p.starts,
                p.goals,
                config.seed,
                deadline.halfway(),
                &mut budget,
            ) {
                Ok(scatter) => guided(
                    p,
                    &scatter,
                    config.seed,
                    deadline,
                    &mut budget,
                    &mut improved,
                    &accepted,
                ),
                Err(_) => vanilla,
            }
        } else {
            vanilla
        };
        // SUO's tables are gone with the guided search.
        budget.release(before_suo - budget.remaining());
        // Every solution was offered to `shared.best`; the search's own copy (a whole
        // configuration per timestep) goes now instead of living beside the refiner's.
        let (mut ended, nothing_left) = match result {
            lacam::LacamResult::Solved { proven, .. } => (Ended::Solved, proven),
            lacam::LacamResult::NoSolution => (Ended::NoSolution, true),
            lacam::LacamResult::Limit(limit) => (Ended::Limit(limit), found == 0),
        };
        let refine_here = shared.refine_on_search_thread.load(Ordering::Acquire);
        if anytime && !refine_here && !nothing_left && !deadline.passed() {
            // LaCAM no longer keeps up: this thread becomes a second LNS worker.
            let current = shared
                .best
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_ref()
                .map(|b| (b.paths.clone(), b.version));
            if let Some((paths, seen)) = current {
                let seed = config.seed ^ 0x5ec0_4d00;
                refine_from(p, paths, seen, seed, deadline, &shared, &progress, budget);
            }
        }
        if anytime && refine_here {
            refine_until(p, config.seed, deadline, &shared, &progress, true);
            // The only improver is done: the answer's cells are made here, in the memory
            // the refiner has just freed, rather than in the calling thread's.
            let best = shared.best.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(best) = best {
                ended = Ended::Converted(from_paths(p.graph, best.paths));
            }
        }
        shared.finish(nothing_left);
        ended
    };
    let stack = (1 << 20) + 512 * problem.starts.len();
    let result = std::thread::scope(|scope| {
        let searcher = std::thread::Builder::new()
            .name("cuplan-lacam".into())
            .stack_size(stack)
            .spawn_scoped(scope, {
                let progress = progress.clone();
                move || search(progress)
            });
        let refiner = (anytime && searcher.is_ok()).then(|| {
            let progress = progress.clone();
            let shared = &shared;
            scope.spawn(move || {
                refine_until(problem, config.seed, deadline, shared, &progress, false)
            })
        });
        let inline = match &searcher {
            Ok(_) => None,
            // No thread available: search here (fine unless the push chains are enormous).
            Err(_) => Some(search(progress.clone())),
        };
        drop(progress);
        for report in reports {
            on_improvement(&report);
        }
        if let Some(refiner) = refiner
            && let Err(panic) = refiner.join()
        {
            std::panic::resume_unwind(panic);
        }
        match (searcher, inline) {
            (Ok(handle), _) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            (Err(_), Some(result)) => result,
            (Err(_), None) => unreachable!("the search ran inline when no thread started"),
        }
    });
    let best = shared.best.into_inner().unwrap_or_else(|e| e.into_inner());
    match (best, result) {
        (Some(best), _) => Ok(SolveOutcome::Solved(from_paths(problem.graph, best.paths))),
        (None, Ended::Converted(solution)) => Ok(SolveOutcome::Solved(solution)),
        (None, Ended::NoSolution) => Ok(SolveOutcome::NoSolution(
            "no solution exists: LaCAM explored every reachable configuration".into(),
        )),
        (None, Ended::Limit(limit)) => Err(Halt::Limit(limit)),
        // `improved` offers every solution LaCAM finds before it can return one.
        (None, Ended::Solved) => unreachable!("LaCAM returned a solution it never offered"),
    }
}

/// Guided restarts in a row that beat nothing before the LaCAM thread turns to refining.
const STALE_RESTARTS: u32 = 2;

/// The anytime search guided by SUO's hints: LaCAM* for a tenth of the time left (enough
/// for a small instance to exhaust its space, which proves its best), then the guided
/// first-solution search restarted with fresh seeds, each restart's answer offered to
/// `improved` (`accepted` counts the offers that beat the best), until `deadline` or until
/// [`STALE_RESTARTS`] in a row beat nothing. Measured at 1,000 agents, 10 s: one LaCAM* run
/// to the deadline found nothing after its first guided solution on lak303d and ost003d,
/// while the guided PIBT's answers vary by seed enough that the best of the restarts is 1-4 %
/// of the lower bound below it (SoC / LB 1.464 -> 1.451 and 1.400 -> 1.358; a quarter of the
/// time for LaCAM* gave 1.453 / 1.361, none 1.446 / 1.361; see BENCHMARKS). A trace of every
/// improvement's source showed the restarts stop winning by ~4 s on all five maps: the LNS
/// refiner's best is by then below anything a restart finds.
fn guided(
    p: &Problem<'_>,
    scatter: &Scatter,
    seed: u64,
    deadline: Deadline,
    budget: &mut Budget,
    improved: &mut dyn FnMut(&[lacam::Config], u64) -> lacam::Handoff,
    accepted: &std::cell::Cell<u64>,
) -> lacam::LacamResult {
    let mut search = |seed, deadline, mode| {
        lacam::lacam(
            p.graph,
            p.dist,
            p.starts,
            p.goals,
            Some(scatter),
            seed,
            deadline,
            budget,
            mode,
            improved,
        )
    };
    let first = search(seed, deadline.share(10), lacam::Mode::Anytime);
    let mut restarts = Rng::new(seed ^ 0x7e57_a127);
    // A slice that ended before its first guided solution (a large instance) goes on in the
    // restarts, which have the whole time left.
    let restart = match first {
        lacam::LacamResult::Solved { proven } => !proven,
        lacam::LacamResult::Limit(Limit::Time { .. }) => true,
        _ => false,
    };
    if restart {
        let mut stale = 0;
        while !deadline.passed() && stale < STALE_RESTARTS {
            let before = accepted.get();
            let ended = search(restarts.next_u64(), deadline, lacam::Mode::FirstSolution);
            if matches!(ended, lacam::LacamResult::Limit(Limit::Memory { .. })) {
                break;
            }
            stale = if accepted.get() > before {
                0
            } else {
                stale + 1
            };
        }
    }
    first
}

/// How the LaCAM thread ended.
enum Ended {
    /// Its solutions are in [`Shared::best`].
    Solved,
    /// The best solution, taken from [`Shared::best`] once nothing could improve it.
    Converted(Solution),
    NoSolution,
    Limit(Limit),
}

/// Bytes the refiner needs to refine `paths`: its path table, the copy of the paths each
/// improvement hands over, and one capped search.
fn refiner_bytes(graph: &Graph, paths: &[Vec<u32>]) -> u64 {
    let states: u64 = paths.iter().map(|p| p.len() as u64).sum();
    let times = refine::PathTable::times_for(paths);
    refine::PathTable::bytes_for(graph.len(), states, times) + 8 * states + refine::SEARCH_BYTES
}

/// The refiner's thread: waits for LaCAM's first solution, then refines it ([`refine_from`])
/// within the budget LaCAM set aside for it at the first solution.
fn refine_until(
    problem: &Problem<'_>,
    seed: u64,
    deadline: Deadline,
    shared: &Shared,
    progress: &mpsc::Sender<Improvement>,
    on_search_thread: bool,
) {
    let Some((paths, seen)) = first_solution(shared, deadline) else {
        return;
    };
    if on_search_thread != shared.refine_on_search_thread.load(Ordering::Acquire) {
        return;
    }
    let budget = Budget::new(shared.refiner_bytes.load(Ordering::Acquire));
    refine_from(
        problem, paths, seen, seed, deadline, shared, progress, budget,
    );
}

/// Runs LNS steps from `paths` (version `seen` of the best), going on from the shared best
/// whenever another improver (LaCAM*, or a second LNS worker) has beaten this run's, until
/// the deadline, `budget`, or LaCAM having proven its best optimal. Two workers from one
/// best are two independent tries at each improvement: whichever lands first is the new
/// best, and the other switches to it by re-indexing only the paths that changed.
#[allow(clippy::too_many_arguments)]
fn refine_from(
    problem: &Problem<'_>,
    paths: Vec<Vec<u32>>,
    mut seen: u64,
    seed: u64,
    deadline: Deadline,
    shared: &Shared,
    progress: &mpsc::Sender<Improvement>,
    mut budget: Budget,
) {
    let table = refiner_bytes(problem.graph, &paths) - refine::SEARCH_BYTES;
    // The table covers these times with occupancy bits, as `refiner_bytes` charged.
    let times = refine::PathTable::times_for(&paths);
    if budget.charge("the LNS refiner", table).is_err() {
        return;
    }
    let p = problem;
    let mut lns = refine::Lns::new(
        p.graph,
        p.dist,
        p.starts,
        p.goals,
        paths,
        times,
        seed ^ 0x9e37,
    );
    while !deadline.passed() && !shared.finished() {
        let changes = {
            let best = shared.best.lock().unwrap_or_else(|e| e.into_inner());
            match best.as_ref() {
                Some(best) if best.version != seen => {
                    seen = best.version;
                    (best.soc < lns.soc()).then(|| lns.changes_to(&best.paths))
                }
                _ => None,
            }
        };
        if let Some(changes) = changes {
            lns.adopt(changes);
            continue;
        }
        match lns.step(deadline, &budget) {
            refine::Step::Improved => {
                if let Some(version) = shared.offer(lns.paths().to_vec(), "lns", progress) {
                    seen = version;
                }
            }
            refine::Step::Kept => {}
            refine::Step::Stop => break,
        }
    }
}

/// Waits for the first solution: its paths and version, or `None` when LaCAM ended without
/// one or the deadline passed.
fn first_solution(shared: &Shared, deadline: Deadline) -> Option<(Vec<Vec<u32>>, u64)> {
    let mut best = shared.best.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(b) = best.as_ref() {
            return Some((b.paths.clone(), b.version));
        }
        if shared.finished() || deadline.passed() {
            return None;
        }
        // A timeout as well as the signal: `finish(false)` (LaCAM stopped by a limit before
        // any solution) does not set the flag, and the deadline must be noticed.
        best = shared
            .wake
            .wait_timeout(best, Duration::from_millis(20))
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
}

/// Joint configurations to per-agent vertex paths, each cut after its final arrival.
fn vertex_paths(configs: &[Arc<[u32]>]) -> Vec<Vec<u32>> {
    let agents = configs.first().map_or(0, |c| c.len());
    (0..agents)
        .map(|i| {
            let mut path: Vec<u32> = configs.iter().map(|c| c[i]).collect();
            let last = path.last().copied();
            while path.len() > 1 && path[path.len() - 2..].iter().all(|&v| Some(v) == last) {
                path.pop();
            }
            path
        })
        .collect()
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

fn trimmed(mut path: Vec<Cell>) -> Vec<Cell> {
    let keep = Solution::agent_cost(&path) as usize + 1;
    path.truncate(keep);
    path
}

/// The README's example, compiled and run as a doctest (so the crates.io page matches the API).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

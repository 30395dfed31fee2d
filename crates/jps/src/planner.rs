//! `Planner`: an algorithm bound to a grid (plus its jump table for JPS+), and the query API.

use std::time::Duration;

use cuplan_grid::{Cell, Grid, GridError};
use rayon::prelude::*;

use crate::astar::AStarExpander;
use crate::engine::{Expander, Path, SearchOutcome, Searcher};
use crate::jump::{BitJumper, CellJumper, JpsExpander, TableJumper};
use crate::table::JumpTable;
use crate::{Algorithm, Endpoint, JpsError};

/// An algorithm ready to answer queries on one grid. Cheap to share between threads
/// (`Sync`); each thread brings its own [`Searcher`].
#[derive(Debug)]
pub struct Planner<'g> {
    grid: &'g Grid,
    algorithm: Algorithm,
    preprocess_time: Duration,
    table: Option<JumpTable>,
}

impl<'g> Planner<'g> {
    /// Binds `algorithm` to `grid`, building whatever it precomputes (the connected
    /// components always; the jump table for the preprocessed variants).
    ///
    /// Errors with [`JpsError::Grid`] for a grid whose paths could be too long for exact
    /// heap keys (2^21 free cells or more), or too large for a jump table
    /// ([`MAX_TABLE_SIDE`](crate::MAX_TABLE_SIDE)).
    pub fn new(grid: &'g Grid, algorithm: Algorithm) -> Result<Planner<'g>, JpsError> {
        check_grid(grid)?;
        let started = std::time::Instant::now();
        let table = if algorithm.is_preprocessed() {
            Some(JumpTable::build(grid)?)
        } else {
            None
        };
        grid.components();
        Ok(Planner {
            grid,
            algorithm,
            preprocess_time: started.elapsed(),
            table,
        })
    }

    /// Binds a preprocessed algorithm to `grid` with an existing table (e.g. one brought up
    /// to date with [`JumpTable::repair`] after the grid changed) instead of building one.
    ///
    /// Errors with [`JpsError::NoTable`] for an algorithm without tables and
    /// [`JpsError::StaleTable`] when the table does not describe the grid as it is now.
    pub fn with_table(
        grid: &'g Grid,
        algorithm: Algorithm,
        table: JumpTable,
    ) -> Result<Planner<'g>, JpsError> {
        if !algorithm.is_preprocessed() {
            return Err(JpsError::NoTable(algorithm));
        }
        check_grid(grid)?;
        table.check(grid)?;
        let started = std::time::Instant::now();
        grid.components();
        Ok(Planner {
            grid,
            algorithm,
            preprocess_time: started.elapsed(),
            table: Some(table),
        })
    }

    /// The jump table, for preprocessed algorithms.
    pub fn table(&self) -> Option<&JumpTable> {
        self.table.as_ref()
    }

    /// Gives the jump table back (to repair it after grid changes), if there is one.
    pub fn into_table(self) -> Option<JumpTable> {
        self.table
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The grid.
    pub fn grid(&self) -> &'g Grid {
        self.grid
    }

    /// Time spent in [`Planner::new`] building tables (jump table and components).
    pub fn preprocess_time(&self) -> Duration {
        self.preprocess_time
    }

    /// Bytes of precomputed jump tables (0 for algorithms without one).
    pub fn table_bytes(&self) -> usize {
        self.table.as_ref().map_or(0, JumpTable::bytes)
    }

    /// An optimal path from `start` to `goal`, or `None` when none exists.
    ///
    /// Errors when either cell is outside the grid or blocked (naming which).
    pub fn search(
        &self,
        searcher: &mut Searcher,
        start: Cell,
        goal: Cell,
    ) -> Result<Option<Path>, JpsError> {
        self.search_limited(searcher, start, goal, u64::MAX)
            .map(SearchOutcome::path)
    }

    /// Like [`Planner::search`], stopping with [`SearchOutcome::LimitReached`] after
    /// `max_expansions` expansions.
    pub fn search_limited(
        &self,
        searcher: &mut Searcher,
        start: Cell,
        goal: Cell,
        max_expansions: u64,
    ) -> Result<SearchOutcome, JpsError> {
        self.check_endpoint(start, Endpoint::Start)?;
        self.check_endpoint(goal, Endpoint::Goal)?;
        searcher.reset_stats();
        if start == goal {
            return Ok(SearchOutcome::Found(Path {
                waypoints: vec![start],
                cost: cuplan_grid::OctileCost::ZERO,
            }));
        }
        if !self.grid.connected(start, goal) {
            return Ok(SearchOutcome::NoPath);
        }
        let grid = self.grid;
        let outcome = match self.algorithm {
            Algorithm::AStar => self.run(
                searcher,
                &AStarExpander { grid },
                start,
                goal,
                max_expansions,
            ),
            Algorithm::Jps => self.run(
                searcher,
                &JpsExpander {
                    jumper: CellJumper { grid },
                    pruned: false,
                },
                start,
                goal,
                max_expansions,
            ),
            Algorithm::JpsBit | Algorithm::JpsBitPrune => self.run(
                searcher,
                &JpsExpander {
                    jumper: BitJumper { grid },
                    pruned: self.algorithm.is_pruned(),
                },
                start,
                goal,
                max_expansions,
            ),
            Algorithm::JpsBitPre | Algorithm::JpsBitPrunePre => {
                let Some(table) = self.table.as_ref() else {
                    return Err(JpsError::Unsupported(self.algorithm));
                };
                self.run(
                    searcher,
                    &JpsExpander {
                        jumper: TableJumper { grid, table },
                        pruned: self.algorithm.is_pruned(),
                    },
                    start,
                    goal,
                    max_expansions,
                )
            }
        };
        Ok(outcome)
    }

    fn run<E: Expander>(
        &self,
        searcher: &mut Searcher,
        expander: &E,
        start: Cell,
        goal: Cell,
        max_expansions: u64,
    ) -> SearchOutcome {
        searcher.run(self.grid, expander, start, goal, max_expansions)
    }

    fn check_endpoint(&self, c: Cell, endpoint: Endpoint) -> Result<(), JpsError> {
        let g = self.grid;
        if !g.contains(c) {
            return Err(JpsError::OutOfRange {
                endpoint,
                x: c.x,
                y: c.y,
                width: g.width(),
                height: g.height(),
            });
        }
        if !g.is_free(c) {
            return Err(JpsError::Blocked {
                endpoint,
                x: c.x,
                y: c.y,
            });
        }
        Ok(())
    }
}

/// Refuses grids whose optimal paths could be too long for exact heap keys.
fn check_grid(grid: &Grid) -> Result<(), JpsError> {
    // Heap keys (`OctileCost::key`) order costs exactly while a cost has fewer than 2^21
    // straight steps; an optimal path visits each free cell at most once, and the
    // heuristic adds at most width + height.
    let bound = grid.free_count() + u64::from(grid.width()) + u64::from(grid.height());
    if bound >= 1 << 21 {
        return Err(JpsError::Grid(GridError::InvalidSize {
            width: u64::from(grid.width()),
            height: u64::from(grid.height()),
            reason: format!(
                "{} free cells: exact search supports fewer than {} free cells plus width \
                 plus height",
                grid.free_count(),
                1u64 << 21
            ),
        }));
    }
    Ok(())
}

/// One query with a fresh planner and searcher: convenient, but builds the planner's tables
/// every call; reuse a [`Planner`] and a [`Searcher`] for many queries.
pub fn find_path(
    grid: &Grid,
    algorithm: Algorithm,
    start: Cell,
    goal: Cell,
) -> Result<Option<Path>, JpsError> {
    Planner::new(grid, algorithm)?.search(&mut Searcher::new(), start, goal)
}

/// Answers many queries in parallel (rayon), results in input order.
///
/// Each rayon worker thread keeps one [`Searcher`] in a thread-local for its lifetime (rayon's
/// `map_init` would build one per work split, each allocating a node table for the grid), so a
/// batch allocates nothing after each worker's first query. The per-thread table grows to the
/// largest grid searched and is kept until the thread exits.
pub fn find_paths(
    planner: &Planner<'_>,
    queries: &[(Cell, Cell)],
) -> Vec<Result<Option<Path>, JpsError>> {
    thread_local! {
        static SEARCHER: std::cell::RefCell<Searcher> = std::cell::RefCell::new(Searcher::new());
    }
    queries
        .par_iter()
        .map(|&(a, b)| {
            SEARCHER.with(|s| match s.try_borrow_mut() {
                Ok(mut searcher) => planner.search(&mut searcher, a, b),
                // Only reachable if a search ever re-entered this function on the same thread.
                Err(_) => planner.search(&mut Searcher::new(), a, b),
            })
        })
        .collect()
}

/// [`find_paths`] with searchers made by `new_searcher` (one per rayon work split), e.g.
/// [`Searcher::paged`] so that each thread's memory follows the area its queries touch rather
/// than the map, or [`Searcher::bounded`] to cap it (queries over the cap give `Ok(None)`).
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_jps::{Algorithm, Planner, Searcher, find_paths_with};
///
/// let grid = Grid::open(256, 256)?;
/// let planner = Planner::new(&grid, Algorithm::JpsBitPrune)?;
/// let queries = [(Cell::new(10, 10), Cell::new(40, 20)), (Cell::new(200, 9), Cell::new(190, 30))];
/// let paths = find_paths_with(&planner, &queries, Searcher::paged);
/// assert!(paths.iter().all(|p| matches!(p, Ok(Some(_)))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_paths_with(
    planner: &Planner<'_>,
    queries: &[(Cell, Cell)],
    new_searcher: impl Fn() -> Searcher + Sync + Send,
) -> Vec<Result<Option<Path>, JpsError>> {
    queries
        .par_iter()
        .map_init(new_searcher, |searcher, &(a, b)| {
            planner.search(searcher, a, b)
        })
        .collect()
}

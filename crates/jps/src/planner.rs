//! `Planner`: an algorithm bound to a grid it owns (behind an `Arc`, shared by clones), plus
//! its jump table for JPS+, and the query API.

use std::sync::Arc;
use std::time::Duration;

use cuplan_grid::{Cell, Grid, GridError, KEY_EXACT_DIAGONAL_LIMIT};
#[cfg(feature = "rayon")]
use rayon::prelude::*;

use crate::astar::AStarExpander;
use crate::engine::{Expander, Path, SearchOutcome, Searcher};
use crate::jump::{BitJumper, CellJumper, JpsExpander, TableJumper};
use crate::table::{JumpTable, Upkeep};
use crate::{Algorithm, Endpoint, JpsError, TableRefused};

/// An algorithm ready to answer queries on a grid it owns.
///
/// The grid (and the jump table of the preprocessed algorithms) sit behind an [`Arc`]:
/// cloning a planner is cheap and the clones share them; a planner can live in a struct
/// beside its [`Searcher`], and is `Clone + Send + Sync`. Each thread brings its own
/// [`Searcher`].
///
/// **Changing the grid**: [`Planner::update_grid`] hands out the grid mutably and, when the
/// edit is done, brings the jump table up to date from the grid's change journal (repairing
/// what the changes reach, or rebuilding when the journal no longer covers them). The table
/// therefore always describes the grid it is used with; a search also checks this and
/// refuses a stale table ([`JpsError::StaleTable`]) rather than use it. A grid shared with
/// other owners (planner clones, your own `Arc`) is copied on the first edit
/// (copy-on-write), so edits never reach a clone.
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_jps::{Algorithm, Planner, Searcher};
///
/// struct Nav {
///     planner: Planner,
///     searcher: Searcher,
/// }
///
/// let grid = Grid::from_ascii("
///     .....
///     .....
///     .....
/// ")?;
/// let mut nav = Nav { planner: Planner::new(grid, Algorithm::JpsBitPrunePre)?, searcher: Searcher::new() };
/// let (a, b) = (Cell::new(0, 1), Cell::new(4, 1));
/// let before = nav.planner.search(&mut nav.searcher, a, b)?.expect("open").cost;
/// // A wall goes up between them, leaving a gap at the bottom; the table follows.
/// nav.planner.update_grid(|g| -> Result<(), cuplan_grid::GridError> {
///     g.set_blocked(Cell::new(2, 0))?;
///     g.set_blocked(Cell::new(2, 1))?;
///     Ok(())
/// })?;
/// let after = nav.planner.search(&mut nav.searcher, a, b)?.expect("around").cost;
/// assert!(after > before);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Planner {
    grid: Arc<Grid>,
    algorithm: Algorithm,
    preprocess_time: Duration,
    table: Option<Arc<JumpTable>>,
}

impl Planner {
    /// Binds `algorithm` to `grid` (a [`Grid`], which the planner then owns, or an
    /// `Arc<Grid>` to share), building the jump table of the preprocessed variants and the
    /// grid's components if they are not built yet.
    ///
    /// Errors with [`JpsError::Grid`] for a grid beyond exact search (more cells than `u32`
    /// node indices name, or paths too long for exact heap keys); no grid within the grid
    /// crate's default limits is refused.
    pub fn new(grid: impl Into<Arc<Grid>>, algorithm: Algorithm) -> Result<Planner, JpsError> {
        let grid = grid.into();
        check_grid(&grid)?;
        let (table, preprocess_time) = timed(|| {
            algorithm
                .is_preprocessed()
                .then(|| JumpTable::build(&grid).map(Arc::new))
                .transpose()
        });
        let table = table?;
        grid.components();
        Ok(Planner {
            grid,
            algorithm,
            preprocess_time,
            table,
        })
    }

    /// Binds a preprocessed algorithm to `grid` with an existing table instead of building
    /// one. The table is brought up to date first: repaired from the grid's change journal
    /// when it was built for an earlier generation of this grid (or of one it was cloned
    /// from), rebuilt otherwise, so no stale table can be bound.
    ///
    /// Errors, giving the table back, with [`JpsError::NoTable`] for an algorithm without
    /// tables, or the errors of [`Planner::new`].
    pub fn with_table(
        grid: impl Into<Arc<Grid>>,
        algorithm: Algorithm,
        mut table: JumpTable,
    ) -> Result<Planner, TableRefused> {
        let grid = grid.into();
        if !algorithm.is_preprocessed() {
            return Err(TableRefused::new(JpsError::NoTable(algorithm), table));
        }
        let (repaired, preprocess_time) =
            timed(|| check_grid(&grid).and_then(|()| table.repair(&grid)));
        if let Err(e) = repaired {
            return Err(TableRefused::new(e, table));
        }
        grid.components();
        Ok(Planner {
            grid,
            algorithm,
            preprocess_time,
            table: Some(Arc::new(table)),
        })
    }

    /// Edits the grid with `edit` and then brings the jump table up to date (see
    /// [`JumpTable::repair`]); returns what `edit` returned. Batch a tick's changes into one
    /// call: the table is repaired once, for all of them. The grid is copied first if anyone
    /// else holds it.
    pub fn update_grid<R>(&mut self, edit: impl FnOnce(&mut Grid) -> R) -> R {
        let out = edit(Arc::make_mut(&mut self.grid));
        self.refresh_table();
        out
    }

    /// Replaces the grid, e.g. with a newer copy of the same map that you edited yourself,
    /// and brings the table up to date from that grid's journal (a grid cloned from this
    /// planner's grid and then changed is repaired; any other is rebuilt for).
    ///
    /// Errors with [`JpsError::Grid`] for a grid beyond exact search (as [`Planner::new`]);
    /// the planner keeps its old grid then.
    pub fn replace_grid(&mut self, grid: impl Into<Arc<Grid>>) -> Result<Upkeep, JpsError> {
        let grid = grid.into();
        check_grid(&grid)?;
        let upkeep = match &mut self.table {
            Some(table) => Arc::make_mut(table).repair(&grid)?,
            None => Upkeep::Current,
        };
        grid.components();
        self.grid = grid;
        Ok(upkeep)
    }

    /// Repairs the table after an edit of the planner's own grid. Repairing a table for the
    /// grid it was built for cannot fail (the size is unchanged, so a rebuild succeeds as the
    /// first build did); were it to, the table would stay stale and searches refuse it.
    fn refresh_table(&mut self) {
        if let Some(table) = &mut self.table
            && !table.is_current(&self.grid)
        {
            let _stays_stale_on_error = Arc::make_mut(table).repair(&self.grid);
        }
    }

    /// The jump table, for preprocessed algorithms.
    pub fn table(&self) -> Option<&JumpTable> {
        self.table.as_deref()
    }

    /// Gives the jump table back, if there is one (copied when a clone still shares it).
    pub fn into_table(self) -> Option<JumpTable> {
        self.table
            .map(|t| Arc::try_unwrap(t).unwrap_or_else(|shared| (*shared).clone()))
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The grid's `Arc`, to share it without copying.
    pub fn shared_grid(&self) -> &Arc<Grid> {
        &self.grid
    }

    /// Time spent building (or bringing up to date) the jump table when the planner was made;
    /// zero for algorithms without one, and on `wasm32-unknown-unknown` (no clock there). The grid's components are not counted: they belong
    /// to the grid and are built once for every planner of it.
    pub fn preprocess_time(&self) -> Duration {
        self.preprocess_time
    }

    /// Bytes of precomputed jump tables (0 for algorithms without one).
    pub fn table_bytes(&self) -> usize {
        self.table.as_ref().map_or(0, |t| t.bytes())
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
        if !self.grid.maybe_connected(start, goal) {
            return Ok(SearchOutcome::NoPath);
        }
        let grid: &Grid = &self.grid;
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
                let Some(table) = self.table.as_deref() else {
                    return Err(JpsError::Unsupported(self.algorithm));
                };
                table.check(grid)?;
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
        searcher.run(&self.grid, expander, start, goal, max_expansions)
    }

    fn check_endpoint(&self, c: Cell, endpoint: Endpoint) -> Result<(), JpsError> {
        let g: &Grid = &self.grid;
        if !g.contains(c) {
            return Err(JpsError::OutOfRange {
                endpoint,
                cell: c,
                width: g.width(),
                height: g.height(),
            });
        }
        if !g.is_free(c) {
            return Err(JpsError::Blocked { endpoint, cell: c });
        }
        Ok(())
    }
}

/// Refuses grids beyond what exact search supports; every grid the grid crate builds under
/// its default limits (at most 2^28 cells, sides at most 2^20) passes. Larger ones can exist
/// through explicit cell limits ([`Grid::open_with_limit`]).
fn check_grid(grid: &Grid) -> Result<(), JpsError> {
    let refuse = |reason: String| {
        Err(JpsError::Grid(GridError::InvalidSize {
            width: u64::from(grid.width()),
            height: u64::from(grid.height()),
            reason,
        }))
    };
    // Nodes are named by their row-major cell index in a `u32`.
    if grid.cell_count() as u64 > u64::from(u32::MAX) {
        return refuse(format!(
            "{} cells: search nodes are u32 cell indices (at most {} cells)",
            grid.cell_count(),
            u32::MAX
        ));
    }
    // Heap keys (`OctileCost::key`) order costs exactly while diagonal counts differ by less
    // than 2^29, and every g and f a search compares has at most free + 2·max(width, height)
    // diagonal steps (the proof is at `OctileCost::key`).
    let longer_side = u64::from(grid.width().max(grid.height()));
    let diagonal_bound = grid.free_count() + 2 * longer_side;
    if diagonal_bound >= u64::from(KEY_EXACT_DIAGONAL_LIMIT) {
        return refuse(format!(
            "{} free cells: exact heap keys need free cells + 2 × the longer side below {}",
            grid.free_count(),
            KEY_EXACT_DIAGONAL_LIMIT
        ));
    }
    Ok(())
}

/// Runs `f` and measures it. On `wasm32-unknown-unknown` there is no clock (`Instant::now`
/// panics there), so the time is zero.
fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    #[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
    {
        let started = std::time::Instant::now();
        let out = f();
        (out, started.elapsed())
    }
    #[cfg(all(target_family = "wasm", target_os = "unknown"))]
    {
        (f(), Duration::ZERO)
    }
}

/// One query with a fresh planner (on a copy of `grid`) and searcher: convenient, but copies
/// the grid and builds the planner's tables every call; reuse a [`Planner`] and a
/// [`Searcher`] for many queries.
pub fn find_path(
    grid: &Grid,
    algorithm: Algorithm,
    start: Cell,
    goal: Cell,
) -> Result<Option<Path>, JpsError> {
    Planner::new(grid.clone(), algorithm)?.search(&mut Searcher::new(), start, goal)
}

/// Answers many queries, results in input order: in parallel on the current rayon pool with
/// the feature `rayon` (the global pool, or the pool whose `install` runs the call; see
/// [`find_paths_in`] to name one), one after another on the calling thread without it.
///
/// Each rayon worker thread keeps one [`Searcher`] in a thread-local for its lifetime (rayon's
/// `map_init` would build one per work split, each allocating a node table for the grid), so a
/// batch allocates nothing after each worker's first query. The per-thread table grows to the
/// largest grid searched and is kept until the thread exits.
pub fn find_paths(
    planner: &Planner,
    queries: &[(Cell, Cell)],
) -> Vec<Result<Option<Path>, JpsError>> {
    let one = |&(a, b): &(Cell, Cell)| with_thread_searcher(|s| planner.search(s, a, b));
    #[cfg(feature = "rayon")]
    let paths = queries.par_iter().map(one).collect();
    #[cfg(not(feature = "rayon"))]
    let paths = queries.iter().map(one).collect();
    paths
}

/// [`find_paths`] on `pool`: a pool of the thread count you choose, or one kept apart from the
/// global pool so batches do not compete with other rayon work. Feature `rayon`.
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_jps::{Algorithm, Planner, find_paths_in};
///
/// let pool = cuplan_jps::rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
/// let planner = Planner::new(Grid::open(64, 64)?, Algorithm::JpsBit)?;
/// let queries = [(Cell::new(0, 0), Cell::new(63, 63)), (Cell::new(5, 60), Cell::new(60, 5))];
/// let paths = find_paths_in(&pool, &planner, &queries);
/// assert!(paths.iter().all(|p| matches!(p, Ok(Some(_)))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "rayon")]
pub fn find_paths_in(
    pool: &rayon::ThreadPool,
    planner: &Planner,
    queries: &[(Cell, Cell)],
) -> Vec<Result<Option<Path>, JpsError>> {
    pool.install(|| find_paths(planner, queries))
}

/// Runs `f` with the calling thread's own [`Searcher`] ([`Searcher::new`], made on the
/// thread's first call and kept until it exits), so parallel code that answers queries one at
/// a time allocates nothing after each thread's first query: what [`find_paths`] does, for
/// callers that want their own loop (timing each query, streaming results).
///
/// A call nested inside `f` on the same thread gets a fresh searcher.
pub fn with_thread_searcher<R>(f: impl FnOnce(&mut Searcher) -> R) -> R {
    thread_local! {
        static SEARCHER: std::cell::RefCell<Searcher> = std::cell::RefCell::new(Searcher::new());
    }
    SEARCHER.with(|s| match s.try_borrow_mut() {
        Ok(mut searcher) => f(&mut searcher),
        Err(_) => f(&mut Searcher::new()),
    })
}

/// [`find_paths`] with searchers made by `new_searcher` (one per rayon work split; one in all
/// without the feature `rayon`), e.g.
/// [`Searcher::paged`] so that each thread's memory follows the area its queries touch rather
/// than the map, or [`Searcher::bounded`] to cap it (queries over the cap give `Ok(None)`).
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_jps::{Algorithm, Planner, Searcher, find_paths_with};
///
/// let grid = Grid::open(256, 256)?;
/// let planner = Planner::new(grid, Algorithm::JpsBitPrune)?;
/// let queries = [(Cell::new(10, 10), Cell::new(40, 20)), (Cell::new(200, 9), Cell::new(190, 30))];
/// let paths = find_paths_with(&planner, &queries, Searcher::paged);
/// assert!(paths.iter().all(|p| matches!(p, Ok(Some(_)))));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn find_paths_with(
    planner: &Planner,
    queries: &[(Cell, Cell)],
    new_searcher: impl Fn() -> Searcher + Sync + Send,
) -> Vec<Result<Option<Path>, JpsError>> {
    #[cfg(feature = "rayon")]
    let paths = queries
        .par_iter()
        .map_init(new_searcher, |searcher, &(a, b)| {
            planner.search(searcher, a, b)
        })
        .collect();
    #[cfg(not(feature = "rayon"))]
    let paths = {
        let mut searcher = new_searcher();
        queries
            .iter()
            .map(|&(a, b)| planner.search(&mut searcher, a, b))
            .collect()
    };
    paths
}

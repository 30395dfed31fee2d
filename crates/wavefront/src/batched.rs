//! `batched_astar`: many optimal 4-connected paths from one batch of distance maps.

use std::collections::HashMap;

use cuplan_grid::{Cell, CellPath, Direction, Endpoint, Grid};

use crate::{Distance, DistanceMaps, DistanceOptions, WavefrontError};

/// Optimal 4-connected paths for every `(starts[i], goals[i])` query.
///
/// Builds one distance map per *distinct* goal (queries sharing a goal share its map), then
/// walks each path down its map's gradient in O(path length). `None` where the goal cannot be
/// reached from the start. Every path returned is cost-optimal (unit moves, no diagonals; its
/// [`arrival`](CellPath::arrival) is its number of moves).
///
/// `options` is a [`Backend`](crate::Backend) or a full [`DistanceOptions`]. The maps are
/// built in chunks of goals within `options.max_bytes`
/// ([`DEFAULT_MAX_MAP_BYTES`](crate::DEFAULT_MAX_MAP_BYTES) by default): narrow `u16` maps,
/// `u32` ones for a chunk whose distances do not fit. A query set needs at least one map and
/// the kernels' buffers within the budget, else [`WavefrontError::TooLarge`] (a limit, not a
/// property of the queries).
///
/// Errors: different lengths ([`WavefrontError::LengthMismatch`]), a start or goal out of
/// range or blocked ([`WavefrontError::InvalidQuery`] naming the query index), an
/// unavailable backend, or a budget too small for one map.
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_wavefront::{Backend, DistanceOptions, batched_astar};
///
/// let grid = Grid::from_ascii("....\n.@@.\n....")?;
/// let paths = batched_astar(&grid, &[Cell::new(0, 1)], &[Cell::new(3, 1)], Backend::Cpu)?;
/// let path = paths[0].as_ref().expect("connected");
/// assert_eq!(path.arrival(), 5);
/// assert_eq!(grid.four_path_moves(&path.cells)?, 5);
///
/// let grid = Grid::open(256, 256)?;
/// let goals: Vec<Cell> = (0..64).map(|i| Cell::new(i * 4, 255)).collect();
/// let starts = vec![Cell::new(0, 0); goals.len()];
/// // 64 maps of 128 KiB would take 8 MiB; within 2 MiB they are built a few at a time.
/// let options = DistanceOptions::default().with_max_bytes(2 << 20);
/// let paths = batched_astar(&grid, &starts, &goals, options)?;
/// assert_eq!(paths[5].as_ref().map(|p| p.arrival()), Some(20 + 255));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn batched_astar(
    grid: &Grid,
    starts: &[Cell],
    goals: &[Cell],
    options: impl Into<DistanceOptions>,
) -> Result<Vec<Option<CellPath>>, WavefrontError> {
    let mut paths = vec![None; starts.len()];
    batched_astar_streamed(grid, starts, goals, options, |query, path| {
        paths[query] = path;
    })?;
    Ok(paths)
}

/// [`batched_astar`] handing each answer to `answer(query index, path)` as soon as its
/// goal's chunk is done, instead of collecting them: the caller keeps only what it needs
/// (turning points, costs, a file), so memory stays within `options.max_bytes` plus what
/// the caller keeps. Every query is answered exactly once, in no particular order.
///
/// Errors: those of [`batched_astar`]; on an error some queries may have been answered.
///
/// ```
/// use cuplan_grid::{Cell, Grid};
/// use cuplan_wavefront::{DistanceOptions, batched_astar_streamed};
///
/// let grid = Grid::from_ascii("....\n.@@.\n....")?;
/// let (starts, goals) = ([Cell::new(0, 1), Cell::new(0, 0)], [Cell::new(3, 1), Cell::new(3, 1)]);
/// let mut moves = [0; 2];
/// batched_astar_streamed(&grid, &starts, &goals, &DistanceOptions::default(), |q, path| {
///     moves[q] = path.map_or(0, |p| p.arrival());
/// })?;
/// assert_eq!(moves, [5, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn batched_astar_streamed(
    grid: &Grid,
    starts: &[Cell],
    goals: &[Cell],
    options: impl Into<DistanceOptions>,
    mut answer: impl FnMut(usize, Option<CellPath>),
) -> Result<(), WavefrontError> {
    let options = &options.into();
    check_queries(grid, starts, goals)?;
    let goals = GoalQueries::group(goals);
    let mut narrow = DistanceMaps::<u16>::default();
    let mut wide = DistanceMaps::<u32>::default();
    let mut next = 0;
    let mut use_wide = false;
    while next < goals.distinct.len() {
        let size = if use_wide { 4 } else { 2 };
        let chunk = next..(next + goals_per_chunk(grid, options.max_bytes, size)?)
            .min(goals.distinct.len());
        let built = if use_wide {
            wide.rebuild(grid, &goals.distinct[chunk.clone()], options)
        } else {
            narrow.rebuild(grid, &goals.distinct[chunk.clone()], options)
        };
        match built {
            Err(WavefrontError::DistanceOverflow { .. }) if !use_wide => {
                // Redo this chunk, and the rest, with maps that hold any distance.
                narrow = DistanceMaps::default();
                use_wide = true;
                continue;
            }
            Err(WavefrontError::InvalidGoal { .. }) => {
                return Err(WavefrontError::Internal {
                    reason: "a checked goal was refused".to_string(),
                });
            }
            other => other?,
        }
        for (slot, queries) in goals.queries[chunk.clone()].iter().enumerate() {
            for &query in queries {
                let path = if use_wide {
                    descend(grid, &wide, slot, starts[query])
                } else {
                    descend(grid, &narrow, slot, starts[query])
                };
                answer(query, path);
            }
        }
        next = chunk.end;
    }
    Ok(())
}

/// Checks that the slices pair up and every start and goal is a free cell.
fn check_queries(grid: &Grid, starts: &[Cell], goals: &[Cell]) -> Result<(), WavefrontError> {
    if starts.len() != goals.len() {
        return Err(WavefrontError::LengthMismatch {
            starts: starts.len(),
            goals: goals.len(),
        });
    }
    for (index, (&start, &goal)) in starts.iter().zip(goals).enumerate() {
        let bad = |endpoint| {
            move |source| WavefrontError::InvalidQuery {
                index,
                endpoint,
                source,
            }
        };
        grid.check_free(start).map_err(bad(Endpoint::Start))?;
        grid.check_free(goal).map_err(bad(Endpoint::Goal))?;
    }
    Ok(())
}

/// The distinct goals of a batch, in order of first use, and the queries of each.
struct GoalQueries {
    distinct: Vec<Cell>,
    /// Per distinct goal: the indices of its queries.
    queries: Vec<Vec<usize>>,
}

impl GoalQueries {
    fn group(goals: &[Cell]) -> GoalQueries {
        let mut slot_of_goal: HashMap<Cell, usize> = HashMap::new();
        let mut grouped = GoalQueries {
            distinct: Vec::new(),
            queries: Vec::new(),
        };
        for (query, &goal) in goals.iter().enumerate() {
            let slot = *slot_of_goal.entry(goal).or_insert_with(|| {
                grouped.distinct.push(goal);
                grouped.queries.push(Vec::new());
                grouped.distinct.len() - 1
            });
            grouped.queries[slot].push(query);
        }
        grouped
    }
}

/// How many maps of `size` bytes a cell fit in `max_bytes` beside the kernels' buffers:
/// about 4 B a cell per thread (a `u16` search map, frontier and plane), kept between calls.
fn goals_per_chunk(grid: &Grid, max_bytes: u128, size: u128) -> Result<usize, WavefrontError> {
    let cells = grid.cell_count() as u128;
    let buffers = rayon::current_num_threads() as u128 * cells * 4;
    let per_map = (cells * size).max(1);
    let fitting = max_bytes.saturating_sub(buffers) / per_map;
    if fitting == 0 {
        return Err(WavefrontError::TooLarge {
            what: "one distance map and the kernels' buffers",
            bytes: buffers + per_map,
            limit: max_bytes,
        });
    }
    Ok(usize::try_from(fitting).unwrap_or(usize::MAX))
}

/// Follows strictly decreasing distances from `start` to the goal of map `slot` (of either
/// distance type).
pub(crate) fn descend<D: Distance>(
    grid: &Grid,
    maps: &DistanceMaps<D>,
    slot: usize,
    start: Cell,
) -> Option<CellPath> {
    let map = maps.map_slice(slot)?;
    let at = |c: Cell| map[grid.index(c).get()];
    let d = at(start);
    if d == D::UNREACHABLE {
        return None;
    }
    let mut d = d.to_u32();
    let mut cells = Vec::with_capacity(d as usize + 1);
    let mut cur = start;
    cells.push(cur);
    while d > 0 {
        // A reachable cell at distance d always has a free neighbour at d - 1.
        cur = Direction::STRAIGHT
            .into_iter()
            .filter_map(|dir| cur.step(dir))
            .find(|&n| grid.contains(n) && at(n).to_u32() == d - 1)?;
        d -= 1;
        cells.push(cur);
    }
    Some(CellPath::new(cells))
}

#[cfg(test)]
mod tests {
    use cuplan_grid::generate;

    use super::*;
    use crate::{Backend, distance_maps};

    /// Descending a `u16` map walks exactly the path of the `u32` map.
    #[test]
    fn descend_walks_u16_maps_like_u32_maps() {
        let grid = generate::maze(61, 41, 1, 5).unwrap();
        let queries = generate::random_queries(&grid, 16, 2);
        let goals: Vec<Cell> = queries.iter().map(|q| q.1).collect();
        let wide = distance_maps(&grid, &goals, Backend::Cpu).unwrap();
        let narrow = DistanceMaps::<u16>::build(&grid, &goals, Backend::Cpu).unwrap();
        for (slot, &(start, _)) in queries.iter().enumerate() {
            let path = descend(&grid, &narrow, slot, start);
            assert_eq!(path, descend(&grid, &wide, slot, start));
            let moves = path.map(|p| p.arrival());
            assert_eq!(moves, wide.get(slot, start));
        }
    }
}

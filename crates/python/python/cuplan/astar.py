"""Batched shortest paths and the constrained space-time search, in Rust.

* :func:`batched_astar`: optimal single-agent paths for many ``(start, goal)`` queries, by
  descent on exact distance maps (built in chunks of goals, so memory stays bounded).
* :func:`space_time_astar`: the MAPF low level (Silver 2005): states ``(cell, t)``, waits
  allowed, vertex and edge reservations honoured, the goal settled only after its last
  reservation; minimal arrival time within the horizon.

Both return the same paths as cuplan 0.1, cell for cell: ties go the way 0.1's go.
"""

from __future__ import annotations

import numpy as np

from . import _core
from .backend import Backend, resolve_backend
from .grid import Cell, Grid, as_cell, as_pairs
from .reservations import ReservationTable

__all__ = ["batched_astar", "space_time_astar"]

Path = list[Cell]


def batched_astar(
    grid: Grid,
    starts: np.ndarray,
    goals: np.ndarray,
    backend: Backend = "auto",
) -> list[Path | None]:
    """Solve many single-agent shortest-path queries in one batch.

    Args:
        grid: the occupancy grid.
        starts: ``(n, 2)`` start cells.
        goals: ``(n, 2)`` goal cells (free).
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        ``n`` cost-optimal paths (lists of cells, start to goal inclusive), ``None`` where
        the goal is unreachable from the start (a blocked start included).

    Raises:
        ValueError: for mismatched shapes, a blocked or out-of-bounds goal, or an
            out-of-bounds start.
    """
    starts = as_pairs(starts, "starts")
    goals = as_pairs(goals, "goals")
    if starts.shape != goals.shape:
        raise ValueError("starts and goals must have the same shape")
    resolve_backend(backend)
    return _core.batched_paths(grid._native, starts, goals)


def space_time_astar(
    grid: Grid,
    start: Cell,
    goal: Cell,
    table: ReservationTable | None = None,
    horizon: int | None = None,
    backend: Backend = "auto",
) -> Path | None:
    """Find a minimal-time path from ``start`` to ``goal`` under reservations.

    Waiting in place is a legal move. The agent settles on the goal only after the last
    vertex reservation touching it, so a path is returned only when the agent can stay.

    Args:
        grid: the occupancy grid.
        start: start cell.
        goal: goal cell.
        table: reservations to honour; when omitted, none over ``horizon`` timesteps.
        horizon: last timestep considered. Defaults to the table's horizon, or
            ``4 * (height + width)`` without a table; never beyond the table's.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    Returns:
        ``path`` with ``path[t]`` the cell at time ``t``, ending on the goal, or ``None``
        when no path exists within the horizon.

    Raises:
        ValueError: for a blocked or out-of-bounds start or goal, or a table of another grid.
    """
    resolve_backend(backend)
    if table is None:
        table_horizon = horizon or 4 * (grid.height + grid.width)
        if table_horizon < 1:
            raise ValueError("horizon must be >= 1")
        native_table = None
    else:
        table_horizon = table.horizon
        native_table = table._native
    horizon = min(horizon or table_horizon, table_horizon)
    start, goal = as_cell(start), as_cell(goal)
    if not grid.is_free(start) or not grid.is_free(goal):
        raise ValueError("start and goal must be free cells")
    return _core.space_time_astar(grid._native, start, goal, native_table, int(horizon))

"""Space-time reservations for the constrained searches, held by the Rust core.

The table records, for every time ``t`` up to its horizon, which cells are occupied and which
moves are forbidden (an agent that arrived at ``v`` from ``u`` forbids the swap ``v -> u``).
An agent whose path ended stays on its last cell to the horizon, as in cuplan 0.1.

``vertex`` and ``arrived_from`` are read-only snapshots in 0.1's dense layout; the table
itself changes only through its methods, so a search can never read a half-written table.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _core
from .backend import CudaUnavailableError
from .grid import Grid, as_cell

__all__ = ["ReservationTable"]


class ReservationTable:
    """Vertex and edge reservations over times ``0..=horizon``.

    Args:
        grid: the occupancy grid the reservations refer to.
        horizon: last timestep (inclusive) the table covers; searches against the table
            cannot return paths longer than this.
        xp: array module of 0.1's API; only ``numpy`` is accepted (the table lives in Rust).

    Raises:
        ValueError: for ``horizon < 1`` or a table beyond the core's memory limit.
        CudaUnavailableError: for an ``xp`` other than NumPy (0.1's CuPy tables).
    """

    def __init__(self, grid: Grid, horizon: int, xp=np):
        if horizon < 1:
            raise ValueError("horizon must be >= 1")
        if xp is not np:
            raise CudaUnavailableError(
                "this build keeps reservation tables in its Rust core: xp must be numpy"
            )
        self.grid = grid
        self.xp = xp
        self._native = _core.ReservationTable(grid._native, int(horizon))

    @property
    def horizon(self) -> int:
        """The last timestep the table covers."""
        return self._native.horizon

    @property
    def vertex(self) -> np.ndarray:
        """Read-only ``uint8`` ``(horizon + 1, cells)``: 1 where a cell is occupied."""
        return _frozen(self._native.vertex_array())

    @property
    def arrived_from(self) -> np.ndarray:
        """Read-only ``int32`` ``(horizon + 1, cells)``: the linear index the occupying agent
        moved in from, ``-1`` where nobody moved in (a wait included)."""
        return _frozen(self._native.arrived_from_array())

    def reserve_path(self, path: Sequence[tuple]) -> None:
        """Reserve a full agent path, parking it on its last cell forever.

        ``path[t]`` is the agent's cell at time ``t``.

        Raises:
            ValueError: for a path longer than the horizon, a step that is not a wait or a
                4-neighbour move, a cell off the grid, or a conflict with what is already
                reserved (0.1 overwrote silently; a conflicting plan is refused here).
        """
        if not isinstance(path, (list, tuple)):
            array = np.asarray(path, dtype=np.int64)
            if array.ndim != 2 or array.shape[1] != 2:
                raise ValueError("a path is a sequence of (row, col) pairs")
            path = array.tolist()
        self._native.reserve_path(path)

    def block_vertex(self, cell: tuple, t: int) -> None:
        """Add a single vertex constraint: ``cell`` is occupied at ``t``."""
        self._native.block_vertex(as_cell(cell), int(t))

    def block_edge(self, u: tuple, v: tuple, t: int) -> None:
        """Forbid traversing ``u -> v`` arriving at time ``t`` (``u``, ``v`` 4-adjacent)."""
        self._native.block_edge(as_cell(u), as_cell(v), int(t))

    def last_vertex_time(self, cell: tuple) -> int:
        """Latest ``t`` with a vertex reservation on ``cell`` (-1 if none); the horizon when
        an agent parks there. A search settles on its goal only after it."""
        return self._native.last_vertex_time(as_cell(cell))


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array

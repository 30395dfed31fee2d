"""The occupancy grid every solver shares.

A boolean ``(height, width)`` map, truthy where blocked; moves are 4-connected with unit
costs for the wavefront and MAPF searches (the JPS :class:`~cuplan.jps.Planner` reads the same
map 8-connected). The grid is immutable, which is what lets its Rust twin be built once and
reused by every search without ever going stale.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from . import _core

Cell = tuple[int, int]

#: The 4-connected moves then "wait", as ``(d_row, d_col)``; index 4 is wait.
MOVES: np.ndarray = np.array([(-1, 0), (1, 0), (0, -1), (0, 1), (0, 0)], dtype=np.int32)
MOVES.setflags(write=False)

__all__ = ["Cell", "Grid", "MOVES"]


class Grid:
    """An immutable 4-connected occupancy grid.

    Args:
        obstacles: 2D array-like, truthy where a cell is blocked. Nested lists and NumPy
            arrays both work; the grid is copied and frozen.

    Raises:
        ValueError: for an empty or non-2D array, or a map beyond the core's size limit.
    """

    __slots__ = ("_obstacles", "_native", "height", "width")

    def __init__(self, obstacles: Iterable[Iterable]):
        array = np.asarray(obstacles)
        if array.ndim != 2 or array.size == 0:
            raise ValueError("obstacles must be a non-empty 2D array")
        frozen = np.ascontiguousarray(array.astype(bool))
        if frozen is array:
            frozen = frozen.copy()
        frozen.setflags(write=False)
        self._obstacles = frozen
        self.height, self.width = frozen.shape
        self._native = _core.Grid(frozen)

    @property
    def obstacles(self) -> np.ndarray:
        """Read-only boolean ``(height, width)`` map, ``True`` where blocked."""
        return self._obstacles

    @classmethod
    def empty(cls, height: int, width: int) -> Grid:
        """Return an obstacle-free grid of the given shape."""
        return cls(np.zeros((height, width), dtype=bool))

    @property
    def free(self) -> np.ndarray:
        """Boolean map of traversable cells (the complement of obstacles)."""
        return ~self._obstacles

    @property
    def free_cells(self) -> int:
        """Number of traversable cells."""
        return int(self._obstacles.size - np.count_nonzero(self._obstacles))

    def in_bounds(self, cell: Cell) -> bool:
        """Whether ``(row, col)`` lies on the grid."""
        r, c = cell
        return 0 <= r < self.height and 0 <= c < self.width

    def is_free(self, cell: Cell) -> bool:
        """Whether ``(row, col)`` lies on the grid and is not blocked."""
        return self.in_bounds(cell) and not self._obstacles[cell[0], cell[1]]

    def neighbors(self, cell: Cell) -> list[Cell]:
        """The free, in-bounds 4-connected neighbours of ``cell`` (up, down, left, right)."""
        r, c = cell
        candidates = ((r + int(dr), c + int(dc)) for dr, dc in MOVES[:4])
        return [n for n in candidates if self.is_free(n)]

    def to_linear(self, cells: np.ndarray) -> np.ndarray:
        """Convert ``(..., 2)`` row/col coordinates to linear indices."""
        cells = np.asarray(cells)
        return cells[..., 0] * self.width + cells[..., 1]

    def from_linear(self, index: np.ndarray) -> np.ndarray:
        """Convert linear indices back to ``(..., 2)`` row/col pairs."""
        index = np.asarray(index)
        return np.stack([index // self.width, index % self.width], axis=-1)

    def __repr__(self) -> str:
        blocked = int(np.count_nonzero(self._obstacles))
        return f"Grid(height={self.height}, width={self.width}, obstacles={blocked})"


def as_pairs(cells, name: str) -> np.ndarray:
    """``cells`` as a C-contiguous ``int64`` ``(n, 2)`` array (0.1 reads them as ``int32``)."""
    array = np.atleast_2d(np.asarray(cells, dtype=np.int32))
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2)")
    return np.ascontiguousarray(array, dtype=np.int64)


def as_cell(cell) -> Cell:
    """``cell`` as a ``(row, col)`` tuple of Python ints."""
    r, c = cell
    return (int(r), int(c))

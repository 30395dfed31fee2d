"""Batched exact distance maps: one breadth-first wavefront per source, in Rust.

On a 4-connected grid with unit costs Dijkstra is BFS, and the core expands whole
frontiers word-parallel across sources, with rayon across cores.
"""

from __future__ import annotations

import numpy as np

from . import _core
from .backend import Backend, resolve_backend
from .grid import Grid, as_pairs

__all__ = ["distance_maps"]


def distance_maps(
    grid: Grid,
    sources: np.ndarray,
    backend: Backend = "auto",
    timings: dict[str, float] | None = None,
) -> np.ndarray:
    """Return exact 4-connected distances from each source to every cell.

    Args:
        grid: the occupancy grid.
        sources: ``(n, 2)`` array of ``(row, col)`` source cells, each a free cell.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.
        timings: accepted for 0.1 compatibility; only a CUDA run fills it, so it is left
            untouched here.

    Returns:
        ``(n, height, width)`` ``int32`` array; entry ``[i, r, c]`` is the length of a
        shortest path from ``sources[i]`` to ``(r, c)``, or ``-1`` where unreachable
        (blocked cells included).

    Raises:
        ValueError: for a wrongly shaped array or a blocked or out-of-bounds source.
    """
    pairs = as_pairs(sources, "sources")
    resolve_backend(backend)
    return _core.distance_maps(grid._native, pairs)

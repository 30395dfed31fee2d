"""Optimal 8-connected search: A* and the Jump Point Search family, in Rust.

Moves are the 8 neighbours with costs 1 and sqrt(2); a diagonal move needs both orthogonal
cells beside it free (no corner cutting). Every engine returns an optimal path; they differ
in speed and in what they precompute (``jps-bitpre`` and ``jps-bitprunepre`` build a jump
table of 16 bytes per cell when the planner is made).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _core
from .grid import Cell, Grid, as_cell, as_pairs

#: The engines, slowest first.
ALGORITHMS = ("astar", "jps", "jps-bit", "jps-bitprune", "jps-bitpre", "jps-bitprunepre")

__all__ = ["ALGORITHMS", "JpsPath", "Planner"]


class JpsPath(NamedTuple):
    """An optimal path: its exact cost and its turning points, start and goal included."""

    cost: float
    waypoints: list[Cell]


class Planner:
    """A JPS-family search engine bound to one grid.

    Args:
        grid: the map (obstacles truthy = blocked).
        algorithm: one of :data:`ALGORITHMS`.

    Raises:
        ValueError: for an unknown algorithm.
    """

    def __init__(self, grid: Grid, algorithm: str = "jps-bitprunepre"):
        self.grid = grid
        self._native = _core.Planner(grid._native, algorithm)

    @property
    def algorithm(self) -> str:
        """The engine's name."""
        return self._native.algorithm

    def search(self, start: Cell, goal: Cell) -> JpsPath | None:
        """An optimal path from ``start`` to ``goal``, or None when none exists.

        Raises:
            ValueError: for a blocked or out-of-bounds start or goal.
        """
        found = self._native.search(as_cell(start), as_cell(goal))
        if found is None:
            return None
        cost, waypoints = found
        return JpsPath(cost, [tuple(w) for w in waypoints])

    def find_paths(
        self, starts: np.ndarray, goals: np.ndarray, return_paths: bool = False
    ):
        """Answer many queries in parallel on all cores.

        Args:
            starts: ``(n, 2)`` start cells.
            goals: ``(n, 2)`` goal cells.
            return_paths: also return each query's waypoints.

        Returns:
            ``float64`` ``(n,)`` costs, ``inf`` where no path exists; with ``return_paths``,
            ``(costs, paths)`` where ``paths[i]`` is an ``int32`` ``(k, 2)`` array of
            ``(row, col)`` waypoints or None.

        Raises:
            ValueError: for mismatched shapes or a blocked or out-of-bounds cell.
        """
        starts, goals = as_pairs(starts, "starts"), as_pairs(goals, "goals")
        if starts.shape != goals.shape:
            raise ValueError("starts and goals must have the same shape")
        if not return_paths:
            return self._native.find_costs(starts, goals)
        paths = self._native.find_waypoints(starts, goals)
        costs = self._native.find_costs(starts, goals)
        return costs, paths

    def __repr__(self) -> str:
        return f"Planner({self.grid!r}, {self.algorithm!r})"

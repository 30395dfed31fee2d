"""Prioritized planning (cooperative A*): agents one at a time, in priority order, each
treating those planned before it as moving obstacles (Erdmann and Lozano-Perez 1987;
Silver 2005). The loop is sequential by nature; each iteration's space-time search and
reservation run in Rust.

Incomplete: a bad order can fail on solvable instances, and the bounded horizon is a second
source of failure (see ``horizon``).
"""

from __future__ import annotations

import time

import numpy as np

from .astar import space_time_astar
from .backend import Backend, resolve_backend
from .bfs import distance_maps
from .problem import Problem, Solution
from .reservations import ReservationTable

__all__ = ["PrioritizedPlanning"]


class PrioritizedPlanning:
    """Plan agents sequentially, reserving space-time cells as they go.

    Args:
        priority: agent names giving the planning order; default: the problem's order.
        horizon: last timestep considered per agent. Default:
            ``2 * max_goal_distance + 2 * n_agents + 16``; raise it if solvable instances
            report failure.
        backend: ``"auto"``, ``"cpu"`` or ``"cuda"``.
    """

    name = "prioritized"

    def __init__(
        self,
        priority: list[str] | None = None,
        horizon: int | None = None,
        backend: Backend = "auto",
    ):
        self.priority = priority
        self.horizon = horizon
        self.backend = backend

    def solve(self, problem: Problem) -> Solution | None:
        """Return a conflict-free :class:`~cuplan.problem.Solution`, or None on failure.

        Raises:
            ValueError: when ``priority`` does not list exactly the problem's agents.
        """
        started = time.perf_counter()
        which = resolve_backend(self.backend)
        agents = {a.name: a for a in problem.agents}
        order = self.priority or list(agents)
        if set(order) != set(agents):
            raise ValueError("priority must list exactly the problem's agents")
        horizon = self.horizon or self._default_horizon(problem)
        if horizon is None:
            return None
        table = ReservationTable(problem.grid, horizon)
        paths = {}
        for name in order:
            agent = agents[name]
            path = space_time_astar(
                problem.grid, agent.start, agent.goal, table=table, horizon=horizon
            )
            if path is None:
                return None
            table.reserve_path(path)
            paths[name] = path
        return Solution(
            paths=paths,
            algorithm=self.name,
            backend=which,
            runtime=time.perf_counter() - started,
        )

    @staticmethod
    def _default_horizon(problem: Problem) -> int | None:
        """0.1's bound from the agents' goal distances; None when a goal is unreachable."""
        if not problem.agents:
            return 16
        maps = distance_maps(problem.grid, problem.goals)
        starts = problem.starts
        to_goal = maps[np.arange(len(starts)), starts[:, 0], starts[:, 1]]
        if (to_goal < 0).any():
            return None
        return int(2 * to_goal.max() + 2 * len(starts) + 16)

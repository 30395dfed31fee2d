"""Reproducible random MAPF scenarios: a seeded random obstacle grid and distinct start and
goal cells, all in one connected region. The same seed gives cuplan 0.1's scenario."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..bfs import distance_maps
from ..grid import Grid
from ..problem import Agent, Problem

__all__ = ["Scenario", "random_scenario"]


@dataclass(frozen=True)
class Scenario:
    """A reproducible MAPF instance description."""

    grid: Grid
    starts: tuple[tuple[int, int], ...]
    goals: tuple[tuple[int, int], ...]
    seed: int

    @property
    def n_agents(self) -> int:
        """Number of agents."""
        return len(self.starts)

    def to_cuplan(self) -> Problem:
        """The instance as a :class:`~cuplan.problem.Problem` (agents ``a0``, ``a1``, ...)."""
        agents = [
            Agent(name=f"a{i}", start=s, goal=g)
            for i, (s, g) in enumerate(zip(self.starts, self.goals, strict=True))
        ]
        return Problem(grid=self.grid, agents=agents)

    def to_pymapf(self):
        """The instance as a ``pymapf`` problem (pymapf imported on first use)."""
        from pymapf.core.grid import GridMap
        from pymapf.core.solver import Agent as PAgent
        from pymapf.core.solver import MAPFProblem

        grid = GridMap(self.grid.obstacles.astype(int).tolist())
        agents = [
            PAgent(name=f"a{i}", start=s, goal=g)
            for i, (s, g) in enumerate(zip(self.starts, self.goals, strict=True))
        ]
        return MAPFProblem(grid=grid, agents=agents)


def random_scenario(
    size: int,
    n_agents: int,
    obstacle_density: float = 0.15,
    seed: int = 0,
) -> Scenario:
    """Generate a connected random ``size x size`` instance.

    Obstacles are i.i.d. at ``obstacle_density``; starts and goals are ``2 n_agents``
    distinct cells of the region reachable from a random free cell. Up to 64 grids are drawn
    until one has room; the draws are 0.1's, so the same seed gives the same instance.

    Raises:
        RuntimeError: when no drawn grid has room for the agents.
    """
    rng = np.random.default_rng(seed)
    for _ in range(64):
        grid = Grid(rng.random((size, size)) < obstacle_density)
        free = np.argwhere(grid.free)
        if len(free) < 2 * n_agents:
            continue
        origin = free[rng.integers(len(free))]
        region = np.argwhere(distance_maps(grid, origin[None, :], backend="cpu")[0] >= 0)
        if len(region) < 2 * n_agents:
            continue
        picked = region[rng.choice(len(region), size=2 * n_agents, replace=False)]
        cells = tuple((int(r), int(c)) for r, c in picked)
        return Scenario(grid, cells[:n_agents], cells[n_agents:], seed)
    raise RuntimeError(
        f"could not build a scenario with {n_agents} agents on a "
        f"{size}x{size} grid at density {obstacle_density}"
    )

"""Problem and solution types (pymapf's vocabulary, as in cuplan 0.1).

Paths are lists of cells where index ``t`` is the position at time ``t``; an agent parks on
its goal after its path ends; a plan is valid when no two agents share a cell at a time
(vertex conflict) and no two swap cells between ``t`` and ``t + 1`` (edge conflict).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _core
from .grid import Cell, Grid, as_cell

Path = list[Cell]

__all__ = [
    "Agent",
    "Conflict",
    "Path",
    "Problem",
    "Solution",
    "Violation",
    "find_first_conflict",
    "paths_from_array",
]


@dataclass(frozen=True)
class Agent:
    """A planning agent: a unique ``name`` with ``start`` and ``goal`` cells."""

    name: str
    start: Cell
    goal: Cell


@dataclass
class Problem:
    """A multi-agent path finding instance on a 4-connected grid.

    Raises:
        ValueError: for repeated names or a blocked or out-of-bounds start or goal.
    """

    grid: Grid
    agents: list[Agent]

    def __post_init__(self) -> None:
        names = [a.name for a in self.agents]
        if len(names) != len(set(names)):
            raise ValueError("agent names must be unique")
        for agent in self.agents:
            for what, cell in (("start", agent.start), ("goal", agent.goal)):
                if not self.grid.is_free(cell):
                    raise ValueError(
                        f"agent {agent.name!r} {what} {cell} is blocked or out of bounds"
                    )

    @property
    def starts(self) -> np.ndarray:
        """``(n_agents, 2)`` start cells, in agent order."""
        return np.array([a.start for a in self.agents], dtype=np.int32).reshape(-1, 2)

    @property
    def goals(self) -> np.ndarray:
        """``(n_agents, 2)`` goal cells, in agent order."""
        return np.array([a.goal for a in self.agents], dtype=np.int32).reshape(-1, 2)


@dataclass(frozen=True)
class Conflict:
    """A vertex or edge conflict between agents ``a`` and ``b`` in a joint plan."""

    kind: str  # "vertex" or "edge"
    a: str
    b: str
    t: int
    cell_a: Cell
    cell_b: Cell  # equals cell_a for vertex conflicts


@dataclass(frozen=True)
class Violation:
    """The first reason a plan does not solve a problem (see :meth:`Solution.validate`)."""

    kind: str  # "missing", "start", "goal", "off-map", "blocked", "jump" or a Conflict kind
    agent: str
    t: int
    message: str


@dataclass
class Solution:
    """Result of a solve: one path per agent plus cost metrics.

    ``paths[name][t]`` is the agent's cell at time ``t``; index 0 is the start and the agent
    stays on its goal after the path ends.
    """

    paths: dict[str, Path]
    algorithm: str = ""
    backend: str = ""
    runtime: float = 0.0  # wall-clock seconds spent in ``solve``
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def makespan(self) -> int:
        """Timestep at which the last agent settles on its goal."""
        return max((len(p) - 1 for p in self.paths.values()), default=0)

    @property
    def sum_of_costs(self) -> int:
        """Sum over agents of the time spent before settling on the goal."""
        return sum(len(p) - 1 for p in self.paths.values())

    def first_conflict(self) -> Conflict | None:
        """Return the earliest conflict, or None for a valid plan."""
        return find_first_conflict(self.paths)

    def is_valid(self) -> bool:
        """True when the joint plan has no vertex or edge conflict."""
        return self.first_conflict() is None

    def validate(self, problem: Problem) -> Violation | None:
        """The first violation of the plan against ``problem``, or None when it solves it.

        Checks, in order: a path for every agent, each path's start and goal, every cell on
        the map and free, every step a wait or a 4-neighbour move, then conflicts.
        """
        grid = problem.grid
        for agent in problem.agents:
            path = self.paths.get(agent.name)
            if not path:
                return Violation("missing", agent.name, 0, f"no path for {agent.name!r}")
            cells = [as_cell(c) for c in path]
            if cells[0] != as_cell(agent.start):
                return Violation("start", agent.name, 0, f"starts at {cells[0]}")
            if cells[-1] != as_cell(agent.goal):
                return Violation("goal", agent.name, len(cells) - 1, f"ends at {cells[-1]}")
            for t, cell in enumerate(cells):
                if not grid.in_bounds(cell):
                    return Violation("off-map", agent.name, t, f"{cell} is off the map")
                if not grid.is_free(cell):
                    return Violation("blocked", agent.name, t, f"{cell} is blocked")
                if t and abs(cell[0] - cells[t - 1][0]) + abs(cell[1] - cells[t - 1][1]) > 1:
                    return Violation("jump", agent.name, t, f"{cells[t - 1]} -> {cell}")
        conflict = self.first_conflict()
        if conflict is None:
            return None
        return Violation(
            conflict.kind,
            conflict.a,
            conflict.t,
            f"{conflict.kind} conflict of {conflict.a!r} and {conflict.b!r} at t={conflict.t}",
        )


def find_first_conflict(paths: dict[str, Path]) -> Conflict | None:
    """Return the earliest vertex or edge conflict between any agent pair.

    Paths are implicitly padded: an agent that has arrived occupies its goal at every later
    timestep. At each time a vertex conflict comes before a swap; among vertex conflicts the
    lowest cell (row-major) and its two first agents are named, among swaps the first pair.
    """
    names = list(paths)
    if len(names) < 2:
        return None
    cells = [[as_cell(c) for c in paths[name]] for name in names]
    found = _core.first_conflict(cells)
    if found is None:
        return None
    kind, i, j, t, cell_a, cell_b = found
    return Conflict(kind, names[i], names[j], t, tuple(cell_a), tuple(cell_b))


def paths_from_array(steps: np.ndarray, names: list[str], goals: np.ndarray) -> dict[str, Path]:
    """Convert a ``(T+1, n, 2)`` position array to per-agent paths.

    The tail an agent spends parked on its goal is trimmed (waiting on the goal at the end
    of a plan costs nothing).
    """
    paths: dict[str, Path] = {}
    for i, name in enumerate(names):
        cells = [as_cell(cell) for cell in steps[:, i]]
        goal = as_cell(goals[i])
        end = len(cells) - 1
        while end > 0 and cells[end] == goal and cells[end - 1] == goal:
            end -= 1
        paths[name] = cells[: end + 1]
    return paths

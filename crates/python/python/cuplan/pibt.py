"""Priority Inheritance with Backtracking (PIBT; Okumura et al. 2022, AIJ 310:103752).

One timestep at a time: each agent asks for its neighbouring vertex closest to its goal;
conflicts are settled on the spot by priority inheritance with backtracking; priorities grow
while an agent is away from its goal and reset on arrival. The exact goal distances come
from the Rust core; the inheritance chains run here, and the random tie-breaking draws the
same NumPy stream as cuplan 0.1, so a seed gives 0.1's plan.

Incomplete: PIBT can livelock where an agent must move far from its goal (:class:`~cuplan.
LaCAM` wraps it in a complete search). Unreachable goals are detected up front.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from .backend import Backend, resolve_backend
from .bfs import distance_maps
from .grid import MOVES, Grid
from .problem import Problem, Solution, paths_from_array

__all__ = ["PIBT"]

_FAR = np.int64(1 << 40)


def _moves_from_each_cell(grid: Grid) -> np.ndarray:
    """``(cells, 5)`` linear targets of each move in :data:`MOVES` order, -1 when illegal;
    the last column (wait) is the cell itself."""
    h, w = grid.height, grid.width
    rows, cols = np.mgrid[0:h, 0:w]
    targets = np.full((h * w, 5), -1, dtype=np.int64)
    padded = np.pad(grid.free, 1, constant_values=False)
    for m, (dr, dc) in enumerate(MOVES[:4]):
        r, c = rows + int(dr), cols + int(dc)
        ok = padded[r + 1, c + 1]
        targets[:, m] = np.where(ok, r * w + c, -1).reshape(-1)
    targets[:, 4] = (rows * w + cols).reshape(-1)
    return targets


class PIBT:
    """Rule-based one-step-at-a-time MAPF solver.

    Args:
        max_timestep: give up after this many timesteps; default ``free_cells + 4 n + 8``.
        seed: fixes tie-breaking, making a run reproducible.
        backend: backend of the distance oracle.
    """

    name = "pibt"

    def __init__(
        self,
        max_timestep: int | None = None,
        seed: int | None = 0,
        backend: Backend = "auto",
    ):
        self.max_timestep = max_timestep
        self.seed = seed
        self.backend = backend

    def solve(self, problem: Problem) -> Solution | None:
        """Return a conflict-free :class:`~cuplan.problem.Solution`, or None on livelock or
        an unreachable goal."""
        started = time.perf_counter()
        which = resolve_backend(self.backend)
        grid = problem.grid
        n = len(problem.agents)
        names = [a.name for a in problem.agents]
        rng = np.random.default_rng(self.seed)
        w = grid.width
        to_goal = distance_maps(grid, problem.goals).reshape(n, -1).astype(np.int64)
        to_goal[to_goal < 0] = _FAR
        here = problem.starts[:, 0].astype(np.int64) * w + problem.starts[:, 1]
        goals = problem.goals[:, 0].astype(np.int64) * w + problem.goals[:, 1]
        if (to_goal[np.arange(n), here] >= _FAR).any():
            return None
        moves = _moves_from_each_cell(grid)
        rest = np.arange(n, dtype=np.float64) / (n + 1)
        priority = rest.copy()
        limit = self.max_timestep or (grid.free_cells + 4 * n + 8)
        history = [here.copy()]
        depth = sys.getrecursionlimit()
        sys.setrecursionlimit(max(depth, 4 * n + 100))
        try:
            for _ in range(limit):
                if (here == goals).all():
                    break
                ranked = _ranked_moves(to_goal, moves, here, rng)
                step = _Step(here, ranked).run(np.argsort(-priority, kind="stable"))
                if step is None:
                    return None
                here = step
                history.append(here.copy())
                priority = np.where(here == goals, rest, priority + 1.0)
        finally:
            sys.setrecursionlimit(depth)
        if not (here == goals).all():
            return None
        flat = np.stack(history)
        cells = np.stack([flat // w, flat % w], axis=-1)
        return Solution(
            paths=paths_from_array(cells, names, problem.goals),
            algorithm=self.name,
            backend=which,
            runtime=time.perf_counter() - started,
        )


def _ranked_moves(
    to_goal: np.ndarray, moves: np.ndarray, here: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Every agent's candidate cells best first: by goal distance, ties by a fresh uniform
    key per candidate; illegal candidates last, as -1."""
    n = len(here)
    options = moves[here]
    legal = options >= 0
    dist = np.where(legal, to_goal[np.arange(n)[:, None], options.clip(min=0)], _FAR)
    keys = dist.astype(np.float64) + rng.random((n, 5))
    keys[~legal] = np.inf
    order = np.argsort(keys, axis=1, kind="stable")
    ranked = np.take_along_axis(options, order, axis=1)
    ranked[~np.take_along_axis(legal, order, axis=1)] = -1
    return ranked


class _Step:
    """One PIBT timestep: agents in priority order pick cells, pushing lower ones aside."""

    def __init__(self, here: np.ndarray, ranked: np.ndarray):
        self.here = [int(v) for v in here]
        self.ranked = ranked.tolist()
        self.now = {v: i for i, v in enumerate(self.here)}
        self.taken: dict[int, int] = {}
        self.next = [-1] * len(self.here)
        self.log: list[int] = []

    def run(self, order: np.ndarray) -> np.ndarray | None:
        for agent in order.tolist():
            if self.next[agent] < 0 and not self.push(agent, None):
                return None
        if -1 in self.next or len(set(self.next)) != len(self.next):
            return None
        for agent, target in enumerate(self.next):
            other = self.now.get(target)
            if other is not None and other != agent and self.next[other] == self.here[agent]:
                return None
        return np.array(self.next, dtype=np.int64)

    def take(self, agent: int, cell: int) -> None:
        self.taken[cell] = agent
        self.next[agent] = cell
        self.log.append(agent)

    def undo_to(self, mark: int) -> None:
        while len(self.log) > mark:
            agent = self.log.pop()
            cell = self.next[agent]
            self.next[agent] = -1
            if self.taken.get(cell) == agent:
                del self.taken[cell]

    def push(self, agent: int, pusher: int | None) -> bool:
        """Give ``agent`` a cell for the next step (``pusher`` asked it to move)."""
        mine = self.here[agent]
        for cell in self.ranked[agent]:
            if cell < 0 or cell in self.taken:
                continue
            if pusher is not None and cell == self.here[pusher]:
                continue  # no head-on swap with the agent that pushed us
            occupant = self.now.get(cell)
            if occupant is not None and self.next[occupant] == mine:
                continue  # nor with one already moving onto our cell
            mark = len(self.log)
            self.take(agent, cell)
            if occupant is not None and occupant != agent and self.next[occupant] < 0:
                if not self.push(occupant, agent):
                    self.undo_to(mark)
                    continue
            return True
        if mine not in self.taken:
            self.take(agent, mine)
            return True
        return False

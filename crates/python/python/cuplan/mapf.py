"""Multi-agent solvers of the Rust core beside 0.1's: optimal CBS, bounded-suboptimal EECBS
and complete LaCAM.

Each takes a :class:`~cuplan.problem.Problem` and return a :class:`~cuplan.problem.Solution`
(paths end when the agent reaches its goal for good) or None when the instance is proven
unsolvable. A time or memory limit reached first raises :class:`LimitReached`: a limit is
never reported as "no solution".
"""

from __future__ import annotations

import time

from . import _core
from .problem import Problem, Solution

__all__ = ["CBS", "EECBS", "LaCAM", "LimitReached"]


class LimitReached(RuntimeError):
    """A solver's time or memory limit was reached before it could answer."""


class _NativeSolver:
    name = ""

    first_solution = False

    suboptimality = 1.2

    def __init__(self, time_limit: float = 60.0, seed: int = 0):
        self.time_limit = time_limit
        self.seed = seed

    def solve(self, problem: Problem) -> Solution | None:
        """Solve ``problem``.

        Raises:
            ValueError: for agents sharing a start or a goal, or a goal unreachable from
                its start.
            LimitReached: when ``time_limit`` seconds or the memory budget run out first.
        """
        started = time.perf_counter()
        starts = [tuple(map(int, a.start)) for a in problem.agents]
        goals = [tuple(map(int, a.goal)) for a in problem.agents]
        try:
            paths = _core.solve_mapf(
                problem.grid._native,
                starts,
                goals,
                self.name,
                self.time_limit,
                self.seed,
                self.first_solution,
                self.suboptimality,
            )
        except RuntimeError as error:
            raise LimitReached(str(error)) from None
        if paths is None:
            return None
        return Solution(
            paths={a.name: [tuple(c) for c in p] for a, p in zip(problem.agents, paths)},
            algorithm=self.name,
            backend="cpu",
            runtime=time.perf_counter() - started,
        )


class CBS(_NativeSolver):
    """Conflict-based search (ICBS with MDD conflict classification, bypassing, target
    reasoning and a cardinal-conflict heuristic): optimal sum of costs, for tens of agents.

    Args:
        time_limit: seconds before :class:`LimitReached`.
        seed: seed of the solver's random choices.
    """

    name = "cbs"


class EECBS(_NativeSolver):
    """Explicit estimation CBS (Li, Ruml & Koenig 2021): a sum of costs at most
    ``suboptimality`` times the optimum, for hundreds of agents (focal search at the low
    level, the same conflict reasoning as :class:`CBS`).

    Args:
        suboptimality: the factor ``w``, from 1 (optimal) to 1000.
        time_limit: seconds before :class:`LimitReached`.
        seed: seed of the solver's random choices.

    Raises:
        ValueError: (from ``solve``) for a factor outside 1 to 1000.
    """

    name = "eecbs"

    def __init__(self, suboptimality: float = 1.2, time_limit: float = 60.0, seed: int = 0):
        super().__init__(time_limit, seed)
        self.suboptimality = suboptimality


class LaCAM(_NativeSolver):
    """LaCAM with PIBT as its configuration generator: complete, suboptimal, for thousands
    of agents. Anytime by default: after the first solution it keeps improving (LaCAM* and
    large-neighbourhood refinement) and returns the best one at ``time_limit``, or sooner
    when LaCAM* proves it optimal.

    Args:
        time_limit: seconds before :class:`LimitReached` (with no solution yet) or before the
            best solution so far is returned.
        seed: seed of the solver's random choices.
        first_solution: return the first solution instead of improving it.
    """

    name = "lacam"

    def __init__(self, time_limit: float = 60.0, seed: int = 0, first_solution: bool = False):
        super().__init__(time_limit, seed)
        self.first_solution = first_solution

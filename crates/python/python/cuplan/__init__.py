"""cuplan: optimal grid path planning and multi-agent path finding on a Rust core.

A drop-in for the cuplan 0.1 API (``Grid``, ``distance_maps``, ``batched_astar``,
``space_time_astar``, ``ReservationTable``, ``PrioritizedPlanning``, ``PIBT``, the problem
types and ``benchmark.scenarios``): same signatures, defaults and conventions — ``(row, col)``
cells, obstacles truthy = blocked, ``int32`` distance maps with ``-1`` for unreachable, paths
as lists of tuples, ``None`` where unreachable, ``ValueError`` on bad input — with the searches
in Rust, the GIL released while they run.

Beyond 0.1: the 8-connected JPS family (:class:`Planner`), Moving AI I/O (:func:`load_map`,
:func:`load_scen`), optimal :class:`CBS` and :class:`LaCAM`, and :meth:`Solution.validate`.
"""

from __future__ import annotations

from .astar import batched_astar, space_time_astar
from .backend import CudaUnavailableError, cuda_available, resolve_backend
from .bfs import distance_maps
from .grid import Grid
from .jps import ALGORITHMS, JpsPath, Planner
from .mapf import CBS, EECBS, LaCAM, LimitReached
from .movingai import ScenEntry, load_map, load_scen
from .pibt import PIBT
from .prioritized import PrioritizedPlanning
from .problem import Agent, Conflict, Problem, Solution, Violation, find_first_conflict
from .reservations import ReservationTable

__version__ = "0.2.0"

__all__ = [
    "ALGORITHMS",
    "Agent",
    "CBS",
    "Conflict",
    "CudaUnavailableError",
    "EECBS",
    "Grid",
    "JpsPath",
    "LaCAM",
    "LimitReached",
    "PIBT",
    "Planner",
    "PrioritizedPlanning",
    "Problem",
    "ReservationTable",
    "ScenEntry",
    "Solution",
    "Violation",
    "batched_astar",
    "cuda_available",
    "distance_maps",
    "find_first_conflict",
    "load_map",
    "load_scen",
    "resolve_backend",
    "space_time_astar",
    "__version__",
]

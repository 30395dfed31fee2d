"""The package on its own: 0.1's names, bad input, independent oracles, the new engines."""

from __future__ import annotations

import heapq
import math
from collections import deque

import numpy as np
import pytest

import cuplan
from cuplan.benchmark.scenarios import random_scenario

ZERO_ONE_NAMES = {
    "cuplan": ["Agent", "Grid", "PIBT", "PrioritizedPlanning", "Problem", "ReservationTable",
               "Solution", "batched_astar", "cuda_available", "distance_maps",
               "find_first_conflict", "resolve_backend", "space_time_astar", "__version__"],
    "cuplan.grid": ["Cell", "Grid", "MOVES"],
    "cuplan.bfs": ["distance_maps"],
    "cuplan.astar": ["batched_astar", "space_time_astar"],
    "cuplan.reservations": ["ReservationTable"],
    "cuplan.problem": ["Agent", "Problem", "Solution", "Conflict", "find_first_conflict",
                       "paths_from_array"],
    "cuplan.prioritized": ["PrioritizedPlanning"],
    "cuplan.pibt": ["PIBT"],
    "cuplan.backend": ["Backend", "CudaUnavailableError", "cuda_available", "get_cupy",
                       "resolve_backend"],
    "cuplan.benchmark.scenarios": ["Scenario", "random_scenario"],
}


@pytest.mark.parametrize("module", sorted(ZERO_ONE_NAMES))
def test_every_0_1_name_is_there(module):
    imported = __import__(module, fromlist=["_"])
    for name in ZERO_ONE_NAMES[module]:
        assert hasattr(imported, name), f"{module}.{name}"


def bfs(free, source):
    h, w = free.shape
    dist = np.full((h, w), -1, dtype=np.int64)
    dist[source] = 0
    queue = deque([source])
    while queue:
        r, c = queue.popleft()
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            n = (r + dr, c + dc)
            if 0 <= n[0] < h and 0 <= n[1] < w and free[n] and dist[n] < 0:
                dist[n] = dist[r, c] + 1
                queue.append(n)
    return dist


@pytest.mark.parametrize("seed", range(8))
def test_distance_maps_equal_a_plain_bfs(seed):
    rng = np.random.default_rng(seed)
    grid = cuplan.Grid(rng.random((int(rng.integers(1, 40)), int(rng.integers(1, 90)))) < 0.3)
    free = np.argwhere(grid.free)
    if len(free) == 0:
        return
    sources = free[rng.choice(len(free), size=min(5, len(free)), replace=False)]
    maps = cuplan.distance_maps(grid, sources)
    for i, s in enumerate(sources):
        assert np.array_equal(maps[i], bfs(grid.free, tuple(s)))


def octile_dijkstra(free, start, goal):
    h, w = free.shape
    best = {start: 0.0}
    heap = [(0.0, start)]
    while heap:
        d, (r, c) = heapq.heappop(heap)
        if (r, c) == goal:
            return d
        if d > best[(r, c)]:
            continue
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                n = (r + dr, c + dc)
                if (dr, dc) == (0, 0) or not (0 <= n[0] < h and 0 <= n[1] < w) or not free[n]:
                    continue
                if dr and dc and not (free[r + dr, c] and free[r, c + dc]):
                    continue
                nd = d + (math.sqrt(2) if dr and dc else 1.0)
                if nd < best.get(n, math.inf) - 1e-9:
                    best[n] = nd
                    heapq.heappush(heap, (nd, n))
    return math.inf


@pytest.mark.parametrize("algorithm", cuplan.ALGORITHMS)
def test_every_jps_engine_is_optimal_against_dijkstra(algorithm):
    rng = np.random.default_rng(7)
    grid = cuplan.Grid(rng.random((30, 45)) < 0.3)
    free = np.argwhere(grid.free)
    picks = free[rng.choice(len(free), size=(40, 2))]
    starts, goals = picks[:, 0], picks[:, 1]
    planner = cuplan.Planner(grid, algorithm)
    costs, paths = planner.find_paths(starts, goals, return_paths=True)
    for s, g, cost, path in zip(starts, goals, costs, paths):
        expected = octile_dijkstra(grid.free, tuple(s), tuple(g))
        assert cost == pytest.approx(expected, abs=1e-6)
        one = planner.search(tuple(s), tuple(g))
        assert (one is None) == math.isinf(expected) == (path is None)
        if one is not None:
            assert one.waypoints[0] == tuple(s) and one.waypoints[-1] == tuple(g)
            assert [tuple(w) for w in path] == one.waypoints


def test_bad_input_is_a_value_error():
    grid = cuplan.Grid([[0, 1], [0, 0]])
    bad = [
        lambda: cuplan.Grid([]),
        lambda: cuplan.Grid([1, 2, 3]),
        lambda: cuplan.distance_maps(grid, [[0, 1]]),
        lambda: cuplan.distance_maps(grid, [[5, 0]]),
        lambda: cuplan.distance_maps(grid, [[0, 0, 0]]),
        lambda: cuplan.batched_astar(grid, [[0, 0]], [[1, 1], [0, 0]]),
        lambda: cuplan.space_time_astar(grid, (0, 1), (1, 1)),
        lambda: cuplan.ReservationTable(grid, 0),
        lambda: cuplan.ReservationTable(grid, 3).reserve_path([(0, 0), (1, 1)]),
        lambda: cuplan.ReservationTable(grid, 1).reserve_path([(0, 0), (1, 0), (1, 1)]),
        lambda: cuplan.ReservationTable(grid, 3).reserve_path([(0, 0, 0)]),
        lambda: cuplan.ReservationTable(grid, 3).reserve_path([(0, -1)]),
        lambda: cuplan.ReservationTable(grid, 3).reserve_path(np.zeros((2, 3))),
        lambda: cuplan.Planner(grid, "dijkstra"),
        lambda: cuplan.Planner(grid).search((0, 0), (0, 1)),
        lambda: cuplan.resolve_backend("gpu"),
        lambda: cuplan.load_map("/nonexistent/x.map"),
    ]
    for call in bad:
        with pytest.raises(ValueError):
            call()
    with pytest.raises(cuplan.CudaUnavailableError):
        cuplan.distance_maps(grid, [[0, 0]], backend="cuda")


def test_the_grid_and_table_snapshots_cannot_be_written():
    grid = cuplan.Grid(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        grid.obstacles[0, 0] = True
    with pytest.raises(AttributeError):
        grid.obstacles = np.ones((3, 3))
    table = cuplan.ReservationTable(grid, 5)
    table.reserve_path([(0, 0), (0, 1)])
    assert table.vertex[1, 1] == 1 and table.arrived_from[1, 1] == 0
    # A NumPy (n, 2) array is a path too.
    table.reserve_path(np.array([[2, 0], [2, 1], [2, 2]], dtype=np.int32))
    assert table.vertex[2, 8] == 1 and table.arrived_from[2, 8] == 7
    with pytest.raises(ValueError):
        table.vertex[0, 0] = 1
    # A conflicting path is refused, not written over the first.
    with pytest.raises(ValueError):
        table.reserve_path([(0, 2), (0, 1)])


def test_reservations_are_honoured_and_goals_settle_after_them():
    grid = cuplan.Grid(np.zeros((1, 4)))
    table = cuplan.ReservationTable(grid, 10)
    table.block_vertex((0, 3), 6)
    path = cuplan.space_time_astar(grid, (0, 0), (0, 3), table=table)
    assert len(path) - 1 == 7 and path[-1] == (0, 3)
    table.block_edge((0, 0), (0, 1), 1)
    later = cuplan.space_time_astar(grid, (0, 0), (0, 1), table=table)
    assert later[1] == (0, 0)
    assert cuplan.space_time_astar(grid, (0, 0), (0, 3), table=table, horizon=5) is None


@pytest.mark.parametrize("seed", range(4))
def test_cbs_is_optimal_where_prioritized_is_not_worse_and_all_plans_validate(seed):
    problem = random_scenario(12, 6, obstacle_density=0.2, seed=seed).to_cuplan()
    cbs = cuplan.CBS(time_limit=20).solve(problem)
    assert cbs is not None and cbs.validate(problem) is None
    lower = sum(
        int(cuplan.distance_maps(problem.grid, [a.goal])[0][a.start]) for a in problem.agents
    )
    assert cbs.sum_of_costs >= lower
    for solver in (
        cuplan.LaCAM(time_limit=1),
        cuplan.LaCAM(time_limit=20, first_solution=True),
        cuplan.PrioritizedPlanning(),
        cuplan.PIBT(),
    ):
        other = solver.solve(problem)
        if other is not None:
            assert other.validate(problem) is None
            assert other.sum_of_costs >= cbs.sum_of_costs


@pytest.mark.parametrize("seed", range(4))
def test_eecbs_stays_within_its_factor_of_cbs(seed):
    problem = random_scenario(12, 6, obstacle_density=0.2, seed=seed).to_cuplan()
    optimum = cuplan.CBS(time_limit=20).solve(problem).sum_of_costs
    for w in (1.0, 1.1, 1.5):
        eecbs = cuplan.EECBS(suboptimality=w, time_limit=20).solve(problem)
        assert eecbs is not None and eecbs.validate(problem) is None
        assert optimum <= eecbs.sum_of_costs <= w * optimum + 1e-9
    with pytest.raises(ValueError, match="suboptimality"):
        cuplan.EECBS(suboptimality=0.9).solve(problem)


def test_validate_names_the_first_violation():
    grid = cuplan.Grid(np.zeros((2, 3)))
    problem = cuplan.Problem(grid, [cuplan.Agent("a", (0, 0), (0, 2)),
                                    cuplan.Agent("b", (0, 2), (0, 0))])
    swap = cuplan.Solution({"a": [(0, 0), (0, 1), (0, 2)], "b": [(0, 2), (0, 1), (0, 0)]})
    assert swap.validate(problem).kind == "vertex"
    jump = cuplan.Solution({"a": [(0, 0), (0, 2)], "b": [(0, 2), (1, 2), (1, 1), (1, 0), (0, 0)]})
    assert jump.validate(problem).kind == "jump"
    assert cuplan.Solution({"a": [(0, 0), (0, 1), (0, 2)]}).validate(problem).kind == "missing"


def test_unsolvable_is_none_and_a_limit_is_limit_reached():
    corridor = cuplan.Grid(np.zeros((1, 3)))
    swap = cuplan.Problem(corridor, [cuplan.Agent("a", (0, 0), (0, 2)),
                                     cuplan.Agent("b", (0, 2), (0, 0))])
    assert cuplan.LaCAM(time_limit=10).solve(swap) is None
    with pytest.raises(cuplan.LimitReached):
        cuplan.CBS(time_limit=0.5).solve(swap)


def test_moving_ai_files_round_trip(tmp_path):
    (tmp_path / "m.map").write_text("type octile\nheight 2\nwidth 3\nmap\n..@\n...\n")
    (tmp_path / "m.scen").write_text("version 1\n0\tm.map\t3\t2\t0\t0\t1\t1\t1.41421356\n")
    grid = cuplan.load_map(tmp_path / "m.map")
    assert grid.obstacles.tolist() == [[False, False, True], [False, False, False]]
    (entry,) = cuplan.load_scen(tmp_path / "m.scen")
    assert entry.start == (0, 0) and entry.goal == (1, 1)
    assert cuplan.Planner(grid).search(entry.start, entry.goal).cost == pytest.approx(
        entry.optimal
    )
    (tmp_path / "bad.map").write_text("type hex\nheight 1\nwidth 1\nmap\n.\n")
    with pytest.raises(ValueError, match="bad.map"):
        cuplan.load_map(tmp_path / "bad.map")

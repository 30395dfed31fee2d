"""Answers equal to cuplan 0.1's (the reference, from PyPI) on seeded random instances."""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pytest

import cuplan
from cuplan.benchmark.scenarios import random_scenario

SEEDS = range(12)

# 0.1's modules that this package mirrors, and the names it leaves out on purpose (the README's
# migration table says why: continuous-space simulators outside this project).
MIRRORED = ["", ".grid", ".bfs", ".astar", ".reservations", ".problem", ".prioritized", ".pibt",
            ".backend", ".benchmark.scenarios"]
LEFT_OUT = {"FlockingParams", "FlockingSim", "VelocityObstacleSim"}


def _pair(ref, size, agents, density, seed):
    ours = random_scenario(size, agents, obstacle_density=density, seed=seed)
    theirs = ref.benchmark.scenarios.random_scenario(
        size, agents, obstacle_density=density, seed=seed
    )
    return ours, theirs


@pytest.mark.parametrize("seed", SEEDS)
def test_random_scenarios_are_0_1_s(ref, seed):
    ours, theirs = _pair(ref, 24, 10, 0.2, seed)
    assert np.array_equal(ours.grid.obstacles, theirs.grid.obstacles)
    assert ours.starts == theirs.starts and ours.goals == theirs.goals


@pytest.mark.parametrize("seed", SEEDS)
def test_distance_maps_and_batched_paths_equal_0_1_s(ref, seed):
    ours, theirs = _pair(ref, 20 + seed, 12, 0.25, seed)
    sources = np.array(ours.goals)
    mine = cuplan.distance_maps(ours.grid, sources)
    assert mine.dtype == np.int32
    assert np.array_equal(mine, ref.distance_maps(theirs.grid, sources, backend="cpu"))
    starts = np.array(ours.starts)
    assert cuplan.batched_astar(ours.grid, starts, sources) == ref.batched_astar(
        theirs.grid, starts, sources, backend="cpu"
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_space_time_paths_under_reservations_equal_0_1_s(ref, seed):
    ours, theirs = _pair(ref, 16, 14, 0.2, seed)
    horizon = 120
    mine, reference = cuplan.ReservationTable(ours.grid, horizon), ref.ReservationTable(
        theirs.grid, horizon
    )
    rng = np.random.default_rng(seed)
    for start, goal in zip(ours.starts, ours.goals):
        a = cuplan.space_time_astar(ours.grid, start, goal, table=mine)
        b = ref.space_time_astar(theirs.grid, start, goal, table=reference, backend="cpu")
        assert a == b
        if a is not None and rng.random() < 0.8:
            mine.reserve_path(a)
            reference.reserve_path(b)
    assert np.array_equal(mine.vertex, reference.vertex)
    for cell in ours.goals:
        assert mine.last_vertex_time(cell) == reference.last_vertex_time(cell)


@pytest.mark.parametrize("seed", SEEDS)
def test_prioritized_planning_and_pibt_plans_equal_0_1_s(ref, seed):
    ours, theirs = _pair(ref, 20, 16, 0.15, seed)
    for mine, reference in (
        (cuplan.PrioritizedPlanning(), ref.PrioritizedPlanning(backend="cpu")),
        (cuplan.PIBT(seed=seed), ref.PIBT(seed=seed, backend="cpu")),
    ):
        a, b = mine.solve(ours.to_cuplan()), reference.solve(theirs.to_cuplan())
        assert (a is None) == (b is None)
        if a is not None:
            assert a.paths == b.paths
            assert a.sum_of_costs == b.sum_of_costs and a.makespan == b.makespan
            assert a.is_valid()


@pytest.mark.parametrize("seed", SEEDS)
def test_first_conflicts_equal_0_1_s(ref, seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        n = int(rng.integers(2, 6))
        paths = {}
        for i in range(n):
            cell = rng.integers(0, 3, size=2)
            path = [tuple(int(v) for v in cell)]
            for _ in range(int(rng.integers(0, 6))):
                step = [(0, 1), (0, -1), (1, 0), (-1, 0), (0, 0)][int(rng.integers(5))]
                cell = np.clip(cell + step, 0, 2)
                path.append(tuple(int(v) for v in cell))
            paths[f"a{i}"] = path
        a, b = cuplan.find_first_conflict(paths), ref.find_first_conflict(paths)
        if b is None:
            assert a is None
        else:
            assert (a.kind, a.a, a.b, a.t, a.cell_a, a.cell_b) == (
                b.kind, b.a, b.b, b.t, b.cell_a, b.cell_b
            )


def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return None


def _public_names(module):
    names = getattr(module, "__all__", None)
    return names if names is not None else [n for n in dir(module) if not n.startswith("_")]


@pytest.mark.parametrize("suffix", MIRRORED)
def test_every_public_0_1_name_is_here_with_0_1_s_signature(ref, suffix):
    theirs = importlib.import_module(ref.__name__ + suffix)
    ours = importlib.import_module("cuplan" + suffix)
    mismatches = []
    for name in _public_names(theirs):
        reference = getattr(theirs, name)
        if inspect.ismodule(reference) or name in LEFT_OUT:
            continue
        if not hasattr(ours, name):
            mismatches.append(f"{suffix}.{name}: missing")
            continue
        mine = getattr(ours, name)
        pairs = [(name, reference, mine)]
        if inspect.isclass(reference):
            for member, value in vars(reference).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if not hasattr(mine, member):
                    mismatches.append(f"{suffix}.{name}.{member}: missing")
                elif callable(value) or isinstance(value, (staticmethod, classmethod)):
                    pairs.append((f"{name}.{member}", getattr(reference, member),
                                  getattr(mine, member)))
        for label, a, b in pairs:
            if callable(a) and _signature(a) != _signature(b):
                mismatches.append(f"{suffix}.{label}: 0.1 {_signature(a)}, here {_signature(b)}")
    assert not mismatches, "\n".join(mismatches)

"""cuplan (this package) against cuplan 0.1's NumPy backend, in one run, as ratios.

    python crates/python/benches/compare.py [--repeat 5]

Loads 0.1 from target/cuplan01 (pip-installed there by the test suite or by this script),
runs the same inputs through both, checks the answers are identical, and prints the median
time of each and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from conftest import _load_reference  # noqa: E402

import cuplan  # noqa: E402
from cuplan.benchmark.scenarios import random_scenario  # noqa: E402


def median_time(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    ref = _load_reference()
    if ref is None:
        sys.exit("cuplan 0.1 could not be installed from PyPI")
    rows = []

    s = random_scenario(256, 64, obstacle_density=0.2, seed=1)
    g0 = ref.Grid(s.grid.obstacles)
    src = np.array(s.goals)
    a = median_time(lambda: cuplan.distance_maps(s.grid, src), args.repeat)
    b = median_time(lambda: ref.distance_maps(g0, src, backend="cpu"), args.repeat)
    assert np.array_equal(a[1], b[1])
    rows.append(("distance_maps, 64 sources, 256x256", a[0], b[0]))

    s = random_scenario(128, 64, obstacle_density=0.2, seed=2)
    g0 = ref.Grid(s.grid.obstacles)
    mine, theirs = cuplan.ReservationTable(s.grid, 600), ref.ReservationTable(g0, 600)
    for start, goal in zip(s.starts[:48], s.goals[:48]):
        p = cuplan.space_time_astar(s.grid, start, goal, table=mine)
        if p is not None:
            mine.reserve_path(p)
            theirs.reserve_path(p)
    queries = list(zip(s.starts[48:], s.goals[48:]))
    a = median_time(
        lambda: [cuplan.space_time_astar(s.grid, st, go, table=mine) for st, go in queries],
        args.repeat,
    )
    b = median_time(
        lambda: [ref.space_time_astar(g0, st, go, table=theirs, backend="cpu")
                 for st, go in queries],
        args.repeat,
    )
    assert a[1] == b[1]
    rows.append(("space_time_astar, 16 queries, 128x128, 48 paths reserved", a[0], b[0]))

    s = random_scenario(64, 128, obstacle_density=0.1, seed=3)
    p_new, p_old = s.to_cuplan(), ref.benchmark.scenarios.random_scenario(
        64, 128, obstacle_density=0.1, seed=3).to_cuplan()
    a = median_time(lambda: cuplan.PrioritizedPlanning().solve(p_new), args.repeat)
    b = median_time(lambda: ref.PrioritizedPlanning(backend="cpu").solve(p_old), args.repeat)
    assert (a[1] is None) == (b[1] is None) and (a[1] is None or a[1].paths == b[1].paths)
    rows.append(("PrioritizedPlanning, 128 agents, 64x64", a[0], b[0]))

    print(f"{'case':60} {'cuplan':>10} {'0.1':>10} {'speed-up':>9}")
    for name, new, old in rows:
        print(f"{name:60} {new * 1e3:8.2f}ms {old * 1e3:8.2f}ms {old / new:8.1f}x")


if __name__ == "__main__":
    main()

"""Reproducible instances shared with cuplan 0.1 and pymapf (:mod:`.scenarios`).

0.1's harness, sweeps, reports and figures are not part of this package: the project's
benchmarks run as ``cargo xtask bench`` and ``crates/python/benches/compare.py``.
"""

from .scenarios import Scenario, random_scenario

__all__ = ["Scenario", "random_scenario"]

"""Moving AI benchmark files (https://movingai.com/benchmarks/formats.html), read by the
Rust core with its size limits and strict headers."""

from __future__ import annotations

import os
from typing import NamedTuple

from . import _core
from .grid import Cell, Grid

__all__ = ["ScenEntry", "load_map", "load_scen"]


class ScenEntry(NamedTuple):
    """One query of a ``.scen`` file; cells as ``(row, col)``."""

    bucket: int
    map: str
    width: int
    height: int
    start: Cell
    goal: Cell
    optimal: float


def load_map(path: str | os.PathLike) -> Grid:
    """Read a ``.map`` file as a :class:`~cuplan.grid.Grid` (``.`` ``G`` ``S`` free).

    Raises:
        ValueError: for a missing, oversized or malformed file (naming file:line:col).
    """
    return Grid(_core.load_map(os.fspath(path)))


def load_scen(path: str | os.PathLike) -> list[ScenEntry]:
    """Read a ``.scen`` file (version 1) as a list of :class:`ScenEntry`.

    Raises:
        ValueError: for a missing, oversized or malformed file (naming file:line:col).
    """
    return [ScenEntry(*row) for row in _core.load_scen(os.fspath(path))]

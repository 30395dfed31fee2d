"""Shared fixtures: cuplan 0.1 from PyPI as the reference implementation."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[3]
_TARGET = Path(os.environ.get("CUPLAN01_DIR", _ROOT / "target" / "cuplan01"))


def _load_reference():
    """cuplan 0.1 imported as the package ``cuplan01`` (its relative imports follow)."""
    package = _TARGET / "cuplan"
    if not package.is_dir():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
             "--target", str(_TARGET), "cuplan==0.1.0"],
            check=False,
        )
    if not (package / "__init__.py").is_file():
        return None
    spec = importlib.util.spec_from_file_location(
        "cuplan01", package / "__init__.py", submodule_search_locations=[str(package)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["cuplan01"] = module
    spec.loader.exec_module(module)
    importlib.import_module("cuplan01.benchmark.scenarios")
    return module


@pytest.fixture(scope="session")
def ref():
    """The cuplan 0.1 package, or a skip saying why it is missing."""
    module = _load_reference()
    if module is None:
        pytest.skip("cuplan 0.1 could not be installed from PyPI: comparison skipped")
    return module

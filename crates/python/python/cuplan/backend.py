"""Backend selection: ``"auto"``, ``"cpu"`` or ``"cuda"``.

The searches run in the Rust core on the CPU. This build has no CUDA backend, so
:func:`cuda_available` is ``False``, ``"auto"`` resolves to ``"cpu"`` and ``"cuda"`` raises
:class:`CudaUnavailableError`, exactly as cuplan 0.1 behaves on a machine without a GPU.
"""

from __future__ import annotations

import functools
import os
from typing import Literal

Backend = Literal["auto", "cpu", "cuda"]

_VALID = ("auto", "cpu", "cuda")

__all__ = ["Backend", "CudaUnavailableError", "cuda_available", "get_cupy", "resolve_backend"]


class CudaUnavailableError(RuntimeError):
    """Raised when ``backend="cuda"`` is requested but no device works."""


@functools.lru_cache(maxsize=1)
def cuda_available() -> bool:
    """Whether a CUDA backend can run: always ``False`` in this build.

    ``CUPLAN_FORCE_CPU=1`` is honoured as in 0.1 (it forces ``False``).
    """
    if os.environ.get("CUPLAN_FORCE_CPU"):
        return False
    return False


def resolve_backend(backend: Backend = "auto") -> Literal["cpu", "cuda"]:
    """Map ``"auto"`` to the best available backend, validating the name.

    Raises:
        ValueError: for a name other than ``"auto"``, ``"cpu"``, ``"cuda"``.
        CudaUnavailableError: for ``"cuda"`` when :func:`cuda_available` is ``False``.
    """
    if backend not in _VALID:
        raise ValueError(f"backend must be one of {_VALID}, got {backend!r}")
    if backend == "cpu":
        return "cpu"
    if backend == "cuda":
        if not cuda_available():
            raise CudaUnavailableError(
                "backend='cuda' requested but this build of cuplan has no CUDA backend; "
                "use backend='auto' or 'cpu' (the Rust CPU searches)"
            )
        return "cuda"
    return "cuda" if cuda_available() else "cpu"


def get_cupy():
    """Import and return CuPy, raising :class:`CudaUnavailableError` if absent."""
    try:
        import cupy
    except ImportError as error:
        raise CudaUnavailableError("CuPy is not installed") from error
    return cupy

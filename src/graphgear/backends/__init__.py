"""Backends carry the operators out: `cpu` (numba, always there) and `cuda` (CuPy + NVRTC kernels, with a GPU).

`get_backend("auto")` picks the GPU when CuPy sees one, else the CPU. Algorithms never branch on the backend: they call
its operators.
"""

from __future__ import annotations

import functools
from typing import Any

from ..engine.controller import HIGH_DIAMETER_RATIO, high_diameter
from ..errors import BackendError
from .base import Backend, Capabilities

__all__ = ["get_backend", "is_backend", "cuda_available", "high_diameter", "BACKENDS", "HIGH_DIAMETER_RATIO", "Backend",
           "Capabilities"]

BACKENDS = ("auto", "cpu", "cuda")
_instances: dict[str, Any] = {}


def cuda_available() -> bool:
    """Whether CuPy imports and sees at least one CUDA device."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device: all mean "no"
        return False


def is_backend(value: Any) -> bool:
    """Whether `value` is a backend object (base.Backend: a name, capabilities and the operators every backend has),
    which `get_backend` passes through; None, numbers and the like are not."""
    return isinstance(value, Backend) and isinstance(value.name, str)


def get_backend(name: Any = "auto") -> Any:
    """The backend object for "auto", "cpu" or "cuda" (a backend object passes through); BackendError for anything
    else, named (None, 3, "gpu")."""
    if not isinstance(name, str):
        for instance in _instances.values():  # ours first: the protocol's isinstance reads every member (tens of
            if name is instance:              # microseconds a call, several calls per algorithm call)
                return name
        if is_backend(name):
            return name
        raise BackendError(f"backend must be one of {', '.join(map(repr, BACKENDS))} or a backend object, got "
                           f"{type(name).__name__} {name!r}")
    if name not in BACKENDS:
        raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "auto":
        name = _auto_choice()
    if name not in _instances:
        if name == "cpu":
            from .cpu import CpuBackend

            _instances[name] = CpuBackend()
        else:
            if not cuda_available():
                raise BackendError("backend='cuda' needs CuPy and an NVIDIA GPU; none was found (pip install graphgear[cuda13])")
            if not _has_cuda_backend():
                raise BackendError("the CUDA backend is not part of this graphgear build yet; use backend='cpu'")
            from .cuda import CudaBackend  # pragma: no cover - GPU only

            _instances[name] = CudaBackend()  # pragma: no cover - GPU only
    return _instances[name]


@functools.cache
def _auto_choice() -> str:
    """What "auto" means in this process, asked once: whether a GPU is there does not change while it runs, and the
    asking (a module lookup and a driver call) cost host time on every gg.bfs(g, s) that left the backend "auto"
    (docs/performance.md#smaller-host-costs)."""
    return "cuda" if cuda_available() and _has_cuda_backend() else "cpu"


def _has_cuda_backend() -> bool:
    import importlib.util

    return importlib.util.find_spec(f"{__name__}.cuda") is not None

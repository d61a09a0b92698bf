"""Functor: one small piece of per-edge or per-vertex work, written once per backend under one name.

The CPU backend calls ``cpu`` (a numba function); the GPU backend compiles ``cuda`` (a CUDA C++ device-function body)
into its templated kernels. Operators take a Functor (or a bare numba function, for CPU-only work).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Functor", "cpu_function"]


@dataclass(frozen=True)
class Functor:
    """A named functor: ``cpu`` is a numba-jitted function, ``cuda`` the CUDA C++ source of the same function."""

    name: str
    cpu: Any
    cuda: str | None = None

    def __call__(self, *args: Any) -> Any:
        """Call the CPU version (handy in tests and inside other numba code via `.cpu`)."""
        return self.cpu(*args)


def cpu_function(functor: Any) -> Any:
    """The numba function behind a Functor, or the argument itself when it already is one."""
    return functor.cpu if isinstance(functor, Functor) else functor

"""Functor: one small piece of per-edge or per-vertex work, written once per backend under one name.

The CPU backend calls ``cpu`` (a numba function); the GPU backend compiles ``cuda`` (a CUDA C++ device-function body)
into its templated kernels. Operators take a Functor (or a bare numba function, for CPU-only work).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Functor", "cpu_function", "cpu_functor"]


@dataclass(frozen=True)
class Functor:
    """A named functor: ``cpu`` is a numba-jitted function, ``cuda`` the CUDA C++ source of the same function.

    ``state`` names the state arrays as the CUDA body reads them (``("level", "sigma")``: ``level[v]``,
    ``sigma[u]``); without it they are ``s0, s1, ...``. A scalar travels as a one-element array (``depth[0]``).
    """

    name: str
    cpu: Any
    cuda: str | None = None
    state: tuple[str, ...] | None = None

    def __call__(self, *args: Any) -> Any:
        """Call the CPU version (handy in tests and inside other numba code via `.cpu`)."""
        return self.cpu(*args)


def cpu_function(functor: Any) -> Any:
    """The numba function behind a Functor, or the argument itself when it already is one."""
    return functor.cpu if isinstance(functor, Functor) else functor


def cpu_functor(fn: Any) -> Any:
    """numba-compile a CPU functor: nogil and without reference counting (``_nrt=False``).

    Functors run once per edge inside parallel loops; with reference counting, unpacking the state tuple would touch
    every array's shared counter on every call from every thread (several times slower:
    docs/performance.md#kernels-without-reference-counting). A functor compiled so may
    not allocate arrays, which functors never need.
    """
    import numba

    return numba.njit(nogil=True, _nrt=False)(fn)

"""The CPU backend: every operator as a numba kernel, parallel where that pays (see operators.py, programs.py)."""

from .backend import CpuBackend, CpuGraph

__all__ = ["CpuBackend", "CpuGraph"]

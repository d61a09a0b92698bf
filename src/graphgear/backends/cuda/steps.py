"""The device step driver: a sequence of whole-vertex-set functor steps in one launch (CudaBackend.run_steps).

An algorithm that is a fixed sequence of steps over every vertex (Afforest's sample, link and compress passes) would
otherwise be one launch per step, each costing the host more time than the device spends on it. Here the steps are
the functor structs of one generated module, run one after another by one kernel whose blocks are all resident at
once, a grid barrier (kernels/grid.cuh) between consecutive steps; block 0 stamps the global timer at each barrier,
so the steps keep their own device times without an event between them (`StepRun.seconds`). A barrier that times out
raises the status flag and every block leaves; `StepRun.check` reads the flag once, when the caller asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import BackendError
from . import runtime as rt

__all__ = ["StepDriver", "StepRun", "step_module"]


def step_module(steps: Sequence[tuple[Any, int]], states: Sequence[tuple[str, ...]]) -> str:
    """The module running `steps` = (functor, index of its state in `states`, the states' C++ types) in order: struct
    GGS<i> per step (role "vertex") and kernel `steps(bar, status, stamps, c0, c1, ..., <each state once>)`; step i
    runs f<i>(v) for v < c<i>. __launch_bounds__(256, 4): all blocks must be resident at once, and the steps' loops
    chase pointers, so the more threads resident the more loads in flight."""
    src = ['#include "grid.cuh"\n']
    params = [f"{t}* a{k}_{j}" for k, types in enumerate(states) for j, t in enumerate(types)]
    calls = []
    for i, (functor, k) in enumerate(steps):
        if getattr(functor, "cuda", None) is None:
            raise BackendError(f"functor {getattr(functor, 'name', functor)!r} has no CUDA version; it runs on the CPU only")
        src.append(rt.functor_struct(f"GGS{i}", "vertex", functor.cuda, states[k], getattr(functor, "state", None)))
        members = ", ".join(f"a{k}_{j}" for j in range(len(states[k])))
        calls.append(
            f"    {{\n        GGS{i} f{{{members}}};\n"
            f"        for (int v = first; v < c{i}; v += stride) f(v);\n    }}\n"
            + ("" if i == len(steps) - 1 else "    if (!gg_grid_sync(bar, status)) return;\n")
            + f"    if (first == 0) stamps[{i + 1}] = gg_globaltimer();\n")
    src.append(
        'extern "C" __global__ void __launch_bounds__(256, 4) steps(u32* bar, int* status, u64* stamps'
        + "".join(f", int c{i}" for i in range(len(steps))) + "".join(f", {p}" for p in params) + ") {\n"
        "    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;\n"
        "    if (first == 0) stamps[0] = gg_globaltimer();\n" + "".join(calls) + "}\n")
    return "".join(src)


class StepRun:
    """A launched step sequence: its per-step device times and its barrier status, read when first asked."""

    def __init__(self, stamps: Any, status: Any, failed: Any) -> None:
        self._stamps = stamps  # u64: the global timer at the start and at the end of every step
        self._status = status  # the driver's status word (shared by its launches: nonzero only after a timeout)
        self._failed = failed  # called on a timeout: the driver drops its barrier words (their count is left over)
        self._read: tuple[np.ndarray, int] | None = None

    def _host(self) -> tuple[np.ndarray, int]:
        if self._read is None:
            self._read = (self._stamps.get(), int(self._status.get()[0]))
        return self._read

    def check(self) -> None:
        """BackendError where a barrier timed out (the launch's blocks were not all resident)."""
        if self._host()[1]:
            self._failed()
            raise BackendError("the step driver's grid barrier timed out: its blocks were not all resident at once")

    def seconds(self) -> list[float]:
        """Each step's device time (global timer stamps at the barriers)."""
        return [float(x) / 1e9 for x in np.diff(self._host()[0].astype(np.int64))]


class StepDriver:
    """CudaBackend's run_steps (the mixin keeps its modules in CudaBackend._modules, by step signature)."""

    xp: Any
    _modules: dict
    _coresident_blocks: Any  # persistent.py
    _step_control: Any = None  # (barrier words and status, the status), shared by every launch (a barrier leaves
    # its arrival count at 0, and the status stays 0 but after a timeout, when StepRun.check drops them)

    def run_steps(self, steps: Sequence[tuple[Any, tuple, int]]) -> StepRun:
        """Run functor(v, state) for v < count, for each (functor, state, count) of `steps` in order, in one launch;
        returns the run (per-step seconds, barrier check), read back only when asked. A state shared by several steps
        (the same tuple object) is passed once."""
        cp = self.xp
        states: list[tuple] = []
        index: dict[int, int] = {}
        for _, state, _ in steps:
            if id(state) not in index:
                index[id(state)] = len(states)
                states.append(state)
        types = tuple(rt.state_signature(state) for state in states)
        order = tuple((f, index[id(state)]) for f, state, _ in steps)
        key = ("steps", types) + tuple((f.name, f.cuda, getattr(f, "state", None), k) for f, k in order)
        module = self._modules.get(key)
        if module is None:
            module = self._modules[key] = rt.KernelTable(rt.compile_module(step_module(order, types), ()))
        kernel = module.get_function("steps")
        if self._step_control is None:
            words = cp.zeros(4, dtype=cp.uint32)
            self._step_control = (words, words[2:])
        control, status = self._step_control
        stamps = cp.empty(len(steps) + 1, dtype=cp.uint64)
        counts = [np.int32(count) for _, _, count in steps]
        blocks = min(self._coresident_blocks(kernel, sparse=False, dense=8), max(1, (max(counts) + rt.BLOCK - 1) // rt.BLOCK))
        kernel((blocks,), (rt.BLOCK,), (control, status, stamps, *counts, *(a for state in states for a in state)))
        return StepRun(stamps, status, self._drop_step_control)

    def _drop_step_control(self) -> None:
        self._step_control = None

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
from ..base import Repeat
from . import runtime as rt

__all__ = ["StepDriver", "StepRun", "step_module"]


def step_module(items: Sequence[Any], states: Sequence[tuple[str, ...]]) -> str:
    """The module running `items` in order, each a step (functor, index of its state in `states`) or a loop
    (body steps, (predicate, index of its state), rounds), `states` the states' C++ types: struct GGS<i> per step
    (role "vertex", numbered in order, a loop's body included), GGP<j> per loop's predicate (role
    "vertex_predicate"), and kernel `steps(bar, status, stamps, c0, c1, ..., <each state once>)`; step i runs f<i>(v)
    for v < c<i>. A grid barrier separates consecutive steps; a loop's round ends with one, every thread then asks the
    predicate (the same words, so all decide alike), and a second barrier keeps the next step's writes from the
    predicate's reads. stamps[0] counts the steps run, stamps[1] is the start and stamps[2 + k] the end of the k-th.
    __launch_bounds__(256, 4): all blocks must be resident at once, and the steps' loops chase pointers, so the more
    threads resident the more loads in flight."""
    src = ['#include "grid.cuh"\n']
    params = [f"{t}* a{k}_{j}" for k, types in enumerate(states) for j, t in enumerate(types)]

    def members(k: int) -> str:
        return ", ".join(f"a{k}_{j}" for j in range(len(states[k])))

    def struct(name: str, role: str, functor: Any, k: int) -> None:
        if getattr(functor, "cuda", None) is None:
            raise BackendError(f"functor {getattr(functor, 'name', functor)!r} has no CUDA version; it runs on the CPU only")
        src.append(rt.functor_struct(name, role, functor.cuda, states[k], getattr(functor, "state", None)))

    sync = "if (!gg_grid_sync(bar, status)) return;\n"
    count = 0

    def step(functor: Any, k: int, indent: str) -> str:
        nonlocal count
        i, count = count, count + 1
        struct(f"GGS{i}", "vertex", functor, k)
        return (f"{indent}{{\n{indent}    GGS{i} f{{{members(k)}}};\n"
                f"{indent}    for (int v = first; v < c{i}; v += stride) f(v);\n{indent}}}\n"
                f"{indent}if (first == 0) stamps[2 + slot] = gg_globaltimer();\n{indent}++slot;\n")

    body = []
    barrier_due = False  # a step ran since the last barrier
    for j, item in enumerate(items):
        if barrier_due:
            body.append("    " + sync)
        if len(item) == 2:
            body.append(step(item[0], item[1], "    "))
            barrier_due = True
            continue
        steps, (again, k), rounds = item
        struct(f"GGP{j}", "vertex_predicate", again, k)
        inner = f"        {sync}".join(step(f, s, "        ") for f, s in steps)
        body.append(f"    for (int round = 0;; ++round) {{\n{inner}        {sync}"
                    f"        const bool again = round + 1 < {int(rounds)} && GGP{j}{{{members(k)}}}(round);\n"
                    f"        {sync}        if (!again) break;\n    }}\n")
        barrier_due = False
    src.append(
        'extern "C" __global__ void __launch_bounds__(256, 4) steps(u32* bar, int* status, u64* stamps'
        + "".join(f", int c{i}" for i in range(count)) + "".join(f", {p}" for p in params) + ") {\n"
        "    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;\n"
        "    int slot = 0;\n    if (first == 0) stamps[1] = gg_globaltimer();\n" + "".join(body)
        + "    if (first == 0) stamps[0] = slot;\n}\n")
    return "".join(src)


def _identity(item: Any) -> tuple:
    """A step's or loop's part of the module key: its functors' identities and state indices."""
    if len(item) == 2:
        return (id(item[0]), item[1])
    steps, (again, k), rounds = item
    return ("repeat", rounds, id(again), k) + tuple((id(f), s) for f, s in steps)


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
        """Each step's device time as run, a loop's steps once per round (global timer stamps at the barriers)."""
        stamps = self._host()[0].astype(np.int64)
        return [float(x) / 1e9 for x in np.diff(stamps[1:2 + stamps[0]])]


class StepDriver:
    """CudaBackend's run_steps (the mixin keeps its modules in CudaBackend._modules, by step signature)."""

    xp: Any
    _modules: dict
    _coresident_blocks: Any  # persistent.py
    _step_control: Any = None  # (barrier words and status, the status), shared by every launch (a barrier leaves
    # its arrival count at 0, and the status stays 0 but after a timeout, when StepRun.check drops them)

    def run_steps(self, steps: Sequence[Any]) -> StepRun:
        """Run functor(v, state) for v < count, for each (functor, state, count) of `steps` in order, a Repeat's body
        while its predicate holds, in one launch; returns the run (per-step seconds, barrier check), read back only
        when asked. A state shared by several steps (the same tuple object) is passed once. The module is looked up
        by the functors' identities and the states' dtypes (the cache entry keeps the functors, so an identity is
        never reused while it stands for a module)."""
        cp = self.xp
        states: list[tuple] = []
        index: dict[int, int] = {}

        def state_index(state: tuple) -> int:
            k = index.get(id(state))
            if k is None:
                k = index[id(state)] = len(states)
                states.append(state)
            return k

        shape: list[Any] = []
        counts: list[np.int32] = []
        most = 0  # stamps: the steps the launch may run
        for item in steps:
            if isinstance(item, Repeat):
                shape.append((tuple((f, state_index(state)) for f, state, _ in item.body),
                              (item.again, state_index(item.state)), item.rounds))
                counts += [np.int32(count) for _, _, count in item.body]
                most += len(item.body) * item.rounds
            else:
                f, state, count = item
                shape.append((f, state_index(state)))
                counts.append(np.int32(count))
                most += 1
        key = ("steps", tuple(tuple(a.dtype.char for a in state) for state in states), tuple(map(_identity, shape)))
        cached = self._modules.get(key)
        if cached is None:
            types = tuple(rt.state_signature(state) for state in states)
            module = rt.KernelTable(rt.compile_module(step_module(shape, types), ()))
            cached = self._modules[key] = (module.get_function("steps"), shape)
        kernel = cached[0]
        if self._step_control is None:
            words = cp.zeros(4, dtype=cp.uint32)
            self._step_control = (words, words[2:])
        control, status = self._step_control
        stamps = cp.empty(most + 2, dtype=cp.uint64)
        blocks = min(self._coresident_blocks(kernel, sparse=False, dense=8), max(1, (max(counts) + rt.BLOCK - 1) // rt.BLOCK))
        kernel((blocks,), (rt.BLOCK,), (control, status, stamps, *counts, *(a for state in states for a in state)))
        return StepRun(stamps, status, self._drop_step_control)

    def _drop_step_control(self) -> None:
        self._step_control = None

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
from ..base import PerRun, Repeat, plan_states
from . import runtime as rt

__all__ = ["CudaStepPlan", "StepDriver", "StepRun", "step_fields", "step_module"]


def step_module(items: Sequence[Any], states: Sequence[tuple[str, ...]]) -> str:
    """The module running `items` in order, each a step (functor, index of its state in `states`) or a loop
    (body steps, (predicate, index of its state), rounds), `states` the states' C++ types: struct GGS<i> per step
    (role "vertex", numbered in order, a loop's body included), GGP<j> per loop's predicate (role
    "vertex_predicate"), and kernel `steps(GGStepArgs)`, its one struct argument holding bar, status, stamps, c0,
    c1, ... and each state's arrays once (`step_fields`: one launch argument, not dozens, is far less host time
    before the kernel starts: docs/performance.md#launch-arguments-as-one-struct); step i runs f<i>(v) for
    v < c<i>. A grid barrier separates consecutive steps; a loop's round ends with one, every thread then asks the
    predicate (the same words, so all decide alike), and a second barrier keeps the next step's writes from the
    predicate's reads. stamps[0] counts the steps run, stamps[1] is the start and stamps[2 + k] the end of the k-th.
    __launch_bounds__(256, 4): all blocks must be resident at once, and the steps' loops chase pointers, so the more
    threads resident the more loads in flight."""
    src = ['#include "grid.cuh"\n']

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
    fields = step_fields(count, states)
    src.append("struct GGStepArgs {\n" + "".join(f"    {t} {name};\n" for t, name in fields) + "};\n")
    locals_ = "".join(f"    const int {name} = (int)A.{name};\n" if t == "long long"
                      else f"    {t} const {name} = A.{name};\n" for t, name in fields)
    src.append(
        'extern "C" __global__ void __launch_bounds__(256, 4) steps(const __grid_constant__ GGStepArgs A) {\n'
        + locals_ +
        "    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;\n"
        "    int slot = 0;\n    if (first == 0) stamps[1] = gg_globaltimer();\n" + "".join(body)
        + "    if (first == 0) stamps[0] = slot;\n}\n")
    return "".join(src)


def step_fields(count: int, states: Sequence[tuple[str, ...]]) -> list[tuple[str, str]]:
    """GGStepArgs' fields in order, (C++ type, name), each 8 bytes: the barrier words, the status, the stamps, the
    count of each of the `count` steps (c<i>, long long), then each state's arrays (a<k>_<j>)."""
    return ([("u32*", "bar"), ("int*", "status"), ("u64*", "stamps")] + [("long long", f"c{i}") for i in range(count)]
            + [(f"{t}*", f"a{k}_{j}") for k, types in enumerate(states) for j, t in enumerate(types)])


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


class CudaStepPlan:
    """A prepared step launch (StepDriver.step_plan): the kernel, its blocks, and its struct argument packed but for
    the stamps, the shared control words and the per-run arrays' addresses, which `run` writes into a copy. It keeps
    the arrays whose addresses it packed alive, and none of a run's."""

    def __init__(self, driver: StepDriver, kernel: Any, blocks: int, most: int, words: np.ndarray, struct: np.dtype,
                 places: list[list[int]], dtypes: tuple, kept: tuple) -> None:
        self._driver, self._kernel, self._blocks, self._most = driver, kernel, blocks, most
        self._words, self._struct, self._places, self._dtypes, self._kept = words, struct, places, dtypes, kept

    def run(self, *arrays: Any) -> StepRun:
        """Launch the steps with `arrays` in the per-run arrays' places (each of the planned dtype)."""
        if len(arrays) != len(self._places):
            raise TypeError(f"this plan takes {len(self._places)} per-run arrays, got {len(arrays)}")
        driver = self._driver
        control, status = driver._step_controls()
        stamps = driver.xp.empty(self._most + 2, dtype=np.uint64)
        words = self._words.copy()
        words[0], words[1], words[2] = control.data.ptr, status.data.ptr, stamps.data.ptr
        for places, array, dtype in zip(self._places, arrays, self._dtypes):
            if array.dtype != dtype:
                raise BackendError(f"a per-run array of dtype {array.dtype} where the plan has {dtype}")
            address = array.data.ptr
            for i in places:
                words[i] = address
        self._kernel((self._blocks,), (rt.BLOCK,), (words.view(self._struct),))
        return StepRun(stamps, status, driver._drop_step_control)


class StepDriver:
    """CudaBackend's run_steps (the mixin keeps its modules in CudaBackend._modules, by step signature)."""

    xp: Any
    _modules: dict
    _coresident_blocks: Any  # persistent.py
    _step_control: Any = None  # (barrier words and status, the status), shared by every launch (a barrier leaves
    # its arrival count, bar[0]'s low bits, at 0, and the status stays 0 but after a timeout, when StepRun.check drops
    # them)

    def run_steps(self, steps: Sequence[Any]) -> StepRun:
        """Run functor(v, state) for v < count, for each (functor, state, count) of `steps` in order, a Repeat's body
        while its predicate holds, in one launch; returns the run (per-step seconds, barrier check), read back only
        when asked. A state shared by several steps (the same tuple object) is passed once. The module is looked up
        by the functors' identities and the states' dtypes (the cache entry keeps the functors, so an identity is
        never reused while it stands for a module)."""
        return self.step_plan(steps, ()).run()

    def step_plan(self, steps: Sequence[Any], per_run: tuple) -> CudaStepPlan:
        """`run_steps` prepared for many runs (base.StepPlan's contract): the module, the blocks and the launch's
        struct with every address packed but the per-run arrays', which each run patches (CudaStepPlan)."""
        states, shape = plan_states(steps, per_run)
        items: list[Any] = []
        counts: list[int] = []
        most = 0  # stamps: the steps the launch may run
        for item in shape:
            if isinstance(item, Repeat):
                items.append((tuple((f, k) for f, k, _ in item.body), (item.again, item.state), item.rounds))
                counts += [int(count) for _, _, count in item.body]
                most += len(item.body) * item.rounds
            else:
                items.append((item[0], item[1]))
                counts.append(int(item[2]))
                most += 1
        dtypes = [tuple((per_run[a.k] if isinstance(a, PerRun) else a).dtype for a in state) for state in states]
        key = ("steps", tuple(tuple(d.char for d in types) for types in dtypes), tuple(map(_identity, items)))
        cached = self._modules.get(key)
        if cached is None:
            types = tuple(tuple(rt.ctype(d) for d in state) for state in dtypes)
            module = rt.KernelTable(step_module(items, types))
            # the struct's dtype: 3 words, a count per step, an address per state array (step_fields)
            words = 3 + len(counts) + sum(len(t) for t in types)
            cached = self._modules[key] = (module.get_function("steps"), items, np.dtype((np.void, 8 * words)))
        kernel, _, struct = cached
        blocks = min(self._coresident_blocks(kernel, sparse=False, dense=8), max(1, (max(counts) + rt.BLOCK - 1) // rt.BLOCK))
        words = [0, 0, 0, *counts]
        places: list[list[int]] = [[] for _ in per_run]
        for state in states:
            for a in state:
                if isinstance(a, PerRun):
                    places[a.k].append(len(words))
                    words.append(0)
                else:
                    words.append(a.data.ptr)
        kept = tuple(a for state in states for a in state if not isinstance(a, PerRun))  # the packed addresses' arrays
        return CudaStepPlan(self, kernel, blocks, most, np.array(words, dtype=np.uint64), struct, places,
                            tuple(p.dtype for p in per_run), kept)

    def _step_controls(self) -> tuple[Any, Any]:
        """The barrier words and the status every step launch shares (made again after a timeout dropped them)."""
        if self._step_control is None:
            words = self.xp.zeros(4, dtype=self.xp.uint32)
            self._step_control = (words, words[2:])
        return self._step_control

    def _drop_step_control(self) -> None:
        self._step_control = None

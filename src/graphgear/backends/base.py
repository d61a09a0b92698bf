"""The backend contract: what every backend offers (`Backend`) and what it declares it can do (`Capabilities`).

Algorithms, the program runner and the engine ask a backend's capabilities, never its name or its attributes (as
NetworkX asks a backend what it can run, never which backend it is). A backend's name labels traces and caches only.

Every backend runs the operators of the vertex-centric model (SEP-Graph, Table 1; Gunrock's advance/filter): advance
(push over out-edges), pull (gather over in-edges), filter, for_each_vertex, vertex_reduce and neighbor_reduce, and a
vertex program's round (program_state, program_round), and MultiGraph's dense mode (`dense_product`: the sum over
each vertex's in-arcs of x[source], by MultiGraphD's two phases over graph/tiles.py's layout of the graph). What
differs is declared here:

    async_order       how an async push drains its worklist: "fifo" (one FIFO worklist on one thread, in order: the
                      CPU; a single-source drain is then BFS order, so BC's reverse pass and SEP-Graph's serial pass
                      rely on it) or "levels" (level after level in parallel: the GPU)
    device_traversal  a vertex program's whole traversal (SEP-Graph Algorithm 2 evaluated each round) runs in one
                      launch on the device, with its log replayed on the host (`program_persistent`)
    device_programs   a monotone program started from every vertex (label propagation, colour propagation) runs to
                      its fixed point in one launch (`program_persistent` with a worklist of all vertices)
    brandes_loop      Brandes' single-source betweenness (forward and backward phases) in one launch (`brandes`)
    brandes_loop_arcs a graph of at most this many arcs runs that loop whatever its depth (0: by depth alone): on it
                      a host-driven level's launches and reads cost more than the loop's levels
    fused_power       PageRank's power iteration in one persistent launch (`power_iteration`); a switch (tests and
                      benchmarks turn it off to time a launch per step)
    light_heavy       near-far SSSP with Meyer & Sanders' light/heavy split inside the persistent launch; a switch
    exact_queues      every queue an operator returns holds a vertex at most once (the CPU's; a GPU queue may repeat)
    degree_layout     MultiGraph's renumbering by degree pays off on this backend (the GPU's caches and warps)

`timeline()` times a sequence of operator calls without waiting between them: `mark()` after each step, `seconds()`
once at the end (on the GPU, CUDA events on the stream: the steps' device time, one wait when first read).
`run_steps(steps)` runs a sequence of (functor, state, count) steps, functor(v, state) for every v < count, one
step after another (the GPU: one launch, a grid barrier between steps); an item may be a `Repeat`, steps run again
while a predicate of the state holds (a convergence rule decided where the data is: on the GPU inside the launch, no
host read). It returns the run, whose `seconds()` gives each step's time as run (a repeated step once per round) and
`check()` raises where the device run failed, both read when first asked.
`step_plan(steps, per_run)` prepares such a sequence once for many runs whose states differ only in the arrays
`per_run` names (a call's own result and scratch): its `run(*arrays)` is `run_steps` with those arrays replaced, in
order. The generic `StepPlan` rebuilds the states per run; the GPU keeps its launch prepared (module, blocks, the
packed argument) and patches the changed addresses, host time a call would otherwise spend while the GPU waits.
`chained()` is a context in which one call's device launches run back to back, none read back before the next
starts (the GPU's persistent launches; nothing to do where operators finish before they return).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["Backend", "Capabilities", "HostTimeline", "PerRun", "Repeat", "StepPlan", "plan_states"]


@dataclass
class Capabilities:
    """What a backend declares it can run (see the module notes). Not frozen: fused_power and light_heavy are
    switches a test or a benchmark turns off for one run (tests/conftest.set_cuda_knobs)."""

    async_order: str = "fifo"
    device_traversal: bool = False
    device_programs: bool = False
    brandes_loop: bool = False
    brandes_loop_arcs: int = 0
    fused_power: bool = False
    light_heavy: bool = False
    exact_queues: bool = True
    degree_layout: bool = False


@dataclass(frozen=True)
class Repeat:
    """A loop of `run_steps`: the `body` steps ((functor, state, count) each) run, then `again(round, state)` (a
    vertex predicate; round counts from 0) decides whether they run once more, at most `rounds` times in all. The
    predicate reads the state as the body's last step left it (every thread of a device run reads the same words
    after a grid barrier, so all decide alike); it must not write."""

    body: tuple
    again: Any
    state: tuple
    rounds: int


class PerRun:
    """A per-run array's place in a planned state: the index of the array `StepPlan.run` is given."""

    __slots__ = ("k",)

    def __init__(self, k: int) -> None:
        self.k = k


def plan_states(steps: Any, per_run: tuple) -> tuple[list[tuple], list[Any]]:
    """(states, shape): each distinct state of `steps` once (a state several steps share is the same tuple object),
    its per-run arrays (by identity, from `per_run`) as PerRun(k); and the steps with each state as its index in
    states ((functor, index, count), or a Repeat of such with its rule's state an index). The plan keeps no per-run
    array, so a run's result is never held by the plan."""
    slots = {id(a): k for k, a in enumerate(per_run)}
    states: list[tuple] = []
    index: dict[int, int] = {}

    def state_index(state: tuple) -> int:
        k = index.get(id(state))
        if k is None:
            k = index[id(state)] = len(states)
            states.append(tuple(PerRun(slots[id(a)]) if id(a) in slots else a for a in state))
        return k

    shape = [Repeat(tuple((f, state_index(st), count) for f, st, count in item.body), item.again,
                    state_index(item.state), item.rounds) if isinstance(item, Repeat)
             else (item[0], state_index(item[1]), item[2]) for item in steps]
    return states, shape


class StepPlan:
    """A `run_steps` sequence planned once and run many times, the arrays named `per_run` at planning replaced by
    `run`'s (the module notes). This generic plan rebuilds the states and steps per run and hands them to the
    backend's run_steps; the GPU's keeps its launch prepared (backends/cuda/steps.py)."""

    def __init__(self, backend: Any, steps: Any, per_run: tuple) -> None:
        self._backend = backend
        self._states, self._shape = plan_states(steps, per_run)
        self._count = len(per_run)

    def run(self, *arrays: Any) -> Any:
        """The steps run with `arrays` in the per-run arrays' places; returns run_steps' run."""
        if len(arrays) != self._count:
            raise TypeError(f"this plan takes {self._count} per-run arrays, got {len(arrays)}")
        states = [tuple(arrays[a.k] if isinstance(a, PerRun) else a for a in state) for state in self._states]
        steps = [Repeat(tuple((f, states[k], count) for f, k, count in item.body), item.again, states[item.state],
                        item.rounds) if isinstance(item, Repeat) else (item[0], states[item[1]], item[2])
                 for item in self._shape]
        return self._backend.run_steps(steps)


@dataclass
class HostTimeline:
    """A backend's timeline where the operators finish before they return (the CPU): wall-clock marks."""

    marks: list[float] = field(default_factory=list)

    def mark(self) -> None:
        self.marks.append(time.perf_counter())

    def seconds(self) -> list[float]:
        """The time between consecutive marks."""
        return [b - a for a, b in zip(self.marks, self.marks[1:])]

    def check(self) -> None:
        """Nothing to check: the operators timed have finished, and raised, before they returned."""


@runtime_checkable
class Backend(Protocol):
    """What every backend object has: a name (trace labels, cache keys), its array module `xp` (NumPy or CuPy), its
    capabilities, and the operators."""

    name: str
    xp: Any
    capabilities: Capabilities

    def graph(self, g: Any) -> Any: ...

    def to_host(self, array: Any) -> Any: ...

    def timeline(self) -> Any: ...

    def chained(self) -> Any: ...

    def asarray(self, array: Any, dtype: Any = None) -> Any: ...

    def advance(self, G: Any, frontier: Any, functor: Any, strategy: Any, state: tuple) -> Any: ...

    def pull(self, G: Any, frontier: Any, functor: Any, strategy: Any, state: tuple, candidate: Any) -> Any: ...

    def filter(self, frontier: Any, predicate: Any, state: tuple, strategy: Any = None) -> Any: ...

    def for_each_vertex(self, frontier: Any, functor: Any, state: tuple, *args: Any, **kwargs: Any) -> Any: ...

    def run_steps(self, steps: Any) -> Any: ...

    def step_plan(self, steps: Any, per_run: tuple) -> Any: ...

    def vertex_reduce(self, frontier: Any, functor: Any, state: tuple, *args: Any, **kwargs: Any) -> Any: ...

    def neighbor_reduce(self, G: Any, map_fn: Any, state: tuple, *args: Any, **kwargs: Any) -> Any: ...

    def dense_product(self, G: Any, x: Any, out: Any = None) -> Any: ...

    def program_state(self, G: Any, program: Any, value: Any, buffer: Any, params: Any, **kwargs: Any) -> Any: ...

    def program_params(self, params: Any) -> Any: ...

    def fill_state(self, s: Any) -> None: ...

    def program_round(self, G: Any, s: Any, worklist: Any, strategy: Any) -> tuple[Any, int]: ...

    def release_state(self, s: Any) -> None: ...

"""Vertex programs (SEP-Graph, Table 1): write per-vertex logic once, run it under every execution path.

A program keeps per vertex a value and a message buffer and defines

    init            the initial values and buffers (InitValue, InitBuffer) and the first active vertices
    compute         (value, buffer, out_degree, params) -> (value, buffer, message, send)      (ComputeBuffer + IsActive)
                    apply the buffer to the value; `send` says whether the vertex sends `message` this round
    edge            (message, weight, params) -> contribution    what one edge carries (BFS: +1, SSSP: +w)
    accumulate      the monoid that combines contributions into a buffer: "min", "max", "sum" or "or"
                    (AccumulateBuffer; atomic in push, a plain reduction in pull)
    settled         (value, params) -> bool: a settled vertex can no longer change, so data-driven pull skips it
    first_wins      pull may stop at the first sending in-neighbour (every sender carries the same message, as in BFS)
    monotone        value and message only ever move the accumulate's way (min: down; max/or: up), as when compute
                    keeps the better of value and buffer. Such a program's result does not depend on the order of
                    updates, so the GPU may run it label-correcting: block-local hops on high-diameter graphs
    silent_leaves   a message sent back over the arc it came by never improves the sender (BFS: +1, SSSP: +w >= 0,
                    labels: min or max of the same label): on an undirected graph a vertex of degree 1 reached by a
                    message has nothing to send, and Busato & Bombieri's kernel C leaves it out of the frontier

`run_program` runs a program with a controller choosing the path each round (push/pull x sync/async x data/topology)
and records the trace. compute/edge/settled are `Functor`s: a numba function for the CPU and a CUDA C++ body for the
GPU. With an idempotent accumulate (min/max/or) the message must be a function of the value, because async pull
re-reads messages.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .backends import get_backend
from .engine.controller import (CONTROLLERS, Controller, IterationInfo, TraversalController, check_strategy,
                                note_depth, run_controller)
from .engine.strategy import Strategy, require_monotone
from .engine.trace import Trace
from .errors import GraphError, StrategyError
from .frontier import Frontier, one_vertex
from .functor import Functor
from .graph.graph import Graph, _whole_numbers, check_flag, described, shown

__all__ = ["VertexProgram", "ProgramRun", "run_program"]

ACCUMULATE = ("min", "max", "sum", "or")
_NO_PARAMS = np.zeros(0, dtype=np.float64)  # a program without parameters (read only)
_NO_PARAMS.flags.writeable = False


@dataclass(frozen=True)
class VertexProgram:
    """A vertex program; see the module notes for what each part does."""

    name: str
    kind: str  # "traversal" (controller: SEP-Graph Algorithm 2) or "iterative" (Algorithm 1)
    accumulate: str
    compute: Functor
    edge: Functor
    settled: Functor
    first_wins: bool = False
    skip_settled: bool = True
    monotone: bool = False
    silent_leaves: bool = False

    def __post_init__(self) -> None:
        if self.accumulate not in ACCUMULATE:
            raise GraphError(f"accumulate must be one of {', '.join(ACCUMULATE)}, got {self.accumulate!r}")
        if self.kind not in ("traversal", "iterative"):
            raise GraphError(f"kind must be 'traversal' or 'iterative', got {self.kind!r}")


def nothing_to_check() -> None:
    """The check of a run with nothing left to read back (a run read back as it ran, a run over no vertices)."""


@dataclass
class ProgramRun:
    """What `run_program` returns: the trace and the backend's state; `values` copies the final values to the host.
    The values are the run's own; a single-source run's buffers and messages on the GPU are its graph's scratch,
    which the next single-source run on that graph refills (backend release_state)."""

    trace: Trace
    state: Any
    backend: Any
    # raises if the device run failed (a grid barrier that timed out); a GPU traversal that is read back lazily is
    # read here (results.Deferred arrays call it before they hand out the state's arrays)
    check: Callable[[], Any] = nothing_to_check

    @property
    def values(self) -> np.ndarray:
        """The final values as a host (NumPy) array."""
        return self.backend.to_host(self.checked(self.state.value))

    def checked(self, array: Any) -> Any:
        """`array` (the state's, or made from it on the device) once the run is known to have succeeded."""
        self.check()
        return array


def run_program(
    program: VertexProgram,
    graph: Any,
    values: np.ndarray | None = None,
    buffers: np.ndarray | None = None,
    active: np.ndarray | None = None,
    *,
    source: int | None = None,
    params: Any = (),
    backend: Any = "auto",
    strategy: Any = "auto",
    max_rounds: int = 1_000_000,
    after_round: Callable[[Any, Any], Frontier | None] | None = None,
    phase: str = "",
    copy: bool = True,
    lazy: bool = False,
) -> ProgramRun:
    """Run `program` on `graph` from the given initial values/buffers; `active` lists the first worklist (None: all).

    Each round the controller picks a Strategy (see engine.controller); the run ends when the worklist is empty or
    after max_rounds. `after_round(backend, state)` runs between rounds (e.g. PageRank spreading dangling mass); a
    Frontier it returns joins the next worklist. `phase` labels the trace rows. copy=False lets the program's state
    take `values` and `buffers` as they are (the caller made them for this run and does not read them again).
    lazy=True: the caller reads the results only through the returned ProgramRun (`values`, `checked`, the trace), so
    a traversal the device runs whole is read back when first read (the host does not wait for the kernel).
    `source` instead of values, buffers and active: a single-source start (values inf, buffers inf but 0 at the
    source, the worklist [source]), which the GPU makes inside the traversal's first launch.
    """
    if (source is None) == (values is None or buffers is None) or (source is not None and active is not None):
        raise GraphError("run_program takes values and buffers (and the active vertices), or a source, not both "
                         f"(source={shown(source)}, values {'None' if values is None else 'given'}, buffers "
                         f"{'None' if buffers is None else 'given'}, active {'None' if active is None else 'given'})")
    _check_arguments(program, graph, values, buffers, active, source, max_rounds, after_round, phase)
    copy, lazy = check_flag("copy", copy), check_flag("lazy", lazy)
    check_strategy(strategy)
    be = get_backend(backend)
    G = be.graph(graph)
    n = graph.num_vertices
    try:
        host_params = (_NO_PARAMS if type(params) is tuple and not params
                       else np.asarray(be.to_host(params), dtype=np.float64))
    except (TypeError, ValueError):
        raise GraphError(f"params must be numbers, got {shown(params)}") from None
    kind = _controller_kind(program, be, strategy, after_round)
    order = be.capabilities.async_order
    # a copy of Algorithm 2's prototype, built once per graph and request (building one per call was host time in
    # front of the launch), else make_controller's (a caller's controller as it is)
    controller = run_controller(strategy, graph, kind, program.monotone, order)
    fixed = getattr(controller, "strategy", None)
    if fixed is not None and fixed.sync == "async" and fixed.direction == "pull" and program.accumulate == "sum":
        raise StrategyError("async pull re-reads messages, so it needs an idempotent accumulate (min/max/or), not sum")
    if fixed is not None:
        require_monotone(fixed, program)
    state = be.program_state(G, program, values, buffers, host_params, copy=copy, source=source)
    trace = Trace(algorithm=program.name, backend=be.name, controller=controller.name)
    if source is not None:  # the source's worklist is made on the host only if the device does not run it all
        worklist = None
    elif active is None:  # every vertex: its out-edges are every arc (no count on the device)
        worklist = Frontier.all_vertices(n, be.xp).known_out_edges(G.out_degree, graph.num_arcs)
    else:
        worklist = Frontier.from_vertices(be.asarray(active), n)
    rounds = 0
    check = nothing_to_check
    if after_round is None and isinstance(controller, TraversalController):
        # a controller of the caller's may run again before this trace is read, so its replay is not deferred
        worklist, rounds, check = _device_rounds(be, G, graph, state, worklist, controller, trace, max_rounds, phase,
                                                 defer=controller is not strategy, lazy=lazy, source=source)
    if worklist is None:
        worklist = Frontier.from_vertices(one_vertex(be.xp, source), n)
    while worklist.size and rounds < max_rounds:
        info = IterationInfo(rounds, worklist.size, worklist.out_edges(G.out_degree), n, graph.num_arcs)
        sampled, sample_edges, sample_seconds = _sample(be, G, state, worklist, controller, info)
        decision = controller.choose(info)
        # the round timed on the backend's timeline: on the GPU CUDA events around its launches, so a round whose
        # launches return before the kernels end (a topology-driven pull reads nothing back) is timed as it ran on
        # the device, not as long as the host took to queue it (SEP-Graph's Algorithm 1 compares these times)
        timeline = be.timeline()
        timeline.mark()
        next_worklist, edges = be.program_round(G, state, worklist, decision.strategy)
        if sampled is not None and sampled.size:  # what the sample reached: its sends are not made again
            next_worklist = next_worklist.joined(sampled)
        if after_round is not None:
            extra = after_round(be, state)
            if extra is not None and extra.size:  # vertices the hook made active join the next worklist
                next_worklist = next_worklist.joined(extra)
        timeline.mark()
        seconds = timeline.seconds()[0]
        controller.observe(decision, info, seconds)
        trace.add(strategy=str(decision.strategy), path=decision.strategy.path, frontier_vertices=info.frontier_vertices,
                  frontier_edges=info.frontier_edges, edges_processed=int(edges) + sample_edges,
                  seconds=seconds + sample_seconds, decision=decision.decision, reason=decision.reason, phase=phase)
        worklist = next_worklist
        rounds += 1
    if source is not None:  # the single-source start, if no round made it (max_rounds 0)
        be.fill_state(state)
    be.release_state(state)  # no launch uses it again: a scratch pair it holds goes to the next run
    return ProgramRun(trace, state, be, check)


def _sample(be: Any, G: Any, state: Any, worklist: Frontier, controller: Controller,
            info: IterationInfo) -> tuple[Frontier | None, int, float]:
    """The sample a controller asks for before it chooses (Controller.sample_plan: MultiGraph's sparse run of a few
    active vertices), run and timed on the backend's timeline and reported to the controller; returns what it
    reached (None without a sample), its edges and its seconds, which the iteration's trace row counts."""
    plan = controller.sample_plan(info)
    if plan is None:
        return None, 0, 0.0
    k, strategy, rng = plan
    sample = worklist.sample(k, rng)
    timeline = be.timeline()
    timeline.mark()
    reached, edges = be.program_round(G, state, sample, strategy)
    timeline.mark()
    seconds = timeline.seconds()[0]
    controller.observe_sample(sample.size, int(edges), seconds)
    return reached, int(edges), seconds


def programs_on_device(be: Any, strategy: Any) -> bool:
    """Whether a monotone program started from many vertices runs whole on the device: the backend can
    (capabilities.device_programs) and the strategy is one of the automatic controllers (a caller's own Strategy or
    controller runs as given, round by round)."""
    return be.capabilities.device_programs and isinstance(strategy, str) and strategy in CONTROLLERS


def _controller_kind(program: VertexProgram, be: Any, strategy: Any, after_round: Any) -> str:
    """The controller a run gets: the program's kind, except that a monotone iterative program (label propagation,
    colour propagation) on a backend that runs such programs whole on the device (capabilities.device_programs) is
    a label-correcting traversal from many vertices at once, and runs as one: under SEP-Graph's Algorithm 2, every
    round in one persistent launch (device_rules) or one async push-dd pass on a high-diameter graph, where
    Algorithm 1 would time candidate paths round by round from the host. A caller's own Strategy or controller, or an
    after_round hook (the host works between rounds), keeps the program's kind."""
    if program.kind == "iterative" and program.monotone and after_round is None and programs_on_device(be, strategy):
        return "traversal"
    return program.kind


def _check_arguments(program: Any, graph: Any, values: Any, buffers: Any, active: Any, source: Any, max_rounds: Any,
                     after_round: Any, phase: Any) -> None:
    """GraphError naming a run_program argument of the wrong kind or size, before the backend's kernels index with it
    (an array of the wrong length, or an active vertex out of range, would read or write past the state's arrays).
    Device arrays (CuPy) are checked by shape and dtype only: a range check would wait for the device."""
    if not isinstance(program, VertexProgram):
        raise GraphError(f"program must be a VertexProgram, got {described(program)}")
    if not isinstance(graph, Graph):
        raise GraphError(f"graph must be a graphgear Graph, got {described(graph)}")
    n = graph.num_vertices
    for name, array in (("values", values), ("buffers", buffers)):
        if array is None:
            continue
        on_device = type(array).__module__.startswith("cupy")
        try:
            arr = array if on_device else np.asarray(array)
        except (TypeError, ValueError):
            raise GraphError(f"{name} must be an array of {n} numbers, got {shown(array)}") from None
        if arr.shape != (n,) or arr.dtype.kind not in "iuf":
            raise GraphError(f"{name} must be an array of {n} numbers (one per vertex), got {shown(array)} (shape "
                             f"{arr.shape}, dtype {arr.dtype})")
    if active is not None and not type(active).__module__.startswith("cupy"):
        ids = _whole_numbers(active, "active")
        if ids.size and (ids.min() < 0 or ids.max() >= n):
            i = int(np.argmax((ids < 0) | (ids >= n)))
            raise GraphError(f"active[{i}] = {int(ids[i])} is out of range for {n} vertices (0..{n - 1})")
    if source is not None and not (type(source) is int and 0 <= source < n):  # a plain int in range: the common call
        whole = isinstance(source, numbers.Integral) and not isinstance(source, (bool, np.bool_))
        if not whole or not 0 <= source < n:
            raise GraphError(f"source must be a vertex index from 0 to {n - 1}, got {described(source)}")
    plain = type(max_rounds) is int and max_rounds >= 0  # the common call, without the ABC checks below
    if not plain and (isinstance(max_rounds, (bool, np.bool_)) or not isinstance(max_rounds, numbers.Integral)
                      or max_rounds < 0):
        raise GraphError(f"max_rounds must be a whole number >= 0, got {described(max_rounds)}")
    if after_round is not None and not callable(after_round):
        raise GraphError(f"after_round must be a function (backend, state) -> Frontier or None, got "
                         f"{described(after_round)}")
    if not isinstance(phase, str):
        raise GraphError(f"phase must be a string, got {described(phase)}")


def _device_rounds(be: Any, G: Any, graph: Any, state: Any, worklist: Frontier | None, controller: Any, trace: Trace,
                   max_rounds: int, phase: str, defer: bool = True, lazy: bool = False,
                   source: int | None = None) -> tuple[Frontier | None, int, Callable[[], Any]]:
    """Hand a traversal to the device when the backend can run SEP-Graph Algorithm 2 itself (the GPU's persistent
    kernel: every round inside one launch, no host round trip). The device logs each round's active set; replaying
    the controller on that log gives the trace the same decisions and reasons as a host-driven run.
    When the device finished the traversal, the replay waits until the trace is first read (Trace.defer), unless
    `defer` is false (the controller is the caller's, and may run again before then). With `lazy` and `defer`,
    nothing is read back from the device until the trace or a result is read (the backend's PendingRun), so the host
    does not wait for the kernel. The host never goes on from a device run (the device stops at the end or at
    max_rounds, where run_program's loop stops too), so the worklist left need not be read back then.
    A worklist None is the state's single-source start (one vertex), made in the device's launch.
    Returns the worklist left, the rounds run (none when the hand-off does not apply; 0 when not read back yet) and
    a check that reads the run back and raises its error."""
    rules = controller.device_rules() if isinstance(controller, TraversalController) else None
    if not be.capabilities.device_traversal or (worklist is not None and not worklist.size):
        return worklist, 0, nothing_to_check
    if rules is None:
        return _device_pass(be, G, graph, state, worklist, controller, trace, phase, defer and lazy and max_rounds > 0,
                            source)
    base, params = rules
    n = graph.num_vertices
    if lazy and defer:
        pending = be.program_persistent(G, state, worklist, base, "adaptive", params, max_rounds, lazy=True)
        trace.defer(lambda: _replay(pending.result(), controller, trace, graph, phase),
                    lambda: float(pending.result().seconds().sum()))
        # its levels, once it is read back (its results, its trace or the next launch settling it)
        pending.when_read(lambda rounds: note_depth(graph, rounds))
        return Frontier.empty(n, be.xp), 0, pending.result
    run = be.program_persistent(G, state, worklist, base, "adaptive", params, max_rounds)
    note_depth(graph, run.rounds)
    if run.remaining.size or not defer:  # the host goes on with this controller: it must see the rounds first
        _replay(run, controller, trace, graph, phase)
    else:  # the traversal is done: the trace is replayed when first read
        trace.defer(lambda: _replay(run, controller, trace, graph, phase), float(run.seconds().sum()))
    return run.remaining, run.rounds, nothing_to_check


def _device_pass(be: Any, G: Any, graph: Any, state: Any, worklist: Frontier | None, controller: Any, trace: Trace,
                 phase: str, lazy: bool, source: int | None) -> tuple[Frontier | None, int, Callable[[], Any]]:
    """A traversal whose every round is the controller's one decision, known in advance (a sparse graph's one async
    push-dd pass: TraversalController.single_pass), handed to the device unread when the caller reads its results
    only through the run (lazy): one persistent launch, the trace's row (the pass, its edges and device time) and the
    first worklist's out-edges read when the trace is first read. Otherwise the host loop runs the pass (no hand-off)."""
    decision = controller.single_pass(graph.num_vertices, graph.num_arcs)
    s = decision.strategy if decision is not None else None
    if not lazy or s is None or s.sync != "async" or s.direction != "push" or s.drive == "topology":
        return worklist, 0, nothing_to_check
    pending = be.program_persistent(G, state, worklist, s, "push", lazy=True)

    def fill() -> None:
        run = pending.result()
        vertices = 1 if worklist is None else worklist.size
        if worklist is None:  # the single-source start: its out-degree, from the host's CSR
            edges = int(graph.offsets[source + 1] - graph.offsets[source])
        else:
            edges = worklist.out_edges(G.out_degree)
        trace.add(strategy=str(s), path=s.path, frontier_vertices=vertices, frontier_edges=edges,
                  edges_processed=run.edges_processed(graph.num_arcs), seconds=float(run.seconds().sum()),
                  decision=decision.decision, reason=decision.reason + device_overrides(s), phase=phase)

    trace.defer(fill, lambda: float(pending.result().seconds().sum()))
    return Frontier.empty(graph.num_vertices, be.xp), 0, pending.result


def device_overrides(strategy: Strategy) -> str:
    """What a persistent launch runs otherwise than `strategy` asks (under "auto" the configuration table's fields):
    the note the trace's first device row ends with, so that a reader sees where the table was overridden and why
    (issue 24, point 4); "" when nothing is."""
    notes = []
    if strategy.sync == "sync":
        notes.append("sync (a launch per round) as async: every round in one persistent launch, a grid barrier "
                     "between rounds, as the device decides each round")
    if strategy.frontier == "edge_queue":
        notes.append("frontier=edge_queue as a vertex queue: the persistent kernel's worklist")
    if strategy.dedup != "none":
        notes.append(f"dedup={strategy.dedup} left out: the persistent kernel's queues are exact (claim bits)")
    return "; the device overrides " + "; ".join(notes) if notes else ""


def _replay(run: Any, controller: Any, trace: Trace, graph: Any, phase: str) -> None:
    """The device log of a persistent run through the controller: the trace gets the rows (and the decisions and
    reasons) a host-driven run would have, and a device decision the controller would not take is an error."""
    seconds = run.seconds()
    n = graph.num_vertices
    for r, row in enumerate(run.log):
        info = IterationInfo(r, int(row[1]), int(row[2]), n, graph.num_arcs)
        decision = controller.choose(info)
        pull = decision.strategy.direction == "pull"
        if pull != bool(row[3]):
            raise StrategyError(f"round {r}: the device chose {'pull' if row[3] else 'push'}, the controller "
                                f"{decision.decision}")
        strategy = decision.strategy.with_(sync="async")
        trace.add(strategy=str(strategy), path=strategy.path, frontier_vertices=info.frontier_vertices,
                  frontier_edges=info.frontier_edges, edges_processed=graph.num_arcs if pull else info.frontier_edges,
                  seconds=float(seconds[r]), decision=decision.decision,
                  reason=decision.reason + " (decided on the device, persistent kernel)"
                  + (device_overrides(decision.strategy) if r == 0 else ""), phase=phase)

"""CpuBackend: the operator contract of DESIGN.md on the CPU (NumPy arrays, numba kernels).

On the CPU the Strategy fields direction, drive and sync take effect; frontier kind, balance, supports, dedup and
lookup shape GPU kernels only: they are validated by Strategy and recorded in the trace, and the CPU always removes
duplicates exactly (a test-and-set per vertex) so frontier sizes are the same on every path. filter, for_each_vertex
and neighbor_reduce accept a strategy for the same contract; a vertex-parallel loop has no path to choose on the CPU.
"""

from __future__ import annotations

import contextlib

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...engine.strategy import require_level_synchronous
from ...errors import StrategyError
from ...frontier import Frontier
from ...functor import cpu_function
from ...graph.tiles import graph_tiles
from ..base import Capabilities, HostTimeline, Repeat, StepPlan
from . import operators as ops
from . import programs as prog

# A round's kernel runs on the calling thread where its work (vertices, plus edges for a push) is below this: waking
# the thread team for a parallel loop costs more than such a round (docs/performance.md#small-rounds-on-one-thread)
SERIAL_WORK = 1 << 12


def _sized(kernel: Any, vertices: int, edges: Any = None) -> Any:
    """The parallel kernel template, or its serial form where the work (`vertices`, plus `edges()` for a push) is below
    SERIAL_WORK; the edges are counted only for a frontier small enough for them to decide."""
    if vertices >= SERIAL_WORK or (edges is not None and vertices + edges() >= SERIAL_WORK):
        return kernel
    return kernel.serial


def _ids(n: int) -> type:
    """The narrowest integer type for vertex ids of a graph of n vertices (FIFO rings: less memory to stream)."""
    return np.int32 if n < 2**31 else np.int64


@dataclass
class CpuGraph:
    """The arrays the CPU kernels read, cached on the Graph (``g.device_cache["cpu"]``)."""

    graph: Any
    offsets: np.ndarray
    indices: np.ndarray
    weights: np.ndarray  # float32[A], or float32[0] when unweighted
    weighted: bool
    out_degree: np.ndarray
    num_vertices: int
    num_arcs: int
    _csc: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offsets, sources, weights) of the in-edges."""
        if self._csc is None:
            t_offsets, t_indices, t_weights = self.graph.csc()
            self._csc = (t_offsets, t_indices, t_weights if t_weights is not None else self.weights)
        return self._csc


@dataclass
class ProgramState:
    """Per-vertex arrays of a running vertex program and its compiled pieces (see programs.py)."""

    value: np.ndarray
    buffer: np.ndarray
    message: np.ndarray
    send: np.ndarray
    params: np.ndarray
    compute: Any
    edge: Any
    settled: Any
    monoid: int
    first_wins: bool
    skip_settled: bool
    touched: np.ndarray
    queued: np.ndarray


class CpuBackend:
    """The CPU backend. Stateless apart from scratch buffers; one instance serves every graph."""

    name = "cpu"
    xp = np
    # async advance drains one FIFO worklist in order (BC's reverse-order pass relies on it); queues are exact
    capabilities = Capabilities(async_order="fifo", exact_queues=True)

    # --------------------------------------------------------------------------------------------------- memory
    def graph(self, g: Any) -> CpuGraph:
        """The CPU arrays of Graph g (built once, cached on g)."""
        cached = g.device_cache.get("cpu")
        if cached is None:
            weights = g.weights if g.weights is not None else np.empty(0, np.float32)
            cached = CpuGraph(g, g.offsets, g.indices, weights, g.weights is not None, g.out_degree(), g.num_vertices, g.num_arcs)
            g.device_cache["cpu"] = cached
        return cached

    def chained(self) -> contextlib.AbstractContextManager[None]:
        """Nothing to chain: the CPU's operators finish before they return."""
        return contextlib.nullcontext()

    def timeline(self) -> HostTimeline:
        """Wall-clock marks: the CPU's operators finish before they return."""
        return HostTimeline()

    def to_host(self, array: Any) -> np.ndarray:
        return np.asarray(array)

    def asarray(self, array: Any, dtype: Any = None) -> np.ndarray:
        return np.asarray(array, dtype=dtype)

    def single_source_start(self, n: int, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A single-source traversal's values and buffers (inf everywhere but the source's buffer, 0) and [s], its
        first worklist (int64)."""
        values = np.full(n, np.inf)
        buffers = values.copy()
        buffers[s] = 0.0
        return values, buffers, np.array([s], dtype=np.int64)

    def hop_counts(self, values: np.ndarray, index: np.ndarray | None = None) -> np.ndarray:
        """int64 hop counts from a BFS's float64 values (values[index] where an index is given), -1 where
        unreachable (inf)."""
        values = values if index is None else values[index]
        return np.where(np.isinf(values), -1, values).astype(np.int64)

    # --------------------------------------------------------------------------------------------------- advance
    def advance(self, G: CpuGraph, frontier: Frontier, functor: Any, strategy: Any, state: tuple) -> Frontier:
        """Push from the frontier's vertices over their out-edges; returns the activated vertices."""
        require_level_synchronous(strategy, "advance")
        f = cpu_function(functor)
        n = G.num_vertices
        if strategy.sync == "async":
            queued = np.zeros(n, dtype=np.int8)
            ring = np.empty(n + 1, dtype=_ids(n))
            ops.advance_async[f](G.offsets, G.indices, G.weights, G.weighted, frontier.vertices(), state, queued, ring)
            return Frontier.empty(n)
        if strategy.drive == "topology" or frontier.is_dense:
            next_mask = np.zeros(n, dtype=np.bool_)
            ops.advance_mask[f](G.offsets, G.indices, G.weights, G.weighted, frontier.to_dense().mask, state, next_mask)
            out = Frontier.from_mask(next_mask)
            return out if strategy.frontier in ("bitmap", "boolmap") else out.to_sparse()
        touched = np.zeros(n, dtype=np.int8)
        out = np.empty(n, dtype=np.int64)
        counter = np.zeros(1, dtype=np.int64)
        _sized(ops.advance_queue, frontier.size, lambda: frontier.out_edges(G.out_degree))[f](
            G.offsets, G.indices, G.weights, G.weighted, frontier.queue, state, touched, out, counter)
        result = Frontier.from_vertices(out[: counter[0]], n)
        return result.to_dense() if strategy.frontier in ("bitmap", "boolmap") else result

    # --------------------------------------------------------------------------------------------------- pull
    def pull(
        self, G: CpuGraph, frontier: Frontier | None, functor: Any, strategy: Any, state: tuple, candidate: Any
    ) -> Frontier:
        """Every candidate vertex scans its in-edges from active sources (all sources when frontier is None)."""
        f, c = cpu_function(functor), cpu_function(candidate)
        t_offsets, t_indices, t_weights = G.csc()
        n = G.num_vertices
        active = frontier.to_dense().mask if frontier is not None else np.zeros(1, dtype=np.bool_)
        next_mask = np.zeros(n, dtype=np.bool_)
        kernel = ops.pull_async if strategy.sync == "async" else ops.pull_mask
        kernel[c, f](t_offsets, t_indices, t_weights, G.weighted, active, frontier is None, state, next_mask)
        return Frontier.from_mask(next_mask)

    # --------------------------------------------------------------------------------------------------- filter etc.
    def filter(self, frontier: Frontier, predicate: Any, state: tuple, strategy: Any = None) -> Frontier:
        """The frontier's vertices for which predicate(v, state) holds (same representation)."""
        p = cpu_function(predicate)
        if frontier.is_dense:
            keep = np.zeros(frontier.num_vertices, dtype=np.bool_)
            ops.filter_mask[p](frontier.mask, state, keep)
            return Frontier.from_mask(keep)
        keep = np.zeros(frontier.size, dtype=np.bool_)
        _sized(ops.filter_queue, frontier.size)[p](frontier.queue, state, keep)
        return Frontier.from_vertices(frontier.queue[keep], frontier.num_vertices)

    def for_each_vertex(self, frontier: Frontier | None, functor: Any, state: tuple, num_vertices: int | None = None,
                        strategy: Any = None) -> None:
        """functor(v, state) for every vertex of the frontier (every vertex when frontier is None)."""
        f = cpu_function(functor)
        if frontier is None:
            ops.for_each_all[f](int(num_vertices), state)
        else:
            vertices = frontier.vertices()
            _sized(ops.for_each_queue, vertices.shape[0])[f](vertices, state)

    def run_steps(self, steps: Any) -> HostTimeline:
        """for_each_vertex over v < count for each (functor, state, count) in order, a Repeat's body while its
        predicate holds; the steps' wall-clock times (a HostTimeline: its seconds(), and a check() with nothing to
        check, as the GPU's StepRun has)."""
        timeline = HostTimeline()
        timeline.mark()
        for item in steps:
            rounds, body = (item.rounds, item.body) if isinstance(item, Repeat) else (1, (item,))
            for r in range(rounds):
                for functor, state, count in body:
                    self.for_each_vertex(None, functor, state, num_vertices=count)
                    timeline.mark()
                if isinstance(item, Repeat) and not self._ask(item.again, r, item.state):
                    break
        return timeline

    def step_plan(self, steps: Any, per_run: tuple) -> StepPlan:
        """`run_steps` planned for many runs (base.StepPlan: nothing to prepare on the CPU but the states)."""
        return StepPlan(self, steps, per_run)

    @staticmethod
    def _ask(predicate: Any, r: int, state: tuple) -> bool:
        """A Repeat's rule for round r, through the filter kernel (compiled with the others and cached on disk; the
        numba function called from Python would compile again in every process)."""
        keep = np.zeros(1, dtype=np.bool_)
        ops.filter_queue[cpu_function(predicate)](np.array([r], dtype=np.int64), state, keep)
        return bool(keep[0])

    def vertex_reduce(self, frontier: Frontier | None, functor: Any, state: tuple, monoid: str = "sum",
                      num_vertices: int | None = None) -> np.ndarray:
        """functor(v, state) for every vertex of the frontier (every vertex when None), which may update v's state;
        its float64 results combined by sum/min/max into a one-element array."""
        reducers = {"min": (np.min, np.inf), "max": (np.max, -np.inf), "sum": (np.sum, 0.0)}
        if monoid not in reducers:
            raise StrategyError(f"vertex_reduce monoid must be min, max or sum, got {monoid!r}")
        combine, identity = reducers[monoid]
        listed = frontier is not None
        vertices = np.ascontiguousarray(frontier.vertices(), dtype=np.int64) if listed else np.zeros(1, dtype=np.int64)
        count = vertices.size if listed else int(num_vertices)
        values = np.empty(count, dtype=np.float64)
        if count:
            _sized(ops.vertex_values, count)[cpu_function(functor)](vertices, listed, count, state, values)
        return np.array([combine(values) if count else identity], dtype=np.float64)

    def neighbor_reduce(
        self, G: CpuGraph, map_fn: Any, state: tuple, monoid: str = "sum", direction: str = "in", out: Any = None,
        strategy: Any = None, vertices: Frontier | None = None,
    ) -> np.ndarray:
        """out[v] = sum/min/max over v's in- (or out-) neighbours u of map_fn(v, u, w, state): a topology-driven
        gather such as PageRank's pull, or a data-driven one over the `vertices` frontier (other entries of `out`
        are left as they were)."""
        codes = {"min": (0, np.inf), "max": (1, -np.inf), "sum": (2, 0.0)}
        if monoid not in codes:
            raise StrategyError(f"neighbor_reduce monoid must be min, max or sum, got {monoid!r}")
        offsets, indices, weights = G.csc() if direction == "in" else (G.offsets, G.indices, G.weights)
        out = np.empty(G.num_vertices, dtype=np.float64) if out is None else out
        code, identity = codes[monoid]
        listed = vertices is not None
        rows = np.ascontiguousarray(vertices.vertices(), dtype=np.int64) if listed else np.zeros(1, dtype=np.int64)
        ops.neighbor_reduce[cpu_function(map_fn)](offsets, indices, weights, G.weighted, state, code, identity, rows,
                                                  listed, out)
        return out

    def dense_product(self, G: CpuGraph, x: Any, out: Any = None) -> np.ndarray:
        """out[v] = the sum over arcs u -> v of x[u] (times the weight), by MultiGraphD's two phases over G's tiles
        (graph.tiles.graph_tiles: built once per graph); the CPU runs the layout's reference phases."""
        return graph_tiles(G.graph).product(x, out)

    # --------------------------------------------------------------------------------------------------- programs
    @staticmethod
    def program_params(params: Any) -> np.ndarray:
        """A program's parameters as its kernels read them (ProgramState.params): float64, contiguous. A hook between
        rounds that changes them (PageRank's priority threshold) sets the state's params to this."""
        return np.ascontiguousarray(params, dtype=np.float64)

    def program_state(self, G: CpuGraph, program: Any, value: np.ndarray | None, buffer: np.ndarray | None,
                      params: np.ndarray, copy: bool = True, source: int | None = None) -> ProgramState:
        """Arrays and compiled functions of a vertex program about to run on G; `value` and `buffer` are copied (the
        caller's arrays stay as they were) unless copy=False (the caller made them for this run). With a `source`
        (value and buffer None): a single-source start (single_source_start)."""
        n = G.num_vertices
        if source is not None:
            value, buffer, _ = self.single_source_start(n, source)
            copy = False
        monoid = prog.MONOIDS[program.accumulate]
        identity = prog.IDENTITY[monoid]
        return ProgramState(
            value=np.array(value, dtype=np.float64, copy=copy or None),
            buffer=np.array(buffer, dtype=np.float64, copy=copy or None),
            message=np.full(n, identity, dtype=np.float64),
            send=np.zeros(n, dtype=np.bool_),
            params=self.program_params(params),
            compute=cpu_function(program.compute),
            edge=cpu_function(program.edge),
            settled=cpu_function(program.settled),
            monoid=monoid,
            first_wins=program.first_wins,
            skip_settled=program.skip_settled,
            touched=np.zeros(n, dtype=np.int8),
            queued=np.zeros(n, dtype=np.int8),
        )

    def fill_state(self, s: ProgramState) -> None:
        """Nothing: a CPU program state is made whole by program_state (the GPU's may wait for its first launch)."""

    @staticmethod
    def release_state(s: ProgramState) -> None:
        """Nothing: a CPU program state owns its arrays (the GPU's may hold its graph's scratch pair)."""

    def program_round(self, G: CpuGraph, s: ProgramState, worklist: Frontier, strategy: Any) -> tuple[Frontier, int]:
        """One round of the program under `strategy`; returns (next worklist, edges processed)."""
        n = G.num_vertices
        if strategy.sync == "async":
            return self._program_async(G, s, worklist, strategy)
        if strategy.drive == "topology":
            prog.compute_all[s.compute](s.value, s.buffer, s.message, G.out_degree, s.send, s.params)
            senders = Frontier.from_mask(s.send.copy())
        else:
            vertices = worklist.vertices()
            s.send[:] = False
            _sized(prog.compute_vertices, vertices.shape[0])[s.compute](
                vertices, s.value, s.buffer, s.message, G.out_degree, s.send, s.params)
            senders = Frontier.from_vertices(vertices[s.send[vertices]], n)
        if strategy.direction == "push":
            queue = senders.vertices()
            out = np.empty(n, dtype=np.int64)
            counter = np.zeros(1, dtype=np.int64)
            edges = senders.out_edges(G.out_degree)
            _sized(prog.push_sync, queue.shape[0], lambda: edges)[s.edge](
                G.offsets, G.indices, G.weights, G.weighted, queue, s.message, s.buffer, s.buffer.view(np.int64),
                s.touched, out, counter, s.params, s.monoid,
            )
            touched = out[: counter[0]]
            s.touched[touched] = 0
            return Frontier.from_vertices(touched, n), edges
        t_offsets, t_indices, t_weights = G.csc()
        sender_mask = senders.to_dense().mask
        prog.pull_sync[s.settled, s.edge](
            t_offsets, t_indices, t_weights, G.weighted, sender_mask, s.message, s.buffer, s.value, s.touched,
            s.params, s.monoid, s.first_wins, s.skip_settled and strategy.drive == "data",
        )
        next_mask = s.touched.astype(np.bool_)
        s.touched[:] = 0
        return Frontier.from_mask(next_mask), G.num_arcs

    def _program_async(self, G: CpuGraph, s: ProgramState, worklist: Frontier, strategy: Any) -> tuple[Frontier, int]:
        n = G.num_vertices
        if strategy.direction == "pull":
            if s.monoid == prog.SUM:
                raise StrategyError("async pull re-reads messages, so it needs an idempotent accumulate (min/max/or), not sum")
            t_offsets, t_indices, t_weights = G.csc()
            # the worklist's vertices computed first, so their messages are current before the sweep reads them
            vertices = worklist.vertices()
            prog.compute_vertices[s.compute](vertices, s.value, s.buffer, s.message, G.out_degree, s.send, s.params)
            senders, scanned = prog.pull_async[s.settled, s.compute, s.edge](
                t_offsets, t_indices, t_weights, G.weighted, s.value, s.buffer, s.message, G.out_degree, s.params,
                s.monoid, False,  # "settled" holds between sync rounds only
            )
            return (Frontier.all_vertices(n) if senders else Frontier.empty(n)), int(scanned)
        if strategy.drive == "topology":
            senders, pushed = prog.push_async_topology[s.compute, s.edge](
                G.offsets, G.indices, G.weights, G.weighted, s.value, s.buffer, s.message, G.out_degree, s.params,
                s.monoid,
            )
            return (Frontier.all_vertices(n) if senders else Frontier.empty(n)), int(pushed)
        _, pushed = prog.push_async_data[s.compute, s.edge](
            G.offsets, G.indices, G.weights, G.weighted, worklist.vertices(), s.value, s.buffer, s.message,
            G.out_degree, s.queued, np.empty(n + 1, dtype=_ids(n)), s.params, s.monoid,
        )
        return Frontier.empty(n), int(pushed)

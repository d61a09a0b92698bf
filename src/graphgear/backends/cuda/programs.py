"""A vertex program on the device: its state (CudaProgramState) and its host-driven rounds (kernels/program.cuh):
compute, then push through the advance kernels or pull over the in-edges; async, every round in one launch
(persistent.py). CudaBackend takes this part from here."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import StrategyError
from ...frontier import Frontier
from . import runtime as rt
from . import sources
from .graph import CudaGraph
from .structs import IDENTITY, MONOIDS


def program_push_strategy(strategy: Any, monoid: int) -> Any:
    """The strategy a program's host-driven push round runs. A min/max/or program runs the frontier and duplicate
    removal it names (Busato & Bombieri's techniques, each real): a vertex listed twice computes twice and pushes the
    same message, which an idempotent accumulate takes once (kernels/program.cuh gg_program_compute). A sum program
    must compute each vertex once per round, so its queue frontier claims each vertex on emission (dedup=atomic)."""
    if monoid != MONOIDS["sum"] or strategy.drive != "data" or strategy.frontier not in ("vertex_queue", "edge_queue"):
        return strategy
    return strategy.with_(dedup="atomic")


@dataclass
class CudaProgramState:
    value: Any
    buffer: Any
    message: Any
    send: Any  # uint8[V], allocated by the first host-driven round (a persistent run never needs it)
    params: Any
    program: Any
    monoid: int
    first_wins: bool
    skip_settled: bool
    module: Any
    visited: Any = None  # bitmask lookup: one bit per vertex whose buffer is set (first-wins programs)
    # what the first launch that uses the state makes (the persistent kernel's prologue, else fill_state; a launch
    # of their own cost host time before the kernel): the identity `message` is still to be filled with (None:
    # filled), the single-source start (values inf, buffers inf but 0 at `source`; -1: none, or made)
    message_fill: float | None = None
    source: int = -1
    scratch_of: Any = None  # the CudaGraph whose scratch pair (source_scratch) buffer and message are, until released


class Programs:
    """CudaBackend's vertex programs: their state, their modules and their host-driven rounds."""

    # what this part uses of CudaBackend's state (made in its __init__) and of its other parts
    xp: Any
    _utility: rt.KernelTable
    _modules: dict
    _params: dict
    _advance_level: Callable[..., Frontier]  # operators.py
    _bits: Callable[..., Any]  # operators.py
    program_persistent: Callable[..., Any]  # persistent.py

    def fill_state(self, s: CudaProgramState) -> None:
        """Make what the program state still owes its arrays (a single-source start, the messages' identity fill) by
        one RawKernel launch, if no launch has yet: the persistent kernel's prologue does it inside its own launch,
        every other path calls this first (cupy.full's elementwise fill, and a launch apiece, cost host time)."""
        fill = s.message_fill is not None
        if s.source >= 0 or fill:
            n = int(s.value.size)
            if n:
                rt.launch(self._utility.get_function("program_start"), n,
                          (s.value, s.buffer, s.message if fill else np.uint64(0), np.int32(n), np.int64(s.source),
                           np.float64(s.message_fill if fill else 0.0)))
            s.source, s.message_fill = -1, None

    def _program_module(self, program: Any, balancer: str | None = None, pull_group: int = 0) -> Any:
        """A vertex program's module: its rounds' kernels, or (balancer given) its persistent kernel; looked up by
        the program's CUDA sources (generating and hashing the source per call cost host time per launch)."""
        key = (program.name, program.compute.cuda, program.edge.cuda, program.settled.cuda, program.accumulate,
               program.first_wins, program.skip_settled, balancer, pull_group)
        module = self._modules.get(key)
        if module is None:
            source = (sources.program_module(program) if balancer is None
                      else sources.persistent_module(program, balancer, pull_group))
            module = self._modules[key] = rt.KernelTable(source)
        return module

    def program_state(self, G: CudaGraph, program: Any, value: Any, buffer: Any, params: Any,
                      copy: bool = True, source: int | None = None) -> CudaProgramState:
        """The device arrays of a vertex program about to run on G; `value` and `buffer` are copied unless copy=False
        (the caller made them for this run: a float64 device array is then used as it is). With a `source` (value and
        buffer None) the state is a single-source start, made by its first launch (fill_state): its value is its own,
        its buffer and message G's scratch pair where no other state holds it (release_state gives it back)."""
        n = G.num_vertices
        monoid = MONOIDS[program.accumulate]
        cp = self.xp
        owner = G.source_scratch_owner
        scratch = source is not None and (owner is None or owner() is None)
        if scratch:
            # a single-source start's buffer and message are G's scratch pair, lent to this state until its run is
            # over (release_state): the runs on a graph take the stream one after another, so the next run's launch
            # refills them behind this one's. Two allocations a call were host time in front of a BFS's kernel
            # (docs/performance.md#host-time-of-a-call)
            if G.source_scratch is None:
                G.source_scratch = (cp.empty(n, dtype=cp.float64), cp.empty(n, dtype=cp.float64))
            buffer, message = G.source_scratch
            value = cp.empty(n, dtype=cp.float64)
        elif source is not None:  # the pair is lent to a state whose run is not over: this one gets its own
            value, buffer, message = (cp.empty(n, dtype=cp.float64) for _ in range(3))
        else:
            value, buffer = self._float64(value, copy), self._float64(buffer, copy)
            message = cp.empty(n, dtype=cp.float64)
        state = CudaProgramState(
            value=value, buffer=buffer, message=message, message_fill=IDENTITY[monoid],
            source=-1 if source is None else source, send=None,
            params=self.program_params(params), program=program, monoid=monoid,
            first_wins=program.first_wins, skip_settled=program.skip_settled, module=self._program_module(program),
            visited=None,  # made by _lookup / _persistent_visited when a strategy first asks for bitmask lookup
            scratch_of=G if scratch else None,
        )
        if scratch:
            G.source_scratch_owner = weakref.ref(state)
        return state

    @staticmethod
    def release_state(s: CudaProgramState) -> None:
        """The state's run is over (no launch will use it again): its graph's scratch pair, if the state holds it,
        goes to the next single-source state. Its buffer and message then keep their contents only until that
        state's first launch; its values are its own."""
        if s.scratch_of is not None:
            s.scratch_of.source_scratch_owner = None
            s.scratch_of = None

    def _float64(self, array: Any, copy: bool) -> Any:
        """`array` as a float64 device array: itself where it is one and need not be copied (cp.array's checks cost
        a few us of host time per call on the way to every launch), else a copy."""
        cp = self.xp
        if not copy and isinstance(array, cp.ndarray) and array.dtype == cp.float64:
            return array
        return cp.array(array, dtype=cp.float64, copy=copy)

    def program_params(self, params: Any) -> Any:
        """A program's parameters as its kernels read them (the state's params): on the device, plus a trailing 0 so
        the array is never empty, cached by value (kernels only read them, and a host-to-device copy per run costs a
        synchronous round trip). A hook between rounds that changes them sets the state's params to this."""
        params = np.asarray(params, dtype=np.float64)
        key = params.tobytes()  # the trailing 0 adds nothing to the key (np.append per run cost a few us)
        device = self._params.get(key)
        if device is None:
            if len(self._params) > 256:
                self._params.clear()
            device = self._params[key] = self.xp.asarray(np.append(params, 0.0))
        return device

    def _compute(self, G: CudaGraph, s: CudaProgramState, vertices: Any | None) -> None:
        count = G.num_vertices if vertices is None else int(vertices.size)
        if count == 0:
            return
        ptr = np.uint64(0) if vertices is None else vertices
        rt.launch(s.module.get_function("compute"), count,
                  (ptr, np.int32(count), G.offsets, s.value, s.buffer, s.message, s.send, s.params))

    def program_round(self, G: CudaGraph, s: CudaProgramState, worklist: Frontier, strategy: Any) -> tuple[Frontier, int]:
        """One round of the program: compute, then push (every load balancer) or pull; returns (next worklist,
        edges processed)."""
        cp = self.xp
        n = G.num_vertices
        if strategy.sync == "async":
            if strategy.direction == "pull" and s.monoid == MONOIDS["sum"]:
                raise StrategyError("async pull re-reads messages, so it needs an idempotent accumulate (min/max/or), not sum")
            run = self.program_persistent(G, s, worklist, strategy, strategy.direction)
            return run.remaining, run.edges_processed(G.num_arcs)
        self.fill_state(s)
        if s.send is None:
            s.send = cp.zeros(n, dtype=cp.uint8)
        else:
            s.send.fill(0)
        if strategy.drive == "topology":
            self._compute(G, s, None)
            senders = Frontier.from_mask(s.send.view(cp.bool_).copy())
        else:
            vertices = cp.asarray(worklist.vertices(), dtype=cp.int32)
            self._compute(G, s, vertices)
            senders = Frontier.from_vertices(vertices[s.send[vertices].view(cp.bool_)], n, dtype=cp.int32)
        edges = senders.out_edges(G.out_degree)
        if strategy.direction == "push":
            push = program_push_strategy(strategy, s.monoid)
            tail = (s.message, s.buffer, np.int32(s.monoid), s.params, self._lookup(s, strategy))
            return self._advance_level(G, senders, s.module, push, (), program_args=tail), edges
        t_offsets, t_indices, t_weights = G.csc_hubs_first() if s.first_wins else G.csc()
        group = strategy.group_size if strategy.balance == "vertex_group" else 1
        next_mask = cp.zeros(n, dtype=cp.uint8)
        bits = self._bits(G, senders)
        skip = int(s.skip_settled and strategy.drive == "data")
        args = (t_offsets, t_indices, t_weights, np.int32(G.weighted), bits, np.int32(0), np.int32(n), next_mask,
                s.message, s.buffer, np.int32(s.monoid), np.int32(s.first_wins), s.value, np.int32(skip), s.params)
        rt.launch(s.module.get_function(f"pull_g{group}"), n * group, args)  # kernels/program.cuh: gg_program_pull
        return Frontier.from_mask(next_mask.view(cp.bool_)), G.num_arcs

    def _lookup(self, s: CudaProgramState, strategy: Any) -> Any:
        """The visited bitmap for lookup=bitmask on a first-wins program (its first value is final), else null. Made
        when first asked for (clear: a bit is set where a push first sets a buffer, so rounds before it lose none)."""
        if strategy.lookup != "bitmask" or not s.first_wins:
            return np.uint64(0)
        if s.visited is None:
            s.visited = self.xp.zeros(rt.bitmap_words(int(s.value.size)), dtype=self.xp.uint32)
        return s.visited

"""The persistent driver: a vertex program's rounds, or an async advance's levels, inside one cooperative kernel
(kernels/persistent.cuh), with grid barriers between rounds, SEP-Graph's push/pull rule and near-far's buckets evaluated
on the device, and one report copied back behind the launch. Its queues and control words are allocated once per graph
(PersistentBuffers), its argument packed once per configuration (PersistentPlan), and a run is read back at once or when
first asked for (PendingRun). CudaBackend takes this part from here."""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...engine.controller import high_diameter
from ...engine.strategy import require_monotone
from ...errors import BackendError, StrategyError
from ...frontier import Frontier
from . import runtime as rt
from . import sources
from .graph import CudaGraph
from .programs import CudaProgramState
from .sources import ADVANCE_KERNELS, header_constant
from .structs import MONOIDS, SUPPORT_BITS, KernelStruct, _barrier_timed_out, fits_scan_counter

LOG_ROWS = 1 << 16  # persistent kernel: rounds logged per launch
LOG_FIELDS = header_constant("persistent.cuh", "GG_LOG_FIELDS")  # fields per logged round
LOG_PREFETCH = 64  # log rows read back with the status (one sync); a longer run reads the rest after
# int64 words: counters (5), edges (3), barrier (1), status (2), far_n (1), refill_n (1), min_key (1), bucket_n (3),
# heavy_edges (2: listed or pulled, skipped by a pull), as kernels/persistent.cuh defines them (read from it:
# sources.header_constant)
CONTROL_WORDS = header_constant("persistent.cuh", "GG_CONTROL_WORDS")
BARRIER_WORD = header_constant("persistent.cuh", "GG_BARRIER_WORD")  # where those sit among the control words
STATUS_WORD = header_constant("persistent.cuh", "GG_STATUS_WORD")
DIR_PULL = header_constant("persistent.cuh", "GG_DIR_PULL")  # a logged round's direction (its fourth field)
HEAVY_EDGES_WORD = CONTROL_WORDS - 2  # the last two control words (the state's heavy_edges pointer is made from them)
# a persistent launch's report, copied back behind it: the control words from the status on, then the log's first rows
REPORT_WORDS = slice(STATUS_WORD, CONTROL_WORDS + (LOG_PREFETCH + 1) * LOG_FIELDS)
HEAVY_PULL_RATIO = 4  # near-far's heavy rows are pulled for a bucket whose senders hold >= 1/4 of the heavy arcs
LIGHT_PULL_RATIO = 4  # near-far's light round pulls every light arc when its senders hold >= 1/4 of them
BUCKET_WIDEN_MAX = 6  # near-far bucket widths up to delta * 64 on low-diameter graphs (kernels/persistent.cuh)
PERSISTENT_MODES = {"push": 0, "pull": 1, "adaptive": 2}

PERSISTENT_ARGS = KernelStruct("persistent.cuh", "GGPersistentArgs")


# a launch captured: its rounds, and the parse that makes its PersistentRun (PersistentDriver._captured)
Captured = tuple[int, Callable[[], "PersistentRun"]]


def _noted(capture: Callable[[], Captured], note: str) -> Captured:
    """A persistent launch captured (`capture`), whose run carries the note of how it ran once parsed."""
    rounds, parse = capture()

    def noted() -> PersistentRun:
        run = parse()
        run.note = note
        return run

    return rounds, noted


@dataclass
class PersistentBuffers:
    """The persistent kernel's queues, bitmaps and control words for one graph (kernels/persistent.cuh)."""

    queues: tuple[Any, Any]
    senders: tuple[Any, Any]
    huge: tuple[Any, Any]
    claim_bits: Any
    active_bits: Any
    pulled_bits: Any  # uint32[2 * words]: the senders a first-wins pull computed, by round parity (never cleared)
    control: Any  # int64[CONTROL_WORDS], zeroed by each launch's start (but the barrier's); the views below share it
    counters: Any  # uint32[10]
    edges: Any  # uint64[3]
    barrier: Any  # uint32[2]
    status: Any  # int32[4]
    log: Any  # int64[(LOG_ROWS + 1) * LOG_FIELDS]
    far: tuple[Any, Any]  # near-far piles
    far_bits: Any
    far_n: Any  # uint32[2]
    refill_n: Any  # uint32[2]
    min_key: Any  # uint64[1]
    bucket: tuple[Any, Any] | None = None  # the light/heavy split's sender lists (allocated on first use)
    bucket_bits: Any = None
    bucket_n: Any = None  # uint32[6]
    heavy_edges: Any = None  # uint64[2]: heavy arcs listed or pulled, and the arcs of the rows a pull skipped
    scan: Any = None  # int64[n + 1]: merge_path's senders' degree prefix sum (allocated on first use)
    visited: Any = None  # bitmask lookup's bitmap, lent to one program state at a time (_persistent_visited)
    visited_owner: Any = None  # weakref to that state
    report: Any = None  # the control words read back behind each launch (REPORT_WORDS)
    plans: dict = field(default_factory=dict)  # PersistentPlan by configuration (program_persistent)


@dataclass
class PersistentPlan:
    """One configuration of the persistent traversal kernel on a graph: the kernel, its blocks, the note for the
    trace, and its one argument (GGPersistentArgs) with every field packed but the program state's and the start's,
    which each launch fills in: far less host time than 64 arguments made and passed per launch
    (benchmarks/launch_arguments.py, docs/performance.md#launch-arguments-as-one-struct). `keep` holds the arrays
    whose addresses it packs; `launch` launches the kernel from its own copy of the struct, which each launch refills
    from `args` and the state's fields (rt.StructLaunch)."""

    kernel: Any
    blocks: int
    args: np.ndarray
    note: str
    keep: tuple
    launch: rt.StructLaunch


@dataclass
class PersistentRun:
    """What one persistent launch did: per-round log rows (|Q|, |S|, outDegree(S), direction, ns), the rounds run
    (possibly more than the rows logged) and the worklist left when max_rounds stopped it."""

    log: np.ndarray
    rounds: int
    remaining: Frontier

    def edges_processed(self, num_arcs: int) -> int:
        """Out-edges of the senders in push rounds (light arcs only under the light/heavy split, whose heavy rows are
        counted apart, and every light arc in the rounds that pull them), every arc in pull rounds (logged rounds)."""
        pull = self.log[:, 3] == DIR_PULL  # a light pull's row (GG_DIR_LIGHT_PULL) counts the light arcs
        return int(self.log[~pull, 2].sum()) + int(pull.sum()) * num_arcs + self.heavy_edges

    def seconds(self) -> np.ndarray:
        """Each logged round's duration, from the device clock (%globaltimer) at its decision points."""
        stamps = np.append(self.log[:, 4], self._end)
        return np.diff(stamps) / 1e9

    _end: int = 0
    heavy_edges: int = 0  # arcs the light/heavy split's heavy rows expanded (pushed) or scanned (pulled)
    note: str = ""  # how near-far ran (the heavy rows' direction rule, the bucket widths), for the trace


class PendingRun:
    """A persistent launch whose status and log are read back when first asked for (`result()`, a PersistentRun).

    A traversal whose caller does not go on from the worklist left (run_program's, read through ProgramRun: BFS)
    need not hold the host until the kernel is done: its results wait on the stream like any CuPy result, and
    the host goes on to the next launches (benchmarks/host_time.py; docs/performance.md#host-time-of-a-call).
    The backend captures it before its next persistent launch, since they share the buffers it reads (`capture`:
    the status, a log longer than the report, the worklist left; a wait on the copy queued behind the kernel, no
    read), and makes its PersistentRun only when it is asked for, so the next launch does not wait for that on the
    host (docs/performance.md#host-time-of-a-call). Inside `chained()` the next launch detaches it instead (`detach`
    snapshots the control words and the log on the device, a copy queued on the stream, no wait; result() reads the
    snapshot), so the launches of one call (Multistep's BFS, then the propagation) run back to back with no host read
    between them. A grid barrier that timed out is kept and raised by result(), not by the unrelated launch."""

    def __init__(self, read: Any, detach: Any = None, before: PendingRun | None = None) -> None:
        self._read = read  # () -> Captured, before the buffers are reused
        self._detach = detach  # () -> a capture from a device snapshot, for a later launch that reuses the buffers
        self._before = before  # the detached launch this one ran behind (chained), read first
        self._rounds = 0  # the rounds run, once captured
        self._parse: Callable[[], PersistentRun] | None = None  # makes the PersistentRun, once captured
        self._run: PersistentRun | None = None
        self._error: BackendError | None = None
        self._when_read: list[Any] = []

    def when_read(self, callback: Any) -> None:
        """Call `callback(rounds)` once the launch is captured, by whoever does it first (its results, its trace or
        the next launch): at once if it has been."""
        if self._parse is not None or self._run is not None:
            callback(self._rounds)
        elif self._read is not None or self._before is not None:
            self._when_read.append(callback)

    def detach(self) -> None:
        """Before the buffers are reused: read from a device snapshot of them later (no wait now); a launch
        without a snapshot reader is captured now."""
        if self._read is not None and self._detach is not None:
            self._read, self._detach = self._detach(), None
        else:
            self.capture()

    def capture(self) -> None:
        """Read what the launch left in the buffers it shares with the next launch, now, once: its report (a wait on
        the copy queued behind the kernel), a log longer than the report, the worklist left. A chained launch
        captures the one it ran behind first: if that one failed, its buffers were left half set, so this one's
        result is wrong too and raises the same error."""
        if self._before is not None:
            before, self._before = self._before, None
            before.capture()
            if before._error is not None:
                self._read, self._error = None, before._error
        if self._read is not None:
            read, self._read = self._read, None
            try:
                self._rounds, self._parse = read()
            except BackendError as error:
                self._error = error
            callbacks, self._when_read = self._when_read, []
            if self._parse is not None:
                for callback in callbacks:
                    callback(self._rounds)

    def result(self) -> PersistentRun:
        """The launch's PersistentRun; raises the launch's error (a grid barrier that timed out)."""
        self.capture()
        if self._error is not None:
            raise self._error
        if self._run is None:
            parse, self._parse = self._parse, None
            self._run = parse()
        return self._run


class PersistentDriver:
    """CudaBackend's persistent launches: a vertex program's whole traversal and the async advance."""

    # what this part uses of CudaBackend's state (made in its __init__) and of its other parts
    xp: Any
    _utility: rt.KernelTable
    _modules: dict
    _occupancy: dict
    _report: rt.PinnedReader
    _pending: PendingRun | None
    _chained: bool  # inside chained()
    _handoff: PendingRun | None  # the launch the next one runs behind (chained)
    grid_gather_degree: int
    supplementary_threshold: int | None
    persistent_pull_group: int | None
    persistent_blocks_per_sm: int | None
    persistent_blocks: int | None
    heavy_pull_ratio: int | None
    light_pull_ratio: int | None
    bucket_widen_max: int
    _program_module: Callable[..., Any]  # programs.py

    @contextlib.contextmanager
    def chained(self) -> Iterator[None]:
        """Persistent launches of one call that run back to back (Multistep's BFS, then the propagation from the
        vertices it left): each detaches the lazy launch before it instead of waiting for it (PendingRun.detach) and
        reads it first when its own result is read, so a failure of the first raises with the second's result and
        drops the buffers before any later call uses them."""
        if not self._chained:  # a launch before the block (another call's) is read as usual: only the block's own
            self._capture_pending()  # launches run behind one another, so a failure stays within its call
            self._handoff = None
        chained, self._chained = self._chained, True
        try:
            yield
        finally:
            self._chained = chained

    def _capture_pending(self) -> None:
        """Capture the launch left pending (lazy) before anything reuses its buffers or the pinned report; inside
        chained(), detach it instead (the next persistent launch reads it first: `_handoff`)."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            if self._chained:
                pending.detach()
                self._handoff = pending
            else:
                pending.capture()

    def _persistent_buffers(self, G: CudaGraph) -> PersistentBuffers:
        self._capture_pending()
        if G.persistent is None:
            cp = self.xp
            n = G.num_vertices
            words = rt.bitmap_words(n)
            rt.check_free_memory(32 * (n + 1) + 24 * words + 8 * LOG_FIELDS * (LOG_ROWS + 1), "the persistent kernel's queues")
            # the control words and the log in one allocation, so one copy reads the status, the counts and the first
            # log rows back (_read_persistent)
            control = cp.zeros(CONTROL_WORDS + (LOG_ROWS + 1) * LOG_FIELDS, dtype=cp.int64)
            G.persistent = PersistentBuffers(
                queues=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                senders=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                huge=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                claim_bits=cp.zeros(2 * words, dtype=cp.uint32), active_bits=cp.zeros(words, dtype=cp.uint32),
                pulled_bits=cp.zeros(2 * words, dtype=cp.uint32),
                control=control, counters=control[0:5].view(cp.uint32), edges=control[5:8].view(cp.uint64),
                barrier=control[BARRIER_WORD:BARRIER_WORD + 1].view(cp.uint32),
                status=control[STATUS_WORD:STATUS_WORD + 2].view(cp.int32),
                log=control[CONTROL_WORDS:],
                far=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                far_bits=cp.zeros(words, dtype=cp.uint32), far_n=control[11:12].view(cp.uint32),
                refill_n=control[12:13].view(cp.uint32), min_key=control[13:14].view(cp.uint64),
                bucket_n=control[14:17].view(cp.uint32),
                heavy_edges=control[HEAVY_EDGES_WORD:HEAVY_EDGES_WORD + 2].view(cp.uint64),
                report=control[REPORT_WORDS],
            )
        return G.persistent

    def _persistent_start(self, B: PersistentBuffers, vertices: Any, qsize: int) -> None:
        """The first worklist into B.queues[0] (as int32) and the control words zeroed, by one kernel (a slice copy and
        a fill were two launches of host time before the persistent advance; the traversal kernel does this in its
        own prologue)."""
        cp = self.xp
        if vertices.dtype != cp.int64 and vertices.dtype != cp.int32:
            vertices = vertices.astype(cp.int64)
        vertices = cp.ascontiguousarray(vertices)
        rt.launch(self._utility.get_function("persistent_start"), max(qsize, CONTROL_WORDS),
                  (vertices, np.int32(vertices.dtype.itemsize == 8), np.int32(qsize), B.queues[0], B.control,
                   np.int32(CONTROL_WORDS)))

    def _advance_persistent(self, G: CudaGraph, frontier: Frontier, functor: Any, strategy: Any,
                            state: tuple) -> Frontier:
        """Async push: the worklist drained level after level inside one persistent kernel (kernels/persistent.cuh
        gg_advance_rounds), one grid barrier per level, without returning to the controller."""
        cp = self.xp
        n = G.num_vertices
        balancer = ADVANCE_KERNELS[(strategy.balance, strategy.group_size if strategy.balance == "vertex_group" else 32)]
        types = rt.state_signature(state)
        key = (functor.name, functor.cuda, getattr(functor, "state", None), "advance_rounds", types, balancer)
        if key not in self._modules:
            self._modules[key] = rt.KernelTable(sources.persistent_advance_module(functor, types, balancer))
        kernel = self._modules[key].get_function("advance_rounds")
        B = self._persistent_buffers(G)
        vertices = cp.asarray(frontier.vertices(), dtype=cp.int32)
        qsize = int(vertices.size)
        if qsize == 0:
            return Frontier.empty(n, cp)
        self._persistent_start(B, vertices, qsize)
        supports = sum(SUPPORT_BITS[x] for x in strategy.supports if x in SUPPORT_BITS)
        args = (G.offsets, G.indices, G.weights, np.int32(G.weighted), np.int32(n), np.int32(supports), np.int32(qsize),
                np.int32(2**31 - 1), B.queues[0], B.queues[1], B.counters, B.claim_bits, B.barrier, B.status, B.log,
                np.int32(LOG_ROWS)) + state
        kernel((self._coresident_blocks(kernel, high_diameter(G.num_arcs, n)),), (rt.BLOCK,), args)
        if int(B.status[0].get()):
            raise _barrier_timed_out("the persistent kernel")
        return Frontier.empty(n, cp)

    def _persistent_visited(self, s: CudaProgramState, strategy: Any, B: PersistentBuffers) -> tuple[Any | None, bool]:
        """(the visited bitmap of a bitmask lookup, whether the launch must clear it): a program state's first one
        takes the graph's B.visited (allocated once; its previous owner gives it up and makes a clear one if it runs
        again, losing only skips: the bitmap filters, the buffer decides) and the persistent kernel's prologue clears
        it in the same launch (a cp.zeros per BFS cost host time before the kernel: docs/performance.md#smaller-host-costs). None for status
        lookup."""
        if strategy.lookup != "bitmask" or not s.first_wins:
            return None, False
        if s.visited is not None:
            return s.visited, False  # the state's own bitmap
        if B.visited is None:
            B.visited = self.xp.empty(rt.bitmap_words(int(s.value.size)), dtype=self.xp.uint32)
        owner = B.visited_owner() if B.visited_owner is not None else None
        if owner is not None and owner.visited is B.visited:
            owner.visited = None
        s.visited = B.visited
        B.visited_owner = weakref.ref(s)
        return s.visited, True

    def _bucket_lists(self, G: CudaGraph, B: PersistentBuffers) -> None:
        """The light/heavy split's sender lists and bucket bits, allocated on first use (8 bytes a vertex)."""
        if B.bucket is None:
            cp = self.xp
            n = G.num_vertices
            rt.check_free_memory(8 * (n + 1) + (n // 8 + 8), "the light/heavy split's sender lists")
            B.bucket = (cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32))
            B.bucket_bits = cp.zeros(rt.bitmap_words(n), dtype=cp.uint32)

    def _senders_scan(self, B: PersistentBuffers, n: int) -> Any:
        """merge_path's senders' degree prefix sum (B.scan), allocated on first use (8 bytes a vertex)."""
        if B.scan is None:
            rt.check_free_memory(8 * (n + 1), "merge_path's prefix sum of the senders' degrees")
            B.scan = self.xp.empty(n + 1, dtype=self.xp.int64)
        return B.scan

    def _coresident_blocks(self, kernel: Any, sparse: bool, dense: int = 2) -> int:
        """Blocks that can all be resident at once (a grid barrier needs every block running), at most the occupancy
        API's answer (asked once per kernel; __launch_bounds__(256, 2) guarantees 2) times the multiprocessors. By
        default `dense` per SM (2 for the traversal kernels, what every measurement so far ran with); a sparse,
        high-diameter traversal runs thousands of rounds over small frontiers, where the barrier (one arrival per
        block) costs more than the threads earn: one block per SM there. persistent_blocks_per_sm overrides both, up
        to the occupancy."""
        per_sm = self._occupancy.get(id(kernel))
        if per_sm is None:
            per_sm = 2
            function = getattr(getattr(kernel, "kernel", None), "ptr", None)  # RawKernel's driver function
            if function is not None:
                try:
                    per_sm = max(per_sm, int(self.xp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                        function, rt.BLOCK, 0)))
                except Exception:  # pragma: no cover - a CuPy without the binding: the launch bound's guarantee
                    pass
            self._occupancy[id(kernel)] = per_sm
        wanted = self.persistent_blocks_per_sm or (1 if sparse else dense)
        blocks = rt.multiprocessors() * min(per_sm, wanted, 8)
        return min(blocks, self.persistent_blocks) if self.persistent_blocks else blocks

    def program_persistent(self, G: CudaGraph, s: CudaProgramState, worklist: Frontier | None, strategy: Any,
                           mode: str, rules: tuple[float, float, float] = (0.0, 0.0, 0.0), max_rounds: int = 1 << 30,
                           delta: float = 0.0, threshold: float = 0.0, light_heavy: bool = False,
                           lazy: bool = False) -> PersistentRun | PendingRun:
        """Run the program's rounds inside one persistent cooperative kernel (kernels/persistent.cuh).

        mode "push" or "pull" fixes the direction; "adaptive" applies SEP-Graph Algorithm 2 on the device with rules =
        (alpha, beta, E'). Push uses the strategy's load balancer and supports (merge_path searches the senders' degree
        prefix sum that each round's compute phase writes), pull groups of the strategy's group size (vertex_group) or
        1. A topology-driven strategy computes every vertex each round (the worklist only keeps the rounds going while
        something changes). Output queues are exact (claim bits), so `dedup` has nothing left to remove here. delta > 0
        adds near-far priority scheduling (kernels/persistent.cuh): buckets of width delta from `threshold`, all in the
        same launch; it runs to the end (no max_rounds), since the far pile lives on the device. strategy.hops > 1 (a
        monotone program's push) expands that many levels per grid barrier (block-local hops): the rounds then count
        grid barriers, not levels. light_heavy (near-far, push, level-synchronous) adds Meyer & Sanders' light/heavy
        split: the rounds push the arcs lighter than delta, and each bucket's senders push their heavy arcs once when
        the bucket is done (CudaGraph.light_heavy; the non-fused rounds). A bucket whose senders hold at least
        1/heavy_pull_ratio of the heavy arcs pulls them instead, and a round whose senders hold 1/light_pull_ratio of
        the light arcs pulls every light arc (CudaGraph.split_csc: each vertex keeps its best in-arc, no contended
        atomics); on a low-diameter graph the bucket widths adapt up to delta * 2^bucket_widen_max, and take the widest
        width once half the heavy arcs are listed (kernels/persistent.cuh gg_next_bucket; each measured on kron:21:w in
        docs/performance.md#heavy-rows-pulled-adaptive-widths and #split-pulls-the-tail-light-rounds-pulled). worklist
        None starts from the state's single-source start (program_state's `source`), made in the same launch. Everything
        but the program state and the start is packed once per graph and configuration (PersistentPlan): the kernel
        takes one struct, GGPersistentArgs.
        lazy=True returns a PendingRun: nothing is read back until its result() is asked for (or the next persistent
        launch); only for a caller that does not go on from the worklist left (it is not read back then).
        """
        B = self._persistent_buffers(G)
        key = (s.module, strategy, mode, rules, max_rounds, delta, threshold, light_heavy, self.grid_gather_degree,
               self.supplementary_threshold,
               self.persistent_pull_group, self.heavy_pull_ratio, self.light_pull_ratio, self.bucket_widen_max,
               self.persistent_blocks_per_sm, self.persistent_blocks)
        plan = B.plans.get(key)
        if plan is None:
            plan = B.plans[key] = self._persistent_plan(G, B, s, strategy, mode, rules, max_rounds, delta, threshold,
                                                        light_heavy)
        fields: dict[str, Any] = dict(source=s.source, value=s.value, buffer=s.buffer, message=s.message,
                                      params=s.params)
        if worklist is None:
            if s.source < 0:
                raise StrategyError("program_persistent: no worklist, and the program state has no single-source start")
            fields["qsize"] = 1
        else:
            vertices = worklist.vertices()
            if vertices.dtype != np.int64 and vertices.dtype != np.int32:
                vertices = vertices.astype(np.int64)
            vertices = self.xp.ascontiguousarray(vertices)
            fields.update(vertices=vertices, wide=vertices.dtype.itemsize == 8, qsize=vertices.size)
        s.source = -1
        if s.message_fill is not None:
            fields.update(fill_message=1, message_fill=s.message_fill)
            s.message_fill = None
        visited, clear = self._persistent_visited(s, strategy, B)
        if visited is not None:
            fields["st.visited"], fields["clear_words"] = visited, visited.size if clear else 0
        launch = plan.launch
        np.copyto(launch.args, plan.args)
        PERSISTENT_ARGS.pack(fields, into=launch.args)
        launch(plan.blocks)
        # the status, counts and first log rows are copied back right behind the kernel (one small copy on the
        # stream), so capturing the run later waits on nothing and reads nothing: the next launch captures a lazy one
        # first, inside its caller's time, and leaves making its PersistentRun to whoever asks for it
        # (docs/performance.md#host-time-of-a-call)
        report = self._report.enqueue(B.report)
        read = functools.partial(self._read_persistent, G, B, report)
        before, self._handoff = self._handoff, None
        pending = PendingRun(functools.partial(_noted, read, plan.note),
                             detach=functools.partial(self._detached_read, G, B, plan.note), before=before)
        if lazy:
            self._pending = pending
            return pending
        return pending.result()

    def _persistent_plan(self, G: CudaGraph, B: PersistentBuffers, s: CudaProgramState, strategy: Any, mode: str,
                         rules: tuple[float, float, float], max_rounds: int, delta: float, threshold: float,
                         light_heavy: bool) -> PersistentPlan:
        """The persistent kernel of one configuration on G, its blocks, its trace note and GGPersistentArgs with every
        field but the program state's and the start's packed (program_persistent); the configuration's errors."""
        if delta > 0 and max_rounds < (1 << 30):
            raise StrategyError("near-far runs to the end: max_rounds cannot stop it")
        n = G.num_vertices
        balancer = ADVANCE_KERNELS[(strategy.balance, strategy.group_size if strategy.balance == "vertex_group" else 32)]
        pull_group = self.persistent_pull_group or (strategy.group_size if strategy.balance == "vertex_group" else 1)
        kernel = self._program_module(s.program, balancer, pull_group).get_function("persistent")
        t_offsets, t_indices, t_weights = ((G.csc_hubs_first() if s.first_wins else G.csc()) if mode != "push"
                                           else (G.offsets, G.indices, G.weights))
        # a first-wins pull tests each row's first in-edge from the CSC's first column (kernels/program.cuh)
        t_first = G.hubs_first_column() if s.first_wins and mode != "push" else None
        supports = sum(SUPPORT_BITS[x] for x in strategy.supports if x in SUPPORT_BITS)
        # merge_path: the rounds append the senders with their degree prefix sum in one packed 64-bit word a block
        # (kernel C's packing) and search it (kernels/persistent.cuh, GGExpand::scanned). It spreads every edge of a
        # round evenly, so no hub queue; it has no expansion without that sum, so no fused rounds (below) and no
        # near-far heavy rows
        merge_path = strategy.balance == "merge_path"
        if merge_path and (light_heavy or not fits_scan_counter(G, n)):
            raise StrategyError("merge_path's persistent rounds search the senders' prefix sum their compute phase "
                                "writes: " + ("the light/heavy split's heavy rows have none (use another balance)"
                                              if light_heavy else f"a graph of {n:,} vertices and {G.num_arcs:,} arcs "
                                              "does not fit its packed 64-bit counter"))
        # the hub queue H of a push round: grid gathering's teams (block gathering one level up) from
        # grid_gather_degree, Busato & Bombieri's supplementary queues' bins above their threshold (gg_expand_hubs)
        push_supports = () if merge_path or strategy.direction != "push" else strategy.supports
        huge, supplementary = rt.hub_degrees(push_supports, "block_gather" in push_supports,
                                             self.grid_gather_degree, self.supplementary_threshold)
        gather = huge < 1 << 62
        hops = strategy.hops if mode == "push" else 1
        require_monotone(strategy, s.program)
        if hops > 1 and max_rounds < (1 << 30):
            raise StrategyError(f"hops={hops} runs several levels a round: max_rounds cannot count levels")
        if light_heavy and not (delta > 0 and mode == "push" and hops == 1 and G.weighted):
            raise StrategyError("the light/heavy split needs a weighted graph, near-far (delta > 0), push and hops=1")
        topology = strategy.drive == "topology"  # every vertex computes each round (kernels/persistent.cuh)
        if topology and (delta > 0 or hops > 1):
            raise StrategyError("topology drive computes every vertex each round: near-far's buckets and block-local "
                                "hops schedule a worklist it does not keep")
        # fused rounds (compute inside the expansion, one barrier per round): a fixed push of an idempotent program
        # without hubs to gather grid-wide (none when no vertex reaches the hub degree); block-local hops always
        fused = (not merge_path and not light_heavy and not topology and mode == "push" and s.monoid != MONOIDS["sum"]
                 and (hops > 1 or not (gather and G.graph.degree_stats()["max_degree"] >= huge)))
        fields: dict[str, Any] = dict(offsets=G.offsets, indices=G.indices, weights=G.weights)
        state: dict[str, Any] = {}  # GGPersistentState's fields
        pull_from = light_from = 0
        if light_heavy:
            (fields["offsets"], fields["indices"], fields["weights"]), heavy = G.light_heavy(delta)
            self._bucket_lists(G, B)  # its bucket bits clear: every launch leaves them so (an aborted one drops B)
            state.update(heavy_offsets=heavy[0], heavy_indices=heavy[1], heavy_weights=heavy[2], bucket=B.bucket,
                         bucket_bits=B.bucket_bits)
            csc = G.split_csc(delta, 1) if self.heavy_pull_ratio else None
            if csc is not None:  # the heavy rows' pull: the CSC, from how many heavy arcs a bucket pulls, the chunks
                pull_from = max(1, int(heavy[1].size) // self.heavy_pull_ratio)
                state.update(heavy_t_offsets=csc[0], heavy_t_indices=csc[1], heavy_t_weights=csc[2],
                             heavy_pull=pull_from, heavy_chunk_rows=csc[3], heavy_chunk_first=csc[4],
                             heavy_chunk_last=csc[5], heavy_chunks=int(csc[3].size))
            light = G.split_csc(delta, 0) if self.light_pull_ratio else None
            if light is not None and light[1].size:  # the light rounds' pull, from how many light arcs of the senders
                light_from = max(1, int(light[1].size) // self.light_pull_ratio)
                state.update(light_t_offsets=light[0], light_t_indices=light[1], light_t_weights=light[2],
                             light_pull=light_from, light_chunk_rows=light[3], light_chunk_first=light[4],
                             light_chunk_last=light[5], light_chunks=int(light[3].size))
        # kernel C's second optimisation (Busato & Bombieri): merge_path's senders that never add to the next frontier
        # are left out of S, those of out-degree 0 and, on an undirected graph, the leaves of a program whose message
        # sent back cannot improve the sender (VertexProgram.silent_leaves; kernels/persistent.cuh leaf_degree)
        leaf_degree = -1 if not merge_path else (
            1 if not G.graph.directed and getattr(s.program, "silent_leaves", False) else 0)
        widen = 0 if delta <= 0 or high_diameter(G.num_arcs, n) else self.bucket_widen_max
        note = (("; kernel C drops senders of out-degree <= 1 after the first round, 0 in it" if leaf_degree == 1
                 else "; kernel C drops senders of out-degree 0" if leaf_degree == 0 else "")
                + (f"; a bucket's heavy rows pulled when its senders hold >= {pull_from:,} heavy arcs" if pull_from
                 else "") + (f"; a round's light arcs pulled when its senders hold >= {light_from:,}" if light_from
                             else "") + (f"; bucket widths adapt up to Delta x {1 << widen}" if widen else ""))
        alpha, beta, unexplored = rules
        fields.update(
            weighted=G.weighted, t_offsets=t_offsets, t_indices=t_indices, t_weights=t_weights, t_first=t_first, n=n,
            pulled=n if mode == "push" else G.pull_candidates(), monoid=s.monoid,
            first_wins=s.first_wins, skip_settled=s.skip_settled and not topology, supports=supports, huge=huge,
            max_rounds=min(max_rounds, 2**31 - 1), mode=PERSISTENT_MODES[mode], alpha=alpha, beta=beta,
            unexplored=unexplored, fused=fused, hops=hops, topology=topology, threshold=threshold,
            control=B.control)
        state.update(
            queue=B.queues, senders=B.senders, huge=B.huge, counters=B.counters, edges=B.edges,
            claim_bits=B.claim_bits, words=rt.bitmap_words(n), active_bits=B.active_bits, pulled_bits=B.pulled_bits,
            barrier=B.barrier,
            status=B.status, log=B.log, log_rows=LOG_ROWS, delta=delta, far=B.far, far_bits=B.far_bits, far_n=B.far_n,
            refill_n=B.refill_n, min_key=B.min_key, bucket_n=B.bucket_n, heavy_edges=B.heavy_edges, widen_max=widen,
            supplementary=supplementary, scan=self._senders_scan(B, n) if merge_path else None,
            leaf_degree=leaf_degree)
        fields["st"] = state
        blocks = self._coresident_blocks(kernel, high_diameter(G.num_arcs, n))
        args = PERSISTENT_ARGS.pack(fields)
        return PersistentPlan(kernel, blocks, args, note, tuple(fields.values()), rt.StructLaunch(kernel, args))

    def _detached_read(self, G: CudaGraph, B: PersistentBuffers, note: str) -> Callable[[], Captured]:
        """A lazy launch's capture from a snapshot of B's control words and log, copied on the device now (behind the
        kernel on the stream) because the next launch reuses B: the capture waits only when the run is first asked
        for. Its worklist left is not kept (the queues are the next launch's): a lazy run's caller never goes on
        from it (program_persistent)."""
        snapshot = B.control.copy()
        log = snapshot[CONTROL_WORDS:]

        def read() -> Captured:
            return self._captured(G, None, snapshot[REPORT_WORDS].get(), lambda end: log[:end].get())

        return functools.partial(_noted, read, note)

    def _read_persistent(self, G: CudaGraph, B: PersistentBuffers, report: Any) -> Captured:
        """A persistent launch captured from the copy queued behind it (`report`: the control words REPORT_WORDS
        cover); more log rows in a second read."""
        (words,) = report()
        return self._captured(G, B, words, lambda end: B.log[:end].get())

    def _captured(self, G: CudaGraph, B: PersistentBuffers | None, words: np.ndarray,
                  more_log: Callable[[int], np.ndarray]) -> Captured:
        """What a launch's report words (REPORT_WORDS) say must be read before the next launch reuses B: the status
        (a grid barrier that timed out raises, and drops B), the log rows past the report's (`more_log(end)` reads
        the log's first `end` words), the worklist left (copied on the device; B None: not read). Returns the
        rounds run and the parse that makes the PersistentRun of them when it is first asked for."""
        first = REPORT_WORDS.start
        status = words[STATUS_WORD - first:STATUS_WORD - first + 2].view(np.int32)
        if status[0]:
            G.persistent = None  # its bitmaps were left half set: the next launch allocates them clear
            raise _barrier_timed_out("the persistent kernel")
        rounds, left, which = int(status[1]), int(status[2]), int(status[3])
        rows = min(rounds, LOG_ROWS)
        log = words[CONTROL_WORDS - first:] if rows <= LOG_PREFETCH else more_log((rows + 1) * LOG_FIELDS)
        queue = B.queues[which][:left].copy() if left and B is not None else None
        return rounds, functools.partial(self._parsed, G.num_vertices, words, log, rounds, queue)

    def _parsed(self, n: int, words: np.ndarray, log: np.ndarray, rounds: int, queue: Any) -> PersistentRun:
        """The PersistentRun of a captured launch (`_captured`)."""
        cp = self.xp
        rows = min(rounds, LOG_ROWS)
        first = HEAVY_EDGES_WORD - REPORT_WORDS.start
        heavy_edges, skipped = words[first:first + 2].view(np.uint64)  # the trace counts the arcs read
        log = log[: (rows + 1) * LOG_FIELDS].reshape(rows + 1, LOG_FIELDS)
        remaining = (Frontier.from_vertices(queue, n, dtype=cp.int32) if queue is not None
                     else Frontier.empty(n, cp))
        return PersistentRun(log[:rows], rounds, remaining, _end=int(log[rows, 4]),
                             heavy_edges=int(heavy_edges) - int(skipped))

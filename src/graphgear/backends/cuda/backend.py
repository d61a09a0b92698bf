"""CudaBackend: the operator contract of DESIGN.md on an NVIDIA GPU (CuPy memory, NVRTC-compiled kernels).

Every Strategy field takes effect here: direction/sync/drive pick the kernels and the loop, `balance` (+ group_size)
picks the advance load balancer, `supports` adds warp/block gathering and supplementary queues, `dedup` the duplicate
removal of the output queue, `frontier` whether the next frontier is a queue or a bool map. Counters come back through
pinned memory, one small read per iteration.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...engine.strategy import require_level_synchronous, require_monotone
from ...errors import BackendError, DeviceMemoryError, StrategyError
from ...engine.controller import high_diameter
from ..base import Capabilities
from ...frontier import Frontier
from . import runtime as rt
from . import sources, warmup
from .brandes import BrandesLoop
from .runtime import cupy
from .sources import ADVANCE_KERNELS, HEAVY_CHUNK, MERGE_PATH_CHUNK

SUPPORT_BITS = {"warp_gather": 1, "block_gather": 2}
DEDUP_BITS = {"warp_hash": 4, "block": 8}
MONOIDS = {"min": 0, "max": 1, "sum": 2, "or": 3}
LOG_ROWS, LOG_FIELDS = 1 << 16, 5  # persistent kernel: rounds logged per launch, fields per round
LOG_PREFETCH = 64  # log rows read back with the status (one sync); a longer run reads the rest after
CONTROL_WORDS = 18  # int64 words: counters (5), edges (3), barrier (1), status (2), far_n (1), refill_n (1), min_key (1),
# bucket_n (3), heavy_edges (1); kernels/persistent.cuh GG_CONTROL_WORDS and the two below
BARRIER_WORD, STATUS_WORD, HEAVY_EDGES_WORD = 8, 9, 17  # where those sit among the control words
# a persistent launch's report, copied back behind it: the control words from the status on, then the log's first rows
REPORT_WORDS = slice(STATUS_WORD, CONTROL_WORDS + (LOG_PREFETCH + 1) * LOG_FIELDS)
REDUCE_HUGE, REDUCE_CHUNK = 1024, 2048  # neighbor_reduce: rows from this degree go to chunks of this many edges
# neighbor_reduce over every row: (degree bound, lanes per row) of each degree bin, TWC's thread/warp/CTA bins for a
# gather; the last bin (a warp per row) also holds the hub rows, which it sets to the identity before their chunks
REDUCE_BINS = ((8, 4), (64, 8), (None, 32))
# the power iteration's degree bins (degree bound, lanes per row), kernels/power.cuh compiled with these lanes: a
# thread per row below degree 8 (its loads in flight together; faster than 4 lanes, the neighbor_reduce bins:
# docs/performance.md#figures-from-the-cuda-backends-comments)
POWER_BINS = ((8, 1), (128, 8), (None, 32))
# the power iteration: one block of 1024 threads per SM (kernels/power.cuh), whose shared memory holds the heavy
# source block (benchmarks/pagerank_gather.py: faster than every read from global memory, and than 5 blocks of 256
# an SM; docs/performance.md#the-heavy-source-block)
POWER_BLOCK = 1024
# the heavy source block's shared memory: at most 160 KiB of the SM's 256 KiB, so L1 keeps ~90 KiB for the rest of the
# gather (the sweep of block sizes: benchmarks/pagerank_heavy.py, docs/performance.md#the-heavy-source-block)
HEAVY_SOURCE_BYTES = 160 * 1024
GRID_GATHER_DEGREE = 4096  # push with block gathering: teams of blocks expand a sender of at least this degree
HEAVY_PULL_RATIO = 4  # near-far's heavy rows are pulled for a bucket whose senders hold >= 1/4 of the heavy arcs
BUCKET_WIDEN_MAX = 6  # near-far bucket widths up to delta * 64 on low-diameter graphs (kernels/persistent.cuh)
HUB_BALANCERS = ("adv_vg1", "adv_vg4", "adv_vg16", "adv_vg32", "adv_twc", "adv_warp_scan")  # the block-gathering ones
PERSISTENT_MODES = {"push": 0, "pull": 1, "adaptive": 2}
IDENTITY = {0: np.inf, 1: -np.inf, 2: 0.0, 3: 0.0}
# neighbor_reduce and vertex_reduce combine float64 results by one of these: name -> (monoid code, identity)
REDUCE_MONOIDS = {name: (MONOIDS[name], IDENTITY[MONOIDS[name]]) for name in ("min", "max", "sum")}
class KernelStruct:
    """A kernel's one struct argument (kernels/*.cuh; sources.struct_fields): CuPy passes a one-element NumPy array by
    value, as a struct: far less host time per launch than 64 separate arguments (benchmarks/launch_arguments.py,
    docs/performance.md#launch-arguments-as-one-struct)."""

    def __init__(self, header: str, struct: str) -> None:
        self.fields = sources.struct_fields(header, struct)
        self.word = {name: i for i, (name, _) in enumerate(self.fields)}  # each field's 8-byte word
        self.real = {i for i, (_, kind) in enumerate(self.fields) if kind == "f"}  # the doubles' words
        self.pointer = {i for i, (_, kind) in enumerate(self.fields) if kind == "p"}
        self.dtype = np.dtype((np.void, 8 * len(self.fields)))

    def pack(self, values: dict[str, Any], into: np.ndarray | None = None) -> np.ndarray:
        """The struct with the named fields set and the rest 0 (null, off), or `into` (a plan's template, copied per
        launch) with its other fields as they were. A value is a device array (its address), an integer pointer,
        None (null) or a number; a sequence for an array field (its elements), a dict for a struct field (its
        fields, by name), or a field named as in `fields` ("st.visited"). Per launch, so kept lean (docs/performance.md#figures-from-the-cuda-backends-comments: a fraction of a microsecond a
        field): a BFS's kernel waits for it."""
        args = np.zeros(1, dtype=self.dtype) if into is None else into
        words, reals = args.view(np.int64), None
        word, real, pointer = self.word, self.real, self.pointer
        for name, value in values.items():
            i = word.get(name)
            if i is None:  # a struct field, an array field or a name the struct lacks
                self.pack(self._flat(name, value), into=args)
            elif i in real:
                if reals is None:
                    reals = args.view(np.float64)
                reals[i] = value
            elif i in pointer and type(value) is not int:  # a device array, None or a NumPy integer address
                words[i] = 0 if value is None else value if isinstance(value, np.integer) else value.data.ptr
            else:
                words[i] = value
        return args

    def _flat(self, name: str, value: Any) -> dict[str, Any]:
        """A struct field's or an array field's value as its words' names and values."""
        if isinstance(value, dict):
            return {f"{name}.{inner}": item for inner, item in value.items()}
        if isinstance(value, (tuple, list)) and f"{name}[0]" in self.word:
            return {f"{name}[{k}]": item for k, item in enumerate(value)}
        raise KeyError(f"{name} is not a field of the kernel's struct")


PERSISTENT_ARGS = KernelStruct("persistent.cuh", "GGPersistentArgs")
POWER_ARGS = KernelStruct("power.cuh", "GGPowerArgs")


def _uniform_or_array(vector: Any) -> tuple[Any, float]:
    """A GGVector's two struct fields (kernels/pull.cuh): (array, 0) or (null, the value at every vertex)."""
    if isinstance(vector, (int, float, np.floating)):
        return None, float(vector)
    return vector, 0.0


def _barrier_timed_out(launch: str) -> BackendError:
    """The error of a persistent launch whose grid barrier gave up waiting (GG_BARRIER_TIMEOUT_NS, kernels/
    persistent.cuh): its blocks were not all resident at once."""
    return BackendError(f"{launch}'s grid barrier timed out: its blocks were not all resident")


def _reduce_monoid(operator: str, monoid: str) -> tuple[int, float]:
    """(code, identity) of a reduction's monoid; a clear error for any other name."""
    if monoid not in REDUCE_MONOIDS:
        raise StrategyError(f"{operator} monoid must be min, max or sum, got {monoid!r}")
    return REDUCE_MONOIDS[monoid]



@dataclass
class CudaGraph:
    """Device copies of a Graph's arrays, cached on the Graph (``g.device_cache["cuda"]``)."""

    graph: Any
    offsets: Any
    indices: Any
    weights: Any  # float32[A], or float32[1] when unweighted
    weighted: bool
    out_degree: Any
    num_vertices: int
    num_arcs: int
    _csc: tuple[Any, Any, Any] | None = field(default=None, repr=False)
    _csc_hubs_first: tuple[Any, Any, Any] | None = field(default=None, repr=False)
    persistent: Any = field(default=None, repr=False)  # PersistentBuffers, allocated on first use
    _light_heavy: dict = field(default_factory=dict, repr=False)  # delta -> (light CSR, heavy CSR)
    # neighbor_reduce's ReducePlan by direction, degree bins by (direction, spec), the power iteration's PowerPlan
    # ("power", with its work arrays)
    reduce_plans: dict = field(default_factory=dict, repr=False)

    def csc(self) -> tuple[Any, Any, Any]:
        if self._csc is None:
            cp = cupy()
            t_offsets, t_indices, t_weights = self.graph.csc()
            rt.check_free_memory(t_offsets.nbytes + t_indices.nbytes + (0 if t_weights is None else t_weights.nbytes),
                                 "the in-edge CSC")
            self._csc = (cp.asarray(t_offsets), cp.asarray(t_indices),
                         cp.asarray(t_weights) if t_weights is not None else self.weights)
        return self._csc

    def csc_hubs_first(self) -> tuple[Any, Any, Any]:
        """The in-edge CSC with each row's sources in decreasing out-degree (ties in id order), for first-wins pulls
        (bottom-up BFS): they stop at the first in-neighbour in the frontier, and a hub is the likeliest to be there.
        The first bottom-up round of a kron:21 BFS scans 5.2M in-edges instead of 11.7M (its time: docs/
        performance.md#figures-from-the-cuda-backends-comments). A
        copy beside csc(), whose id order the smallest-id parent passes rely on; csc() itself where the device has
        no room for it."""
        if self._csc_hubs_first is None:
            cp = cupy()
            t_offsets, t_indices, t_weights = self.csc()
            arcs = int(t_indices.size)
            weighted = t_weights.size == arcs and arcs > 0
            try:
                rt.check_free_memory(28 * arcs + (4 * arcs if weighted else 0), "the hubs-first in-edge CSC")
            except DeviceMemoryError:
                return self.csc()
            top = int(self.out_degree.max()) if arcs else 0
            rows = cp.repeat(cp.arange(self.num_vertices, dtype=cp.int64), cp.diff(t_offsets))
            order = cp.argsort(rows * (top + 1) + (top - self.out_degree[t_indices].astype(cp.int64)))  # stable
            del rows
            self._csc_hubs_first = (t_offsets, t_indices[order], t_weights[order] if weighted else t_weights)
        return self._csc_hubs_first

    def light_heavy(self, delta: float) -> tuple[tuple[Any, Any, Any], tuple[Any, Any, Any]]:
        """The out-arcs split at `delta` into two CSRs (offsets, indices, weights): the light ones (weight < delta)
        and the heavy ones, each row in its CSR order; Meyer & Sanders' light/heavy split for near-far (weighted
        graphs: program_persistent checks). Cached per delta (the last one asked only: a copy of the graph's arcs)."""
        split = self._light_heavy.get(delta)
        if split is None:
            cp = cupy()
            # both halves together hold the arcs once; the mask and its int64 running count are temporary
            rt.check_free_memory(8 * self.num_arcs + 2 * self.offsets.nbytes + 9 * self.num_arcs,
                                 f"the light/heavy split of the arcs at delta {delta:g}")
            self._light_heavy.clear()
            if self.persistent is not None:  # plans hold the old split's arrays
                self.persistent.plans.clear()
            light = self.weights < delta
            before = cp.concatenate([cp.zeros(1, dtype=cp.int64), cp.cumsum(light, dtype=cp.int64)])
            light_offsets = before[self.offsets]
            heavy_offsets = self.offsets - light_offsets
            split = self._light_heavy[delta] = (
                (light_offsets, self.indices[light], self.weights[light]),
                (heavy_offsets, self.indices[~light], self.weights[~light]),
            )
        return split

    def heavy_csc(self, delta: float) -> tuple[Any, ...] | None:
        """The heavy arcs of light_heavy(delta) as an in-arc CSC (offsets, sources, weights; each row's sources in
        increasing order) and its long rows' chunks (hub_chunks), for the heavy rows' pull (kernels/persistent.cuh
        gg_heavy_pull). Cached with the split; None where the device has no room for it (the heavy rows are then
        pushed)."""
        _, (offsets, indices, weights) = self.light_heavy(delta)
        key = ("heavy_csc", delta)
        csc = self._light_heavy.get(key)
        if csc is None:
            cp = cupy()
            arcs = int(indices.size)
            try:  # the CSC (12 bytes an arc) and the sort's temporaries (the rows and the order, 16)
                rt.check_free_memory(28 * arcs + offsets.nbytes, f"the heavy arcs' in-arc CSC at delta {delta:g}")
            except DeviceMemoryError:
                return None
            rows = cp.repeat(cp.arange(self.num_vertices, dtype=cp.int32), cp.diff(offsets))
            order = cp.argsort(indices)  # stable: each row's sources stay in increasing order
            t_offsets = cp.zeros(self.num_vertices + 1, dtype=cp.int64)
            cp.cumsum(cp.bincount(indices, minlength=self.num_vertices), out=t_offsets[1:])
            csc = self._light_heavy[key] = (t_offsets, rows[order], weights[order],
                                            *hub_chunks(t_offsets, HEAVY_CHUNK, HEAVY_CHUNK))
        return csc


def _noted(read: Callable[[], PersistentRun], note: str) -> PersistentRun:
    """A persistent launch read back (`read`), with the note of how it ran."""
    run = read()
    run.note = note
    return run


def hub_chunks(offsets: Any, huge: int, chunk: int) -> tuple[Any, Any, Any]:
    """The rows of at least `huge` arcs cut into chunks of `chunk` arcs: (row, first arc, end arc) per chunk, as
    device arrays (int32, int64, int64)."""
    cp = cupy()
    degree = cp.diff(offsets)
    hubs = cp.flatnonzero(degree >= huge).astype(cp.int32)
    pieces = (degree[hubs] + chunk - 1) // chunk
    rows = cp.repeat(hubs, pieces)
    starts = cp.cumsum(pieces) - pieces  # first chunk index of each row
    within = cp.arange(rows.size) - cp.repeat(starts, pieces)
    first = offsets[rows] + within * chunk
    return rows, first, cp.minimum(first + chunk, offsets[rows + 1])


class PowerLog:
    """The power iteration's log as read back: (stamp t, change t) words per row, then the last row's end stamp
    (kernels/power.cuh). Parsed when the trace is read, not inside the timed call (the slices and views cost host
    time: docs/performance.md#figures-from-the-cuda-backends-comments)."""

    def __init__(self, words: np.ndarray) -> None:
        self.words = words

    def changes(self) -> np.ndarray:
        """The L1 change of each logged iteration."""
        return self.words[1::2].view(np.float64)

    def seconds(self) -> np.ndarray:
        """The seconds of each logged iteration (%globaltimer stamps)."""
        return np.diff(self.words[0::2]) * 1e-9


@dataclass
class PowerRun:
    """What one persistent power iteration did: the iterations run, the last L1 change, the ranks (x, the array made
    for a uniform start, or in the original ids given `order`) and the log of the first LOG_ROWS iterations."""

    iterations: int
    last_change: float
    ranks: Any
    log: PowerLog


@dataclass
class ReducePlan:
    """How neighbor_reduce covers a graph's rows in one direction: the degree bins (lanes per row, rows or None for
    all rows) and the REDUCE_CHUNK-edge chunks (row, first edge, end edge) of the rows of degree >= REDUCE_HUGE."""

    bins: list
    rows: Any
    first: Any
    last: Any


@dataclass
class PowerPlan:
    """The power iteration on one graph: its kernel argument (GGPowerArgs) with every field that does not change
    between calls packed once (a launch's host time counts in every call): the in-edge CSC, (rows or null, first
    row, count) per POWER_BINS bin, the hub chunks and the hub rows (degree >= REDUCE_HUGE, summed by chunks with
    atomics; their sums are cleared a step ahead), and the work arrays' addresses. The work arrays: scratch, five
    V-long rows (the contributions and the sums, both double-buffered, and x where it starts uniform and the ranks
    come back in the original ids; `spare` the fifth's address); control, int64 words zeroed before each launch and
    read back from its start in one copy: barrier and status (2 words each), then, 128 bytes on (the barrier's pollers
    keep their line busy), the slots (6 doubles), then at word 32 the log, (stamp t, change t) per row. `keep` holds
    the arrays whose addresses it packs."""

    args: np.ndarray
    keep: tuple
    scratch: Any
    spare: int
    control: Any = None
    head: Any = None  # control's first words and LOG_PREFETCH log rows, read back with one copy


@dataclass
class PersistentBuffers:
    """The persistent kernel's queues, bitmaps and control words for one graph (kernels/persistent.cuh)."""

    queues: tuple[Any, Any]
    senders: tuple[Any, Any]
    huge: tuple[Any, Any]
    claim_bits: Any
    active_bits: Any
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
    heavy_edges: Any = None  # uint64[1]
    visited: Any = None  # bitmask lookup's bitmap, lent to one program state at a time (_persistent_visited)
    visited_owner: Any = None  # weakref to that state
    report: Any = None  # the control words read back behind each launch (REPORT_WORDS)
    plans: dict = field(default_factory=dict)  # PersistentPlan by configuration (program_persistent)


@dataclass
class PersistentPlan:
    """One configuration of the persistent traversal kernel on a graph: the kernel, its blocks, the note for the
    trace, and its one argument (GGPersistentArgs) with every field packed but the program state's and the start's,
    which each launch fills in: far less host time than 64 arguments made and passed per launch
    (benchmarks/launch_arguments.py, docs/performance.md#launch-arguments-as-one-struct). `keep` holds the arrays whose addresses it packs."""

    kernel: Any
    blocks: int
    args: np.ndarray
    note: str
    keep: tuple


@dataclass
class PersistentRun:
    """What one persistent launch did: per-round log rows (|Q|, |S|, outDegree(S), direction, ns), the rounds run
    (possibly more than the rows logged) and the worklist left when max_rounds stopped it."""

    log: np.ndarray
    rounds: int
    remaining: Frontier

    def edges_processed(self, num_arcs: int) -> int:
        """Out-edges of the senders in push rounds (light arcs only under the light/heavy split, whose heavy rows are
        counted apart), every arc in pull rounds (logged rounds)."""
        push = self.log[:, 3] == 0
        return int(self.log[push, 2].sum()) + int((~push).sum()) * num_arcs + self.heavy_edges

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
    The backend settles it before its next persistent launch, since they share the buffers it reads; a grid barrier
    that timed out is then kept and raised by result(), not by the unrelated launch."""

    def __init__(self, read: Any) -> None:
        self._read = read
        self._run: PersistentRun | None = None
        self._error: BackendError | None = None

    def settle(self) -> None:
        """Read the status and the log now, once (from the copy queued behind the kernel: a wait on it, no read)."""
        if self._read is not None:
            read, self._read = self._read, None
            try:
                self._run = read()
            except BackendError as error:
                self._error = error

    def result(self) -> PersistentRun:
        """The launch's PersistentRun; raises the launch's error (a grid barrier that timed out)."""
        self.settle()
        if self._error is not None:
            raise self._error
        return self._run


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


class CudaBackend(BrandesLoop):
    """The GPU backend (one per process)."""

    name = "cuda"

    def __init__(self) -> None:
        self.xp = cupy()
        # async advance runs level by level in parallel (not one FIFO worklist: BC gathers per level after it); a
        # GPU queue may repeat a vertex; fused_power and light_heavy are switches (False: a launch per step, no split)
        self.capabilities = Capabilities(async_order="levels", device_traversal=True, device_programs=True,
                                         brandes_loop=True, fused_power=True, light_heavy=True, exact_queues=False,
                                         degree_layout=True)
        warmup.start()  # a machine's first process: the built-in kernels compile ahead, in parallel (warmup.py)
        self._utility = rt.KernelTable(rt.compile_module(sources.UTILITY_SOURCE, ()))
        self._counter = rt.PinnedCounter()
        self._scratch: dict[tuple[str, int], Any] = {}
        self._modules: dict[tuple, rt.KernelTable] = {}  # functor modules by (functor, role, state types, extra roles)
        self._occupancy: dict[int, int] = {}  # resident blocks per SM, by kernel
        self._power: Any = None  # the persistent power iteration's kernel (kernels/power.cuh), compiled on first use
        self._power_capacity: int | None = None  # its heavy source block's capacity (_heavy_sources)
        self._params: dict[bytes, Any] = {}  # program parameters on the device, by value (read-only in every kernel)
        # a persistent launch's report (the control words from the status on, the log's first rows)
        self._report = rt.PinnedReader(8 * (CONTROL_WORDS + LOG_FIELDS * (LOG_PREFETCH + 1)))
        self._pending: PendingRun | None = None  # a persistent launch not read back yet (program_persistent, lazy)
        self.supplementary_threshold: int | None = None  # degree from which supplementary queues take a vertex
        self.grid_gather_degree = GRID_GATHER_DEGREE  # degree from which teams of blocks expand a pushed vertex
        self.persistent_pull_group: int | None = None  # lanes per vertex of the persistent kernel's pull (None: strategy)
        self.persistent_blocks_per_sm: int | None = None  # persistent kernel blocks per SM (None: by graph density)
        self.persistent_blocks: int | None = None  # at most this many persistent blocks in all (None: no cap)
        # the power iteration's heavy source block: the first this many sources' contributions in shared memory (None:
        # as many as it holds where the caller says the ids are degree-ordered, or the graph fits; 0: none)
        self.power_heavy_sources: int | None = None
        # a bucket's heavy rows are pulled when its senders hold at least 1/heavy_pull_ratio of the heavy arcs (None:
        # always pushed); near-far bucket widths up to delta * 2^bucket_widen_max on low-diameter graphs (0: fixed)
        self.heavy_pull_ratio: int | None = HEAVY_PULL_RATIO
        self.bucket_widen_max = BUCKET_WIDEN_MAX

    # --------------------------------------------------------------------------------------------------- memory
    def graph(self, g: Any) -> CudaGraph:
        cached = g.device_cache.get("cuda")
        if cached is None:
            cp = self.xp
            need = g.offsets.nbytes + g.indices.nbytes + (0 if g.weights is None else g.weights.nbytes) + g.offsets.nbytes
            rt.check_free_memory(need, f"graph {g.name or ''} ({g.num_vertices:,} vertices, {g.num_arcs:,} arcs)")
            weights = cp.asarray(g.weights) if g.weights is not None else cp.ones(1, dtype=cp.float32)
            offsets = cp.asarray(g.offsets)
            indices = cp.asarray(g.indices.astype(np.int32, copy=False))
            cached = CudaGraph(g, offsets, indices, weights, g.weights is not None, cp.diff(offsets), g.num_vertices, g.num_arcs)
            g.device_cache["cuda"] = cached
        return cached

    def to_host(self, array: Any) -> np.ndarray:
        """A host copy; large arrays go through pinned memory (several times a pageable copy's bandwidth)."""
        if not isinstance(array, self.xp.ndarray):
            return np.asarray(array)
        if array.nbytes < (1 << 20):
            return self.xp.asnumpy(array)
        import cupyx

        out = cupyx.empty_pinned(array.shape, dtype=array.dtype)
        array.get(out=out)
        return out

    def asarray(self, array: Any, dtype: Any = None) -> Any:
        return self.xp.asarray(array, dtype=dtype)

    def timeline(self) -> rt.EventTimeline:
        """CUDA events on the stream: launches timed on the device, the host waiting once (when first read)."""
        return rt.EventTimeline()

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

    def hop_counts(self, values: Any, index: Any = None) -> Any:
        """int64 hop counts from a BFS's float64 values (values[index] where an index is given), -1 where unreachable
        (inf): one RawKernel launch (CuPy's nan_to_num copies each of its scalar arguments to the device first, a
        synchronous round trip apiece; a separate gather by the index was another launch of host time)."""
        size = values.size if index is None else index.size
        if index is not None and index.dtype != self.xp.int32:  # the kernels' vertex ids are int32
            index = index.astype(self.xp.int32)
        hops = self.xp.empty(size, dtype=self.xp.int64)
        rt.launch(self._utility.get_function("hop_counts"), size,
                  (values, np.uint64(0) if index is None else index, hops, np.int32(size)))
        return hops

    def _buffer(self, name: str, size: int, dtype: Any) -> Any:
        key = (name, np.dtype(dtype).num)
        buf = self._scratch.get(key)
        if buf is None or buf.size < size:
            buf = self.xp.empty(max(size, 1), dtype=dtype)
            self._scratch[key] = buf
        return buf[:size]

    # --------------------------------------------------------------------------------------------------- modules
    def _functor_module(self, functor: Any, role: str, state: tuple, extra_roles: tuple = ()) -> Any:
        """The module of a functor in a role for the state's types, looked up by key: generating and hashing its
        source on every operator call cost tens of microseconds of host time per launch."""
        types = rt.state_signature(state)
        key = (functor.name, functor.cuda, getattr(functor, "state", None), role, types,
               tuple((struct, r, other.name, other.cuda) for struct, (r, other) in extra_roles))
        module = self._modules.get(key)
        if module is None:
            module = self._modules[key] = rt.KernelTable(
                rt.compile_module(sources.functor_module(functor, role, types, extra_roles), ()))
        return module

    # --------------------------------------------------------------------------------------------------- advance
    def _advance_kernel(self, module: Any, strategy: Any) -> tuple[Any, str]:
        key = (strategy.balance, strategy.group_size if strategy.balance == "vertex_group" else 32)
        name = ADVANCE_KERNELS[key]
        return module.get_function(name), name

    def advance(self, G: CudaGraph, frontier: Frontier, functor: Any, strategy: Any, state: tuple) -> Frontier:
        """Push from the frontier over out-edges with the strategy's load balancer; returns the activated vertices."""
        require_level_synchronous(strategy, "advance")
        if strategy.sync == "async" and strategy.balance != "merge_path":
            return self._advance_persistent(G, frontier, functor, strategy, state)
        module = self._functor_module(functor, "advance", state)
        if strategy.sync == "async":  # merge_path's scan needs the host between levels: drained level by level
            current = frontier.to_sparse()
            level = strategy.with_(sync="sync", frontier="vertex_queue", drive="data")
            while current.size:
                current = self._advance_level(G, current, module, level, state)
            return Frontier.empty(G.num_vertices, self.xp)
        return self._advance_level(G, frontier, module, strategy, state)

    def _advance_level(self, G: CudaGraph, frontier: Frontier, module: Any, strategy: Any, state: tuple,
                       program_args: tuple = ()) -> Frontier:
        cp = self.xp
        n = G.num_vertices
        dense_out = strategy.frontier in ("bitmap", "boolmap")
        # vertex_queue: a set of vertices, contracted on emission (test-and-set claim); edge_queue: the expansion writes
        # one entry per activating edge (Merrill's edge frontier), contracted when the next round loads it by the
        # dedup technique (warp_hash, block) -- or not at all (none); dedup=atomic claims on emission in both
        exact = strategy.frontier == "vertex_queue" or strategy.dedup == "atomic"
        mode = 2 if dense_out else 1 if exact else 0
        # without exact removal on emission a vertex may be emitted once per in-edge from the frontier: room for every
        # out-edge of the frontier (exact removal emits each vertex at most once)
        capacity = n if mode != 0 else max(n, frontier.out_edges(G.out_degree))
        out_queue = self._buffer("out_queue", max(capacity, 1), cp.int32)
        mask = cp.zeros(n, dtype=cp.uint8) if dense_out else self._buffer("no_mask", 1, cp.uint8)
        dedup_bits = self._buffer("dedup_bits", rt.bitmap_words(n), cp.uint32) if mode == 1 else self._buffer("nobits", 1, cp.uint32)
        if mode == 1:
            dedup_bits.fill(0)
        self._counter.reset()
        supports = sum(SUPPORT_BITS[s] for s in strategy.supports if s in SUPPORT_BITS) + DEDUP_BITS.get(strategy.dedup, 0)
        tail = state if not program_args else program_args
        if strategy.drive == "topology" or frontier.is_dense:
            active = cp.asarray(frontier.to_dense().mask).view(cp.uint8)
            args = (G.offsets, G.indices, G.weights, np.int32(G.weighted), out_queue, np.int32(0), out_queue,
                    self._counter.device, dedup_bits, mask, np.int32(mode), np.int32(supports), G.offsets, np.int64(0),
                    active, np.int32(n)) + self._emit_counters() + tail
            rt.launch(module.get_function("adv_mask"), n, args)
        else:
            queue = cp.asarray(frontier.queue, dtype=cp.int32)
            qsize = int(queue.size)
            if qsize:
                self._advance_queue(G, module, strategy, queue, qsize, out_queue, dedup_bits, mask, mode, supports, tail)
        if dense_out:
            return Frontier.from_mask(mask.view(cp.bool_))
        count, edges = self._counter.read_with_edges()  # the emissions summed the new frontier's out-degrees
        return Frontier.from_vertices(out_queue[:count].copy(), n, dtype=cp.int32).known_out_edges(G.out_degree, edges)

    def _emit_counters(self, hubs: Any = None, huge: int = 0) -> tuple:
        """The advance kernels' last arguments before the state: the hub queue (null: none), its count, the degree
        that sends a vertex there, and the out-edge sum of the output queue (kernels/common.cuh GGOut)."""
        return (np.uint64(0) if hubs is None else hubs, self._counter.hubs, np.int64(huge), self._counter.edges)

    def _advance_queue(self, G, module, strategy, queue, qsize, out_queue, dedup_bits, mask, mode, supports, tail) -> None:
        cp = self.xp
        kernel, name = self._advance_kernel(module, strategy)
        scan = G.offsets
        chunk = 0
        if "supplementary_queues" in strategy.supports:
            # supplementary queues: vertices of huge degree go to power-of-two bins expanded by the whole grid
            degree = G.out_degree[queue]
            threshold = self.supplementary_threshold or rt.resident_threads() // 2
            big = degree > threshold
            if bool(big.any()):
                huge = queue[big]
                queue = queue[~big]
                qsize = int(queue.size)
                bins = cp.floor(cp.log2(degree[big].astype(cp.float64))).astype(cp.int32)
                for b in cp.asnumpy(cp.unique(bins)).tolist():
                    members = huge[bins == b]
                    hscan = cp.cumsum(G.out_degree[members])
                    merge = module.get_function("adv_merge_path")
                    total = int(hscan[-1])
                    args = (G.offsets, G.indices, G.weights, np.int32(G.weighted), members, np.int32(members.size),
                            out_queue, self._counter.device, dedup_bits, mask, np.int32(mode), np.int32(0), hscan,
                            np.int64(MERGE_PATH_CHUNK), mask, np.int32(0)) + self._emit_counters() + tail
                    rt.launch(merge, (total + MERGE_PATH_CHUNK - 1) // MERGE_PATH_CHUNK * rt.BLOCK, args)
            if qsize == 0:
                return
        work = qsize
        if name == "adv_merge_path":
            scan = cp.cumsum(G.out_degree[queue])
            total = int(scan[-1]) if qsize else 0
            chunk = MERGE_PATH_CHUNK
            work = (total + chunk - 1) // chunk * rt.BLOCK
        elif name == "adv_three_stage":
            work = (qsize + 63) // 64 * rt.BLOCK
        # grid gathering (block gathering one level up, as in the persistent kernel): with block gathering, a vertex
        # of degree >= GRID_GATHER_DEGREE goes to a hub queue, which a second launch expands with teams of blocks.
        # Otherwise a frontier of a few hundred hubs (BC's second level on kron) sits in one block, which walks
        # every hub's row alone. The second launch reads the hub count on the device: no host sync.
        grid_gather = name == "adv_twc" or (name in HUB_BALANCERS and supports & SUPPORT_BITS["block_gather"])
        hubs = self._buffer("hub_queue", max(G.num_vertices, qsize), cp.int32) if grid_gather else None
        args = (G.offsets, G.indices, G.weights, np.int32(G.weighted), queue, np.int32(qsize), out_queue,
                self._counter.device, dedup_bits, mask, np.int32(mode), np.int32(supports), scan, np.int64(chunk),
                mask, np.int32(0)) + self._emit_counters(hubs, self.grid_gather_degree) + tail
        rt.launch(kernel, work, args)
        if grid_gather:
            rt.launch(module.get_function("adv_hubs"), rt.resident_threads(), args)

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
            self._modules[key] = rt.KernelTable(
                rt.compile_module(sources.persistent_advance_module(functor, types, balancer), ()))
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

    # --------------------------------------------------------------------------------------------------- pull
    def _bits(self, G: CudaGraph, frontier: Frontier | None) -> Any:
        cp = self.xp
        n = G.num_vertices
        bits = self._buffer("active_bits", rt.bitmap_words(n), cp.uint32)
        if frontier is None:
            return bits
        bits.fill(0)
        if frontier.is_dense:
            mask = cp.asarray(frontier.mask).view(cp.uint8)
            rt.launch(self._utility.get_function("mask_to_bits"), n, (mask, np.int32(n), bits))
        elif frontier.size:  # straight from the queue (no bool map in between)
            queue = cp.asarray(frontier.queue, dtype=cp.int32)
            rt.launch(self._utility.get_function("set_bits"), queue.size, (queue, np.int32(queue.size), bits))
        return bits

    def pull(self, G: CudaGraph, frontier: Frontier | None, functor: Any, strategy: Any, state: tuple, candidate: Any) -> Frontier:
        """Every candidate scans its in-edges from active sources (a bitmap lookup), stopping early when told."""
        cp = self.xp
        module = self._functor_module(functor, "pull", state, extra_roles=(("GGC", ("vertex_predicate", candidate)),))
        t_offsets, t_indices, t_weights = G.csc()
        n = G.num_vertices
        group = strategy.group_size if strategy.balance == "vertex_group" else 1
        next_mask = cp.zeros(n, dtype=cp.uint8)
        bits = self._bits(G, frontier)
        args = (t_offsets, t_indices, t_weights, np.int32(G.weighted), bits, np.int32(frontier is None), np.int32(n),
                next_mask) + state
        rt.launch(module.get_function(f"pull_g{group}"), n * group, args)
        return Frontier.from_mask(next_mask.view(cp.bool_))

    # --------------------------------------------------------------------------------------------------- filter etc.
    def filter(self, frontier: Frontier, predicate: Any, state: tuple, strategy: Any = None) -> Frontier:
        cp = self.xp
        module = self._functor_module(predicate, "vertex_predicate", state)
        vertices = cp.asarray(frontier.vertices(), dtype=cp.int32)
        keep = cp.zeros(vertices.size, dtype=cp.uint8)
        if vertices.size:
            rt.launch(module.get_function("each"), vertices.size, (vertices, np.int32(vertices.size), keep) + state)
        kept = vertices[keep.view(cp.bool_)]
        if frontier.is_dense:
            mask = cp.zeros(frontier.num_vertices, dtype=cp.bool_)
            mask[kept] = True
            return Frontier.from_mask(mask)
        return Frontier.from_vertices(kept, frontier.num_vertices, dtype=cp.int32)

    def for_each_vertex(self, frontier: Frontier | None, functor: Any, state: tuple, num_vertices: int | None = None,
                        strategy: Any = None) -> None:
        cp = self.xp
        module = self._functor_module(functor, "vertex", state)
        if frontier is None:
            count = int(num_vertices)
            args = (np.uint64(0), np.int32(count), np.uint64(0))  # null vertex list: every vertex
        else:
            vertices = cp.asarray(frontier.vertices(), dtype=cp.int32)
            count = int(vertices.size)
            args = (vertices, np.int32(count), np.uint64(0))
        if count:
            rt.launch(module.get_function("each"), count, args + state)

    def neighbor_reduce(self, G: CudaGraph, map_fn: Any, state: tuple, monoid: str = "sum", direction: str = "in",
                        out: Any = None, strategy: Any = None, vertices: Frontier | None = None) -> Any:
        """out[v] = sum/min/max of map_fn(v, u, w) over v's in- (or out-) neighbours, for every v or for the
        `vertices` frontier only (other entries of `out` left as they were)."""
        cp = self.xp
        code, identity = _reduce_monoid("neighbor_reduce", monoid)
        module = self._functor_module(map_fn, "reduce", state)
        offsets, indices, weights = G.csc() if direction == "in" else (G.offsets, G.indices, G.weights)
        n = G.num_vertices
        out = cp.empty(n, dtype=cp.float64) if out is None else out
        plan = self._reduce_plan(G, direction, offsets)
        rows, first, last = plan.rows, plan.first, plan.last
        member = np.uint64(0)  # null: every hub chunk runs
        if vertices is None:  # every row: one launch per degree bin
            bins = plan.bins
        else:  # the frontier's rows, G lanes per row by the average degree; only the hub chunks of listed rows
            listed = cp.asarray(vertices.vertices(), dtype=cp.int32)
            if listed.size == 0:
                return out
            average = G.num_arcs / max(n, 1)
            bins = [(1 if average < 3 else 4 if average < 12 else 8 if average < 48 else 32, listed)]
            if rows.size:  # the chunk kernel skips the chunks of rows outside the frontier (no host compaction)
                member = cp.zeros(n, dtype=cp.uint8)
                member[listed] = 1
        for group, listed in bins:
            count = n if listed is None else int(listed.size)
            rt.launch(module.get_function(f"reduce_g{group}"), count * group,
                      (offsets, indices, weights, np.int32(G.weighted), np.int32(count),
                       listed if listed is not None else np.uint64(0), np.int32(code), np.float64(identity),
                       np.int64(REDUCE_HUGE), out) + state)
        if rows.size:
            rt.launch(module.get_function("reduce_chunks"), rows.size * rt.BLOCK,
                      (indices, weights, np.int32(G.weighted), rows, first, last, np.int32(rows.size), member,
                       np.int32(code), np.float64(identity), out) + state)
        return out

    def _degree_bins(self, G: CudaGraph, direction: str, offsets: Any, spec: tuple) -> list:
        """G's rows in one direction binned by degree (TWC's thread/warp/CTA bins for a gather): per (upper degree
        bound or None, lanes per row) of `spec`, (lanes, the rows as int32 or None for every row), empty bins
        included; cached on G."""
        bins = G.reduce_plans.get((direction, spec))
        if bins is None:
            cp = self.xp
            degree = cp.diff(offsets)
            bins, low = [], 0
            for high, group in spec:
                rows = cp.flatnonzero((degree >= low) & (degree < high) if high else degree >= low).astype(cp.int32)
                bins.append((group, None if rows.size == G.num_vertices else rows))
                low = high
            G.reduce_plans[(direction, spec)] = bins
        return bins

    def _reduce_plan(self, G: CudaGraph, direction: str, offsets: Any) -> ReducePlan:
        """The degree bins (REDUCE_BINS, the empty ones left out) and hub chunks of neighbor_reduce over G's rows in
        one direction; cached on G."""
        plan = G.reduce_plans.get(direction)
        if plan is None:
            bins = [(group, rows) for group, rows in self._degree_bins(G, direction, offsets, REDUCE_BINS)
                    if rows is None or rows.size]
            plan = G.reduce_plans[direction] = ReducePlan(bins, *hub_chunks(offsets, REDUCE_HUGE, REDUCE_CHUNK))
        return plan

    def vertex_reduce(self, frontier: Frontier | None, functor: Any, state: tuple, monoid: str = "sum",
                      num_vertices: int | None = None) -> Any:
        """functor(v) for every vertex of the frontier (every vertex when None), which may update v's state; its
        float64 results combined by sum/min/max into a one-element device array (read it when needed)."""
        cp = self.xp
        code, identity = _reduce_monoid("vertex_reduce", monoid)
        out = cp.full(1, identity, dtype=cp.float64)
        if frontier is None:
            count, vertices = int(num_vertices), np.uint64(0)
        else:
            vertices = cp.asarray(frontier.vertices(), dtype=cp.int32)
            count = int(vertices.size)
        if count:
            module = self._functor_module(functor, "vertex_reduce", state)
            rt.launch(module.get_function("each_reduce"), count,
                      (vertices, np.int32(count), np.int32(code), np.float64(identity), out) + state)
        return out

    def power_iteration(self, G: CudaGraph, alpha: float, threshold: float, max_iter: int, x: Any, teleport: Any,
                        d: Any, inv: Any, degree_ordered: bool = False, order: Any = None) -> PowerRun:
        """PageRank's power iteration, every iteration in one persistent kernel (kernels/power.cuh): x <- alpha
        (P^T x + mass(x) d) + teleport over the in-edge CSC, in place, until the L1 change falls below `threshold` or
        max_iter iterations ran. The iterates are the launch-per-iteration loop's up to rounding (its own degree bins,
        POWER_BINS); one host read at the end instead of one per iteration. inv: 1 / out-weight, 0 where dangling.
        x, teleport and d are float64 device arrays or one float for every vertex (networkx's uniform defaults: no
        V-long array to read each iteration; a uniform x starts a new array, PowerRun.ranks). degree_ordered: the ids
        are by decreasing out-degree, so the first ones are the most-read sources and shared memory holds as many of
        their contributions as it can (MultiGraph's heavy source block; power_heavy_sources overrides). order (int32,
        renumbered id -> original id): the kernel also writes the ranks in the original ids, PowerRun.ranks."""
        cp = self.xp
        n = G.num_vertices
        logged = min(max_iter, LOG_ROWS)
        power = self._power_plan(G, logged)
        kernel = self._power.get_function("gg_power_iteration")
        hubs = self._heavy_sources(kernel, n, degree_ordered)
        fill_x = not isinstance(x, cp.ndarray)
        ranks = x if not fill_x else (power.spare if order is not None else cp.empty(n, dtype=cp.float64))
        original = cp.empty(n, dtype=cp.float64) if order is not None else None
        control = power.control
        control.data.memset_async(0, 8 * (32 + 2 * logged + 1))
        self._settle_pending()  # it reads back through the same pinned report
        (teleport, teleport_value), (d, d_value) = _uniform_or_array(teleport), _uniform_or_array(d)
        args = POWER_ARGS.pack(dict(
            hubs=hubs, fill_x=fill_x, max_iter=max_iter, log_rows=logged, teleport=teleport, d=d, inv=inv, x=ranks,
            order=order, original=original, alpha=alpha, teleport_value=teleport_value, d_value=d_value,
            x0=x if fill_x else 0.0, threshold=threshold), into=power.args.copy())
        # a block per SM (the launch bounds say 1024 threads and 1 block an SM), at most persistent_blocks
        blocks = min(rt.multiprocessors(), self.persistent_blocks or rt.multiprocessors())
        kernel((blocks,), (POWER_BLOCK,), (args,), shared_mem=8 * hubs)
        (report,) = self._report.read(power.head)  # the status and the first rows of the log, in one read
        if min(int(report[1:2].view(np.int32)[1]), logged) > LOG_PREFETCH:  # a longer log: all of it
            report = control.get()
        status = report[1:2].view(np.int32)
        if status[0]:
            raise _barrier_timed_out("the power iteration")
        iterations = int(status[1])
        last = float(report[16:19].view(np.float64)[(iterations - 1) % 3]) if iterations else float("inf")
        return PowerRun(iterations, last, ranks if order is None else original,
                        PowerLog(report[32: 33 + 2 * min(iterations, logged)]))

    def _power_plan(self, G: CudaGraph, logged: int) -> PowerPlan:
        """The power iteration's plan on G (cached with G's other device arrays), its control words with room for
        `logged` log rows; its module compiled on first use. Per call, the free-memory check and the allocations
        cost host time with the GPU idle (docs/performance.md#pagerank-power-iteration)."""
        cp = self.xp
        n = G.num_vertices
        if self._power is None:
            lanes = "".join(f"#define GG_POWER_G{i} {group}\n" for i, (_, group) in enumerate(POWER_BINS))
            source = f"#define GG_BLOCK {POWER_BLOCK}\n{lanes}#include \"power.cuh\"\n"
            self._power = rt.KernelTable(rt.compile_module(source, ()))
            self._power_capacity = None  # the heavy source block's, set with the kernel's attribute
        power = G.reduce_plans.get("power")
        if power is None:  # (rows or null, first row, count) per bin: a range where the bin's rows are contiguous
            offsets, indices, weights = G.csc()
            plan = self._reduce_plan(G, "in", offsets)  # its hub chunks
            bins = []
            for _, rows in self._degree_bins(G, "in", offsets, POWER_BINS):
                if rows is None:
                    bins.append((np.uint64(0), np.int32(0), np.int32(n)))
                    continue
                first, last = (int(v) for v in rows[cp.asarray([0, -1])].get()) if rows.size else (0, -1)
                contiguous = last - first + 1 == rows.size
                bins.append((np.uint64(0) if contiguous else rows, np.int32(first if contiguous else 0),
                             np.int32(rows.size)))
            hub_rows = (cp.unique(plan.rows) if plan.rows.size else cp.zeros(1, dtype=cp.int32)[:0]).astype(cp.int32)
            fields = dict(offsets=offsets, indices=indices, weights=weights, weighted=G.weighted, n=n,
                          huge=REDUCE_HUGE, chunk_rows=plan.rows, chunk_first=plan.first, chunk_last=plan.last,
                          chunks=plan.rows.size, hub_rows=hub_rows, hub_count=hub_rows.size)
            for i, (rows, first, count) in enumerate(bins):
                fields.update({f"rows{i}": rows, f"first{i}": first, f"n{i}": count})
            rt.check_free_memory(8 * 5 * n, "the power iteration's contributions, sums and ranks")
            scratch = cp.empty(5 * n, dtype=cp.float64)
            row = [scratch.data.ptr + 8 * n * i for i in range(5)]  # addresses: a CuPy view costs host time
            fields.update(contrib0=row[0], contrib1=row[1], s0=row[2], s1=row[3])
            power = G.reduce_plans["power"] = PowerPlan(POWER_ARGS.pack(fields), tuple(fields.values()), scratch,
                                                        row[4])
        if power.control is None or power.control.size < 32 + 2 * logged + 1:
            power.control = cp.empty(32 + 2 * max(logged, LOG_PREFETCH) + 1, dtype=cp.int64)
            power.head = power.control[: 32 + 2 * LOG_PREFETCH + 1]
            base = power.control.data.ptr
            POWER_ARGS.pack(dict(barrier=base, status=base + 8, sums=base + 128, log=base + 256), into=power.args)
        return power

    def _heavy_sources(self, kernel: Any, n: int, degree_ordered: bool) -> int:
        """How many sources' contributions the power iteration keeps in shared memory: as many as HEAVY_SOURCE_BYTES
        (or the block's shared memory, if less) holds where the ids are degree-ordered or all fit, else 0;
        power_heavy_sources overrides, up to that capacity and n. The first call raises the kernel's attribute to the
        capacity and checks that a block of POWER_BLOCK threads with that much fits on an SM (the grid barrier needs
        every block resident; a smaller block fits then too): once, not per call."""
        capacity = self._power_capacity
        if capacity is None:
            cp = self.xp
            optin = int(cp.cuda.Device().attributes["MaxSharedMemoryPerBlockOptin"])
            room = min(optin - int(kernel.attributes["shared_size_bytes"]), HEAVY_SOURCE_BYTES)
            capacity = max(0, room // 8 // 32 * 32)
            kernel.max_dynamic_shared_size_bytes = 8 * capacity
            function = getattr(getattr(kernel, "kernel", None), "ptr", None)
            if function is not None:
                try:
                    per_sm = int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function, POWER_BLOCK,
                                                                                          8 * capacity))
                except Exception:  # pragma: no cover - a CuPy without the binding: the launch bounds' guarantee
                    per_sm = 1
                if per_sm < 1:
                    raise BackendError(f"the power iteration's blocks ({POWER_BLOCK} threads, {8 * capacity} bytes of "
                                       "shared memory) do not fit on a multiprocessor")
            self._power_capacity = capacity
        wanted = self.power_heavy_sources
        if wanted is None:
            wanted = capacity if degree_ordered or n <= capacity else 0
        return max(0, min(int(wanted), capacity, n))

    # --------------------------------------------------------------------------------------------------- programs
    def _program_module(self, program: Any, balancer: str | None = None, pull_group: int = 0) -> Any:
        """A vertex program's module: its rounds' kernels, or (balancer given) its persistent kernel; looked up by
        the program's CUDA sources (generating and hashing the source per call cost host time per launch)."""
        key = (program.name, program.compute.cuda, program.edge.cuda, program.settled.cuda, program.accumulate,
               program.first_wins, program.skip_settled, balancer, pull_group)
        module = self._modules.get(key)
        if module is None:
            source = (sources.program_module(program) if balancer is None
                      else sources.persistent_module(program, balancer, pull_group))
            module = self._modules[key] = rt.KernelTable(rt.compile_module(source, ()))
        return module

    def program_state(self, G: CudaGraph, program: Any, value: Any, buffer: Any, params: Any,
                      copy: bool = True, source: int | None = None) -> CudaProgramState:
        """The device arrays of a vertex program about to run on G; `value` and `buffer` are copied unless copy=False
        (the caller made them for this run: a float64 device array is then used as it is). With a `source` (value and
        buffer None) the state is a single-source start, made by its first launch (fill_state)."""
        n = G.num_vertices
        monoid = MONOIDS[program.accumulate]
        cp = self.xp
        if source is not None:
            value, buffer, copy = cp.empty(n, dtype=cp.float64), cp.empty(n, dtype=cp.float64), False
        return CudaProgramState(
            value=self._float64(value, copy), buffer=self._float64(buffer, copy),
            message=cp.empty(n, dtype=cp.float64), message_fill=IDENTITY[monoid],
            source=-1 if source is None else source, send=None,
            params=self._device_params(params), program=program, monoid=monoid,
            first_wins=program.first_wins, skip_settled=program.skip_settled, module=self._program_module(program),
            visited=None,  # made by _lookup / _persistent_visited when a strategy first asks for bitmask lookup
        )

    def _float64(self, array: Any, copy: bool) -> Any:
        """`array` as a float64 device array: itself where it is one and need not be copied (cp.array's checks cost
        a few us of host time per call on the way to every launch), else a copy."""
        cp = self.xp
        if not copy and isinstance(array, cp.ndarray) and array.dtype == cp.float64:
            return array
        return cp.array(array, dtype=cp.float64, copy=copy)

    def _device_params(self, params: Any) -> Any:
        """A program's parameters (plus a trailing 0 so the array is never empty) on the device, cached by value:
        kernels only read them, and a host-to-device copy per run costs a synchronous round trip."""
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
            if strategy.drive == "topology" or strategy.balance == "merge_path":
                return self._program_drain(G, s, worklist, strategy)
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
            push = strategy.with_(dedup="atomic") if strategy.frontier in ("vertex_queue", "edge_queue") and strategy.drive == "data" else strategy
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

    def _program_drain(self, G: CudaGraph, s: CudaProgramState, worklist: Frontier, strategy: Any) -> tuple[Frontier, int]:
        """Async: rounds run back to back until the worklist is empty, without the controller in between."""
        level = strategy.with_(sync="sync")
        edges = 0
        current = worklist
        rounds = 0
        while current.size:
            current, e = self.program_round(G, s, current, level)
            edges += e
            rounds += 1
            if level.drive == "topology" and rounds > G.num_vertices + 1:
                break
        return Frontier.empty(G.num_vertices, self.xp), edges

    # --------------------------------------------------------------------------------------------------- persistent
    def _settle_pending(self) -> None:
        """Read back the launch left pending (lazy) before anything reuses its buffers or the pinned report."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.settle()

    def _persistent_buffers(self, G: CudaGraph) -> PersistentBuffers:
        self._settle_pending()
        if G.persistent is None:
            cp = self.xp
            n = G.num_vertices
            words = rt.bitmap_words(n)
            rt.check_free_memory(32 * (n + 1) + 8 * words + 8 * LOG_FIELDS * (LOG_ROWS + 1), "the persistent kernel's queues")
            # the control words and the log in one allocation, so one copy reads the status, the counts and the first
            # log rows back (_read_persistent)
            control = cp.zeros(CONTROL_WORDS + (LOG_ROWS + 1) * LOG_FIELDS, dtype=cp.int64)
            G.persistent = PersistentBuffers(
                queues=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                senders=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                huge=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                claim_bits=cp.zeros(2 * words, dtype=cp.uint32), active_bits=cp.zeros(words, dtype=cp.uint32),
                control=control, counters=control[0:5].view(cp.uint32), edges=control[5:8].view(cp.uint64),
                barrier=control[BARRIER_WORD:BARRIER_WORD + 1].view(cp.uint32),
                status=control[STATUS_WORD:STATUS_WORD + 2].view(cp.int32),
                log=control[CONTROL_WORDS:],
                far=(cp.empty(n + 1, dtype=cp.int32), cp.empty(n + 1, dtype=cp.int32)),
                far_bits=cp.zeros(words, dtype=cp.uint32), far_n=control[11:12].view(cp.uint32),
                refill_n=control[12:13].view(cp.uint32), min_key=control[13:14].view(cp.uint64),
                bucket_n=control[14:17].view(cp.uint32),
                heavy_edges=control[HEAVY_EDGES_WORD:HEAVY_EDGES_WORD + 1].view(cp.uint64),
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

        mode "push" or "pull" fixes the direction; "adaptive" applies SEP-Graph Algorithm 2 on the device with
        rules = (alpha, beta, E'). Push uses the strategy's load balancer and supports (not merge_path, whose scan
        needs the host), pull groups of the strategy's group size (vertex_group) or 1. Output queues are exact (claim
        bits), so `dedup` has nothing left to remove here. delta > 0 adds near-far priority scheduling (kernels/
        persistent.cuh): buckets of width delta from `threshold`, all in the same launch; it runs to the end (no
        max_rounds), since the far pile lives on the device. strategy.hops > 1 (a monotone program's push) expands
        that many levels per grid barrier (block-local hops): the rounds then count grid barriers, not levels.
        light_heavy (near-far, push, level-synchronous) adds Meyer & Sanders' light/heavy split: the rounds push the
        arcs lighter than delta, and each bucket's senders push their heavy arcs once when the bucket is done
        (CudaGraph.light_heavy; the non-fused rounds). A bucket whose senders hold at least 1/heavy_pull_ratio of the
        heavy arcs pulls them instead (CudaGraph.heavy_csc: each vertex keeps its best heavy in-arc from the bucket,
        no contended atomics), and on a low-diameter graph the bucket widths adapt up to delta * 2^bucket_widen_max
        (kernels/persistent.cuh gg_next_bucket; each measured alone and together on kron:21:w in
        docs/performance.md#heavy-rows-pulled-adaptive-widths).
        worklist None starts from the state's single-source start (program_state's `source`), made in the same
        launch. Everything but the program state and the start is packed once per graph and configuration
        (PersistentPlan): the kernel takes one struct, GGPersistentArgs.
        lazy=True returns a PendingRun: nothing is read back until its result() is asked for (or the next persistent
        launch); only for a caller that does not go on from the worklist left (it is not read back then).
        """
        B = self._persistent_buffers(G)
        key = (s.module, strategy, mode, rules, max_rounds, delta, threshold, light_heavy, self.grid_gather_degree,
               self.persistent_pull_group, self.heavy_pull_ratio, self.bucket_widen_max, self.persistent_blocks_per_sm,
               self.persistent_blocks)
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
        args = PERSISTENT_ARGS.pack(fields, into=plan.args.copy())
        plan.kernel((plan.blocks,), (rt.BLOCK,), (args,))
        # the status, counts and first log rows are copied back right behind the kernel (one small copy on the
        # stream), so settling the run later waits on nothing and reads nothing: the next launch settles a lazy one
        # first, inside its caller's time (docs/performance.md#host-time-of-a-call)
        report = self._report.enqueue(B.report)
        read = functools.partial(self._read_persistent, G, B, report)
        pending = PendingRun(functools.partial(_noted, read, plan.note))
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
        supports = sum(SUPPORT_BITS[x] for x in strategy.supports if x in SUPPORT_BITS)
        gather = strategy.supports & {"block_gather", "supplementary_queues"}
        huge = self.grid_gather_degree if gather and strategy.direction == "push" else 1 << 62
        hops = strategy.hops if mode == "push" else 1
        require_monotone(strategy, s.program)
        if hops > 1 and max_rounds < (1 << 30):
            raise StrategyError(f"hops={hops} runs several levels a round: max_rounds cannot count levels")
        if light_heavy and not (delta > 0 and mode == "push" and hops == 1 and G.weighted):
            raise StrategyError("the light/heavy split needs a weighted graph, near-far (delta > 0), push and hops=1")
        # fused rounds (compute inside the expansion, one barrier per round): a fixed push of an idempotent program
        # without hubs to gather grid-wide (none when no vertex reaches the hub degree); block-local hops always
        fused = not light_heavy and mode == "push" and s.monoid != MONOIDS["sum"] and (
            hops > 1 or not (gather and G.graph.degree_stats()["max_degree"] >= huge))
        fields: dict[str, Any] = dict(offsets=G.offsets, indices=G.indices, weights=G.weights)
        state: dict[str, Any] = {}  # GGPersistentState's fields
        pull_from = 0
        if light_heavy:
            (fields["offsets"], fields["indices"], fields["weights"]), heavy = G.light_heavy(delta)
            self._bucket_lists(G, B)  # its bucket bits clear: every launch leaves them so (an aborted one drops B)
            state.update(heavy_offsets=heavy[0], heavy_indices=heavy[1], heavy_weights=heavy[2], bucket=B.bucket,
                         bucket_bits=B.bucket_bits)
            csc = G.heavy_csc(delta) if self.heavy_pull_ratio else None
            if csc is not None:  # the heavy rows' pull: the CSC, from how many heavy arcs a bucket pulls, the chunks
                pull_from = max(1, int(heavy[1].size) // self.heavy_pull_ratio)
                state.update(heavy_t_offsets=csc[0], heavy_t_indices=csc[1], heavy_t_weights=csc[2],
                             heavy_pull=pull_from, heavy_chunk_rows=csc[3], heavy_chunk_first=csc[4],
                             heavy_chunk_last=csc[5], heavy_chunks=int(csc[3].size))
        widen = 0 if delta <= 0 or high_diameter(G.num_arcs, n) else self.bucket_widen_max
        note = (f"; a bucket's heavy rows pulled when its senders hold >= {pull_from:,} heavy arcs" if pull_from
                else "") + (f"; bucket widths adapt up to Delta x {1 << widen}" if widen else "")
        alpha, beta, unexplored = rules
        fields.update(
            weighted=G.weighted, t_offsets=t_offsets, t_indices=t_indices, t_weights=t_weights, n=n, monoid=s.monoid,
            first_wins=s.first_wins, skip_settled=s.skip_settled, supports=supports, huge=huge,
            max_rounds=min(max_rounds, 2**31 - 1), mode=PERSISTENT_MODES[mode], alpha=alpha, beta=beta,
            unexplored=unexplored, fused=fused, hops=hops, threshold=threshold, control=B.control)
        state.update(
            queue=B.queues, senders=B.senders, huge=B.huge, counters=B.counters, edges=B.edges,
            claim_bits=B.claim_bits, words=rt.bitmap_words(n), active_bits=B.active_bits, barrier=B.barrier,
            status=B.status, log=B.log, log_rows=LOG_ROWS, delta=delta, far=B.far, far_bits=B.far_bits, far_n=B.far_n,
            refill_n=B.refill_n, min_key=B.min_key, bucket_n=B.bucket_n, heavy_edges=B.heavy_edges, widen_max=widen)
        fields["st"] = state
        blocks = self._coresident_blocks(kernel, high_diameter(G.num_arcs, n))
        return PersistentPlan(kernel, blocks, PERSISTENT_ARGS.pack(fields), note, tuple(fields.values()))

    def _read_persistent(self, G: CudaGraph, B: PersistentBuffers, report: Any) -> PersistentRun:
        """A persistent launch's status, log and worklist left, from the copy queued behind it (`report`: the
        control words REPORT_WORDS cover); more log rows in a second read."""
        cp = self.xp
        n = G.num_vertices
        (words,) = report()
        first = REPORT_WORDS.start
        status = words[STATUS_WORD - first:STATUS_WORD - first + 2].view(np.int32)
        heavy_edges = words[HEAVY_EDGES_WORD - first:HEAVY_EDGES_WORD - first + 1].view(np.uint64)
        log = words[CONTROL_WORDS - first:]
        if status[0]:
            G.persistent = None  # its bitmaps were left half set: the next launch allocates them clear
            raise _barrier_timed_out("the persistent kernel")
        rounds, left, which = int(status[1]), int(status[2]), int(status[3])
        rows = min(rounds, LOG_ROWS)
        if rows > LOG_PREFETCH:
            log = B.log[: (rows + 1) * LOG_FIELDS].get()
        log = log[: (rows + 1) * LOG_FIELDS].reshape(rows + 1, LOG_FIELDS)
        remaining = (Frontier.from_vertices(B.queues[which][:left].copy(), n, dtype=cp.int32) if left
                     else Frontier.empty(n, cp))
        return PersistentRun(log[:rows], rounds, remaining, _end=int(log[rows, 4]), heavy_edges=int(heavy_edges[0]))

"""The operators of the backend contract on the GPU (DESIGN.md, "Operators"): advance (push with the Strategy's load
balancer, supports and dedup; kernels/advance.cuh), pull (kernels/pull.cuh), filter, for_each_vertex, neighbor_reduce
and vertex_reduce, each a launch or a few of a functor's module. CudaBackend takes this part from here; an async advance
runs inside the persistent kernel (persistent.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from ...engine.strategy import require_level_synchronous
from ...errors import StrategyError
from ...frontier import Frontier
from ...functor import Functor
from ..cpu.atomics import atomic_add
from . import runtime as rt
from . import sources
from .graph import CudaGraph, hub_chunks
from .sources import ADVANCE_KERNELS, SEGMENT, SUB_SEGMENT, merge_path_chunk
from .structs import DEDUP_BITS, IDENTITY, MONOIDS, SUPPORT_BITS, fits_scan_counter, unpack_scan_counter

REDUCE_HUGE, REDUCE_CHUNK = 1024, 2048  # neighbor_reduce: rows from this degree go to chunks of this many edges
# neighbor_reduce over every row: (degree bound, lanes per row) of each degree bin, TWC's thread/warp/CTA bins for a
# gather; the last bin (a warp per row) also holds the hub rows, which it sets to the identity before their chunks
REDUCE_BINS = ((8, 4), (64, 8), (None, 32))
GRID_GATHER_DEGREE = 4096  # push with block gathering: teams of blocks expand a sender of at least this degree
HUB_BALANCERS = ("adv_vg1", "adv_vg4", "adv_vg16", "adv_vg32", "adv_twc", "adv_warp_scan",  # the block-gathering ones
                 "adv_block_scan")
# neighbor_reduce and vertex_reduce combine float64 results by one of these: name -> (monoid code, identity)
REDUCE_MONOIDS = {name: (MONOIDS[name], IDENTITY[MONOIDS[name]]) for name in ("min", "max", "sum")}


@numba.njit(nogil=True)
def _record_edge(u, v, w, state):  # pragma: no cover - numba
    """The two-phase queue's expand functor: append the edge u -> v (weight w) to the recorded arrays, emit nothing."""
    slot = atomic_add(state[3], 0, 1)
    state[0][slot] = u
    state[1][slot] = v
    state[2][slot] = w
    return False


# Busato & Bombieri's two-phase queue, its expand phase: any balancer runs this functor over the frontier's edges
TWO_PHASE_RECORD = Functor(
    "two_phase_record", _record_edge,
    "const u32 slot = gg_warp_slot(true, rec_count); rec_u[slot] = u; rec_v[slot] = v; rec_w[slot] = w; return false;",
    state=("rec_u", "rec_v", "rec_w", "rec_count"),
)
# what the GPU backend compiles for it (tests/cuda/test_cuda_sources.py): as algorithms list theirs
CUDA_FUNCTORS = [(TWO_PHASE_RECORD, "advance", (np.int32, np.int32, np.float32, np.uint32), ())]


def _reduce_monoid(operator: str, monoid: str) -> tuple[int, float]:
    """(code, identity) of a reduction's monoid; a clear error for any other name."""
    if monoid not in REDUCE_MONOIDS:
        raise StrategyError(f"{operator} monoid must be min, max or sum, got {monoid!r}")
    return REDUCE_MONOIDS[monoid]


@dataclass
class ReducePlan:
    """How neighbor_reduce covers a graph's rows in one direction: the degree bins (lanes per row, rows or None for
    all rows) and the REDUCE_CHUNK-edge chunks (row, first edge, end edge) of the rows of degree >= REDUCE_HUGE."""

    bins: list
    rows: Any
    first: Any
    last: Any


class Operators:
    """CudaBackend's operators: advance, pull, filter, for_each_vertex, neighbor_reduce and vertex_reduce."""

    # what this part uses of CudaBackend's state (made in its __init__) and of its other parts
    xp: Any
    _utility: rt.KernelTable
    _counter: rt.PinnedCounter
    _scratch: dict
    _modules: dict
    supplementary_threshold: int | None
    grid_gather_degree: int
    _advance_persistent: Callable[..., Frontier]  # persistent.py

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
            module = self._modules[key] = rt.KernelTable(sources.functor_module(functor, role, types, extra_roles))
        return module

    # --------------------------------------------------------------------------------------------------- advance
    def _advance_kernel(self, module: Any, strategy: Any) -> tuple[Any, str]:
        key = (strategy.balance, strategy.group_size if strategy.balance == "vertex_group" else 32)
        name = ADVANCE_KERNELS[key]
        return module.get_function(name), name

    def advance(self, G: CudaGraph, frontier: Frontier, functor: Any, strategy: Any, state: tuple) -> Frontier:
        """Push from the frontier over out-edges with the strategy's load balancer; returns the activated vertices."""
        require_level_synchronous(strategy, "advance")
        if strategy.balance == "segmented":
            raise StrategyError("balance=segmented accumulates a vertex program's messages in shared memory "
                                "(MultiGraphS); an advance functor has no accumulate to combine them: use three_stage")
        if strategy.sync == "async" and strategy.balance != "merge_path":
            return self._advance_persistent(G, frontier, functor, strategy, state)
        module = self._functor_module(functor, "advance", state)
        if strategy.sync == "async":  # a functor's persistent rounds write no senders' prefix sum for merge_path to
            # search (a vertex program's do: persistent.py): drained level by level
            current = frontier.to_sparse()
            level = strategy.with_(sync="sync", frontier="vertex_queue", drive="data")
            while current.size:
                current = self._advance_level(G, current, module, level, state)
            return Frontier.empty(G.num_vertices, self.xp)
        return self._advance_level(G, frontier, module, strategy, state)

    def _advance_level(self, G: CudaGraph, frontier: Frontier, module: Any, strategy: Any, state: tuple,
                       program_args: tuple = (), read: bool = True) -> Frontier | None:
        """One level of advance: launch the strategy's balancer over `frontier` and, when `read`, read the output's
        size back (one host read) and return it as the next frontier (None without the read: the two-phase queue's
        expand, which emits nothing)."""
        cp = self.xp
        n = G.num_vertices
        recorded = self._expand_two_phase(G, frontier, strategy) if strategy.frontier == "two_phase" else None
        dense_out = strategy.frontier in ("bitmap", "boolmap")
        # vertex_queue: a set of vertices, contracted on emission (test-and-set claim); edge_queue: the expansion writes
        # one entry per activating edge (Merrill's edge frontier), contracted when the next round loads it by the
        # dedup technique (warp_hash, block), or thinned as it is written (lookup: once per warp step) -- or not at
        # all (none); dedup=atomic claims on emission in both
        exact = strategy.frontier in ("vertex_queue", "two_phase") or strategy.dedup == "atomic"
        mode = 2 if dense_out else 1 if exact else 0
        # without exact removal on emission a vertex may be emitted once per in-edge from the frontier: room for every
        # out-edge of the frontier (exact removal emits each vertex at most once)
        capacity = n if mode != 0 else max(n, frontier.out_edges(G.out_degree))
        out_queue = self._buffer("out_queue", max(capacity, 1), cp.int32)
        mask = cp.zeros(n, dtype=cp.uint8) if dense_out else self._buffer("no_mask", 1, cp.uint8)
        dedup_bits = self._buffer("dedup_bits", rt.bitmap_words(n), cp.uint32) if mode == 1 else self._buffer("nobits", 1, cp.uint32)
        if mode == 1:
            dedup_bits.fill(0)
        # Busato & Bombieri's kernel C: a merge_path push writes the output queue's degree prefix sum with it (the next
        # merge_path level searches it: no scan, no host read of its total)
        scan_out = (self._buffer("out_scan", max(capacity, 1), cp.int64)
                    if strategy.balance == "merge_path" and not dense_out and fits_scan_counter(G, capacity) else None)
        self._counter.reset()
        supports = sum(SUPPORT_BITS[s] for s in strategy.supports if s in SUPPORT_BITS) + DEDUP_BITS.get(strategy.dedup, 0)
        tail = state if not program_args else program_args
        if recorded is not None:  # the two-phase queue's contract: a thread per recorded edge, counted on the device
            sources_, targets, weights, count, room = recorded
            args = (G.offsets, targets, weights, np.int32(G.weighted), sources_, np.int32(0), out_queue,
                    self._counter.device, dedup_bits, mask, np.int32(mode), np.int32(supports), G.offsets,
                    np.int64(0), mask, np.int32(0)) + self._emit_counters(scan=scan_out, hub_count=count) + tail
            rt.launch(module.get_function("adv_edges"), room, args)
        elif strategy.drive == "topology" or frontier.is_dense:
            active = cp.asarray(frontier.to_dense().mask).view(cp.uint8)
            args = (G.offsets, G.indices, G.weights, np.int32(G.weighted), out_queue, np.int32(0), out_queue,
                    self._counter.device, dedup_bits, mask, np.int32(mode), np.int32(supports), G.offsets, np.int64(0),
                    active, np.int32(n)) + self._emit_counters(scan=scan_out) + tail
            rt.launch(module.get_function("adv_mask"), n, args)
        else:
            queue = cp.asarray(frontier.queue, dtype=cp.int32)
            qsize = int(queue.size)
            if qsize:
                scan_in = frontier.degree_scan(G.out_degree)  # known only with its total: no host read
                self._advance_queue(G, module, strategy, queue, qsize, out_queue, dedup_bits, mask, mode, supports, tail,
                                    scan_in, None if scan_in is None else frontier.out_edges(G.out_degree), scan_out)
        if dense_out:
            return Frontier.from_mask(mask.view(cp.bool_))
        if not read:
            return None
        count, edges = self._counter.read_with_edges()  # the emissions summed the new frontier's out-degrees
        if scan_out is not None:  # kernel C packed both in the edge word
            count, edges = unpack_scan_counter(edges)
        out = Frontier.from_vertices(out_queue[:count].copy(), n, dtype=cp.int32).known_out_edges(G.out_degree, edges)
        return out if scan_out is None else out.known_degree_scan(G.out_degree, scan_out[:count].copy())

    def _expand_two_phase(self, G: CudaGraph, frontier: Frontier, strategy: Any) -> tuple:
        """Busato & Bombieri's two-phase queue, the expand phase: the strategy's balancer (and supports) over the
        frontier's out-edges with TWO_PHASE_RECORD, which writes each edge (source, target, weight) and emits nothing;
        returns the three arrays, their count on the device and the bound on it (the frontier's out-edges): nothing
        is read back. _advance_level then contracts them (adv_edges, which reads the count on the device)."""
        cp = self.xp
        room = max(frontier.out_edges(G.out_degree), 1)
        rec = (self._buffer("two_phase_u", room, cp.int32), self._buffer("two_phase_v", room, cp.int32),
               self._buffer("two_phase_w", room, cp.float32), self._buffer("two_phase_count", 1, cp.uint32))
        rec[3].fill(0)
        expand = strategy.with_(frontier="vertex_queue")
        record = self._functor_module(TWO_PHASE_RECORD, "advance", rec)
        self._advance_level(G, frontier, record, expand, rec, read=False)
        return rec[0], rec[1], rec[2], rec[3], room

    def _emit_counters(self, hubs: Any = None, huge: int = 0, scan: Any = None, hub_count: Any = None,
                       launch_degree: int = 0) -> tuple:
        """The advance kernels' last arguments before the state: the hub queue (null: none), its count (the
        counter's; the two-phase contract passes its recorded edges' count there), the degree that sends a vertex
        there, the out-edge sum of the output queue and its degree prefix sum (null: none; kernel C,
        kernels/common.cuh GGOut and gg_emit_scanned), and the degree from which a thread launches a kernel for its
        row (0: none; dynamic parallelism, kernels/advance.cuh gg_gather)."""
        return (np.uint64(0) if hubs is None else hubs, self._counter.hubs if hub_count is None else hub_count,
                np.int64(huge), self._counter.edges, np.uint64(0) if scan is None else scan, np.int64(launch_degree))

    def _advance_queue(self, G, module, strategy, queue, qsize, out_queue, dedup_bits, mask, mode, supports, tail,
                       scan_in=None, edges=None, scan_out=None) -> None:
        """One level's launches over a queue. merge_path searches `scan_in`, the queue's degree prefix sum as the level
        before wrote it (kernel C), with `edges` its total; without it, a cumsum and a read of its last entry."""
        cp = self.xp
        # Busato & Bombieri's dynamic parallelism: a thread whose vertex has at least grid_gather_degree arcs (a row
        # too long for its block, as grid gathering's) launches a kernel for it, from the module built for device
        # launches (-rdc=true)
        launch_degree = self.grid_gather_degree if "dynamic_parallelism" in strategy.supports else 0
        if launch_degree:
            module = module.with_device_launch()
            rt.pending_launches(G.rows_of_at_least(launch_degree))  # a vertex queue lists each at most once
        kernel, name = self._advance_kernel(module, strategy)
        scan = G.offsets
        chunk = 0
        work = qsize
        if name == "adv_merge_path":
            if scan_in is not None and scan_in.size == qsize and edges is not None:
                scan, total = scan_in, int(edges)
            else:
                scan = cp.cumsum(G.out_degree[queue])
                total = int(scan[-1]) if qsize else 0
            chunk = merge_path_chunk(total, rt.resident_threads())
            work = (total + chunk - 1) // chunk * rt.BLOCK
        elif name == "adv_three_stage":
            work = (qsize + 63) // 64 * rt.BLOCK
        elif name == "adv_segmented":  # a block per (segment, sub-segment), then three_stage's 64 vertices a block
            chunk, table = G.shared_group_segments()  # chunk: the targets of groups 1-4; scan: their segment table,
            scan = np.uint64(0) if table is None else table  # null where none (GGRowPastSegments: the whole row)
            items = -(-chunk // SEGMENT) * -(-qsize // SUB_SEGMENT)
            work = max(items, (qsize + 63) // 64) * rt.BLOCK
        # grid gathering (block gathering one level up, as in the persistent kernel): with block gathering, a vertex
        # of degree >= GRID_GATHER_DEGREE goes to a hub queue, which a second launch expands with teams of blocks.
        # Otherwise a frontier of a few hundred hubs (BC's second level on kron) sits in one block, which walks
        # every hub's row alone. Busato & Bombieri's supplementary queues: the vertices of degree above their threshold
        # go to the hub queue too, and the second launch expands them in bins by degree (kernels/persistent.cuh
        # gg_supplementary_bins; merge_path spreads every edge of the level evenly already, and loads no entry to
        # divert). The second launch reads the hub count on the device: no host sync.
        grid_gather = name == "adv_twc" or (name in HUB_BALANCERS and supports & SUPPORT_BITS["block_gather"])
        huge, supplementary = rt.hub_degrees(strategy.supports if name != "adv_merge_path" else (), grid_gather,
                                             self.grid_gather_degree, self.supplementary_threshold)
        hubs = self._buffer("hub_queue", max(G.num_vertices, qsize), cp.int32) if grid_gather or supplementary else None

        def level_args(chunk_or_degree: int, launching: int = 0) -> tuple:
            # one slot holds merge_path's chunk for the level's kernel, the supplementary queues' degree for adv_hubs
            return ((G.offsets, G.indices, G.weights, np.int32(G.weighted), queue, np.int32(qsize), out_queue,
                     self._counter.device, dedup_bits, mask, np.int32(mode), np.int32(supports), scan,
                     np.int64(chunk_or_degree), mask, np.int32(0))
                    + self._emit_counters(hubs, huge, scan_out, launch_degree=launching) + tail)

        rt.launch(kernel, work, level_args(chunk, launch_degree))
        if hubs is not None:
            rt.launch(module.get_function("adv_hubs"), rt.resident_threads(), level_args(supplementary))

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

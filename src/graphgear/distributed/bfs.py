"""Distributed direction-optimising BFS (Beamer, Asanović & Patterson, SC'12) over a 1D partition (Buluç & Madduri,
SC'11; the frontier exchange of Checconi & Petrini's Graph500 codes and of cuGraph's multi-GPU BFS).

Every rank owns a vertex range and its distances. Each level runs one of two steps:

    TDStep      (top-down) every rank pushes over the out-edges of its own frontier vertices and sets the targets'
                bits in a bitmap cut into one block per owner; comm.alltoall hands each owner the P blocks of its
                range, and Settle lets the unvisited vertices whose bit any rank set join the next level: each rank
                sends and receives n/8 (P-1)/P bytes per level (a byte map reduce-scattered moved 8 times more)
    BUStep      (bottom-up) the frontier, one bit a vertex, is all-gathered (n/8 bytes); every rank's unvisited
                vertices scan their in-edges until they meet it (the early exit that makes the step cheap)

Both steps leave the next frontier as bits (for a bottom-up step) and as a list with its out-degrees (for a top-down
one) and sum the level's counts in the same pass over the rank's vertices, on the device; the counts are reduced over
the ranks into the same small array, so a level reads the device once. (A top-down step that all-gathers the
frontier's list and lets each rank follow the arcs into its own vertices, through its in-arcs keyed by source, was
tried and measured slower on 4 GPUs: docs/distributed.md.) Beamer's switch, written as GAP writes it, on the global
counts: go bottom-up when the frontier's out-edges m_f exceed the unvisited vertices' out-edges m_u / ALPHA, back
top-down when the frontier holds fewer than n / BETA vertices and is shrinking. Distances are exact whatever the
steps; predecessors (the smallest in-neighbour one level closer, a valid BFS tree) are computed from the all-gathered
distances when first read.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..engine.trace import Trace
from ..errors import BackendError
from ..results import BFSResult, Deferred
from .kernels import kernels_for
from .runtime import local, to_host

ALPHA = 15  # GAP's bfs.cc defaults (Beamer's alpha and beta)
BETA = 18


def bfs(dg: Any, source: int, depth_limit: int | None = None) -> BFSResult:
    """BFS from internal vertex `source` on a DistributedGraph; the result as gg.bfs returns it."""
    start = time.perf_counter()
    limit = -1 if depth_limit is None else int(depth_limit)
    out = dg.spmd(_bfs_rank, int(source), limit)
    distances = np.concatenate([o[0] for o in out])
    trace = Trace(algorithm="bfs", backend=f"distributed {dg.backend} x{dg.size}", controller="Beamer (global counts)")
    for row in out[0][1]:
        trace.add(**row)
    return BFSResult(distances, Deferred(lambda: predecessors(dg, distances)), trace=trace,
                     graph=dg, seconds=time.perf_counter() - start)


def predecessors(dg: Any, distances: np.ndarray) -> np.ndarray:
    """Each vertex's smallest in-neighbour one level closer to the source (-1: the source, unreached vertices)."""
    shared = dg.client.scatter(distances, broadcast=True, hash=False)
    return np.concatenate(dg.spmd(_parents_rank, shared))


def _parents_rank(ctx: Any, part: Any, distances: np.ndarray) -> np.ndarray:
    L, K = local(ctx, part), kernels_for(ctx.backend)
    dist = ctx.xp.asarray(distances)
    return to_host(ctx, K.level_parents(L.in_offsets, L.in_indices, dist, L.lo, L.size))


class _Levels:
    """A rank's BFS arrays, kept between searches at fixed addresses, and a level's launches over them.

    A level is the same launches whatever its number or frontier (the level and the list's size are read on the
    device: kernels.begin_level), so on GPUs each kind of level, top-down and bottom-up, is captured once as a CUDA
    graph with its collectives (NCCL's calls can be captured) and the copy of the counts to pinned host memory, and a
    level costs one graph launch and one wait. The host's launches (some ten a level) would otherwise cost more than
    a level's work on a quarter of kron:25: docs/distributed.md has both."""

    def __init__(self, ctx: Any, L: Any, K: Any) -> None:
        xp = ctx.xp
        self.ctx, self.L, self.K, self.xp = ctx, L, K, xp
        self.ranks = len(L.counts)
        self.byte_counts = (L.counts + 7) // 8  # every range but the last: a multiple of 8 vertices (partition.ALIGN)
        most = int(self.byte_counts.max())
        self.stride = 4 * ((int(L.counts.max()) + 31) // 32)  # a rank's block of the top-down bitmap: bytes, words
        self.dist = xp.empty(L.size, dtype=np.int64)
        self.bits = xp.zeros(self.stride, dtype=np.uint8)  # the next frontier, one bit a vertex, whole words
        self.queue = xp.empty(max(L.size, 1), dtype=np.int64)  # and as a list of its (local) vertices
        self.queue_end = xp.empty(max(L.size, 1), dtype=np.int64)  # with the inclusive prefix sum of the out-degrees
        self.counts = xp.zeros(7, dtype=np.int64)  # n_f, m_f, m_u, the list's packed tail, then the sums of the 3
        self.prev = xp.zeros(2, dtype=np.int64)  # the last level's list length and arcs (kernels.begin_level)
        self.state = xp.zeros(1, dtype=np.int64)  # the level
        self.bounds = xp.asarray(np.concatenate(([0], np.cumsum(L.counts))).astype(np.int64))
        self.mark = xp.zeros(self.ranks * self.stride, dtype=np.uint8)
        self.received = xp.zeros(self.ranks * self.stride, dtype=np.uint8)
        self.frontier = xp.zeros(self.ranks * most, dtype=np.uint8)
        self.graphs: dict[bool, Any] = {}
        self.stream = self.host = None
        if K.level_graphs:
            import cupy
            import cupyx

            self.stream = cupy.cuda.Stream(non_blocking=True)
            self.host = cupyx.empty_pinned(7, dtype=np.int64)
            cupy.cuda.Device().synchronize()  # the part's arrays, copied on the null stream, are in place
            with self.stream:  # NCCL's connections and buffers made outside a capture, as it asks
                ctx.comm.alltoall(self.mark, self.stride, out=self.received)
                ctx.comm.allgatherv(self.bits, self.byte_counts, out=self.frontier)
                ctx.comm.allreduce(self.counts[:3], "sum", out=self.counts[4:])
            self.stream.synchronize()

    def start(self, source: int) -> np.ndarray:
        """The search's first frontier, the source; returns the counts (this rank's, then the sums)."""
        L, xp = self.L, self.xp

        def steps() -> None:
            mine = L.lo <= source < L.hi
            self.dist.fill(-1)
            self.state.fill(-1)
            self.counts.fill(0)
            if mine:
                self.dist[source - L.lo] = 0
                self.queue[0] = source - L.lo
                self.queue_end[0] = L.out_degree[source - L.lo]
            m_source = int(L.out_degree[source - L.lo]) if mine else 0
            self.counts[:3] = xp.stack([xp.asarray(int(mine)), xp.asarray(m_source),
                                        L.out_degree.sum(dtype=np.int64) - m_source])
            self.ctx.comm.allreduce(self.counts[:3], "sum", out=self.counts[4:])
            self._to_host()

        return self._run(steps)

    def level(self, top_down: bool) -> np.ndarray:
        """One level, top-down or bottom-up; returns the counts. On GPUs a kind of level runs eagerly the first time
        (kernels compiled and loaded, NCCL's buffers made), is captured the second and replayed from then on."""
        if self.stream is None or top_down not in self.graphs:
            if self.stream is not None:
                self.graphs[top_down] = None
            return self._run(lambda: self._steps(top_down))
        graph = self.graphs[top_down]
        if graph is None:
            import cupy

            relaxed = getattr(cupy.cuda.runtime, "streamCaptureModeRelaxed", 2)  # cudaStreamCaptureModeRelaxed
            with self.stream:
                self.stream.begin_capture(relaxed)
                try:
                    self._steps(top_down)
                finally:
                    graph = self.stream.end_capture()
            self.graphs[top_down] = graph
        graph.launch(self.stream)
        self.stream.synchronize()  # the level's one wait
        return self.host

    def _run(self, steps: Any) -> np.ndarray:
        if self.stream is None:
            steps()
            return self.counts
        with self.stream:
            steps()
        self.stream.synchronize()
        return self.host

    def _to_host(self) -> None:
        """The counts' copy to pinned host memory, queued on the stream (CPU ranks read the counts themselves)."""
        if self.stream is None:
            return
        import cupy

        cupy.cuda.runtime.memcpyAsync(self.host.ctypes.data, self.counts.data.ptr, self.counts.nbytes,
                                      cupy.cuda.runtime.memcpyDeviceToHost, self.stream.ptr)

    def _steps(self, top_down: bool) -> None:
        L, K, comm = self.L, self.K, self.ctx.comm
        K.begin_level(self.counts, self.prev, self.state)
        if top_down:
            self.mark.fill(0)
            K.td_step(L.offsets, L.indices, self.queue, self.queue_end, self.prev, self.bounds, self.mark,
                      self.stride)
            reached = comm.alltoall(self.mark, self.stride, out=self.received)
            K.settle(reached, self.ranks, self.stride, self.dist, self.state, L.out_degree, self.bits, self.queue,
                     self.queue_end, self.counts)
        else:
            frontier = comm.allgatherv(self.bits, self.byte_counts, out=self.frontier)
            K.bu_step(L.in_offsets, L.in_indices, self.dist, frontier, self.state, L.out_degree, self.bits,
                      self.queue, self.queue_end, self.counts)
        comm.allreduce(self.counts[:3], "sum", out=self.counts[4:])
        self._to_host()


def _bfs_rank(ctx: Any, part: Any, source: int, limit: int) -> tuple[np.ndarray, list[dict]]:
    K = kernels_for(ctx.backend)
    L = local(ctx, part)
    if L.size > K.max_rank_vertices or L.arcs > K.max_rank_arcs:
        raise BackendError(f"rank {ctx.rank} holds {L.size:,} vertices and {L.arcs:,} arcs; BFS's frontier list "
                           f"takes at most {K.max_rank_vertices:,} and {K.max_rank_arcs:,} a rank: use more ranks")
    levels = ctx.cache.get("bfs")
    if levels is None:
        levels = ctx.cache["bfs"] = _Levels(ctx, L, K)
    got = levels.start(source)
    top_down, level, rows, n_f, tick = True, 0, [], 0, time.perf_counter()
    while True:
        previous = n_f
        n_f, m_f, m_u = (int(x) for x in got[4:])
        if level:
            step = "push" if top_down else "pull"
            if top_down and m_f > m_u / ALPHA:
                top_down, why = False, f"m_f {m_f:,} > m_u {m_u:,} / {ALPHA}: bottom-up"
            elif not top_down and n_f < L.n / BETA and n_f < previous:
                top_down, why = True, f"n_f {n_f:,} < n / {BETA}, shrinking: top-down"
            else:
                why = "keep"
            rows.append(dict(strategy=f"direction={step}", path=f"sync-{step}-dd", frontier_vertices=previous,
                             frontier_edges=0, edges_processed=0, seconds=time.perf_counter() - tick,
                             decision="pull" if not top_down else "push", reason=why))
        if not n_f or level == limit:
            break
        tick = time.perf_counter()
        got = levels.level(top_down)  # the level's one read of the device
        level += 1
    dist = to_host(ctx, levels.dist)
    return (dist.copy() if dist is levels.dist else dist), rows  # the arrays stay for the next search

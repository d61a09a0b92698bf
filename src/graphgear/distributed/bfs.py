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


def _bfs_rank(ctx: Any, part: Any, source: int, limit: int) -> tuple[np.ndarray, list[dict]]:
    xp, comm, K = ctx.xp, ctx.comm, kernels_for(ctx.backend)
    L = local(ctx, part)
    n, lo, size = L.n, L.lo, L.size
    byte_counts = (L.counts + 7) // 8  # every range but the last holds a multiple of 8 vertices (partition.ALIGN)
    own_bytes = int(byte_counts[ctx.rank])
    if size > K.max_rank_vertices or L.arcs > K.max_rank_arcs:
        raise BackendError(f"rank {ctx.rank} holds {size:,} vertices and {L.arcs:,} arcs; BFS's frontier list takes "
                           f"at most {K.max_rank_vertices:,} and {K.max_rank_arcs:,} a rank: use more ranks")
    dist = xp.full(size, -1, dtype=np.int64)
    bits = xp.zeros(4 * ((own_bytes + 3) // 4), dtype=np.uint8)  # the next frontier, one bit a vertex, whole words
    queue = xp.empty(max(size, 1), dtype=np.int64)  # and as a list of its (local) vertices
    queue_end = xp.empty(max(size, 1), dtype=np.int64)  # with the inclusive prefix sum of their out-degrees
    counts = xp.zeros(7, dtype=np.int64)  # this rank's n_f, m_f, m_u, the list's packed tail, then the sums of the 3
    ranks = len(L.counts)
    stride = 4 * ((int(L.counts.max()) + 31) // 32)  # a rank's block of the top-down bitmap: bytes, whole words
    bounds = xp.asarray(np.concatenate(([0], np.cumsum(L.counts))).astype(np.int64))
    mark = None
    mine = lo <= source < L.hi
    if mine:
        dist[source - lo] = 0
        queue[0] = source - lo
        queue_end[0] = L.out_degree[source - lo]
    m_source = int(L.out_degree[source - lo]) if mine else 0
    counts[:3] = xp.stack([xp.asarray(int(mine)), xp.asarray(m_source), L.out_degree.sum(dtype=np.int64) - m_source])
    top_down, level, rows, n_f, tick = True, 0, [], 0, time.perf_counter()
    while True:
        comm.allreduce(counts[:3], "sum", out=counts[4:])
        got = to_host(ctx, counts)  # the level's one read of the device
        queued, queue_arcs, previous = int(got[0]), int(got[1]), n_f
        n_f, m_f, m_u = (int(x) for x in got[4:])
        if level:
            step = "push" if top_down else "pull"
            if top_down and m_f > m_u / ALPHA:
                top_down, why = False, f"m_f {m_f:,} > m_u {m_u:,} / {ALPHA}: bottom-up"
            elif not top_down and n_f < n / BETA and n_f < previous:
                top_down, why = True, f"n_f {n_f:,} < n / {BETA}, shrinking: top-down"
            else:
                why = "keep"
            rows.append(dict(strategy=f"direction={step}", path=f"sync-{step}-dd", frontier_vertices=previous,
                             frontier_edges=0, edges_processed=0, seconds=time.perf_counter() - tick,
                             decision="pull" if not top_down else "push", reason=why))
        if not n_f or level == limit:
            break
        tick = time.perf_counter()
        counts[:4].fill(0)
        if top_down:
            if mark is None:
                mark = xp.empty(ranks * stride, dtype=np.uint8)
            mark.fill(0)
            K.td_step(L.offsets, L.indices, queue[:queued], queue_end[:queued], bounds, mark, stride, queue_arcs)
            reached = comm.alltoall(mark, stride)
            K.settle(reached, ranks, stride, dist, level, L.out_degree, bits, queue, queue_end, counts)
        else:
            frontier = comm.allgatherv(bits[:own_bytes], byte_counts)
            K.bu_step(L.in_offsets, L.in_indices, dist, frontier, level, L.out_degree, bits, queue, queue_end, counts)
        level += 1
    return to_host(ctx, dist), rows

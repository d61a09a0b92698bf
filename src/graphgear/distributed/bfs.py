"""Distributed direction-optimising BFS (Beamer, Asanović & Patterson, SC'12) over a 1D partition (Buluç & Madduri,
SC'11; the frontier exchange of Checconi & Petrini's Graph500 codes and of cuGraph's multi-GPU BFS).

Every rank owns a vertex range and its distances. Each level runs one of two steps:

    TDStep      (top-down) every rank pushes over the out-edges of its own frontier vertices and marks the targets
                in a byte map over all vertices; comm.reduce_scatter(max) hands each owner the marks of its range, and
                the unvisited marked ones join the next level: n bytes reduced per level
    BUStep      (bottom-up) the frontier, packed one bit a vertex, is all-gathered (n/8 bytes); every rank's unvisited
                vertices scan their in-edges until they meet it (the early exit that makes the step cheap)

Beamer's switch, written as GAP writes it, on global counts (one allreduce of three numbers per level): go bottom-up
when the frontier's out-edges m_f exceed the unvisited vertices' out-edges m_u / ALPHA, back top-down when the
frontier holds fewer than n / BETA vertices and is shrinking. Distances are exact whatever the steps; predecessors
(the smallest in-neighbour one level closer, a valid BFS tree) are computed from the all-gathered distances when
first read.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..engine.trace import Trace
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
    dist = xp.full(size, -1, dtype=np.int64)
    mine = lo <= source < L.hi
    if mine:
        dist[source - lo] = 0
    queue = xp.asarray([source - lo] if mine else [], dtype=np.int64)
    frontier = xp.zeros(size, dtype=np.uint8)
    if mine:
        frontier[source - lo] = 1
    n_f, m_f = 1, int(comm.allreduce(xp.asarray([int(L.out_degree[source - lo]) if mine else 0]), "sum")[0])
    m_u = int(comm.allreduce(L.out_degree.sum(dtype=np.int64).reshape(1), "sum")[0]) - m_f
    top_down, level, rows = True, 0, []
    while n_f and level != limit:
        tick = time.perf_counter()
        if top_down:
            mark = xp.zeros(n, dtype=np.uint8)
            K.td_step(L.offsets, L.indices, queue, mark)
            reached = comm.reduce_scatter(mark, L.counts, "max")
            frontier = ((reached != 0) & (dist < 0)).astype(np.uint8)
            dist = xp.where(frontier != 0, level + 1, dist)  # not dist[mask] = ...: a mask index waits on the GPU
        else:
            bits = comm.allgatherv(xp.packbits(frontier), byte_counts)
            frontier = xp.zeros(size, dtype=np.uint8)
            K.bu_step(L.in_offsets, L.in_indices, dist, bits, level, frontier)
        new = frontier != 0
        queue = xp.flatnonzero(new).astype(np.int64)
        counts = comm.allreduce(xp.stack([new.sum(dtype=np.int64), xp.where(new, L.out_degree, 0).sum(),
                                          xp.where(dist < 0, L.out_degree, 0).sum()]), "sum")
        previous = n_f
        n_f, m_f, m_u = (int(x) for x in to_host(ctx, counts))
        step = "push" if top_down else "pull"
        if top_down and m_f > m_u / ALPHA:
            top_down, why = False, f"m_f {m_f:,} > m_u {m_u:,} / {ALPHA}: bottom-up"
        elif not top_down and n_f < n / BETA and n_f < previous:
            top_down, why = True, f"n_f {n_f:,} < n / {BETA}, shrinking: top-down"
        else:
            why = "keep"
        level += 1
        rows.append(dict(strategy=f"direction={step}", path=f"sync-{step}-dd", frontier_vertices=previous,
                         frontier_edges=0, edges_processed=0, seconds=time.perf_counter() - tick,
                         decision="pull" if not top_down else "push", reason=why))
    return to_host(ctx, dist), rows

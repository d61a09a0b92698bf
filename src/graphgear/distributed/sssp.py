"""Distributed SSSP: Delta-stepping (Meyer & Sanders, J. Algorithms 2003) with a bucket-synchronous exchange, over
the 1D partition (the scheme of distributed Delta-stepping codes such as Chakaravarthy et al., IPDPS'14, without
their pruning).

Every rank owns the tentative distances of its vertex range. Buckets are processed in order, all ranks in step:

    Relax       each rank relaxes the out-edges of its frontier (its vertices in the current bucket whose distance
                dropped since they last sent) into a candidate array over all vertices; comm.reduce_scatter(min)
                gives each owner the best candidate of its range, and the improved vertices form the next frontier
    next bucket when no rank has a frontier left in the bucket (one allreduce of the count), the next bucket is the
                least one holding a vertex still to send (an allreduce(min)); the run ends when none is left

Any sequence of buckets reaches the same fixed point dist[v] = min over in-arcs of dist[u] + w in float64 (the
label-correcting argument of `graphgear.algorithms.sssp`), so the distances equal gg.sssp's exactly. The default
width is the mean arc weight times GAP's factor (a bucket holds a few hops). Predecessors follow gg.sssp's rule (the
smallest in-neighbour u with dist[u] + w(u, v) = dist[v]), from the all-gathered distances.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..engine.trace import Trace
from ..results import SSSPResult
from .kernels import kernels_for
from .runtime import local, to_host

DELTA_WEIGHTS = 4.0


def sssp(dg: Any, source: int, delta: float, cutoff: float | None) -> SSSPResult:
    """Shortest-path distances from internal vertex `source` on a weighted DistributedGraph (weights >= 0)."""
    start = time.perf_counter()
    out = dg.spmd(_sssp_rank, int(source), float(delta))
    dist = np.concatenate([o[0] for o in out])
    parents = np.concatenate([o[1] for o in out])
    if cutoff is not None:
        beyond = dist > cutoff
        dist[beyond] = np.inf
        parents[beyond] = -1
    trace = Trace(algorithm="sssp-delta-stepping", backend=f"distributed {dg.backend} x{dg.size}", controller="fixed")
    for row in out[0][2]:
        trace.add(**row)
    return SSSPResult(dist, parents, trace=trace, graph=dg, seconds=time.perf_counter() - start)


def default_delta(total: float, arcs: int) -> float:
    """Delta = DELTA_WEIGHTS mean arc weights: a bucket then spans a few hops, so a low-diameter graph needs few
    buckets (each costs at least two exchanges) while a bucket's label-correcting rounds stay few."""
    return DELTA_WEIGHTS * (total / arcs) if arcs and total > 0 else 1.0


def weight_summary(dg: Any) -> tuple[float, int, float]:
    """(sum of the arc weights, arcs, least weight) over the ranks; 1 a weight on an unweighted graph. Asked of the
    ranks once per graph (its weights never change), not on every SSSP or PageRank call."""
    summary = getattr(dg, "_weight_summary", None)
    if summary is None:
        got = dg.spmd(_weight_summary)
        arcs = sum(g[1] for g in got)
        summary = dg._weight_summary = (sum(g[0] for g in got), arcs, min((g[2] for g in got if g[1]),
                                                                           default=math.inf))
    return summary


def _weight_summary(ctx: Any, part: Any) -> tuple[float, int, float]:
    L = local(ctx, part)
    arcs = int(L.indices.shape[0])
    if L.weights is None or not arcs:
        return float(arcs), arcs, 1.0
    return float(L.weights.sum(dtype=np.float64)), arcs, float(L.weights.min())


def tight_tree_on_client(dg: Any, distances: np.ndarray, source: int, lightest: float) -> np.ndarray:
    """Predecessors where a tight arc can close a cycle (a zero weight): gg.sssp's tight tree, on the graph gathered
    to the client (a rare case the distributed pass cannot settle: it needs hop levels over the tight arcs)."""
    from ..algorithms.sssp import shortest_path_tree
    from ..backends import get_backend

    be = get_backend("cpu")
    return np.asarray(shortest_path_tree(be, be.graph(dg.to_graph()), distances, source, lightest))


def _sssp_rank(ctx: Any, part: Any, source: int, delta: float) -> tuple:
    xp, comm, K = ctx.xp, ctx.comm, kernels_for(ctx.backend)
    L = local(ctx, part)
    lo, size = L.lo, L.size
    dist = xp.full(size, np.inf, dtype=np.float64)
    pending = xp.zeros(size, dtype=bool)  # improved since it last sent
    if lo <= source < L.hi:
        dist[source - lo] = 0.0
        pending[source - lo] = True
    bucket, rows = 0, []
    while True:
        top = (bucket + 1) * delta
        while True:  # the bucket's label-correcting rounds
            tick = time.perf_counter()
            active = pending & (dist < top)
            queue = xp.flatnonzero(active).astype(np.int64)
            count = int(to_host(ctx, comm.allreduce(xp.asarray([queue.size], dtype=np.int64), "sum"))[0])
            if count == 0:
                break
            pending[queue] = False
            cand = xp.full(L.n, np.inf, dtype=np.float64)
            K.relax(L.offsets, L.indices, L.weights, queue, dist, cand)
            mine = comm.reduce_scatter(cand, L.counts, "min")
            better = mine < dist
            dist = xp.minimum(dist, mine)
            pending |= better
            rows.append(dict(strategy="direction=push", path="sync-push-dd", frontier_vertices=count,
                             frontier_edges=0, edges_processed=0, seconds=time.perf_counter() - tick,
                             decision="push", reason=f"bucket {bucket} [{bucket * delta:.6g}, {top:.6g})"))
        waiting = xp.where(pending, dist, np.inf).min() if size else np.inf
        least = to_host(ctx, comm.allreduce(xp.asarray(waiting, dtype=np.float64).reshape(1), "min"))[0]
        if not math.isfinite(least):
            break
        bucket = max(bucket + 1, int(least // delta))
    shared = comm.allgatherv(dist, L.counts)
    parents = K.tight_parents(L.in_offsets, L.in_indices, L.in_weights, shared, lo, source, size)
    return to_host(ctx, dist), to_host(ctx, parents), rows

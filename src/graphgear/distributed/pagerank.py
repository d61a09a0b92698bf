"""Distributed PageRank: the pull power iteration over the 1D partition, networkx's iterates.

Each rank owns the ranks x of its vertex range and the in-edges of that range (its CSC rows), so the gather
y = P^T x needs every vertex's contribution x[u] / outweight[u]: one comm.allgatherv of the contributions per
iteration (8 bytes a vertex) and a local sparse matrix-vector product over the rank's in-edges (SciPy on CPU ranks,
cuSPARSE through CuPy on GPU ranks). The dangling mass and the L1 change are two sums, one allreduce. Update and
stopping rule are networkx's (`graphgear.algorithms.pagerank`): L1 change < N * tol, a GraphError after max_iter.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..engine.trace import Trace
from ..errors import GraphError
from ..results import PageRankResult
from .runtime import local, to_host


def pagerank(dg: Any, alpha: float, max_iter: int, tol: float, p: np.ndarray | None, d: np.ndarray | None,
             x0: np.ndarray | None, weighted: bool) -> PageRankResult:
    """PageRank of a DistributedGraph; p, d, x0 host vectors summing to 1 (None: uniform)."""
    start = time.perf_counter()
    n = dg.num_vertices
    bounds = dg.bounds
    pieces = [tuple(None if a is None else a[bounds[r]:bounds[r + 1]] for a in (p, d, x0)) for r in range(dg.size)]
    out = dg.spmd(_pagerank_rank, float(alpha), int(max_iter), float(tol), bool(weighted), per_rank=pieces)
    ranks = np.concatenate([o[0] for o in out])
    iterations, err, rows = out[0][1], out[0][2], out[0][3]
    trace = Trace(algorithm="pagerank-power", backend=f"distributed {dg.backend} x{dg.size}", controller="fixed")
    for row in rows:
        trace.add(**row)
    if err >= n * tol:
        raise GraphError(f"PageRank (power iteration) did not converge in {max_iter} iterations: the last L1 change "
                         f"was {err:.6g}, not below N*tol = {n * tol:.6g} (raise max_iter or tol)")
    return PageRankResult(ranks, iterations=iterations, trace=trace, graph=dg, seconds=time.perf_counter() - start)


# Arcs a matrix block may hold. cuSPARSE through CuPy takes int32 indices, and its SpMV fails well before 2^31 - 1:
# benchmarks/cusparse_blocks.py measures it; docs/distributed.md ("PageRank's row blocks") has its figures on an H200.
MATRIX_ARCS = {"cuda": 2**30, "cpu": 2**62}


def row_blocks(offsets: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Consecutive row ranges [a, b) of a CSR with `offsets` (host) covering every row, each holding at most `limit`
    arcs (a longer row alone in its block); one empty range for no rows."""
    rows, blocks, a = len(offsets) - 1, [], 0
    while True:
        b = int(np.searchsorted(offsets, offsets[a] + limit, side="right")) - 1  # the last end within the limit
        b = min(max(b, a + 1), rows)
        blocks.append((a, b))
        a = b
        if a >= rows:
            return blocks


def _matrix(ctx: Any, L: Any, weighted: bool) -> list[Any]:
    """The rank's rows of P^T's pattern, A[v - lo, u] = w(u, v) (1 unweighted), as CSR matrices on its device, one
    per block of rows (one block unless the rank's in-arcs pass what the sparse library multiplies in one call:
    MATRIX_ARCS)."""
    key = f"pagerank-matrix-{weighted}"
    blocks = ctx.cache.get(key)
    if blocks is None:
        xp = ctx.xp
        values = (L.in_weights.astype(np.float64) if weighted and L.in_weights is not None
                  else xp.ones(L.in_indices.shape[0], dtype=np.float64))
        limit = MATRIX_ARCS[ctx.backend]
        if int(L.in_indices.shape[0]) <= limit:  # one block: the rank's CSC rows as they are
            spans, offsets = [(0, L.size)], None
        else:
            offsets = np.asarray(to_host(ctx, L.in_offsets), dtype=np.int64)
            spans = row_blocks(offsets, limit)
        blocks = []
        for a, b in spans:
            if offsets is None:
                first, last, rows = 0, int(L.in_indices.shape[0]), L.in_offsets
            else:
                first, last = int(offsets[a]), int(offsets[b])
                rows = xp.asarray(offsets[a:b + 1] - first)
            if ctx.backend == "cuda":
                import cupyx.scipy.sparse as sparse

                indices = L.in_indices[first:last].astype(np.int32, copy=False)
                block = sparse.csr_matrix((values[first:last], indices, rows.astype(np.int32)), shape=(b - a, L.n))
            else:
                import scipy.sparse as sparse

                block = sparse.csr_array((values[first:last], L.in_indices[first:last], rows), shape=(b - a, L.n))
            blocks.append(block)
        ctx.cache[key] = blocks
    return blocks


def _product(xp: Any, blocks: list[Any], x: Any) -> Any:
    """A @ x over the row blocks of A."""
    if len(blocks) == 1:
        return blocks[0] @ x
    return xp.concatenate([block @ x for block in blocks])


def _out_weight(ctx: Any, L: Any, weighted: bool) -> Any:
    xp = ctx.xp
    if not weighted or L.weights is None:
        return L.out_degree.astype(np.float64)
    sums = xp.concatenate((xp.zeros(1), xp.cumsum(L.weights.astype(np.float64))))
    return sums[L.offsets[1:]] - sums[L.offsets[:-1]]


def _pagerank_rank(ctx: Any, part: Any, alpha: float, max_iter: int, tol: float, weighted: bool, p: Any, d: Any,
                   x0: Any) -> tuple:
    xp, comm = ctx.xp, ctx.comm
    L = local(ctx, part)
    n, size = L.n, L.size
    A = _matrix(ctx, L, weighted)
    out_weight = _out_weight(ctx, L, weighted)
    dangling = out_weight == 0
    inv = xp.where(dangling, 0.0, 1.0 / xp.where(dangling, 1.0, out_weight))
    uniform = 1.0 / n
    p = xp.full(size, uniform) if p is None else xp.asarray(p)
    d = p if d is None else xp.asarray(d)
    x = xp.full(size, uniform) if x0 is None else xp.asarray(x0, dtype=np.float64)
    teleport = (1.0 - alpha) * p
    err, rows = float("inf"), []
    for iteration in range(max_iter):
        tick = time.perf_counter()
        contrib = comm.allgatherv(x * inv, L.counts)
        mass = comm.allreduce(x[dangling].sum().reshape(1), "sum")
        new = alpha * _product(xp, A, contrib) + teleport
        new += (alpha * mass[0]) * d
        change = comm.allreduce(xp.abs(new - x).sum().reshape(1), "sum")
        x = new
        err = float(to_host(ctx, change)[0])
        rows.append(dict(strategy="direction=pull,drive=topology", path="sync-pull-td", frontier_vertices=n,
                         frontier_edges=0, edges_processed=0, seconds=time.perf_counter() - tick, decision="pull",
                         reason=f"L1 change {err:.3g} vs N*tol {n * tol:.3g}"))
        if err < n * tol:
            return to_host(ctx, x), iteration + 1, err, rows
    return to_host(ctx, x), max_iter, err, rows

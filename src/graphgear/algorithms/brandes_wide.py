"""Brandes' algorithm with path counts past float64's range, for the sources whose counts overflow it.

The number of shortest paths sigma[v] grows like a binomial coefficient on a lattice: from a corner of a k x k grid to
the opposite one there are C(2k - 2, k - 1) of them, more than float64's largest value (1.8e308) once k passes ~515.
Brandes' sums then hold inf, the dependencies sigma[u] / sigma[v] * (1 + delta[v]) become inf / inf or inf * 0, and
the centrality comes back NaN (networkx's float counts do the same). Only the ratios of counts along a shortest-path
arc matter, and each lies in (0, 1], so the fix is range, not precision: here sigma is a float64 mantissa with an
int64 binary exponent of its own (sigma = m * 2^e, m in [0.5, 1)), the sum of two such is formed at the larger
exponent, and the ratio along an arc is m_u / m_v * 2^(e_u - e_v).

WideBrandes  one sequential Brandes per source over the same shortest-path DAG as the parallel phases: BFS levels
             (unweighted) or Dijkstra's float64 distances with the tight arcs D[u] + w == D[v] compared exactly
             (weighted, as betweenness_weighted.py and networkx compare them), path counts in Kahn's order over the
             tight arcs (zero-length arcs included), dependencies in the reverse of that order.

It runs on the host (numba) and only where the parallel run's centrality came back non-finite, which every overflow
leaves (a vertex whose count is inf gets delta = inf * acc, NaN where acc is 0); betweenness.py then recounts every
source with it. The cost is a sequential O(V + E) pass per source (O(E log V) weighted), the sources one per thread.
"""

from __future__ import annotations

import heapq
import math

import numba
import numpy as np

from .. import memory
from ..graph.graph import Graph
from .betweenness_weighted import zero_length_cycle

__all__ = ["wide_brandes"]

_NO_EXPONENT = -(1 << 62)  # the exponent of a zero count: any other count's exponent is larger


@numba.njit(nogil=True)
def _add_count(m, e, v, mu, eu):  # pragma: no cover - numba
    """sigma[v] += sigma_u for sigma = m * 2^e, kept normalised (m in [0.5, 1))."""
    top = max(e[v], eu)
    total = math.ldexp(m[v], max(e[v] - top, -1100)) + math.ldexp(mu, max(eu - top, -1100))
    frac, exp = math.frexp(total)
    m[v] = frac
    e[v] = top + exp


@numba.njit(nogil=True)
def _tight(offsets, indices, weights, weighted, dist, s, u, a):  # pragma: no cover - numba
    """Whether arc a out of u lies on a shortest path from s (ShortestPathDAG): D[u] + w == D[v] in float64, never
    into s, never a self-loop."""
    v = indices[a]
    w = np.float64(weights[a]) if weighted else 1.0
    return v != s and v != u and dist[u] + w == dist[v]


@numba.njit(cache=True, nogil=True)
def _wide_single_source(offsets, indices, weights, weighted, s, dist, m, e, pending, order, delta, bc,
                        endpoint):  # pragma: no cover - numba
    """One source's WideBrandes, adding its dependencies (+ endpoint per reached vertex) to bc. Returns the vertices
    reached, s included, or -1 - v when vertex v is reached only through a cycle of zero length."""
    n = offsets.size - 1
    for v in range(n):
        dist[v] = np.inf
        m[v] = 0.0
        e[v] = _NO_EXPONENT
        pending[v] = 0
        delta[v] = 0.0
    dist[s] = 0.0
    reached = 0
    if weighted:  # Dijkstra's distances (a lazy-deletion heap)
        heap = [(0.0, np.int64(s))]
        while len(heap) > 0:
            du, u = heapq.heappop(heap)
            if du > dist[u]:
                continue
            for a in range(offsets[u], offsets[u + 1]):
                v = indices[a]
                dv = du + np.float64(weights[a])
                if dv < dist[v]:
                    dist[v] = dv
                    heapq.heappush(heap, (dv, np.int64(v)))
    else:  # BFS levels (order doubles as the queue)
        order[0] = s
        tail = 1
        for head in range(n):
            if head == tail:
                break
            u = order[head]
            for a in range(offsets[u], offsets[u + 1]):
                v = indices[a]
                if dist[v] == np.inf:
                    dist[v] = dist[u] + 1.0
                    order[tail] = v
                    tail += 1
    for u in range(n):  # the tight in-arcs of each vertex
        if dist[u] == np.inf:
            continue
        reached += 1
        for a in range(offsets[u], offsets[u + 1]):
            if _tight(offsets, indices, weights, weighted, dist, s, u, a):
                pending[indices[a]] += 1
    m[s] = 0.5
    e[s] = 1  # sigma[s] = 1
    order[0] = s
    tail = 1
    head = 0
    while head < tail:  # PathCounting in Kahn's order
        u = order[head]
        head += 1
        for a in range(offsets[u], offsets[u + 1]):
            if _tight(offsets, indices, weights, weighted, dist, s, u, a):
                v = indices[a]
                _add_count(m, e, v, m[u], e[u])
                pending[v] -= 1
                if pending[v] == 0:
                    order[tail] = v
                    tail += 1
    if tail != reached:
        for v in range(n):
            if dist[v] < np.inf and pending[v] > 0:
                return -1 - v
    for i in range(tail - 1, 0, -1):  # Dependencies, the reverse of Kahn's order
        u = order[i]
        acc = 0.0
        for a in range(offsets[u], offsets[u + 1]):
            if _tight(offsets, indices, weights, weighted, dist, s, u, a):
                v = indices[a]
                acc += math.ldexp(m[u] / m[v], max(min(e[u] - e[v], 0), -1100)) * (1.0 + delta[v])
        delta[u] = acc
        bc[u] += acc + endpoint
    bc[s] += endpoint * (tail - 1)
    return tail


@numba.njit(cache=True, nogil=True, parallel=True)
def _wide_sources(offsets, indices, weights, weighted, sources, dist, m, e, pending, order, delta, out,
                  endpoint, got):  # pragma: no cover - numba
    """WideBrandes for a batch of sources at once, source i on row i of every scratch array and of `out`."""
    for i in numba.prange(sources.size):
        got[i] = _wide_single_source(offsets, indices, weights, weighted, sources[i], dist[i], m[i], e[i],
                                     pending[i], order[i], delta[i], out[i], endpoint)


def wide_brandes(graph: Graph, sources: list[int], *, weighted: bool, endpoints: bool) -> np.ndarray:
    """The summed dependencies of `sources` (internal ids) with wide-range path counts, as float64 per vertex before
    networkx's rescaling. `graph` is the view the parallel phases ran on (parallel arcs once; weighted: self-loops
    dropped and each pair's smallest weight). The sources run a batch at a time, one per thread, as many as the
    threads and a quarter of the free memory allow (56 bytes a vertex each). GraphError
    (betweenness_weighted.zero_length_cycle) where a shortest path runs through a cycle of zero length."""
    n = graph.num_vertices
    bc = np.zeros(n, dtype=np.float64)
    if not sources or n == 0:
        return bc
    room = memory.available_bytes()
    batch = min(numba.get_num_threads(), len(sources))
    if room is not None:
        batch = max(1, min(batch, room // 4 // (56 * n)))
    memory.require(56 * n * batch, f"the wide-range recount of betweenness ({batch} source(s) at once, {n:,} vertices)")
    dist, m, delta, out = (np.empty((batch, n), dtype=np.float64) for _ in range(4))
    e, pending, order = (np.empty((batch, n), dtype=np.int64) for _ in range(3))
    got = np.empty(batch, dtype=np.int64)
    weights = graph.weights if weighted else np.zeros(1, dtype=np.float32)
    ids = np.asarray(sources, dtype=np.int64)
    for lo in range(0, ids.size, batch):
        part = ids[lo:lo + batch]
        out[:part.size].fill(0.0)
        _wide_sources(graph.offsets, graph.indices, weights, weighted, part, dist, m, e, pending, order, delta, out,
                      1.0 if endpoints else 0.0, got)
        for i, (s, code) in enumerate(zip(part.tolist(), got[:part.size].tolist())):
            if code < 0:
                raise zero_length_cycle(graph, s, -1 - code, float(dist[i, -1 - code]))
        bc += out[:part.size].sum(axis=0)
    return bc

"""Reference verifiers: one beside each algorithm, as GAP keeps one beside each kernel (gapbs src/bfs.cc BFSVerifier,
sssp.cc SSSPVerifier, pr.cc PRVerifier, cc.cc CCVerifier, bc.cc BCVerifier).

Each verifier recomputes the answer with an independent serial reference (a Python loop over the Graph's CSR, or
NumPy/SciPy) and compares it with a result's public array (``BFSResult.distances``, ``ComponentsResult.labels``, ...).
They share no code with graphgear's kernels, backends, operators or algorithm modules: a bug in a shared helper (a
source resolved wrongly, a CSR view built wrongly, a rescaling copied from the kernel) would be a bug in both and go
unseen, so the only things taken from graphgear are the Graph's arrays and flags (``offsets``, ``indices``,
``weights``, ``directed``; ``vertex_ids`` for the messages) and the error class. That is also why they live in one module rather than beside each algorithm in its
own file: the algorithm modules import the backends and the kernels, and a verifier must not. The tests and
``graphgear run --verify`` use them.

Every verifier returns None when the result is right and raises `VerificationError` otherwise; the message names the
first wrong vertex, the value found and the value expected, and how many vertices disagree. Vertices are internal
indices 0..V-1 (the result arrays' own), with the graph's label beside them where it has labels. The references are
serial and meant for graphs up to some millions of edges (seconds); BC runs one serial Brandes per source.

Semantics followed (graphgear's, which are NetworkX's):

- bfs: hop counts from `source` along out-arcs, -1 unreached; with `depth_limit`, vertices farther away are unreached.
  GAP's edge checks on the predecessors: the source has none (-1), an unreached vertex none, and every other vertex's
  predecessor has an arc to it and lies one level up.
- sssp: SciPy's Dijkstra over the arcs (parallel arcs: the lightest), distances compared exactly (float64; inf
  unreached); with `cutoff`, a distance above it is unreached, one equal to it kept (networkx's cutoff).
- pagerank: networkx.pagerank's iteration (dangling vertices send their rank to the personalization vector, parallel
  arcs add up) run to a tolerance 1000 times tighter; accepted when the L1 distance is within N * tol / (1 - alpha).
- cc / scc: the partition of scipy.sparse.csgraph.connected_components, weak / strong (the numbering may differ).
- bc: serial Brandes (BFS, or Dijkstra over the weights) over the given sources, or `k` sources sampled as networkx
  samples them (random.Random(seed).sample), rescaled as networkx.betweenness_centrality rescales; rtol 1e-9.
- color propagation: colors[v] = the largest vertex index that reaches v along arcs (v itself included).
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..errors import VerificationError

if TYPE_CHECKING:  # pragma: no cover
    from ..graph.graph import Graph

__all__ = [
    "VerificationError",
    "verify_bfs",
    "verify_sssp",
    "verify_pagerank",
    "verify_connected_components",
    "verify_scc",
    "verify_betweenness",
    "verify_color_propagation",
]


# ------------------------------------------------------------------------------------------------------- helpers
def _vertex(graph: Graph, v: int) -> str:
    """``vertex 17``, with its label where the graph has labels (``vertex 17 ('alice')``)."""
    labels = getattr(graph, "vertex_ids", None)
    return f"vertex {v}" if labels is None else f"vertex {v} ({_shown(labels[v])})"


def _shown(value: Any) -> str:
    return repr(value.item() if isinstance(value, np.generic) else value)


def _fail(graph: Graph, algorithm: str, what: str, wrong: np.ndarray, found: np.ndarray,
          expected: np.ndarray | Callable[[int], str]) -> None:
    """Raise VerificationError for the vertices where `wrong` holds, if any: the first of them, its value in `found`
    and in `expected` (an array, or a function of the vertex that says what was expected), and how many."""
    bad = np.flatnonzero(wrong)
    if bad.size == 0:
        return
    v = int(bad[0])
    want = expected(v) if callable(expected) else _shown(expected[v])
    raise VerificationError(
        f"{algorithm}: {_vertex(graph, v)}: {what} {_shown(found[v])}, expected {want} "
        f"({bad.size:,} of {graph.num_vertices:,} vertices disagree)",
        vertex=v, found=found[v], expected=None if callable(expected) else expected[v], count=int(bad.size))


def _values(graph: Graph, algorithm: str, values: Any) -> np.ndarray:
    """The result array on the host, refused (VerificationError) unless it has one value per vertex."""
    values = np.asarray(values)
    if values.shape != (graph.num_vertices,):
        raise VerificationError(f"{algorithm}: {values.shape} values for {graph.num_vertices:,} vertices",
                                count=graph.num_vertices)
    return values


def _rows(graph: Graph) -> np.ndarray:
    """The source vertex of every stored arc."""
    return np.repeat(np.arange(graph.num_vertices, dtype=np.int64), np.diff(graph.offsets))


def _simple_arcs(graph: Graph, weighted: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, targets, float64 weights) of the graph without self-loops and with one arc per (u, v): the lightest
    of parallel arcs (1.0 each where not `weighted` or the graph has no weights)."""
    n = graph.num_vertices
    rows, cols = _rows(graph), np.asarray(graph.indices, dtype=np.int64)
    w = (np.asarray(graph.weights, dtype=np.float64) if weighted and graph.weights is not None
         else np.ones(cols.size))
    keep = rows != cols
    rows, cols, w = rows[keep], cols[keep], w[keep]
    order = np.lexsort((w, cols, rows))  # by row, then target, then weight: the lightest parallel arc first
    rows, cols, w = rows[order], cols[order], w[order]
    first = np.ones(rows.size, dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    rows, cols, w = rows[first], cols[first], w[first]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=offsets[1:])
    return offsets, cols, w


def _scipy_matrix(graph: Graph, weighted: bool) -> Any:
    """The simple graph (`_simple_arcs`) as a SciPy CSR array; explicit zero weights stay arcs."""
    import scipy.sparse as sp

    offsets, cols, w = _simple_arcs(graph, weighted)
    n = graph.num_vertices
    return sp.csr_array((w, cols, offsets), shape=(n, n))


# ---------------------------------------------------------------------------------------------------------- BFS
def _search(offsets: list[int], indices: np.ndarray, marks: list[int], start: int, step: int,
            depth_limit: int | None = None) -> None:
    """The serial BFS the BFS and colour verifiers run: from `start` (marked already), every vertex still unmarked
    (-1) that it reaches gets its parent's mark + `step` (1: hop counts; 0: the start's mark, a colour); a mark past
    `depth_limit` is not given."""
    queue = deque([start])
    while queue:
        u = queue.popleft()
        mark = marks[u] + step
        if depth_limit is not None and mark > depth_limit:
            continue
        for v in indices[offsets[u]:offsets[u + 1]].tolist():
            if marks[v] < 0:
                marks[v] = mark
                queue.append(v)


def verify_bfs(graph: Graph, source: int, distances: Any, depth_limit: int | None = None,
               predecessors: Any = None) -> None:
    """Check BFS hop counts from internal vertex `source` (-1 unreached; farther than `depth_limit` unreached) against a
    serial BFS with a deque; with `predecessors`, also GAP's edge checks of the BFS tree (the source and unreached
    vertices have -1; every other vertex's predecessor has an arc to it and lies one level up)."""
    found = _values(graph, "bfs", distances)
    n = graph.num_vertices
    dist = [-1] * n  # Python lists: a serial loop reads them faster than NumPy arrays
    dist[source] = 0
    _search(graph.offsets.tolist(), graph.indices, dist, source, 1, depth_limit)
    expected = np.array(dist, dtype=np.int64)
    _fail(graph, "bfs", "distance", found != expected, found, expected)
    if predecessors is None:
        return
    pred = _values(graph, "bfs", predecessors).astype(np.int64)
    unreached = expected < 0
    unreached[source] = True  # the source has no predecessor either
    _fail(graph, "bfs", "predecessor", unreached & (pred != -1), pred, lambda v: "-1 (none)")
    tree = np.flatnonzero(~unreached)
    p = pred[tree]
    valid = (p >= 0) & (p < n)
    arcs = np.unique(_rows(graph) * n + graph.indices)  # every arc u -> v as the key u * n + v
    keys = np.where(valid, p, 0) * n + tree
    has_arc = valid & (arcs[np.searchsorted(arcs, keys).clip(max=arcs.size - 1)] == keys) if arcs.size else valid & False
    one_up = valid & (expected[np.where(valid, p, 0)] == expected[tree] - 1)
    wrong = np.zeros(n, dtype=bool)
    wrong[tree[~(has_arc & one_up)]] = True
    _fail(graph, "bfs", "predecessor", wrong, pred,
          lambda v: f"a vertex at distance {expected[v] - 1} with an arc to vertex {v}")


# --------------------------------------------------------------------------------------------------------- SSSP
def verify_sssp(graph: Graph, source: int, distances: Any, cutoff: float | None = None, weighted: bool = True) -> None:
    """Check shortest-path distances from internal vertex `source` (float64, inf unreached) against SciPy's Dijkstra,
    exactly: over the graph's weights when `weighted` and it has them, else hop counts (sssp's weight=None); with
    `cutoff`, a distance above it is expected unreached."""
    from scipy.sparse import csgraph

    found = _values(graph, "sssp", distances).astype(np.float64)
    matrix = _scipy_matrix(graph, weighted)
    expected = csgraph.dijkstra(matrix, directed=True, indices=source, unweighted=not weighted or not graph.weighted)
    if cutoff is not None:
        expected[expected > cutoff] = np.inf
    same = (found == expected) | (np.isinf(found) & np.isinf(expected) & (found > 0))
    _fail(graph, "sssp", "distance", ~same, found, expected)


# ----------------------------------------------------------------------------------------------------- PageRank
def verify_pagerank(graph: Graph, ranks: Any, alpha: float = 0.85, tol: float = 1e-6, weighted: bool = True,
                    personalization: Any = None) -> None:
    """Check PageRank against networkx.pagerank's power iteration (SciPy sparse; weights shared in proportion when
    `weighted`, parallel arcs adding up; dangling vertices sending their rank along `personalization`, an array of V
    non-negative values, uniform when None) run until its L1 step is below N * tol / 1000.

    networkx stops when one step changes the ranks by less than N * tol in L1; the map contracts by alpha, so its answer
    (and graphgear's power iteration's) lies within alpha / (1 - alpha) * N * tol of the fixed point, and graphgear's
    delta method guarantees N * tol. Accepted: L1 distance <= N * tol / (1 - alpha) (1000 * N * tol at alpha = 1, where
    nothing contracts). When it is exceeded, the vertex farthest off is named (a single rank may be off by more than
    its share of the bound in a right answer, so no vertex is "the first wrong" one), and the vertices off by more than
    their share (bound / N) are counted."""
    import scipy.sparse as sp

    found = _values(graph, "pagerank", ranks).astype(np.float64)
    n = graph.num_vertices
    if n == 0:
        return
    w = (np.asarray(graph.weights, dtype=np.float64) if weighted and graph.weights is not None
         else np.ones(graph.indices.size))
    a = sp.csr_array((w, graph.indices, graph.offsets), shape=(n, n))  # parallel arcs add up in the products
    out_weight = np.asarray(a.sum(axis=1)).ravel()
    share = np.divide(1.0, out_weight, out=np.zeros(n), where=out_weight != 0)
    transition = sp.csr_array(sp.diags_array(share) @ a)
    dangling = out_weight == 0
    p = np.full(n, 1.0 / n) if personalization is None else np.asarray(personalization, dtype=np.float64)
    p = p / p.sum()
    x = np.full(n, 1.0 / n)
    for _ in range(10_000):
        last = x
        x = alpha * (last @ transition + last[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - last).sum() < n * tol / 1000:
            break
    bound = n * tol * min(1 / (1 - alpha) if alpha < 1 else np.inf, 1000.0)
    error = np.abs(found - x)
    if not error.sum() <= bound:  # NaN fails too
        v = int(np.argmax(np.where(np.isnan(error), np.inf, error)))
        count = int((~(error <= bound / n)).sum())
        raise VerificationError(
            f"pagerank: {_vertex(graph, v)}: rank {_shown(found[v])}, expected {_shown(x[v])}, the farthest off ({count:,} "
            f"of {n:,} vertices disagree by more than {bound / n:.3g}; L1 distance {error.sum():.3g} > {bound:.3g})",
            vertex=v, found=found[v], expected=x[v], count=count)


# --------------------------------------------------------------------------------------------------- components
def _same_partition(graph: Graph, algorithm: str, labels: Any, expected: np.ndarray) -> None:
    """Check that `labels` group the vertices as `expected` does (numbers aside): each vertex is compared by the
    smallest vertex of its group in either labelling."""
    found = _values(graph, algorithm, labels)

    def smallest_member(values: np.ndarray) -> np.ndarray:
        _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
        return first[inverse.ravel()]

    have, want = smallest_member(found), smallest_member(expected)

    def expected_label(v: int) -> str:
        text = f"the label of vertex {want[v]}, the smallest vertex of its component"
        return text + (f", not one shared with vertex {have[v]}, which lies outside it" if have[v] < want[v] else "")

    _fail(graph, algorithm, "label", have != want, found, expected_label)


def verify_connected_components(graph: Graph, labels: Any) -> None:
    """Check connected-component labels (weak components of a directed graph) against the partition of
    scipy.sparse.csgraph.connected_components(connection="weak"); any numbering of the components passes."""
    from scipy.sparse import csgraph

    _, expected = csgraph.connected_components(_scipy_matrix(graph, False), directed=True, connection="weak")
    _same_partition(graph, "connected components", labels, expected)


def verify_scc(graph: Graph, labels: Any) -> None:
    """Check strongly connected component labels against the partition of
    scipy.sparse.csgraph.connected_components(connection="strong"); any numbering of the components passes."""
    from scipy.sparse import csgraph

    _, expected = csgraph.connected_components(_scipy_matrix(graph, False), directed=True, connection="strong")
    _same_partition(graph, "strongly connected components", labels, expected)


# -------------------------------------------------------------------------------------------------- betweenness
def _brandes(offsets: list[int], targets: np.ndarray, weights: np.ndarray, s: int, weighted: bool,
             bc: np.ndarray, endpoints: bool) -> None:
    """Brandes (2001) from source s on a simple graph, serially: BFS (or Dijkstra with a heap when `weighted`, ties where
    the float64 sums are equal) counting shortest paths, then dependencies accumulated in reverse order into bc."""
    n = len(offsets) - 1
    # sigma in Python integers: exact past float64's range (a lattice's counts pass 1.8e308), and int / int is a
    # correctly rounded float however large the two
    sigma = [0] * n
    dist = [np.inf] * n
    preds: list[list[int]] = [[] for _ in range(n)]
    order: list[int] = []  # Brandes' stack: the vertices by non-decreasing distance
    sigma[s], dist[s] = 1, 0.0
    if not weighted:
        queue = deque([s])
        while queue:
            u = queue.popleft()
            order.append(u)
            for v in targets[offsets[u]:offsets[u + 1]].tolist():
                if dist[v] == np.inf:
                    dist[v] = dist[u] + 1
                    queue.append(v)
                if dist[v] == dist[u] + 1:
                    sigma[v] += sigma[u]
                    preds[v].append(u)
    else:
        done = [False] * n
        heap = [(0.0, s)]
        while heap:
            d, u = heapq.heappop(heap)
            if done[u] or d > dist[u]:
                continue
            done[u] = True
            order.append(u)
            lo, hi = offsets[u], offsets[u + 1]
            for v, w in zip(targets[lo:hi].tolist(), weights[lo:hi].tolist()):
                length = d + w
                if length < dist[v]:
                    dist[v], sigma[v], preds[v] = length, sigma[u], [u]
                    heapq.heappush(heap, (length, v))
                elif length == dist[v] and not done[v]:
                    sigma[v] += sigma[u]
                    preds[v].append(u)
    delta = [0.0] * n
    if endpoints:
        bc[s] += len(order) - 1
    for v in reversed(order):
        for u in preds[v]:
            delta[u] += sigma[u] / sigma[v] * (1.0 + delta[v])
        if v != s:
            bc[v] += delta[v] + (1.0 if endpoints else 0.0)


def verify_betweenness(graph: Graph, values: Any, sources: Any = None, *, k: int | None = None, seed: int | None = None,
                       normalized: bool = True, endpoints: bool = False, weighted: bool = False) -> None:
    """Check betweenness centrality against a serial Brandes over `sources` (internal indices; all vertices when None
    and `k` is None), or over `k` sources sampled as networkx samples them (random.Random(seed).sample of the vertices;
    k = V is the exact computation), rescaled as networkx.betweenness_centrality rescales (normalized, endpoints, the
    sampled sources apart from the others). Shortest paths count hops, or the graph's weights when `weighted`; parallel
    arcs count once and self-loops never lie on a shortest path. Compared with rtol 1e-9 (NaN where networkx gives it,
    at the sampled source when k = 1)."""
    found = _values(graph, "betweenness", values).astype(np.float64)
    n = graph.num_vertices
    sampled = None
    if sources is None:
        if k is not None and k < n:
            sources = sampled = random.Random(seed).sample(range(n), k)
        else:
            sources = range(n)
    offsets, targets, weights = _simple_arcs(graph, weighted)
    offsets = offsets.tolist()
    bc = np.zeros(n)
    for s in sources:
        _brandes(offsets, targets, weights, int(s), weighted and graph.weighted, bc, endpoints)
    pairs = n if endpoints else n - 1  # networkx's N in _rescale
    if pairs >= 2:
        scale_of = (lambda count: 1 / (count * (pairs - 1))) if normalized else \
            (lambda count: pairs / (count * (1 if graph.directed else 2)))
        if sampled is None or endpoints:
            bc *= scale_of(pairs if sampled is None else len(sampled))
        else:
            is_source = np.zeros(n, dtype=bool)
            is_source[sampled] = True
            bc[~is_source] *= scale_of(len(sampled))
            bc[is_source] *= scale_of(len(sampled) - 1) if len(sampled) > 1 else np.nan
    atol = 1e-12 * float(np.nanmax(np.abs(bc), initial=0.0))
    close = np.isclose(found, bc, rtol=1e-9, atol=atol, equal_nan=True)
    _fail(graph, "betweenness", "centrality", ~close, found, bc)


# -------------------------------------------------------------------------------------------- color propagation
def verify_color_propagation(graph: Graph, colors: Any) -> None:
    """Check colors[v] = the largest vertex index that reaches v along arcs (v included): a serial BFS from every
    vertex in decreasing order, each claiming the vertices no larger one reached (a vertex a larger one reached has
    its whole reach claimed already, so the search stops there: every arc is looked at once)."""
    found = _values(graph, "color propagation", colors)
    n = graph.num_vertices
    color = [-1] * n
    offsets, indices = graph.offsets.tolist(), graph.indices
    for top in range(n - 1, -1, -1):
        if color[top] >= 0:
            continue
        color[top] = top
        _search(offsets, indices, color, top, 0)
    expected = np.array(color, dtype=np.int64)
    _fail(graph, "color propagation", "color", found != expected, found, expected)

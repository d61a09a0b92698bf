"""Reference implementations the benchmarks compare against, and the agreement checks: exact for distances and
partitions, to tolerance for PageRank and betweenness.

The fastest reference that has the algorithm, named in each row: SciPy's csgraph for BFS (breadth_first_order),
SSSP (dijkstra), CC and SCC (connected_components), and for PageRank a SciPy sparse power iteration of networkx's
definition (networkx.pagerank's own scipy code path: the same iterate, stopping rule and dangling vertices, without
building a networkx graph); igraph as a second reference where it is installed; NetworkX only where nothing faster
has the algorithm (betweenness with sampled sources, whose sampling graphgear follows); color propagation against a
NumPy fixpoint. Each reference is timed as graphgear is (`time_runs`), but NetworkX once (it takes seconds to minutes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Reference", "references", "agreement", "output_of", "BC_SAMPLES", "pagerank_power", "tree_depths"]

BC_SAMPLES = 8  # betweenness in the smoke suite samples this many sources (seeded), networkx samples the same ones


@dataclass(frozen=True)
class Reference:
    """A reference library's run of the same computation: name (library and function), a callable returning
    per-vertex output, and whether it is slow enough to time once (NetworkX)."""

    name: str
    run: Callable[[], Any]
    slow: bool = False


def _nx(graph: Any) -> Any:
    return graph.to_networkx()


def references(algorithm: str, graph: Any, source: int) -> list[Reference]:
    """The references for one (algorithm, graph) case; each `run` returns an array comparable by `agreement`."""
    from scipy.sparse import csgraph

    matrix = graph.to_scipy()
    refs: list[Reference] = []
    if algorithm == "bfs":
        refs.append(Reference("scipy breadth_first_order", lambda: tree_depths(
            *csgraph.breadth_first_order(matrix, source, directed=graph.directed, return_predecessors=True))))
    elif algorithm == "sssp":
        if graph.weighted:
            refs.append(Reference("scipy dijkstra", lambda: csgraph.dijkstra(matrix, indices=source)))
        else:
            refs.append(Reference("scipy shortest_path (unweighted)",
                                  lambda: csgraph.shortest_path(matrix, indices=source, unweighted=True)))
    elif algorithm == "cc":
        refs.append(Reference("scipy connected_components (weak)",
                              lambda: csgraph.connected_components(matrix, graph.directed, "weak")[1]))
    elif algorithm == "scc":
        refs.append(Reference("scipy connected_components (strong)",
                              lambda: csgraph.connected_components(matrix, True, "strong")[1]))
    elif algorithm == "pagerank":
        refs.append(Reference("scipy power iteration (networkx.pagerank)", lambda: pagerank_power(matrix)))
    elif algorithm == "bc":
        import networkx as nx

        nxg = _nx(graph)
        k = min(BC_SAMPLES, graph.num_vertices)
        refs.append(Reference("networkx betweenness_centrality", slow=True, run=lambda: np.array(
            list(nx.betweenness_centrality(nxg, k=k, seed=0).values()))))
    elif algorithm == "color":
        refs.append(Reference("numpy max-label fixpoint", lambda: _max_label_fixpoint(graph)))
    try:  # igraph, where installed
        import igraph  # noqa: F401

        refs.extend(_igraph_references(algorithm, graph, source))
    except ImportError:
        pass
    return refs


def tree_depths(order: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Hop distances (inf where unreached) from a BFS tree as SciPy's breadth_first_order returns it (the visiting
    order and each vertex's parent, -9999 for none), by pointer jumping: log(depth) vectorised rounds."""
    n = pred.shape[0]
    parent = np.where(pred >= 0, pred, -1).astype(np.int64)
    depth = (parent >= 0).astype(np.int64)
    jump = parent.copy()
    while True:
        up = np.flatnonzero(jump >= 0)
        if up.size == 0:
            break
        depth[up], jump[up] = depth[up] + depth[jump[up]], jump[jump[up]]
    out = np.full(n, np.inf)
    out[order] = depth[order]
    return out


def pagerank_power(matrix: Any, alpha: float = 0.85, max_iter: int = 100, tol: float = 1.0e-6) -> np.ndarray:
    """networkx.pagerank (its scipy code path, networkx 3) on a SciPy CSR matrix of arc weights: the power iteration
    x = alpha (x A_rownormalised + x[dangling].sum() / N) + (1 - alpha) / N from the uniform vector, until the L1
    change is below N * tol."""
    import scipy.sparse as sp

    n = matrix.shape[0]
    if n == 0:
        return np.zeros(0)
    a = sp.csr_array(matrix, dtype=np.float64)
    out_weight = np.asarray(a.sum(axis=1)).ravel()
    scale = np.divide(1.0, out_weight, out=np.zeros(n), where=out_weight != 0)
    a = sp.csr_array(sp.diags_array(scale) @ a)
    dangling = np.flatnonzero(out_weight == 0)
    p = np.full(n, 1.0 / n)
    x = p.copy()
    for _ in range(max_iter):
        last = x
        x = alpha * (x @ a + last[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - last).sum() < n * tol:
            return x
    return x


def _max_label_fixpoint(graph: Any) -> np.ndarray:
    """colors[v] = max id reaching v: vectorised max-propagation over all arcs until nothing changes."""
    rows = np.repeat(np.arange(graph.num_vertices), graph.out_degree())
    cols = graph.indices.astype(np.int64)
    colors = np.arange(graph.num_vertices, dtype=np.int64)
    while True:
        new = colors.copy()
        np.maximum.at(new, cols, colors[rows])
        if np.array_equal(new, colors):
            return colors
        colors = new


def _igraph_references(algorithm: str, graph: Any, source: int) -> list[Reference]:  # pragma: no cover - optional
    import igraph

    rows = np.repeat(np.arange(graph.num_vertices), graph.out_degree())
    edges = list(zip(rows.tolist(), graph.indices.tolist()))
    ig = igraph.Graph(n=graph.num_vertices, edges=edges, directed=True)
    if algorithm == "bfs":
        return [Reference("igraph distances",
                          lambda: np.array(ig.distances(source=source, mode="out")[0], dtype=float))]
    if algorithm == "cc":
        return [Reference("igraph connected_components (weak)",
                          lambda: np.array(ig.connected_components(mode="weak").membership))]
    if algorithm == "scc":
        return [Reference("igraph connected_components (strong)",
                          lambda: np.array(ig.connected_components(mode="strong").membership))]
    return []


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    from ..algorithms._common import canonical_labels

    return bool(np.array_equal(canonical_labels(np.asarray(a)), canonical_labels(np.asarray(b))))


def output_of(algorithm: str, result: Any) -> Any:
    """A graphgear result's output in the form the references give theirs: float distances with inf where unreached
    (BFS's -1 included), labels, ranks, centrality or colours."""
    if algorithm in ("bfs", "sssp"):
        d = np.asarray(result.distances, dtype=np.float64)
        return np.where(d < 0, np.inf, d) if algorithm == "bfs" else d
    attribute = {"cc": "labels", "scc": "labels", "pagerank": "ranks", "bc": "centrality", "color": "colors"}
    return getattr(result, attribute[algorithm])


def pagerank_agreement(ranks: Any, expected: Any, tol: float, alpha: float = 0.85) -> tuple[bool, str]:
    """(agrees, detail) between two PageRank vectors that each met networkx's stopping rule at `tol` (an L1 change
    below N * tol): such an iterate lies within alpha / (1 - alpha) times that change of the fixed point, so two
    methods, or two paths, may end that far apart each way."""
    expected = np.asarray(expected)
    bound = 2 * alpha / (1 - alpha) * expected.size * tol
    l1 = float(np.abs(np.asarray(ranks) - expected).sum())
    return l1 <= bound, f"L1 {l1:.1e} against the stopping rule's {bound:.1e}"


def agreement(algorithm: str, result: Any, expected: Any) -> tuple[bool, str]:
    """(agrees, detail) between a graphgear result and a reference's output."""
    expected = np.asarray(expected)
    if algorithm in ("bfs", "sssp"):
        ours = output_of(algorithm, result)
        same_reach = np.array_equal(np.isfinite(ours), np.isfinite(expected))
        finite = np.isfinite(expected)
        close = same_reach and np.allclose(ours[finite], expected[finite], rtol=1e-9, atol=0)
        return close, "distances equal" if close else "distances differ"
    if algorithm in ("cc", "scc"):
        same = _same_partition(result.labels, expected)
        return same, "same partition" if same else "partitions differ"
    if algorithm == "pagerank":
        l1 = float(np.abs(result.ranks - expected).sum())
        return l1 < 1e-6, f"L1 {l1:.1e}"
    if algorithm == "bc":
        ok = bool(np.allclose(result.centrality, expected, rtol=1e-6, atol=1e-12))
        return ok, "rtol 1e-6" if ok else f"max diff {np.abs(result.centrality - expected).max():.1e}"
    if algorithm == "color":
        same = bool(np.array_equal(result.colors, expected))
        return same, "equal" if same else "differ"
    return False, f"no check for {algorithm}"

"""Reference implementations the benchmarks compare against (SciPy, NetworkX; igraph where installed), and the
agreement checks: exact for distances and partitions, to tolerance for PageRank and betweenness."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Reference", "references", "agreement", "BC_SAMPLES"]

BC_SAMPLES = 8  # betweenness in the smoke suite samples this many sources (seeded), networkx samples the same ones


@dataclass(frozen=True)
class Reference:
    """A reference library's run of the same computation: name, a callable returning per-vertex output."""

    name: str
    run: Callable[[], Any]


def _nx(graph: Any) -> Any:
    return graph.to_networkx()


def references(algorithm: str, graph: Any, source: int) -> list[Reference]:
    """The references for one (algorithm, graph) case; each `run` returns an array comparable by `agreement`."""
    from scipy.sparse import csgraph

    matrix = graph.to_scipy()
    refs: list[Reference] = []
    if algorithm == "bfs":
        refs.append(Reference("scipy", lambda: csgraph.shortest_path(matrix, indices=source, unweighted=True)))
    elif algorithm == "sssp":
        if graph.weighted:
            refs.append(Reference("scipy", lambda: csgraph.dijkstra(matrix, indices=source)))
        else:
            refs.append(Reference("scipy", lambda: csgraph.shortest_path(matrix, indices=source, unweighted=True)))
    elif algorithm == "cc":
        refs.append(Reference("scipy", lambda: csgraph.connected_components(matrix, graph.directed, "weak")[1]))
    elif algorithm == "scc":
        refs.append(Reference("scipy", lambda: csgraph.connected_components(matrix, True, "strong")[1]))
    elif algorithm == "pagerank":
        import networkx as nx

        nxg = _nx(graph)
        refs.append(Reference("networkx", lambda: np.array(list(nx.pagerank(nxg).values()))))
    elif algorithm == "bc":
        import networkx as nx

        nxg = _nx(graph)
        k = min(BC_SAMPLES, graph.num_vertices)
        refs.append(Reference("networkx", lambda: np.array(list(nx.betweenness_centrality(nxg, k=k, seed=0).values()))))
    elif algorithm == "color":
        refs.append(Reference("numpy", lambda: _max_label_fixpoint(graph)))
    try:  # igraph, where installed
        import igraph  # noqa: F401

        refs.extend(_igraph_references(algorithm, graph, source))
    except ImportError:
        pass
    return refs


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
        return [Reference("igraph", lambda: np.array(ig.distances(source=source, mode="out")[0], dtype=float))]
    if algorithm == "cc":
        return [Reference("igraph", lambda: np.array(ig.connected_components(mode="weak").membership))]
    if algorithm == "scc":
        return [Reference("igraph", lambda: np.array(ig.connected_components(mode="strong").membership))]
    return []


def _same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    from ..algorithms._common import canonical_labels

    return bool(np.array_equal(canonical_labels(np.asarray(a)), canonical_labels(np.asarray(b))))


def agreement(algorithm: str, result: Any, expected: Any) -> tuple[bool, str]:
    """(agrees, detail) between a graphgear result and a reference's output."""
    expected = np.asarray(expected)
    if algorithm in ("bfs", "sssp"):
        ours = np.asarray(result.distances, dtype=np.float64)
        if algorithm == "bfs":
            ours = np.where(ours < 0, np.inf, ours)
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

"""The public algorithm functions (``import graphgear as gg; gg.bfs(g, 0)``): a stable contract for other tools.

Every function takes ``backend="auto"|"cpu"|"cuda"`` and ``strategy="auto"|"static"|"adaptive"|Strategy|str`` (a
Strategy's short form such as ``"direction=pull,drive=topology"``); every result has ``.trace`` (one row per
iteration) and ``.to_pandas()``. Argument names follow NetworkX and cuGraph. A graph argument may also be a file path
or a generator spec.
"""

from __future__ import annotations

import os
from typing import Any

from .errors import GraphError
from .graph.graph import Graph, described

__all__ = [
    "bfs",
    "sssp",
    "pagerank",
    "connected_components",
    "strongly_connected_components",
    "betweenness_centrality",
    "color_propagation",
    "ALGORITHMS",
]


def _graph(graph: Any) -> Graph:
    """The graph argument as a Graph: a Graph as it is, a path or a generator spec loaded (`graphgear.load`); a
    GraphError naming anything else (``gg.bfs(123, 0)``), which load would fail on with a bare TypeError."""
    if isinstance(graph, Graph):
        return graph
    if not isinstance(graph, (str, os.PathLike)):
        raise GraphError(f"expected a graphgear Graph, a file path or a generator spec, got {described(graph)}")
    from .graph.io import load

    return load(graph)


def bfs(graph: Any, source: Any, *, backend: Any = "auto", strategy: Any = "auto", layout: str = "auto") -> Any:
    """Breadth-first search from `source`: ``.distances`` (int64 hops, -1 unreachable) and ``.predecessors`` (-1 none).
    Top-down, bottom-up or direction-optimising by strategy; ``layout`` "degree" / "given" / "auto" as for pagerank
    (see `graphgear.algorithms.bfs`)."""
    from .algorithms.bfs import bfs as run

    return run(_graph(graph), source, backend=backend, strategy=strategy, layout=layout)


def sssp(graph: Any, source: Any, *, method: str = "auto", delta: float | None = None, backend: Any = "auto",
         strategy: Any = "auto", layout: str = "auto") -> Any:
    """Single-source shortest paths: ``.distances`` (float64, inf unreachable) and ``.predecessors``.
    ``method`` is "delta_stepping" (near-far), "bellman_ford" or "auto"; weights must be non-negative; an unweighted
    graph runs BFS; ``layout`` as for bfs."""
    from .algorithms.sssp import sssp as run

    return run(_graph(graph), source, method=method, delta=delta, backend=backend, strategy=strategy, layout=layout)


def pagerank(graph: Any, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100, personalization: Any = None, *,
             nstart: Any = None, dangling: Any = None, method: str = "auto", backend: Any = "auto",
             strategy: Any = "auto", layout: str = "auto") -> Any:
    """PageRank as networkx.pagerank defines it (alpha, max_iter, tol, personalization, dangling vertices):
    ``.ranks`` sums to 1. ``method`` is "power" (pull power iteration), "delta" (delta-based push) or "auto";
    ``layout`` "degree" runs the power iteration on the graph renumbered by degree, "given" on the ids as they are,
    "auto" picks degree for large power-law graphs."""
    from .algorithms.pagerank import pagerank as run

    return run(_graph(graph), alpha=alpha, tol=tol, max_iter=max_iter, personalization=personalization, nstart=nstart,
               dangling=dangling, method=method, backend=backend, strategy=strategy, layout=layout)


def connected_components(graph: Any, *, method: str = "auto", backend: Any = "auto", strategy: Any = "auto") -> Any:
    """Weakly connected components: ``.labels`` numbered 0..C-1. ``method`` is "label_propagation", "afforest" or
    "auto"."""
    from .algorithms.connected_components import connected_components as run

    return run(_graph(graph), method=method, backend=backend, strategy=strategy)


def strongly_connected_components(graph: Any, *, backend: Any = "auto", strategy: Any = "auto") -> Any:
    """Strongly connected components by Multistep (trim, forward-backward, coloring): ``.labels`` 0..C-1."""
    from .algorithms.scc import strongly_connected_components as run

    return run(_graph(graph), backend=backend, strategy=strategy)


def betweenness_centrality(graph: Any, k: int | None = None, normalized: bool = True, endpoints: bool = False,
                           seed: Any = None, sources: Any = None, *, backend: Any = "auto",
                           strategy: Any = "auto") -> Any:
    """Brandes betweenness centrality as networkx defines it: all sources, `k` sampled sources (with `seed`), or the
    given `sources` (``sources=[s]`` is the papers' single-source BC). ``.centrality``."""
    from .algorithms.betweenness import betweenness_centrality as run

    return run(_graph(graph), k=k, normalized=normalized, endpoints=endpoints, seed=seed, sources=sources,
               backend=backend, strategy=strategy)


def color_propagation(graph: Any, *, backend: Any = "auto", strategy: Any = "auto") -> Any:
    """Slota et al.'s color propagation: ``.colors[v]`` is the largest vertex id that reaches v (max-label propagation
    until nothing changes)."""
    from .algorithms.color_propagation import color_propagation as run

    return run(_graph(graph), backend=backend, strategy=strategy)


ALGORITHMS = {
    "bfs": bfs,
    "sssp": sssp,
    "pagerank": pagerank,
    "cc": connected_components,
    "scc": strongly_connected_components,
    "bc": betweenness_centrality,
    "color": color_propagation,
}

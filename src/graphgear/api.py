"""The public algorithm functions (``import graphgear as gg; gg.bfs(g, 0)``): a stable contract for other tools.

Every function takes ``backend="auto"|"cpu"|"cuda"`` and ``strategy="auto"|"static"|"adaptive"|Strategy|str`` (a
Strategy's short form such as ``"direction=pull,drive=topology"``); every result has ``.trace`` (one row per
iteration) and ``.to_pandas()``. Argument names, their order and their defaults follow NetworkX (then cuGraph), so a
NetworkX call runs as written: ``gg.pagerank(G, 0.85, {0: 1.0})``, ``gg.betweenness_centrality(G, None, True,
"weight")``; graphgear's own arguments (method, backend, strategy, layout) are keyword-only. ``weight`` is NetworkX's:
the name of the edge attribute (or table column) that holds the weights, None to ignore them; a Graph holds one
weight array, which any name means. A graph argument may be a Graph, a file path or generator spec, or what
`graphgear.graph.convert.as_graph` takes (a NetworkX graph, converted with that weight name).
"""

from __future__ import annotations

from typing import Any

from .distributed.graph import is_distributed
from .graph.graph import Graph

__all__ = [
    "ALGORITHMS",
    "betweenness_centrality",
    "bfs",
    "color_propagation",
    "connected_components",
    "pagerank",
    "sssp",
    "strongly_connected_components",
]


def _graph(graph: Any, weight: str | None = None, algorithm: str = "") -> Graph:
    """The graph argument as a Graph (`graphgear.graph.convert.as_graph`: a Graph as it is, a path or spec loaded, a
    NetworkX graph converted with the `weight` attribute, None unweighted); a GraphError naming anything else, and a
    weight that is neither a name nor None (checked first, whatever the graph). A DistributedGraph reaches here only
    for an algorithm without a distributed form: a GraphError says so."""
    if type(graph) is Graph and (weight is None or type(weight) is str):  # the common call, without the imports
        return graph
    from .algorithms._common import check_weight
    from .graph.convert import as_graph

    check_weight(weight)
    if is_distributed(graph):
        from .distributed.api import refuse

        raise refuse(algorithm)
    return as_graph(graph, weight=weight)


def bfs(graph: Any, source: Any, *, depth_limit: int | None = None, backend: Any = "auto", strategy: Any = "auto",
        layout: str = "auto") -> Any:
    """Breadth-first search from `source`: ``.distances`` (int64 hops, -1 unreachable) and ``.predecessors`` (-1 none).
    ``depth_limit``: the deepest level searched, as networkx's bfs_edges(depth_limit=...). Top-down, bottom-up or
    direction-optimising by strategy; ``layout`` "degree" / "given" / "auto" as for pagerank (see
    `graphgear.algorithms.bfs`)."""
    if is_distributed(graph):
        from .distributed.api import bfs as distributed

        return distributed(graph, source, depth_limit=depth_limit, backend=backend, strategy=strategy, layout=layout)
    from .algorithms.bfs import bfs as run

    return run(_graph(graph), source, depth_limit=depth_limit, backend=backend, strategy=strategy, layout=layout)


def sssp(graph: Any, source: Any, *, weight: str | None = "weight", cutoff: float | None = None, method: str = "auto",
         delta: float | None = None, backend: Any = "auto", strategy: Any = "auto", layout: str = "auto") -> Any:
    """Single-source shortest paths as networkx.single_source_dijkstra: ``.distances`` (float64, inf unreachable) and
    ``.predecessors``. ``weight``: the weights' attribute name, None for hop counts; ``cutoff``: distances above it are
    reported unreachable (the search stops there). ``method`` is "delta_stepping" (near-far), "bellman_ford" or
    "auto"; weights must be non-negative; hop counts run BFS; ``layout`` as for bfs."""
    if is_distributed(graph):
        from .distributed.api import sssp as distributed

        return distributed(graph, source, weight=weight, cutoff=cutoff, method=method, delta=delta, backend=backend,
                           strategy=strategy, layout=layout)
    from .algorithms.sssp import sssp as run

    return run(_graph(graph, weight), source, weight=weight, cutoff=cutoff, method=method, delta=delta, backend=backend,
               strategy=strategy, layout=layout)


def pagerank(graph: Any, alpha: float = 0.85, personalization: Any = None, max_iter: int = 100, tol: float = 1e-06,
             nstart: Any = None, weight: str | None = "weight", dangling: Any = None, *, method: str = "auto",
             backend: Any = "auto", strategy: Any = "auto", layout: str = "auto") -> Any:
    """PageRank as networkx.pagerank defines it, with its arguments in its order (alpha, personalization, max_iter,
    tol, nstart, weight, dangling): ``.ranks`` sums to 1; ``weight=None`` splits a vertex's rank evenly over its
    out-edges. ``method`` is "power" (pull power iteration), "delta" (delta-based push), "priority" (delta with
    SEP-Graph's priority scheduling: the larger residuals sent first), "dense" (the power iteration with MultiGraph's
    dense-mode gather: two phases over 2D tiles) or "auto"; ``layout``
    "degree" runs the power iteration on the graph renumbered by degree, "given" on the ids as they are, "auto" picks
    degree for large power-law graphs."""
    if is_distributed(graph):
        from .distributed.api import pagerank as distributed

        return distributed(graph, alpha, personalization, max_iter, tol, nstart, weight, dangling, method=method,
                           backend=backend, strategy=strategy, layout=layout)
    from .algorithms.pagerank import pagerank as run

    return run(_graph(graph, weight), alpha=alpha, personalization=personalization, max_iter=max_iter, tol=tol,
               nstart=nstart, weight=weight, dangling=dangling, method=method, backend=backend, strategy=strategy,
               layout=layout)


def connected_components(graph: Any, *, method: str = "auto", backend: Any = "auto", strategy: Any = "auto") -> Any:
    """Weakly connected components: ``.labels`` numbered 0..C-1. ``method`` is "label_propagation", "afforest" or
    "auto"."""
    if is_distributed(graph):
        from .distributed.api import connected_components as distributed

        return distributed(graph, method=method, backend=backend, strategy=strategy)
    from .algorithms.connected_components import connected_components as run

    return run(_graph(graph), method=method, backend=backend, strategy=strategy)


def strongly_connected_components(graph: Any, *, backend: Any = "auto", strategy: Any = "auto") -> Any:
    """Strongly connected components by Multistep (trim, forward-backward, coloring): ``.labels`` 0..C-1."""
    from .algorithms.scc import strongly_connected_components as run

    return run(_graph(graph, algorithm="strongly_connected_components"), backend=backend, strategy=strategy)


def betweenness_centrality(graph: Any, k: int | None = None, normalized: bool = True, weight: str | None = None,
                           endpoints: bool = False, seed: Any = None, *, sources: Any = None, backend: Any = "auto",
                           strategy: Any = "auto") -> Any:
    """Brandes betweenness centrality as networkx defines it, with its arguments in its order (k, normalized, weight,
    endpoints, seed): all sources, `k` sampled sources (with `seed`), or the given `sources` (``sources=[s]`` is the
    papers' single-source BC). ``weight=None`` counts hops; a name weights the shortest paths (Brandes over
    Dijkstra's distances, ties where the float64 sums are equal, as networkx). ``.centrality``."""
    from .algorithms.betweenness import betweenness_centrality as run

    return run(_graph(graph, weight, "betweenness_centrality"), k=k, normalized=normalized, weight=weight,
               endpoints=endpoints, seed=seed,
               sources=sources, backend=backend, strategy=strategy)


def color_propagation(graph: Any, *, backend: Any = "auto", strategy: Any = "auto") -> Any:
    """Slota et al.'s color propagation: ``.colors[v]`` is the largest vertex id that reaches v (max-label propagation
    until nothing changes)."""
    from .algorithms.color_propagation import color_propagation as run

    return run(_graph(graph, algorithm="color_propagation"), backend=backend, strategy=strategy)


ALGORITHMS = {
    "bfs": bfs,
    "sssp": sssp,
    "pagerank": pagerank,
    "cc": connected_components,
    "scc": strongly_connected_components,
    "bc": betweenness_centrality,
    "color": color_propagation,
}

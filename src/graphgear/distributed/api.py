"""gg.bfs, gg.sssp, gg.pagerank and gg.connected_components on a DistributedGraph: the arguments checked as the
single-process calls check them (on the client, before any rank starts, so a mistake never leaves ranks waiting in a
collective), then the SPMD run."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..algorithms._common import check_choice, check_weight, resolve_source
from ..algorithms.sssp import check_cutoff
from ..errors import GraphError, StrategyError
from ..graph.graph import shown
from . import bfs as _bfs
from . import components as _components
from . import pagerank as _pagerank
from . import sssp as _sssp
from .graph import DistributedGraph

__all__ = ["bfs", "sssp", "pagerank", "connected_components", "refuse"]

DISTRIBUTED = ("bfs", "sssp", "pagerank", "connected_components")


def refuse(name: str) -> GraphError:
    """The error for an algorithm that has no distributed form (yet)."""
    return GraphError(f"{name} does not run on a DistributedGraph (distributed: {', '.join(DISTRIBUTED)}); gather "
                      "the graph with dg.to_graph() to run it in one process")


def _check_run(dg: DistributedGraph, backend: Any, strategy: Any) -> None:
    if backend not in ("auto", dg.backend):
        raise GraphError(f"this DistributedGraph lives on {dg.backend} workers; backend must be 'auto' or "
                         f"{dg.backend!r}, got {shown(backend)} (choose the workers' backend in partition())")
    if strategy != "auto":
        raise StrategyError(f"a DistributedGraph runs each algorithm's own distributed loop (its trace says which "
                            f"steps); strategy must be 'auto', got {shown(strategy)}")
    if not dg.parts:
        raise GraphError("this DistributedGraph is closed")


def _source(dg: DistributedGraph, source: Any) -> int:
    return resolve_source(dg.labels_graph(), source)


def bfs(dg: DistributedGraph, source: Any, *, depth_limit: int | None = None, backend: Any = "auto",
        strategy: Any = "auto", layout: str = "auto") -> Any:
    _check_run(dg, backend, strategy)
    check_choice("layout", layout, ("auto", "given"))
    s = _source(dg, source)
    if depth_limit is not None and (isinstance(depth_limit, bool) or not isinstance(depth_limit, (int, np.integer))
                                    or depth_limit < 0):
        raise GraphError(f"depth_limit must be an integer >= 0 or None, got {shown(depth_limit)}")
    return _bfs.bfs(dg, s, depth_limit)


def sssp(dg: DistributedGraph, source: Any, *, weight: str | None = "weight", cutoff: float | None = None,
         method: str = "auto", delta: float | None = None, backend: Any = "auto", strategy: Any = "auto",
         layout: str = "auto") -> Any:
    _check_run(dg, backend, strategy)
    check_weight(weight)
    check_choice("method", method, ("auto", "delta_stepping", "bellman_ford"))
    check_choice("layout", layout, ("auto", "given"))
    cutoff = check_cutoff(cutoff)
    s = _source(dg, source)
    if weight is None or not dg.weighted:  # hop counts: BFS, as gg.sssp
        hops = _bfs.bfs(dg, s, None if cutoff is None else int(math.floor(cutoff)))
        from ..results import SSSPResult

        dist = np.where(hops.distances >= 0, hops.distances.astype(np.float64), np.inf)
        return SSSPResult(dist, hops.predecessors, trace=hops.trace, graph=dg, seconds=hops.seconds)
    total, arcs, lightest = _sssp.weight_summary(dg)
    if lightest < 0:
        raise GraphError(f"SSSP needs non-negative weights; this graph has a weight of {lightest:g}")
    if delta is not None:
        if isinstance(delta, bool) or not isinstance(delta, (int, float, np.number)) or not delta > 0:
            raise GraphError(f"delta must be a positive number or None, got {shown(delta)}")
        width = float(delta)
    else:
        width = math.inf if method == "bellman_ford" else _sssp.default_delta(total, arcs)
    result = _sssp.sssp(dg, s, width, cutoff)
    finite = result.distances[np.isfinite(result.distances)]
    largest = float(finite.max()) if finite.size else 0.0
    if not (lightest > 0 and lightest > largest * 2.0**-52):  # a tight arc can close a cycle: gg.sssp's tight tree
        result.predecessors = _sssp.tight_tree_on_client(dg, result.distances, s, lightest)
    return result


def pagerank(dg: DistributedGraph, alpha: float = 0.85, personalization: Any = None, max_iter: int = 100,
             tol: float = 1e-06, nstart: Any = None, weight: str | None = "weight", dangling: Any = None, *,
             method: str = "auto", backend: Any = "auto", strategy: Any = "auto", layout: str = "auto") -> Any:
    from ..algorithms.pagerank import _check_scalars, _distribution

    _check_run(dg, backend, strategy)
    alpha, tol, max_iter = _check_scalars(alpha, tol, max_iter, method)
    check_weight(weight)
    check_choice("layout", layout, ("auto", "given"))
    if method in ("delta", "priority", "dense"):
        raise GraphError(f"a DistributedGraph runs PageRank's power iteration (method='power' or 'auto'), not "
                         f"method={method!r}")
    weighted = weight is not None and dg.weighted
    if weighted:
        lightest = _sssp.weight_summary(dg)[2]
        if lightest < 0:
            raise GraphError(f"PageRank needs non-negative weights; this graph has a weight of {lightest:g}")
    g = dg.labels_graph()
    p, x0, d = (_distribution(g, v, name) for v, name in ((personalization, "personalization"), (nstart, "nstart"),
                                                           (dangling, "dangling")))
    if dg.num_vertices == 0:
        from ..results import PageRankResult

        return PageRankResult(np.zeros(0), iterations=0, graph=dg)
    return _pagerank.pagerank(dg, alpha, max_iter, tol, p, d, x0, weighted)


def connected_components(dg: DistributedGraph, *, method: str = "auto", backend: Any = "auto",
                         strategy: Any = "auto") -> Any:
    _check_run(dg, backend, strategy)
    check_choice("method", method, ("auto", "label_propagation", "afforest"))
    if method == "afforest":
        raise GraphError("a DistributedGraph runs label propagation with pointer jumping for components "
                         "(method='label_propagation' or 'auto'), not Afforest")
    return _components.connected_components(dg)

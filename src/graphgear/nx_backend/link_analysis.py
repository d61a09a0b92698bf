"""PageRank: networkx.pagerank by graphgear's power iteration (`graphgear.pagerank`, method "power").

graphgear's power iteration is NetworkX's _pagerank_scipy step for step (the same update, the L1 test against
N * tol, PowerIterationFailedConvergence after max_iter), in float64; the ranks agree to rounding (about 1e-15
relative per iteration). The personalization, nstart and dangling dicts are read as NetworkX reads them (missing
nodes 0, keys that are not nodes ignored). Declined, so NetworkX runs them: weights float32 does not hold exactly
(graphgear stores float32 weights; the ranks would move by about 1e-8), negative weights, values that are negative
or not finite numbers, nstart or dangling summing to 0 (NetworkX divides by 0 and fails to converge on NaN), alpha
outside (0, 1], tol that is not positive and finite, a max_iter that is not an int.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from .dispatch import device as resolve_device
from .dispatch import implements, is_real, require, weight_refusal

__all__ = ["pagerank"]


def _refuse_values(G: Any, name: str, values: Any) -> str | None:
    """Why a personalization / nstart / dangling dict is declined, or None."""
    if not isinstance(values, Mapping):
        return f"{name} is not a dict"
    total = 0.0
    for key, value in values.items():
        if key in G:
            if not is_real(value) or not math.isfinite(value) or value < 0:
                return f"{name}[{key!r}] = {value!r} is not a finite number >= 0"
            total += value
    if total <= 0 and name != "personalization":  # personalization: NetworkX's ZeroDivisionError, raised here too
        return f"{name} sums to 0 over the graph's nodes (NetworkX divides by 0 and then fails to converge)"
    return None


def _check_pagerank(G: Any, arguments: dict[str, Any]) -> bool | str:
    alpha, tol, max_iter = arguments["alpha"], arguments["tol"], arguments["max_iter"]
    if not is_real(alpha) or not 0 < alpha <= 1:
        return "alpha outside (0, 1]"
    if not is_real(tol) or not 0 < tol < math.inf:
        return "tol is not a positive, finite number"
    if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, (int, np.integer)):
        return "max_iter is not an int"
    for name in ("personalization", "nstart", "dangling"):
        if arguments[name] is not None:
            refused = _refuse_values(G, name, arguments[name])
            if refused:
                return refused
    return weight_refusal(G, arguments["weight"], types=False) or True


def _vector(G: Any, values: Mapping | None) -> np.ndarray | None:
    """A dict keyed by node as a float64 vector in node order (NetworkX's ``values.get(n, 0)`` for every node)."""
    if values is None:
        return None
    vector = np.zeros(len(G), dtype=np.float64)
    for key, value in values.items():
        position = G.index.get(key)
        if position is not None:
            vector[position] = value
    return vector


@implements(_check_pagerank)
def pagerank(G: Any, alpha: float = 0.85, personalization: Any = None, max_iter: int = 100, tol: float = 1e-06,
             nstart: Any = None, weight: Any = "weight", dangling: Any = None, *, device: Any = None) -> dict:
    """networkx.pagerank by graphgear's power iteration: {node: rank} in node order."""
    import networkx as nx

    import graphgear
    from graphgear.errors import GraphgearError

    n = len(G)
    if n == 0:
        return {}
    p = _vector(G, personalization)
    if p is not None and p.sum() == 0:
        raise ZeroDivisionError
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    column = None if weight is None else G.column(weight)
    if column is not None:
        require(column.refusal(types=False))
    weighted = column is not None and not column.all_one
    graph = G.graph_for(weight if weighted else None)
    try:
        result = graphgear.pagerank(graph, alpha=alpha, personalization=p, max_iter=int(max_iter), tol=tol,
                                    nstart=_vector(G, nstart), dangling=_vector(G, dangling), method="power",
                                    backend=resolve_device(device))
        ranks = result.ranks
    except GraphgearError as exc:
        if "did not converge" in str(exc):
            raise nx.PowerIterationFailedConvergence(max_iter) from exc
        raise
    return dict(zip(G.nodes, np.asarray(ranks, dtype=np.float64).tolist()))

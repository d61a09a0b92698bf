"""Betweenness centrality: networkx.betweenness_centrality by graphgear's Brandes (`graphgear.betweenness_centrality`).

graphgear follows NetworkX's definition: the same sources (with ``k``, NetworkX's ``seed.sample(list(G), k)``, drawn
from the same random state NetworkX's ``py_random_state`` decorator made of the seed, so the sample and the state
left behind are NetworkX's), the same accumulation (endpoints) and `_rescale` (normalized, directed, k). The values
agree to rounding (the sums run in another order). Weighted: hop counts when every weight is 1; weighted shortest
paths when graphgear's betweenness_centrality takes ``weight`` (Brandes over Dijkstra's float64 distances), with
positive weights float32 holds exactly; declined otherwise (a zero weight too: NetworkX counts the shortest paths
through zero-weight arcs as its heap order meets them, and an undirected zero-weight edge is a zero-length cycle). Declined too: k that is not an int in 1..len(G)
(NetworkX's random.sample raises, or its rescaling divides by 0 for k = 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .dispatch import device as resolve_device
from .dispatch import gg_accepts, implements, require, weight_column, weight_refusal

__all__ = ["betweenness_centrality"]


def _weighted_supported() -> bool:
    return gg_accepts("betweenness_centrality", "weight")


def _check_betweenness(G: Any, arguments: dict[str, Any]) -> bool | str:
    k = arguments["k"]
    if k is not None:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            return "k is not an int"
        if not 0 < k <= len(G):
            return "k outside 1..len(G) (NetworkX's random.sample raises, or its rescaling divides by 0)"
    weight = arguments["weight"]
    refused = weight_refusal(G, weight, types=False)
    if refused:
        return refused
    if weight is not None:
        column = weight_column(G, weight)
        if not column.all_one:
            return _weighted_refusal(column)
    return True


def _weighted_refusal(column: Any) -> bool | str:
    """Why weighted betweenness (weights not all 1) is declined, or True."""
    if not _weighted_supported():
        return "weighted betweenness: this graphgear's betweenness_centrality counts hops only"
    if column.minimum <= 0:
        return ("a zero weight: shortest paths through zero-weight arcs (an undirected one is a zero-length cycle) are "
                "counted as NetworkX's heap order meets them")
    return True


@implements(_check_betweenness)
def betweenness_centrality(G: Any, k: Any = None, normalized: bool = True, weight: Any = None, endpoints: bool = False,
                           seed: Any = None, *, device: Any = None) -> dict:
    """networkx.betweenness_centrality by graphgear's Brandes: {node: centrality} in node order."""
    import graphgear

    if len(G) == 0:
        return {}
    weighted = False
    if weight is not None:
        column = G.column(weight)
        require(column.refusal(types=False))
        weighted = not column.all_one
        if weighted:
            refused = _weighted_refusal(column)
            require(None if refused is True else refused)
    kwargs: dict[str, Any] = {"weight": "weight" if weighted else None} if _weighted_supported() else {}
    result = graphgear.betweenness_centrality(G.graph_for(weight if weighted else None), k=k,
                                              normalized=bool(normalized), endpoints=bool(endpoints), seed=seed,
                                              backend=resolve_device(device), **kwargs)
    return dict(zip(G.nodes, np.asarray(result.centrality, dtype=np.float64).tolist()))

"""Shortest path lengths (and BFS paths): networkx.algorithms.shortest_paths, unweighted, Dijkstra, Bellman-Ford.

Distances come from graphgear: hop counts from `graphgear.bfs`, weighted distances from `graphgear.sssp` (float64
sums of the float32 weights, the same additions NetworkX makes when float32 holds the weights exactly, which
`WeightColumn.refusal` requires). NetworkX's types are kept: int weights give int distances, float weights float
ones, a source's own distance is the int 0. A dict of lengths lists its nodes by increasing distance, ties in the
graph's node order (NetworkX lists ties in the order its search meets them; the dicts compare equal).

Paths: single_source_shortest_path (and shortest_path with weight=None and no target) follow NetworkX's BFS order
exactly (`traversal.discovery`). Weighted paths (Dijkstra's heap order decides between equal paths) and NetworkX's
bidirectional search's paths are declined.

Bellman-Ford functions run graphgear's SSSP: with non-negative weights (required, as for Dijkstra) their lengths are
Dijkstra's; negative weights (NetworkX's negative-cycle detection) are declined.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .dispatch import device, gg_accepts, implements, is_real, require, weight_refusal
from .traversal import bfs_distances, discovery

__all__ = [
    "all_pairs_bellman_ford_path_length",
    "all_pairs_dijkstra_path_length",
    "all_pairs_shortest_path_length",
    "bellman_ford_path_length",
    "dijkstra_path_length",
    "has_path",
    "shortest_path",
    "shortest_path_length",
    "single_source_bellman_ford_path_length",
    "single_source_dijkstra_path_length",
    "single_source_shortest_path",
    "single_source_shortest_path_length",
    "single_target_shortest_path_length",
]

METHODS = ("dijkstra", "bellman-ford")


# ------------------------------------------------------------------------------------------------------ distances
def _hop_depth(cutoff: Any) -> int | None:
    """The deepest level NetworkX's unweighted searches report under `cutoff` (they expand a level while
    ``cutoff > level``: level d is reported when d == 0 or d - 1 < cutoff), None for no limit."""
    if cutoff is None or cutoff == math.inf:
        return None
    if math.isnan(cutoff):
        return 0
    return max(math.ceil(cutoff + 1) - 1, 0)


def _weighted_distances(G: Any, s: int, weight: Any, cutoff: Any, requested: Any,
                        reverse: bool = False) -> tuple[np.ndarray, str]:
    """(float64 distances from position s, inf where not reported; "int" or "float": NetworkX's type of them) under
    NetworkX's weight semantics (attribute `weight`, default 1; None: every edge 1) and Dijkstra's cutoff (distances
    above it are not reported)."""
    if weight is None:
        kind, column = "int", None
    else:
        column = G.column(weight)
        require(column.refusal())
        kind = column.kind
    # NetworkX drops a distance above the cutoff (a NaN cutoff drops none; a negative one all but the source's)
    bound = None if cutoff is None or not cutoff < math.inf else max(float(cutoff), 0.0)
    if column is None or column.all_one:  # hop counts
        hops = bfs_distances(G, s, requested, reverse=reverse, depth=None if bound is None else math.floor(bound))
        dist = np.where(hops >= 0, hops.astype(np.float64), np.inf)
    else:
        import graphgear

        kwargs: dict[str, Any] = {"backend": device(requested)}
        if bound is not None and gg_accepts("sssp", "cutoff"):
            kwargs["cutoff"] = bound
        dist = np.array(graphgear.sssp(G.graph_for(weight, reverse=reverse), s, **kwargs).distances, np.float64)
    if cutoff is not None:
        dist[dist > cutoff] = np.inf
    dist[s] = 0.0  # NetworkX reports a source whatever the cutoff
    return dist, kind


def _length_dict(G: Any, s: int, dist: np.ndarray, kind: str) -> dict:
    """{label: distance} of the reached nodes (finite entries of `dist`): by increasing distance, ties in node order,
    the source first; int values for kind "int", floats otherwise, the source's the int 0."""
    reached = np.flatnonzero(np.isfinite(dist))
    order = reached[np.argsort(dist[reached], kind="stable")]
    if order.size and order[0] != s:
        order = np.concatenate(([s], order[order != s]))
    values = dist[order]
    result = dict(zip(G.label_list(order), values.astype(np.int64).tolist() if kind == "int" else values.tolist()))
    result[G.nodes[s]] = 0
    return result


def _hop_dict(G: Any, s: int, cutoff: Any, requested: Any, reverse: bool = False) -> dict:
    """{label: hops} from position s within NetworkX's unweighted cutoff (graphgear's BFS)."""
    hops = bfs_distances(G, s, requested, reverse=reverse, depth=_hop_depth(cutoff))
    return _length_dict(G, s, np.where(hops >= 0, hops.astype(np.float64), np.inf), "int")


def _source(G: Any, node: Any, error: Any) -> int:
    """The position of `node`; `error` (an exception) raised when it is not a node."""
    if node not in G:
        raise error
    return G.index[node]


def _node_not_found(message: str) -> Exception:
    import networkx as nx

    return nx.NodeNotFound(message)


def _no_path(message: str) -> Exception:
    import networkx as nx

    return nx.NetworkXNoPath(message)


# ------------------------------------------------------------------------------------------------------ checks
def _check_cutoff(G: Any, arguments: dict[str, Any]) -> bool | str:
    cutoff = arguments.get("cutoff")
    if cutoff is None:
        return True
    if not is_real(cutoff):
        return "cutoff is not a real number"
    try:
        float(cutoff)
    except OverflowError:
        return "cutoff is an int beyond float64"
    return True


def _check_weight(G: Any, arguments: dict[str, Any]) -> bool | str:
    checked = _check_cutoff(G, arguments)
    if checked is not True:
        return checked
    return weight_refusal(G, arguments.get("weight")) or True


def _check_generic(G: Any, arguments: dict[str, Any]) -> bool | str:
    if arguments["method"] not in METHODS:
        return True  # NetworkX's ValueError, raised by the call
    return weight_refusal(G, arguments["weight"]) or True


def _check_paths(G: Any, arguments: dict[str, Any]) -> bool | str:
    if arguments["method"] not in METHODS:
        return True
    if arguments["weight"] is not None:
        return "weighted paths: NetworkX's Dijkstra heap order picks among equal paths"
    if arguments["source"] is None:
        if arguments["target"] is None:
            return "all-pairs paths"
        if G.is_directed():
            return "paths to a target in a directed graph follow the reversed graph's predecessor order"
    elif arguments["target"] is not None:
        return "a source-target path: NetworkX's bidirectional search picks among equal paths"
    return True


# ------------------------------------------------------------------------------------------------------ unweighted
@implements(_check_cutoff)
def single_source_shortest_path_length(G: Any, source: Any, cutoff: Any = None, *, device: Any = None) -> dict:
    """networkx.single_source_shortest_path_length: hop counts from `source` (graphgear's BFS)."""
    s = _source(G, source, _node_not_found(f"Source {source} is not in G"))
    return _hop_dict(G, s, cutoff, device)


@implements(_check_cutoff)
def single_target_shortest_path_length(G: Any, target: Any, cutoff: Any = None, *, device: Any = None) -> dict:
    """networkx.single_target_shortest_path_length: hop counts to `target` (graphgear's BFS over reversed arcs)."""
    t = _source(G, target, _node_not_found(f"Target {target} is not in G"))
    return _hop_dict(G, t, cutoff, device, reverse=True)


@implements(_check_cutoff)
def all_pairs_shortest_path_length(G: Any, cutoff: Any = None, *, device: Any = None) -> Any:
    """networkx.all_pairs_shortest_path_length: (node, hop counts from it) for every node (a generator)."""
    for n in G:
        yield (n, single_source_shortest_path_length(G, n, cutoff=cutoff, device=device))


@implements(_check_cutoff)
def single_source_shortest_path(G: Any, source: Any, cutoff: Any = None, *, device: Any = None) -> dict:
    """networkx.single_source_shortest_path: {node: path from source}, each path NetworkX's (BFS parents in its
    adjacency order), in NetworkX's order."""
    s = _source(G, source, _node_not_found(f"Source {source} not in G"))
    order, parent, _ = discovery(G, [s], cutoff)
    paths = {source: [source]}
    for v, p in zip(G.label_list(order[1:]), G.label_list(parent[order[1:]])):
        paths[v] = paths[p] + [v]
    return paths


@implements(_check_paths)
def shortest_path(G: Any, source: Any = None, target: Any = None, weight: Any = None, method: str = "dijkstra", *,
                  device: Any = None) -> Any:
    """networkx.shortest_path for the unweighted paths from a source (or, undirected, to a target)."""
    if method not in METHODS:
        raise ValueError(f"method not supported: {method}")
    if source is not None and target is None and weight is None:
        return single_source_shortest_path(G, source, device=device)
    if source is None and target is not None and weight is None and not G.is_directed():
        paths = single_source_shortest_path(G, target, device=device)
        for node in paths:
            paths[node] = list(reversed(paths[node]))
        return paths
    raise NotImplementedError("graphgear computes unweighted paths from a source only")


@implements()
def has_path(G: Any, source: Any, target: Any, *, device: Any = None) -> bool:
    """networkx.has_path: whether `target` is reachable from `source` (graphgear's BFS)."""
    s = _source(G, source, _node_not_found(f"Source {source} is not in G"))
    t = _source(G, target, _node_not_found(f"Target {target} is not in G"))
    return bool(bfs_distances(G, s, device)[t] >= 0)


@implements(_check_generic)
def shortest_path_length(G: Any, source: Any = None, target: Any = None, weight: Any = None,
                         method: str = "dijkstra", *, device: Any = None) -> Any:
    """networkx.shortest_path_length in all its forms: from a source, to a target, between two nodes, all pairs."""
    if method not in METHODS:
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if source is None:
        if target is None:
            if method == "unweighted":
                return all_pairs_shortest_path_length(G, device=device)
            if method == "dijkstra":
                return all_pairs_dijkstra_path_length(G, weight=weight, device=device)
            return all_pairs_bellman_ford_path_length(G, weight=weight, device=device)
        # the lengths from every node to the target: a search over the reversed arcs, errors named as NetworkX's
        # call on the reversed graph names them
        if method == "unweighted":
            t = _source(G, target, _node_not_found(f"Source {target} is not in G"))
            return _hop_dict(G, t, None, device, reverse=True)
        message = f"Node {target} not found in graph" if method == "dijkstra" else f"Source {target} not in G"
        t = _source(G, target, _node_not_found(message))
        return _length_dict(G, t, *_weighted_distances(G, t, weight, None, device, reverse=True))
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path_length(G, source, device=device)
        if method == "dijkstra":
            return single_source_dijkstra_path_length(G, source, weight=weight, device=device)
        return single_source_bellman_ford_path_length(G, source, weight=weight, device=device)
    if method == "unweighted":
        s = _source(G, source, _node_not_found(f"Source {source} is not in G"))
        t = _source(G, target, _node_not_found(f"Target {target} is not in G"))
        hops = int(bfs_distances(G, s, device)[t])
        if hops < 0:
            raise _no_path(f"No path between {source} and {target}.")
        return hops
    if method == "dijkstra":
        return dijkstra_path_length(G, source, target, weight, device=device)
    return bellman_ford_path_length(G, source, target, weight, device=device)


# ------------------------------------------------------------------------------------------------------ weighted
def _one_length(G: Any, s: int, t: int, weight: Any, requested: Any) -> int | float | None:
    """The distance from position s to position t as NetworkX types it, None when t is not reached."""
    dist, kind = _weighted_distances(G, s, weight, None, requested)
    if not np.isfinite(dist[t]):
        return None
    return int(dist[t]) if kind == "int" else float(dist[t])


@implements(_check_weight)
def dijkstra_path_length(G: Any, source: Any, target: Any, weight: Any = "weight", *, device: Any = None) -> Any:
    """networkx.dijkstra_path_length (graphgear's SSSP)."""
    s = _source(G, source, _node_not_found(f"Node {source} not found in graph"))
    if source == target:
        return 0
    length = None if target not in G else _one_length(G, s, G.index[target], weight, device)
    if length is None:
        raise _no_path(f"Node {target} not reachable from {source}")
    return length


@implements(_check_weight)
def single_source_dijkstra_path_length(G: Any, source: Any, cutoff: Any = None, weight: Any = "weight", *,
                                       device: Any = None) -> dict:
    """networkx.single_source_dijkstra_path_length (graphgear's SSSP)."""
    sources = {source}
    for s in sources:
        if s not in G:
            raise _node_not_found(f"Node {s} not found in graph")
    s = G.index[source]
    return _length_dict(G, s, *_weighted_distances(G, s, weight, cutoff, device))


@implements(_check_weight)
def all_pairs_dijkstra_path_length(G: Any, cutoff: Any = None, weight: Any = "weight", *, device: Any = None) -> Any:
    """networkx.all_pairs_dijkstra_path_length: (node, its lengths) for every node (a generator)."""
    for n in G:
        yield (n, single_source_dijkstra_path_length(G, n, cutoff=cutoff, weight=weight, device=device))


@implements(_check_weight)
def bellman_ford_path_length(G: Any, source: Any, target: Any, weight: Any = "weight", *, device: Any = None) -> Any:
    """networkx.bellman_ford_path_length (graphgear's SSSP; non-negative weights)."""
    if source == target:
        if source not in G:
            raise _node_not_found(f"Node {source} not found in graph")
        return 0
    s = _source(G, source, _node_not_found(f"Source {source} not in G"))
    length = None if target not in G else _one_length(G, s, G.index[target], weight, device)
    if length is None:
        raise _no_path(f"node {target} not reachable from {source}")
    return length


@implements(_check_weight)
def single_source_bellman_ford_path_length(G: Any, source: Any, weight: Any = "weight", *,
                                           device: Any = None) -> dict:
    """networkx.single_source_bellman_ford_path_length (graphgear's SSSP; non-negative weights)."""
    s = _source(G, source, _node_not_found(f"Source {source} not in G"))
    return _length_dict(G, s, *_weighted_distances(G, s, weight, None, device))


@implements(_check_weight)
def all_pairs_bellman_ford_path_length(G: Any, weight: Any = "weight", *, device: Any = None) -> Any:
    """networkx.all_pairs_bellman_ford_path_length: (node, its lengths) for every node (a generator)."""
    for n in G:
        yield (n, single_source_bellman_ford_path_length(G, n, weight=weight, device=device))

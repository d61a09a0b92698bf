"""Breadth-first search: networkx.algorithms.traversal.breadth_first_search, plus descendants and ancestors.

Two kinds of output:

- sets of vertices and levels (descendants_at_distance, descendants, ancestors) come from graphgear's BFS
  (`graphgear.bfs`: hop distances, on the GPU when there is one);
- outputs NetworkX defines by its adjacency order (bfs_edges and the functions built on it: which parent discovers a
  vertex, the order of the edges and of each layer) come from `discovery`: one first-in-first-out pass over the arcs
  in NetworkX's adjacency order (compiled, on the CPU), which reproduces NetworkX's order exactly. graphgear's own BFS
  tree takes the smallest-id parent, which is another (equally valid) tree.

Declined (NetworkX runs them): ``sort_neighbors`` (a Python callable per vertex) and ``reverse=True`` on a directed
graph for the order-defined outputs (the order of NetworkX's predecessor lists is the order the edges were added,
which the conversion does not read).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from .dispatch import device, gg_accepts, implements, is_real

__all__ = [
    "ancestors",
    "bfs_distances",
    "bfs_edges",
    "bfs_layers",
    "bfs_predecessors",
    "bfs_successors",
    "bfs_tree",
    "descendants",
    "descendants_at_distance",
    "discovery",
]


@numba.njit(cache=True, nogil=True)
def _discover(offsets, targets, sources, limit):  # pragma: no cover - numba
    """First-in-first-out BFS over arcs in adjacency order: (order of discovery, parent of each vertex, level of each
    vertex; -1 where not reached). A vertex is expanded when its level is below `limit` (NetworkX's depth_limit and
    cutoff tests)."""
    n = offsets.shape[0] - 1
    level = np.full(n, -1, np.int64)
    parent = np.full(n, -1, np.int64)
    order = np.empty(n, np.int64)
    count = 0
    for s in sources:
        if level[s] < 0:
            level[s] = 0
            order[count] = s
            count += 1
    head = 0
    while head < count:
        u = order[head]
        head += 1
        if not level[u] < limit:
            continue
        for k in range(offsets[u], offsets[u + 1]):
            v = targets[k]
            if level[v] < 0:
                level[v] = level[u] + 1
                parent[v] = u
                order[count] = v
                count += 1
    return order[:count], parent, level


def discovery(G: Any, sources: list[int], limit: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NetworkX's breadth-first discovery from the node positions `sources` (in that order): the positions in the
    order NetworkX meets them, each one's discovering parent (-1 for sources and the unreached) and its level (-1
    unreached). `limit` (None: none): only vertices on a level below it are expanded."""
    if limit is None:
        bound = np.inf
    else:
        try:
            bound = float(limit)
        except OverflowError:  # an int beyond float64: as good as infinite
            bound = np.inf if limit > 0 else -np.inf
    return _discover(G.offsets, G.targets, np.asarray(sources, dtype=np.int64), bound)


def bfs_distances(G: Any, source: int, requested: Any = None, *, reverse: bool = False,
                  depth: int | None = None) -> np.ndarray:
    """int64 hop distances from position `source` (-1 unreached) by graphgear's BFS; ``reverse`` over the reversed
    arcs; ``depth``: the deepest level needed (graphgear stops there when its bfs takes depth_limit)."""
    import graphgear

    kwargs: dict[str, Any] = {"backend": device(requested)}
    if depth is not None and gg_accepts("bfs", "depth_limit"):
        kwargs["depth_limit"] = depth
    dist = np.asarray(graphgear.bfs(G.graph_for(None, reverse=reverse), source, **kwargs).distances)
    if depth is not None:
        dist = np.where(dist > depth, -1, dist)
    return dist


def _not_in_graph(G: Any, node: Any) -> Any:
    """The NetworkXError NetworkX's G.neighbors / G.successors / G.predecessors raise for a missing node."""
    import networkx as nx

    kind = "digraph" if G.is_directed() else "graph"
    return nx.NetworkXError(f"The node {node} is not in the {kind}.")


def _position(G: Any, node: Any) -> int:
    """The position of `node`, raising what NetworkX's G.neighbors(node) raises when it is not a node."""
    hash(node)  # an unhashable source: TypeError, as NetworkX's seen = {source}
    try:
        return G.index[node]
    except KeyError as err:
        raise _not_in_graph(G, node) from err


def _check_order_args(G: Any, arguments: dict[str, Any]) -> bool | str:
    if arguments.get("sort_neighbors") is not None:
        return "sort_neighbors calls a Python function per vertex"
    if arguments.get("reverse") and G.is_directed():
        return ("reverse=True on a directed graph: NetworkX orders predecessors as the edges were added, which the "
                "conversion does not read")
    limit = arguments.get("depth_limit")
    if limit is not None and not is_real(limit):
        return "depth_limit is not a real number"
    return True


def _edges(G: Any, source: Any, depth_limit: Any) -> Any:
    """(parent, child) labels of NetworkX's BFS from `source`, in NetworkX's order."""
    s = _position(G, source)
    limit = len(G) if depth_limit is None else depth_limit
    order, parent, _ = discovery(G, [s], limit)
    children = order[1:]
    return zip(G.label_list(parent[children]), G.label_list(children))


@implements(_check_order_args)
def bfs_edges(G: Any, source: Any, reverse: bool = False, depth_limit: Any = None, sort_neighbors: Any = None, *,
              device: Any = None) -> Any:
    """networkx.bfs_edges: the tree edges (parent, child) in NetworkX's order (a generator)."""
    yield from _edges(G, source, depth_limit)


@implements(_check_order_args)
def bfs_tree(G: Any, source: Any, reverse: bool = False, depth_limit: Any = None, sort_neighbors: Any = None, *,
             device: Any = None) -> Any:
    """networkx.bfs_tree: a DiGraph of the BFS tree, built by the same calls NetworkX makes."""
    import networkx as nx

    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit, sort_neighbors=sort_neighbors))
    return T


@implements(_check_order_args)
def bfs_predecessors(G: Any, source: Any, depth_limit: Any = None, sort_neighbors: Any = None, *,
                     device: Any = None) -> Any:
    """networkx.bfs_predecessors: (child, parent) in NetworkX's order (a generator)."""
    for s, t in bfs_edges(G, source, depth_limit=depth_limit, sort_neighbors=sort_neighbors):
        yield (t, s)


@implements(_check_order_args)
def bfs_successors(G: Any, source: Any, depth_limit: Any = None, sort_neighbors: Any = None, *,
                   device: Any = None) -> Any:
    """networkx.bfs_successors: (parent, [children]) in NetworkX's order (a generator; NetworkX's grouping loop)."""
    parent = source
    children: list[Any] = []
    for p, c in bfs_edges(G, source, depth_limit=depth_limit, sort_neighbors=sort_neighbors):
        if p == parent:
            children.append(c)
            continue
        yield (parent, children)
        children = [c]
        parent = p
    yield (parent, children)


@implements()
def bfs_layers(G: Any, sources: Any, *, device: Any = None) -> Any:
    """networkx.bfs_layers: the layers (lists, each in NetworkX's order) from one source or several (a
    generator)."""
    import networkx as nx

    if sources in G:
        sources = [sources]
    visited = set(sources)
    current_layer = list(visited)
    for source in current_layer:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not current_layer:
        return
    order, _, level = discovery(G, [G.index[s] for s in current_layer])
    yield current_layer
    rest = order[len(current_layer):]
    if rest.size:
        levels = level[rest]
        cuts = np.flatnonzero(np.diff(levels)) + 1
        labels = G.label_list(rest)
        for a, b in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [rest.size])).tolist()):
            yield labels[a:b]


def _check_distance(G: Any, arguments: dict[str, Any]) -> bool | str:
    return True if is_real(arguments["distance"]) else "distance is not a real number"


@implements(_check_distance)
def descendants_at_distance(G: Any, source: Any, distance: Any, *, device: Any = None) -> set:
    """networkx.descendants_at_distance: the nodes exactly `distance` hops from `source` (graphgear's BFS)."""
    import networkx as nx

    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not (distance >= 0 and float(distance).is_integer()):  # no layer's index equals it (NaN, inf, 1.5, -1)
        return set()
    d = int(distance)
    dist = bfs_distances(G, G.index[source], device, depth=d)
    return set(G.label_list(np.flatnonzero(dist == d)))


@implements()
def descendants(G: Any, source: Any, *, device: Any = None) -> set:
    """networkx.descendants: the nodes reachable from `source`, itself excluded (graphgear's BFS)."""
    dist = bfs_distances(G, _position(G, source), device)
    return set(G.label_list(np.flatnonzero(dist > 0)))


@implements()
def ancestors(G: Any, source: Any, *, device: Any = None) -> set:
    """networkx.ancestors: the nodes that reach `source`, itself excluded (graphgear's BFS over the reversed arcs)."""
    dist = bfs_distances(G, _position(G, source), device, reverse=True)
    return set(G.label_list(np.flatnonzero(dist > 0)))

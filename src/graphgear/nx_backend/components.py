"""Connected, weakly and strongly connected components: networkx.algorithms.components.

graphgear labels the components (`graphgear.connected_components`: Afforest or label propagation;
`graphgear.strongly_connected_components`: Multistep); the sets are built from the labels with one sort. Components
come in NetworkX's order: connected and weakly connected components in the order of their first node (NetworkX
starts a search at each node not yet seen, in node order); strongly connected ones in the order NetworkX's depth-first
search completes them (its root, the component's first node the search meets, finishes): `_dfs_times` runs that
search once, compiled, over the arcs in NetworkX's adjacency order, and orders graphgear's components by it (NetworkX's
condensation numbers the components in this order). NetworkX's own decorators refuse a directed graph for
connected_components and an undirected one for the weak and strong functions before graphgear is called, with
NetworkX's exception.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numba
import numpy as np

from .dispatch import device, implements
from .traversal import bfs_distances

__all__ = [
    "connected_components",
    "is_connected",
    "is_strongly_connected",
    "is_weakly_connected",
    "node_connected_component",
    "number_connected_components",
    "number_strongly_connected_components",
    "number_weakly_connected_components",
    "strongly_connected_components",
    "weakly_connected_components",
]


@numba.njit(cache=True, nogil=True)
def _dfs_times(offsets, targets):  # pragma: no cover - numba
    """NetworkX's depth-first search of strongly_connected_components: from every node not yet visited, in node order,
    an iterative search that takes each vertex's arcs in adjacency order. (discovery index, finishing index) per
    vertex."""
    n = offsets.shape[0] - 1
    disc = np.full(n, -1, np.int64)
    fin = np.full(n, -1, np.int64)
    stack = np.empty(n, np.int64)
    cursor = np.empty(n, np.int64)  # each vertex's next arc (NetworkX keeps an iterator per vertex)
    t = 0
    f = 0
    for s in range(n):
        if disc[s] >= 0:
            continue
        top = 0
        stack[0] = s
        disc[s] = t
        t += 1
        cursor[s] = offsets[s]
        while top >= 0:
            v = stack[top]
            k = cursor[v]
            deeper = False
            while k < offsets[v + 1]:
                w = targets[k]
                k += 1
                if disc[w] < 0:
                    disc[w] = t
                    t += 1
                    cursor[w] = offsets[w]
                    top += 1
                    stack[top] = w
                    deeper = True
                    break
            cursor[v] = k
            if not deeper:
                fin[v] = f
                f += 1
                top -= 1
    return disc, fin


def _labels(G: Any, strong: bool, requested: Any) -> np.ndarray:
    """Component labels 0..C-1 numbered in NetworkX's order of the components (an empty graph: none)."""
    if len(G) == 0:
        return np.zeros(0, dtype=np.int64)
    import graphgear

    run = graphgear.strongly_connected_components if strong else graphgear.connected_components
    labels = np.asarray(run(G.graph_for(None), backend=device(requested)).labels, dtype=np.int64)
    _, first, labels = np.unique(labels, return_index=True, return_inverse=True)  # labels 0..C-1
    labels = labels.ravel()
    if strong:  # a component comes when its root (its first vertex the search discovers) finishes
        disc, fin = _dfs_times(G.offsets, G.targets)
        by_discovery = np.argsort(disc)
        _, found = np.unique(labels[by_discovery], return_index=True)
        key = fin[by_discovery[found]]  # per label: its root's finishing index
    else:  # a component comes at its first node
        key = first
    rank = np.empty(key.size, dtype=np.int64)
    rank[np.argsort(key)] = np.arange(key.size)
    return rank[labels]


def _sets(G: Any, labels: np.ndarray) -> Any:
    """The components as sets of labels, component 0 first (a generator, as NetworkX's)."""
    order = np.argsort(labels, kind="stable")
    members = G.label_list(order)
    bounds = np.concatenate(([0], np.cumsum(np.bincount(labels)))).tolist()
    for a, b in pairwise(bounds):
        yield set(members[a:b])


def _count(labels: np.ndarray) -> int:
    return int(labels.max()) + 1 if labels.size else 0


def _pointless() -> Exception:
    import networkx as nx

    return nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")


@implements()
def connected_components(G: Any, *, device: Any = None) -> Any:
    """networkx.connected_components: a generator of sets, in the order of their first node."""
    yield from _sets(G, _labels(G, False, device))


@implements()
def number_connected_components(G: Any, *, device: Any = None) -> int:
    """networkx.number_connected_components."""
    return _count(_labels(G, False, device))


@implements()
def is_connected(G: Any, *, device: Any = None) -> bool:
    """networkx.is_connected (NetworkXPointlessConcept for the null graph)."""
    if len(G) == 0:
        raise _pointless()
    return _count(_labels(G, False, device)) == 1


@implements()
def node_connected_component(G: Any, n: Any, *, device: Any = None) -> set:
    """networkx.node_connected_component: the nodes connected to `n` (graphgear's BFS; KeyError for a missing n, as
    NetworkX's adjacency lookup raises)."""
    hash(n)
    if n not in G:
        raise KeyError(n)
    return set(G.label_list(np.flatnonzero(bfs_distances(G, G.index[n], device) >= 0)))


@implements()
def weakly_connected_components(G: Any, *, device: Any = None) -> Any:
    """networkx.weakly_connected_components: a generator of sets, in the order of their first node."""
    yield from _sets(G, _labels(G, False, device))


@implements()
def number_weakly_connected_components(G: Any, *, device: Any = None) -> int:
    """networkx.number_weakly_connected_components."""
    return _count(_labels(G, False, device))


@implements()
def is_weakly_connected(G: Any, *, device: Any = None) -> bool:
    """networkx.is_weakly_connected (NetworkXPointlessConcept for the null graph)."""
    if len(G) == 0:
        raise _pointless()
    return _count(_labels(G, False, device)) == 1


@implements()
def strongly_connected_components(G: Any, *, device: Any = None) -> Any:
    """networkx.strongly_connected_components: a generator of sets, in the order NetworkX's depth-first search
    completes them."""
    yield from _sets(G, _labels(G, True, device))


@implements()
def number_strongly_connected_components(G: Any, *, device: Any = None) -> int:
    """networkx.number_strongly_connected_components."""
    return _count(_labels(G, True, device))


@implements()
def is_strongly_connected(G: Any, *, device: Any = None) -> bool:
    """networkx.is_strongly_connected (NetworkXPointlessConcept for the null graph)."""
    if len(G) == 0:
        raise _pointless()
    return _count(_labels(G, True, device)) == 1

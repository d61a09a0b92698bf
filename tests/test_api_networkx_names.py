"""The public functions called as NetworkX users call NetworkX's, positionally and by keyword, give NetworkX's answer.

Each graph is a labelled NetworkX graph (string and tuple labels, a weight attribute named "length" besides "weight"),
given either as a Graph built with ``Graph.from_networkx(G, weight=...)`` or as the NetworkX graph itself (the
functions convert it with the call's ``weight`` name through graph.convert.as_graph). The weights are float32 numbers
(a Graph stores float32), so both sides add the same float64 numbers. Results are compared by label.

    networkx                                                   graphgear
    pagerank(G, alpha, personalization, max_iter, tol,         pagerank(G, alpha, personalization, max_iter, tol,
             nstart, weight, dangling)                                  nstart, weight, dangling, *, method, ...)
    betweenness_centrality(G, k, normalized, weight,           betweenness_centrality(G, k, normalized, weight,
                           endpoints, seed)                                           endpoints, seed, *, sources, ...)
    single_source_dijkstra_path_length(G, s, cutoff, weight)   sssp(G, s, *, weight, cutoff, ...).distances
    single_source_shortest_path_length(G, s, cutoff)           bfs(G, s, *, depth_limit, ...).distances
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import graphgear as gg
from graphgear import Graph


def labelled_karate() -> nx.Graph:
    """The karate club with string labels, its 'weight' attribute (1..7) and a 'length' attribute (1 / 2 / 4)."""
    G = nx.relabel_nodes(nx.karate_club_graph(), {v: f"m{v:02d}" for v in range(34)})
    for i, (_, _, data) in enumerate(G.edges(data=True)):
        data["length"] = float(1 << (i % 3))
    return G


def labelled_digraph() -> nx.DiGraph:
    """A random directed graph with tuple labels, dangling vertices and float32 'weight' / 'length' attributes."""
    rng = np.random.default_rng(22)
    G = nx.DiGraph()
    G.add_nodes_from((i // 6, i % 6) for i in range(36))
    nodes = list(G)
    for _ in range(110):
        u, v = rng.choice(36, 2, replace=False)
        G.add_edge(nodes[u], nodes[v], weight=float(np.float32(rng.uniform(0.5, 3))),
                   length=float(rng.integers(1, 4)))
    return G


GRAPHS = {"karate": labelled_karate, "digraph": labelled_digraph}


def by_label(result_graph: Graph, values: np.ndarray) -> dict:
    return dict(zip(result_graph.vertex_labels(np.arange(result_graph.num_vertices)).tolist(), values.tolist()))


def assert_same(ours: dict, theirs: dict, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    assert set(ours) == set(theirs)
    keys = list(theirs)
    np.testing.assert_allclose([ours[k] for k in keys], [theirs[k] for k in keys], rtol=rtol, atol=atol)


def distances(result, missing: float = np.inf) -> dict:
    """{label: distance} of the reached vertices, as networkx's *_path_length functions return them."""
    found = by_label(result.graph, np.asarray(result.distances, dtype=np.float64))
    return {k: v for k, v in found.items() if v != missing}


# ------------------------------------------------------------------------------------------------------ pagerank
@pytest.mark.parametrize("name", GRAPHS)
def test_pagerank_positional_and_keyword(name):
    G = GRAPHS[name]()
    g = Graph.from_networkx(G)
    first = next(iter(G))
    p = {first: 1.0, list(G)[5]: 2.0}
    nstart = {v: 1.0 for v in list(G)[:10]}
    dangling = {list(G)[-1]: 1.0}
    calls = [
        ((0.85,), {}),
        ((0.85, p), {}),
        ((0.9, p, 300, 1e-10), {}),
        ((0.7, p, 300, 1e-10, nstart, "weight", dangling), {}),
        ((0.7, None, 300, 1e-10, nstart, None), {}),
        ((), {"alpha": 0.8, "personalization": p, "max_iter": 500, "tol": 1e-11, "weight": None,
              "dangling": dangling}),
        ((0.85,), {"weight": "weight", "nstart": nstart}),
    ]
    for args, kwargs in calls:
        expected = nx.pagerank(G, *args, **kwargs)
        ours = gg.pagerank(g, *args, **kwargs, backend="cpu")
        assert_same(by_label(ours.graph, ours.ranks), expected, rtol=0, atol=1e-6)
        direct = gg.pagerank(G, *args, **kwargs, backend="cpu")  # the NetworkX graph itself
        assert_same(by_label(direct.graph, direct.ranks), expected, rtol=0, atol=1e-6)
    # a weight named by attribute: converting the NetworkX graph reads that attribute
    expected = nx.pagerank(G, 0.85, None, 100, 1e-6, None, "length")
    ours = gg.pagerank(G, 0.85, None, 100, 1e-6, None, "length", backend="cpu")
    assert_same(by_label(ours.graph, ours.ranks), expected, rtol=0, atol=1e-6)
    g_length = Graph.from_networkx(G, weight="length")
    ours = gg.pagerank(g_length, weight="length", backend="cpu")
    assert_same(by_label(ours.graph, ours.ranks), expected, rtol=0, atol=1e-6)


# ------------------------------------------------------------------------------------------------------ betweenness
@pytest.mark.parametrize("name", GRAPHS)
def test_betweenness_positional_and_keyword(name):
    G = GRAPHS[name]()
    g = Graph.from_networkx(G)
    calls = [
        ((), {}),
        ((None, True, "weight"), {}),
        ((None, False, "weight", True), {}),
        ((7, True, "weight", False, 3), {}),
        ((7, False, None, True, 11), {}),
        ((), {"k": 5, "normalized": True, "weight": "weight", "endpoints": True, "seed": 2}),
        ((None,), {"weight": "weight", "endpoints": False}),
    ]
    for args, kwargs in calls:
        expected = nx.betweenness_centrality(G, *args, **kwargs)
        ours = gg.betweenness_centrality(g, *args, **kwargs, backend="cpu")
        assert_same(by_label(ours.graph, ours.centrality), expected)
        direct = gg.betweenness_centrality(G, *args, **kwargs, backend="cpu")
        assert_same(by_label(direct.graph, direct.centrality), expected)
    expected = nx.betweenness_centrality(G, weight="length")
    ours = gg.betweenness_centrality(G, weight="length", backend="cpu")
    assert_same(by_label(ours.graph, ours.centrality), expected)
    ours = gg.betweenness_centrality(Graph.from_networkx(G, weight="length"), None, True, "length", backend="cpu")
    assert_same(by_label(ours.graph, ours.centrality), expected)


def test_betweenness_subset_of_sources():
    """graphgear's `sources` (keyword-only) is networkx's betweenness_centrality_subset(G, sources, all targets)."""
    G = labelled_karate()
    sources = ["m00", "m33", "m05"]
    expected = nx.betweenness_centrality_subset(G, sources, list(G), normalized=False, weight="weight")
    ours = gg.betweenness_centrality(G, None, False, "weight", sources=sources, backend="cpu")
    assert_same(by_label(ours.graph, ours.centrality), expected)


# ------------------------------------------------------------------------------------------------------ sssp, bfs
@pytest.mark.parametrize("name", GRAPHS)
def test_sssp_weight_and_cutoff(name):
    G = GRAPHS[name]()
    source = next(iter(G))
    for weight in ("weight", "length", None):
        whole = nx.single_source_dijkstra_path_length(G, source, weight=weight)
        for cutoff in (None, 0, 1, 2.5, sorted(whole.values())[len(whole) // 2], max(whole.values())):
            expected = nx.single_source_dijkstra_path_length(G, source, cutoff=cutoff, weight=weight)
            direct = gg.sssp(G, source, weight=weight, cutoff=cutoff, backend="cpu")
            assert_same(distances(direct), expected, rtol=0, atol=0)
            graph = Graph.from_networkx(G, weight=weight)
            for method in ("delta_stepping", "bellman_ford"):
                ours = gg.sssp(graph, source, weight=weight, cutoff=cutoff, method=method, backend="cpu")
                assert_same(distances(ours), expected, rtol=0, atol=0)
            # every predecessor is one of networkx's shortest-path predecessors, none past the cutoff
            pred, _ = nx.dijkstra_predecessor_and_distance(G, source, cutoff=cutoff, weight=weight)
            labels = ours.graph.vertex_labels(np.arange(ours.graph.num_vertices)).tolist()
            for v, u in zip(labels, ours.predecessors.tolist()):
                assert (u == -1) == (v == source or v not in expected)
                if u != -1:
                    assert labels[u] in pred[v]


@pytest.mark.parametrize("name", GRAPHS)
def test_bfs_depth_limit(name):
    G = GRAPHS[name]()
    source = next(iter(G))
    for depth_limit in (None, 0, 1, 2, 3, 10):
        expected = nx.single_source_shortest_path_length(G, source, cutoff=depth_limit)
        for graph in (G, Graph.from_networkx(G)):
            ours = gg.bfs(graph, source, depth_limit=depth_limit, backend="cpu")
            assert_same(distances(ours, missing=-1), expected, rtol=0, atol=0)
        reached = {source} | {v for _, v in nx.bfs_edges(G, source, depth_limit=depth_limit)}
        assert set(distances(ours, missing=-1)) == reached

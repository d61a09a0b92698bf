"""Statistics: Gini, degrees, isolated vertices, weak components and pseudo-diameter against networkx."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphgear as gg
from graphgear.graph.stats import STAT_KEYS, gini


def test_gini_known_values():
    assert gini(np.array([3, 3, 3, 3])) == 0.0
    assert gini(np.array([0, 0, 0, 8])) == pytest.approx(0.75)  # (n-1)/n for one vertex holding everything
    assert gini(np.array([])) == 0.0 and gini(np.zeros(5)) == 0.0
    x = np.array([1.0, 2, 3, 4, 10])
    mean_abs_diff = np.abs(x[:, None] - x[None, :]).mean()
    assert gini(x) == pytest.approx(mean_abs_diff / (2 * x.mean()))


def test_stats_keys_and_cache():
    g = gg.load("grid:6:7")
    stats = g.stats()
    assert tuple(stats) == STAT_KEYS
    assert g.stats() == stats and g.stats() is not stats  # cached, handed out as a copy
    assert stats["pseudo_diameter"] == 6 + 7 - 2
    assert (stats["min_degree"], stats["max_degree"], stats["wcc"], stats["isolated"]) == (2, 4, 1, 0)


def test_path_and_disconnected():
    g = gg.Graph.from_edges(np.arange(9), np.arange(1, 10), num_vertices=13, directed=False)
    s = g.stats()
    assert s["pseudo_diameter"] == 9 and s["isolated"] == 3 and s["wcc"] == 4
    assert s["avg_degree"] == pytest.approx(18 / 13)


def test_directed_isolated_counts_in_edges():
    g = gg.Graph.from_edges([0, 1], [1, 2], num_vertices=4)
    s = g.stats()
    assert s["isolated"] == 1 and s["min_degree"] == 0 and s["max_degree"] == 1 and s["wcc"] == 2
    assert s["pseudo_diameter"] == 2


def test_empty_graphs():
    for g in (gg.Graph.from_edges([], [], num_vertices=0), gg.Graph.from_edges([], [], num_vertices=3)):
        s = g.stats()
        assert s["num_edges"] == 0 and s["pseudo_diameter"] == 0 and s["gini"] == 0.0
        assert s["wcc"] == g.num_vertices and s["isolated"] == g.num_vertices


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 50), m=st.integers(0, 150), directed=st.booleans())
def test_stats_match_networkx(seed, n, m, directed):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    g = gg.Graph.from_edges(src, dst, num_vertices=n, directed=directed)
    ref = nx.DiGraph() if directed else nx.Graph()
    ref.add_nodes_from(range(n))
    ref.add_edges_from((int(u), int(v)) for u, v in zip(src, dst) if u != v)
    s = g.stats()
    degrees = np.array([d for _, d in (ref.out_degree() if directed else ref.degree())])
    assert s["num_edges"] == ref.number_of_edges()
    assert (s["min_degree"], s["max_degree"]) == (degrees.min(), degrees.max())
    assert s["avg_degree"] == pytest.approx(degrees.mean())
    assert s["degree_std"] == pytest.approx(degrees.std())
    assert s["gini"] == pytest.approx(gini(degrees))
    assert s["isolated"] == nx.number_of_isolates(ref)
    assert s["wcc"] == (nx.number_weakly_connected_components(ref) if directed else nx.number_connected_components(ref))
    # the pseudo-diameter is a lower bound on the largest component diameter of the undirected view, and is reached
    undirected = ref.to_undirected()
    diameters = [nx.diameter(undirected.subgraph(c)) for c in nx.connected_components(undirected)]
    assert 0 <= s["pseudo_diameter"] <= max(diameters)
    if nx.is_tree(undirected):
        assert s["pseudo_diameter"] == max(diameters)  # double sweep is exact on trees

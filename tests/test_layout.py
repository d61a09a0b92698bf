"""MultiGraph's degree renumbering (graph/layout.py): a relabelling of the same graph, sorted by out-degree."""

from __future__ import annotations

import numpy as np
import pytest

import graphgear as gg
from graphgear.graph.layout import SKEWED_MIN_ARCS, degree_renumbering, skewed


@pytest.mark.parametrize("spec", ["kron:10:w", "rmat:9:4", "grid:7:9", "er:300:5:w"])
def test_degree_renumbering_is_the_same_graph(spec):
    g = gg.load(spec)
    r = degree_renumbering(g)
    h = r.graph
    assert degree_renumbering(g) is r  # cached
    assert np.array_equal(np.sort(r.order), np.arange(g.num_vertices))
    assert np.array_equal(r.rank[r.order], np.arange(g.num_vertices))
    assert np.all(np.diff(h.out_degree()) <= 0)  # by decreasing out-degree
    assert h.directed == g.directed and h.weighted == g.weighted
    # every arc (u, v, w) of g is the arc (rank[u], rank[v], w) of h
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    mapped = sorted(zip(r.rank[rows].tolist(), r.rank[g.indices].tolist(),
                        (g.weights if g.weighted else np.ones(g.num_arcs)).tolist()))
    h_rows = np.repeat(np.arange(h.num_vertices), h.out_degree())
    theirs = sorted(zip(h_rows.tolist(), h.indices.tolist(), (h.weights if h.weighted else np.ones(h.num_arcs)).tolist()))
    assert mapped == theirs
    x = np.random.default_rng(0).random(g.num_vertices)
    assert np.array_equal(r.to_original(r.to_renumbered(x)), x)
    assert np.array_equal(r.to_renumbered(x), x[r.order])


def test_skewed_needs_a_large_power_law_graph():
    assert not skewed(gg.load("kron:10"))  # power-law but cache-sized
    assert not skewed(gg.load("grid:1100:1000"))  # large but even degrees
    big = gg.load("kron:16")
    assert big.num_arcs >= SKEWED_MIN_ARCS and skewed(big)

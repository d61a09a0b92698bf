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


def test_in_degree_groups_are_multigraphs_table_1():
    """Group 1: in-degree >= 2048, 2: 1024-2047, 3: 512-1023, 4: 256-511, 5: 128-255, 6: below 128 (0-based here)."""
    from graphgear.graph.layout import in_degree_group

    degrees = np.array([5000, 2048, 2047, 1024, 1023, 512, 511, 256, 255, 128, 127, 1, 0])
    assert in_degree_group(degrees).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5]


@pytest.mark.parametrize("spec", ["kron:13:w", "rmat:12:16", "er:300:5:w"])
def test_in_degree_group_renumbering_is_the_same_graph(spec):
    """The groups numbered in order, each in id order; the graph the same up to the relabelling."""
    from graphgear.graph.layout import in_degree_group, in_degree_groups

    g = gg.load(spec)
    r = in_degree_groups(g)
    assert in_degree_groups(g) is r  # cached
    groups = in_degree_group(g.in_degree())[r.order]
    assert np.all(np.diff(groups) >= 0) and np.all(np.diff(r.order)[np.diff(groups) == 0] > 0)
    if spec.startswith("kron"):
        assert len(set(groups.tolist())) >= 3  # the hubs fill the first groups
    assert np.array_equal(in_degree_group(r.graph.in_degree()), groups)
    h = r.graph
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    ones = np.ones(g.num_arcs)
    mapped = sorted(zip(r.rank[rows].tolist(), r.rank[g.indices].tolist(), (g.weights if g.weighted else ones).tolist()))
    h_rows = np.repeat(np.arange(g.num_vertices), h.out_degree())
    assert mapped == sorted(zip(h_rows.tolist(), h.indices.tolist(), (h.weights if h.weighted else ones).tolist()))
    # each row sorted by target (MultiGraphS's segments search them)
    assert all(np.all(np.diff(h.indices[h.offsets[v]:h.offsets[v + 1]]) >= 0) for v in range(h.num_vertices))


def test_shared_group_targets_need_the_groups_numbered_first():
    """MultiGraphS's shared-memory segments (balance=segmented) take the targets of in-degree groups 1-4 as the first
    ids of a graph whose rows are sorted: counted on the in-degree-group layout, refused on kron's given ids (hubs
    anywhere) and on rows out of order, zero on a graph without such targets (any order)."""
    from graphgear.errors import StrategyError
    from graphgear.graph.layout import IN_DEGREE_GROUPS, in_degree_groups, shared_group_targets

    g = gg.load("kron:14")
    grouped = in_degree_groups(g).graph
    assert shared_group_targets(grouped) == int((g.in_degree() >= IN_DEGREE_GROUPS[3]).sum()) > 0
    with pytest.raises(StrategyError, match="numbered first and each row sorted by target.*layout='in_degree_groups'"):
        shared_group_targets(g)
    # the same groups first, one row's two arcs swapped
    indices = grouped.indices.copy()
    v = int(np.flatnonzero(np.diff(grouped.offsets) >= 2)[0])
    k = int(grouped.offsets[v])
    indices[k], indices[k + 1] = indices[k + 1], indices[k]
    with pytest.raises(StrategyError, match="layout='in_degree_groups'"):
        shared_group_targets(gg.Graph(grouped.offsets, indices, None, directed=True))
    assert shared_group_targets(gg.load("grid:30:40")) == 0


@pytest.mark.parametrize("segment", [64, 4096])
def test_shared_group_segments_say_where_each_rows_arcs_into_a_segment_begin(segment):
    """MultiGraphS's segment table: row u, column s < S, is the offset in u's row of its first arc whose target is at
    least s x segment; column S that of its first arc past the targets of groups 1-4. None without such targets."""
    from graphgear.graph.layout import in_degree_groups, shared_group_segments, shared_group_targets

    g = in_degree_groups(gg.load("kron:14:w")).graph
    high = shared_group_targets(g)
    table = shared_group_segments(g, segment)
    count = -(-high // segment)
    assert table.shape == (g.num_vertices, count + 1) and table.dtype == np.int32
    assert shared_group_segments(g, segment) is table  # cached
    bounds = [s * segment for s in range(count)] + [high]
    for u in range(0, g.num_vertices, 37):
        row = g.indices[g.offsets[u]:g.offsets[u + 1]]
        assert table[u].tolist() == [int(np.sum(row < b)) for b in bounds]
    assert shared_group_segments(gg.load("grid:30:40"), segment) is None


BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("spec", ["kron:12:w", "rmat:11:8:w"])
def test_algorithms_on_the_in_degree_groups_answer_in_given_ids(backend, spec):
    """BFS, SSSP and PageRank with layout="in_degree_groups" return what layout="given" does, and say the layout in
    the trace."""
    g = gg.load(spec)
    s = int(np.argmax(g.out_degree()))
    for call, field in ((lambda lay: gg.bfs(g, s, backend=backend, layout=lay), "predecessors"),
                        (lambda lay: gg.sssp(g, s, backend=backend, layout=lay), "distances")):
        grouped, given = call("in_degree_groups"), call("given")
        np.testing.assert_array_equal(getattr(grouped, field), getattr(given, field))
        assert "in-degree group" in grouped.trace.controller
    np.testing.assert_allclose(gg.pagerank(g, backend=backend, layout="in_degree_groups").ranks,
                               gg.pagerank(g, backend=backend, layout="given").ranks, rtol=1e-9, atol=1e-12)

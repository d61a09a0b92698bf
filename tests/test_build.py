"""Property tests of the CSR build (`Graph.from_edges`, `build_csr`) against an independent reference of its policy.

The reference below is plain Python (a list of arcs, a dict for the duplicate policy, one sort) and never calls
graphgear's build code. Policy it encodes:

- self-loops are dropped unless ``self_loops="keep"``; a kept self-loop is stored once, also in an undirected graph;
- a duplicate record repeats an earlier identical *ordered* ``(src, dst)`` record (self-loops are removed first, so a
  dropped self-loop is only counted as a self-loop); duplicates are dropped unless ``duplicates="keep"`` and the arc
  kept carries the minimum weight of its copies;
- an undirected graph stores both arcs of each edge; ``(u, v)`` and ``(v, u)`` records name one edge (not a
  duplicate of each other), so with ``duplicates="drop"`` each direction is stored once with the minimum weight of
  all records of the pair. With ``duplicates="keep"`` every record is kept and mirrored (parallel arcs);
- rows are sorted by target, parallel arcs (kept duplicates) by weight.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphgear.errors import GraphError
from graphgear.graph import build as build_mod
from graphgear.graph.build import BuildCounts, _build_csr_wide, build_csr
from graphgear.graph.graph import Graph

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------------------------------------------- reference
@dataclass
class Ref:
    offsets: np.ndarray
    indices: np.ndarray
    weights: np.ndarray | None
    self_loops_dropped: int
    duplicates_dropped: int
    num_edges: int
    num_self_loops: int
    arcs: list  # sorted (u, v, w) triples


def reference(src, dst, weights, num_vertices, directed, keep_loops, keep_dups) -> Ref:
    """The documented build policy, written independently of graphgear (pure Python over the records)."""
    src = [int(x) for x in src]
    dst = [int(x) for x in dst]
    w32 = None if weights is None else [float(x) for x in np.asarray(weights).astype(np.float32)]
    if num_vertices is None:
        num_vertices = max(src + dst) + 1 if src else 0
    loops_dropped = 0
    records = []
    for i, (u, v) in enumerate(zip(src, dst)):
        if u == v and not keep_loops:
            loops_dropped += 1
            continue
        records.append((u, v, 0.0 if w32 is None else w32[i]))
    seen: set = set()
    dups = 0
    for u, v, _ in records:
        if (u, v) in seen:
            dups += 1
        seen.add((u, v))
    arcs = []
    for u, v, w in records:
        arcs.append((u, v, w))
        if not directed and u != v:
            arcs.append((v, u, w))
    if not keep_dups:
        best: dict = {}
        for u, v, w in arcs:
            best[(u, v)] = w if (u, v) not in best else min(best[(u, v)], w)
        arcs = [(u, v, w) for (u, v), w in best.items()]
    arcs.sort()
    offsets = np.zeros(num_vertices + 1, dtype=np.int64)
    for u, _, _ in arcs:
        offsets[u + 1] += 1
    offsets = np.cumsum(offsets)
    indices = np.array([v for _, v, _ in arcs], dtype=np.int64)
    out_w = None if w32 is None else np.array([w for _, _, w in arcs], dtype=np.float32)
    loops = sum(1 for u, v, _ in arcs if u == v)
    num_edges = len(arcs) if directed else (len(arcs) - loops) // 2 + loops
    return Ref(
        offsets=offsets,
        indices=indices,
        weights=out_w,
        self_loops_dropped=loops_dropped,
        duplicates_dropped=0 if keep_dups else dups,
        num_edges=num_edges,
        num_self_loops=loops,
        arcs=arcs,
    )


def assert_matches(g: Graph, ref: Ref) -> None:
    assert g.offsets.dtype == np.int64
    assert g.indices.dtype == np.int32
    np.testing.assert_array_equal(g.offsets, ref.offsets)
    np.testing.assert_array_equal(g.indices, ref.indices)
    if ref.weights is None:
        assert g.weights is None
    else:
        assert g.weights is not None and g.weights.dtype == np.float32
        np.testing.assert_array_equal(g.weights, ref.weights)  # exact (float32 values, -0.0 == 0.0)
    assert g.counts == BuildCounts(ref.self_loops_dropped, ref.duplicates_dropped)
    assert g.num_vertices == ref.offsets.shape[0] - 1
    assert g.num_arcs == len(ref.arcs)
    assert g.num_edges == ref.num_edges
    assert g.num_self_loops == ref.num_self_loops


def arc_triples(offsets, indices, weights):
    rows = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    w = np.zeros(indices.shape[0], np.float32) if weights is None else weights
    return sorted(zip(rows.tolist(), np.asarray(indices).tolist(), w.tolist()))


# ------------------------------------------------------------------------------------------------------ strategies
WEIGHT_VALUES = {
    "small_int": st.integers(-3, 3),
    "float_pool": st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, -2.25, 3.0, 1e-30, -1e30, 7.0]),
    "float32": st.floats(allow_nan=False, allow_infinity=False, width=32),
}


@st.composite
def edge_inputs(draw, max_records: int = 40, weighted: bool | None = None):
    """(src, dst, weights, num_vertices, directed, self_loops, duplicates) covering the cases the build must handle."""
    id_range = draw(st.sampled_from([1, 2, 3, 4, 6, 10, 30]))  # small ranges: repeats and loops are frequent
    m = draw(st.integers(0, max_records))
    pairs = draw(st.lists(st.tuples(st.integers(0, id_range - 1), st.integers(0, id_range - 1)), min_size=m, max_size=m))
    src = [u for u, _ in pairs]
    dst = [v for _, v in pairs]
    if draw(st.booleans()):  # explicit num_vertices, possibly with isolated vertices past the largest id
        top = max(src + dst) + 1 if pairs else 0
        num_vertices = top + draw(st.integers(0, 4))
    else:
        num_vertices = None
    if weighted is None:
        weighted = draw(st.booleans())
    weights = None
    if weighted:
        kind = draw(st.sampled_from(sorted(WEIGHT_VALUES)))
        weights = draw(st.lists(WEIGHT_VALUES[kind], min_size=m, max_size=m))
        weights = np.array(weights, dtype=np.int64 if kind == "small_int" else np.float64)
    id_dtype = draw(st.sampled_from([np.int64, np.int32, np.uint32, "list"]))
    if id_dtype == "list":
        src_in, dst_in = list(src), list(dst)
    else:
        src_in, dst_in = np.array(src, dtype=id_dtype), np.array(dst, dtype=id_dtype)
    directed = draw(st.booleans())
    self_loops = draw(st.sampled_from(["drop", "keep"]))
    duplicates = draw(st.sampled_from(["drop", "keep"]))
    return src_in, dst_in, weights, num_vertices, directed, self_loops, duplicates


def build_both(inputs):
    src, dst, weights, n, directed, self_loops, duplicates = inputs
    g = Graph.from_edges(src, dst, weights, num_vertices=n, directed=directed, self_loops=self_loops, duplicates=duplicates)
    ref = reference(src, dst, weights, n, directed, self_loops == "keep", duplicates == "keep")
    return g, ref


# ------------------------------------------------------------------------------------------------- property tests
@settings(max_examples=250, **SETTINGS)
@given(edge_inputs())
def test_from_edges_matches_reference(inputs):
    g, ref = build_both(inputs)
    assert_matches(g, ref)
    assert g.directed == inputs[4]
    assert g.vertex_ids is None
    # rows sorted by target (parallel arcs by weight)
    for u in range(g.num_vertices):
        row = g.indices[g.offsets[u] : g.offsets[u + 1]]
        assert np.all(np.diff(row) >= 0)


@settings(max_examples=60, **SETTINGS)
@given(edge_inputs(), st.randoms(use_true_random=False))
def test_record_order_does_not_matter(inputs, rnd):
    src, dst, weights, n, directed, self_loops, duplicates = inputs
    order = list(range(len(src)))
    rnd.shuffle(order)
    g1 = Graph.from_edges(src, dst, weights, num_vertices=n, directed=directed, self_loops=self_loops, duplicates=duplicates)
    src2, dst2 = np.asarray(src, dtype=np.int64)[order], np.asarray(dst, dtype=np.int64)[order]
    w2 = None if weights is None else weights[order]
    g2 = Graph.from_edges(src2, dst2, w2, num_vertices=n, directed=directed, self_loops=self_loops, duplicates=duplicates)
    np.testing.assert_array_equal(g1.offsets, g2.offsets)
    np.testing.assert_array_equal(g1.indices, g2.indices)
    if weights is not None:
        np.testing.assert_array_equal(g1.weights, g2.weights)
    assert g1.counts == g2.counts


@settings(max_examples=80, **SETTINGS)
@given(edge_inputs())
def test_wide_build_equals_normal_build(inputs):
    """`_build_csr_wide` (the int64 path for V >= 2^31) on small inputs gives what `build_csr` gives."""
    src, dst, weights, n, directed, self_loops, duplicates = inputs
    s = np.asarray(src, dtype=np.int64)
    d = np.asarray(dst, dtype=np.int64)
    if n is None:
        n = int(max(s.max(), d.max())) + 1 if s.size else 0
    w = None if weights is None else np.asarray(weights).astype(np.float32)
    keep_loops, keep_dups = self_loops == "keep", duplicates == "keep"
    off1, ind1, w1, c1 = build_csr(s, d, w, n, directed, keep_self_loops=keep_loops, keep_duplicates=keep_dups)

    loops = s == d
    n_loops = int(loops.sum())
    s2, d2, wv = s, d, w
    if n_loops and not keep_loops:  # build_csr drops loops before it hands over to the wide path
        s2, d2 = s[~loops], d[~loops]
        wv = None if w is None else w[~loops]
    off2, ind2, w2, c2 = _build_csr_wide(s2, d2, wv, n, directed, keep_dups, n_loops, keep_loops)

    assert off2.dtype == np.int64 and ind2.dtype == np.int64
    np.testing.assert_array_equal(off1, off2)
    np.testing.assert_array_equal(ind1, ind2)
    if w is None:
        assert w1 is None and w2 is None
    else:
        assert w2.dtype == np.float32
        np.testing.assert_array_equal(w1, w2)
    assert c1 == c2
    ref = reference(s, d, w, n, directed, keep_loops, keep_dups)
    np.testing.assert_array_equal(off2, ref.offsets)
    np.testing.assert_array_equal(ind2, ref.indices)
    assert c2 == BuildCounts(ref.self_loops_dropped, ref.duplicates_dropped)


@settings(max_examples=50, **SETTINGS)
@given(edge_inputs())
def test_from_edges_through_wide_path_matches_reference(inputs):
    """Force build_csr's dispatch to the wide path (threshold lowered) and check the whole from_edges result."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(build_mod, "_PACKED_LIMIT", 0)
        g, ref = build_both(inputs)
    assert_matches(g, ref)


@settings(max_examples=60, **SETTINGS)
@given(edge_inputs())
def test_csc_is_transpose(inputs):
    g, ref = build_both(inputs)
    t_off, t_ind, t_w = g.csc()
    assert t_off.dtype == np.int64 and t_off.shape == g.offsets.shape
    assert (t_w is None) == (g.weights is None)
    for v in range(g.num_vertices):  # each column sorted by source
        assert np.all(np.diff(t_ind[t_off[v] : t_off[v + 1]]) >= 0)
    transposed = g.to_scipy().T.tocoo()
    expected = sorted(zip(transposed.row.tolist(), transposed.col.tolist(), transposed.data.tolist()))
    got = arc_triples(t_off, t_ind, t_w if t_w is not None else np.ones(t_ind.shape[0], np.float32))
    assert got == expected
    # and against the reference: (v, u, w) for every reference arc u -> v
    want = sorted((v, u, w) for u, v, w in ref.arcs)
    assert arc_triples(t_off, t_ind, t_w) == [(a, b, w if t_w is not None else 0.0) for a, b, w in want]
    np.testing.assert_array_equal(g.in_degree(), np.bincount(g.indices, minlength=g.num_vertices))
    if not g.directed:
        assert t_off is g.offsets and t_ind is g.indices


@settings(max_examples=60, **SETTINGS)
@given(edge_inputs())
def test_scipy_round_trip(inputs):
    g, _ = build_both(inputs)
    m = g.to_scipy()
    assert m.shape == (g.num_vertices, g.num_vertices)
    assert m.dtype == np.float32
    if g.num_vertices == 0:
        return
    has_parallel = any(
        np.any(np.diff(g.indices[g.offsets[u] : g.offsets[u + 1]]) == 0) for u in range(g.num_vertices)
    )
    if has_parallel:  # a multigraph does not survive the matrix (from_scipy drops the repeated entries)
        return
    h = Graph.from_scipy(m, directed=g.directed, self_loops="keep")
    np.testing.assert_array_equal(h.offsets, g.offsets)
    np.testing.assert_array_equal(h.indices, g.indices)
    want_w = np.ones(g.num_arcs, np.float32) if g.weights is None else g.weights
    np.testing.assert_array_equal(h.weights, want_w)
    assert h.counts == BuildCounts(0, 0)
    assert h.num_edges == g.num_edges
    if not g.directed and g.num_arcs:  # a symmetric matrix is read back as undirected without being told
        auto = Graph.from_scipy(m, self_loops="keep")
        assert not auto.directed
        np.testing.assert_array_equal(auto.indices, g.indices)


@settings(max_examples=60, **SETTINGS)
@given(edge_inputs())
def test_to_networkx_matches_networkx_from_records(inputs):
    src, dst, weights, n, directed, self_loops, duplicates = inputs
    g = Graph.from_edges(src, dst, weights, num_vertices=n, directed=directed, self_loops=self_loops)  # drop duplicates
    expected = nx.DiGraph() if directed else nx.Graph()
    expected.add_nodes_from(range(g.num_vertices))
    w32 = None if weights is None else np.asarray(weights).astype(np.float32).tolist()
    for i, (u, v) in enumerate(zip(list(src), list(dst))):
        u, v = int(u), int(v)
        if u == v and self_loops == "drop":
            continue
        if w32 is None:
            expected.add_edge(u, v)
        elif expected.has_edge(u, v):
            expected[u][v]["weight"] = min(expected[u][v]["weight"], w32[i])
        else:
            expected.add_edge(u, v, weight=w32[i])
    got = g.to_networkx()
    assert type(got) is type(expected)
    assert sorted(got.nodes) == sorted(expected.nodes)
    if w32 is None:
        assert set(got.edges) == set(expected.edges)
    else:
        assert set(got.edges(data="weight")) == set(expected.edges(data="weight"))
    assert got.number_of_edges() == g.num_edges


# ------------------------------------------------------------------------------------------------ worked examples
def test_empty_graph_without_vertices():
    for src, dst in (([], []), (np.array([], np.int64), np.array([], np.int64))):
        g = Graph.from_edges(src, dst)
        np.testing.assert_array_equal(g.offsets, [0])
        assert g.num_vertices == 0 and g.num_arcs == 0 and g.num_edges == 0
        assert g.counts == BuildCounts(0, 0)
        assert g.csc()[0].tolist() == [0]
        assert g.to_scipy().shape == (0, 0)
        assert g.to_networkx().number_of_nodes() == 0


@pytest.mark.parametrize("directed", [True, False])
def test_vertices_without_edges(directed):
    g = Graph.from_edges([], [], [], num_vertices=5, directed=directed)
    np.testing.assert_array_equal(g.offsets, np.zeros(6))
    assert g.indices.size == 0 and g.weights is not None and g.weights.size == 0
    assert g.num_edges == 0
    np.testing.assert_array_equal(g.out_degree(), np.zeros(5))
    np.testing.assert_array_equal(g.in_degree(), np.zeros(5))
    assert sorted(g.to_networkx().nodes) == [0, 1, 2, 3, 4]


def test_one_vertex():
    g = Graph.from_edges([0], [0])
    assert g.num_vertices == 1 and g.num_arcs == 0 and g.counts == BuildCounts(1, 0)
    g = Graph.from_edges([0, 0], [0, 0], [2.0, 1.0], self_loops="keep", directed=False)
    assert g.indices.tolist() == [0] and g.weights.tolist() == [1.0]
    assert g.num_edges == 1 and g.num_self_loops == 1 and g.counts == BuildCounts(0, 1)


def test_isolated_vertices_past_largest_id():
    g = Graph.from_edges([0, 1], [1, 2], num_vertices=6)
    assert g.num_vertices == 6
    assert g.offsets.tolist() == [0, 1, 2, 2, 2, 2, 2]


def test_undirected_pair_is_one_edge_with_minimum_weight():
    g = Graph.from_edges([0, 1], [1, 0], [5.0, 3.0], directed=False)
    assert g.offsets.tolist() == [0, 1, 2] and g.indices.tolist() == [1, 0]
    assert g.weights.tolist() == [3.0, 3.0]
    assert g.num_edges == 1 and g.counts == BuildCounts(0, 0)


def test_undirected_keep_duplicates_keeps_every_record_in_both_directions():
    """Current behaviour, pinned: with duplicates="keep" each record of an undirected graph is an edge, so a pair
    listed both ways, (0, 1) and (1, 0), becomes two parallel edges (with "drop" it is one edge)."""
    g = Graph.from_edges([0, 1], [1, 0], [5.0, 3.0], directed=False, duplicates="keep")
    assert g.offsets.tolist() == [0, 2, 4] and g.indices.tolist() == [1, 1, 0, 0]
    assert g.weights.tolist() == [3.0, 5.0, 3.0, 5.0]
    assert g.num_edges == 2 and g.counts == BuildCounts(0, 0)


def test_duplicates_keep_minimum_weight_and_are_counted():
    g = Graph.from_edges([0, 0, 0, 1], [1, 1, 1, 0], [4.0, -2.0, 7.0, 9.0])
    assert g.indices.tolist() == [1, 0] and g.weights.tolist() == [-2.0, 9.0]
    assert g.counts == BuildCounts(0, 2)
    g = Graph.from_edges([0, 0, 0, 1], [1, 1, 1, 0], [4.0, -2.0, 7.0, 9.0], duplicates="keep")
    assert g.indices.tolist() == [1, 1, 1, 0] and g.weights.tolist() == [-2.0, 4.0, 7.0, 9.0]
    assert g.counts == BuildCounts(0, 0)


def test_dropped_self_loop_duplicates_count_only_as_self_loops():
    g = Graph.from_edges([2, 2, 2, 0, 0], [2, 2, 2, 1, 1])
    assert g.counts == BuildCounts(self_loops_dropped=3, duplicates_dropped=1)
    g = Graph.from_edges([2, 2, 2, 0, 0], [2, 2, 2, 1, 1], self_loops="keep")
    assert g.counts == BuildCounts(self_loops_dropped=0, duplicates_dropped=3)
    assert g.num_self_loops == 1


def test_kept_self_loop_is_stored_once_in_undirected_graph():
    g = Graph.from_edges([0, 1], [0, 2], [1.5, 2.5], directed=False, self_loops="keep")
    assert g.offsets.tolist() == [0, 1, 2, 3] and g.indices.tolist() == [0, 2, 1]
    assert g.num_edges == 2 and g.num_self_loops == 1


def test_negative_and_zero_weights_order():
    g = Graph.from_edges([0, 0, 0], [1, 1, 1], [0.0, -1e-30, -0.0], duplicates="keep")
    assert g.weights.tolist()[0] == np.float32(-1e-30)
    g = Graph.from_edges([0, 0], [1, 1], [-3.5, -7.25])
    assert g.weights.tolist() == [-7.25]


def test_int32_min_and_large_float32_weights_survive():
    big = np.float32(3.0e38)
    g = Graph.from_edges([0, 1], [1, 0], np.array([big, -big], dtype=np.float32))
    assert g.weights.tolist() == [float(big), float(-big)]


# ------------------------------------------------------------------------------------------------------ bad inputs
BAD_INPUTS = [
    pytest.param(dict(src=[0, -1], dst=[1, 2]), r"src\[1\] = -1 is out of range", id="negative-src"),
    pytest.param(dict(src=[0, 1], dst=[-4, 2], num_vertices=3), r"dst\[0\] = -4 is out of range", id="negative-dst"),
    pytest.param(dict(src=[0, 5], dst=[1, 2], num_vertices=5), r"src\[1\] = 5 is out of range for 5 vertices",
                 id="src-too-large"),
    pytest.param(dict(src=[0, 1], dst=[1, 3], num_vertices=3), r"dst\[1\] = 3 is out of range for 3 vertices",
                 id="dst-too-large"),
    pytest.param(dict(src=[0, 1, 2], dst=[1, 2]), r"one length.*\(3,\) and \(2,\)", id="length-mismatch"),
    pytest.param(dict(src=np.zeros((2, 2), np.int64), dst=np.zeros((2, 2), np.int64)), r"1-D.*\(2, 2\)", id="2d"),
    pytest.param(dict(src=[0, 1], dst=np.zeros((2, 1), np.int64)), r"1-D.*\(2, 1\)", id="2d-dst"),
    pytest.param(dict(src=[0.0, 1.5], dst=[1.0, 2.0], renumber=False), r"src must hold integer vertex ids",
                 id="float-src"),
    pytest.param(dict(src=[0, 1], dst=np.array([1.0, 2.5]), renumber=False), r"dst must hold integer vertex ids",
                 id="float-dst"),
    pytest.param(dict(src=[0.0, np.nan], dst=[1.0, 2.0], renumber=False), r"src must hold integer", id="nan-id"),
    pytest.param(dict(src=np.array([True]), dst=np.array([False]), renumber=False), r"integer vertex ids",
                 id="bool-ids"),
    pytest.param(dict(src=np.array([2**63], np.uint64), dst=np.array([0], np.uint64)), r"does not fit in int64",
                 id="uint64-overflow"),
    pytest.param(dict(src=[0, 1, 2], dst=[1, 2, 0], weights=[1.0, 2.0]), r"weights must have the shape.*\(3,\).*\(2,\)",
                 id="weights-length"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], weights=[[1.0], [2.0]]), r"weights must have the shape", id="weights-2d"),
    pytest.param(dict(src=[0, 1, 2], dst=[1, 2, 0], weights=[1.0, np.nan, 2.0]), r"weights\[1\] = nan",
                 id="nan-weight"),
    pytest.param(dict(src=[0, 1, 2], dst=[1, 2, 0], weights=[1.0, 2.0, np.inf]), r"weights\[2\] = inf",
                 id="inf-weight"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], weights=[-np.inf, 2.0]), r"weights\[0\] = -inf", id="neg-inf-weight"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], weights=[1.0, 1e300]), r"weights\[1\].*not a finite float32",
                 id="weight-overflows-float32"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], weights=["a", "b"]), r"weights must be numbers.*<U1", id="str-weights"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], weights=[True, False]), r"weights must be numbers.*bool",
                 id="bool-weights"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], self_loops="maybe"), r"self_loops must be 'drop' or 'keep', got 'maybe'",
                 id="self-loops-policy"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], duplicates="maybe"), r"duplicates must be 'drop' or 'keep', got 'maybe'",
                 id="duplicates-policy"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], duplicates=True), r"duplicates must be 'drop' or 'keep', got True",
                 id="duplicates-bool"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], renumber=True, num_vertices=3),
                 r"num_vertices cannot be given with renumber=True", id="renumber-and-num-vertices"),
    pytest.param(dict(src=[0, 1], dst=[1, 2], num_vertices=-1), r"num_vertices must be >= 0, got -1",
                 id="negative-num-vertices"),
    pytest.param(dict(src=[], dst=[], num_vertices=-2), r"num_vertices must be >= 0", id="negative-num-vertices-empty"),
]


@pytest.mark.parametrize(("kwargs", "match"), BAD_INPUTS)
def test_bad_inputs_raise_graph_error(kwargs, match):
    kwargs = dict(kwargs)
    src, dst = kwargs.pop("src"), kwargs.pop("dst")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the float32 overflow case warns on the cast
        with pytest.raises(GraphError, match=match) as info:
            Graph.from_edges(src, dst, **kwargs)
    assert isinstance(info.value, ValueError)


def test_graph_error_is_raised_by_vertex_lookups():
    g = Graph.from_edges([0, 1], [1, 2])
    assert g.vertex_index(2) == 2
    with pytest.raises(GraphError, match=r"vertex\[0\] = 3 is out of range for 3 vertices"):
        g.vertex_index(3)
    with pytest.raises(GraphError, match=r"vertex\[1\] = -1 is out of range"):
        g.vertex_index([0, -1])


def test_csr_constructor_checks_its_arrays():
    with pytest.raises(GraphError, match="offsets"):
        Graph(np.array([0, 2, 1]), np.array([0, 1]))
    with pytest.raises(GraphError, match=r"indices hold 1 arcs but offsets end at 2"):
        Graph(np.array([0, 1, 2]), np.array([0]))
    with pytest.raises(GraphError, match=r"indices\[1\] = 2 is out of range"):
        Graph(np.array([0, 1, 2]), np.array([1, 2]))
    with pytest.raises(GraphError, match=r"1 weights for 2 arcs"):
        Graph(np.array([0, 1, 2]), np.array([1, 0]), np.array([1.0]))


def test_scipy_and_reference_agree_on_a_random_multigraph():
    """A larger deterministic case (more than one numba thread chunk of rows) against scipy's own duplicate handling."""
    rng = np.random.default_rng(7)
    n, m = 500, 20_000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 50, m).astype(np.float64)
    g = Graph.from_edges(src, dst, w, num_vertices=n)
    ref = reference(src, dst, w, n, True, False, False)
    assert_matches(g, ref)
    keep = src != dst
    pattern = scipy.sparse.coo_array((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n)).tocsr()
    pattern.sum_duplicates()
    pattern.sort_indices()
    np.testing.assert_array_equal(g.offsets, pattern.indptr)
    np.testing.assert_array_equal(g.indices, pattern.indices)
    assert g.counts.duplicates_dropped == int(keep.sum()) - pattern.nnz


def test_whole_float_ids_are_ids_and_fractional_ones_an_error_by_default():
    g = Graph.from_edges(np.array([0.0, 5.0]), np.array([1.0, 2.0]))
    assert g.num_vertices == 6 and g.vertex_ids is None
    with pytest.raises(GraphError, match="src must hold integer vertex ids"):
        Graph.from_edges([0.0, 1.5], [1.0, 2.0])
    with pytest.raises(GraphError, match="src must hold integer"):
        Graph.from_edges([0.0, np.nan], [1.0, 2.0])


def test_vertex_labels_checks_its_range():
    g = Graph.from_edges(["a", "b"], ["b", "c"])
    with pytest.raises(GraphError, match="out of range"):
        g.vertex_labels([0, 3])
    with pytest.raises(GraphError, match="out of range"):
        Graph.from_edges([0], [1]).vertex_labels(-1)

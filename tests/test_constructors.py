"""The constructors from SciPy, NetworkX and edge tables, and renumbering of vertex labels."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp

from graphgear.errors import GraphError
from graphgear.graph.build import BuildCounts
from graphgear.graph.graph import Graph


def arcs(g: Graph, labels: bool = False):
    """Sorted (u, v, w) arcs of a Graph (w None when unweighted), as user labels when asked."""
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    u, v = rows, g.indices
    if labels:
        u, v = g.vertex_labels(u), g.vertex_labels(v)
    w = [None] * g.num_arcs if g.weights is None else g.weights.tolist()
    return sorted(zip(np.asarray(u).tolist(), np.asarray(v).tolist(), w), key=repr)


def nx_edges(G: nx.Graph, weight: str | None = "weight"):
    """Edge set of a networkx graph with weights; undirected edges as frozensets so the orientation does not matter."""
    out = set()
    for u, v, w in G.edges(data=weight):
        key = (u, v) if G.is_directed() else frozenset((u, v))
        out.add((key, w))
    return out


# --------------------------------------------------------------------------------------------------------- scipy
DIRECTED_DENSE = np.array(
    [
        [0, 2, 0, 0],
        [0, 0, 3, 0],
        [1, 0, 0, 4],
        [0, 0, 0, 0],
    ],
    dtype=np.float64,
)
SYMMETRIC_DENSE = np.array(
    [
        [0, 2, 0, 5],
        [2, 0, 3, 0],
        [0, 3, 0, 0],
        [5, 0, 0, 0],
    ],
    dtype=np.float64,
)


@pytest.mark.parametrize("fmt", ["csr_array", "coo_array", "csr_matrix", "coo_matrix", "csc_array"])
def test_from_scipy_non_symmetric_is_directed(fmt):
    m = getattr(sp, fmt)(DIRECTED_DENSE)
    g = Graph.from_scipy(m)
    assert g.directed
    assert g.num_vertices == 4 and g.num_edges == 4
    assert arcs(g) == [(0, 1, 2.0), (1, 2, 3.0), (2, 0, 1.0), (2, 3, 4.0)]
    assert g.weights.dtype == np.float32
    np.testing.assert_array_equal(g.to_scipy().toarray(), DIRECTED_DENSE)


@pytest.mark.parametrize("fmt", ["csr_array", "coo_array", "csr_matrix"])
def test_from_scipy_symmetric_is_undirected(fmt):
    m = getattr(sp, fmt)(SYMMETRIC_DENSE)
    g = Graph.from_scipy(m)
    assert not g.directed
    assert g.num_edges == 3 and g.num_arcs == 6
    assert g.counts == BuildCounts(0, 0)  # (u, v) and (v, u) are one edge, not a duplicate
    np.testing.assert_array_equal(g.to_scipy().toarray(), SYMMETRIC_DENSE)
    forced = Graph.from_scipy(m, directed=True)
    assert forced.directed and forced.num_edges == 6


def test_from_scipy_bool_pattern_is_unweighted():
    pattern = sp.csr_array(DIRECTED_DENSE != 0)
    g = Graph.from_scipy(pattern)
    assert g.weights is None and not g.weighted
    assert g.directed
    assert arcs(g) == [(0, 1, None), (1, 2, None), (2, 0, None), (2, 3, None)]
    sym = Graph.from_scipy(sp.coo_array(SYMMETRIC_DENSE != 0))
    assert sym.weights is None and not sym.directed and sym.num_edges == 3


def test_from_scipy_integer_matrix_gives_float32_weights():
    g = Graph.from_scipy(sp.csr_array(DIRECTED_DENSE.astype(np.int32)))
    assert g.weights.dtype == np.float32
    assert g.weights.tolist() == [2.0, 3.0, 1.0, 4.0]


def test_from_scipy_diagonal_follows_self_loop_policy():
    m = sp.csr_array(np.array([[7.0, 1.0], [0.0, 0.0]]))
    g = Graph.from_scipy(m)
    assert arcs(g) == [(0, 1, 1.0)] and g.counts.self_loops_dropped == 1
    kept = Graph.from_scipy(m, self_loops="keep")
    assert arcs(kept) == [(0, 0, 7.0), (0, 1, 1.0)] and kept.num_self_loops == 1


def test_from_scipy_empty_and_isolated():
    g = Graph.from_scipy(sp.csr_array((5, 5), dtype=np.float64))
    assert g.num_vertices == 5 and g.num_arcs == 0
    g = Graph.from_scipy(sp.csr_array(np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])))
    assert g.num_vertices == 3 and g.out_degree().tolist() == [1, 0, 0]


def test_from_scipy_non_square_is_an_error():
    with pytest.raises(GraphError, match=r"square.*\(2, 3\)"):
        Graph.from_scipy(sp.csr_array(np.ones((2, 3))))


@pytest.mark.parametrize("not_sparse", [np.eye(3), [[0, 1], [1, 0]], "matrix"])
def test_from_scipy_requires_a_sparse_matrix(not_sparse):
    with pytest.raises(GraphError, match="expected a scipy.sparse matrix"):
        Graph.from_scipy(not_sparse)


def test_from_scipy_round_trip_unweighted_to_scipy():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0])
    h = Graph.from_scipy(g.to_scipy())
    np.testing.assert_array_equal(h.indices, g.indices)
    np.testing.assert_array_equal(h.weights, np.ones(3, np.float32))


# ------------------------------------------------------------------------------------------------------ networkx
def labelled_graph(directed: bool) -> nx.Graph:
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_node("carol")  # node order: carol, alice, bob, dave(isolated), erin
    G.add_edge("alice", "bob", weight=2.5)
    G.add_edge("bob", "carol", weight=-1.0)
    G.add_edge("carol", "alice", weight=4.0)
    G.add_node("dave")
    G.add_edge("erin", "alice", weight=0.0)
    return G


@pytest.mark.parametrize("directed", [True, False])
def test_from_networkx_string_labels(directed):
    G = labelled_graph(directed)
    g = Graph.from_networkx(G)
    assert g.directed == directed
    assert g.vertex_ids.tolist() == ["carol", "alice", "bob", "dave", "erin"]  # node order, not sorted
    assert g.num_vertices == 5 and g.num_edges == 4
    assert g.out_degree()[g.vertex_index("dave")] == 0  # isolated node kept
    expected = [(u, v, float(w)) for u, v, w in G.edges(data="weight")]
    if not directed:
        expected += [(v, u, w) for u, v, w in expected]
    assert arcs(g, labels=True) == sorted(expected, key=repr)
    assert g.vertex_index(["alice", "erin"]).tolist() == [1, 4]
    assert g.vertex_index("carol") == 0
    assert g.vertex_labels([4, 2]).tolist() == ["erin", "bob"]


@pytest.mark.parametrize("directed", [True, False])
def test_from_networkx_round_trip(directed):
    G = labelled_graph(directed)
    back = Graph.from_networkx(G).to_networkx()
    assert type(back) is type(G)
    assert list(back.nodes) == list(G.nodes)
    assert nx_edges(back) == nx_edges(G)


def test_from_networkx_unweighted_and_partial_weights():
    G = nx.DiGraph([("x", "y"), ("y", "z")])
    g = Graph.from_networkx(G)
    assert g.weights is None
    G["x"]["y"]["weight"] = 3.0  # only some edges weighted: no weights
    assert Graph.from_networkx(G).weights is None
    assert Graph.from_networkx(G, weight=None).weights is None
    G["y"]["z"]["weight"] = 1.0
    assert Graph.from_networkx(G).weights.tolist() == [3.0, 1.0]
    G["x"]["y"]["cost"] = 9
    G["y"]["z"]["cost"] = 8
    assert sorted(Graph.from_networkx(G, weight="cost").weights.tolist()) == [8.0, 9.0]


def test_from_networkx_integer_nodes_in_order_have_no_labels():
    G = nx.path_graph(4)
    g = Graph.from_networkx(G)
    assert g.vertex_ids is None and not g.directed and g.num_edges == 3
    assert nx_edges(g.to_networkx(), weight=None) == nx_edges(G, weight=None)


def test_from_networkx_integer_nodes_out_of_order_keep_labels():
    G = nx.DiGraph()
    G.add_nodes_from([30, 10, 20])
    G.add_edge(10, 30, weight=1.0)
    G.add_edge(20, 10, weight=2.0)
    g = Graph.from_networkx(G)
    assert g.vertex_ids.tolist() == [30, 10, 20]
    assert g.vertex_index(10) == 1
    assert arcs(g, labels=True) == sorted([(10, 30, 1.0), (20, 10, 2.0)], key=repr)
    assert nx_edges(g.to_networkx()) == nx_edges(G)


def test_from_networkx_mixed_label_types_are_kept():
    """Labels of different types (1 and "a") must not be coerced to one type (numpy would make "1" of 1)."""
    G = nx.Graph()
    G.add_edge(1, "a", weight=2.0)
    G.add_node("z")
    g = Graph.from_networkx(G)
    assert g.vertex_ids.tolist() == [1, "a", "z"]
    assert g.vertex_index(1) == 0
    assert set(g.to_networkx().nodes) == {1, "a", "z"}
    assert nx_edges(g.to_networkx()) == nx_edges(G)


def test_from_networkx_tuple_labels():
    G = nx.grid_2d_graph(2, 3)
    g = Graph.from_networkx(G)
    assert [tuple(x) for x in g.vertex_ids.tolist()] == list(G.nodes)
    back = g.to_networkx()
    assert set(back.nodes) == set(G.nodes)
    assert nx_edges(back, weight=None) == nx_edges(G, weight=None)


def test_from_networkx_self_loops_follow_policy():
    G = nx.Graph()
    G.add_edge("a", "a", weight=1.0)
    G.add_edge("a", "b", weight=2.0)
    g = Graph.from_networkx(G)
    assert g.num_edges == 1 and g.counts.self_loops_dropped == 1
    kept = Graph.from_networkx(G, self_loops="keep")
    assert kept.num_edges == 2 and kept.num_self_loops == 1
    assert nx_edges(kept.to_networkx()) == nx_edges(G)


def test_from_networkx_rejects_non_graphs():
    with pytest.raises(GraphError, match="expected a networkx graph, got list"):
        Graph.from_networkx([(0, 1)])


# ---------------------------------------------------------------------------------------------------------- tables
EDGES = {"a": ["x", "y", "z", "x"], "b": ["y", "z", "x", "y"], "cost": [1.5, 2.0, -3.0, 0.5]}


def check_table_graph(g: Graph):
    assert g.vertex_ids.tolist() == ["x", "y", "z"]
    assert g.counts == BuildCounts(0, 1)  # the second x -> y record is a duplicate
    assert arcs(g, labels=True) == [("x", "y", 0.5), ("y", "z", 2.0), ("z", "x", -3.0)]


def test_from_table_pandas():
    df = pd.DataFrame(EDGES)
    check_table_graph(Graph.from_table(df, source="a", target="b", weight="cost"))
    g = Graph.from_table(df.rename(columns={"a": "src", "b": "dst"}))  # default column names, no weight
    assert g.weights is None and g.num_edges == 3


def test_from_table_pyarrow():
    table = pa.table(EDGES)
    check_table_graph(Graph.from_table(table, source="a", target="b", weight="cost"))
    chunked = pa.concat_tables([table.slice(0, 2), table.slice(2)])  # several chunks per column
    assert chunked.column("a").num_chunks == 2
    check_table_graph(Graph.from_table(chunked, source="a", target="b", weight="cost"))


@pytest.mark.parametrize("make", [pd.DataFrame, pa.table], ids=["pandas", "pyarrow"])
def test_from_table_integer_ids_and_options(make):
    table = make({"src": np.array([0, 1, 2, 1], np.int64), "dst": np.array([1, 2, 0, 0], np.int64),
                  "w": np.array([1, 2, 3, 4], np.int32)})
    g = Graph.from_table(table, weight="w", directed=False, duplicates="keep")
    assert g.vertex_ids is None and not g.directed
    assert g.num_vertices == 3 and g.num_edges == 4
    assert arcs(g)[:3] == [(0, 1, 1.0), (0, 1, 4.0), (0, 2, 3.0)]


@pytest.mark.parametrize("make", [pd.DataFrame, pa.table], ids=["pandas", "pyarrow"])
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(source="from"), r"no source column 'from'.*\['a', 'b', 'cost'\]"),
        (dict(source="a", target="to"), r"no target column 'to'"),
        (dict(source="a", target="b", weight="weight"), r"no weight column 'weight'"),
        (dict(), r"no source column 'src'"),
    ],
)
def test_from_table_missing_column(make, kwargs, match):
    with pytest.raises(GraphError, match=match):
        Graph.from_table(make(EDGES), **kwargs)


@pytest.mark.parametrize("make", [pd.DataFrame, pa.table], ids=["pandas", "pyarrow"])
@pytest.mark.parametrize(("source", "target"), [("src", "dst"), ("source", "target"), ("source", "destination")])
def test_from_table_finds_the_usual_column_names(make, source, target):
    """No column named: graphgear's src/dst, NetworkX's source/target, cuGraph's source/destination."""
    table = make({source: EDGES["a"], target: EDGES["b"], "cost": EDGES["cost"]})
    check_table_graph(Graph.from_table(table, weight="cost"))
    assert Graph.from_table(table).weights is None


def test_from_table_reads_networkx_edge_lists():
    """Graph.from_table(nx.to_pandas_edgelist(G)) as written (it failed on the source/target names before)."""
    G = nx.DiGraph()
    G.add_weighted_edges_from([("x", "y", 0.5), ("y", "z", 2.0), ("z", "x", -3.0)])
    g = Graph.from_table(nx.to_pandas_edgelist(G), weight="weight")
    assert arcs(g, labels=True) == [("x", "y", 0.5), ("y", "z", 2.0), ("z", "x", -3.0)]


def test_from_table_refuses_two_pairs_of_names():
    table = pd.DataFrame({"src": [0], "dst": [1], "source": [1], "target": [0]})
    with pytest.raises(GraphError, match="'src'/'dst' and 'source'/'target'.*name them with source= and target="):
        Graph.from_table(table)
    assert arcs(Graph.from_table(table, source="source", target="target")) == [(1, 0, None)]


def test_from_networkx_refuses_multigraphs():
    G = nx.MultiDiGraph([(0, 1), (0, 1)])
    with pytest.raises(GraphError, match="MultiDiGraph has parallel edges"):
        Graph.from_networkx(G)
    assert Graph.from_networkx(nx.DiGraph(G)).num_edges == 1  # the conversion the message suggests


def test_from_table_null_weight_is_an_error():
    table = pa.table({"src": [0, 1], "dst": [1, 2], "w": pa.array([1.0, None])})
    with pytest.raises(GraphError, match=r"weights\[1\] = nan"):
        Graph.from_table(table, weight="w")


# ----------------------------------------------------------------------------------------------------- renumbering
def test_renumber_sparse_integer_ids():
    g = Graph.from_edges([10**12, 10, 1000], [10, 1000, 10**12], [1.0, 2.0, 3.0], renumber=True)
    assert g.num_vertices == 3
    assert g.vertex_ids.tolist() == [10, 1000, 10**12]
    assert g.vertex_index([10**12, 10]).tolist() == [2, 0]
    assert g.vertex_index(1000) == 1 and isinstance(g.vertex_index(1000), int)
    assert g.vertex_labels([0, 2]).tolist() == [10, 10**12]
    assert g.vertex_labels(g.vertex_index([1000, 10, 10**12])).tolist() == [1000, 10, 10**12]
    assert arcs(g, labels=True) == sorted([(10**12, 10, 1.0), (10, 1000, 2.0), (1000, 10**12, 3.0)], key=repr)
    with pytest.raises(GraphError, match="vertex 5 is not in the graph"):
        g.vertex_index(5)
    with pytest.raises(GraphError, match="vertex 7 is not in the graph"):
        g.vertex_index([10, 7])
    assert set(g.to_networkx().nodes) == {10, 1000, 10**12}


def test_string_labels_are_renumbered_in_sorted_order():
    g1 = Graph.from_edges(["b", "c", "a"], ["a", "b", "d"])
    g2 = Graph.from_edges(["a", "c", "b"], ["d", "b", "a"])  # same records, another order
    for g in (g1, g2):
        assert g.vertex_ids.tolist() == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(g1.offsets, g2.offsets)
    np.testing.assert_array_equal(g1.indices, g2.indices)
    assert arcs(g1, labels=True) == sorted([("b", "a", None), ("c", "b", None), ("a", "d", None)], key=repr)
    with pytest.raises(GraphError, match="vertex 'zz' is not in the graph"):
        g1.vertex_index("zz")


def test_renumber_undirected_with_self_loops_and_duplicates():
    g = Graph.from_edges(["u", "v", "u", "w"], ["v", "u", "u", "w"], directed=False)
    assert g.vertex_ids.tolist() == ["u", "v", "w"]
    assert g.num_edges == 1 and g.counts == BuildCounts(2, 0)
    assert g.out_degree().tolist() == [1, 1, 0]  # "w" only had a self-loop: it stays, isolated


def test_unsortable_labels_are_an_error():
    with pytest.raises(GraphError, match="cannot be sorted"):
        Graph.from_edges(np.array([1, "a"], dtype=object), np.array(["b", 2], dtype=object))


def test_renumber_false_keeps_dense_ids():
    g = Graph.from_edges([0, 5], [5, 0], renumber=False)
    assert g.num_vertices == 6 and g.vertex_ids is None
    assert g.vertex_labels([5]).tolist() == [5]


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e39])
def test_every_constructor_refuses_weights_that_are_not_finite_float32(bad):
    """One check for the CSR constructor and the edge-record ones: NaN, +-inf, and a float64 beyond float32's range
    (the cast made it inf), named by position and value (Graph: the arc; from_edges, from_scipy, from_networkx,
    from_table: the record)."""
    shown = repr(float(bad)).replace("+", r"\+")
    with pytest.raises(GraphError, match=rf"weights\[2\] = {shown} is not a finite float32"):
        Graph(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), np.array([1.0, 2.0, bad]))
    with pytest.raises(GraphError, match=rf"weights\[2\] = {shown} is not a finite float32"):
        Graph.from_edges([0, 0, 1], [1, 2, 2], [1.0, 2.0, bad])
    with pytest.raises(GraphError, match=rf"weights\[2\] = {shown} is not a finite float32"):
        Graph.from_table(pd.DataFrame({"src": [0, 0, 1], "dst": [1, 2, 2], "w": [1.0, 2.0, bad]}), weight="w")
    with pytest.raises(GraphError, match="is not a finite float32"):
        Graph.from_scipy(sp.csr_array((np.array([1.0, 2.0, bad]), np.array([1, 2, 2]), np.array([0, 2, 3, 3]))))
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 1.0), (0, 2, 2.0), (1, 2, bad)])
    with pytest.raises(GraphError, match="is not a finite float32"):
        Graph.from_networkx(G)


def test_largest_float32_weight_is_kept():
    """float32's largest finite value (3.4e38) is a weight like any other; only what lies beyond it is refused."""
    big = float(np.finfo(np.float32).max)
    g = Graph(np.array([0, 1, 1]), np.array([1]), np.array([big]))
    assert g.weights.tolist() == [big]


def test_graph_refuses_ids_that_int32_would_wrap():
    """An int64 index past 2^32 must be refused before the cast to int32 storage turns it into a valid id."""
    with pytest.raises(GraphError, match="indices"):
        Graph(np.array([0, 1, 1]), np.array([2**32 + 1], dtype=np.int64))

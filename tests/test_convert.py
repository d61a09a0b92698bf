"""`as_graph`: every kind of input a public function takes (Graph, path or spec, NetworkX, SciPy, pandas, pyarrow), the
edge tables' column detection, the weight argument, and the refusals."""

from __future__ import annotations

import sys

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.sparse as sp

import graphgear as gg
from graphgear.errors import GraphError
from graphgear.graph.build import TABLE_COLUMNS, gapless_or_renumbered, renumber_ids, table_columns
from graphgear.graph.convert import as_graph
from graphgear.graph.graph import Graph


def labelled_arcs(g: Graph) -> list[tuple]:
    """Sorted (u, v, w) arcs in the graph's labels (w None when unweighted)."""
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    u, v = g.vertex_labels(rows).tolist(), g.vertex_labels(g.indices).tolist()
    w = [None] * g.num_arcs if g.weights is None else g.weights.tolist()
    return sorted(zip(u, v, w), key=repr)


def weighted_digraph() -> nx.DiGraph:
    G = nx.DiGraph()
    G.add_edge("a", "b", weight=2.0, cost=7.0)
    G.add_edge("b", "c", weight=0.5, cost=1.0)
    G.add_edge("c", "a", weight=4.0, cost=3.0)
    G.add_node("lonely")
    return G


# --------------------------------------------------------------------------------------------------- every input
def test_a_graph_is_returned_as_it_is():
    g = gg.load("grid:3:3")
    assert as_graph(g) is g
    assert as_graph(g, weight=None) is g


def test_paths_and_specs_are_loaded(tmp_path):
    path = tmp_path / "e.el"
    path.write_text("0 1\n1 2\n")
    for obj in (path, str(path)):
        g = as_graph(obj)
        assert (g.num_vertices, g.num_edges) == (3, 2)
    spec = as_graph("grid:3:4")
    assert (spec.num_vertices, spec.num_edges) == (12, 17)


@pytest.mark.parametrize("directed", [True, False])
def test_networkx_graph_with_labels_and_weights(directed):
    G = weighted_digraph() if directed else weighted_digraph().to_undirected()
    g = as_graph(G)
    assert g.directed == directed and g.vertex_ids.tolist() == list(G.nodes)
    assert g.num_vertices == 4 and g.num_edges == 3
    expected = [(u, v, w) for u, v, w in G.edges(data="weight")]
    if not directed:
        expected += [(v, u, w) for u, v, w in expected]
    assert labelled_arcs(g) == sorted(expected, key=repr)


def test_networkx_weight_argument():
    G = weighted_digraph()
    assert sorted(as_graph(G, weight="cost").weights.tolist()) == [1.0, 3.0, 7.0]
    assert as_graph(G, weight=None).weights is None
    assert as_graph(G, weight="missing").weights is None  # no edge has it: unweighted, as Graph.from_networkx
    G["a"]["b"].pop("cost")
    assert as_graph(G, weight="cost").weights is None  # some edge lacks it: unweighted


def test_networkx_integer_nodes_in_order_need_no_labels():
    g = as_graph(nx.path_graph(5))
    assert g.vertex_ids is None and not g.directed and g.num_edges == 4


@pytest.mark.parametrize("kind", [nx.MultiGraph, nx.MultiDiGraph])
def test_networkx_multigraphs_are_refused(kind):
    G = kind()
    G.add_edge(0, 1, weight=1.0)
    G.add_edge(0, 1, weight=2.0)
    with pytest.raises(GraphError, match=rf"{kind.__name__} has parallel edges"):
        as_graph(G)
    with pytest.raises(GraphError, match="parallel edges"):
        Graph.from_networkx(G)


def test_networkx_edges_are_iterated_once():
    """The conversion walks G's edges once (on a large graph that Python loop is the whole cost)."""
    walks = []

    class Walked:  # an edge view (or its data view) that counts the walks over it
        def __init__(self, view):
            self.view = view

        def __call__(self, *args, **kwargs):
            return Walked(self.view(*args, **kwargs))

        def __iter__(self):
            walks.append(1)
            return iter(self.view)

        def __len__(self):
            return len(self.view)

    class Counted(nx.DiGraph):
        @property
        def edges(self):
            return Walked(super().edges)

    H = Counted(weighted_digraph())
    for weight in ("weight", None):
        walks.clear()
        g = as_graph(H, weight=weight)
        assert len(walks) == 1 and g.num_edges == 3
        assert (g.weights is None) == (weight is None)


@pytest.mark.parametrize("fmt", ["csr_array", "coo_array", "csr_matrix", "csc_matrix"])
def test_scipy_sparse_matrices_and_arrays(fmt):
    dense = np.array([[0, 2.5, 0], [0, 0, 3.0], [1.0, 0, 0]])
    g = as_graph(getattr(sp, fmt)(dense))
    assert g.directed and g.vertex_ids is None
    assert labelled_arcs(g) == [(0, 1, 2.5), (1, 2, 3.0), (2, 0, 1.0)]
    pattern = as_graph(getattr(sp, fmt)(dense), weight=None)
    assert pattern.weights is None and labelled_arcs(pattern) == [(0, 1, None), (1, 2, None), (2, 0, None)]
    symmetric = as_graph(getattr(sp, fmt)(dense + dense.T))
    assert not symmetric.directed and symmetric.num_edges == 3


def test_scipy_explicit_zero_is_an_edge_of_the_pattern():
    m = sp.csr_array((np.array([0.0, 2.0]), np.array([1, 2]), np.array([0, 2, 2, 2])), shape=(3, 3))
    assert m.nnz == 2
    assert labelled_arcs(as_graph(m, weight=None)) == [(0, 1, None), (0, 2, None)]
    assert labelled_arcs(as_graph(m)) == [(0, 1, 0.0), (0, 2, 2.0)]


def test_scipy_size_is_the_vertex_count():
    g = as_graph(sp.csr_array((5, 5), dtype=np.float64))
    assert g.num_vertices == 5 and g.num_arcs == 0


TABLE_KINDS = [pd.DataFrame, pa.table]


@pytest.mark.parametrize("make", TABLE_KINDS, ids=["pandas", "pyarrow"])
@pytest.mark.parametrize("source,target", TABLE_COLUMNS)
def test_tables_of_every_naming(make, source, target):
    table = make({source: ["x", "y", "z"], target: ["y", "z", "x"], "weight": [1.5, 2.0, 3.0]})
    g = as_graph(table)
    assert g.directed and g.vertex_ids.tolist() == ["x", "y", "z"]
    assert labelled_arcs(g) == [("x", "y", 1.5), ("y", "z", 2.0), ("z", "x", 3.0)]
    assert as_graph(table, weight=None).weights is None
    unweighted = Graph.from_table(table)  # Graph.from_table finds the same columns (no weight unless named)
    assert unweighted.weights is None and labelled_arcs(unweighted) == [(u, v, None) for u, v, _ in labelled_arcs(g)]


@pytest.mark.parametrize("make", TABLE_KINDS, ids=["pandas", "pyarrow"])
def test_table_weight_column_by_the_weight_argument(make):
    table = make({"src": [0, 1], "dst": [1, 2], "weight": [5.0, 6.0], "cost": [1, 2]})
    assert as_graph(table).weights.tolist() == [5.0, 6.0]
    assert as_graph(table, weight="cost").weights.tolist() == [1.0, 2.0]
    assert as_graph(table, weight="absent").weights is None  # no such column: unweighted


def test_networkx_to_pandas_edgelist_round_trip():
    """The table NetworkX writes for a graph, read as it is by as_graph and by Graph.from_table."""
    G = weighted_digraph()
    G.remove_node("lonely")  # an edge table has no isolated vertices
    df = nx.to_pandas_edgelist(G)
    assert list(df.columns[:2]) == ["source", "target"]
    g = as_graph(df)
    assert labelled_arcs(g) == sorted(G.edges(data="weight"), key=repr)
    assert Graph.from_table(df, weight="weight").num_edges == 3
    ranks = gg.pagerank(df, backend="cpu").to_dict()
    expected = nx.pagerank(G)
    assert ranks.keys() == expected.keys()
    assert max(abs(ranks[v] - expected[v]) for v in ranks) < 1e-5


@pytest.mark.parametrize("make", TABLE_KINDS, ids=["pandas", "pyarrow"])
def test_table_integer_ids(make):
    dense = as_graph(make({"src": [0, 1, 2], "dst": [1, 2, 0]}))
    assert dense.vertex_ids is None and dense.num_vertices == 3
    gaps = as_graph(make({"source": [10, 30], "target": [30, 20]}))  # no phantom vertices 0..9, 11..19, 21..29
    assert gaps.num_vertices == 3 and gaps.vertex_ids.tolist() == [10, 20, 30]
    assert labelled_arcs(gaps) == [(10, 30, None), (30, 20, None)]
    negative = as_graph(make({"src": [-1, 0], "dst": [0, 1]}))
    assert negative.vertex_ids.tolist() == [-1, 0, 1]
    huge = as_graph(make({"src": [10**12], "dst": [5]}))
    assert huge.vertex_ids.tolist() == [5, 10**12]


@pytest.mark.parametrize("high", [50, 10**9], ids=["mask", "sort"])
def test_gap_renumbering_matches_a_sort_and_leaves_the_columns_alone(high):
    """Both ways of renumbering table ids (a mask over a small id range, a sort over a wide one) number the ids named
    in increasing order, as renumber_ids does, and never write the user's arrays."""
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, high, 40), rng.integers(0, high, 40)
    kept = src.copy(), dst.copy()
    s, d, labels = gapless_or_renumbered(src, dst)
    want_s, want_d, want_labels = renumber_ids(src, dst)
    np.testing.assert_array_equal(labels, want_labels)
    np.testing.assert_array_equal(s, want_s)
    np.testing.assert_array_equal(d, want_d)
    np.testing.assert_array_equal(src, kept[0])
    np.testing.assert_array_equal(dst, kept[1])
    dense = np.arange(10)
    assert gapless_or_renumbered(dense, dense[::-1])[2] is None


def test_pyarrow_chunked_columns():
    table = pa.table({"source": [0, 1, 2, 3], "target": [1, 2, 3, 0], "weight": [1.0, 2.0, 3.0, 4.0]})
    chunked = pa.concat_tables([table.slice(0, 1), table.slice(1)])
    assert chunked.column("source").num_chunks == 2
    assert labelled_arcs(as_graph(chunked)) == labelled_arcs(as_graph(table))


# ------------------------------------------------------------------------------------------------ column detection
def test_detection_names_the_columns_it_found_or_missed():
    assert table_columns(["source", "target", "weight"]) == ("source", "target")
    assert table_columns(["w", "destination", "source"]) == ("source", "destination")
    assert table_columns(["src", "dst"]) == ("src", "dst")
    assert table_columns(["a", "dst"], source="a") == ("a", "dst")  # one given, the other found
    assert table_columns(["source", "b"], target="b") == ("source", "b")
    assert table_columns(["a", "b"], "a", "b") == ("a", "b")


@pytest.mark.parametrize("columns,words", [
    (["a", "b"], r"no source column 'src' or 'source' and no target column 'dst', 'target' or 'destination'"),
    (["source", "x"], r"no target column 'target' or 'destination' to go with 'source'"),
    (["dst", "x"], r"no source column 'src' to go with 'dst'"),
    (["source", "target", "destination"], r"'source'/'target' and 'source'/'destination'"),
    (["src", "dst", "source", "target"], r"'src'/'dst' and 'source'/'target'"),
])
def test_detection_errors(columns, words):
    with pytest.raises(GraphError, match=words) as info:
        table_columns(columns)
    assert str(columns) in str(info.value)
    with pytest.raises(GraphError, match=words):
        as_graph(pd.DataFrame({c: [0, 1] for c in columns}))


def test_detection_with_one_column_given():
    with pytest.raises(GraphError, match=r"target columns 'dst' and 'target'"):
        table_columns(["a", "dst", "target"], source="a")
    with pytest.raises(GraphError, match=r"no source column 'src' or 'source' to go with 'b'"):
        table_columns(["a", "b"], target="b")


def test_from_table_still_refuses_a_named_column_it_lacks():
    df = pd.DataFrame({"source": [0], "target": [1]})
    with pytest.raises(GraphError, match=r"no source column 'from'"):
        Graph.from_table(df, source="from")
    with pytest.raises(GraphError, match=r"no weight column 'weight'"):
        Graph.from_table(df, weight="weight")


# ------------------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("obj", [3, 1.5, None, [(0, 1)], {0: [1]}, np.eye(3), object(), b"kron:3"],
                         ids=lambda o: type(o).__name__)
def test_anything_else_is_refused_by_type(obj):
    with pytest.raises(GraphError, match=rf"got {type(obj).__name__}"):
        as_graph(obj)


@pytest.mark.parametrize("weight", [3, ["weight"], True])
def test_weight_must_be_a_name_or_none(weight):
    with pytest.raises(GraphError, match="weight must be the name"):
        as_graph(nx.path_graph(3), weight=weight)


def test_optional_packages_are_not_imported_to_recognise_inputs(monkeypatch):
    """An input is told apart by the modules already loaded: without pandas imported, nothing is a DataFrame."""
    for name in ("pandas", "pyarrow", "networkx", "scipy.sparse"):
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(GraphError, match="got list"):
        as_graph([(0, 1)])
    assert "pandas" not in sys.modules and "networkx" not in sys.modules

"""Results in the user's labels (results.py): to_dict / to_pandas / to_arrow of every algorithm on labelled graphs
(CPU backend), against NetworkX; vertex-valued arrays (predecessors, colours) reported as labels; graphs without
labels; the error that names the extra to install when pandas or pyarrow is missing."""

from __future__ import annotations

import sys

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import graphgear as gg
from graphgear.errors import GraphgearError
from graphgear.results import MissingExtraError


def labelled_digraph() -> nx.DiGraph:
    """Strings in an order that is not sorted, integer weights (exact sums), two strong components and more, a vertex
    no one reaches and an isolated one."""
    G = nx.DiGraph()
    G.add_node("zoe")  # isolated, and first in node order
    for u, v, w in [("mia", "ann", 2), ("ann", "bob", 1), ("bob", "mia", 4), ("bob", "cat", 3), ("cat", "dan", 1),
                    ("dan", "cat", 2), ("eve", "ann", 5), ("mia", "dan", 9)]:
        G.add_edge(u, v, weight=w)
    return G


G = labelled_digraph()
SOURCE = "mia"


@pytest.fixture(scope="module")
def g() -> gg.Graph:
    graph = gg.Graph.from_networkx(G)
    assert graph.vertex_ids.tolist() == list(G.nodes) and graph.weighted
    return graph


def or_none(column: pd.Series) -> list:
    """The column's values, None where pandas says missing (NaN in a string column, NA in an Int64 one)."""
    return [None if missing else v for v, missing in zip(column.tolist(), column.isna())]


def frame_and_table(result):
    """to_pandas and to_arrow, checked to hold the same columns and values (null as None)."""
    frame, table = result.to_pandas(), result.to_arrow()
    assert isinstance(frame, pd.DataFrame) and isinstance(table, pa.Table)
    assert list(frame.columns) == table.column_names == ["vertex", *result.arrays()]
    for name in frame.columns:
        if name == "distances":  # inf, not missing
            assert frame[name].tolist() == table.column(name).to_pylist()
        else:
            assert or_none(frame[name]) == table.column(name).to_pylist(), name
    return frame, table


# ------------------------------------------------------------------------------------------------- every algorithm
def test_bfs(g):
    r = gg.bfs(g, SOURCE, backend="cpu")
    assert r.to_dict() == nx.single_source_shortest_path_length(G, SOURCE)  # the vertices reached, as NetworkX
    frame, table = frame_and_table(r)
    assert frame["vertex"].tolist() == list(G.nodes)
    parents = dict(zip(frame["vertex"], or_none(frame["predecessors"])))
    depth = nx.single_source_shortest_path_length(G, SOURCE)
    for v in G.nodes:
        if v == SOURCE or v not in depth:
            assert parents[v] is None  # the source and the unreached (eve, zoe) have none
        else:
            assert parents[v] in G.pred[v] and depth[parents[v]] == depth[v] - 1
    assert table.schema.field("predecessors").type == pa.string()
    assert r.predecessors.dtype == np.int64  # the array itself stays internal indices
    assert r.predecessors[g.vertex_index("ann")] == g.vertex_index(parents["ann"])


def test_sssp(g):
    r = gg.sssp(g, SOURCE, backend="cpu")
    expected = nx.single_source_dijkstra_path_length(G, SOURCE)
    assert r.to_dict() == {v: float(d) for v, d in expected.items()}
    frame, _ = frame_and_table(r)
    parents = dict(zip(frame["vertex"], or_none(frame["predecessors"])))
    for v, d in expected.items():
        if v != SOURCE:
            assert expected[parents[v]] + G[parents[v]][v]["weight"] == d
    assert parents[SOURCE] is None and parents["eve"] is None


def test_sssp_hops(g):
    """weight=None counts hops (sssp runs BFS from the source it resolved: the label must be resolved once)."""
    r = gg.sssp(g, SOURCE, weight=None, backend="cpu")
    assert r.to_dict() == {v: float(d) for v, d in nx.single_source_shortest_path_length(G, SOURCE).items()}


def test_pagerank(g):
    r = gg.pagerank(g, tol=1e-12, max_iter=1000, backend="cpu")
    ours, theirs = r.to_dict(), nx.pagerank(G, tol=1e-12, max_iter=1000)
    assert list(ours) == list(G.nodes)
    assert all(abs(ours[v] - theirs[v]) < 1e-9 for v in G.nodes)
    assert all(isinstance(x, float) for x in ours.values())
    frame, _ = frame_and_table(r)
    assert list(frame.columns) == ["vertex", "ranks"]  # iterations is not a per-vertex array


@pytest.mark.parametrize("strong", [False, True])
def test_components(g, strong):
    r = gg.strongly_connected_components(g, backend="cpu") if strong else gg.connected_components(g, backend="cpu")
    numbers = r.to_dict()
    assert set(numbers) == set(G.nodes)
    assert set(numbers.values()) == set(range(r.num_components))  # component numbers, not vertices
    groups = nx.strongly_connected_components(G) if strong else nx.weakly_connected_components(G)
    assert sorted(sorted(c) for c in groups) == sorted(
        sorted(v for v in numbers if numbers[v] == c) for c in range(r.num_components))
    frame, _ = frame_and_table(r)
    assert frame["labels"].dtype == np.int64


def test_betweenness(g):
    r = gg.betweenness_centrality(g, backend="cpu")
    ours, theirs = r.to_dict(), nx.betweenness_centrality(G)
    assert ours.keys() == theirs.keys()
    assert all(abs(ours[v] - theirs[v]) < 1e-12 for v in G.nodes)
    frame_and_table(r)


def test_color_propagation_reports_labels(g):
    """colors[v] is the largest internal index reaching v (node order decides here, not the labels' order); the
    exports report its label."""
    r = gg.color_propagation(g, backend="cpu")
    position = {v: i for i, v in enumerate(G.nodes)}
    expected = {v: max(nx.ancestors(G, v) | {v}, key=position.get) for v in G.nodes}
    assert r.to_dict() == expected
    assert r.colors.tolist() == [position[expected[v]] for v in G.nodes]  # the array: internal indices
    frame, table = frame_and_table(r)
    assert frame["colors"].tolist() == [expected[v] for v in G.nodes]
    assert table.schema.field("colors").type == pa.string()


# --------------------------------------------------------------------------------------------------- other labels
def test_integer_labels_from_a_file_with_gaps(tmp_path):
    path = tmp_path / "votes.txt"
    path.write_text("30 1412\n30 3352\n1412 3352\n7 30\n")
    g = gg.load(path)
    r = gg.bfs(g, 30, backend="cpu")
    assert r.to_dict() == {30: 0, 1412: 1, 3352: 1}
    frame, table = frame_and_table(r)
    assert frame["vertex"].tolist() == [7, 30, 1412, 3352]
    assert str(frame["predecessors"].dtype) == "Int64"  # integer labels stay integers, NA where there is none
    assert frame["predecessors"].isna().tolist() == [True, True, False, False]
    assert table.column("predecessors").to_pylist() == [None, None, 30, 30]
    assert table.schema.field("predecessors").type == pa.int64()  # numbers with nulls, not strings
    assert table.schema.field("vertex").type == pa.int64()
    colors = gg.color_propagation(g, backend="cpu").to_dict()
    assert colors == {7: 7, 30: 30, 1412: 1412, 3352: 3352}  # sorted labels: the largest index is the largest id


def test_tuple_labels():
    grid = nx.grid_2d_graph(2, 3)
    g = gg.Graph.from_networkx(grid)
    r = gg.bfs(g, (0, 0), backend="cpu")
    assert r.to_dict() == nx.single_source_shortest_path_length(grid, (0, 0))
    frame = r.to_pandas()
    assert frame["vertex"].tolist() == list(grid.nodes)
    assert frame["predecessors"].isna()[0] and frame["predecessors"].tolist()[1] == (0, 0)
    assert r.to_arrow().column("predecessors").to_pylist()[1] == [0, 0]  # pyarrow stores a tuple as a list


def test_labels_pyarrow_cannot_store_are_a_graphgear_error():
    mixed = nx.DiGraph([(1, "a"), ("a", 2.5)])
    r = gg.pagerank(gg.Graph.from_networkx(mixed), backend="cpu")
    assert r.to_dict().keys() == {1, "a", 2.5}
    assert r.to_pandas()["vertex"].tolist() == [1, "a", 2.5]
    with pytest.raises(GraphgearError, match="column 'vertex' holds labels pyarrow cannot store"):
        r.to_arrow()


def test_graph_without_labels_reports_indices():
    g = gg.Graph.from_edges([0, 1, 3], [1, 2, 0], num_vertices=5, renumber=False)
    r = gg.bfs(g, 0, backend="cpu")
    assert r.to_dict() == {0: 0, 1: 1, 2: 2}
    frame, table = frame_and_table(r)
    assert frame["vertex"].tolist() == [0, 1, 2, 3, 4]
    assert frame["predecessors"].tolist() == [-1, 0, 1, -1, -1]  # the array as it is
    assert table.schema.field("predecessors").type == pa.int64()
    assert gg.color_propagation(g, backend="cpu").to_dict() == {0: 3, 1: 3, 2: 3, 3: 3, 4: 4}


def test_empty_graph():
    r = gg.pagerank(gg.Graph.from_edges([], [], num_vertices=0), backend="cpu")
    assert r.to_dict() == {}
    assert len(r.to_pandas()) == 0 and r.to_arrow().num_rows == 0


def test_unreachable_distances_are_left_out_of_to_dict_only():
    g = gg.Graph.from_edges(["a", "c"], ["b", "a"], [1.0, 1.0])
    r = gg.sssp(g, "a", backend="cpu")
    assert r.to_dict() == {"a": 0.0, "b": 1.0}
    assert np.isinf(r.to_pandas().set_index("vertex").loc["c", "distances"])


# -------------------------------------------------------------------------------------------- optional packages
@pytest.mark.parametrize("module,export,install", [
    ("pandas", "to_pandas", "pip install graphgear[pandas]"),
    ("pyarrow", "to_arrow", "pip install graphgear[arrow]"),
])
def test_missing_package_names_what_to_install(monkeypatch, module, export, install):
    r = gg.bfs(gg.Graph.from_edges(["a"], ["b"]), "a", backend="cpu")
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed: importing it raises ImportError
    with pytest.raises(MissingExtraError) as info:
        getattr(r, export)()
    assert isinstance(info.value, GraphgearError) and isinstance(info.value, ImportError)
    assert install in str(info.value) and module in str(info.value)
    assert r.to_dict() == {"a": 0, "b": 1}  # to_dict needs neither

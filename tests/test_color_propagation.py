"""Color propagation (Slota et al., Algorithm 2) against independent references.

colors[v] must be the largest vertex id that reaches v along edges (v included). References: NetworkX on graphs built
straight from the edge records (max over nx.ancestors(v) | {v}; for undirected graphs the max of v's component), and,
for the real graphs, a SciPy/NetworkX condensation: the strongly connected components in topological order, each
taking the max of its own ids and of its predecessors' colors. Every CPU execution path gives the same colors.
"""

from __future__ import annotations

import functools

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components as scipy_components

import graphgear as gg
from graphgear.algorithms.color_propagation import color_propagation
from graphgear.engine.strategy import Strategy
from graphgear.errors import StrategyError
from graphgear.graph.graph import Graph
from graphgear.results import ColorResult

from conftest import CPU_PATHS, REAL_GRAPHS, assert_multistep_trace, edge_records, real_graph

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PATHS = CPU_PATHS


# ------------------------------------------------------------------------------------------------------- references
def networkx_reference(n: int, src, dst, directed: bool) -> np.ndarray:
    """max(ancestors(v) | {v}) on a NetworkX graph built from the records (loops and repeats included)."""
    g = nx.MultiDiGraph() if directed else nx.MultiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(map(int, src), map(int, dst)))
    if directed:
        return np.array([max(nx.ancestors(g, v) | {v}) for v in range(n)], dtype=np.int64)
    return np.array([max(nx.node_connected_component(g, v)) for v in range(n)], dtype=np.int64)


def condensation_reference(g: Graph) -> np.ndarray:
    """Largest id reaching each vertex, through the DAG of strongly connected components (SciPy + NetworkX)."""
    n = g.num_vertices
    matrix = g.to_scipy()
    count, scc = scipy_components(matrix, directed=True, connection="strong")
    top = np.full(count, -1, dtype=np.int64)
    np.maximum.at(top, scc, np.arange(n))
    rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
    a, b = scc[rows], scc[matrix.indices]
    dag = nx.DiGraph()
    dag.add_nodes_from(range(count))
    dag.add_edges_from(zip(a[a != b].tolist(), b[a != b].tolist()))
    for c in nx.topological_sort(dag):
        for d in dag.successors(c):
            top[d] = max(top[d], top[c])
    return top[scc]


def check(result: ColorResult, expected: np.ndarray, graph: Graph) -> None:
    assert isinstance(result, ColorResult)
    assert result.graph is graph
    assert result.colors.dtype == np.int64
    np.testing.assert_array_equal(result.colors, expected)


# ------------------------------------------------------------------------------------------------------- hypothesis


@settings(max_examples=210, **SETTINGS)
@given(edge_records(max_vertices=26), st.sampled_from(["auto", "adaptive", "static"] + PATHS))
def test_hypothesis_matches_networkx(records, strategy):
    n, src, dst, weights, directed, loops, dups = records
    w = None if weights is None else np.asarray(weights, dtype=np.float32)
    g = Graph.from_edges(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), w, num_vertices=n,
                         directed=directed, self_loops=loops, duplicates=dups)
    result = color_propagation(g, strategy=strategy)
    check(result, networkx_reference(n, src, dst, directed), g)
    assert len(result.trace) >= (1 if n else 0)


# ------------------------------------------------------------------------------------------------------- real graphs
@functools.lru_cache(maxsize=None)
def load_real(name: str) -> Graph:
    return gg.load(real_graph(name))


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(name):
    g = load_real(name)
    expected = condensation_reference(g)
    if not g.directed:  # the max id of each component, a second check of the reference
        labels = scipy_components(g.to_scipy(), directed=False)[1]
        top = np.full(labels.max() + 1, -1)
        np.maximum.at(top, labels, np.arange(g.num_vertices))
        np.testing.assert_array_equal(expected, top[labels])
    check(color_propagation(g), expected, g)


# ------------------------------------------------------------------------------------------------------- every path
SPECS = ("rmat:9:4", "grid:20:20:0.6", "kron:8")


@functools.lru_cache(maxsize=None)
def load_spec(spec: str) -> Graph:
    return gg.load(spec)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("spec", SPECS)
def test_every_path(spec, path):
    g = load_spec(spec)
    result = color_propagation(g, strategy=path)
    check(result, condensation_reference(g), g)
    rows = result.trace.rows
    assert {row.path for row in rows} == {Strategy.parse(path).path}
    assert rows[0].frontier_vertices == g.num_vertices  # every vertex starts active
    assert all(row.frontier_vertices > 0 for row in rows)
    s = Strategy.parse(path)
    if s.sync == "async" and s.direction == "push":  # one worklist drained to the fixed point in a single call
        assert len(rows) == 1


def test_auto_is_sep_graph_algorithm_1():
    g = load_spec("kron:8")
    trace = color_propagation(g).trace
    assert trace.rows[0].path == "sync-pull-td" and trace.rows[0].reason.startswith("inspect candidate 1/3")
    assert all(row.path in ("sync-pull-td", "async-push-td", "async-push-dd") for row in trace)


def test_hand_examples():
    path = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), directed=True)
    np.testing.assert_array_equal(color_propagation(path).colors, [0, 1, 2])
    back = Graph.from_edges(np.array([2, 1]), np.array([1, 0]), directed=True)
    np.testing.assert_array_equal(color_propagation(back).colors, [2, 2, 2])
    two = Graph.from_edges(np.array([0, 3]), np.array([1, 2]), num_vertices=5, directed=False)
    np.testing.assert_array_equal(color_propagation(two).colors, [1, 1, 3, 3, 4])
    empty = Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), num_vertices=0)
    result = color_propagation(empty)
    assert result.colors.shape == (0,) and len(result.trace) == 0


def test_public_api_and_errors():
    g = load_spec("rmat:9:4")
    np.testing.assert_array_equal(gg.color_propagation(g).colors, condensation_reference(g))
    with pytest.raises(StrategyError):
        color_propagation(g, strategy="drive=sideways")


@pytest.mark.parametrize("spec", SPECS + ("grid:40:40", "rmat:10:8"))
@pytest.mark.parametrize("strategy", ["auto", "adaptive", "static"])
def test_as_a_monotone_program_from_every_vertex(spec, strategy, monkeypatch):
    """The route a backend with capabilities.device_programs takes (the GPU: one persistent launch): COLOR_PROGRAM
    from every vertex under SEP-Graph's traversal controller. Run here on the CPU by switching the capability on: the
    same colors as the references, and the trace of a traversal (no Algorithm 1 candidates)."""
    from graphgear.backends import get_backend

    be = get_backend("cpu")
    monkeypatch.setattr(be.capabilities, "device_programs", True)
    g = load_spec(spec)
    result = color_propagation(g, backend=be, strategy=strategy)
    check(result, condensation_reference(g), g)
    assert result.trace.algorithm == "color_propagation"
    assert not any(row.reason.startswith("inspect candidate") for row in result.trace)
    assert_multistep_trace(result.trace, g.num_vertices)


@settings(max_examples=60, **SETTINGS)
@given(edge_records(max_vertices=26))
def test_hypothesis_monotone_program_route(records):
    """As above on random graphs (self-loops, repeats, weights) against NetworkX."""
    from graphgear.backends import get_backend

    n, src, dst, weights, directed, loops, dups = records
    w = None if weights is None else np.asarray(weights, dtype=np.float32)
    g = Graph.from_edges(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), w, num_vertices=n,
                         directed=directed, self_loops=loops, duplicates=dups)
    caps = get_backend("cpu").capabilities
    caps.device_programs = True
    try:
        result = color_propagation(g, backend="cpu")
    finally:
        caps.device_programs = False
    check(result, networkx_reference(n, src, dst, directed), g)


@pytest.mark.parametrize("directed", [False, True])
def test_multistep_pivot_flood(directed, monkeypatch):
    """The device route floods from one pivot first (undirected: the vertex of largest degree, here the star's centre
    0, whose component's colour is its largest id 5, not the pivot's; directed: vertex n-1, whose colour is final
    wherever it reaches), then propagates over the vertices left: the path 6-7-8 and, directed, the star."""
    from graphgear.backends import get_backend

    be = get_backend("cpu")
    monkeypatch.setattr(be.capabilities, "device_programs", True)
    src, dst = [0, 0, 0, 0, 0, 6, 7, 8], [1, 2, 3, 4, 5, 7, 8, 2]
    g = Graph.from_edges(np.array(src), np.array(dst), num_vertices=9, directed=directed)
    result = color_propagation(g, backend=be)
    expected = [0, 1, 8, 3, 4, 5, 6, 7, 8] if directed else [8] * 9
    np.testing.assert_array_equal(result.colors, expected)
    flood = [row for row in result.trace.rows if row.phase == "pivot"]
    assert flood and flood[0].frontier_vertices == 1
    g2 = Graph.from_edges(np.array(src[:-1]), np.array(dst[:-1]), num_vertices=9, directed=directed)
    np.testing.assert_array_equal(color_propagation(g2, backend=be).colors,
                                  [0, 1, 2, 3, 4, 5, 6, 7, 8] if directed else [5] * 6 + [8] * 3)

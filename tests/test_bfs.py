"""BFS: distances against SciPy on random and real graphs, valid parents, every CPU path, bad sources."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CPU_PATHS, REAL_GRAPHS, real_graph
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import graphgear as gg
from graphgear.errors import GraphError

def reference(g: gg.Graph, source: int) -> np.ndarray:
    if g.num_arcs == 0:
        d = np.full(g.num_vertices, np.inf)
        d[source] = 0
    else:
        d = shortest_path(g.to_scipy(), indices=source, unweighted=True)
    return np.where(np.isfinite(d), d, -1).astype(np.int64)


def check(g: gg.Graph, source: int, result) -> None:
    np.testing.assert_array_equal(result.distances, reference(g, source))
    pred, dist = result.predecessors, result.distances
    assert pred[source] == -1
    reached = (dist > 0)
    assert np.all(pred[~reached] == -1)
    v = np.flatnonzero(reached)
    assert np.all(dist[pred[v]] == dist[v] - 1)
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    arcs = set(zip(rows.tolist(), g.indices.tolist()))
    assert all((int(p), int(x)) in arcs for p, x in zip(pred[v], v))  # the parent is an in-neighbour


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(0, 4 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    directed = draw(st.booleans())
    weights = draw(st.none() | st.just([1.0] * m))
    g = gg.Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), weights, num_vertices=n,
                            directed=directed)
    return g, draw(st.integers(0, n - 1))


@settings(max_examples=200, deadline=None)
@given(case=graphs())
def test_random_graphs_auto(case):
    g, source = case
    check(g, source, gg.bfs(g, source, backend="cpu"))


@settings(max_examples=40, deadline=None)
@given(case=graphs(), path=st.sampled_from(CPU_PATHS))
def test_random_graphs_every_path(case, path):
    g, source = case
    check(g, source, gg.bfs(g, source, backend="cpu", strategy=path))


@pytest.mark.parametrize("path", CPU_PATHS + ["static", "adaptive"])
def test_every_path_on_kron_and_grid(path):
    for spec in ("kron:10", "grid:30:30:0.7", "rmat:9:8"):
        g = gg.load(spec)
        source = int(np.argmax(g.out_degree()))
        check(g, source, gg.bfs(g, source, backend="cpu", strategy=path))


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(name):
    g = gg.load(real_graph(name))
    source = int(np.argmax(g.out_degree()))
    # since issue 22 wiki-Vote loads renumbered: the source is named by its label (its id in the file)
    check(g, source, gg.bfs(g, g.vertex_labels(source).item(), backend="cpu"))


def test_direction_optimising_trace_switches_push_pull_push():
    g = gg.load("kron:14")
    r = gg.bfs(g, int(np.argmax(g.out_degree())), backend="cpu")
    decisions = r.trace.decisions()
    first_pull = decisions.index("pull")
    assert "push" in decisions[:first_pull] and "push" in decisions[first_pull:]
    assert all(row.reason for row in r.trace)


def test_high_diameter_graph_runs_one_async_pass():
    r = gg.bfs(gg.load("grid:40:40"), 0, backend="cpu")
    assert len(r.trace) == 1 and r.trace.rows[0].path == "async-push-dd"
    assert r.distances.max() == 78


def test_renumbered_labels_and_pandas():
    g = gg.Graph.from_edges(["a", "b", "c"], ["b", "c", "d"])
    r = gg.bfs(g, "a", backend="cpu")
    df = r.to_pandas()
    assert list(df["vertex"]) == ["a", "b", "c", "d"]
    assert list(df["distances"]) == [0, 1, 2, 3]
    assert df["predecessors"].isna().tolist() == [True, False, False, False]
    assert list(df["predecessors"][1:]) == ["a", "b", "c"]


def test_bad_sources():
    g = gg.load("grid:3:3")
    with pytest.raises(GraphError, match="out of range"):
        gg.bfs(g, 9, backend="cpu")
    with pytest.raises(GraphError):
        gg.bfs(g, -1, backend="cpu")
    with pytest.raises(GraphError, match="no vertices"):
        gg.bfs(gg.Graph.from_edges([], [], num_vertices=0), 0, backend="cpu")
    with pytest.raises(GraphError, match="not in the graph"):
        gg.bfs(gg.Graph.from_edges(["x"], ["y"]), "z", backend="cpu")


@settings(max_examples=60, deadline=None)
@given(case=graphs())
def test_degree_layout_gives_the_same_answer(case):
    """layout="degree" traverses the graph renumbered by degree; distances and the BFS tree (the smallest-id parent,
    found on the given ids) equal layout="given"'s, on random directed and undirected graphs."""
    g, source = case
    given_ids = gg.bfs(g, source, backend="cpu", layout="given")
    renumbered = gg.bfs(g, source, backend="cpu", layout="degree")
    check(g, source, renumbered)
    np.testing.assert_array_equal(renumbered.distances, given_ids.distances)
    np.testing.assert_array_equal(renumbered.predecessors, given_ids.predecessors)
    assert "renumbered by degree" in renumbered.trace.controller


def test_layout_choice():
    """"auto" keeps the given ids on the CPU backend (the renumbering was measured on the GPU only) and on graphs that
    are small or not skewed; a layout that does not exist is a clear error."""
    g = gg.load("kron:12")
    assert "renumbered" not in gg.bfs(g, 0, backend="cpu").trace.controller
    with pytest.raises(GraphError, match="layout must be one of auto, given, degree, got 'sorted'"):
        gg.bfs(g, 0, backend="cpu", layout="sorted")

"""BFS: distances against SciPy on random and real graphs (the real and generated ones on the CPU and the GPU, marked
gpu), valid parents, every CPU path, bad sources."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import CPU_PATHS, REAL_GRAPHS, on_backends, real_graph
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import graphgear as gg
from graphgear.errors import GraphError

# the GPU case of test_every_path_on_kron_and_grid: the two controllers and a fixed push and pull path (each GPU
# strategy against the CPU: tests/cuda/test_cuda.py)
GPU_PATHS = ["static", "adaptive", CPU_PATHS[0], CPU_PATHS[2]]


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


@pytest.mark.parametrize("backend,path", on_backends(CPU_PATHS + ["static", "adaptive"], cuda=GPU_PATHS))
def test_every_path_on_kron_and_grid(backend, path):
    for spec in ("kron:10", "grid:30:30:0.7", "rmat:9:8"):
        g = gg.load(spec)
        source = int(np.argmax(g.out_degree()))
        check(g, source, gg.bfs(g, source, backend=backend, strategy=path))


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(name, backend):
    g = gg.load(real_graph(name))
    source = int(np.argmax(g.out_degree()))
    # since issue 22 wiki-Vote loads renumbered: the source is named by its label (its id in the file)
    check(g, source, gg.bfs(g, g.vertex_labels(source).item(), backend=backend))


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
    with pytest.raises(GraphError, match="layout must be one of auto, given, degree, in_degree_groups, got 'sorted'"):
        gg.bfs(g, 0, backend="cpu", layout="sorted")


def smallest_parents(g: gg.Graph, dist: np.ndarray, source: int) -> np.ndarray:
    """The smallest-id in-neighbour one level up of every reached vertex (-1 for the source and the unreached),
    written independently of graphgear."""
    pred = np.full(g.num_vertices, -1, dtype=np.int64)
    for u in range(g.num_vertices):
        for v in g.indices[g.offsets[u]:g.offsets[u + 1]].tolist():
            if v != source and dist[u] >= 0 and dist[v] == dist[u] + 1 and (pred[v] < 0 or u < pred[v]):
                pred[v] = u
    return pred


@pytest.mark.parametrize("spec", ["grid:30:30:0.7", "rgg:9", "kron:9", "rmat:9:8"])
def test_fifo_pass_and_level_rounds_give_the_same_tree(spec):
    """On a high-diameter graph the CPU runs SEP-Graph's async push-dd pass as one FIFO worklist and records the BFS
    tree in it; the tree is the smallest-id parent one level up, as the pull pass after level rounds finds it."""
    g = gg.load(spec)
    source = int(np.argmax(g.out_degree()))
    auto = gg.bfs(g, source, backend="cpu")
    rounds = gg.bfs(g, source, backend="cpu", strategy="sync=sync,direction=push")
    check(g, source, auto)
    np.testing.assert_array_equal(auto.distances, rounds.distances)
    np.testing.assert_array_equal(auto.predecessors, rounds.predecessors)
    np.testing.assert_array_equal(auto.predecessors, smallest_parents(g, auto.distances, source))
    fifo = "one FIFO worklist on one thread" in auto.trace.rows[0].reason
    assert fifo == (g.num_arcs / g.num_vertices < 5)  # SEP-Graph's delta test picks the pass
    if fifo:
        assert len(auto.trace) == 1 and auto.trace.rows[0].path == "async-push-dd"
        assert "BFS tree is recorded in the same pass" in auto.trace.rows[0].reason


def nx_distances(g: gg.Graph, source: int, limit: int | None) -> np.ndarray:
    import networkx as nx

    reached = nx.single_source_shortest_path_length(g.to_networkx(), source, cutoff=limit)
    out = np.full(g.num_vertices, -1, dtype=np.int64)
    out[list(reached)] = list(reached.values())
    return out


@pytest.mark.parametrize("path", CPU_PATHS + ["auto"])
def test_depth_limit_as_networkx(path):
    """depth_limit (networkx's meaning): vertices farther than that many hops are unreached, on every CPU path, on
    the FIFO pass (grid) and on level rounds (kron); the tree of the vertices reached stays a valid BFS tree."""
    for spec in ("kron:9", "grid:25:25:0.8", "rmat:9:8"):
        g = gg.load(spec)
        source = int(np.argmax(g.out_degree()))
        for limit in (0, 1, 2, 5, 10_000):
            r = gg.bfs(g, source, depth_limit=limit, backend="cpu", strategy=path)
            np.testing.assert_array_equal(r.distances, nx_distances(g, source, limit), err_msg=f"{spec} {limit}")
            dist, pred = r.distances, r.predecessors
            assert np.all(pred[dist <= 0] == -1)
            v = np.flatnonzero(dist > 0)
            assert np.all(dist[pred[v]] == dist[v] - 1)
            np.testing.assert_array_equal(pred, smallest_parents(g, dist, source))


def test_depth_limit_none_and_bad_values():
    g = gg.load("grid:6:6")
    assert gg.bfs(g, 0, depth_limit=None).distances.max() == 10
    assert gg.bfs(g, 0, depth_limit=np.int64(3)).distances.max() == 3
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(GraphError, match="depth_limit must be None or a whole number >= 0"):
            gg.bfs(g, 0, depth_limit=bad, backend="cpu")


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["kron:12", "grid:40:40:0.8", "rmat:11:8"])
def test_depth_limit_on_the_gpu(spec):
    """depth_limit on the GPU: level rounds (kron, rmat) and the label-correcting persistent pass with block-local
    hops (the grid), where a distance past the limit may arrive first and must be refused, not kept."""
    g = gg.load(spec)
    source = int(np.argmax(g.out_degree()))
    for limit in (0, 1, 3, 7):
        r = gg.bfs(g, source, depth_limit=limit, backend="cuda")
        np.testing.assert_array_equal(r.distances, nx_distances(g, source, limit), err_msg=f"{spec} {limit}")
        dist, pred = r.distances, r.predecessors
        v = np.flatnonzero(dist > 0)
        assert np.all(pred[dist <= 0] == -1) and np.all(dist[pred[v]] == dist[v] - 1)


def test_device_overrides_name_every_field_the_persistent_kernel_runs_otherwise():
    """The trace's note for a persistent launch names each field of the strategy it does not run as asked (sync,
    an edge queue, duplicate removal) and nothing when there is none (issue 24, point 4)."""
    from graphgear.engine.controller import configuration_table
    from graphgear.engine.strategy import Strategy
    from graphgear.program import device_overrides

    table, _ = configuration_table(gg.load("kron:12").degree_stats(), "kron:12")
    assert table.sync == "sync" and table.dedup != "none"  # the table's "multiple kernel calls" and its dedup
    note = device_overrides(table)
    assert "sync (a launch per round) as async" in note and f"dedup={table.dedup} left out" in note
    assert "edge_queue" in device_overrides(Strategy(frontier="edge_queue"))
    assert device_overrides(Strategy(sync="async")) == ""


@pytest.mark.gpu
def test_auto_on_the_gpu_says_where_it_overrides_the_configuration_table():
    """BFS under auto on a power-law graph: the configuration table asks for multiple kernel calls and duplicate
    removal; the persistent kernel runs every round in one launch with exact queues, and the first row says so."""
    g = gg.load("kron:12")
    r = gg.bfs(g, int(np.argmax(g.out_degree())), backend="cuda")
    first = r.trace.rows[0].reason
    assert "decided on the device" in first and "the device overrides sync (a launch per round) as async" in first
    assert "left out: the persistent kernel's queues are exact" in first
    assert all("overrides" not in row.reason for row in r.trace.rows[1:])

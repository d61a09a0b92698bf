"""Weakly connected components (Afforest and min-label propagation) against SciPy.

The reference is `scipy.sparse.csgraph.connected_components(connection="weak")` on a matrix built straight from the edge
records (never through graphgear's CSR build), renumbered here in order of each component's smallest vertex -- the
numbering graphgear promises. Every CPU execution path of the label-propagation program (sync|async x push|pull x
data|topology) and both drives of Afforest must give the same labels.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components as scipy_components

import graphgear as gg
from graphgear.algorithms import connected_components as cc_module
from graphgear.algorithms.connected_components import connected_components, symmetrised
from graphgear.engine.strategy import Strategy
from graphgear.errors import GraphError, StrategyError
from graphgear.graph.graph import Graph
from graphgear.results import ComponentsResult

from conftest import BACKENDS, CPU_PATHS, REAL_GRAPHS, assert_multistep_trace, edge_records, real_graph

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
METHODS = ("afforest", "label_propagation")
# the 8 CPU paths; pull reads a dense frontier
PATHS = CPU_PATHS


# ------------------------------------------------------------------------------------------------------- reference
def first_seen(labels) -> np.ndarray:
    """Component ids 0..C-1 in order of first appearance (= order of each component's smallest vertex)."""
    ids: dict = {}
    return np.array([ids.setdefault(int(x), len(ids)) for x in labels], dtype=np.int64)


def reference_labels(n: int, src, dst) -> np.ndarray:
    """Weak components of the records src[i] -> dst[i] by SciPy, numbered by smallest vertex."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
    matrix = scipy.sparse.coo_array((np.ones(src.size), (src, dst)), shape=(n, n)).tocsr()
    return first_seen(scipy_components(matrix, directed=True, connection="weak")[1])


def graph_reference(g: Graph) -> np.ndarray:
    """Reference labels of a graphgear Graph (its stored arcs, read back through SciPy)."""
    if g.num_vertices == 0:
        return np.zeros(0, dtype=np.int64)
    return first_seen(scipy_components(g.to_scipy(), directed=True, connection="weak")[1])


def check(result: ComponentsResult, expected: np.ndarray, graph: Graph) -> None:
    assert isinstance(result, ComponentsResult)
    assert result.graph is graph
    assert result.labels.dtype == np.int64
    assert result.labels.shape == (graph.num_vertices,)
    np.testing.assert_array_equal(result.labels, expected)


# ------------------------------------------------------------------------------------------------------- hypothesis


def build(n, src, dst, weights, directed, loops, dups) -> Graph:
    w = None if weights is None else np.asarray(weights, dtype=np.float32)
    return Graph.from_edges(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64), w, num_vertices=n,
                            directed=directed, self_loops=loops, duplicates=dups)


@settings(max_examples=210, **SETTINGS)
@given(edge_records(), st.sampled_from(["auto", "static"] + PATHS), st.sampled_from(["auto", "static"] + PATHS))
def test_hypothesis_both_methods_match_scipy(records, path_afforest, path_lp):
    """Both methods on every graph, each under a drawn strategy ("auto" or one of the 8 paths)."""
    n, src, dst, *_ = records
    g = build(*records)
    expected = reference_labels(n, src, dst)
    check(connected_components(g, method="afforest", strategy=path_afforest), expected, g)
    check(connected_components(g, method="label_propagation", strategy=path_lp), expected, g)


# ------------------------------------------------------------------------------------------------------- real graphs
@functools.lru_cache(maxsize=None)
def load_real(name: str) -> Graph:
    return gg.load(real_graph(name))


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(name):
    num_vertices, _, directed, _, _, wcc = REAL_GRAPHS[name]
    g = load_real(name)
    assert (g.num_vertices, g.directed) == (num_vertices, directed)
    expected = graph_reference(g)
    assert expected.max() + 1 == wcc
    for method in METHODS:
        check(connected_components(g, method=method), expected, g)


# ------------------------------------------------------------------------------------------------------- every path
SMALL_SPECS = ("rmat:9:4", "grid:24:24:0.55", "er:600:1.2", "kron:8")


@functools.lru_cache(maxsize=None)
def load_spec(spec: str) -> Graph:
    return gg.load(spec)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("spec", SMALL_SPECS)
def test_label_propagation_every_path(spec, path):
    g = load_spec(spec)
    result = connected_components(g, method="label_propagation", strategy=path)
    check(result, graph_reference(g), g)
    assert {row.path for row in result.trace} == {Strategy.parse(path).path}


@pytest.mark.parametrize("path", PATHS + ["auto", "static", "adaptive", Strategy(drive="data")])
@pytest.mark.parametrize("spec", SMALL_SPECS)
def test_afforest_every_strategy(spec, path):
    g = load_spec(spec)
    result = connected_components(g, method="afforest", strategy=path)
    check(result, graph_reference(g), g)
    assert [row.phase for row in result.trace] == ["sample", "sample", "link", "compress"]


@pytest.mark.parametrize("strategy", ["auto", "adaptive", "static"])
@pytest.mark.parametrize("spec", SMALL_SPECS + ("grid:40:40",))
def test_label_propagation_as_one_traversal(spec, strategy, monkeypatch):
    """A backend that runs monotone programs whole on the device (capabilities.device_programs: the GPU) runs label
    propagation as label-correcting traversals (a flood from a pivot, then every vertex), under SEP-Graph's Algorithm 2 (program.py
    _controller_kind). The CPU with the capability switched on takes that route: the same components, no Algorithm 1
    candidates in the trace."""
    from graphgear.backends import get_backend

    be = get_backend("cpu")
    monkeypatch.setattr(be.capabilities, "device_programs", True)
    g = load_spec(spec)
    result = connected_components(g, method="label_propagation", backend=be, strategy=strategy)
    check(result, graph_reference(g), g)
    assert not any(row.reason.startswith("inspect candidate") for row in result.trace)
    assert_multistep_trace(result.trace, g.num_vertices)


def test_auto_controller_runs_sep_graph_algorithm_1():
    g = load_spec("grid:24:24:0.55")
    trace = connected_components(g, method="label_propagation").trace
    assert trace.rows[0].reason.startswith("inspect candidate 1/3")
    assert trace.rows[0].path == "sync-pull-td"
    assert all(row.path in ("sync-pull-td", "async-push-td", "async-push-dd") for row in trace)
    assert trace.seconds > 0


# ------------------------------------------------------------------------------------------------------- Afforest cases
def test_afforest_directed_arcs_leaving_the_giant_component():
    """Vertices reached only by arcs out of the giant component, beyond the two sampled neighbours: the final phase
    skips the giant component's vertices, so these arcs must be linked from their heads (in-edges)."""
    ring = np.arange(100)
    src = [*ring, *([5] * 6), *([40] * 3)]
    dst = [*((ring + 1) % 100), 6, 7, 100, 101, 102, 103, 41, 104, 105]
    src += [106, 108]  # a separate 3-vertex component and an isolated vertex (107) -> 4 + ... components
    dst += [109, 109]
    g = Graph.from_edges(np.array(src), np.array(dst), num_vertices=111, directed=True)
    expected = reference_labels(111, src, dst)
    for strategy in ("auto", "drive=data"):
        result = connected_components(g, method="afforest", strategy=strategy)
        check(result, expected, g)
    assert expected.max() + 1 == 4  # the ring with 100..105, {106, 108, 109}, {107}, {110}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("strategy", ("auto", "drive=data"))
def test_afforest_trace_counts_the_final_phase(backend, strategy):
    """The trace's rows as the device leaves them: SampleFrequentElement's pick (the ring, 100 of 106 vertices) and
    its share, and the arcs the final phase links: only the star's centre has arcs beyond its two sampled neighbours
    (3 of 5); the leaves have one arc each and the ring's vertices are skipped."""
    ring = np.arange(100)
    centre, leaves = 100, np.arange(101, 106)
    src = np.r_[ring, np.full(5, centre)]
    dst = np.r_[(ring + 1) % 100, leaves]
    g = Graph.from_edges(src, dst, num_vertices=106, directed=False)
    result = connected_components(g, method="afforest", backend=backend, strategy=strategy)
    np.testing.assert_array_equal(result.labels, np.r_[np.zeros(100), np.ones(6)])
    phases = [row.phase for row in result.trace]
    assert phases == ["sample", "sample", "link", "compress"]
    link = result.trace.rows[2]
    assert link.frontier_edges == link.edges_processed == 3
    assert "component 0 holds ~9" in link.reason  # ~94% expected of 1024 draws from 106 vertices
    assert link.frontier_vertices == (6 if strategy == "drive=data" else 106)


def test_giant_component_not_first():
    """Isolated low ids, the giant component rooted higher up."""
    n = 300
    src = np.arange(50, n - 1)
    g = Graph.from_edges(src, src + 1, num_vertices=n, directed=False)
    for method in METHODS:
        result = connected_components(g, method=method)
        np.testing.assert_array_equal(result.labels, np.r_[np.arange(50), np.full(n - 50, 50)])


def test_empty_and_edgeless_graphs():
    empty = Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), num_vertices=0)
    edgeless = Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), num_vertices=7, directed=False)
    for method in METHODS:
        assert connected_components(empty, method=method).labels.shape == (0,)
        np.testing.assert_array_equal(connected_components(edgeless, method=method).labels, np.arange(7))


def test_symmetrised_copy_is_cached_and_undirected():
    g = load_spec("rmat:9:4")
    s = symmetrised(g)
    assert s is symmetrised(g) and not s.directed and s.num_vertices == g.num_vertices
    assert symmetrised(s) is s
    a = g.to_scipy()
    np.testing.assert_array_equal((s.to_scipy() != 0).toarray(), ((a + a.T) != 0).toarray())


def test_public_api_and_errors():
    g = load_spec("er:600:1.2")
    np.testing.assert_array_equal(gg.connected_components(g, method="label_propagation").labels, graph_reference(g))
    auto = gg.connected_components(g)  # auto = afforest
    assert auto.trace.algorithm == "cc_afforest"
    np.testing.assert_array_equal(auto.labels, graph_reference(g))
    with pytest.raises(GraphError, match="method"):
        connected_components(g, method="bfs")
    with pytest.raises(StrategyError):
        connected_components(g, method="afforest", strategy="direction=sideways")
    with pytest.raises(StrategyError):
        connected_components(g, method="label_propagation", strategy="direction=sideways")
    assert cc_module.METHODS == ("auto", "afforest", "label_propagation")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [1, 31, 32, 33, 32_768 * 3 + 17, 32 * 2 * 256 * 256 + 5])
def test_numbering_by_roots_across_words_and_chunks(backend, n):
    """numbered_components (the roots' bits per word, chunk sums, chunk prefixes, each vertex its root's rank) gives
    the same 0..C-1 as a cumulative count of the roots, for labels that point at roots across words and chunks; the
    largest size takes chunks of twice the smallest size."""
    from graphgear.algorithms._common import MIN_CHUNK_WORDS, canonical_labels, numbered_components
    from graphgear.backends import get_backend

    rng = np.random.default_rng(n)
    roots = np.flatnonzero(rng.random(n) < 0.3)
    roots = np.union1d(roots, [0])  # vertex 0 is always a root (nothing smaller to point at)
    labels = roots[np.searchsorted(roots, np.arange(n), side="right") - 1]  # each vertex: the nearest root below
    far = rng.random(n) < 0.5  # half of them point at any root at or below them instead (other words and chunks)
    labels[far] = roots[(rng.random(far.sum()) * (np.searchsorted(roots, np.flatnonzero(far), side="right"))).astype(int)]
    labels[roots] = roots
    expected = canonical_labels(labels, roots=True)
    assert n < 32 * MIN_CHUNK_WORDS or expected.max() > 1_000  # the large cases span several chunks of roots
    be = get_backend(backend)
    for dtype in (np.int32, np.int64):
        number, check = numbered_components(be, be.asarray(labels.astype(dtype)))
        check()
        np.testing.assert_array_equal(be.to_host(number), expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("strategy", ("auto", "drive=data"))
def test_unnumbered_afforest_gives_each_run_its_own_comp(backend, strategy):
    """afforest(numbered=False): comp[v] is the smallest vertex of v's weak component, as SciPy's labels say, and a
    run's comp is its own (the topology run's plan takes each call's comp): a later run on the same graph and on
    another of its size leaves it as it was."""
    from graphgear.backends import get_backend

    be = get_backend(backend)
    graphs = [gg.load("er:500:0.8"), gg.load("er:500:1.5")]

    def smallest(g: Graph) -> np.ndarray:
        labels = scipy_components(g.to_scipy(), directed=True, connection="weak")[1]
        first = np.full(labels.max() + 1, g.num_vertices)
        np.minimum.at(first, labels, np.arange(g.num_vertices))
        return first[labels]

    runs = [cc_module.afforest(g, backend=be, strategy=strategy) for g in graphs + graphs]
    for (comp, _, check_run), g in zip(runs, graphs + graphs):
        check_run()
        np.testing.assert_array_equal(be.to_host(comp), smallest(g))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("strategy", ("auto", "drive=data"))
def test_runs_sharing_a_workspace_keep_their_own_results_and_traces(backend, strategy):
    """Afforest's numbered runs on one graph share its workspace (comp, the numbering's scratch) but not their
    results or their final-phase rows: a run's labels and its trace, read only after a later run on the same graph
    (and on another graph of the same size, which shares the numbering's scratch), are still its own."""
    ring = Graph.from_edges(np.arange(100), (np.arange(100) + 1) % 100, num_vertices=106, directed=False)
    pairs = Graph.from_edges(np.arange(0, 106, 2), np.arange(1, 106, 2), num_vertices=106, directed=False)
    first = connected_components(ring, method="afforest", backend=backend, strategy=strategy)
    second = connected_components(pairs, method="afforest", backend=backend, strategy=strategy)
    third = connected_components(ring, method="afforest", backend=backend, strategy=strategy)
    np.testing.assert_array_equal(second.labels, np.arange(106) // 2)
    def share(result) -> tuple[int, int]:  # the giant component the link row names: its root and sampled share
        root, percent = re.search(r"component (\d+) holds ~(\d+)%", result.trace.rows[2].reason).groups()
        return int(root), int(percent)

    for result in (first, third):
        np.testing.assert_array_equal(result.labels, np.r_[np.zeros(100), np.arange(1, 7)])
        assert share(result)[0] == 0 and share(result)[1] >= 85  # the ring (100 of 106 vertices), not a pair
    assert share(second)[0] % 2 == 0 and share(second)[1] <= 10  # a pair's root (the even end), ~2% of the draws


def test_threads_get_their_own_workspaces():
    """Runs from several host threads on graphs of one size (one shared numbering size, one graph each or the same
    graph) each give SciPy's labels: a thread's runs use its own workspace and scratch."""
    from concurrent.futures import ThreadPoolExecutor

    graphs = [load_spec(f"er:3000:{d}") for d in (0.6, 0.9, 1.2, 2.0)]
    expected = [graph_reference(g) for g in graphs]

    def run(k: int) -> bool:
        g = graphs[k % len(graphs)]
        ok = True
        for _ in range(5):
            ok &= bool(np.array_equal(connected_components(g, method="afforest", strategy="drive=data").labels,
                                      expected[k % len(graphs)]))
        return ok

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(run, range(16)))

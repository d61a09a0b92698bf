"""SSSP: distances against SciPy's Dijkstra (and NetworkX where zero weights matter), valid predecessors, both
methods on every CPU path, real graphs, bad inputs; NetworkX's ``cutoff`` (a distance equal to it kept, a larger one
dropped; the work stops there) and ``weight=None`` (hop counts); the GPU's cutoff against the CPU (marked gpu). The
real graphs, and the generated ones on a few paths, run on the GPU too (marked gpu).

The SciPy reference is built from the graph's own arcs: parallel arcs (``duplicates="keep"``) are reduced to their
minimum weight first, because a SciPy CSR sums duplicate entries; explicit zeros stay in the matrix (SciPy >= 1.x
treats a stored zero as an edge of weight 0, which `test_reference_keeps_zero_weight_edges` pins down).
"""

from __future__ import annotations

import contextlib
import signal
import time

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from conftest import CPU_PATHS, REAL_GRAPHS, on_backends, real_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import graphgear as gg
from graphgear.algorithms.sssp import (RELAX, RELAX_PULL, UNSETTLED, check_weights, default_delta, smallest_delta,
                                       sssp)
from graphgear.errors import GraphError

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
METHODS = ("delta_stepping", "bellman_ford")


# ------------------------------------------------------------------------------------------------------ references
def arcs(g: gg.Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(src, dst, weight float64) of the stored arcs, parallel arcs reduced to their minimum weight."""
    src = np.repeat(np.arange(g.num_vertices, dtype=np.int64), g.out_degree())
    dst = g.indices.astype(np.int64)
    w = np.ones(g.num_arcs) if g.weights is None else g.weights.astype(np.float64)
    if src.size == 0:
        return src, dst, w
    order = np.lexsort((w, dst, src))
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(src.size, dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    return src[first], dst[first], w[first]


def reference(g: gg.Graph, source: int) -> np.ndarray:
    """SciPy Dijkstra over the de-duplicated arcs (float64 copies of the float32 weights, zeros kept)."""
    n = g.num_vertices
    src, dst, w = arcs(g)
    matrix = scipy.sparse.csr_array((w, (src, dst)), shape=(n, n))
    matrix.sum_duplicates()  # no duplicates left: only sorts
    return dijkstra(matrix, directed=True, indices=source)


def nx_reference(g: gg.Graph, source: int, cutoff: float | None = None, weight: str | None = "weight") -> np.ndarray:
    """NetworkX Dijkstra (a second, independent reference; zero weights are ordinary edges there), with its cutoff
    and weight arguments (weight=None: every arc 1)."""
    graph = nx.DiGraph()
    graph.add_nodes_from(range(g.num_vertices))
    src, dst, w = arcs(g)
    graph.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    lengths = nx.single_source_dijkstra_path_length(graph, source, cutoff=cutoff, weight=weight)
    d = np.full(g.num_vertices, np.inf)
    for v, length in lengths.items():
        d[v] = length
    return d


def check(g: gg.Graph, source: int, result, expected: np.ndarray | None = None) -> None:
    """Distances equal the reference; every reached v != source has a parent u with dist[u] + w(u, v) == dist[v]."""
    dist, pred = result.distances, result.predecessors
    expected = reference(g, source) if expected is None else expected
    assert dist.dtype == np.float64 and pred.dtype == np.int64
    assert dist.shape == pred.shape == (g.num_vertices,)
    np.testing.assert_array_equal(np.isinf(dist), np.isinf(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(dist[finite], expected[finite], rtol=1e-9, atol=0)
    assert dist[source] == 0 and pred[source] == -1
    assert np.all(pred[~finite] == -1)
    v = np.flatnonzero(finite)
    v = v[v != source]
    u = pred[v]
    assert np.all((u >= 0) & (u < g.num_vertices))
    src, dst, w = arcs(g)
    weight = dict(zip(zip(src.tolist(), dst.tolist()), w.tolist()))
    for a, b in zip(u.tolist(), v.tolist()):
        assert (a, b) in weight, f"parent {a} of {b} is not an in-neighbour"
        assert dist[a] + weight[(a, b)] == dist[b], f"arc {a} -> {b} is not tight"
    # a tree: walking back the parents from any reached vertex ends at the source (no cycle among zero-weight ties)
    ancestor = np.where(pred >= 0, pred, np.arange(g.num_vertices))
    for _ in range(int(np.ceil(np.log2(max(g.num_vertices, 2)))) + 1):
        ancestor = ancestor[ancestor]
    assert np.all(ancestor[finite] == source)
    assert result.graph is g


# ------------------------------------------------------------------------------------------------------ random graphs
@st.composite
def weighted_graphs(draw, max_n: int = 40):
    """Small graphs with integer (many zeros, many ties) or real weights, self-loops and multi-edges in the records,
    isolated vertices; directed or not; kept or dropped duplicates and self-loops."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 4 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    if draw(st.booleans()):
        weights = draw(st.lists(st.integers(0, 6), min_size=m, max_size=m))
    else:
        weights = draw(st.lists(st.floats(0, 100, allow_nan=False, width=32), min_size=m, max_size=m))
    g = gg.Graph.from_edges(
        np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), np.array(weights, dtype=np.float64),
        num_vertices=n, directed=draw(st.booleans()),
        self_loops=draw(st.sampled_from(["drop", "keep"])), duplicates=draw(st.sampled_from(["drop", "keep"])),
    )
    return g, draw(st.integers(0, n - 1))


@settings(max_examples=150, **SETTINGS)
@given(case=weighted_graphs(), method=st.sampled_from(("auto",) + METHODS),
       delta=st.sampled_from([None, None, 0.5, 3.0, np.inf]))
def test_random_weighted_graphs(case, method, delta):
    g, source = case
    check(g, source, sssp(g, source, method=method, delta=delta, backend="cpu"))


@settings(max_examples=60, **SETTINGS)
@given(case=weighted_graphs(max_n=25), method=st.sampled_from(METHODS), path=st.sampled_from(CPU_PATHS),
       delta=st.sampled_from([None, 1.0]))
def test_random_weighted_graphs_every_path(case, method, path, delta):
    g, source = case
    result = sssp(g, source, method=method, delta=delta, backend="cpu", strategy=path)
    check(g, source, result, nx_reference(g, source))


@settings(max_examples=60, **SETTINGS)
@given(case=weighted_graphs(), method=st.sampled_from(("auto",) + METHODS))
def test_degree_layout_gives_the_same_answer(case, method):
    """layout="degree" runs on the graph renumbered by degree: the distances equal the reference and layout="given"'s,
    and the tree (found on the given ids) is a valid shortest-path tree, the same one as layout="given"'s."""
    g, source = case
    given_ids = sssp(g, source, method=method, backend="cpu", layout="given")
    renumbered = sssp(g, source, method=method, backend="cpu", layout="degree")
    check(g, source, renumbered)
    np.testing.assert_array_equal(renumbered.distances, given_ids.distances)
    np.testing.assert_array_equal(renumbered.predecessors, given_ids.predecessors)
    assert ("renumbered by degree" in renumbered.trace.controller) == g.weighted


def test_layout_is_checked():
    """A layout that does not exist is a clear error, weighted graph or not (an unweighted one runs BFS)."""
    for spec in ("grid:4:4:w", "grid:4:4"):
        with pytest.raises(GraphError,
                           match="layout must be one of auto, given, degree, in_degree_groups, got 'random'"):
            sssp(gg.load(spec), 0, backend="cpu", layout="random")


@st.composite
def unweighted_graphs(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(0, 3 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    g = gg.Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), num_vertices=n,
                            directed=draw(st.booleans()), self_loops=draw(st.sampled_from(["drop", "keep"])))
    return g, draw(st.integers(0, n - 1))


@settings(max_examples=50, **SETTINGS)
@given(case=unweighted_graphs(), method=st.sampled_from(("auto",) + METHODS))
def test_random_unweighted_graphs_run_bfs(case, method):
    g, source = case
    result = gg.sssp(g, source, method=method, backend="cpu")
    check(g, source, result)
    hops = gg.bfs(g, source, backend="cpu")
    np.testing.assert_array_equal(result.predecessors, hops.predecessors)


# ------------------------------------------------------------------------------------------------------ every path
PATH_GRAPHS = ("er:300:5:w", "grid:12:15:0.8:w", "rmat:8:6:w", "kron:8:w")
# the GPU case of test_every_path_and_method: auto and a fixed push and pull path (each GPU strategy against the CPU:
# tests/test_cuda_algorithms_a.py)
GPU_PATH_CASES = ["auto", CPU_PATHS[0], CPU_PATHS[2]]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("backend,path", on_backends(CPU_PATHS + ["auto", "static", "adaptive"], cuda=GPU_PATH_CASES))
def test_every_path_and_method(backend, path, method):
    for spec in PATH_GRAPHS:
        g = gg.load(spec)
        source = int(np.argmax(g.out_degree()))
        result = sssp(g, source, method=method, backend=backend, strategy=path)
        check(g, source, result)
        auto = sssp(g, source, backend=backend)
        np.testing.assert_array_equal(result.distances, auto.distances)
        np.testing.assert_array_equal(result.predecessors, auto.predecessors)  # smallest-id parent: deterministic


def test_zero_weights_and_ties_on_every_path():
    """Zero-weight arcs (also a zero-weight cycle) and equal-length paths give the same answer everywhere."""
    src = np.array([0, 0, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7])
    dst = np.array([1, 2, 3, 3, 4, 5, 5, 4, 6, 7, 6, 0])
    w = np.array([0, 2, 2, 0, 0, 1, 1, 0, 3, 0, 0, 5], dtype=np.float32)
    for directed in (True, False):
        g = gg.Graph.from_edges(src, dst, w, num_vertices=9, directed=directed)
        expected = nx_reference(g, 0)
        np.testing.assert_array_equal(expected, reference(g, 0))
        for path in CPU_PATHS:
            for method in METHODS:
                for delta in (None, 0.25, 1.0, np.inf):
                    check(g, 0, sssp(g, 0, method=method, delta=delta, backend="cpu", strategy=path), expected)


def test_zero_weight_ties_give_a_tree():
    """1 and 2 are both at distance 1 through 3, with zero arcs 1 -> 2 and 2 -> 1: the smallest-id tight parent would
    make 1 and 2 each other's parent; the tree must hang both from 3."""
    g = gg.Graph.from_edges([0, 3, 3, 1, 2], [3, 1, 2, 2, 1], [1.0, 0.0, 0.0, 0.0, 0.0], num_vertices=4)
    for path in CPU_PATHS:
        r = sssp(g, 0, backend="cpu", strategy=path)
        check(g, 0, r)
        np.testing.assert_array_equal(r.predecessors, [-1, 3, 3, 0])


def test_reference_keeps_zero_weight_edges():
    """The SciPy reference must see a stored 0 as an edge (else zero-weight tests would compare against inf)."""
    g = gg.Graph.from_edges([0, 1], [1, 2], [0.0, 0.0], num_vertices=3)
    np.testing.assert_array_equal(reference(g, 0), [0.0, 0.0, 0.0])


# ------------------------------------------------------------------------------------------------------ real graphs
@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(name, backend):
    g = gg.load(real_graph(name))
    source = int(np.argmax(g.out_degree()))
    # since issue 22 wiki-Vote loads renumbered: the source is named by its label (its id in the file)
    result = gg.sssp(g, g.vertex_labels(source).item(), backend=backend)
    check(g, source, result)
    if g.weights is None:
        # the same edges with random weights (zeros included) exercise delta-stepping on the real structure
        rng = np.random.default_rng(len(name))
        src = np.repeat(np.arange(g.num_vertices), g.out_degree())
        keep = src <= g.indices if not g.directed else np.ones(src.size, dtype=bool)
        weights = rng.integers(0, 100, int(keep.sum())).astype(np.float32)
        g = gg.Graph.from_edges(src[keep], g.indices[keep], weights, num_vertices=g.num_vertices, directed=g.directed,
                                self_loops="keep")
        expected = reference(g, source)
        check(g, source, gg.sssp(g, source, backend=backend), expected)
        check(g, source, gg.sssp(g, source, method="bellman_ford", backend=backend), expected)
    else:
        check(g, source, gg.sssp(g, source, method="bellman_ford", backend=backend))


def test_malta_zero_length_arcs_and_isolated_vertices(backend):
    g = gg.load(real_graph("road/malta_osm.gr.gz"))
    assert g.weights is not None and int((g.weights == 0).sum()) > 0
    for source in (0, int(np.flatnonzero(g.out_degree() == 0)[0])):
        expected = nx_reference(g, source)
        for path in ("auto", "sync=async", "direction=pull,frontier=bitmap"):
            check(g, source, gg.sssp(g, source, backend=backend, strategy=path), expected)


# ------------------------------------------------------------------------------------------------------ trace etc.
def test_trace_rows_and_phases():
    g = gg.load("kron:9:w")
    source = int(np.argmax(g.out_degree()))
    r = gg.sssp(g, source, delta=8.0, backend="cpu")
    phases = {row.phase for row in r.trace}
    assert phases == {"near", "far"}
    assert r.trace.algorithm == "sssp" and r.seconds > 0
    assert all(row.frontier_vertices > 0 for row in r.trace)
    bf = gg.sssp(g, source, method="bellman_ford", backend="cpu")
    assert {row.phase for row in bf.trace} == {"bellman-ford"}
    np.testing.assert_array_equal(bf.distances, r.distances)
    grid = gg.load("grid:20:20:w")  # |E|/|V| < 5: Algorithm 2 keeps one async push path
    r = gg.sssp(grid, 0, backend="cpu")
    assert {row.path for row in r.trace if row.phase == "near"} == {"async-push-dd"}
    check(grid, 0, r)
    frame = r.to_pandas()
    assert list(frame.columns) == ["vertex", "distances", "predecessors"]


def test_unexplored_edges_never_negative():
    """Algorithm 2's E' counts first expansions only: a re-expanded vertex must not drive it below zero (which would
    flip push/pull every round)."""
    import re

    g = gg.load("kron:12:w")
    source = int(np.argmax(g.out_degree()))
    for delta in (None, 2.0, 64.0):
        r = gg.sssp(g, source, delta=delta, backend="cpu")
        check(g, source, r)
        limits = [float(m.replace(",", "")) for row in r.trace for m in re.findall(r"E'/alpha (-?[\d,]+)", row.reason)]
        assert limits and min(limits) >= 0
        if delta == 64.0:  # wide buckets re-expand vertices: the sum of outDegree(A) passes |E|, as on kron:20:w
            assert sum(row.frontier_edges for row in r.trace if row.phase == "near") > g.num_arcs


def test_labels_and_api():
    g = gg.Graph.from_edges(["a", "b", "a", "c"], ["b", "c", "c", "d"], [1.0, 1.0, 5.0, 0.0])
    r = gg.sssp(g, "a", backend="cpu")
    np.testing.assert_array_equal(r.distances, [0.0, 1.0, 2.0, 2.0])
    predecessors = r.to_pandas()["predecessors"].tolist()
    assert predecessors[1:] == ["a", "b", "c"] and (predecessors[0] is None or predecessors[0] != predecessors[0])


def test_default_delta():
    g = gg.load("er:200:8:w")
    mean, low, positive = check_weights(g)
    assert mean == pytest.approx(float(g.weights.mean())) and low == positive == float(g.weights.min())
    sync, wide = default_delta(g, mean, positive, "sync"), default_delta(g, mean, positive, "async")
    assert positive <= sync < mean < wide
    zero = gg.Graph.from_edges([0, 1], [1, 2], [0.0, 0.0])
    assert check_weights(zero) == (0.0, 0.0, 0.0) and default_delta(zero, 0.0, 0.0) == np.inf
    np.testing.assert_array_equal(gg.sssp(zero, 0, backend="cpu").distances, [0.0, 0.0, 0.0])
    some = gg.Graph.from_edges([0, 1, 2], [1, 2, 3], [0.0, 0.5, 2.0])
    assert check_weights(some)[1:] == (0.0, 0.5)


def test_relax_functors_have_no_refcounting():
    """The per-edge functors must compile without NRT incref calls: numba's reference counting on the state tuple's
    arrays costs atomic operations per edge (5x slower on one thread, worse on two). A restructured functor that
    brings them back fails here. Each is compiled here for the types near_far passes (the CPU kernels are templates
    specialised per functor and served from numba's disk cache, so a run need not compile the functor itself)."""
    n = 4
    state = (np.full(n, np.inf), np.zeros(n, dtype=np.int64), np.array([0.0, 1.0]), np.zeros(n, dtype=np.int32),
             np.zeros(n + 1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    state[1][:] = state[0].view(np.int64)
    RELAX.cpu(np.int64(0), np.int64(1), np.float32(0.5), state)
    RELAX_PULL.cpu(np.int64(1), np.int64(0), np.float32(0.5), state)
    UNSETTLED.cpu(np.int64(1), state)
    for functor in (RELAX, RELAX_PULL, UNSETTLED):
        assert functor.cpu.signatures, functor.name
        for signature in functor.cpu.signatures:
            assert "NRT_incref" not in functor.cpu.inspect_llvm(signature), functor.name


# ------------------------------------------------------------------------------------------------------ bad inputs
def test_negative_weight_names_the_arc():
    g = gg.Graph.from_edges([0, 1, 2, 2], [1, 2, 3, 0], [1.0, 2.0, -0.5, -3.0])
    with pytest.raises(GraphError, match=r"2 -> 0 has weight -3\.0"):  # first in CSR order: row 2 sorted by target
        gg.sssp(g, 0, backend="cpu")
    labelled = gg.Graph.from_edges(["x", "y"], ["y", "z"], [1.0, -1.0])
    with pytest.raises(GraphError, match=r"y -> z has weight -1\.0"):
        gg.sssp(labelled, "x", backend="cpu")


@pytest.mark.parametrize("source", [-1, 5, 100, None])
def test_bad_source(source):
    g = gg.Graph.from_edges([0, 1], [1, 2], [1.0, 1.0], num_vertices=5)
    with pytest.raises(GraphError):
        gg.sssp(g, source, backend="cpu")


def test_empty_graph_has_no_source():
    g = gg.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64), np.array([], dtype=np.float32))
    assert g.num_vertices == 0
    with pytest.raises(GraphError, match="no vertices"):
        gg.sssp(g, 0, backend="cpu")


def test_single_vertex_and_no_edges():
    g = gg.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64), np.array([], dtype=np.float32),
                            num_vertices=3)
    r = gg.sssp(g, 1, backend="cpu")
    np.testing.assert_array_equal(r.distances, [np.inf, 0.0, np.inf])
    np.testing.assert_array_equal(r.predecessors, [-1, -1, -1])


@pytest.mark.parametrize("kwargs", [dict(method="dijkstra"), dict(delta=0), dict(delta=-1.0), dict(delta=float("nan")),
                                    dict(delta="big")])
def test_bad_arguments(kwargs):
    g = gg.Graph.from_edges([0, 1], [1, 2], [1.0, 1.0])
    with pytest.raises(GraphError):
        gg.sssp(g, 0, backend="cpu", **kwargs)


def test_tiny_weight_absorbed_by_float_addition_still_gives_a_tree():
    """0.5 + 1.4e-21 == 0.5 in float64: both arcs of the pair are tight, so the plain pull pass would close a cycle."""
    offsets = np.array([0, 2, 3, 5, 7, 9])
    indices = np.array([2, 3, 1, 0, 4, 0, 4, 2, 3])
    weights = np.array([1.3822308e-21, 0.5, 77.617287, 1.3822308e-21, 66.869835, 0.5, 36.784889, 66.869835, 36.784889])
    g = gg.Graph(offsets, indices, weights, directed=False)
    for method in ("delta_stepping", "bellman_ford"):
        check(g, 3, sssp(g, 3, method=method, backend="cpu"))


# ------------------------------------------------------------------------------------------------------ bucket width
@contextlib.contextmanager
def time_limit(seconds: float):
    """Fail (instead of hanging) when the block runs past `seconds`: SIGALRM interrupts the near-far loop between two
    operator calls."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: the bucket bound did not move")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_delta_too_narrow_to_move_the_bucket_bound_is_refused_before_running():
    """1e-15 added to a distance near 2.3e5 leaves it unchanged in float64: near-far looped forever. Refused at once,
    naming the delta, how far distances reach and float64's step there."""
    g = gg.load("grid:30:30:w")
    floor, reach = smallest_delta(g)
    assert reach >= (g.num_vertices - 1) * float(g.weights.max()) and floor == np.spacing(reach)
    start = time.perf_counter()
    with time_limit(30), pytest.raises(GraphError, match=r"delta=1e-15 cannot advance the bucket bound: distances "
                                                         r"here reach 2\.29e\+05, where float64 steps are 2\.9e-11"):
        gg.sssp(g, 0, delta=1e-15, backend="cpu")
    assert time.perf_counter() - start < 1.0
    with pytest.raises(GraphError, match="cannot advance the bucket bound"):
        gg.sssp(g, 0, delta=float(np.nextafter(floor, 0)), backend="cpu")
    # Bellman-Ford has no buckets: a delta given to it is not used, and not refused for its width
    check(g, 0, gg.sssp(g, 0, method="bellman_ford", delta=1e-15, backend="cpu"))


@pytest.mark.parametrize("path", [None, "direction=push", "sync=async"])
def test_smallest_accepted_delta_returns(path):
    """The narrowest width accepted runs to the end (a power of two: every bound near-far computes from it is exact)
    and agrees with Dijkstra; so does the default."""
    g = gg.load("grid:30:30:w")
    floor = smallest_delta(g)[0]
    strategy = "auto" if path is None else path
    with time_limit(120):
        check(g, 17, gg.sssp(g, 17, delta=floor, backend="cpu", strategy=strategy))
        check(g, 17, gg.sssp(g, 17, backend="cpu", strategy=strategy))


def test_default_delta_is_widened_to_the_smallest_that_moves_the_bound():
    """A sampled mean can miss a heavy arc: 131,073 parallel arcs of 1e-30 then one of 1e30 (the sample takes every
    second arc, not it) gave a default width of 1e-30, and 1e30 + 1e-30 == 1e30: the default run never ended."""
    src = np.array([0] * 131_073 + [1])
    dst = np.array([1] * 131_073 + [2])
    w = np.array([1e-30] * 131_073 + [1e30])
    g = gg.Graph.from_edges(src, dst, w, duplicates="keep")
    mean, _, positive = check_weights(g)
    assert default_delta(g, mean, positive) < smallest_delta(g)[0]
    with time_limit(60):
        for method in METHODS:
            check(g, 0, gg.sssp(g, 0, method=method, backend="cpu"))


def test_nonfinite_csr_weights_are_refused_and_finite_ones_match_dijkstra():
    """Graph(offsets, indices, weights) refuses NaN, +-inf and float64 beyond float32 (which became inf: SSSP then
    called a reachable vertex unreachable); the same CSR with finite weights runs as Dijkstra does."""
    offsets = np.array([0, 2, 3, 5, 6])
    indices = np.array([1, 2, 3, 1, 3, 0])
    finite = np.array([1.0, 4.0, 2.5, 1.0, 7.0, 3.0])
    for bad, shown in ((np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf"), (1e39, r"1e\+39")):
        weights = finite.copy()
        weights[3] = bad
        with pytest.raises(GraphError, match=rf"weights\[3\] = {shown} is not a finite float32"):
            gg.Graph(offsets, indices, weights)
    g = gg.Graph(offsets, indices, finite)
    for source in range(4):
        expected = dijkstra(scipy.sparse.csr_array((finite, indices, offsets), shape=(4, 4)), indices=source)
        for method in METHODS:
            result = gg.sssp(g, source, method=method, backend="cpu")
            np.testing.assert_array_equal(result.distances, expected)
            check(g, source, result)



# ------------------------------------------------------------------------------------------------------ cutoff, weight
@st.composite
def cutoffs(draw, g: gg.Graph, source: int) -> float:
    """A cutoff that is often exactly one of the distances (networkx keeps a distance equal to it), else any number
    from 0 to past the largest."""
    finite = reference(g, source)
    finite = finite[np.isfinite(finite)]
    if draw(st.booleans()):
        return float(draw(st.sampled_from(sorted(set(finite.tolist())))))
    return draw(st.floats(0, float(finite.max()) * 1.5 + 1, allow_nan=False))


@settings(max_examples=150, **SETTINGS)
@given(case=weighted_graphs(), method=st.sampled_from(("auto",) + METHODS),
       delta=st.sampled_from([None, None, 0.5, 3.0, np.inf]), data=st.data())
def test_cutoff_matches_networkx(case, method, delta, data):
    g, source = case
    cutoff = data.draw(cutoffs(g, source), label="cutoff")
    expected = nx_reference(g, source, cutoff=cutoff)
    check(g, source, sssp(g, source, cutoff=cutoff, method=method, delta=delta, backend="cpu"), expected)
    assert np.all(expected[np.isfinite(expected)] <= cutoff)


@settings(max_examples=60, **SETTINGS)
@given(case=weighted_graphs(max_n=25), method=st.sampled_from(METHODS), path=st.sampled_from(CPU_PATHS),
       layout=st.sampled_from(["given", "degree"]), data=st.data())
def test_cutoff_every_path_and_layout(case, method, path, layout, data):
    g, source = case
    cutoff = data.draw(cutoffs(g, source), label="cutoff")
    result = sssp(g, source, cutoff=cutoff, method=method, backend="cpu", strategy=path, layout=layout)
    check(g, source, result, nx_reference(g, source, cutoff=cutoff))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("path", ["direction=push", "direction=pull,frontier=bitmap", "sync=async"])
def test_cutoff_stops_the_work(method, path):
    """With a cutoff at a tenth of the farthest distance, the run does a small part of what the whole search does
    (delta-stepping: no bucket bound past nextafter(cutoff); Bellman-Ford: no vertex past it sends: the sync rounds'
    frontiers, which the trace counts, add up to a tenth), and the labels past the cutoff are reported inf."""
    import re

    g = gg.load("grid:60:60:w")
    full = sssp(g, 0, method=method, backend="cpu", strategy=path)
    cutoff = float(np.max(full.distances[np.isfinite(full.distances)])) / 10
    cut = sssp(g, 0, cutoff=cutoff, method=method, delta=cutoff / 8, backend="cpu", strategy=path)
    check(g, 0, cut, np.where(full.distances <= cutoff, full.distances, np.inf))
    if method == "delta_stepping":
        bounds = [float(m) for row in cut.trace if row.phase == "far"
                  for m in re.findall(r"-> ([\d.e+]+)", row.reason)]
        assert len(bounds) >= 7 and max(bounds) <= np.nextafter(cutoff, np.inf)
    if "async" not in path:  # an async row counts its first worklist only, not the drain
        work = {name: sum(row.frontier_vertices for row in r.trace if row.phase != "far")
                for name, r in (("full", full), ("cut", cut))}
        assert work["cut"] < 0.1 * work["full"], work


def test_cutoff_boundary_and_bounds():
    """A distance equal to the cutoff is kept and one a float64 step above it dropped (networkx's `>`); 0 keeps the
    source and the vertices at distance 0; inf and None are no cutoff; the tree has no parent past the cutoff."""
    g = gg.Graph.from_edges([0, 1, 2, 0, 4], [1, 2, 3, 4, 5], [0.0, 1.5, 1.0, 2.5, 0.0])
    for method in METHODS:
        r = gg.sssp(g, 0, cutoff=2.5, method=method, backend="cpu")
        np.testing.assert_array_equal(r.distances, [0, 0, 1.5, 2.5, 2.5, 2.5])
        np.testing.assert_array_equal(r.predecessors, [-1, 0, 1, 2, 0, 4])
        r = gg.sssp(g, 0, cutoff=np.nextafter(2.5, 0), method=method, backend="cpu")
        np.testing.assert_array_equal(r.distances, [0, 0, 1.5, np.inf, np.inf, np.inf])
        np.testing.assert_array_equal(r.predecessors, [-1, 0, 1, -1, -1, -1])
        np.testing.assert_array_equal(gg.sssp(g, 0, cutoff=0, method=method, backend="cpu").distances,
                                      [0, 0] + [np.inf] * 4)
        for none in (None, np.inf, float("inf")):
            np.testing.assert_array_equal(gg.sssp(g, 0, cutoff=none, method=method, backend="cpu").distances,
                                          [0, 0, 1.5, 2.5, 2.5, 2.5])
    np.testing.assert_array_equal(gg.sssp(g, 0, cutoff=np.float32(1.5), backend="cpu").distances,
                                  [0, 0, 1.5] + [np.inf] * 3)


@settings(max_examples=60, **SETTINGS)
@given(case=weighted_graphs(), data=st.data())
def test_weight_none_counts_hops_as_networkx(case, data):
    """weight=None: every arc counts 1 (networkx's weight=None), whatever the graph's weights; with a cutoff, BFS
    stops at the deepest level within it."""
    g, source = case
    cutoff = data.draw(st.none() | st.sampled_from([0, 1, 1.5, 2, 3.99, 5]), label="cutoff")
    r = gg.sssp(g, source, weight=None, cutoff=cutoff, backend="cpu")
    expected = nx_reference(g, source, cutoff=cutoff, weight=None)
    np.testing.assert_array_equal(r.distances, expected)
    hops = gg.bfs(g, source, backend="cpu").distances
    np.testing.assert_array_equal(np.isfinite(r.distances), (hops >= 0) & (hops <= (np.inf if cutoff is None
                                                                                       else cutoff)))
    assert np.all(r.predecessors[~np.isfinite(expected)] == -1) and r.predecessors[source] == -1


def test_weight_names():
    """A weight name on a Graph means its weights (it holds one array); on an unweighted Graph, hop counts."""
    w = gg.Graph.from_edges([0, 0, 1], [1, 2, 2], [1.0, 5.0, 1.0])
    for name in ("weight", "length", ""):
        np.testing.assert_array_equal(gg.sssp(w, 0, weight=name, backend="cpu").distances, [0, 1, 2])
    np.testing.assert_array_equal(gg.sssp(w, 0, weight=None, backend="cpu").distances, [0, 1, 1])
    u = gg.Graph.from_edges([0, 0, 1], [1, 2, 2])
    np.testing.assert_array_equal(gg.sssp(u, 0, weight="length", backend="cpu").distances, [0, 1, 1])


def test_hop_counts_on_labelled_graphs():
    """Hop counts (an unweighted graph, or weight=None) take the source as the user's label, as the weighted path
    does."""
    u = gg.Graph.from_edges(["a", "b", "a"], ["b", "c", "c"])
    w = gg.Graph.from_edges(["a", "b", "a"], ["b", "c", "c"], [1.0, 1.0, 5.0])
    for g, weight in ((u, "weight"), (w, None)):
        for cutoff in (None, 0):
            r = gg.sssp(g, "b", weight=weight, cutoff=cutoff, backend="cpu")
            assert r.to_pandas().set_index("vertex")["distances"].to_dict() == {"a": np.inf, "b": 0.0,
                                                                                 "c": 1.0 if cutoff is None else np.inf}


@pytest.mark.parametrize("kwargs", [dict(cutoff=-1), dict(cutoff=float("nan")), dict(cutoff="3"), dict(cutoff=True),
                                    dict(cutoff=[3]), dict(weight=3), dict(weight=True), dict(weight=["weight"])])
def test_bad_cutoff_and_weight(kwargs):
    for g in (gg.Graph.from_edges([0, 1], [1, 2], [1.0, 1.0]), gg.Graph.from_edges([0, 1], [1, 2])):
        with pytest.raises(GraphError, match="cutoff|weight"):
            gg.sssp(g, 0, backend="cpu", **kwargs)


# ------------------------------------------------------------------------------------------------------ GPU
GPU_SPECS = ["kron:12:w", "grid:64:64:w", "er:5000:8:w", "rmat:11:8:w"]
GPU_PATHS = ["auto", "direction=push", "direction=pull,frontier=bitmap", "sync=async"]


@pytest.mark.gpu
@pytest.mark.parametrize("spec", GPU_SPECS)
@pytest.mark.parametrize("strategy", GPU_PATHS)
@pytest.mark.parametrize("method", ("auto",) + METHODS)
def test_gpu_cutoff_matches_cpu(spec, strategy, method):
    """"auto" runs near-far in one persistent kernel (BELLMAN_FORD_WITHIN: no vertex past the cutoff sends), a fixed
    path the host's near-far loop through the GPU's operators, bellman_ford the program with the cutoff."""
    g = gg.load(spec)
    source = int(np.argmax(g.out_degree()))
    whole = sssp(g, source, backend="cpu").distances
    for fraction in (0.0, 0.3, 1.0):
        cutoff = float(np.max(whole[np.isfinite(whole)])) * fraction
        gpu = sssp(g, source, cutoff=cutoff, method=method, backend="cuda", strategy=strategy)
        assert gpu.trace.backend == "cuda"
        check(g, source, gpu, np.where(whole <= cutoff, whole, np.inf))


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["given", "degree"])
def test_gpu_cutoff_layouts_and_weight_none(layout):
    g = gg.load("kron:12:w")
    source = int(np.argmax(g.out_degree()))
    whole = sssp(g, source, backend="cpu").distances
    cutoff = float(np.median(whole[np.isfinite(whole)]))
    check(g, source, sssp(g, source, cutoff=cutoff, backend="cuda", layout=layout),
          np.where(whole <= cutoff, whole, np.inf))
    hops = sssp(g, source, weight=None, cutoff=2, backend="cuda", layout=layout)
    np.testing.assert_array_equal(hops.distances, nx_reference(g, source, cutoff=2, weight=None))

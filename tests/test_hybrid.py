"""MultiGraph's hybrid controller (engine.controller.HybridController, strategy="hybrid"): sparse or dense iterations
chosen by the sampled sparse cost (ESP) against the measured dense cost (EDP). Its decisions on given costs, the
sample's place in the loop (the sampled vertices' work joins the iteration's output, not lost and not repeated), and
results equal to SciPy's and to the default controller's on random and generated graphs, on each backend."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import BACKENDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import shortest_path

import graphgear as gg
from graphgear.engine.controller import SAMPLE_MIN, SAMPLE_MIN_EDGES, HybridController, IterationInfo, make_controller
from graphgear.errors import StrategyError
from graphgear.frontier import Frontier


def info(iteration: int, vertices: int, edges: int, n: int = 10_000, m: int = 100_000) -> IterationInfo:
    return IterationInfo(iteration, vertices, edges, n, m)


# ------------------------------------------------------------------------------------------------- the controller
def test_first_iteration_runs_dense_and_measures_edp():
    c = HybridController()
    assert c.sample_plan(info(0, 5_000, 50_000)) is None  # no sample before EDP is known
    d = c.choose(info(0, 1, 10))
    assert d.strategy == c.dense and d.strategy.direction == "pull" and "sample EDP" in d.reason
    c.observe(d, info(0, 1, 10), 0.004)
    assert c.edp == 0.004


def test_the_sample_decides_by_its_cost_scaled_by_out_edges():
    """A sample of 100 vertices with 1,000 out-edges in 0.1 ms: ESP for 100,000 out-edges is 10 ms, against an EDP
    of 4 ms (dense), then against one of 20 ms (sparse). The sample is k = 1% of the active set, at least `minimum`
    (minimum_edges lowered so that these rounds are large enough to sample)."""
    c = HybridController(minimum=32, minimum_edges=1_000)
    c.observe(c.choose(info(0, 1, 10)), info(0, 1, 10), 0.004)
    k, strategy, _ = c.sample_plan(info(1, 10_000, 100_000))
    assert (k, strategy) == (100, c.sparse) and strategy.balance == "three_stage" and strategy.direction == "push"
    assert c.sample_plan(info(1, 2_000, 9_000))[0] == 32
    assert c.sample_plan(info(1, 63, 9_000)) is None  # too few to sample
    c.observe_sample(100, 1_000, 0.0001)
    d = c.choose(info(1, 10_000, 100_000))
    assert d.strategy == c.dense and "ESP 10 ms" in d.reason and ">= EDP 4 ms" in d.reason
    c.observe(d, info(1, 10_000, 100_000), 0.02)  # each dense iteration measures EDP again
    c.observe_sample(100, 1_000, 0.0001)
    d = c.choose(info(2, 10_000, 100_000))
    assert d.strategy == c.sparse and "< EDP 20 ms" in d.reason


def test_without_samples_esp_is_the_last_sparse_time_per_edge():
    """A loop that runs no samples (BC's, near-far's): sparse until a sparse time is known, then ESP from it (no
    round too small to judge here: minimum_edges 0)."""
    c = HybridController(minimum_edges=0)
    c.observe(c.choose(info(0, 1, 10)), info(0, 1, 10), 0.001)
    d = c.choose(info(1, 40, 400))
    assert d.strategy == c.sparse and "no sparse time yet" in d.reason
    c.observe(d, info(1, 40, 400), 0.0004)  # 1 us an edge
    d = c.choose(info(2, 900, 5_000))
    assert d.strategy == c.dense and "ESP 5 ms" in d.reason


def test_a_new_run_starts_its_measurements_again():
    c = HybridController()
    c.observe(c.choose(info(0, 1, 10)), info(0, 1, 10), 0.5)
    c.observe_sample(100, 100, 0.1)
    assert c.choose(info(0, 1, 10)).strategy == c.dense and c.edp is None and c.per_edge is None and c.fixed is None


def test_too_little_work_runs_sparse_and_a_sample_scales_only_its_time_above_the_fixed_part():
    """Under 2 x SAMPLE_MIN_EDGES out-edges an iteration runs sparse without a sample, and the fastest such round is
    the fixed part of a round (launches, host work). A later sample scales only its time above that: 0.27 ms fixed,
    a sample of 100,000 out-edges in 0.30 ms, 10M out-edges: ESP = 0.27 + 0.03 x 100 = 3.27 ms, under an EDP of 4 ms
    (sparse), where scaling all of the sample's 0.30 ms would have given 30 ms (dense)."""
    c = HybridController()
    c.observe(c.choose(info(0, 1, 10)), info(0, 1, 10), 0.004)
    for edges, seconds in ((2 * SAMPLE_MIN_EDGES - 1, 0.00031), (12, 0.00027), (4_000, 0.00029)):
        small = info(1, 5_000, edges)
        assert c.sample_plan(small) is None
        d = c.choose(small)
        assert d.strategy == c.sparse and "too little work to sample" in d.reason
        c.observe(d, small, seconds)
    assert c.fixed == 0.00027
    big = info(2, 1_000_000, 10_000_000)
    assert c.sample_plan(big)[0] == 10_000
    c.observe_sample(10_000, 100_000, 0.00030)
    d = c.choose(big)
    assert d.strategy == c.sparse and "ESP 3.27 ms" in d.reason and "0.27 ms fixed" in d.reason
    c.observe_sample(10_000, 100_000, 0.00080)  # 0.53 ms above it: ESP 53.3 ms
    d = c.choose(big)
    assert d.strategy == c.dense and "ESP 53.3 ms" in d.reason


def test_hybrid_by_name_and_where_it_does_not_apply():
    g = gg.load("er:200:4")
    assert isinstance(make_controller("hybrid", g, "traversal"), HybridController)
    for call in (lambda: gg.pagerank(g, strategy="hybrid"), lambda: gg.connected_components(g, strategy="hybrid"),
                 lambda: gg.color_propagation(g, strategy="hybrid")):
        with pytest.raises(StrategyError, match="'hybrid'.*steers traversals"):
            call()
    with pytest.raises(StrategyError, match="sample fraction"):
        HybridController(fraction=0.0)


def test_frontier_sample_and_join():
    rng = np.random.default_rng(3)
    f = Frontier.from_vertices(np.array([9, 4, 7, 1, 3]), 12)
    s = f.sample(3, rng)
    assert s.size == 3 and len(set(s.vertices().tolist())) == 3 and set(s.vertices().tolist()) <= {9, 4, 7, 1, 3}
    assert f.sample(5, rng) is f and f.sample(9, rng) is f
    dense = Frontier.from_mask(np.arange(12) % 4 == 0)  # 0, 4, 8
    assert dense.sample(2, rng).size == 2 and set(dense.sample(2, rng).vertices().tolist()) <= {0, 4, 8}
    assert np.flatnonzero(f.joined(dense).mask).tolist() == [0, 1, 3, 4, 7, 8, 9]


# ------------------------------------------------------------------------------------------------- results
@st.composite
def graphs(draw, weighted: bool = False):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(0, 5 * n))
    ids = st.integers(0, n - 1)
    src = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    dst = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    weights = np.array(draw(st.lists(st.integers(0, 9), min_size=m, max_size=m)), dtype=float) if weighted else None
    g = gg.Graph.from_edges(src, dst, weights, num_vertices=n, directed=draw(st.booleans()))
    return g, draw(st.integers(0, n - 1))


def hops(g: gg.Graph, source: int) -> np.ndarray:
    d = shortest_path(g.to_scipy(), indices=source, unweighted=True) if g.num_arcs else np.full(g.num_vertices, np.inf)
    d[source] = 0
    return np.where(np.isfinite(d), d, -1).astype(np.int64)


SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=60, **SETTINGS)
@given(case=graphs(), fraction=st.sampled_from([0.2, 0.5, 1.0]))
def test_bfs_equals_scipy_with_samples_every_iteration(case, fraction):
    """A sample of at least 2 vertices an iteration (on these small graphs the default takes none): the distances
    are SciPy's and the tree is the default controller's, whichever mode each iteration takes."""
    g, source = case
    result = gg.bfs(g, source, backend="cpu", strategy=HybridController(fraction=fraction, minimum=2))
    np.testing.assert_array_equal(result.distances, hops(g, source))
    np.testing.assert_array_equal(result.predecessors, gg.bfs(g, source, backend="cpu").predecessors)


@settings(max_examples=40, **SETTINGS)
@given(case=graphs(weighted=True))
def test_sssp_equals_scipy(case):
    g, source = case
    result = gg.sssp(g, source, backend="cpu", strategy=HybridController(fraction=0.5, minimum=2))
    expected = shortest_path(g.to_scipy(), indices=source) if g.num_arcs else np.full(g.num_vertices, np.inf)
    expected[source] = 0
    np.testing.assert_array_equal(result.distances, expected)


GENERATED = ("kron:11", "rmat:11:8", "grid:40:40:0.8", "er:3000:4")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("spec", GENERATED + ("kron:15", "rmat:15:16"))
def test_bfs_trace_shows_the_samples(backend, spec):
    """The first row is dense (EDP). A row whose frontier has at least 2 x SAMPLE_MIN vertices and 2 x
    SAMPLE_MIN_EDGES out-edges follows a sample: it gives ESP and EDP and counts the sample's edges and time with its
    own (kron:15 and rmat:15:16 have such levels; the smaller graphs none); a row under SAMPLE_MIN_EDGES runs sparse
    without a sample. The distances are SciPy's."""
    g = gg.load(spec)
    source = int(np.argmax(g.out_degree()))
    result = gg.bfs(g, source, backend=backend, strategy="hybrid")
    np.testing.assert_array_equal(result.distances, hops(g, source))
    rows = result.trace.rows
    assert rows[0].decision == "dense" and "sample EDP" in rows[0].reason
    large = [row for row in rows[1:]
             if row.frontier_vertices >= 2 * SAMPLE_MIN and row.frontier_edges >= 2 * SAMPLE_MIN_EDGES]
    assert bool(large) == (spec in ("kron:15", "rmat:15:16"))
    for row in large:
        assert "the sample:" in row.reason and "EDP" in row.reason and row.decision in ("sparse", "dense")
        if row.decision == "sparse":  # the sample's out-edges and the rest's: the frontier's, once
            assert row.edges_processed == row.frontier_edges
    for row in rows[1:]:
        if row.frontier_edges < 2 * SAMPLE_MIN_EDGES:
            assert row.decision == "sparse" and "too little work to sample" in row.reason


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("spec", ("kron:10:w", "grid:30:30:0.8:w"))
def test_sssp_and_betweenness_equal_the_default_controllers(backend, spec):
    g = gg.load(spec)
    source = int(np.argmax(g.out_degree()))
    np.testing.assert_array_equal(gg.sssp(g, source, backend=backend, strategy="hybrid").distances,
                                  gg.sssp(g, source, backend=backend).distances)
    for graph in (g, gg.load(spec.removesuffix(":w"))):
        np.testing.assert_allclose(
            gg.betweenness_centrality(graph, sources=[source, 0], backend=backend, strategy="hybrid").centrality,
            gg.betweenness_centrality(graph, sources=[source, 0], backend=backend).centrality, rtol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scc_colouring_steered_by_the_hybrid(backend, monkeypatch):
    """SCC's max-colour propagation runs under the hybrid as a traversal (Tarjan's cut-off lowered so that the
    colouring rounds run): the components are the default's."""
    from graphgear.algorithms import scc
    from graphgear.graph.generate import orient

    monkeypatch.setattr(scc, "TARJAN_CUTOFF", 10)
    g = orient(gg.load("grid:40:40"))
    result = gg.strongly_connected_components(g, backend=backend, strategy="hybrid")
    np.testing.assert_array_equal(result.labels, gg.strongly_connected_components(g, backend=backend).labels)
    assert any(row.phase == "color" for row in result.trace.rows)

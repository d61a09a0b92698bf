"""Betweenness where the shortest-path counts pass float64's range (algorithms/brandes_wide.py).

A chain of diamonds doubles the count at every diamond, so 1,100 of them give 2^1100 paths (float64 ends at 2^1024):
networkx's float counts and graphgear's parallel phases make NaN of it. Checked against an exact Brandes with Python
integers and fractions, on every CPU path, weighted and unweighted, and on the GPU (marked gpu); the wide-range
recount itself against networkx on random graphs where nothing overflows."""

from __future__ import annotations

import time
from collections import deque
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from conftest import CPU_PATHS, StandInDeviceLoop, on_backends
from hypothesis import given, settings
from hypothesis import strategies as st
from test_betweenness import SETTINGS, as_array, close9, graphs, nx_weighted, weighted_graphs

import graphgear as gg
from graphgear.algorithms.betweenness import _rescale, _simple_view
from graphgear.algorithms.betweenness_weighted import dag_view
from graphgear.algorithms.brandes_wide import wide_brandes
from graphgear.algorithms.verify import verify_betweenness
from graphgear.errors import VerificationError

DIAMONDS = 1_100  # 2^1100 shortest paths end to end


def diamond_chain(k: int = DIAMONDS, weighted: bool = False) -> gg.Graph:
    """Cut vertices c_0 .. c_k, each pair c_i, c_i+1 joined through two middles: 2^i shortest paths from c_0 to c_i."""
    src, dst = [], []
    for i in range(k):
        c, nxt, a, b = 3 * i, 3 * (i + 1), 3 * i + 1, 3 * i + 2
        src += [c, c, a, b]
        dst += [a, b, nxt, nxt]
    weights = np.ones(len(src)) if weighted else None
    return gg.Graph.from_edges(np.array(src), np.array(dst), weights, num_vertices=3 * k + 1, directed=False)


def exact_dependencies(g: gg.Graph, s: int) -> np.ndarray:
    """Brandes from s with integer path counts and fractional dependencies (no range limit), as floats at the end."""
    n = g.num_vertices
    dist, sigma, order = [-1] * n, [0] * n, []
    dist[s], sigma[s] = 0, 1
    queue = deque([s])
    while queue:
        u = queue.popleft()
        order.append(u)
        for v in g.indices[g.offsets[u]:g.offsets[u + 1]].tolist():
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
            if dist[v] == dist[u] + 1:
                sigma[v] += sigma[u]
    delta = [Fraction(0)] * n
    for u in reversed(order):
        for v in g.indices[g.offsets[u]:g.offsets[u + 1]].tolist():
            if dist[v] == dist[u] + 1:
                delta[u] += Fraction(sigma[u], sigma[v]) * (1 + delta[v])
    delta[s] = Fraction(0)
    return np.array([float(x) for x in delta])


@pytest.fixture(scope="module")
def chain_reference() -> tuple[gg.Graph, np.ndarray]:
    g = diamond_chain()
    return g, (exact_dependencies(g, 0) + exact_dependencies(g, 1_500)) / 2  # single-source BC: delta / 2 undirected


def test_networkx_counts_overflow_on_the_chain(chain_reference):
    """What the recount is for: networkx's float counts give NaN here."""
    g, _ = chain_reference
    G = g.to_networkx()
    got = nx.betweenness_centrality_subset(G, sources=[0], targets=list(G), normalized=False)
    assert np.isnan(list(got.values())).any()


@pytest.mark.parametrize("backend,strategy", on_backends(["auto"] + CPU_PATHS, cuda=["auto", CPU_PATHS[0], CPU_PATHS[2]]))
def test_overflowing_counts_give_exact_betweenness(chain_reference, backend, strategy):
    g, expected = chain_reference
    result = gg.betweenness_centrality(g, sources=[0, 1_500], normalized=False, backend=backend, strategy=strategy)
    got = np.asarray(result.centrality)
    assert np.isfinite(got).all()
    close9(got, expected)
    assert any(r.decision == "recount" for r in result.trace.rows)


def test_overflowing_weighted_counts_give_exact_betweenness(chain_reference, backend):
    _, expected = chain_reference
    result = gg.betweenness_centrality(diamond_chain(weighted=True), sources=[0, 1_500], normalized=False,
                                       weight="weight", backend=backend)
    close9(np.asarray(result.centrality), expected)


def test_counts_in_range_are_not_recounted():
    result = gg.betweenness_centrality(diamond_chain(900), sources=[0], normalized=False)
    assert np.isfinite(np.asarray(result.centrality)).all()
    assert not any(r.decision == "recount" for r in result.trace.rows)


def recounted(g: gg.Graph, *, weighted: bool, normalized: bool, endpoints: bool) -> np.ndarray:
    """Every vertex as a source through the wide-range recount alone, rescaled as networkx rescales."""
    n = g.num_vertices
    view = dag_view(g) if weighted else _simple_view(g)
    raw = wide_brandes(view, list(range(n)), weighted=weighted, endpoints=endpoints)
    return _rescale(raw, np, n, normalized=normalized, directed=g.directed, endpoints=endpoints, sampled=None)


@settings(max_examples=100, **SETTINGS)
@given(g=graphs(), normalized=st.booleans(), endpoints=st.booleans())
def test_wide_recount_matches_networkx(g, normalized, endpoints):
    n = g.num_vertices
    G = nx.DiGraph() if g.directed else nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(np.repeat(np.arange(n), g.out_degree()).tolist(), g.indices.tolist()))
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    expected = nx.betweenness_centrality(G, normalized=normalized, endpoints=endpoints)
    close9(recounted(g, weighted=False, normalized=normalized, endpoints=endpoints), as_array(g, expected))


@settings(max_examples=100, **SETTINGS)
@given(g=weighted_graphs(), normalized=st.booleans(), endpoints=st.booleans())
def test_wide_weighted_recount_matches_networkx(g, normalized, endpoints):
    expected = nx.betweenness_centrality(nx_weighted(g), normalized=normalized, endpoints=endpoints, weight="weight")
    close9(recounted(g, weighted=True, normalized=normalized, endpoints=endpoints), as_array(g, expected))

def test_verifier_counts_past_float64_too(chain_reference):
    """verify_betweenness (graphgear run --verify) counts paths in Python integers: it passes the exact centrality on
    the chain and refuses one entry off by a part in a million."""
    g, expected = chain_reference
    verify_betweenness(g, expected, sources=[0, 1_500], normalized=False)
    wrong = expected.copy()
    wrong[1_000] *= 1 + 1e-6
    with pytest.raises(VerificationError):
        verify_betweenness(g, wrong, sources=[0, 1_500], normalized=False)


def test_first_source_past_the_range_sends_every_source_to_the_recount(monkeypatch, chain_reference):
    """The host-driven loop checks its sums after the first source: once they are not finite, the other sources are
    not run in float64 first (they would be recounted all the same)."""
    from graphgear.algorithms import betweenness

    g, expected = chain_reference
    calls = []
    single = betweenness._single_source
    monkeypatch.setattr(betweenness, "_single_source", lambda *a, **k: calls.append(a[3]) or single(*a, **k))
    got = gg.betweenness_centrality(g, sources=[0, 1_500], normalized=False, strategy=CPU_PATHS[0])
    close9(np.asarray(got.centrality), expected)
    assert calls == [0]


def test_device_loop_recount_is_in_the_trace_and_the_seconds(monkeypatch):
    """Where Brandes' device loop ran (read back when first looked at), the recount is part of what the trace and the
    result's seconds report, whichever of them, the trace or the centrality, is read first."""
    from graphgear.algorithms import brandes_wide

    recount = brandes_wide.wide_brandes

    def slow(*args, **kwargs):
        time.sleep(0.2)
        return recount(*args, **kwargs)

    monkeypatch.setattr(brandes_wide, "wide_brandes", slow)
    g = diamond_chain()
    for first in ("trace", "centrality", "seconds"):
        result = gg.betweenness_centrality(g, sources=[0], normalized=False, backend=StandInDeviceLoop())
        getattr(result, first)
        assert [r.decision for r in result.trace.rows].count("recount") == 1, first
        assert result.seconds >= 0.2, first
        assert np.isfinite(np.asarray(result.centrality)).all()


def test_recount_batches_by_free_memory_and_refuses_what_does_not_fit(monkeypatch, chain_reference):
    """The recount runs as many sources at once as a quarter of the free memory holds (56 bytes a vertex each), one
    at a time where that is all, and refuses with HostMemoryError where not even one fits."""
    from graphgear import memory
    from graphgear.errors import HostMemoryError

    g, expected = chain_reference
    view = _simple_view(g)
    for sources_at_once in (1, 2):
        monkeypatch.setattr(memory, "available_bytes", lambda k=sources_at_once: 4 * 56 * g.num_vertices * k)
        got = wide_brandes(view, [0, 1_500], weighted=False, endpoints=False) / 2  # single-source BC: delta / 2
        close9(got, expected)
    monkeypatch.setattr(memory, "available_bytes", lambda: 56 * g.num_vertices - 1)
    with pytest.raises(HostMemoryError, match="wide-range recount"):
        wide_brandes(view, [0], weighted=False, endpoints=False)


def test_recount_refuses_a_zero_length_cycle_as_the_weighted_run_does():
    """The recount names the source, the vertex and its distance where the shortest paths run through a cycle of
    zero length, with the message of betweenness_weighted's own check."""
    from graphgear.errors import GraphError

    g = gg.Graph.from_edges(["s", "s", "a", "b", "a", "b"], ["a", "b", "b", "a", "t", "t"], [1, 1, 0, 0, 1, 1])
    s = int(np.atleast_1d(g.vertex_index(["s"]))[0])
    with pytest.raises(GraphError, match=r"from 's' reach '[ab]' \(distance 1\.0\) through a cycle of zero length"):
        wide_brandes(dag_view(g), [s], weighted=True, endpoints=False)

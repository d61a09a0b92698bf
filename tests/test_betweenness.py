"""Betweenness centrality: against networkx (exact, k sampled with a seed, given sources) on random graphs, against
networkx and an independent level-synchronous reference on real graphs, every CPU path, and the argument errors."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from conftest import CPU_PATHS, REAL_GRAPHS, real_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from networkx.algorithms.centrality.betweenness import (
    _accumulate_endpoints,
    _rescale,
    _single_source_shortest_path_basic,
)

import graphgear as gg
from graphgear.errors import GraphError

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def as_array(g: gg.Graph, values: dict) -> np.ndarray:
    """A networkx result dict (keyed by user labels) as an array by internal id."""
    return np.array([values[label] for label in g.vertex_labels(np.arange(g.num_vertices)).tolist()], dtype=float)


def close(actual: np.ndarray, expected: np.ndarray) -> None:
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-9, equal_nan=True)


@st.composite
def graphs(draw, max_vertices: int = 18):
    """Random graphs, empty to dense-ish: directed or not, isolated vertices, self-loops and parallel arcs kept or
    dropped by the build, optional weights (ignored: BC is unweighted)."""
    n = draw(st.integers(0, max_vertices))
    m = draw(st.integers(0, 3 * n)) if n else 0
    ids = st.integers(0, max(n - 1, 0))
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    weights = draw(st.none() | st.lists(st.floats(0.5, 4.0), min_size=m, max_size=m))
    return gg.Graph.from_edges(
        np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), weights, num_vertices=n,
        directed=draw(st.booleans()), self_loops=draw(st.sampled_from(["drop", "keep"])),
        duplicates=draw(st.sampled_from(["drop", "keep"])),
    )


def single_source_reference(G: nx.Graph, sources: list, normalized: bool, endpoints: bool) -> dict:
    """The exact sum over the given sources from networkx's own pieces (BFS + accumulation + rescaling, no k)."""
    bc = dict.fromkeys(G, 0.0)
    for s in sources:
        S, P, sigma, _ = _single_source_shortest_path_basic(G, s)
        if endpoints:
            bc, _ = _accumulate_endpoints(bc, S, P, sigma, s)
        else:
            S = list(S)
            delta = dict.fromkeys(S, 0.0)
            while S:
                w = S.pop()
                for v in P[w]:
                    delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
                if w != s:
                    bc[w] += delta[w]
    return _rescale(bc, len(G), normalized=normalized, directed=G.is_directed(), endpoints=endpoints)


def level_reference(g: gg.Graph, sources: list[int]) -> np.ndarray:
    """Raw dependency sums over `sources` (no rescaling), independent of graphgear's kernels: level-synchronous BFS with
    SciPy sparse row slices, np.bincount for the path counts and the dependencies."""
    n = g.num_vertices
    A = scipy.sparse.csr_array((np.ones(g.num_arcs), g.indices, g.offsets), shape=(n, n))
    A.sum_duplicates()  # the pattern: parallel arcs merged
    bc = np.zeros(n)
    for s in sources:
        level = np.full(n, -1)
        sigma = np.zeros(n)
        level[s], sigma[s] = 0, 1.0
        levels = [np.array([s])]
        while True:
            f = levels[-1]
            rows = A[f]
            counts = np.diff(rows.indptr)
            targets = rows.indices
            carry = np.repeat(sigma[f], counts)
            new = level[targets] == -1
            paths = np.bincount(targets[new], weights=carry[new], minlength=n)
            reached = np.unique(targets[new])
            if reached.size == 0:
                break
            level[reached] = len(levels)
            sigma[reached] = paths[reached]
            levels.append(reached)
        delta = np.zeros(n)
        for d in range(len(levels) - 1, 0, -1):
            f = levels[d]
            rows = A[f]
            targets = rows.indices
            owner = np.repeat(np.arange(f.size), np.diff(rows.indptr))
            below = level[targets] == d + 1
            terms = (1 + delta[targets[below]]) / sigma[targets[below]]
            delta[f] = sigma[f] * np.bincount(owner[below], weights=terms, minlength=f.size)
            bc[f] += delta[f]
    return bc


# ------------------------------------------------------------------------------------------------ random graphs
@settings(max_examples=150, **SETTINGS)
@given(g=graphs(), normalized=st.booleans(), endpoints=st.booleans())
def test_exact_matches_networkx(g, normalized, endpoints):
    r = gg.betweenness_centrality(g, normalized=normalized, endpoints=endpoints, backend="cpu")
    ref = nx.betweenness_centrality(g.to_networkx(), normalized=normalized, endpoints=endpoints)
    close(r.centrality, as_array(g, ref))
    assert r.graph is g and all(row.phase in ("forward", "backward") for row in r.trace)


@settings(max_examples=60, **SETTINGS)
@given(g=graphs(), normalized=st.booleans(), endpoints=st.booleans(), data=st.data())
def test_k_sampled_sources_match_networkx(g, normalized, endpoints, data):
    if g.num_vertices == 0:
        return
    k = data.draw(st.integers(1, g.num_vertices), label="k")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    r = gg.betweenness_centrality(g, k=k, seed=seed, normalized=normalized, endpoints=endpoints, backend="cpu")
    ref = nx.betweenness_centrality(g.to_networkx(), k=k, seed=seed, normalized=normalized, endpoints=endpoints)
    close(r.centrality, as_array(g, ref))


@settings(max_examples=60, **SETTINGS)
@given(g=graphs(), normalized=st.booleans(), endpoints=st.booleans(), data=st.data())
def test_given_sources_match_networkx_pieces(g, normalized, endpoints, data):
    if g.num_vertices == 0:
        return
    sources = data.draw(st.lists(st.integers(0, g.num_vertices - 1), min_size=1, max_size=3), label="sources")
    r = gg.betweenness_centrality(g, sources=sources, normalized=normalized, endpoints=endpoints, backend="cpu")
    G = g.to_networkx()
    close(r.centrality, as_array(g, single_source_reference(G, sources, normalized, endpoints)))
    if not endpoints:  # the public networkx function for an exact subset of sources
        ref = nx.betweenness_centrality_subset(G, sources, list(G), normalized=normalized)
        close(r.centrality, as_array(g, ref))


@settings(max_examples=40, **SETTINGS)
@given(g=graphs(), path=st.sampled_from(CPU_PATHS), endpoints=st.booleans())
def test_every_path_on_random_graphs(g, path, endpoints):
    r = gg.betweenness_centrality(g, endpoints=endpoints, backend="cpu", strategy=path)
    close(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), endpoints=endpoints)))


# ------------------------------------------------------------------------------------------------ fixed graphs
@pytest.mark.parametrize("path", CPU_PATHS + ["static", "adaptive"])
def test_every_path_on_generated_graphs(path):
    for spec in ("kron:7", "grid:10:10:0.8", "rmat:7:4"):
        g = gg.load(spec)
        r = gg.betweenness_centrality(g, k=12, seed=3, backend="cpu", strategy=path)
        close(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), k=12, seed=3)))


def test_seed_kinds_sample_as_networkx_does():
    g = gg.load("er:60:3")
    G = g.to_networkx()
    for make in (lambda: 17, lambda: random.Random(17), lambda: np.random.default_rng(17)):
        r = gg.betweenness_centrality(g, k=9, seed=make(), backend="cpu")
        close(r.centrality, as_array(g, nx.betweenness_centrality(G, k=9, seed=make())))


def test_all_sources_equal_exact_and_single_source_is_raw_dependency():
    g = gg.load("rmat:7:4")
    exact = gg.betweenness_centrality(g, backend="cpu").centrality
    close(gg.betweenness_centrality(g, sources=list(range(g.num_vertices)), backend="cpu").centrality, exact)
    s = int(np.argmax(g.out_degree()))
    raw = gg.betweenness_centrality(g, sources=[s], normalized=False, backend="cpu").centrality
    close(raw, level_reference(g, [s]))  # directed: delta_s(v) itself
    u = gg.load("kron:7")
    raw = gg.betweenness_centrality(u, sources=[s], normalized=False, backend="cpu").centrality
    close(raw, level_reference(u, [s]) / 2)  # undirected: each unordered pair once


def test_path_graph_by_hand():
    g = gg.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], directed=False)  # 0-1-2-3-4
    raw = gg.betweenness_centrality(g, normalized=False, backend="cpu").centrality
    np.testing.assert_allclose(raw, [0, 3, 4, 3, 0])
    d = gg.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])  # diamond: two shortest 0->3 paths
    np.testing.assert_allclose(gg.betweenness_centrality(d, normalized=False, backend="cpu").centrality,
                               [0, 0.5, 0.5, 0])


def test_parallel_arcs_count_once_and_weights_are_ignored():
    src, dst = [0, 0, 0, 1, 2, 2], [1, 1, 2, 3, 3, 3]
    multi = gg.Graph.from_edges(src, dst, [1, 1, 9, 1, 1, 1], duplicates="keep", self_loops="keep")
    simple = gg.Graph.from_edges(src, dst)
    assert multi.num_arcs > simple.num_arcs
    np.testing.assert_allclose(gg.betweenness_centrality(multi, normalized=False, backend="cpu").centrality,
                               gg.betweenness_centrality(simple, normalized=False, backend="cpu").centrality)


def test_labels_and_trace():
    g = gg.Graph.from_edges(["a", "b", "c", "b"], ["b", "c", "d", "e"])
    r = gg.betweenness_centrality(g, sources=["a"], normalized=False, backend="cpu")
    assert r.to_pandas().set_index("vertex")["centrality"].to_dict() == {"a": 0, "b": 3, "c": 1, "d": 0, "e": 0}
    phases = [row.phase for row in r.trace]
    assert phases[0] == "forward" and phases[-1] == "backward"
    k = gg.load("kron:12")
    r = gg.betweenness_centrality(k, sources=[int(np.argmax(k.out_degree()))], backend="cpu")
    assert "pull" in r.trace.decisions()  # the traversal controller switches the big levels to pull


def test_high_diameter_graph_runs_async_forward_and_one_backward_pass():
    g = gg.load("grid:30:30")
    r = gg.betweenness_centrality(g, sources=[0], normalized=False, backend="cpu")
    assert [row.path for row in r.trace] == ["async-push-dd", "async-push-dd"]
    close(r.centrality, level_reference(g, [0]) / 2)


# ------------------------------------------------------------------------------------------------ real graphs
NX_REAL = ["social/facebook_combined.txt.gz", "social/wiki-Vote.txt"]
LEVEL_REAL = ["citation/cit-HepTh.txt.gz", "internet/as-caida20071105.txt.gz", "road/malta_osm.gr.gz"]


@pytest.mark.parametrize("name", NX_REAL)
def test_real_graphs_k32_against_networkx(name):
    g = gg.load(real_graph(name))
    r = gg.betweenness_centrality(g, k=32, seed=11, backend="cpu")
    close(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), k=32, seed=11)))


@pytest.mark.parametrize("name", LEVEL_REAL)
def test_real_graphs_k32_against_level_reference(name):
    assert name in REAL_GRAPHS
    g = gg.load(real_graph(name))
    sources = random.Random(5).sample(range(g.num_vertices), 32)
    r = gg.betweenness_centrality(g, k=32, seed=5, normalized=False, backend="cpu")
    n = g.num_vertices
    scale_source = (n - 1) / (31 * (1 if g.directed else 2))  # networkx's k-rescaling, endpoints excluded
    scale_other = (n - 1) / (32 * (1 if g.directed else 2))
    expected = level_reference(g, sources) * scale_other
    expected[sources] *= scale_source / scale_other
    close(r.centrality, expected)


# ------------------------------------------------------------------------------------------------ errors
def test_bad_arguments():
    g = gg.load("grid:3:3")
    with pytest.raises(GraphError, match="cannot be sampled"):
        gg.betweenness_centrality(g, k=10, backend="cpu")
    with pytest.raises(GraphError, match="cannot be sampled"):
        gg.betweenness_centrality(g, k=-1, backend="cpu")
    with pytest.raises(GraphError, match="k = 0"):
        gg.betweenness_centrality(g, k=0, backend="cpu")
    with pytest.raises(GraphError, match="whole number"):
        gg.betweenness_centrality(g, k=2.5, backend="cpu")
    with pytest.raises(GraphError, match="out of range"):
        gg.betweenness_centrality(g, sources=[9], backend="cpu")
    with pytest.raises(GraphError, match="not both"):
        gg.betweenness_centrality(g, k=2, sources=[0], backend="cpu")
    with pytest.raises(GraphError, match="not in the graph"):
        gg.betweenness_centrality(gg.Graph.from_edges(["x"], ["y"]), sources=["z"], backend="cpu")
    with pytest.raises(GraphError, match="no vertices"):
        gg.betweenness_centrality(gg.Graph.from_edges([], [], num_vertices=0), sources=[0], backend="cpu")
    empty = gg.Graph.from_edges([], [], num_vertices=0)
    assert gg.betweenness_centrality(empty, k=0, backend="cpu").centrality.size == 0  # k == V: exact

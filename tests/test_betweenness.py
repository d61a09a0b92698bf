"""Betweenness centrality: against networkx (exact, k sampled with a seed, given sources) on random graphs, against
networkx and an independent level-synchronous reference on real graphs, every CPU path, and the argument errors.
Weighted (weight="weight"): against networkx's Dijkstra-based Brandes to 1e-9 relative on the weighted karate club and
on random graphs with integer weights (many ties) and float32 weights, directed and undirected, parallel arcs and
self-loops included (networkx's MultiDiGraph takes a parallel pair's smallest weight, as graphgear does); against a
brute-force count of simple shortest paths where zero weights make ties between vertices at one distance (networkx's
count there depends on its heap order); the GPU against the CPU (marked gpu). The real graphs and the generated ones
run on the CPU and on the GPU (marked gpu)."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from conftest import CPU_PATHS, REAL_GRAPHS, StandInDeviceLoop, band_graph, on_backends, real_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from networkx.algorithms.centrality.betweenness import (
    _accumulate_endpoints,
    _rescale,
    _single_source_shortest_path_basic,
)

import graphgear as gg
from graphgear.algorithms.betweenness_weighted import dag_view
from graphgear.engine.strategy import Strategy
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
    dropped by the build, optional weights (ignored under the default weight=None)."""
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
# the GPU case of test_every_path_on_generated_graphs: the two controllers and a fixed push and pull path (each GPU
# strategy against the CPU: tests/test_cuda_algorithms_b.py)
GPU_PATHS = ["static", "adaptive", CPU_PATHS[0], CPU_PATHS[2]]


@pytest.mark.parametrize("backend,path", on_backends(CPU_PATHS + ["static", "adaptive"], cuda=GPU_PATHS))
def test_every_path_on_generated_graphs(backend, path):
    for spec in ("kron:7", "grid:10:10:0.8", "rmat:7:4"):
        g = gg.load(spec)
        r = gg.betweenness_centrality(g, k=12, seed=3, backend=backend, strategy=path)
        close(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), k=12, seed=3)))


def test_seed_kinds_sample_as_networkx_does(backend):
    g = gg.load("er:60:3")
    G = g.to_networkx()
    for make in (lambda: 17, lambda: random.Random(17), lambda: np.random.default_rng(17)):
        r = gg.betweenness_centrality(g, k=9, seed=make(), backend=backend)
        close(r.centrality, as_array(g, nx.betweenness_centrality(G, k=9, seed=make())))


def test_all_sources_equal_exact_and_single_source_is_raw_dependency(backend):
    g = gg.load("rmat:7:4")
    exact = gg.betweenness_centrality(g, backend=backend).centrality
    close(gg.betweenness_centrality(g, sources=list(range(g.num_vertices)), backend=backend).centrality, exact)
    s = int(np.argmax(g.out_degree()))
    raw = gg.betweenness_centrality(g, sources=[s], normalized=False, backend=backend).centrality
    close(raw, level_reference(g, [s]))  # directed: delta_s(v) itself
    u = gg.load("kron:7")
    raw = gg.betweenness_centrality(u, sources=[s], normalized=False, backend=backend).centrality
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


def test_deep_graph_missed_by_delta_moves_to_the_device_loop():
    """On a backend with Brandes' device loop, auto's host-driven levels stop at DEEP_LEVELS on a deep graph without
    hubs that the delta test misses, and that source and the rest run in the device loop (here a stand-in that runs
    them level by level on the CPU, counting its calls); the next call on the graph starts there. Fixed strategies run
    as given."""
    from graphgear.engine.controller import DEEP_LEVELS, learned_depth

    be = StandInDeviceLoop()
    g = band_graph(1200)
    assert g.num_arcs / g.num_vertices > 5 and not learned_depth(g)
    expected = as_array(g, nx.betweenness_centrality(g.to_networkx(), k=4, seed=3))
    r = gg.betweenness_centrality(g, k=4, seed=3, backend=be)
    close(r.centrality, expected)
    sources = random.Random(3).sample(range(g.num_vertices), 4)
    assert be.calls == [sources]  # the first source restarted in the device loop, with the other three
    rows = list(r.trace)  # the first source's host levels, then a row per source from the device loop's log
    assert len(rows) == DEEP_LEVELS + 4
    assert all(row.phase == "forward" and "persistent" not in row.reason for row in rows[:DEEP_LEVELS])
    device = rows[DEEP_LEVELS]
    assert "earlier traversal" in device.reason and "one persistent launch" in device.reason
    assert learned_depth(g)
    r = gg.betweenness_centrality(g, k=4, seed=3, endpoints=True, backend=be)  # the depth is known: no host level
    assert be.calls[1] == sources and "one persistent launch" in r.trace.rows[0].reason
    close(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), k=4, seed=3, endpoints=True)))
    r = gg.betweenness_centrality(g, k=2, seed=1, backend=be, strategy=Strategy())  # a fixed strategy runs as given
    assert len(be.calls) == 2 and all(row.path == "sync-push-dd" for row in r.trace if row.phase == "forward")


def test_small_graph_runs_the_device_loop_whatever_its_depth():
    """A graph of at most capabilities.brandes_loop_arcs arcs runs Brandes' device loop under auto even where it is
    shallow (its host-driven levels would cost more than the loop's levels); one arc more, and the host drives a
    shallow graph's levels. Fixed strategies run as given."""
    g = gg.load("kron:8")
    expected = as_array(g, nx.betweenness_centrality(g.to_networkx(), k=4, seed=3))
    be = StandInDeviceLoop()
    be.capabilities = replace(be.capabilities, brandes_loop_arcs=g.num_arcs)
    r = gg.betweenness_centrality(g, k=4, seed=3, backend=be)
    close(r.centrality, expected)
    assert be.calls == [random.Random(3).sample(range(g.num_vertices), 4)]
    assert "whatever the depth" in r.trace.rows[0].reason and "one persistent launch" in r.trace.rows[0].reason
    gg.betweenness_centrality(g, k=2, seed=1, backend=be, strategy=Strategy())
    assert len(be.calls) == 1
    be.capabilities = replace(be.capabilities, brandes_loop_arcs=g.num_arcs - 1)
    r = gg.betweenness_centrality(g, k=4, seed=3, backend=be)
    close(r.centrality, expected)
    assert len(be.calls) == 1 and all("persistent" not in row.reason for row in r.trace)


def test_level_synchronous_bc_records_the_depth_it_ran():
    """BC's level-synchronous forward phase records its depth as the traversals do (controller.note_depth), on any
    backend; the CPU's auto ignores it (its async pass is one FIFO worklist), the GPU's takes it (test above)."""
    from graphgear.engine.controller import learned_depth

    g = band_graph(1200)
    gg.betweenness_centrality(g, sources=[0], backend="cpu")
    assert "levels" in learned_depth(g)
    shallow = band_graph(100)
    gg.betweenness_centrality(shallow, sources=[0], backend="cpu")
    assert not learned_depth(shallow)


# ------------------------------------------------------------------------------------------------ real graphs
NX_REAL = ["social/facebook_combined.txt.gz", "social/wiki-Vote.txt"]
LEVEL_REAL = ["citation/cit-HepTh.txt.gz", "internet/as-caida20071105.txt.gz", "road/malta_osm.gr.gz"]


@pytest.mark.parametrize("name", NX_REAL)
def test_real_graphs_k32_against_networkx(name, backend):
    g = gg.load(real_graph(name))
    r = gg.betweenness_centrality(g, k=32, seed=11, backend=backend)
    close(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), k=32, seed=11)))


@pytest.mark.parametrize("name", LEVEL_REAL)
def test_real_graphs_k32_against_level_reference(name, backend):
    assert name in REAL_GRAPHS
    g = gg.load(real_graph(name))
    sources = random.Random(5).sample(range(g.num_vertices), 32)
    r = gg.betweenness_centrality(g, k=32, seed=5, normalized=False, backend=backend)
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


# ------------------------------------------------------------------------------------------------ weighted
def close9(actual: np.ndarray, expected: np.ndarray) -> None:
    """1e-9 relative: the same shortest-path DAG and counts, the sums added in another order."""
    np.testing.assert_allclose(actual, expected, rtol=1e-9, atol=1e-12, equal_nan=True)


def nx_weighted(g: gg.Graph) -> nx.MultiDiGraph | nx.MultiGraph:
    """The stored arcs as a networkx multigraph with their float32 weights (exact in float64): networkx's weight rule
    for a multigraph is the smallest weight of a parallel pair, which is graphgear's rule too."""
    G = nx.MultiDiGraph() if g.directed else nx.MultiGraph()
    labels = g.vertex_labels(np.arange(g.num_vertices)).tolist()
    G.add_nodes_from(labels)
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    G.add_weighted_edges_from(zip([labels[i] for i in rows.tolist()], [labels[i] for i in g.indices.tolist()],
                                  g.weights.astype(np.float64).tolist()))
    return G


@st.composite
def weighted_graphs(draw, max_vertices: int = 18, integers: bool | None = None):
    """Random weighted graphs: integer weights 1..4 (many equal path sums) or float32 numbers in [1/64, 10] (ties
    where float64 sums meet exactly), directed or not, self-loops and parallel arcs kept or dropped."""
    n = draw(st.integers(1, max_vertices))
    m = draw(st.integers(0, 3 * n))
    ids = st.integers(0, n - 1)
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    if integers if integers is not None else draw(st.booleans()):
        weights = draw(st.lists(st.integers(1, 4), min_size=m, max_size=m))
    else:
        weights = draw(st.lists(st.floats(0.015625, 10, width=32), min_size=m, max_size=m))
    return gg.Graph.from_edges(
        np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), np.array(weights, dtype=np.float64),
        num_vertices=n, directed=draw(st.booleans()), self_loops=draw(st.sampled_from(["drop", "keep"])),
        duplicates=draw(st.sampled_from(["drop", "keep"])),
    )


def brute_force(g: gg.Graph) -> np.ndarray:
    """Raw BC by enumeration (small graphs): for every pair s != t, the simple paths whose weight, summed arc by arc
    from s in float64, is the smallest; v's share is the fraction of them that pass through it. Parallel arcs count
    once, at their smallest weight."""
    src, dst, w = (np.repeat(np.arange(g.num_vertices), g.out_degree()), g.indices, g.weights.astype(np.float64))
    weight: dict = {}
    for a, b, c in zip(src.tolist(), dst.tolist(), w.tolist()):
        if a != b:
            weight[(a, b)] = min(c, weight.get((a, b), np.inf))
    G = nx.DiGraph(list(weight))
    G.add_nodes_from(range(g.num_vertices))
    bc = np.zeros(g.num_vertices)
    for s, t in itertools.permutations(range(g.num_vertices), 2):
        lengths = []
        for path in nx.all_simple_paths(G, s, t):
            total = 0.0
            for a, b in itertools.pairwise(path):
                total += weight[(a, b)]
            lengths.append((total, path))
        if not lengths:
            continue
        best = min(total for total, _ in lengths)
        shortest = [path for total, path in lengths if total == best]
        for path in shortest:
            for v in path[1:-1]:
                bc[v] += 1.0 / len(shortest)
    return bc if g.directed else bc / 2


def test_weighted_karate_club_matches_networkx():
    """nx.karate_club_graph() carries a 'weight' attribute: weighted BC is 0.21 away from the unweighted one, and
    graphgear's matches networkx's weighted BC (a Graph converted with its labels, every normalisation)."""
    G = nx.karate_club_graph()
    g = gg.Graph.from_networkx(G)
    for normalized, endpoints in itertools.product((True, False), repeat=2):
        r = gg.betweenness_centrality(g, normalized=normalized, weight="weight", endpoints=endpoints, backend="cpu")
        ref = nx.betweenness_centrality(G, normalized=normalized, weight="weight", endpoints=endpoints)
        close9(r.centrality, as_array(g, ref))
    hops = gg.betweenness_centrality(g, backend="cpu").centrality  # weight=None, the default: hops
    close(hops, as_array(g, nx.betweenness_centrality(G)))
    assert np.abs(hops - as_array(g, nx.betweenness_centrality(G, weight="weight"))).max() > 0.2
    phases = {row.phase for row in r.trace}
    assert {"forward", "paths", "backward"} <= phases


@settings(max_examples=150, **SETTINGS)
@given(g=weighted_graphs(), normalized=st.booleans(), endpoints=st.booleans())
def test_weighted_matches_networkx(g, normalized, endpoints):
    r = gg.betweenness_centrality(g, normalized=normalized, weight="weight", endpoints=endpoints, backend="cpu")
    ref = nx.betweenness_centrality(nx_weighted(g), normalized=normalized, weight="weight", endpoints=endpoints)
    close9(r.centrality, as_array(g, ref))
    assert r.graph is g


@settings(max_examples=60, **SETTINGS)
@given(g=weighted_graphs(integers=True), normalized=st.booleans(), endpoints=st.booleans(), data=st.data())
def test_weighted_k_sampled_sources_match_networkx(g, normalized, endpoints, data):
    k = data.draw(st.integers(1, g.num_vertices), label="k")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    r = gg.betweenness_centrality(g, k, normalized, "weight", endpoints, seed, backend="cpu")  # networkx's order
    ref = nx.betweenness_centrality(nx_weighted(g), k, normalized, "weight", endpoints, seed)
    close9(r.centrality, as_array(g, ref))


@settings(max_examples=60, **SETTINGS)
@given(g=weighted_graphs(), normalized=st.booleans(), data=st.data())
def test_weighted_given_sources_match_networkx_subset(g, normalized, data):
    sources = data.draw(st.lists(st.integers(0, g.num_vertices - 1), min_size=1, max_size=3, unique=True),
                        label="sources")
    r = gg.betweenness_centrality(g, normalized=normalized, weight="weight", sources=sources, backend="cpu")
    G = nx_weighted(g)
    ref = nx.betweenness_centrality_subset(G, sources, list(G), normalized=normalized, weight="weight")
    close9(r.centrality, as_array(g, ref))


@settings(max_examples=40, **SETTINGS)
@given(g=weighted_graphs(integers=True), path=st.sampled_from(CPU_PATHS), endpoints=st.booleans())
def test_weighted_every_path(g, path, endpoints):
    """A fixed Strategy runs the distances on that path (host near-far) and PathCounting with its fields."""
    r = gg.betweenness_centrality(g, weight="weight", endpoints=endpoints, backend="cpu", strategy=path)
    close9(r.centrality, as_array(g, nx.betweenness_centrality(nx_weighted(g), weight="weight", endpoints=endpoints)))


@settings(max_examples=40, **SETTINGS)
@given(g=weighted_graphs(max_vertices=7))
def test_weighted_matches_brute_force_count_of_simple_shortest_paths(g):
    r = gg.betweenness_centrality(g, normalized=False, weight="weight", backend="cpu")
    close9(r.centrality, brute_force(g))


@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_zero_weights_without_a_zero_length_cycle_count_every_shortest_path(data):
    """Zero weights only on arcs from a smaller id to a larger one (no cycle of zero length): vertices at one distance
    joined by tight arcs; the counts are the simple shortest paths, whatever order the vertices are found in."""
    n = data.draw(st.integers(2, 7), label="n")
    m = data.draw(st.integers(1, 14), label="m")
    src = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m), label="src")
    dst = data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m), label="dst")
    weights = [data.draw(st.integers(0 if a < b else 1, 3), label="w") for a, b in zip(src, dst)]
    g = gg.Graph.from_edges(src, dst, weights, num_vertices=n)
    close9(gg.betweenness_centrality(g, normalized=False, weight="weight", backend="cpu").centrality, brute_force(g))


def test_zero_length_cycle_raises():
    g = gg.Graph.from_edges(["s", "s", "a", "b", "a", "b"], ["a", "b", "b", "a", "t", "t"], [1, 1, 0, 0, 1, 1])
    with pytest.raises(GraphError, match="cycle of zero length"):
        gg.betweenness_centrality(g, weight="weight", backend="cpu")
    # unweighted (weight=None) it is an ordinary graph; and a zero-weight self-loop is no path at all
    gg.betweenness_centrality(g, backend="cpu")
    loop = gg.Graph.from_edges([0, 1, 1], [1, 1, 2], [1, 0, 1], self_loops="keep")
    np.testing.assert_allclose(gg.betweenness_centrality(loop, normalized=False, weight="weight",
                                                         backend="cpu").centrality, [0, 1, 0])


def test_weight_none_or_unweighted_graph_counts_hops():
    w = gg.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3], [1, 5, 1, 1])  # weighted: only 0-1-3 is shortest
    np.testing.assert_allclose(gg.betweenness_centrality(w, normalized=False, weight="weight",
                                                         backend="cpu").centrality, [0, 1, 0, 0])
    np.testing.assert_allclose(gg.betweenness_centrality(w, normalized=False, backend="cpu").centrality,
                               [0, 0.5, 0.5, 0])
    u = gg.Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3])  # no weights: any name counts hops, as in networkx
    np.testing.assert_allclose(gg.betweenness_centrality(u, normalized=False, weight="length",
                                                         backend="cpu").centrality, [0, 0.5, 0.5, 0])


def test_weighted_negative_weight_and_dag_view():
    with pytest.raises(GraphError, match="non-negative"):
        gg.betweenness_centrality(gg.Graph.from_edges([0, 1], [1, 2], [1.0, -1.0]), weight="weight", backend="cpu")
    multi = gg.Graph.from_edges([0, 0, 0, 1, 1], [1, 1, 0, 2, 2], [3, 2, 1, 5, 4], duplicates="keep",
                                self_loops="keep")
    view = dag_view(multi)
    assert view.offsets.tolist() == [0, 1, 2, 2] and view.indices.tolist() == [1, 2]
    assert view.weights.tolist() == [2, 4] and dag_view(multi) is view
    simple = gg.Graph.from_edges([0, 1], [1, 2], [1, 1])
    assert dag_view(simple) is simple


def test_weighted_real_road_graph_against_networkx(backend):
    """The malta road network (positive lengths: its zero-length arcs lengthened to 1, since a zero-length undirected
    edge is a cycle of zero length) with 8 sampled sources, against networkx."""
    g = gg.load(real_graph("road/malta_osm.gr.gz"))
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    up = rows < g.indices
    g = gg.Graph.from_edges(rows[up], g.indices[up], np.maximum(g.weights[up], 1), num_vertices=g.num_vertices,
                            directed=False)
    r = gg.betweenness_centrality(g, k=8, seed=2, weight="weight", backend=backend)
    close9(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), k=8, seed=2, weight="weight")))


# ------------------------------------------------------------------------------------------------ weighted, GPU
GPU_WEIGHTED = ["kron:10:w", "rmat:10:8:w", "grid:30:30:0.8:w", "er:2000:6:w", "rgg:10:w"]
GPU_STRATEGIES = ["auto", Strategy(balance="twc"), Strategy(balance="merge_path"),
                  Strategy(balance="vertex_group", group_size=32), Strategy(direction="pull", frontier="bitmap"),
                  Strategy(sync="async")]


@pytest.mark.gpu
@pytest.mark.parametrize("spec", GPU_WEIGHTED)
def test_gpu_weighted_sampled_matches_cpu(spec):
    g = gg.load(spec)
    cpu = gg.betweenness_centrality(g, k=16, seed=4, weight="weight", backend="cpu")
    gpu = gg.betweenness_centrality(g, k=16, seed=4, weight="weight", backend="cuda")
    assert gpu.trace.backend == "cuda"
    close9(gpu.centrality, cpu.centrality)


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", GPU_STRATEGIES, ids=str)
def test_gpu_weighted_strategies_match_networkx(strategy):
    G = nx.karate_club_graph()
    g = gg.Graph.from_networkx(G)
    r = gg.betweenness_centrality(g, weight="weight", backend="cuda", strategy=strategy)
    close9(r.centrality, as_array(g, nx.betweenness_centrality(G, weight="weight")))
    g = gg.load("grid:12:12:0.9:w")
    for endpoints in (False, True):
        r = gg.betweenness_centrality(g, weight="weight", endpoints=endpoints, backend="cuda", strategy=strategy)
        close9(r.centrality, as_array(g, nx.betweenness_centrality(g.to_networkx(), weight="weight",
                                                                    endpoints=endpoints)))


@pytest.mark.gpu
def test_gpu_weighted_zero_length_cycle_raises():
    g = gg.Graph.from_edges(["s", "s", "a", "b", "a", "b"], ["a", "b", "b", "a", "t", "t"], [1, 1, 0, 0, 1, 1])
    with pytest.raises(GraphError, match="cycle of zero length"):
        gg.betweenness_centrality(g, weight="weight", backend="cuda")

"""PageRank (power iteration and delta-based vertex program) against networkx.pagerank.

References: ``networkx.pagerank(g.to_networkx(), ...)`` for graphs built with the default policies; for graphs built
with ``duplicates="keep"`` (parallel arcs) a networkx MultiGraph/MultiDiGraph straight from the input records, whose
parallel edges networkx sums, as graphgear does. The power method repeats networkx's iterates step for step, so it is
compared at the same tol; the delta method stops on a bound on its distance to the exact PageRank, so it is compared
with networkx run at a tolerance tight enough that networkx's own error is far below 1e-6. The real graphs and the
generated ones run on the CPU and on the GPU (marked gpu).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from conftest import REAL_GRAPHS, on_backends, real_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphgear as gg
from graphgear.algorithms.pagerank import pagerank
from graphgear.engine.strategy import Strategy
from graphgear.errors import GraphError, StrategyError
from graphgear.graph.graph import Graph

SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
L1 = 1e-6
TIGHT = {"tol": 1e-12, "max_iter": 20_000}  # networkx's reference run when comparing the delta method

PATHS = [(sync, direction, drive) for sync in ("sync", "async") for direction in ("push", "pull")
         for drive in ("data", "topology")]


def path_strategy(sync: str, direction: str, drive: str) -> str:
    dense = direction == "pull" or drive == "topology"
    return f"sync={sync},direction={direction},drive={drive}" + (",frontier=bitmap" if dense else "")


# ------------------------------------------------------------------------------------------------------ references
def as_array(graph: Graph, ranks: dict) -> np.ndarray:
    labels = graph.vertex_labels(np.arange(graph.num_vertices)).tolist()
    return np.array([ranks[label] for label in labels], dtype=np.float64)


def nx_pagerank(graph: Graph, nx_graph=None, **kwargs) -> np.ndarray:
    ranks = nx.pagerank(graph.to_networkx() if nx_graph is None else nx_graph, **kwargs)
    return as_array(graph, ranks)


def delta_tol(graph: Graph) -> dict:
    """tol for the delta method so that its bound N * tol on the L1 distance to the exact PageRank is 1e-8."""
    return {"tol": 1e-8 / max(graph.num_vertices, 1), "max_iter": 20_000}


# ------------------------------------------------------------------------------------------------------ hypothesis
@st.composite
def graphs(draw):
    """A small graph from random edge records, with the nx reference graph built from the same records."""
    n = draw(st.integers(0, 12))
    m = draw(st.integers(0, 30)) if n else 0
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)) if n else []
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)) if n else []
    directed = draw(st.booleans())
    weighted = draw(st.booleans())
    weights = [w / 2 for w in draw(st.lists(st.integers(0, 9), min_size=m, max_size=m))] if weighted else None
    self_loops = draw(st.sampled_from(["drop", "keep"]))
    duplicates = draw(st.sampled_from(["drop", "keep"]))
    g = Graph.from_edges(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), weights, num_vertices=n,
                         directed=directed, self_loops=self_loops, duplicates=duplicates)
    if duplicates == "keep":  # parallel arcs: networkx's multigraphs sum them
        ref = nx.MultiDiGraph() if directed else nx.MultiGraph()
        ref.add_nodes_from(range(n))
        for i, (u, v) in enumerate(zip(src, dst)):
            if u == v and self_loops == "drop":
                continue
            ref.add_edge(u, v, weight=weights[i] if weighted else 1.0)
    else:
        ref = g.to_networkx()
    return g, ref


@st.composite
def distributions(draw, n: int):
    """None, a dict over some vertices (>= 1 positive), or an array of length n."""
    if n == 0:
        return None
    kind = draw(st.sampled_from(["none", "dict", "array"]))
    if kind == "none":
        return None
    values = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    hot = draw(st.integers(0, n - 1))
    values[hot] = max(values[hot], 1)
    if kind == "array":
        return np.array(values, dtype=np.float64)
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return {v: float(values[v]) for v in range(n) if keep[v] or v == hot}


def nx_args(vector):
    """networkx takes dicts only."""
    if isinstance(vector, np.ndarray):
        return {i: float(x) for i, x in enumerate(vector)}
    return vector


@st.composite
def cases(draw):
    g, ref = draw(graphs())
    n = g.num_vertices
    alpha = draw(st.sampled_from([0.85, 0.5, 0.9, 0.3]))
    personalization = draw(distributions(n))
    nstart = draw(distributions(n))
    dangling = draw(distributions(n))
    return g, ref, alpha, personalization, nstart, dangling


@settings(max_examples=160, **SETTINGS)
@given(cases(), st.sampled_from(["given", "degree"]), st.sampled_from(["power", "dense"]))
def test_power_matches_networkx(case, layout, method):
    """Both layouts: on the ids as given, and on the graph renumbered by degree with the ranks mapped back. Method
    "dense", MultiGraph's dense mode, has the same iterates with the gather by MultiGraphD's two phases (on these
    small graphs one tile, all arcs light; test_dense_with_heavy_tiles_equals_power has the heavy tiles)."""
    g, ref, alpha, personalization, nstart, dangling = case
    ours = pagerank(g, alpha=alpha, tol=1e-8, max_iter=5000, personalization=personalization, nstart=nstart,
                    dangling=dangling, method=method, backend="cpu", layout=layout)
    if g.num_vertices == 0:
        assert ours.ranks.shape == (0,)
        return
    expected = nx_pagerank(g, ref, alpha=alpha, tol=1e-8, max_iter=5000, personalization=nx_args(personalization),
                           nstart=nx_args(nstart), dangling=nx_args(dangling))
    assert np.abs(ours.ranks - expected).sum() <= L1
    assert math.isclose(ours.ranks.sum(), 1.0, rel_tol=1e-9)
    assert len(ours.trace) == ours.iterations >= 1
    assert {row.path for row in ours.trace} == {"sync-pull-td"}
    assert all(("MultiGraphD" in row.reason) == (method == "dense") for row in ours.trace)


@pytest.mark.parametrize("layout", ["given", "degree"])
@pytest.mark.parametrize("spec", ["kron:12", "rmat:15:32:w"])
def test_dense_with_heavy_tiles_equals_power(spec, layout, backend):
    """Graphs whose tiles include heavy ones (more than 18K arcs: one CTA each) and, on rmat:15:32, several panels:
    the dense mode's ranks equal the pull power iteration's up to the summation order, iteration for iteration."""
    from graphgear.graph.layout import degree_renumbering
    from graphgear.graph.tiles import graph_tiles

    g = gg.load(spec)
    kwargs = {"tol": 1e-10 / g.num_vertices, "max_iter": 1000, "backend": backend, "layout": layout}
    dense = gg.pagerank(g, method="dense", **kwargs)
    power = gg.pagerank(g, method="power", **kwargs)
    assert dense.iterations == power.iterations
    assert np.abs(dense.ranks - power.ranks).sum() < 1e-12
    tiled = graph_tiles(degree_renumbering(g).graph if layout == "degree" else g)
    assert tiled.heavy_row.size and (spec == "kron:12" or (tiled.light_source.size and tiled.panels > 1))
    assert dense.trace.backend == backend and all("MultiGraphD" in row.reason for row in dense.trace)


@settings(max_examples=100, **SETTINGS)
@given(cases(), st.sampled_from(["delta", "priority"]))
def test_delta_matches_networkx(case, method):
    """Delta PageRank, and with SEP-Graph's priority scheduling (method="priority", each round's row naming the
    threshold its residuals were sent above): networkx's ranks."""
    g, ref, alpha, personalization, nstart, dangling = case
    ours = pagerank(g, alpha=alpha, personalization=personalization, nstart=nstart, dangling=dangling, method=method,
                    backend="cpu", **delta_tol(g))
    if g.num_vertices == 0:
        assert ours.ranks.shape == (0,)
        return
    expected = nx_pagerank(g, ref, alpha=alpha, personalization=nx_args(personalization), nstart=nx_args(nstart),
                           dangling=nx_args(dangling), **TIGHT)
    assert np.abs(ours.ranks - expected).sum() <= L1
    assert math.isclose(ours.ranks.sum(), 1.0, rel_tol=1e-9)
    assert ours.iterations == len(ours.trace)
    assert {row.path for row in ours.trace} <= {"sync-pull-td", "async-push-td", "async-push-dd"}
    assert method == "delta" or all("priority: residuals above " in row.reason for row in ours.trace)


def test_priority_threshold_is_the_200th_largest_of_1000_sampled():
    """The threshold is just below the 200th largest of the sampled residuals (so that vertex sends: the compute step
    sends above the threshold), never below eps; the between-round step puts back every vertex owing more than eps."""
    from graphgear.algorithms.pagerank import PRIORITY_RANK, PRIORITY_SAMPLE, _PrioritySchedule
    from graphgear.backends import get_backend

    be = get_backend("cpu")
    buffer = np.linspace(0.0, 1.0, 5000)
    schedule = _PrioritySchedule(be, 0.85, 1e-3, 1.0, seed=4)
    t = schedule.threshold(buffer)
    drawn = np.sort(buffer[np.random.default_rng(4).integers(0, buffer.size, PRIORITY_SAMPLE)])[-PRIORITY_RANK]
    assert t < drawn and t == np.nextafter(drawn, 0.0)
    assert _PrioritySchedule(be, 0.85, 1e-3, 1.0).threshold(np.zeros(10)) == 1e-3  # nothing large: eps
    assert _PrioritySchedule(be, 0.85, 0.5, 1.0).threshold(np.full(10, 0.25)) == 0.5

    class State:
        buffer = np.array([0.0, 2e-3, -5e-3, 5e-4, 1.0])
        params = None

    state = State()
    frontier = schedule(be, state)
    assert sorted(frontier.vertices().tolist()) == [1, 2, 4]  # |residual| > eps, whatever the threshold
    assert state.params[0] == 0.85 and state.params[2] == 1.0 and state.params[1] >= 1e-3


@settings(max_examples=30, **SETTINGS)
@given(graphs(), st.sampled_from(PATHS))
def test_delta_every_path_on_random_graphs(graph_and_ref, path):
    """alpha = 0.6 keeps the sync paths' round counts (one barrier each) small."""
    g, ref = graph_and_ref
    strategy = path_strategy(*path)
    if path[0] == "async" and path[1] == "pull" and g.num_vertices:
        with pytest.raises(StrategyError):
            pagerank(g, alpha=0.6, method="delta", strategy=strategy, backend="cpu", **delta_tol(g))
        return
    ours = pagerank(g, alpha=0.6, method="delta", strategy=strategy, backend="cpu", **delta_tol(g))
    if g.num_vertices:
        assert np.abs(ours.ranks - nx_pagerank(g, ref, alpha=0.6, **TIGHT)).sum() <= L1
        assert {row.path for row in ours.trace} <= {"-".join((path[0], path[1], "dd" if path[2] == "data" else "td"))}


# ------------------------------------------------------------------------------------------------------ every CPU path
PATH_GRAPHS = ["er:150:3", "rmat:7:4", "grid:8:8:0.7:w"]
# the GPU case of test_delta_every_cpu_path: sync push and pull, async push, and async pull (refused) (each GPU
# strategy against the CPU: tests/test_cuda_algorithms_b.py)
GPU_PATHS = [("sync", "push", "data"), ("sync", "pull", "data"), ("async", "push", "data"), ("async", "pull", "data")]


@pytest.mark.parametrize("method", ["delta", "priority"])
@pytest.mark.parametrize("spec", PATH_GRAPHS)
@pytest.mark.parametrize("backend,path", on_backends(PATHS, cuda=GPU_PATHS, ids="-".join))
def test_delta_every_cpu_path(spec, backend, path, method):
    """Each of the 8 CPU paths gives networkx's answer, with and without priority scheduling, except async pull,
    which the engine refuses for a sum accumulate (it re-reads messages). alpha = 0.7 keeps the sync paths' round
    counts small."""
    g = gg.load(spec)
    n = g.num_vertices
    personalization = {v: 1.0 + (v % 3) for v in range(0, n, 5)}
    dangling = {v: 1.0 for v in range(1, n, 7)}  # differs from personalization: the second (dangling) solve runs
    kwargs = dict(alpha=0.7, personalization=personalization, dangling=dangling, method=method, backend=backend,
                  strategy=path_strategy(*path), **delta_tol(g))
    if path[0] == "async" and path[1] == "pull":
        with pytest.raises(StrategyError, match="async pull"):
            pagerank(g, **kwargs)
        return
    ours = pagerank(g, **kwargs)
    expected = nx_pagerank(g, alpha=0.7, personalization=personalization, dangling=dangling, **TIGHT)
    assert np.abs(ours.ranks - expected).sum() <= L1
    assert {row.path for row in ours.trace} == {ours.trace.rows[0].path}
    assert ours.trace.rows[0].strategy == str(Strategy.parse(path_strategy(*path)))


def test_power_with_fixed_strategies():
    g = gg.load("rmat:7:4")
    expected = nx_pagerank(g)
    for strategy in ("direction=pull,drive=topology,frontier=bitmap", Strategy.parse("direction=pull,drive=topology"),
                     "auto", "adaptive", "static"):
        ours = pagerank(g, method="power", strategy=strategy, backend="cpu")
        assert np.abs(ours.ranks - expected).sum() <= 1e-12
        assert {row.path for row in ours.trace} == {"sync-pull-td"}
    for method in ("power", "dense"):
        with pytest.raises(StrategyError, match=f"method='{method}' runs the sync-pull-td path only"):
            pagerank(g, method=method, strategy="direction=push")
    # method="auto" with a fixed push path runs the delta program on that path
    ours = pagerank(g, strategy="direction=push", **delta_tol(g))
    assert {row.path for row in ours.trace} == {"sync-push-dd"}
    assert np.abs(ours.ranks - nx_pagerank(g, **TIGHT)).sum() <= L1


# ------------------------------------------------------------------------------------------------------ real graphs
@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(name, backend):
    """Both methods at a tolerance where networkx's answer is within ~1e-9 of the exact PageRank (at the default
    tol, N * tol is 0.004 to 0.11 here: networkx stops after a step or two, and so does the power method)."""
    g = gg.load(real_graph(name))
    n = g.num_vertices
    expected = nx_pagerank(g, tol=1e-10 / n, max_iter=5000)
    power = gg.pagerank(g, tol=1e-10 / n, max_iter=5000, backend=backend)
    assert np.abs(power.ranks - expected).sum() <= L1
    delta = gg.pagerank(g, method="delta", backend=backend, **delta_tol(g))
    assert np.abs(delta.ranks - expected).sum() <= L1
    assert math.isclose(delta.ranks.sum(), 1.0, rel_tol=1e-9)


# ------------------------------------------------------------------------------------------------------ special cases
@pytest.mark.parametrize("method", ["power", "delta"])
def test_empty_and_single_vertex(method):
    empty = Graph.from_edges([], [], num_vertices=0)
    result = pagerank(empty, method=method)
    assert result.ranks.shape == (0,) and result.ranks.dtype == np.float64
    one = Graph.from_edges([], [], num_vertices=1)
    assert pagerank(one, method=method).ranks.tolist() == [1.0]
    loop = Graph.from_edges([0], [0], num_vertices=1, self_loops="keep")
    assert pagerank(loop, method=method).ranks.tolist() == pytest.approx([1.0])


@pytest.mark.parametrize("method", ["power", "delta"])
def test_labels_and_api(method):
    """Dicts are keyed by the user's labels on a renumbered graph; the public gg.pagerank passes everything on."""
    g = Graph.from_edges(["a", "b", "c", "d", "d"], ["b", "c", "a", "a", "e"], directed=True)
    personalization = {"a": 1, "e": 3}
    dangling = {"c": 2, "b": 1}
    nstart = {"d": 1.0}
    kwargs = {"tol": 1e-12, "max_iter": 10_000} if method == "delta" else {"max_iter": 1000}
    ours = gg.pagerank(g, 0.9, personalization=personalization, nstart=nstart, dangling=dangling, method=method,
                       **kwargs)
    expected = nx_pagerank(g, alpha=0.9, personalization=personalization, nstart=nstart, dangling=dangling,
                           **(TIGHT if method == "delta" else {"max_iter": 1000}))
    assert np.abs(ours.ranks - expected).sum() <= L1
    frame = ours.to_pandas()
    assert frame["vertex"].tolist() == ["a", "b", "c", "d", "e"]


def test_alpha_one():
    """alpha = 1 (no teleport) as networkx: converges on an aperiodic strongly connected graph."""
    g = Graph.from_edges([0, 1, 2, 2, 0], [1, 2, 0, 1, 2], directed=True)
    ours = pagerank(g, alpha=1.0, method="power")
    assert np.abs(ours.ranks - nx_pagerank(g, alpha=1.0)).sum() <= L1
    with pytest.raises(GraphError, match="alpha < 1"):
        pagerank(g, alpha=1.0, method="delta")


def test_weighted_splits_by_weight():
    """networkx's default weight='weight': a vertex's rank is split in proportion to its out-edge weights."""
    g = Graph.from_edges([0, 0, 1, 2], [1, 2, 0, 0], [1.0, 3.0, 1.0, 1.0], directed=True)
    for method in ("power", "delta"):
        ours = pagerank(g, method=method, tol=1e-12, max_iter=10_000)
        assert np.abs(ours.ranks - nx_pagerank(g, **TIGHT)).sum() <= L1
        unweighted = nx.pagerank(nx.DiGraph([(0, 1), (0, 2), (1, 0), (2, 0)]), weight=None)
        assert abs(ours.ranks[2] - unweighted[2]) > 1e-3  # the weights matter


def test_nstart_and_personalization_arrays(backend):
    g = gg.load("rmat:6:4")
    n = g.num_vertices
    rng = np.random.default_rng(1)
    p, x0 = rng.random(n), rng.random(n)
    expected = nx_pagerank(g, personalization=dict(enumerate(p)), nstart=dict(enumerate(x0)))
    ours = pagerank(g, personalization=p, nstart=x0, backend=backend)
    assert np.abs(ours.ranks - expected).sum() <= 1e-12


# ------------------------------------------------------------------------------------------------------ bad inputs
@pytest.mark.parametrize("method", ["power", "delta"])
def test_bad_inputs(method):
    g = gg.load("rmat:5:4")
    run = lambda **kw: pagerank(g, method=method, **kw)
    for alpha in (0.0, -0.5, 1.5, float("nan"), "x", None):
        with pytest.raises(GraphError, match="alpha"):
            run(alpha=alpha)
    for tol in (0.0, -1e-6, float("nan"), float("inf")):
        with pytest.raises(GraphError, match="tol"):
            run(tol=tol)
    for max_iter in (-1, 2.5, "10"):
        with pytest.raises(GraphError, match="max_iter"):
            run(max_iter=max_iter)
    for name in ("personalization", "nstart", "dangling"):
        with pytest.raises(GraphError, match=f"{name} values must be >= 0"):
            run(**{name: {0: 1.0, 1: -0.5}})
        with pytest.raises(GraphError, match=f"{name} key 99"):
            run(**{name: {0: 1.0, 99: 1.0}})
        with pytest.raises(GraphError, match="positive sum"):
            run(**{name: {0: 0.0}})
        with pytest.raises(GraphError, match="positive sum"):
            run(**{name: {}})
        with pytest.raises(GraphError, match="length"):
            run(**{name: np.ones(g.num_vertices + 1)})
        with pytest.raises(GraphError, match="finite"):
            run(**{name: {0: float("inf")}})
    with pytest.raises(GraphError, match="method"):
        pagerank(g, method="jacobi")
    negative = Graph.from_edges([0, 1], [1, 0], [1.0, -2.0], directed=True)
    with pytest.raises(GraphError, match=r"non-negative weights: arc 1 -> 0 has weight -2\.0"):
        pagerank(negative, method=method)
    labelled = Graph.from_edges(["a"], ["b"])
    with pytest.raises(GraphError, match="personalization key 'z'"):
        pagerank(labelled, method=method, personalization={"z": 1.0})


@pytest.mark.parametrize("method,unit", [("power", "iterations"), ("delta", "rounds"), ("priority", "rounds")])
def test_max_iter_exceeded(method, unit):
    g = gg.load("grid:10:10")
    with pytest.raises(GraphError, match=rf"did not converge in 3 {unit}: .*\d") as info:
        pagerank(g, method=method, max_iter=3, tol=1e-12, strategy="direction=pull,drive=topology,frontier=bitmap")
    assert "N*tol" in str(info.value)
    with pytest.raises(nx.PowerIterationFailedConvergence):  # networkx agrees it does not converge
        nx.pagerank(g.to_networkx(), max_iter=3, tol=1e-12)


def test_layout_is_checked_and_traced():
    g = gg.load("kron:10")
    with pytest.raises(GraphError, match="layout must be one of"):
        pagerank(g, layout="sorted")
    renumbered = pagerank(g, method="power", layout="degree", backend="cpu")
    given_ids = pagerank(g, method="power", layout="given", backend="cpu")
    assert np.abs(renumbered.ranks - given_ids.ranks).sum() <= 1e-12
    assert "renumbered by degree" in renumbered.trace.rows[0].reason
    assert "renumbered" not in given_ids.trace.rows[0].reason


def test_auto_layout_falls_back_when_the_device_is_full(monkeypatch):
    """layout="auto" runs on the given ids when the backend cannot hold the renumbered copy; "degree" reports it."""
    from graphgear.backends import get_backend
    from graphgear.errors import DeviceMemoryError
    from graphgear.graph import layout

    g = gg.load("kron:10")
    be = get_backend("cpu")
    original = be.graph

    def full(graph):
        if graph is layout.degree_renumbering(g).graph:
            raise DeviceMemoryError("the renumbered graph needs 1.00 GiB of device memory; 0.10 GiB is free")
        return original(graph)

    monkeypatch.setattr(be, "graph", full)
    monkeypatch.setattr(layout, "skewed", lambda graph: True)  # device_layout asks it
    auto = pagerank(g, method="power", backend=be)
    assert "ids as given (no device memory" in auto.trace.rows[0].reason
    assert np.abs(auto.ranks - pagerank(g, method="power", layout="given", backend="cpu").ranks).sum() == 0
    with pytest.raises(DeviceMemoryError, match="needs 1.00 GiB"):
        pagerank(g, method="power", layout="degree", backend=be)



# ------------------------------------------------------------------------------------------------ NetworkX's order
@settings(max_examples=60, **SETTINGS)
@given(cases(), st.sampled_from(["power", "delta"]))
def test_weight_none_matches_networkx(case, method):
    """weight=None: every out-edge an equal share whatever the weights (parallel arcs add up, as networkx's
    multigraphs count each edge once), as networkx.pagerank(G, weight=None)."""
    g, ref, alpha, personalization, nstart, dangling = case
    # the power method stops at an L1 change below N * tol, within alpha / (1 - alpha) times that of the fixed point:
    # at alpha 0.9 on 12 vertices, 1.08e-6 at tol 1e-8 (past L1: it failed so once), 1.08e-7 at 1e-9
    tol = delta_tol(g) if method == "delta" else {"tol": 1e-9, "max_iter": 5000}
    ours = gg.pagerank(g, alpha, personalization, nstart=nstart, weight=None, dangling=dangling, method=method,
                       backend="cpu", **tol)
    if g.num_vertices == 0:
        assert ours.ranks.shape == (0,)
        return
    expected = nx_pagerank(g, ref, alpha=alpha, personalization=nx_args(personalization), nstart=nx_args(nstart),
                           weight=None, dangling=nx_args(dangling), **TIGHT)
    assert np.abs(ours.ranks - expected).sum() <= L1
    assert ours.graph is g


def test_networkx_positional_order():
    """graph, alpha, personalization, max_iter, tol, nstart, weight, dangling: networkx.pagerank's order, so a
    networkx call runs as written; method, backend, strategy and layout are keyword-only."""
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 3.0), (2, 0, 1.0), (0, 2, 0.5), (1, 3, 1.0)])
    g = Graph.from_networkx(G)
    nstart, dangling = {0: 1.0, 3: 1.0}, {1: 2.0, 2: 1.0}
    for args in [(0.85, {0: 1.0}), (0.9, None, 200, 1e-10), (0.7, {2: 1.0}, 300, 1e-9, nstart, "weight", dangling),
                 (0.7, {2: 1.0}, 300, 1e-9, nstart, None, dangling)]:
        ours = gg.pagerank(g, *args, backend="cpu").ranks
        expected = as_array(g, nx.pagerank(G, *args))
        assert np.abs(ours - expected).sum() <= L1, args
    with pytest.raises(TypeError):
        gg.pagerank(g, 0.85, None, 100, 1e-6, None, "weight", None, "power")  # method is keyword-only
    weighted = gg.pagerank(g, backend="cpu").ranks
    hops = gg.pagerank(g, weight=None, backend="cpu").ranks
    assert np.abs(weighted - hops).sum() > 0.05  # the weights matter here, and weight=None drops them
    np.testing.assert_array_equal(gg.pagerank(g, weight="length", backend="cpu").ranks, weighted)  # a Graph's one


def test_tuple_labels_as_dict_keys():
    """A dict keyed by tuple labels (a grid's (row, column)) names vertices, not a 2-D array of numbers."""
    G = nx.grid_2d_graph(3, 3)
    g = Graph.from_networkx(G)
    p = {(0, 0): 1.0, (2, 1): 3.0}
    ours = gg.pagerank(g, 0.85, p, backend="cpu")
    assert np.abs(ours.ranks - as_array(g, nx.pagerank(G, 0.85, p))).sum() <= L1


def test_weight_none_uses_a_cached_unweighted_view():
    from graphgear.algorithms._common import unweighted_view

    g = gg.load("kron:8:w")
    view = unweighted_view(g)
    assert view is unweighted_view(g) and view.weights is None and view.indices is g.indices
    assert unweighted_view(view) is view
    np.testing.assert_array_equal(gg.pagerank(g, weight=None, backend="cpu").ranks,
                                  gg.pagerank(gg.load("kron:8"), backend="cpu").ranks)


@pytest.mark.gpu
@pytest.mark.parametrize("method", ["power", "delta"])
@pytest.mark.parametrize("spec", ["kron:12:w", "rmat:11:8:w"])
def test_gpu_weight_none_matches_cpu(method, spec):
    g = gg.load(spec)
    kwargs = {"tol": 1e-8 / g.num_vertices, "max_iter": 20_000}
    cpu = gg.pagerank(g, weight=None, method=method, backend="cpu", **kwargs)
    gpu = gg.pagerank(g, weight=None, method=method, backend="cuda", **kwargs)
    assert gpu.trace.backend == "cuda" and np.abs(gpu.ranks - cpu.ranks).sum() < 1e-6
    assert np.abs(gpu.ranks - gg.pagerank(g, method=method, backend="cuda", **kwargs).ranks).sum() > 1e-3

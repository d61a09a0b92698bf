"""The NetworkX backend's machinery: registration and backend_info, conversion both ways, the cache of converted
graphs, the device configuration, declining (NetworkX falls back), and NetworkX's own errors."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import networkx as nx
import numpy as np
import pytest

import _graphgear_nx
from graphgear.backends import cuda_available
from graphgear.errors import BackendError
from graphgear.nx_backend import FUNCTIONS, BackendInterface, GearGraph
from graphgear.nx_backend.graph import WeightColumn

# NetworkX finds the backend through graphgear's installed entry points: a source tree on PYTHONPATH alone has none
if "graphgear" not in {e.name for e in __import__("importlib.metadata").metadata.entry_points(group="networkx.backends")}:
    pytest.skip("graphgear is not installed (pip install .): NetworkX sees no graphgear backend", allow_module_level=True)

GG = {"backend": "graphgear"}


@pytest.fixture(autouse=True)
def _restore_networkx_config():
    """Every test leaves NetworkX's configuration (device, priorities, fallback, warnings) as it found it."""
    config = nx.config
    saved = (config.backends.graphgear.device, list(config.backend_priority.algos), config.fallback_to_nx,
             set(config.warnings_to_ignore), config.cache_converted_graphs)
    config.warnings_to_ignore.add("cache")
    yield
    (config.backends.graphgear.device, config.backend_priority.algos, config.fallback_to_nx,
     config.warnings_to_ignore, config.cache_converted_graphs) = saved


# ------------------------------------------------------------------------------------------------ registration
def test_backend_info_lists_exactly_what_the_backend_implements() -> None:
    info = _graphgear_nx.get_info()
    assert set(info["functions"]) == set(FUNCTIONS) == set(_graphgear_nx.FUNCTIONS)
    for name, entry in info["functions"].items():
        assert entry["additional_docs"].strip(), name
        assert "device : str, optional" in entry["extra_parameters"]
        assert callable(getattr(BackendInterface, name))
        assert name in nx.utils.backends._registered_algorithms, f"{name} is not a NetworkX dispatchable function"
    assert info["backend_name"] == "graphgear"


def test_networkx_finds_the_backend() -> None:
    assert "graphgear" in nx.utils.backends.backends
    assert nx.utils.backends._load_backend("graphgear") is BackendInterface
    assert "graphgear" in nx.pagerank.backends
    assert "graphgear" in nx.betweenness_centrality.__doc__.split("Backends")[-1]


def test_backend_parameters_follow_networkx() -> None:
    """NetworkX calls a backend function with every argument bound positionally in its own order."""
    import inspect

    for name, function in FUNCTIONS.items():
        theirs = list(inspect.signature(nx.utils.backends._registered_algorithms[name].orig_func).parameters)
        ours = [p for p in inspect.signature(function).parameters if p != "device"]
        assert ours == theirs, name


def test_importing_networkx_does_not_import_graphgear() -> None:
    code = "import sys, networkx; assert 'graphgear' not in sys.modules, 'imported'; print(networkx.config.backends)"
    env = {k: v for k, v in os.environ.items() if k != "GRAPHGEAR_NX_DEVICE"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert "device='auto'" in out.stdout


# ------------------------------------------------------------------------------------------------ conversion
def labelled_graph(directed: bool) -> nx.Graph:
    G = nx.DiGraph() if directed else nx.Graph()
    G.graph["title"] = "towns"
    G.add_node(("t", 1), population=10)
    G.add_node("solo")
    G.add_edge(("t", 1), "b", weight=3, road="A1")
    G.add_edge("b", "c", weight=0.5)
    G.add_edge("c", ("t", 1), road="B2")  # no weight: NetworkX's default 1
    G.add_edge("c", "c", weight=2)
    G.add_edge(7, "b", weight=1)
    return G


@pytest.mark.parametrize("directed", [False, True])
def test_round_trip_keeps_labels_edges_and_every_attribute(directed) -> None:
    G = labelled_graph(directed)
    g = BackendInterface.convert_from_nx(G, preserve_edge_attrs=True, preserve_node_attrs=True,
                                         preserve_graph_attrs=True)
    assert isinstance(g, GearGraph) and g.__networkx_backend__ == "graphgear"
    assert list(g) == list(G) and len(g) == len(G) and g.number_of_edges() == G.number_of_edges()
    assert g.is_directed() is directed and not g.is_multigraph()
    H = BackendInterface.convert_to_nx(g)
    assert type(H) is type(G)
    assert list(H.nodes(data=True)) == list(G.nodes(data=True))
    assert H.graph == G.graph
    assert sorted(map(repr, H.edges(data=True))) == sorted(map(repr, G.edges(data=True)))
    assert nx.utils.graphs_equal(H, G)
    for u in G:  # each adjacency row in NetworkX's order
        assert list(H.adj[u]) == list(G.adj[u]) or not directed


def test_round_trip_of_a_weight_column_keeps_values_and_absences() -> None:
    G = labelled_graph(True)
    g = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    H = BackendInterface.convert_to_nx(g)
    assert list(H) == list(G)
    assert {(u, v): d for u, v, d in H.edges(data=True)} == {
        (u, v): ({"weight": d["weight"]} if "weight" in d else {}) for u, v, d in G.edges(data=True)}
    assert [type(d.get("weight")) for *_, d in H.edges(data=True)] == [
        type(d.get("weight")) for *_, d in G.edges(data=True)]


def test_conversion_reads_networkx_order_and_weights() -> None:
    G = labelled_graph(False)
    g = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    rows = [[g.nodes[t] for t in g.targets[g.offsets[i]:g.offsets[i + 1]]] for i in range(len(g))]
    assert rows == [list(G.adj[u]) for u in G]  # both arcs of an edge, a self-loop once, in adjacency order
    column = g.column("weight")
    assert column.python == [d.get("weight", 1) for u in G for d in G.adj[u].values()]
    assert column.kind == "mixed" and column.exact and column.minimum == 0.5
    graph = g.graph_for("weight")
    assert graph.num_vertices == 5 and graph.num_arcs == 9 and not graph.directed and graph.weighted
    assert graph is g.graph_for("weight")  # built once
    assert g.graph_for("weight", reverse=True) is graph  # undirected: its own reverse


def test_a_multigraph_is_declined_and_not_converted() -> None:
    M = nx.MultiGraph([(0, 1), (0, 1)])
    assert BackendInterface.can_run("pagerank", (M,), {}) is not True
    with pytest.raises(NotImplementedError):
        BackendInterface.convert_from_nx(M)
    with pytest.raises(NotImplementedError):
        nx.pagerank(M, **GG)


@pytest.mark.parametrize(("values", "kind", "exact"), [
    ([1, 2, 2**24], "int", True), ([1, 2**24 + 1], "int", False), ([0.5, 0.25, 3.0], "float", True),
    ([0.1], "float", False), ([1, 0.5], "mixed", True), ([True], "other", False), (["3"], "other", False),
    ([float("inf")], "float", False), ([float("nan")], "float", False), ([np.float32(0.5)], "other", True),
    ([np.int64(3), 4], "int", True), ([np.float64(0.5)], "float", True), ([2**80], "int", False),
])
def test_weight_column_knows_what_graphgear_computes_exactly(values, kind, exact) -> None:
    column = WeightColumn(values, None)
    assert column.kind == kind
    assert (column.refusal(types=False) is None) is (kind != "other" and exact)


# ------------------------------------------------------------------------------------------------ cache
def test_converted_graphs_are_cached_by_weight_attribute() -> None:
    G = nx.path_graph(5)
    nx.set_edge_attributes(G, 2, "w")
    nx.set_edge_attributes(G, 3, "cost")
    calls = []
    convert = BackendInterface.convert_from_nx
    BackendInterface.convert_from_nx = staticmethod(lambda *a, **k: calls.append(k.get("edge_attrs")) or convert(*a, **k))
    try:
        assert nx.single_source_dijkstra_path_length(G, 0, weight="w", **GG) == {0: 0, 1: 2, 2: 4, 3: 6, 4: 8}
        assert nx.single_source_dijkstra_path_length(G, 0, weight="w", **GG)[4] == 8  # cached: no conversion
        assert nx.single_source_shortest_path_length(G, 0, **GG)[4] == 4  # any cached graph serves unweighted calls
        assert nx.single_source_dijkstra_path_length(G, 0, weight="cost", **GG)[4] == 12  # another attribute
        assert calls == [{"w": 1}, {"cost": 1}]
        cached = G.__networkx_cache__["backends"]["graphgear"]
        assert len(cached) == 2 and all(isinstance(g, GearGraph) for g in cached.values())
        gear = next(iter(cached.values()))
        assert gear.graph_for(next(iter(gear.weights))[0]) is gear.graph_for(next(iter(gear.weights))[0])
        G.add_edge(4, 5, w=1, cost=1)  # NetworkX clears its cache when the graph changes through its methods
        assert nx.single_source_dijkstra_path_length(G, 0, weight="w", **GG)[5] == 9
        assert calls[-1] == {"w": 1}
    finally:
        BackendInterface.convert_from_nx = staticmethod(convert)


def test_uncached_when_networkx_caching_is_off() -> None:
    nx.config.cache_converted_graphs = False
    G = nx.path_graph(4)
    nx.pagerank(G, **GG)
    assert not G.__networkx_cache__.get("backends", {}).get("graphgear")


# ------------------------------------------------------------------------------------------------ device
def test_device_config() -> None:
    config = nx.config.backends.graphgear
    assert config.device in ("auto", "cpu", "cuda")
    G = nx.cycle_graph(6)
    with pytest.raises(ValueError, match="device"):
        config.device = "gpu"
    config.device = "cpu"
    assert nx.single_source_shortest_path_length(G, 0, **GG) == nx.single_source_shortest_path_length(G, 0)
    with config(device="auto"):
        assert config.device == "auto"
        assert nx.number_connected_components(G, **GG) == 1
    assert config.device == "cpu"
    with pytest.raises(ValueError, match="device must be one of"):
        nx.pagerank(G, device="gpu", **GG)


def test_device_cuda_without_a_gpu_says_so() -> None:
    if cuda_available():
        pytest.skip("a GPU is there")
    G = nx.cycle_graph(6)
    nx.config.backends.graphgear.device = "cuda"
    with pytest.raises(BackendError, match="CuPy"):
        nx.pagerank(G, **GG)
    with pytest.raises(BackendError):
        nx.pagerank(G, device="cuda", **GG)
    nx.config.backends.graphgear.device = "auto"
    assert nx.pagerank(G, **GG) == pytest.approx(nx.pagerank(G), rel=1e-9)


def test_device_from_the_environment() -> None:
    code = "import networkx; print(networkx.config.backends.graphgear.device)"
    env = dict(os.environ, GRAPHGEAR_NX_DEVICE="cpu")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          check=True).stdout.strip() == "cpu"


@pytest.mark.gpu
def test_device_cuda_matches_networkx() -> None:
    if not cuda_available():
        pytest.skip("needs CuPy and an NVIDIA GPU")
    G = nx.karate_club_graph()
    nx.config.backends.graphgear.device = "cuda"
    assert nx.pagerank(G, **GG) == pytest.approx(nx.pagerank(G), rel=1e-9)
    assert nx.single_source_dijkstra_path_length(G, 0, **GG) == nx.single_source_dijkstra_path_length(G, 0)
    assert list(nx.connected_components(G, **GG)) == list(nx.connected_components(G))


# ------------------------------------------------------------------------------------------------ declining
def test_can_run_declines_with_reasons() -> None:
    G = nx.Graph()
    G.add_edge("a", "b", weight=0.1)
    G.add_edge("b", "c", weight=-2)
    H = nx.Graph([("a", "b", {"weight": 1}), ("b", "c", {"weight": 0.5})])
    can_run = BackendInterface.can_run
    assert "float32" in can_run("single_source_dijkstra_path_length", (G, "a"), {})
    assert "negative" in can_run("pagerank", (nx.Graph([(0, 1, {"weight": -1})]),), {})
    assert "mix" in can_run("dijkstra_path_length", (H, "a", "c"), {})
    assert can_run("pagerank", (H,), {}) is True  # pagerank's result does not depend on the weights' types
    assert "function" in can_run("single_source_dijkstra_path_length", (H, "a"), {"weight": lambda u, v, d: 1})
    assert "sort_neighbors" in can_run("bfs_edges", (H, "a"), {"sort_neighbors": sorted})
    assert "reverse" in can_run("bfs_tree", (nx.DiGraph(H), "a"), {"reverse": True})
    assert can_run("bfs_tree", (H, "a"), {"reverse": True}) is True  # undirected: reverse means nothing
    assert "k outside" in can_run("betweenness_centrality", (H,), {"k": 0})
    assert "alpha" in can_run("pagerank", (H,), {"alpha": 1.5})
    assert "nstart" in can_run("pagerank", (H,), {"nstart": {"a": 0}})
    assert "weighted paths" in can_run("shortest_path", (H, "a"), {"weight": "weight"})
    assert can_run("dijkstra_path", (H, "a", "c"), {}) is False  # not implemented
    assert can_run("pagerank", (H,), {"no_such_argument": 1}) is True  # the call raises NetworkX's TypeError


def test_declined_calls_fall_back_to_networkx() -> None:
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 0.1), ("b", "c", 0.2), ("a", "c", 0.3)])  # float32 cannot hold 0.1
    with pytest.raises(NotImplementedError, match="graphgear"):
        nx.single_source_dijkstra_path_length(G, "a", **GG)  # backend= given: NetworkX does not fall back
    nx.config.backend_priority.algos = ["graphgear"]
    nx.config.fallback_to_nx = True
    want = nx.single_source_dijkstra_path_length(G, "a", backend="networkx")
    assert nx.single_source_dijkstra_path_length(G, "a") == want  # declined: NetworkX ran it
    assert nx.dijkstra_path(G, "a", "c") == ["a", "c"]  # not implemented by graphgear: NetworkX runs it
    M = nx.MultiDiGraph([("a", "b"), ("a", "b")])
    assert nx.pagerank(M) == pytest.approx(nx.pagerank(M, backend="networkx"))


def test_a_value_check_after_conversion_declines_too() -> None:
    """The function checks the converted graph's weights again: a stale can_run cannot make it compute wrongly."""
    g = BackendInterface.convert_from_nx(nx.Graph([(0, 1, {"weight": 0.1})]), edge_attrs={"weight": 1})
    with pytest.raises(NotImplementedError, match="float32"):
        BackendInterface.single_source_dijkstra_path_length(g, 0)


def test_a_converted_graph_can_be_passed_to_networkx() -> None:
    G = nx.karate_club_graph()
    g = BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert nx.single_source_dijkstra_path_length(g, 0) == nx.single_source_dijkstra_path_length(G, 0)
    assert nx.pagerank(g) == pytest.approx(nx.pagerank(G), rel=1e-9)
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.strongly_connected_components(g))  # NetworkX's decorator asks the converted graph is_directed()


# ------------------------------------------------------------------------------------------------ errors
def both(call):
    """The exception (type and message) NetworkX raises for call(kwargs), and graphgear's."""
    raised = []
    for kwargs in ({}, GG):
        with pytest.raises(Exception) as info:
            call(kwargs)
        raised.append((type(info.value), str(info.value)))
    return raised


@pytest.mark.parametrize("call", [
    lambda kw: nx.single_source_shortest_path_length(nx.path_graph(3), 9, **kw),
    lambda kw: nx.single_source_shortest_path(nx.path_graph(3), 9, **kw),
    lambda kw: nx.single_target_shortest_path_length(nx.path_graph(3), 9, **kw),
    lambda kw: nx.single_source_dijkstra_path_length(nx.path_graph(3), 9, **kw),
    lambda kw: nx.single_source_bellman_ford_path_length(nx.path_graph(3), 9, **kw),
    lambda kw: nx.dijkstra_path_length(nx.path_graph(3), 9, 0, **kw),
    lambda kw: nx.dijkstra_path_length(nx.DiGraph([(0, 1), (2, 1)]), 0, 2, **kw),
    lambda kw: nx.bellman_ford_path_length(nx.DiGraph([(0, 1), (2, 1)]), 0, 2, **kw),
    lambda kw: nx.bellman_ford_path_length(nx.path_graph(3), 9, 9, **kw),
    lambda kw: nx.bellman_ford_path_length(nx.path_graph(3), 9, 0, **kw),
    lambda kw: nx.shortest_path_length(nx.path_graph(3), 0, 9, **kw),
    lambda kw: nx.shortest_path_length(nx.path_graph(3), 9, **kw),
    lambda kw: nx.shortest_path_length(nx.path_graph(3), 0, method="astar", **kw),
    lambda kw: nx.shortest_path_length(nx.DiGraph([(0, 1), (2, 1)]), 0, 2, **kw),
    lambda kw: nx.shortest_path_length(nx.DiGraph([(0, 1)]), target=7, weight="weight", **kw),
    lambda kw: nx.has_path(nx.path_graph(3), 0, "x", **kw),
    lambda kw: list(nx.bfs_edges(nx.path_graph(3), 9, **kw)),
    lambda kw: list(nx.bfs_edges(nx.DiGraph([(0, 1)]), 9, **kw)),
    lambda kw: nx.bfs_tree(nx.DiGraph([(0, 1)]), 9, **kw),
    lambda kw: list(nx.bfs_layers(nx.path_graph(3), [0, 9], **kw)),
    lambda kw: nx.descendants_at_distance(nx.path_graph(3), 9, 1, **kw),
    lambda kw: nx.descendants(nx.DiGraph([(0, 1)]), 9, **kw),
    lambda kw: nx.ancestors(nx.DiGraph([(0, 1)]), 9, **kw),
    lambda kw: nx.node_connected_component(nx.path_graph(3), 9, **kw),
    lambda kw: list(nx.connected_components(nx.DiGraph([(0, 1)]), **kw)),
    lambda kw: nx.number_connected_components(nx.DiGraph([(0, 1)]), **kw),
    lambda kw: list(nx.strongly_connected_components(nx.path_graph(2), **kw)),
    lambda kw: nx.is_weakly_connected(nx.path_graph(2), **kw),
    lambda kw: nx.is_connected(nx.Graph(), **kw),
    lambda kw: nx.is_strongly_connected(nx.DiGraph(), **kw),
    lambda kw: nx.is_weakly_connected(nx.DiGraph(), **kw),
    lambda kw: nx.pagerank(nx.path_graph(30), max_iter=2, **kw),
    lambda kw: nx.pagerank(nx.path_graph(3), max_iter=0, **kw),
    lambda kw: nx.pagerank(nx.path_graph(3), personalization={7: 1}, **kw),
], ids=lambda call: f"line{call.__code__.co_firstlineno}")
def test_errors_are_networkx_errors(call) -> None:
    theirs, mine = both(call)
    assert mine == theirs


def test_generators_raise_when_iterated_as_networkx_does() -> None:
    G = nx.path_graph(3)
    for function, source in ((nx.bfs_edges, 9), (nx.bfs_predecessors, 9), (nx.bfs_successors, 9),
                             (nx.bfs_layers, [9])):
        for kwargs in ({}, GG):
            lazy = function(G, source, **kwargs)  # nothing raised yet: NetworkX's are generators
            with pytest.raises(nx.NetworkXError, match="^The node 9 is not in the graph.$"):
                next(lazy)
    components = nx.connected_components(G, **GG)
    assert next(components) == {0, 1, 2}
    with pytest.raises(StopIteration):
        next(components)


def test_result_types_are_networkx_types() -> None:
    G = nx.DiGraph()
    G.add_edge("s", "a", weight=2)
    G.add_edge("a", "b", weight=3)
    ints = nx.single_source_dijkstra_path_length(G, "s", **GG)
    assert ints == {"s": 0, "a": 2, "b": 5} and all(type(v) is int for v in ints.values())
    nx.set_edge_attributes(G, {("s", "a"): 2.0, ("a", "b"): 0.0}, "weight")
    floats = nx.single_source_dijkstra_path_length(G, "s", **GG)
    assert floats == {"s": 0, "a": 2.0, "b": 2.0}
    assert [type(v) for v in floats.values()] == [int, float, float]  # the source's 0 is NetworkX's int
    assert type(nx.dijkstra_path_length(G, "s", "b", **GG)) is float
    hops = nx.shortest_path_length(G, "s", "b", **GG)
    assert hops == 2 and type(hops) is int
    assert all(type(v) is float for v in nx.pagerank(G, **GG).values())
    assert type(nx.number_strongly_connected_components(G, **GG)) is int
    assert nx.pagerank(nx.DiGraph(), **GG) == {} and nx.betweenness_centrality(nx.Graph(), **GG) == {}
    assert list(nx.connected_components(nx.Graph(), **GG)) == []


def test_no_warnings_beyond_networkx_own() -> None:
    G = nx.karate_club_graph()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nx.pagerank(G, **GG)
        nx.betweenness_centrality(G, k=3, seed=1, **GG)

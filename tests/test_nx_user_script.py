"""A NetworkX user's script run with ``backend="graphgear"``: every result equals plain NetworkX's.

The graphs are what a NetworkX user has: Zachary's karate club relabelled with strings, a grid graph (tuple labels),
a weighted DiGraph with string labels, int and float weights, an isolated node and a self-loop. Each dispatched
function is called as NetworkX documents it, once with graphgear and once without; results must be equal (dicts with
their value types, and the order where NetworkX defines it by its adjacency order), floats to 1e-9 relative where
graphgear computes in float64 (pagerank, betweenness). A call graphgear declined would raise NotImplementedError here
(backend= is explicit), so every comparison below really ran graphgear.
"""

from __future__ import annotations

import math
import random

import pytest

nx = pytest.importorskip("networkx")

# NetworkX finds the backend through graphgear's installed entry points: a source tree on PYTHONPATH alone has none
if "graphgear" not in {e.name for e in __import__("importlib.metadata").metadata.entry_points(group="networkx.backends")}:
    pytest.skip("graphgear is not installed (pip install .): NetworkX sees no graphgear backend", allow_module_level=True)

GG = {"backend": "graphgear"}


@pytest.fixture(autouse=True)
def _quiet_cache_note():
    """NetworkX notes every use of a cached conversion with a warning; a script that calls twice sees it."""
    ignored = set(nx.config.warnings_to_ignore)
    nx.config.warnings_to_ignore.add("cache")
    yield
    nx.config.warnings_to_ignore = ignored


def karate() -> nx.Graph:
    """The karate club with its int weights, nodes renamed "m0".."m33" and listed in a shuffled order."""
    K = nx.karate_club_graph()
    order = list(K)
    random.Random(4).shuffle(order)
    G = nx.Graph()
    G.add_nodes_from(f"m{v}" for v in order)
    G.add_edges_from((f"m{u}", f"m{v}", d) for u, v, d in K.edges(data=True))
    return G


def grid() -> nx.Graph:
    """A 6 x 7 grid graph (tuple labels) with a hole, plus a separate 2-node piece and an isolated node."""
    G = nx.grid_2d_graph(6, 7)
    G.remove_node((2, 3))
    G.add_edge(("far", 0), ("far", 1))
    G.add_node(("lonely",))
    return G


def roads(float_weights: bool = False) -> nx.DiGraph:
    """A weighted DiGraph: string labels, int (or float) weights, a self-loop, a one-way dead end and a sink."""
    w = (lambda x: x + 0.5) if float_weights else (lambda x: x)
    G = nx.DiGraph()
    G.add_weighted_edges_from([
        ("depot", "a", w(4)), ("depot", "b", w(1)), ("b", "a", w(2)), ("a", "c", w(1)), ("b", "c", w(5)),
        ("c", "d", w(3)), ("d", "depot", w(7)), ("c", "e", w(0)), ("e", "d", w(3)), ("d", "d", w(1)),
        ("x", "depot", w(2)), ("c", "sink", w(9)),
    ])
    G.add_node("island")
    return G


def same_dict(got: dict, want: dict, ordered: bool = False) -> None:
    assert got == want
    assert {k: type(v) for k, v in got.items()} == {k: type(v) for k, v in want.items()}
    if ordered:
        assert list(got) == list(want)


def close_dict(got: dict, want: dict) -> None:
    assert list(got) == list(want)  # NetworkX's node order
    for node, value in want.items():
        assert type(got[node]) is float
        assert got[node] == pytest.approx(value, rel=1e-9, abs=1e-15), node


@pytest.mark.parametrize("make", [karate, grid, roads], ids=["karate", "grid", "roads"])
def test_breadth_first_search(make) -> None:
    G = make()
    source = next(iter(G))
    assert list(nx.bfs_edges(G, source, **GG)) == list(nx.bfs_edges(G, source))
    assert list(nx.bfs_edges(G, source, depth_limit=2, **GG)) == list(nx.bfs_edges(G, source, depth_limit=2))
    tree, want = nx.bfs_tree(G, source, **GG), nx.bfs_tree(G, source)
    assert list(tree.nodes) == list(want.nodes) and list(tree.edges) == list(want.edges)
    assert list(nx.bfs_predecessors(G, source, **GG)) == list(nx.bfs_predecessors(G, source))
    assert list(nx.bfs_successors(G, source, **GG)) == list(nx.bfs_successors(G, source))
    assert list(nx.bfs_layers(G, source, **GG)) == list(nx.bfs_layers(G, source))
    several = list(G)[::5]
    assert list(nx.bfs_layers(G, several, **GG)) == list(nx.bfs_layers(G, several))
    for d in range(5):
        assert nx.descendants_at_distance(G, source, d, **GG) == nx.descendants_at_distance(G, source, d)
    assert nx.descendants(G, source, **GG) == nx.descendants(G, source)
    assert nx.ancestors(G, source, **GG) == nx.ancestors(G, source)


@pytest.mark.parametrize("make", [karate, grid, roads], ids=["karate", "grid", "roads"])
def test_unweighted_shortest_paths(make) -> None:
    G = make()
    nodes = list(G)
    for source in nodes[:3] + nodes[-2:]:
        same_dict(nx.single_source_shortest_path_length(G, source, **GG), nx.single_source_shortest_path_length(G, source))
        same_dict(nx.single_source_shortest_path_length(G, source, cutoff=2, **GG),
                  nx.single_source_shortest_path_length(G, source, cutoff=2))
        same_dict(nx.single_target_shortest_path_length(G, source, **GG), nx.single_target_shortest_path_length(G, source))
        same_dict(nx.single_source_shortest_path(G, source, **GG), nx.single_source_shortest_path(G, source), ordered=True)
        same_dict(nx.shortest_path(G, source, **GG), nx.shortest_path(G, source), ordered=True)
        same_dict(nx.shortest_path_length(G, source, **GG), nx.shortest_path_length(G, source))
        for target in nodes[5:9]:
            assert nx.has_path(G, source, target, **GG) is nx.has_path(G, source, target)
            if nx.has_path(G, source, target):
                assert nx.shortest_path_length(G, source, target, **GG) == nx.shortest_path_length(G, source, target)
            else:
                with pytest.raises(nx.NetworkXNoPath, match="No path between"):
                    nx.shortest_path_length(G, source, target, **GG)
    assert dict(nx.all_pairs_shortest_path_length(G, **GG)) == dict(nx.all_pairs_shortest_path_length(G))


@pytest.mark.parametrize("float_weights", [False, True], ids=["int weights", "float weights"])
def test_weighted_shortest_path_lengths(float_weights) -> None:
    G = roads(float_weights)
    for source in G:
        same_dict(nx.single_source_dijkstra_path_length(G, source, **GG), nx.single_source_dijkstra_path_length(G, source))
        same_dict(nx.single_source_dijkstra_path_length(G, source, cutoff=6, **GG),
                  nx.single_source_dijkstra_path_length(G, source, cutoff=6))
        same_dict(nx.single_source_bellman_ford_path_length(G, source, **GG),
                  nx.single_source_bellman_ford_path_length(G, source))
        same_dict(nx.shortest_path_length(G, source, weight="weight", **GG),
                  nx.shortest_path_length(G, source, weight="weight"))
        same_dict(nx.shortest_path_length(G, target=source, weight="weight", **GG),
                  nx.shortest_path_length(G, target=source, weight="weight"))
        for target in G:
            if target in nx.descendants(G, source) or target == source:
                for function in (nx.dijkstra_path_length, nx.bellman_ford_path_length):
                    got, want = function(G, source, target, **GG), function(G, source, target)
                    assert got == want and type(got) is type(want)
            else:
                with pytest.raises(nx.NetworkXNoPath):
                    nx.dijkstra_path_length(G, source, target, **GG)
    assert dict(nx.all_pairs_dijkstra_path_length(G, **GG)) == dict(nx.all_pairs_dijkstra_path_length(G))
    assert dict(nx.all_pairs_bellman_ford_path_length(G, **GG)) == dict(nx.all_pairs_bellman_ford_path_length(G))


def test_karate_weighted_distances_are_ints() -> None:
    G = karate()
    got = nx.single_source_dijkstra_path_length(G, "m0", **GG)
    same_dict(got, nx.single_source_dijkstra_path_length(G, "m0"))
    assert all(type(v) is int for v in got.values())


@pytest.mark.parametrize("make", [karate, grid, roads], ids=["karate", "grid", "roads"])
def test_pagerank(make) -> None:
    G = make()
    close_dict(nx.pagerank(G, **GG), nx.pagerank(G))
    close_dict(nx.pagerank(G, alpha=0.7, weight=None, **GG), nx.pagerank(G, alpha=0.7, weight=None))
    nodes = list(G)
    personal = {nodes[0]: 2, nodes[3]: 1, "not a node": 5}
    dangling = {nodes[1]: 1, nodes[-1]: 3}
    close_dict(nx.pagerank(G, personalization=personal, dangling=dangling, tol=1e-10, **GG),
               nx.pagerank(G, personalization=personal, dangling=dangling, tol=1e-10))
    start = {v: i + 1 for i, v in enumerate(nodes)}
    close_dict(nx.pagerank(G, nstart=start, max_iter=300, **GG), nx.pagerank(G, nstart=start, max_iter=300))


@pytest.mark.parametrize("make", [karate, grid, roads], ids=["karate", "grid", "roads"])
def test_betweenness(make) -> None:
    G = make()
    close_dict(nx.betweenness_centrality(G, **GG), nx.betweenness_centrality(G))
    close_dict(nx.betweenness_centrality(G, normalized=False, endpoints=True, **GG),
               nx.betweenness_centrality(G, normalized=False, endpoints=True))
    for k, seed in ((5, 1), (len(G) - 1, 42), (1, 7)):
        got = nx.betweenness_centrality(G, k=k, seed=seed, **GG)
        want = nx.betweenness_centrality(G, k=k, seed=seed)
        assert [math.isnan(v) for v in got.values()] == [math.isnan(v) for v in want.values()]
        close_dict({n: v for n, v in got.items() if not math.isnan(v)},
                   {n: v for n, v in want.items() if not math.isnan(v)})
    # the same random.Random consumed the same way: the next draw agrees
    mine, theirs = random.Random(11), random.Random(11)
    close_dict(nx.betweenness_centrality(G, k=4, seed=mine, **GG), nx.betweenness_centrality(G, k=4, seed=theirs))
    assert mine.random() == theirs.random()


def test_weighted_betweenness() -> None:
    G = karate()
    close_dict(nx.betweenness_centrality(G, weight="weight", **GG), nx.betweenness_centrality(G, weight="weight"))


@pytest.mark.parametrize("make", [karate, grid], ids=["karate", "grid"])
def test_connected_components(make) -> None:
    G = make()
    assert list(nx.connected_components(G, **GG)) == list(nx.connected_components(G))
    assert nx.number_connected_components(G, **GG) == nx.number_connected_components(G)
    assert nx.is_connected(G, **GG) is nx.is_connected(G)
    for node in list(G)[::7]:
        assert nx.node_connected_component(G, node, **GG) == nx.node_connected_component(G, node)


def test_directed_components() -> None:
    G = roads()
    assert list(nx.strongly_connected_components(G, **GG)) == list(nx.strongly_connected_components(G))
    assert nx.number_strongly_connected_components(G, **GG) == nx.number_strongly_connected_components(G)
    assert nx.is_strongly_connected(G, **GG) is nx.is_strongly_connected(G) is False
    assert list(nx.weakly_connected_components(G, **GG)) == list(nx.weakly_connected_components(G))
    assert nx.number_weakly_connected_components(G, **GG) == nx.number_weakly_connected_components(G) == 2
    assert nx.is_weakly_connected(G, **GG) is nx.is_weakly_connected(G) is False
    cycle = nx.cycle_graph(["p", "q", "r"], create_using=nx.DiGraph)
    assert nx.is_strongly_connected(cycle, **GG) is True


def test_condensation_numbers_components_as_networkx() -> None:
    """nx.condensation numbers the components in strongly_connected_components' order: graphgear's is NetworkX's."""
    G = nx.gnp_random_graph(60, 0.04, directed=True, seed=3)
    mine = nx.condensation(G, scc=nx.strongly_connected_components(G, **GG))
    theirs = nx.condensation(G)
    assert mine.graph["mapping"] == theirs.graph["mapping"]
    assert list(mine.edges) == list(theirs.edges)

"""Every argument error of a public function is a graphgear error that names the value at fault.

One parametrised case per (function, bad argument): the call raises a `GraphgearError` (GraphError for graphs,
vertices and parameter values, StrategyError for strategies, BackendError for backends) whose message shows the value
(its repr; a string's text), never a bare TypeError / ValueError / AttributeError / KeyError / IndexError from deep
inside. A sweep of junk values over every argument checks the second part more widely: each call either runs or raises
a graphgear error. pagerank and betweenness_centrality take NetworkX's positional order (pagerank: alpha,
personalization, max_iter, tol, nstart, weight, dangling; betweenness_centrality: k, normalized, weight, endpoints,
seed), so their positional cases are given in it.
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import scipy.sparse

import graphgear as gg
from graphgear import Graph, Strategy
from graphgear.algorithms.bfs import BFS_PROGRAM
from graphgear.backends import get_backend
from graphgear.errors import BackendError, GraphError, GraphgearError, StrategyError

BARE = (TypeError, ValueError, AttributeError, KeyError, IndexError, RuntimeError, OverflowError, ZeroDivisionError)

G = gg.load("grid:3:3")  # 9 vertices, ids 0..8, unweighted
W = gg.load("grid:3:3:w")  # the same, weighted 1..255: distances reach 8 * 255
L = Graph.from_edges(["a", "b"], ["b", "c"])  # labels a, b, c
OBJ = object()
NAN = float("nan")
INF = float("inf")
OFFSETS, INDICES = np.array([0, 1, 2, 4]), np.array([1, 2, 0, 1])
BAD_NX = nx.Graph()
BAD_NX.add_edge(0, 1, weight="heavy")
EDGES = pd.DataFrame({"src": [0, 1], "dst": [1, 2], "w": [1.0, 2.0]})


CASES: list = []


def case(error: type, value: object, call, name: str) -> None:
    """One row: `call()` raises `error`, and the message shows `value`."""
    CASES.append(pytest.param(error, value, call, id=name))


# ------------------------------------------------------------------------------------------------ the graph argument
for fn_name, fn in (("bfs", lambda g: gg.bfs(g, 0)), ("sssp", lambda g: gg.sssp(g, 0)),
                    ("pagerank", gg.pagerank), ("cc", gg.connected_components),
                    ("scc", gg.strongly_connected_components), ("bc", gg.betweenness_centrality),
                    ("color", gg.color_propagation)):
    for value in (123, None, 1.5, [1, 2], b"grid:3:3", OBJ):
        case(GraphError, value, lambda fn=fn, value=value: fn(value), f"{fn_name}-graph-{value!r}")

# ------------------------------------------------------------------------------------------------ sources
for fn_name, fn in (("bfs", gg.bfs), ("sssp", gg.sssp)):
    for value in ([0, 1], (0, 1), np.array([0, 1]), 1.5, True, np.True_, None, "a", 9, -1, NAN, {0}, 1j):
        case(GraphError, value, lambda fn=fn, value=value: fn(G, value, backend="cpu"), f"{fn_name}-source-{value!r}")
    for value in ("zz", ["a"], 0, ["a", "b"]):
        case(GraphError, value, lambda fn=fn, value=value: fn(L, value, backend="cpu"),
             f"{fn_name}-label-source-{value!r}")

# ------------------------------------------------------------------------------------------------ backend, strategy
ALL = {
    "bfs": lambda **kw: gg.bfs(G, 0, **kw),
    "sssp": lambda **kw: gg.sssp(W, 0, **kw),
    "sssp-unweighted": lambda **kw: gg.sssp(G, 0, **kw),
    "pagerank": lambda **kw: gg.pagerank(G, **kw),
    "cc": lambda **kw: gg.connected_components(G, **kw),
    "scc": lambda **kw: gg.strongly_connected_components(G, **kw),
    "bc": lambda **kw: gg.betweenness_centrality(G, **kw),
    "color": lambda **kw: gg.color_propagation(G, **kw),
    "run_program": lambda **kw: gg.run_program(BFS_PROGRAM, G, source=0, **kw),
}
for fn_name, fn in ALL.items():
    for value in (None, 3, "gpu", "CPU", ["cpu"], OBJ):
        case(BackendError, value, lambda fn=fn, value=value: fn(backend=value), f"{fn_name}-backend-{value!r}")
    for value in (42, None, "direction=sideways", "nonsense", "hops=x", ["auto"], "direction=pull,frontier=edge_queue"):
        case(StrategyError, value, lambda fn=fn, value=value: fn(backend="cpu", strategy=value),
             f"{fn_name}-strategy-{value!r}")

# ------------------------------------------------------------------------------------------------ layout, method
for fn_name in ("bfs", "sssp", "pagerank"):
    for value in ("sorted", 3, None, ["auto"]):
        case(GraphError, value, lambda fn=ALL[fn_name], value=value: fn(backend="cpu", layout=value),
             f"{fn_name}-layout-{value!r}")
for fn_name, bad in (("sssp", "dijkstra"), ("pagerank", "jacobi"), ("cc", "bfs")):
    for value in (bad, None, 3, ["auto"]):
        case(GraphError, value, lambda fn=ALL[fn_name], value=value: fn(backend="cpu", method=value),
             f"{fn_name}-method-{value!r}")

# ------------------------------------------------------------------------------------------------ bfs's depth_limit
for value in (-1, 1.5, "2", True, [1], NAN, OBJ):
    case(GraphError, value, lambda value=value: gg.bfs(G, 0, depth_limit=value, backend="cpu"),
         f"bfs-depth_limit-{value!r}")

# ------------------------------------------------------------------------------------------------ weight (name or None)
for fn_name in ("sssp", "sssp-unweighted", "pagerank", "bc"):
    for value in (3, True, 1.5, ["weight"], b"weight", OBJ, np.float32(1)):
        case(GraphError, value, lambda fn=ALL[fn_name], value=value: fn(backend="cpu", weight=value),
             f"{fn_name}-weight-{value!r}")
case(GraphError, 3, lambda: gg.pagerank(W, 0.85, None, 100, 1e-6, None, 3, backend="cpu"), "pagerank-weight-positional")
case(GraphError, [1], lambda: gg.betweenness_centrality(W, None, True, [1], backend="cpu"), "bc-weight-positional")

# ------------------------------------------------------------------------------------------------ sssp's cutoff
for fn_name, graph in (("sssp", W), ("sssp-unweighted", G)):
    for value in (-1, -0.5, -1e-300, NAN, -INF, "3", True, np.True_, [3.0], 1j, OBJ):
        for method in ("delta_stepping", "bellman_ford"):
            case(GraphError, value, lambda graph=graph, value=value, method=method: gg.sssp(
                graph, 0, cutoff=value, method=method, backend="cpu"), f"{fn_name}-{method}-cutoff-{value!r}")
case(GraphError, -1, lambda: gg.sssp(W, 0, weight=None, cutoff=-1, backend="cpu"), "sssp-hops-cutoff--1")

# ------------------------------------------------------------------------------------------------ sssp's delta
for value in (0, -1.0, NAN, -INF, "big", True, [1.0], 1j, 1e-15, 1e-13):
    case(GraphError, value, lambda value=value: gg.sssp(W, 0, delta=value, backend="cpu"), f"sssp-delta-{value!r}")
case(GraphError, "big", lambda: gg.sssp(G, 0, delta="big", backend="cpu"), "sssp-unweighted-delta-'big'")

# ------------------------------------------------------------------------------------------------ pagerank
for value in (0, -0.5, 1.5, NAN, "0.85", None, True, [0.85]):
    case(GraphError, value, lambda value=value: gg.pagerank(G, alpha=value, backend="cpu"), f"pagerank-alpha-{value!r}")
for value in (-1e-6, NAN, 0.0, INF, "1e-6", None, True):
    case(GraphError, value, lambda value=value: gg.pagerank(G, tol=value, backend="cpu"), f"pagerank-tol-{value!r}")
for value in (-1, 1.5, "10", None, True):
    case(GraphError, value, lambda value=value: gg.pagerank(G, max_iter=value, backend="cpu"),
         f"pagerank-max_iter-{value!r}")
# positional, in networkx.pagerank's order: graph, alpha, personalization, max_iter, tol, nstart, weight, dangling
case(GraphError, 1.5, lambda: gg.pagerank(G, 1.5, backend="cpu"), "pagerank-positional-alpha")
case(GraphError, 99, lambda: gg.pagerank(G, 0.85, {99: 1.0}, backend="cpu"), "pagerank-positional-personalization")
case(GraphError, "10", lambda: gg.pagerank(G, 0.85, None, "10", backend="cpu"), "pagerank-positional-max_iter")
case(GraphError, -1e-6, lambda: gg.pagerank(G, 0.85, None, 100, -1e-6, backend="cpu"), "pagerank-positional-tol")
case(GraphError, "a", lambda: gg.pagerank(G, 0.85, None, 100, 1e-6, {"a": 1.0}, backend="cpu"),
     "pagerank-positional-nstart")
case(GraphError, -1.0, lambda: gg.pagerank(G, 0.85, None, 100, 1e-6, None, "weight", {0: -1.0}, backend="cpu"),
     "pagerank-positional-dangling")
for arg in ("personalization", "nstart", "dangling"):
    for given, value in (({99: 1.0}, 99), ({0: -1.0}, -1.0), ({0: NAN}, NAN), ({0: 0.0}, {0: 0.0}), ({0: "x"}, "x"),
                         ({0: None}, None), ({"a": 1.0}, "a"), (np.full(9, -1.0), -1.0), (np.full(9, NAN), NAN),
                         (np.zeros(9), np.zeros(9)), (np.ones(10), np.ones(10)), ("abc", "abc"), (5, 5),
                         (["x"] * 9, ["x"] * 9), ({True: 1.0}, True)):
        case(GraphError, value, lambda arg=arg, given=given: gg.pagerank(G, backend="cpu", **{arg: given}),
             f"pagerank-{arg}-{given!r}")

# ------------------------------------------------------------------------------------------------ betweenness
for value in (0, -1, 10, "3", 2.5, True, [3]):
    case(GraphError, value, lambda value=value: gg.betweenness_centrality(G, k=value, backend="cpu"), f"bc-k-{value!r}")
for arg in ("normalized", "endpoints"):
    for value in ("yes", None, 1, 0, [True]):
        case(GraphError, value, lambda arg=arg, value=value: ALL["bc"](backend="cpu", **{arg: value}),
             f"bc-{arg}-{value!r}")
for value in ("x", 1.5, True, [1]):
    case(GraphError, value, lambda value=value: gg.betweenness_centrality(G, k=2, seed=value, backend="cpu"),
         f"bc-seed-{value!r}")
    case(GraphError, value, lambda value=value: gg.betweenness_centrality(G, seed=value, backend="cpu"),
         f"bc-seed-without-k-{value!r}")
for given, value in (([9], 9), ([-1], -1), ([], []), (["a"], "a"), ([1.5], 1.5), ([True], True), (9, 9),
                     ([[0]], [0]), ([None], None)):
    case(GraphError, value, lambda given=given: gg.betweenness_centrality(G, sources=given, backend="cpu"),
         f"bc-sources-{given!r}")
# positional, in networkx.betweenness_centrality's order: graph, k, normalized, weight, endpoints, seed
case(GraphError, 10, lambda: gg.betweenness_centrality(G, 10, backend="cpu"), "bc-positional-k")
case(GraphError, "yes", lambda: gg.betweenness_centrality(G, None, "yes", backend="cpu"), "bc-positional-normalized")
case(GraphError, 1, lambda: gg.betweenness_centrality(G, None, True, None, 1, backend="cpu"), "bc-positional-endpoints")
case(GraphError, "x", lambda: gg.betweenness_centrality(G, 2, True, None, False, "x", backend="cpu"),
     "bc-positional-seed")
case(GraphError, "zz", lambda: gg.betweenness_centrality(L, sources=["zz"], backend="cpu"), "bc-label-sources-zz")
case(GraphError, [0], lambda: gg.betweenness_centrality(G, k=2, sources=[0], backend="cpu"), "bc-k-and-sources")

# ------------------------------------------------------------------------------------------------ run_program
RUN = dict(backend="cpu")
N = G.num_vertices
for given, value in (("bfs", "bfs"), (None, None)):
    case(GraphError, value, lambda given=given: gg.run_program(given, G, source=0, **RUN),
         f"run_program-program-{given!r}")
for given in (123, "grid:3:3"):
    case(GraphError, given, lambda given=given: gg.run_program(BFS_PROGRAM, given, source=0, **RUN),
         f"run_program-graph-{given!r}")
for arg in ("values", "buffers"):
    for given in (np.zeros(3), ["a"] * N, np.zeros((N, 2)), 5):
        kwargs = dict(values=np.zeros(N), buffers=np.zeros(N))
        kwargs[arg] = given
        case(GraphError, given, lambda kwargs=kwargs: gg.run_program(BFS_PROGRAM, G, **kwargs, **RUN),
             f"run_program-{arg}-{given!r}")
for given, value in (([99], 99), ([1.5], 1.5), ([-1], -1), (["a"], "a")):
    case(GraphError, value, lambda given=given: gg.run_program(BFS_PROGRAM, G, np.zeros(N), np.zeros(N), given, **RUN),
         f"run_program-active-{given!r}")
for value in (99, -1, True, "a", 1.5, [0]):
    case(GraphError, value, lambda value=value: gg.run_program(BFS_PROGRAM, G, source=value, **RUN),
         f"run_program-source-{value!r}")
for arg, value in (("max_rounds", -1), ("max_rounds", 1.5), ("max_rounds", None), ("params", ["x"]),
                   ("after_round", 3), ("phase", 3), ("copy", "yes"), ("lazy", 1)):
    case(GraphError, value, lambda arg=arg, value=value: ALL["run_program"](**RUN, **{arg: value}),
         f"run_program-{arg}-{value!r}")

# ------------------------------------------------------------------------------------------------ Strategy
for text in (3, None, ["direction=pull"], "direction=sideways", "direction", "=push", "hops=²", "group_size=3",
             "balance=vertex_group,group_size=3", "colour=red", "direction=pull,direction=push"):
    case(StrategyError, text, lambda text=text: Strategy.parse(text), f"Strategy.parse-{text!r}")
for fields, value in ((dict(direction=3), 3), (dict(direction="sideways"), "sideways"),
                      (dict(direction=["push"]), ["push"]), (dict(supports=3), 3),
                      (dict(supports="teleport"), "teleport"), (dict(supports=[3]), [3]), (dict(hops=1.5), 1.5),
                      (dict(hops=0), 0), (dict(hops=True), True),
                      (dict(lookup=None), None), (dict(balance="vertex_group", group_size="4"), "4"),
                      (dict(balance="vertex_group", group_size=True), True),
                      (dict(balance="vertex_group", group_size=4.0), 4.0)):
    case(StrategyError, value, lambda fields=fields: Strategy(**fields), f"Strategy-{fields!r}")
case(StrategyError, "x", lambda: Strategy().with_(direction="x"), "Strategy.with_-direction")
case(StrategyError, "colour", lambda: Strategy().with_(colour="red"), "Strategy.with_-unknown-field")

# ------------------------------------------------------------------------------------------------ get_backend
for value in (None, 3, "gpu", "", ["cpu"], OBJ, 1.5):
    case(BackendError, value, lambda value=value: get_backend(value), f"get_backend-{value!r}")

# ------------------------------------------------------------------------------------------------ Graph
for value in (NAN, INF, -INF, 1e39):
    case(GraphError, value, lambda value=value: Graph(OFFSETS, INDICES, np.array([1.0, 2.0, 3.0, value])),
         f"Graph-weights-{value!r}")
for kwargs, value in ((dict(offsets=["a", "b"]), "a"), (dict(offsets=np.array([0, 1.5, 2, 4])), 1.5),
                      (dict(offsets=[1, 2, 3, 4]), 1), (dict(offsets=[0, 2, 1, 4]), 1), (dict(offsets=None), None),
                      (dict(offsets=[[0, 1]]), [[0, 1]]), (dict(indices=[1, 2, 0, 9]), 9),
                      (dict(indices=["x", "y", "z", "w"]), "x"),
                      (dict(weights=["a", "b", "c", "d"]), "a"), (dict(weights=[True] * 4), True),
                      (dict(directed="yes"), "yes"), (dict(directed=None), None), (dict(vertex_ids=5), 5),
                      (dict(counts=3), 3), (dict(name=3), 3)):
    args = dict(offsets=OFFSETS, indices=INDICES)
    args.update(kwargs)
    case(GraphError, value, lambda args=args: Graph(**args), f"Graph-{kwargs!r}")
for kwargs, value in ((dict(src=None, dst=[1]), None), (dict(src=[0, 1.5], dst=[1, 2]), 1.5),
                      (dict(src=[[0]], dst=[[1]]), [[0]]), (dict(weights=[1.0, NAN]), NAN),
                      (dict(weights=["a", "b"]), "a"), (dict(weights=[1.0, 1e300]), 1e300),
                      (dict(num_vertices=2.5), 2.5), (dict(num_vertices="3"), "3"), (dict(num_vertices=True), True),
                      (dict(num_vertices=-1), -1), (dict(num_vertices=1), 1), (dict(directed="yes"), "yes"),
                      (dict(directed=None), None), (dict(self_loops="maybe"), "maybe"), (dict(duplicates=None), None),
                      (dict(duplicates=["keep"]), ["keep"]), (dict(renumber="yes"), "yes"), (dict(name=3), 3)):
    args = dict(src=[0, 1], dst=[1, 2])
    args.update(kwargs)
    case(GraphError, value, lambda args=args: Graph.from_edges(**args), f"from_edges-{kwargs!r}")
MATRIX = scipy.sparse.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
for call, value, name in (
    (lambda: Graph.from_scipy([[0, 1], [1, 0]]), [[0, 1], [1, 0]], "list"),
    (lambda: Graph.from_scipy(np.eye(2)), np.eye(2), "dense"),
    (lambda: Graph.from_scipy(MATRIX, directed="yes"), "yes", "directed"),
    (lambda: Graph.from_scipy(MATRIX, colour=1), "colour", "option"),
    (lambda: Graph.from_scipy(MATRIX, num_vertices=3), "num_vertices", "option-set-by-it"),
    (lambda: Graph.from_scipy(scipy.sparse.csr_array(np.ones((2, 3)))), (2, 3), "not-square"),
    (lambda: Graph.from_scipy(scipy.sparse.csr_array(np.array([[0.0, NAN], [1.0, 0.0]]))), NAN, "nan"),
    (lambda: Graph.from_networkx([1, 2]), [1, 2], "not-a-graph"),
    (lambda: Graph.from_networkx(nx.path_graph(3), weight=3), 3, "weight"),
    (lambda: Graph.from_networkx(nx.path_graph(3), renumber=True), "renumber", "option"),
    (lambda: Graph.from_networkx(BAD_NX), "heavy", "weight-value"),
    (lambda: Graph.from_table(3), 3, "not-a-table"),
    (lambda: Graph.from_table({"src": [0], "dst": [1]}), {"src": [0], "dst": [1]}, "dict"),
    (lambda: Graph.from_table(EDGES, source="nope"), "nope", "source"),
    (lambda: Graph.from_table(EDGES, source=["src"]), ["src"], "source-list"),
    (lambda: Graph.from_table(EDGES, weight="nope"), "nope", "weight"),
    (lambda: Graph.from_table(EDGES, directed="yes"), "yes", "directed"),
    (lambda: Graph.from_table(EDGES, colour=1), "colour", "option"),
    (lambda: Graph.from_table(EDGES.assign(w=["a", "b"]), weight="w"), "a", "weight-strings"),
):
    case(GraphError, value, call, f"Graph.from_{name}-{value!r}"[:80])
for value, shown in ((1.5, 1.5), (True, True), ("a", "a"), (None, None), (99, 99), (-1, -1), ([0, 99], 99),
                     ([[0]], [[0]]), (NAN, NAN)):
    case(GraphError, shown, lambda value=value: G.vertex_index(value), f"vertex_index-{value!r}")
for value, shown in (("zz", "zz"), (["a", "zz"], "zz"), ([["a"]], ["a"]), (0, 0), (np.array("zz"), "zz")):
    case(GraphError, shown, lambda value=value: L.vertex_index(value), f"vertex_index-labels-{value!r}")
for value, shown in ((99, 99), (-1, -1), (1.5, 1.5), ("a", "a"), (None, None), ([0, 1.5], 1.5), (True, True)):
    case(GraphError, shown, lambda value=value: G.vertex_labels(value), f"vertex_labels-{value!r}")


# ------------------------------------------------------------------------------------------------ tests
def _shows(message: str, value: object) -> bool:
    return (value if isinstance(value, str) else repr(value)) in message


@pytest.mark.parametrize(("error", "value", "call"), CASES)
def test_bad_argument_raises_a_graphgear_error_that_shows_the_value(error, value, call):
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, GraphgearError)
    assert type(info.value) not in BARE
    assert _shows(str(info.value), value), f"{value!r} is not in the message {str(info.value)!r}"


JUNK = [None, 3, -1, 1.5, NAN, True, "x", "", [0, 1], [], {}, {0: 1.0}, (0,), OBJ, 1j, np.zeros(2)]
SIGNATURES = {
    "bfs": (lambda **kw: gg.bfs(kw.pop("graph", G), kw.pop("source", 0), **kw),
            ("graph", "source", "depth_limit", "backend", "strategy", "layout")),
    "sssp": (lambda **kw: gg.sssp(kw.pop("graph", W), kw.pop("source", 0), **kw),
             ("graph", "source", "weight", "cutoff", "method", "delta", "backend", "strategy", "layout")),
    "sssp-unweighted": (lambda **kw: gg.sssp(kw.pop("graph", G), kw.pop("source", 0), **kw),
                        ("weight", "cutoff")),
    "pagerank": (lambda **kw: gg.pagerank(kw.pop("graph", G), **kw),
                 ("graph", "alpha", "personalization", "max_iter", "tol", "nstart", "weight", "dangling", "method",
                  "backend", "strategy", "layout")),
    "pagerank-weighted": (lambda **kw: gg.pagerank(kw.pop("graph", W), **kw), ("weight",)),
    "cc": (lambda **kw: gg.connected_components(kw.pop("graph", G), **kw), ("graph", "method", "backend", "strategy")),
    "scc": (lambda **kw: gg.strongly_connected_components(kw.pop("graph", G), **kw), ("graph", "backend", "strategy")),
    "bc": (lambda **kw: gg.betweenness_centrality(kw.pop("graph", G), **kw),
           ("graph", "k", "normalized", "weight", "endpoints", "seed", "sources", "backend", "strategy")),
    "bc-weighted": (lambda **kw: gg.betweenness_centrality(kw.pop("graph", W), **kw),
                    ("k", "normalized", "weight", "endpoints", "seed", "sources")),
    "color": (lambda **kw: gg.color_propagation(kw.pop("graph", G), **kw), ("graph", "backend", "strategy")),
    "from_edges": (lambda **kw: Graph.from_edges(kw.pop("src", [0, 1]), kw.pop("dst", [1, 2]), **kw),
                   ("src", "dst", "weights", "num_vertices", "directed", "self_loops", "duplicates", "renumber",
                    "name")),
    "Graph": (lambda **kw: Graph(kw.pop("offsets", OFFSETS), kw.pop("indices", INDICES), **kw),
              ("offsets", "indices", "weights", "directed", "vertex_ids", "counts", "name")),
    "vertex_index": (lambda **kw: G.vertex_index(kw["labels"]), ("labels",)),
    "label_index": (lambda **kw: L.vertex_index(kw["labels"]), ("labels",)),
    "vertex_labels": (lambda **kw: G.vertex_labels(kw["index"]), ("index",)),
    "Strategy": (lambda **kw: Strategy(**kw), ("direction", "sync", "drive", "frontier", "balance", "group_size",
                                               "supports", "dedup", "lookup", "hops")),
    "Strategy.parse": (lambda **kw: Strategy.parse(kw["text"]), ("text",)),
    "get_backend": (lambda **kw: get_backend(kw["name"]), ("name",)),
}


@pytest.mark.parametrize("function", list(SIGNATURES))
def test_junk_arguments_run_or_raise_a_graphgear_error(function):
    """Every junk value in every argument (one at a time, the others valid): the call runs, or it raises a graphgear
    error; never a bare Python one from inside."""
    call, arguments = SIGNATURES[function]
    for argument in arguments:
        for value in JUNK:
            if argument in ("graph",) and isinstance(value, str) and value:
                continue  # a string graph is a path or a spec: gg.load's own errors, tested in test_io
            try:
                cpu = function in ALL or function.split("-")[0] in ALL
                call(**{argument: value}, **({"backend": "cpu"} if cpu and argument != "backend" else {}))
            except GraphgearError as exc:
                assert type(exc) not in BARE
            except Exception as exc:  # pragma: no cover - the failure this test exists to report
                pytest.fail(f"{function}({argument}={value!r}) raised a bare {type(exc).__name__}: {exc}")


def test_valid_calls_still_run():
    """Forms that were accepted before the checks and must stay so: whole-float and NumPy ids, a Strategy and its
    short form, a backend object, numpy flags and numbers, tuple labels, an empty strategy string."""
    be = get_backend("cpu")
    assert gg.bfs(G, 2.0, backend=be).distances[2] == 0
    pull = Strategy(direction="pull", frontier="bitmap")
    assert gg.bfs(G, np.int32(4), backend="cpu", strategy=pull).distances[4] == 0
    assert gg.bfs(G, np.array(4), backend="cpu", strategy="direction=pull,frontier=bitmap").distances[4] == 0
    assert gg.sssp(W, np.int64(1), delta=np.float32(8.0), backend="cpu").distances[1] == 0
    assert gg.sssp(W, 0, delta=np.inf, backend="cpu").distances[0] == 0
    r = gg.pagerank(G, alpha=np.float64(0.85), tol=np.float32(1e-6), max_iter=np.int64(100), backend="cpu")
    assert abs(r.ranks.sum() - 1) < 1e-9
    assert gg.betweenness_centrality(G, k=np.int64(3), seed=random.Random(1), normalized=np.True_, backend="cpu")
    assert gg.betweenness_centrality(G, sources=4, backend="cpu").centrality.shape == (9,)
    assert gg.betweenness_centrality(W, np.int64(3), np.True_, "weight", np.False_, 1, backend="cpu")
    assert gg.sssp(W, 0, cutoff=np.float32(300), backend="cpu").distances[0] == 0
    assert gg.sssp(W, 0, cutoff=np.int64(0), weight=None, backend="cpu").distances.tolist() == [0] + [np.inf] * 8
    assert gg.sssp(W, 0, cutoff=np.inf, weight="length", backend="cpu").distances.max() < np.inf
    assert gg.bfs(G, 0, depth_limit=np.int64(1), backend="cpu").distances.max() == 1
    r = gg.pagerank(W, np.float64(0.85), None, np.int64(100), np.float32(1e-6), None, None, backend="cpu")
    assert abs(r.ranks.sum() - 1) < 1e-9
    assert Strategy.parse("") == Strategy() and Strategy(group_size=np.int64(4), balance="vertex_group").group_size == 4
    grid = Graph.from_networkx(nx.grid_2d_graph(2, 2))
    assert grid.vertex_index((1, 1)) == 3 and gg.bfs(grid, (0, 0), backend="cpu").distances.tolist() == [0, 1, 1, 2]
    assert L.vertex_index(np.array("b")) == 1 and L.vertex_index(["c", "a"]).tolist() == [2, 0]
    floats = Graph.from_edges(np.array([0.0, 1.0]), [1, 2], num_vertices=np.int64(4), directed=np.False_)
    assert floats.num_vertices == 4 and not floats.directed
    assert G.vertex_labels([1, 2]).tolist() == [1, 2]
    assert G.vertex_labels(np.arange(3, dtype=np.int32)).dtype == np.int32  # an id array as it is, no copy

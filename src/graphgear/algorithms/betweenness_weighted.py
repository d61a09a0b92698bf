"""Weighted betweenness centrality: Brandes' algorithm over shortest-path distances instead of BFS levels.

Method: U. Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociol. 25(2), 2001, section 4 (weighted
graphs: Dijkstra in place of BFS), as networkx.betweenness_centrality(G, weight=...) runs it. Dijkstra's priority
queue does two jobs there: it finds the distances, and it visits the vertices in an order in which each count sigma is
final before it is passed on (Brandes' stack S, reversed for the dependencies). Here the two jobs are separate, so
that each is a few parallel operator calls per source:

    Distances        delta-stepping from s (algorithms/sssp.py `distances_from`: the host's near-far loop, or near-far
                     in one persistent kernel on the GPU). D[v] = the smallest sum over paths, accumulated arc by arc
                     as D[u] + w(u, v) in float64 (w the float32 weight, widened): a label-correcting run reaches the
                     same fixed point as networkx's Dijkstra, whose sums are formed alike (dist + weight).
    ShortestPathDAG  the tight arcs u -> v, D[u] + w(u, v) == D[v], compared exactly in float64 as networkx compares
                     `vw_dist == seen[w]`: Brandes' predecessor sets P_s(v), never stored. TightInDegree counts each
                     vertex's tight in-arcs (one neighbor_reduce over the in-edges).
    PathCounting     sigma over the DAG in Kahn's topological order, level-synchronous (`advance`): the frontier's
                     tight out-arcs add sigma[u] to sigma[v] (atomic) and count down v's tight in-arcs; the arc that
                     counts to 0 emits v, whose sigma is then final. A vertex's DAG level is its longest tight path
                     from s in arcs, so every tight successor of a vertex lies on a deeper level; the rounds are the
                     DAG's depth, not one per distinct distance.
    Dependencies     Brandes' accumulation deepest level first, the unweighted BC's LevelGather: each vertex of level L
                     sums coef[v] = (1 + delta[v]) / sigma[v] over its tight out-arcs (all deeper, so final) with a
                     data-driven `neighbor_reduce` over the level's rows (race-free), then delta = sigma * sum and
                     bc += delta (`for_each_vertex`, betweenness.LEVEL_UPDATE).

Ties. Two paths tie when their sums are bit-equal as accumulated from s, exactly networkx's rule: given the same
float64 weights, the DAG, sigma and the dependencies are networkx's (up to the order of the final additions). A Graph
stores float32 weights, so a NetworkX graph whose weights are not float32 numbers (0.1) is compared with its weights
rounded; integer weights below 2^24 are exact and their sums tie exactly where the integers do.

Zero lengths. A zero weight (or one lost to rounding beside a large distance) makes a tight arc between two vertices
at the same distance. While the tight arcs form a DAG, sigma counts the shortest paths exactly (networkx's count there
depends on the order its heap pops equal distances); arcs into the source never lie on a shortest path from it. A
cycle of zero length among the shortest paths (infinitely many of them) raises GraphError. Self-loops are dropped and
parallel arcs count once with their smallest weight, as networkx's graphs (and its multigraph weight rule) have them.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import numba
import numpy as np

from ..backends.cpu.atomics import atomic_add, atomic_fadd
from ..engine.controller import make_controller
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError
from ..frontier import Frontier, one_vertex
from ..functor import Functor
from ..graph.graph import Graph
from ._common import check_non_negative_weights
from .brandes import GATHER, LEVEL_UPDATE
from .sssp import distances_from

__all__ = ["CUDA_FUNCTORS", "dag_strategy", "dag_view", "weighted_single_source", "zero_length_cycle"]


# ------------------------------------------------------------------------------------------------------- functors
# state tuples, indexed in place (numba reference-counts unpacked arrays): TightInDegree (dist,); PathCounting
# (dist, sigma, pending, source[1]); the dependencies' gather (dist, coef, source[1])
D, SIGMA, PENDING, SOURCE = 0, 1, 2, 3
COEF, G_SOURCE = 1, 2


@numba.njit(nogil=True)
def _tight_in_arc(v, u, w, state):  # pragma: no cover - numba
    """TightInDegree's term for in-arc u -> v: 1 when it lies on a shortest path from the source (u reached and
    D[u] + w == D[v] in float64), else 0."""
    return 1.0 if state[D][u] < np.inf and state[D][u] + w == state[D][v] else 0.0


@numba.njit(nogil=True)
def _count_paths(u, v, w, state):  # pragma: no cover - numba
    """PathCounting over u -> v (sigma[u] final): a tight arc adds sigma[u] to sigma[v] and counts down v's tight
    in-arcs; the one that counts to 0 emits v. Arcs into the source are not in the DAG (its count starts at 0 and
    never returns 1)."""
    if v == state[SOURCE][0] or state[D][u] + w != state[D][v]:
        return False
    atomic_fadd(state[SIGMA], v, state[SIGMA][u])
    return atomic_add(state[PENDING], v, -1) == 1


@numba.njit(nogil=True)
def _tight_coefficient(v, u, w, state):  # pragma: no cover - numba
    """The dependencies' gather over v's out-arc v -> u: u's coefficient (1 + delta[u]) / sigma[u] when the arc is
    tight (u lies deeper in the DAG, so its coefficient is final), else 0."""
    if u == state[G_SOURCE][0] or state[D][v] + w != state[D][u]:
        return 0.0
    return state[COEF][u]


TIGHT_IN_ARC = Functor("bc_tight_in_arc", _tight_in_arc,
                       "return (dist[u] < GG_INF && dist[u] + (double)w == dist[v]) ? 1.0 : 0.0;", state=("dist",))
COUNT_PATHS = Functor(
    "bc_count_paths", _count_paths,
    "if (v == source[0] || dist[u] + (double)w != dist[v]) return false;"
    " atomicAdd(&sigma[v], sigma[u]); return atomicSub(&pending[v], 1) == 1;",
    state=("dist", "sigma", "pending", "source"),
)
TIGHT_COEFFICIENT = Functor(
    "bc_tight_coefficient", _tight_coefficient,
    "return (u == source[0] || dist[v] + (double)w != dist[u]) ? 0.0 : coef[u];",
    state=("dist", "coef", "source"),
)

TOPOLOGY_GATHER = Strategy(direction="pull", drive="topology", frontier="bitmap")  # what TightInDegree runs

# what the GPU backend compiles (tests/cuda/test_cuda_sources.py): (functor, role, state dtypes as the calls pass them)
_I32, _F64 = np.int32, np.float64
CUDA_FUNCTORS = [
    (TIGHT_IN_ARC, "reduce", (_F64,), ()),
    (COUNT_PATHS, "advance", (_F64, _F64, _I32, _I32), ()),
    (TIGHT_COEFFICIENT, "reduce", (_F64, _F64, _I32), ()),
]


# ------------------------------------------------------------------------------------------------------- helpers
_DAG_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def dag_view(graph: Graph) -> Graph:
    """The weighted graph the shortest paths run on: self-loops dropped (never on a shortest path; a zero-weight one
    would be a zero-length cycle) and parallel arcs merged into one with their smallest weight (networkx's graphs have
    no parallel arcs; its multigraphs take the smallest). The graph itself when there is nothing to merge or drop;
    checked once per graph. GraphError naming the arc when a weight is negative."""
    if graph in _DAG_VIEWS:
        return _DAG_VIEWS[graph] or graph
    check_non_negative_weights(graph, "weighted betweenness centrality")
    n = graph.num_vertices
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.offsets))
    cols = graph.indices.astype(np.int64)
    w = graph.weights
    order = np.lexsort((w, cols, rows))  # by row, then target, the lightest of parallel arcs first
    rows, cols, w = rows[order], cols[order], w[order]
    keep = rows != cols
    keep[1:] &= (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    view = None
    if not keep.all() or not np.array_equal(order, np.arange(order.size)):
        counts = np.bincount(rows[keep], minlength=n)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        view = Graph(offsets, cols[keep], w[keep], directed=graph.directed, vertex_ids=graph.vertex_ids,
                     name=graph.name)
    _DAG_VIEWS[graph] = view
    return view or graph


def dag_strategy(strategy: Any, graph: Graph) -> Strategy:
    """The Strategy of PathCounting's advance: the caller's fixed Strategy or the configuration table's (Busato &
    Bombieri Table 1: the GPU's load balancer, supports, dedup) as a level-synchronous data-driven push over a vertex
    queue, which Kahn's order needs (a level's counts are final when the next level starts)."""
    controller = make_controller(strategy, graph, "traversal")
    base = getattr(controller, "strategy", None) or getattr(controller, "base", None) or Strategy()
    return base.with_(direction="push", sync="sync", drive="data", frontier="vertex_queue", hops=1)


# ------------------------------------------------------------------------------------------------------- Brandes
def weighted_single_source(be: Any, G: Any, graph: Graph, s: int, arrays: tuple, trace: Trace, strategy: Any,
                           push: Strategy) -> int:
    """Distances, ShortestPathDAG, PathCounting and Dependencies from source s, adding s's dependencies to bc (see the
    module notes). `arrays` = (sigma, pending, count, coef, acc, bc, endpoint, source), reused across sources; `push`
    from `dag_strategy`. Returns the vertices reached, s included."""
    xp = be.xp
    sigma, pending, count, coef, acc, bc, endpoint, source = arrays
    n = G.num_vertices
    dist = distances_from(be, G, graph, s, strategy, trace, "forward")
    start = time.perf_counter()
    be.neighbor_reduce(G, TIGHT_IN_ARC, (dist,), "sum", "in", out=count)  # TightInDegree
    xp.copyto(pending, count, casting="unsafe")
    pending[s] = 0
    sigma.fill(0.0)
    sigma[s] = 1.0
    source.fill(s)
    frontier = Frontier.from_vertices(one_vertex(xp, s), n)
    levels = [frontier]
    level_edges = [frontier.out_edges(G.out_degree)]
    trace.add(strategy=str(TOPOLOGY_GATHER), path=TOPOLOGY_GATHER.path, frontier_vertices=n,
              frontier_edges=G.num_arcs, edges_processed=G.num_arcs, seconds=time.perf_counter() - start,
              decision="tight-in-degree", phase="paths",
              reason="ShortestPathDAG: each vertex counts its tight in-arcs, D[u] + w == D[v] in float64")
    while True:  # PathCounting: Kahn's order, one level per advance
        start = time.perf_counter()
        frontier = be.advance(G, frontier, COUNT_PATHS, push, (dist, sigma, pending, source))
        trace.add(strategy=str(push), path=push.path, frontier_vertices=levels[-1].size,
                  frontier_edges=level_edges[-1], edges_processed=level_edges[-1],
                  seconds=time.perf_counter() - start, decision="push", phase="paths",
                  reason=f"PathCounting, DAG level {len(levels) - 1}: tight out-arcs add sigma and count down; "
                         "a vertex whose count reaches 0 joins the next level")
        if frontier.size == 0:
            break
        levels.append(frontier)
        level_edges.append(frontier.out_edges(G.out_degree))
    emitted = sum(f.size for f in levels)
    reached = int(xp.count_nonzero(xp.isfinite(dist)))
    if emitted != reached:
        _zero_length_cycle(be, graph, dist, pending, s)
    for d in range(len(levels) - 1, 0, -1):  # Dependencies, deepest level first
        f = levels[d]
        start = time.perf_counter()
        be.neighbor_reduce(G, TIGHT_COEFFICIENT, (dist, coef, source), "sum", "out", out=acc, vertices=f)
        be.for_each_vertex(f, LEVEL_UPDATE, (acc, sigma, coef, bc, endpoint))
        trace.add(strategy=str(GATHER), path=GATHER.path, frontier_vertices=f.size,
                  frontier_edges=level_edges[d], edges_processed=level_edges[d], seconds=time.perf_counter() - start,
                  decision="gather", phase="backward",
                  reason=f"DAG level {d}: each vertex sums its tight successors' coefficients (race-free)")
    return reached


def _zero_length_cycle(be: Any, graph: Graph, dist: Any, pending: Any, s: int) -> None:
    """GraphError naming a vertex that PathCounting never reached: its tight in-arcs lie on a cycle of zero length."""
    stuck = be.to_host(be.xp.flatnonzero((pending > 0) & be.xp.isfinite(dist))[:1])
    v = int(stuck[0]) if stuck.size else s
    raise zero_length_cycle(graph, s, v, float(be.to_host(dist[v:v + 1])[0]))


def zero_length_cycle(graph: Graph, s: int, v: int, distance: float) -> GraphError:
    """The error for shortest paths from s that reach v (at `distance`) through a cycle of zero length."""
    source, vertex = graph.vertex_labels(np.array([s, v])).tolist()
    return GraphError(f"weighted betweenness centrality: the shortest paths from {source!r} reach {vertex!r} (distance "
                      f"{distance!r}) through a cycle of zero length (arcs of weight 0, or weights lost to float64 "
                      "rounding beside the distance), so it has infinitely many shortest paths")

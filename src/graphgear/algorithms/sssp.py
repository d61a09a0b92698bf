"""Single-source shortest paths: near-far Delta-stepping and Bellman-Ford, under every execution path.

Method: Delta-stepping (Meyer & Sanders, "Delta-stepping: a parallelizable shortest path algorithm", J. Algorithms
2003) in the near-far form of Davidson, Baxter, Garland & Owens ("Work-efficient parallel GPU methods for single-source
shortest paths", IPDPS'14), which SEP-Graph (Wang et al., PPoPP'19) uses as its priority scheduling for SSSP:

    NearFar     distances below the threshold T_hi form the *near* pile, relaxed until it is empty (label-correcting
                inside one bucket [T_lo, T_hi)); an improvement to a distance >= T_hi goes to the *far* pile.
    Relax       dist[v] = min(dist[v], dist[u] + w): an atomic min on the int64 view of the float64 distances (the bit
                patterns of non-negative floats order like the numbers, +inf included).
    SplitFar    when the near pile is empty the threshold moves to the bucket of the smallest live far distance; the far
                pile's entries inside the new bucket become the near pile, stale ones (settled meanwhile) are dropped.
                A per-vertex flag keeps each vertex at most once in the far pile, so it never holds more than V entries.

Each near iteration runs the path the controller picks (SEP-Graph Algorithm 2): sync push (`advance`, atomics),
pull (`pull`: every unsettled vertex gathers min(dist[u] + w) over its active in-neighbours; no write conflicts) or,
on a high-diameter graph (|E|/|V| < delta), async push: one FIFO worklist drained label-correcting, so a whole bucket
costs one operator call. Bellman-Ford is the same loop with one bucket of infinite width (rounds until no change; with
async push it is the FIFO label-correcting algorithm of Bellman-Ford-Moore).

The default bucket width (`default_delta`) is Meyer & Sanders' Theta(1/d) rule for random weights: the mean weight times
DELTA_SCALE / average degree, floored at the smallest positive weight; see its docstring for the measurements.

Predecessors come from one pull pass over the final distances (`predecessors_from_distances`: the smallest-id
in-neighbour u with dist[u] + w(u, v) == dist[v]); an unweighted graph runs BFS.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..backends.cpu.atomics import atomic_add, atomic_cas, atomic_min, float_bits
from ..engine.controller import IterationInfo, make_controller
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError
from ..frontier import Frontier
from ..functor import Functor
from ..operators import ACTIVATE
from ..results import SSSPResult
from ._common import predecessors_from_distances, resolve_source
from .bfs import bfs

__all__ = ["sssp", "default_delta", "METHODS", "DELTA_SCALE"]

METHODS = ("auto", "delta_stepping", "bellman_ford")
DELTA_SCALE = 1.0  # Delta = DELTA_SCALE * mean weight / average degree (see default_delta)
PULL_PASS = Strategy(direction="pull", frontier="bitmap")

# The state every functor reads: (dist float64[V], bits = dist.view(int64), bounds float64[2] = [T_lo, T_hi],
# far_flag int8[V], far_list int64[V], far_count int64[1]).


# ------------------------------------------------------------------------------------------------------ functors
@numba.njit(inline="always", nogil=True)
def _split(v, nd, state):  # pragma: no cover - numba
    """v improved to nd: near (activate) when nd < T_hi, else into the far pile once (test-and-set on its flag).
    The state's arrays are read where they are used: unpacking the whole tuple costs reference counting per call."""
    if nd < state[2][1]:
        return True
    if state[3][v] == 0 and atomic_cas(state[3], v, 0, 1) == 0:
        state[4][atomic_add(state[5], 0, 1)] = v
    return False


@numba.njit(nogil=True)
def _relax(u, v, w, state):  # pragma: no cover - numba
    nd = state[0][u] + w
    if nd < state[0][v]:
        nb = float_bits(nd)
        if atomic_min(state[1], v, nb) > nb:
            return _split(v, nd, state)
    return False


@numba.njit(nogil=True)
def _relax_pull(v, u, w, state):  # pragma: no cover - numba
    nd = state[0][u] + w
    if nd < state[0][v]:
        nb = float_bits(nd)
        if atomic_min(state[1], v, nb) > nb and _split(v, nd, state):
            return ACTIVATE
    return 0


@numba.njit(nogil=True)
def _unsettled(v, state):  # pragma: no cover - numba
    """Pull candidates: a vertex at or below T_lo cannot improve (every new distance is >= T_lo)."""
    return state[0][v] > state[2][0]


_RELAX_CUDA = """double nd = dist[u] + w;
if (nd < dist[v]) {
  long long nb = __double_as_longlong(nd);
  if (atomicMin((long long*)&dist[v], nb) > nb) {
    if (nd < bounds[1]) return true;
    if (atomicCAS(&far_flag[v], 0, 1) == 0) far_list[atomicAdd(far_count, 1)] = v;
  }
}
return false;"""

RELAX = Functor("sssp_relax", _relax, _RELAX_CUDA)
RELAX_PULL = Functor("sssp_relax_pull", _relax_pull, _RELAX_CUDA.replace("return true", "return ACTIVATE")
                     .replace("return false", "return 0"))
UNSETTLED = Functor("sssp_unsettled", _unsettled, "return dist[v] > bounds[0];")


# ------------------------------------------------------------------------------------------------------ parameters
def check_weights(graph: Any) -> tuple[float, float, float]:
    """(mean, max, smallest positive) weight; GraphError naming the first negative arc."""
    w = graph.weights
    if w.size == 0:
        return 0.0, 0.0, 0.0
    low = float(w.min())
    if low < 0:
        k = int(np.argmax(w < 0))
        u = int(np.searchsorted(graph.offsets, k, side="right")) - 1
        src, dst = graph.vertex_labels(np.array([u, int(graph.indices[k])])).tolist()
        raise GraphError(f"SSSP needs non-negative weights: arc {src} -> {dst} has weight {float(w[k])!r}")
    high = float(w.max())
    positive = low if low > 0 else float(w[w > 0].min()) if high > 0 else 0.0
    return float(w.mean(dtype=np.float64)), high, positive


def default_delta(graph: Any, mean: float, high: float, positive: float) -> float:
    """Bucket width: DELTA_SCALE * mean weight / average out-degree (Meyer & Sanders' Theta(1/d) for random weights:
    about one heavy relaxation per vertex per bucket), at least the smallest positive weight; inf when every weight
    is 0 (one bucket). Measured on kron:20:w (avg degree 30) and grid:1024:1024:w (avg degree 4), weights 1..255."""
    if high <= 0:
        return math.inf
    avg_degree = max(graph.num_arcs / max(graph.num_vertices, 1), 1.0)
    return max(DELTA_SCALE * mean / avg_degree, positive)


# ------------------------------------------------------------------------------------------------------ algorithm
def sssp(graph: Any, source: Any, *, method: str = "auto", delta: float | None = None, backend: Any = "auto",
         strategy: Any = "auto") -> SSSPResult:
    """Shortest-path distances (float64, inf when unreachable) and predecessors (-1 for the source and unreachable
    vertices) from `source`. ``method``: "delta_stepping" (near-far), "bellman_ford" or "auto" (delta_stepping);
    ``delta``: the bucket width (default `default_delta`; inf gives one bucket). Weights must be non-negative (zero is
    fine); an unweighted graph runs BFS."""
    if method not in METHODS:
        raise GraphError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if delta is not None and not (isinstance(delta, (int, float, np.integer, np.floating)) and delta > 0):
        raise GraphError(f"delta must be a positive number (or None for the default), got {delta!r}")
    start = time.perf_counter()
    s = resolve_source(graph, source)
    if not graph.weighted:
        hops = bfs(graph, s, backend=backend, strategy=strategy)
        dist = np.where(hops.distances >= 0, hops.distances.astype(np.float64), np.inf)
        hops.trace.algorithm = "sssp"
        return SSSPResult(dist, hops.predecessors, trace=hops.trace, graph=graph, seconds=time.perf_counter() - start)
    mean, high, positive = check_weights(graph)
    if method == "bellman_ford":
        width, phase = math.inf, "bellman-ford"
    else:
        width, phase = (float(delta) if delta is not None else default_delta(graph, mean, high, positive)), "near"

    be = get_backend(backend)
    G = be.graph(graph)
    xp = be.xp
    n = graph.num_vertices
    controller = make_controller(strategy, graph, "traversal")
    trace = Trace(algorithm="sssp", backend=be.name, controller=controller.name)

    dist = xp.full(n, xp.inf, dtype=np.float64)
    dist[s] = 0.0
    bounds = xp.asarray([0.0, width], dtype=np.float64)
    far_flag = xp.zeros(n, dtype=np.int8)
    far_list = xp.empty(n, dtype=np.int64)
    far_count = xp.zeros(1, dtype=np.int64)
    state = (dist, dist.view(np.int64), bounds, far_flag, far_list, far_count)

    near = Frontier.from_vertices(xp.asarray([s], dtype=np.int64), n)
    iteration = 0
    last = None
    while True:
        # ------------------------------------------------------------ near: relax the bucket until it is empty
        while near.size:
            info = IterationInfo(iteration, near.size, near.out_edges(G.out_degree), n, graph.num_arcs)
            decision = controller.choose(info)
            st = decision.strategy
            t0 = time.perf_counter()
            if st.direction == "pull":
                near = be.pull(G, near, RELAX_PULL, st, state, UNSETTLED)
                edges = graph.num_arcs
            else:
                near = be.advance(G, near, RELAX, st, state)
                edges = info.frontier_edges
            seconds = time.perf_counter() - t0
            controller.observe(decision, info, seconds)
            trace.add(strategy=str(st), path=st.path, frontier_vertices=info.frontier_vertices,
                      frontier_edges=info.frontier_edges, edges_processed=int(edges), seconds=seconds,
                      decision=decision.decision, reason=decision.reason, phase=phase)
            iteration += 1
            last = st
        # ------------------------------------------------------------ far: move the threshold, split the far pile
        count = int(far_count[0])
        if count == 0:
            break
        t0 = time.perf_counter()
        pile = far_list[:count]
        d = dist[pile]
        old_hi = float(bounds[1])
        live = d >= old_hi  # the others improved below T_hi after they were piled: settled since, stale
        if not bool(live.any()):
            break
        low = float(d[live].min())
        high = (math.floor(low / width) + 1.0) * width
        bounds[0], bounds[1] = low, high if high > low else low + width
        stays = d >= bounds[1]
        near = Frontier.from_vertices(pile[live & ~stays], n)
        far_flag[pile[~stays]] = 0
        rest = pile[stays]
        far_list[: rest.size] = rest
        far_count[0] = rest.size
        seconds = time.perf_counter() - t0
        trace.add(strategy=str(last), path=last.path, frontier_vertices=count, frontier_edges=0, edges_processed=0,
                  seconds=seconds, decision="split",
                  reason=f"near pile empty: threshold {old_hi:g} -> {float(bounds[1]):g}, {near.size:,} of {count:,} "
                         f"far entries join the near pile, {rest.size:,} stay far",
                  phase="far")

    pred = predecessors_from_distances(be, G, PULL_PASS, dist, s, unit_weights=False)
    return SSSPResult(be.to_host(dist), be.to_host(pred), trace=trace, graph=graph, seconds=time.perf_counter() - start)

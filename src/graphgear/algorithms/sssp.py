"""Single-source shortest paths: near-far Delta-stepping and Bellman-Ford, under every execution path.

Method: Delta-stepping (Meyer & Sanders, "Delta-stepping: a parallelizable shortest path algorithm", J. Algorithms
2003) in the near-far form of Davidson, Baxter, Garland & Owens ("Work-efficient parallel GPU methods for single-source
shortest paths", IPDPS'14), which SEP-Graph (Wang et al., PPoPP'19) uses as its priority scheduling for SSSP:

    NearFar     distances below the threshold T_hi form the *near* pile, relaxed until it is empty (label-correcting
                inside one bucket [T_lo, T_hi)); an improvement to a distance >= T_hi goes to the *far* pile.
    Relax       dist[v] = min(dist[v], dist[u] + w): an atomic min on the int64 view of the float64 distances (the bit
                patterns of non-negative floats order like the numbers, +inf included). The relax functor also does
                Davidson's split of the improved vertices (his filter, fused into the advance): near ones are
                activated, far ones appended to the far pile once (a per-vertex test-and-set flag, so the pile never
                holds more than V entries).
    SplitFar    when the near pile is empty the threshold moves to the bucket of the smallest live far distance; the far
                pile's entries inside the new bucket become the near pile, stale ones (improved below T_hi after they
                were piled, settled since) are dropped. A few array operations over the pile, no kernel launch.

Each near iteration runs the path the controller picks (SEP-Graph Algorithm 2): sync push (`advance`, atomics),
pull (`pull`: every unsettled vertex gathers min(dist[u] + w) over its active in-neighbours; no write conflicts) or,
on a high-diameter graph (|E|/|V| < delta), async push: one FIFO worklist drained label-correcting, so a whole bucket
costs one operator call. SSSP's pull has no early exit (it needs the minimum over all active in-neighbours, unlike
bottom-up BFS) and on the CPU a pulled edge costs about what a pushed one does (a random read of a distance; the
push's atomic runs only on an improvement): on kron:20:w a pull round cost nearly twice as much per edge as the push
rounds, and one pull at the peak round cost more CPU time than pushing throughout at the same wall time
(docs/performance.md#cpu-sssp-pull-rounds-and-bucket-widths). So alpha = 0.1 (PULL_ALPHA) instead of the paper's
15: pull only for a frontier with ten times the out-edges still unexplored; and E' counts first expansions only
(`LabelCorrectingTraversal`). Bellman-Ford is the same loop with one bucket of infinite width: rounds until nothing
improves (async push: the FIFO label-correcting algorithm of Bellman-Ford-Moore).

The default bucket width depends on the first path (`default_delta`): Meyer & Sanders' Theta(1/d) rule for sync paths,
a few mean weights for async ones; its docstring lists the measurements. A width below float64's step at the largest
distance the graph can have cannot move the bucket bound (`smallest_delta`): a delta given that narrow is refused
before the run, a default one widened to it.

On the GPU (`near_far_on_device`) every bucket runs inside one persistent kernel. On a graph with hubs it adds Meyer &
Sanders' light/heavy split (the arcs of weight >= Delta sent once per bucket, when it is done) and chooses their
direction per bucket as SEP-Graph chooses a round's: a bucket whose senders hold a quarter of the heavy arcs or more
pulls them (each vertex keeps its best heavy in-arc from the bucket's senders) instead of pushing them with atomics.
On a low-diameter graph the bucket widths adapt: a bucket refill too small to fill the GPU doubles the next width (up
to 64 Delta), a large one halves it, so the long tail of near-empty buckets past a kron graph's big one costs a few
far-pile passes instead of dozens. Any increasing sequence of thresholds gives the same distances (label-correcting).
Each of the two cut kron:21:w's time, and both together most (graphgear bench --suite gpu times SSSP kron:21:w; the
variants: docs/performance.md#heavy-rows-pulled-adaptive-widths).

Cutoff (networkx's ``cutoff``: a distance above it is dropped, one equal to it kept): the bucket bound never passes
the cutoff, T_hi <= nextafter(cutoff), so an improvement beyond it goes to the far pile and SplitFar stops when the
smallest live far distance lies beyond it: no bucket past the cutoff is relaxed. Bellman-Ford and the GPU's
persistent near-far run BELLMAN_FORD_WITHIN, whose compute step lets a vertex beyond the cutoff keep its label but
send nothing (on the GPU it still passes once through the far pile). Labels beyond the cutoff are then reported inf.
Hop counts (an unweighted graph, or ``weight=None`` as networkx's weight=None: every arc counts 1) run BFS with
depth_limit = floor(cutoff).

Predecessors come from one pull pass over the final distances (`predecessors_from_distances`: the smallest-id
in-neighbour u with dist[u] + w(u, v) == dist[v]); with zero-weight arcs that rule can close cycles among vertices at
one distance, so there `tight_tree` picks the smallest-id tight in-neighbour one hop level closer to the source. An
unweighted graph runs BFS.
"""

from __future__ import annotations

import math
import numbers
import time
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..backends.cpu.atomics import atomic_add, atomic_cas, atomic_min, float_bits
from ..engine.controller import IterationInfo, TraversalController, check_strategy, high_diameter, make_controller
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError
from ..frontier import Frontier, one_vertex
from ..functor import Functor, cpu_functor
from ..graph.graph import shown
from ..graph.layout import LAYOUTS, device_layout
from ..operators import ACTIVATE, STOP
from ..program import ProgramRun, VertexProgram, run_program
from ..results import Deferred, SSSPResult
from ._common import (APPLY_SMALLER, append_trace, check_choice, check_non_negative_weights, check_weight,
                      predecessors_from_distances, resolve_source)
from .bfs import bfs

__all__ = ["METHODS", "check_cutoff", "check_delta", "check_weights", "default_delta", "distances_from", "near_far",
           "smallest_delta", "sssp"]

METHODS = ("auto", "delta_stepping", "bellman_ford")
SYNC_SCALE = 4.0  # Delta = SYNC_SCALE * mean weight / average degree for sync paths (see default_delta)
ASYNC_SCALE = 8.0  # Delta = ASYNC_SCALE * mean weight for async paths
# the GPU's persistent near-far on a high-diameter graph: Delta = DEVICE_DELTA_SCALE * the async width (grid:2048:2048:w
# is fastest around 4x, with and without block-local hops). A round costs a grid barrier whatever its size, so a wider
# bucket that keeps the device busy wins until re-relaxation takes over. On a low-diameter graph the sync width (Meyer &
# Sanders) instead: on kron:21:w the async rule's width relaxes about three times as many arcs and is slower. Width
# sweeps: docs/performance.md#the-bucket-width-on-the-device (.data scripts, not kept; graphgear bench --suite gpu
# times the default).
DEVICE_DELTA_SCALE = 4.0
PULL_ALPHA = 0.1  # SEP-Graph Algorithm 2's alpha for SSSP (the paper's 15 is BFS's; see the module notes)
PULL_PASS = Strategy(direction="pull", frontier="bitmap")
FIFO = Strategy(sync="async")

# The state every functor reads: (dist float64[V], bits = dist.view(int64), bounds float64[2] = [T_lo, T_hi],
# far_flag int32[V] (int32: the GPU has no byte-wide compare-and-swap), far_list int64[V + 1], far_count int64[1]).


# ------------------------------------------------------------------------------------------------------ functors
# The relax functors are written so that numba keeps no reference counting in them: one `if` chain, conditional
# expressions instead of early returns and calls. With early returns or helper calls numba increfs/decrefs every array
# of the state tuple on each call (atomic operations on shared counters): several times slower on one thread and far
# worse on two (docs/performance.md#kernels-without-reference-counting; test_relax_functors_have_no_refcounting guards
# this).
@numba.njit(nogil=True)
def _relax(u, v, w, state):  # pragma: no cover - numba
    """Push over u -> v: atomic min of dist[v]; an improvement below T_hi activates v (near pile), one at or above
    T_hi puts v into the far pile once (test-and-set on its flag; other writers hit the spare last slot)."""
    nd = state[0][u] + w
    if nd < state[0][v]:
        nb = float_bits(nd)
        if atomic_min(state[1], v, nb) > nb:
            far = nd >= state[2][1]
            first = state[3][v] == 0 and atomic_cas(state[3], v, 0, 1) == 0 if far else False
            k = atomic_add(state[5], 0, 1) if first else state[4].shape[0] - 1
            state[4][k] = v
            return not far
    return False


@numba.njit(nogil=True)
def _relax_pull(v, u, w, state):  # pragma: no cover - numba
    """Pull over u -> v: the same update as `_relax`, seen from the destination (ACTIVATE when v is near)."""
    nd = state[0][u] + w
    if nd < state[0][v]:
        nb = float_bits(nd)
        if atomic_min(state[1], v, nb) > nb:
            far = nd >= state[2][1]
            first = state[3][v] == 0 and atomic_cas(state[3], v, 0, 1) == 0 if far else False
            k = atomic_add(state[5], 0, 1) if first else state[4].shape[0] - 1
            state[4][k] = v
            return 0 if far else ACTIVATE
    return 0


@numba.njit(nogil=True)
def _unsettled(v, state):  # pragma: no cover - numba
    """Pull candidates: a vertex at or below T_lo cannot improve (every new distance is >= T_lo)."""
    return state[0][v] > state[2][0]


@numba.njit(nogil=True)
def _tight_claim(u, v, w, state):  # pragma: no cover - numba
    """BFS over tight arcs (dist[u] + w == dist[v]): the first visit of v sets its hop level."""
    return state[0][u] + w == state[0][v] and state[1][v] < 0 and atomic_cas(state[1], v, -1, state[1][u] + 1) == -1


@numba.njit(nogil=True)
def _tight_candidate(v, state):  # pragma: no cover - numba
    return state[1][v] > 0


@numba.njit(nogil=True)
def _tight_parent(v, u, w, state):  # pragma: no cover - numba
    """The first (smallest-id) in-neighbour over a tight arc one hop level closer to the source."""
    if state[0][u] + w == state[0][v] and state[1][u] == state[1][v] - 1:
        state[2][v] = u
        return ACTIVATE | STOP
    return 0


# CUDA bodies. State names follow the state tuples: near_far's (dist, bits, bounds, far_flag, far_list, far_count)
# and tight_tree's (dist, level, pred); C++ types: double*, long long*, double*, int*, long long*, long long* and
# double*, int*, long long*. `w` is the float32 weight, widened to double as numba widens it on the CPU.
NEAR_FAR_STATE = ("dist", "bits", "bounds", "far_flag", "far_list", "far_count")
TIGHT_STATE = ("dist", "level", "pred")

# the atomic min on bits (the int64 view of dist), then Davidson's split: near -> NEAR, far -> the far pile once
_RELAX_CUDA = """const double nd = dist[u] + (double)w;
if (nd < dist[v]) {
  const long long nb = __double_as_longlong(nd);
  if (atomicMin(&bits[v], nb) > nb) {
    if (nd < bounds[1]) return NEAR;
    if (far_flag[v] == 0 && atomicCAS(&far_flag[v], 0, 1) == 0)
      far_list[atomicAdd((unsigned long long*)far_count, 1ULL)] = v;
  }
}
return FAR;"""

RELAX = Functor("sssp_relax", _relax, _RELAX_CUDA.replace("NEAR", "true").replace("FAR", "false"),
                state=NEAR_FAR_STATE)
RELAX_PULL = Functor("sssp_relax_pull", _relax_pull, _RELAX_CUDA.replace("NEAR", "GG_ACTIVATE").replace("FAR", "0"),
                     state=NEAR_FAR_STATE)
UNSETTLED = Functor("sssp_unsettled", _unsettled, "return dist[v] > bounds[0];", state=NEAR_FAR_STATE)
TIGHT_CLAIM = Functor("sssp_tight_claim", _tight_claim,
                      "return dist[u] + (double)w == dist[v] && level[v] < 0 && "
                      "atomicCAS(&level[v], -1, level[u] + 1) == -1;", state=TIGHT_STATE)
TIGHT_CANDIDATE = Functor("sssp_tight_candidate", _tight_candidate, "return level[v] > 0;", state=TIGHT_STATE)
TIGHT_PARENT = Functor("sssp_tight_parent", _tight_parent,
                       "if (dist[u] + (double)w == dist[v] && level[u] == level[v] - 1) {"
                       " atomicMin((unsigned long long*)(pred + v), (unsigned long long)u); return GG_ACTIVATE | GG_STOP; }"
                       " return 0;", state=TIGHT_STATE)


@cpu_functor
def _add_weight(message, weight, params):  # pragma: no cover - numba
    return message + weight


@cpu_functor
def _never_settled(value, params):  # pragma: no cover - numba
    return False


# Bellman-Ford as a SEP-Graph vertex program: the distance is the value, an edge adds its weight, the buffer keeps the
# minimum; no vertex is settled before the end (a label can still fall).
BELLMAN_FORD = VertexProgram(
    name="sssp_bellman_ford", kind="traversal", accumulate="min", compute=APPLY_SMALLER,
    edge=Functor("sssp_add_weight", _add_weight, "return message + (double)weight;"),
    settled=Functor("sssp_never_settled", _never_settled, "return false;"),
    monotone=True,
    silent_leaves=True,
)


@cpu_functor
def _apply_smaller_within(value, buffer, degree, params):  # pragma: no cover - numba
    if buffer < value:
        return buffer, buffer, buffer, buffer <= params[0]
    return value, buffer, value, False


# Bellman-Ford with a cutoff (params[0]): a smaller buffer still becomes the value, but only a value within the cutoff
# is sent on, so nothing is relaxed past it (the labels beyond it are reported inf afterwards).
BELLMAN_FORD_WITHIN = VertexProgram(
    name="sssp_bellman_ford_within", kind="traversal", accumulate="min",
    compute=Functor("sssp_apply_smaller_within", _apply_smaller_within,
                    "if (buffer < value) { value = buffer; message = value; send = value <= params[0]; }"),
    edge=BELLMAN_FORD.edge, settled=BELLMAN_FORD.settled, monotone=True,
    silent_leaves=True,
)

# What the GPU backend compiles for SSSP (tests/cuda/test_cuda_sources.py builds each with nvcc): functor, role, the state
# dtypes exactly as near_far / tight_tree pass them, and the pull's candidate predicate.
_NEAR_FAR_DTYPES = (np.float64, np.int64, np.float64, np.int32, np.int64, np.int64)
_TIGHT_DTYPES = (np.float64, np.int32, np.int64)
CUDA_FUNCTORS = [
    (RELAX, "advance", _NEAR_FAR_DTYPES, ()),
    (RELAX_PULL, "pull", _NEAR_FAR_DTYPES, (("GGC", ("vertex_predicate", UNSETTLED)),)),
    (TIGHT_CLAIM, "advance", _TIGHT_DTYPES, ()),
    (TIGHT_PARENT, "pull", _TIGHT_DTYPES, (("GGC", ("vertex_predicate", TIGHT_CANDIDATE)),)),
]
CUDA_PROGRAMS = [BELLMAN_FORD, BELLMAN_FORD_WITHIN]


# ------------------------------------------------------------------------------------------------------ controller
class LabelCorrectingTraversal(TraversalController):
    """SEP-Graph Algorithm 2 for a label-correcting traversal, with alpha = PULL_ALPHA.

    Algorithm 2 keeps E' = gamma |E| minus outDegree(A) of every push round: the edges not explored yet, which is what
    a pull round would scan. Delta-stepping expands a vertex again when its distance improves, so the sum of
    outDegree(A) passes |E| (1.46 |E| on kron:20:w at Delta = 16); E' turns negative and every push round then
    switches to pull, every pull round back to push. Here E' loses only the out-edges of first expansions
    (`fresh_edges`, set by the loop before each `choose`); the comparison still uses the whole outDegree(A), the work a
    push round does. For BFS the two are the same."""

    def __init__(self, controller: TraversalController, graph: Any) -> None:
        super().__init__(controller.base, graph.num_vertices, graph.num_arcs, alpha=PULL_ALPHA, beta=controller.beta,
                         gamma=controller.gamma, delta=controller.delta, prefix=controller.prefix)
        self.name = controller.name
        self.fresh_edges = 0

    def choose(self, info: IterationInfo) -> Any:
        if not self.sparse and info.iteration > 0 and self.policy == "push":
            self.unexplored += info.frontier_edges - self.fresh_edges  # the parent subtracts all of outDegree(A)
        return super().choose(info)


# ------------------------------------------------------------------------------------------------------ parameters
def check_weights(graph: Any) -> tuple[float, float, float]:
    """(mean (of a sample of 65,536 arcs), smallest, smallest positive weight (0 when there is none)); GraphError
    naming the most negative arc."""
    cached = getattr(graph, "_sssp_weight_check", None)
    if cached is not None:  # a pass over every weight: once per graph
        return cached
    w = graph.weights
    if w.size == 0:
        return 0.0, 0.0, 0.0
    check_non_negative_weights(graph, "SSSP")
    low = graph.lightest_arc()[1]
    mean = float(w[:: max(1, w.size // 65536)].mean(dtype=np.float64))  # a strided sample sizes the buckets
    positive = low if low > 0 else float(w[w > 0].min()) if mean > 0 else 0.0
    graph._sssp_weight_check = (mean, low, positive)
    return mean, low, positive


def check_cutoff(cutoff: Any) -> float | None:
    """The cutoff as a float (None: no cutoff; inf is none either); GraphError for a negative or NaN cutoff, a bool or
    anything but a real number. networkx keeps a distance equal to the cutoff and drops a larger one."""
    if cutoff is None:
        return None
    if isinstance(cutoff, (bool, np.bool_)) or not isinstance(cutoff, numbers.Real) or not cutoff >= 0:
        raise GraphError(f"cutoff must be a number >= 0 (or None for no cutoff), got {shown(cutoff)}")
    return None if math.isinf(cutoff) else float(cutoff)


def smallest_delta(graph: Any) -> tuple[float, float]:
    """(the narrowest bucket width near-far can run with on `graph`, the bound B of its finite distances). B is
    (V - 1) times the largest weight, with room for the rounding of V float64 additions; the width is float64's
    step at B. Below it the bucket bound stops moving: once T_hi nears B, T_hi + Delta == T_hi (1e-15 added to
    2.5e5, where the step is 2.9e-11), and the loop, on the CPU (near_far) as in the GPU kernel (double distances
    and thresholds, kernels/persistent.cuh gg_next_bucket), would run forever. At the step or above, T + Delta > T
    for every T <= B; the step is a power of two, so the bounds both compute from it, floor(T / Delta) * Delta +
    Delta, are exact. Cached on the graph (one pass over the weights)."""
    cached = getattr(graph, "_sssp_smallest_delta", None)
    if cached is not None:
        return cached
    w = graph.weights
    heaviest = float(w.max()) if w is not None and w.size else 0.0
    n = graph.num_vertices
    reach = max(n - 1, 0) * heaviest * (1.0 + n * 2.0**-52)
    graph._sssp_smallest_delta = (float(np.spacing(reach)), reach)
    return graph._sssp_smallest_delta


def check_delta(graph: Any, delta: float) -> None:
    """GraphError, before running, for a bucket width too narrow to move the bucket bound (`smallest_delta`)."""
    floor, reach = smallest_delta(graph)
    if delta < floor:
        raise GraphError(f"delta={delta!r} cannot advance the bucket bound: distances here reach {reach:.3g}, where "
                         f"float64 steps are {floor:.2g}; give delta >= {floor!r}, or None for the default")


def default_delta(graph: Any, mean: float, positive: float, sync: str = "sync") -> float:
    """The bucket width for the path the controller starts with, at least the smallest positive weight (inf when
    every weight is 0: one bucket).

    sync   SYNC_SCALE * mean weight / average degree: Meyer & Sanders' Theta(1/d) rule for random weights (about one
           heavy relaxation per vertex per bucket). kron:20:w (weights 1..255, degree 30) needs 1.07|E| relaxations at
           Delta = 4, 1.28|E| at 8, 1.46|E| at 16, 1.8|E| at 32, but each bucket costs parallel iterations and a pass
           over the far pile: 16 (SYNC_SCALE 4) was the fastest.
    async  ASYNC_SCALE * mean weight: one serial FIFO drain per bucket, so wide buckets amortise the per-bucket cost
           until re-relaxation takes over. grid:1024:1024:w: 1.08|V| expansions at Delta = 256, 1.18 at 512, 1.41 at
           1024, 2.98 at 4096, 5.4 at 8192, the time lowest at 1024; the malta road graph (mean 87) is fastest at
           512-2048. ASYNC_SCALE 8.

    The timings: docs/performance.md#cpu-sssp-pull-rounds-and-bucket-widths.
    """
    if mean <= 0:
        return math.inf
    if sync == "async":
        width = ASYNC_SCALE * mean
    else:
        width = SYNC_SCALE * mean / max(graph.num_arcs / max(graph.num_vertices, 1), 1.0)
    return max(width, positive)


def device_delta(graph: Any, mean: float, positive: float) -> float:
    """The bucket width of near-far in the GPU's persistent kernel: DEVICE_DELTA_SCALE times the async width on a
    high-diameter graph (thousands of small rounds: wide buckets keep the device busy), the sync width (Meyer &
    Sanders) on a low-diameter one (few, large rounds: narrow buckets save re-relaxations)."""
    if high_diameter(graph.num_arcs, graph.num_vertices):
        return default_delta(graph, mean, positive, "async") * DEVICE_DELTA_SCALE
    return default_delta(graph, mean, positive, "sync")


# ------------------------------------------------------------------------------------------------------ algorithm
def sssp(graph: Any, source: Any, *, weight: str | None = "weight", cutoff: float | None = None,
         method: str = "auto", delta: float | None = None, backend: Any = "auto", strategy: Any = "auto",
         layout: str = "auto") -> SSSPResult:
    """Shortest-path distances (float64, inf when unreachable) and predecessors (-1 for the source and unreachable
    vertices) from `source`, as networkx.single_source_dijkstra computes them. ``weight``: None counts hops (every arc
    1, networkx's weight=None), a name the graph's weights (a Graph holds one weight array). ``cutoff``: distances
    above it are reported inf (and their predecessors -1), as networkx drops them; the work stops there (module
    notes). ``method``: "delta_stepping" (near-far), "bellman_ford" or "auto" (delta_stepping); ``delta``: the bucket
    width (default `default_delta`; inf gives one bucket). Weights must be non-negative (zero is fine); hop counts run
    BFS. ``layout`` as for BFS (graph/layout.py device_layout: "auto" renumbers a large power-law graph by degree on
    the GPU); the distances come back in the given ids and the tree is found on them."""
    check_choice("method", method, METHODS)
    check_weight(weight)
    limit = check_cutoff(cutoff)
    if delta is not None:  # NaN fails delta > 0; a bool is not a width
        if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, numbers.Real) or not delta > 0:
            raise GraphError(f"delta must be a positive number (or None for the default), got {shown(delta)}")
        delta = float(delta)
    start = time.perf_counter()
    s = resolve_source(graph, source)
    check_choice("layout", layout, LAYOUTS)
    check_strategy(strategy)
    if weight is None or not graph.weighted:
        depth = {} if limit is None else {"depth_limit": math.floor(limit)}  # BFS stops at the last level within
        hops = bfs(graph, source, backend=backend, strategy=strategy, layout=layout, **depth)  # the user's label
        dist = np.where(hops.distances >= 0, hops.distances.astype(np.float64), np.inf)
        pred = hops.predecessors
        if limit is not None:  # the contract does not rest on the level count's convention
            dist[dist > limit] = np.inf
            pred = np.where(np.isfinite(dist), pred, -1)
        hops.trace.algorithm = "sssp"
        return SSSPResult(dist, pred, trace=hops.trace, graph=graph, seconds=time.perf_counter() - start)
    mean, low, positive = check_weights(graph)
    floor = smallest_delta(graph)[0]  # the defaults are widened to it; a delta given narrower is refused
    if delta is not None and method != "bellman_ford":
        check_delta(graph, delta)

    be = get_backend(backend)
    renumbering, G, note = device_layout(be, graph, layout, auto=be.capabilities.degree_layout)
    traversed = graph if renumbering is None else renumbering.graph
    r = s if renumbering is None else int(renumbering.rank[s])
    device_run = None  # near-far on the device, read back lazily: reading a result checks it first
    if method == "bellman_ford":
        dist, trace = bellman_ford(be, traversed, r, strategy, limit)
    elif be.capabilities.device_traversal and strategy in ("auto", "adaptive", "static"):
        width = delta or max(device_delta(traversed, mean, positive), floor)
        device_run = near_far_on_device(be, G, traversed, r, width, strategy, limit)
        dist, trace = device_run.state.value, device_run.trace
    else:
        dist, trace = delta_stepping(be, G, traversed, r, delta, mean, positive, strategy, floor, limit)
    trace.controller += note
    if renumbering is not None:
        dist = renumbering.to_original(dist)
    if limit is not None:  # the labels past the cutoff (relaxed, never expanded) are dropped, as networkx drops them
        dist = be.xp.where(dist <= limit, dist, np.inf)
    # the arrays stay where the backend left them: a GPU result copies each to the host on its first read; the
    # shortest-path tree is derived from the distances when first read (results.Deferred), on the given ids
    if device_run is None:
        pred = Deferred(lambda: shortest_path_tree(be, be.graph(graph), dist, s, low))
        return SSSPResult(dist, pred, trace=trace, graph=graph, seconds=time.perf_counter() - start)
    pred = Deferred(lambda: shortest_path_tree(be, be.graph(graph), device_run.checked(dist), s, low))
    return SSSPResult(Deferred(lambda: device_run.checked(dist)), pred, trace=trace, graph=graph,
                      seconds=Deferred(lambda: trace.seconds))


def distances_from(be: Any, G: Any, graph: Any, s: int, strategy: Any, trace: Trace, phase: str) -> Any:
    """Shortest-path distances from s on `graph` (weighted, weights >= 0) as the backend's float64 array, for an
    algorithm that needs them as one step (weighted betweenness): near-far in one persistent kernel where the backend
    has it and the controller is automatic, else the host-driven near-far loop; the rows go into `trace` labelled
    `phase` (bucket changes "far"). G = be.graph(graph)."""
    mean, _, positive = check_weights(graph)
    floor = smallest_delta(graph)[0]
    if be.capabilities.device_traversal and strategy in ("auto", "adaptive", "static"):
        run = near_far_on_device(be, G, graph, s, max(device_delta(graph, mean, positive), floor), strategy)
        dist = run.checked(run.state.value)
        append_trace(trace, run.trace, phase)
        return dist
    return delta_stepping(be, G, graph, s, None, mean, positive, strategy, floor, trace=trace, phase=phase)[0]


def shortest_path_tree(be: Any, G: Any, dist: Any, s: int, low: float) -> Any:
    """Predecessors from the final distances: one pull pass (the smallest-id tight in-neighbour), or `tight_tree`
    when a tight arc can close a cycle: a zero weight, or a weight so small that adding it to a distance leaves the
    distance unchanged in float64 (1.4e-21 added to 0.5, say: both arcs of the pair are then tight)."""
    finite = dist[be.xp.isfinite(dist)]
    largest = float(finite.max()) if finite.size else 0.0
    if low > 0 and low > largest * 2.0**-52:
        return predecessors_from_distances(be, G, PULL_PASS, dist, s, unit_weights=False)
    return tight_tree(be, G, dist, s)


def near_far_on_device(be: Any, G: Any, graph: Any, s: int, width: float, strategy: Any,
                       limit: float | None = None) -> ProgramRun:
    """Near-far delta-stepping inside one persistent kernel (the GPU backend's `program_persistent` with delta):
    the Bellman-Ford program's rounds, with the far pile, the threshold and the bucket changes on the device, so no
    round returns to the host. Push through the configuration table's load balancer (Busato & Bombieri Table 1); on a
    graph without hubs (controller.near_far_hops) several levels per grid barrier (Strategy.hops: label-correcting
    inside the bucket), elsewhere with Meyer & Sanders' light/heavy split: a vertex improved several times in a
    bucket sends its arcs of weight >= Delta once, when the bucket is done (kron:21:w relaxed 1.6-2.0 x its arcs
    without it). Returns the run as run_program would (`state.value`: the distances, on the device; `checked`
    reads the run back and raises its error, a grid barrier that timed out). `limit`: the cutoff
    (BELLMAN_FORD_WITHIN: no vertex beyond it sends)."""
    from ..engine.controller import configuration_table, label_correcting, near_far_hops

    program, params = (BELLMAN_FORD, np.zeros(0)) if limit is None else (BELLMAN_FORD_WITHIN, np.array([limit]))
    state = be.program_state(G, program, None, None, params, source=s)  # made in the kernel's prologue
    base, why = configuration_table(graph.degree_stats(), graph.name)
    base = base.with_(direction="push", sync="async", frontier="vertex_queue", drive="data")
    if near_far_hops(graph):
        base = label_correcting(base)
    # Meyer & Sanders' light/heavy split where the rounds are level-synchronous (block-local hops re-send anyway)
    split = base.hops == 1 and be.capabilities.light_heavy
    # from the state's source (worklist None); read back lazily (backend PendingRun): the host goes on without waiting
    # for the kernel; the trace row is made, and a failed launch raises, when the trace or the distances are first read
    pending = be.program_persistent(G, state, None, base, "push", delta=width, threshold=width, light_heavy=split,
                                    lazy=True)
    be.release_state(state)  # the one launch runs it to the end
    trace = Trace(algorithm="sssp", backend=be.name, controller=str(strategy))

    def fill() -> None:
        run = pending.result()
        trace.add(strategy=str(base), path=base.path, frontier_vertices=1,
                  frontier_edges=int(graph.offsets[s + 1] - graph.offsets[s]),
                  edges_processed=run.edges_processed(graph.num_arcs), seconds=float(run.seconds().sum()),
                  decision="near-far", phase="near-far",
                  reason=f"near-far delta-stepping in one persistent kernel: {run.rounds:,} rounds, Delta = {width:g}"
                  + ("; light/heavy split (Meyer & Sanders): heavy arcs once per bucket" if split else "")
                  + run.note + f"; {why}")

    trace.defer(fill, lambda: float(pending.result().seconds().sum()))
    return ProgramRun(trace, state, be, pending.result)


def bellman_ford(be: Any, graph: Any, s: int, strategy: Any, limit: float | None = None) -> tuple[Any, Trace]:
    """Bellman-Ford as a vertex program: rounds of relaxation under the controller's path until nothing improves
    (async push is Bellman-Ford-Moore's FIFO label-correcting queue); with a cutoff `limit`, BELLMAN_FORD_WITHIN."""
    program, params = (BELLMAN_FORD, ()) if limit is None else (BELLMAN_FORD_WITHIN, np.array([limit]))
    run = run_program(program, graph, source=s, params=params, backend=be, strategy=strategy, phase="bellman-ford")
    run.trace.algorithm = "sssp"
    return run.state.value, run.trace


def delta_stepping(be: Any, G: Any, graph: Any, s: int, delta: float | None, mean: float, positive: float,
                   strategy: Any, floor: float = 0.0, limit: float | None = None, trace: Trace | None = None,
                   phase: str = "near") -> tuple[Any, Trace]:
    """Near-far delta-stepping under the traversal controller; see the module notes. The default width is at least
    `floor` (`smallest_delta`: a narrower one cannot move the bucket bound). `limit`: the cutoff (no bucket beyond
    it is relaxed). The rows go into `trace` when one is given (labelled `phase`), else into a new one."""
    n = graph.num_vertices
    controller = make_controller(strategy, graph, "traversal", async_order=be.capabilities.async_order)
    if isinstance(controller, TraversalController):
        controller = LabelCorrectingTraversal(controller, graph)
    trace = Trace(algorithm="sssp", backend=be.name, controller=controller.name) if trace is None else trace
    near = Frontier.from_vertices(one_vertex(be.xp, s), n)
    first = controller.choose(IterationInfo(0, 1, near.out_edges(G.out_degree), n, graph.num_arcs))
    width = max(default_delta(graph, mean, positive, first.strategy.sync), floor) if delta is None else float(delta)
    bound = math.inf if limit is None else math.nextafter(limit, math.inf)
    return near_far(be, G, graph, near, width, controller, first, trace, phase, bound), trace


def near_far(be: Any, G: Any, graph: Any, near: Frontier, width: float, controller: Any, first: Any, trace: Trace,
             phase: str, bound: float = math.inf) -> Any:
    """Delta-stepping with the near-far pile from the vertices of `near` (the source) at distance 0; returns dist.
    `first` is the controller's decision for iteration 0 (already taken, to size the buckets). `bound`: no bucket
    reaches past it (T_hi <= bound; nextafter(cutoff) keeps the distances equal to the cutoff): the run ends when
    the smallest live far distance is at or beyond it, and the labels at or beyond it are not final."""
    xp = be.xp
    n = graph.num_vertices
    expanded = xp.zeros(n, dtype=bool) if isinstance(controller, LabelCorrectingTraversal) else None
    exact_queues = be.capabilities.exact_queues  # the CPU removes duplicates from every queue; a GPU queue may repeat one
    dist = xp.full(n, np.inf, dtype=np.float64)
    dist[near.vertices()] = 0.0
    bounds = xp.asarray([0.0, min(width, bound)], dtype=np.float64)
    far_flag = xp.zeros(n, dtype=np.int32)
    far_list = xp.empty(n + 1, dtype=np.int64)  # the last slot takes the writes that append nothing
    far_count = xp.zeros(1, dtype=np.int64)
    state = (dist, dist.view(np.int64), bounds, far_flag, far_list, far_count)
    iteration = 0
    strategy = first.strategy
    while True:
        # NearFar: relax the bucket [T_lo, T_hi) until no vertex in it improves
        while near.size:
            info = IterationInfo(iteration, near.size, near.out_edges(G.out_degree), n, graph.num_arcs)
            if expanded is not None:  # E' of Algorithm 2 counts a vertex's out-edges once, at its first expansion
                vertices = near.vertices()
                fresh = vertices[~expanded[vertices]]
                if not exact_queues and not near.is_dense:  # a GPU queue may hold a vertex twice: count it once
                    fresh = xp.unique(fresh)
                expanded[fresh] = True
                controller.fresh_edges = int(G.out_degree[fresh].sum())
            decision = first if iteration == 0 else controller.choose(info)
            strategy = decision.strategy
            t0 = time.perf_counter()
            if strategy.direction == "pull":
                near = be.pull(G, near, RELAX_PULL, strategy, state, UNSETTLED)
                edges = graph.num_arcs  # an upper bound: candidates scan their in-edges from active sources
            else:
                near = be.advance(G, near, RELAX, strategy, state)
                edges = info.frontier_edges  # async: the edges of the first worklist (the drain adds more)
            seconds = time.perf_counter() - t0
            controller.observe(decision, info, seconds)
            trace.add(strategy=str(strategy), path=strategy.path, frontier_vertices=info.frontier_vertices,
                      frontier_edges=info.frontier_edges, edges_processed=int(edges), seconds=seconds,
                      decision=decision.decision, reason=decision.reason, phase=phase)
            iteration += 1
        # SplitFar: the next bucket is the one of the smallest live far distance
        count = int(far_count[0])
        if count == 0:
            return dist
        t0 = time.perf_counter()
        pile = far_list[:count]
        d = dist[pile]
        old_hi = float(bounds[1])
        live = d >= old_hi  # the others improved below T_hi after they were piled: settled since, stale
        if not bool(live.any()):
            return dist
        low = float(d[live].min())
        if low >= bound:  # CutoffReached: every live far label lies beyond the cutoff
            return dist
        high = (math.floor(low / width) + 1.0) * width
        bounds[0], bounds[1] = low, min(high if high > low else low + width, bound)
        stays = d >= bounds[1]
        near = Frontier.from_vertices(pile[live & ~stays], n)
        far_flag[pile[~stays]] = 0
        rest = pile[stays]
        far_list[: rest.size] = rest
        far_count[0] = rest.size
        trace.add(strategy=str(strategy), path=strategy.path, frontier_vertices=count, frontier_edges=0,
                  edges_processed=0, seconds=time.perf_counter() - t0, decision="split",
                  reason=f"near pile empty: threshold {old_hi:g} -> {float(bounds[1]):g}, {near.size:,} of {count:,} "
                         f"far entries join the near pile, {rest.size:,} stay far",
                  phase="far")


def tight_tree(be: Any, G: Any, dist: Any, source: int) -> Any:
    """Predecessors when zero-weight arcs exist. There the smallest-id tight in-neighbour
    (`predecessors_from_distances`) can close a cycle among vertices at one distance (a -> b and b -> a of weight 0,
    both reached through a larger id), so a path walked back from b never reaches the source. Instead: hop levels by
    one BFS over the tight arcs (a FIFO drain visits in level order, so the first visit is the smallest level), then
    pred[v] = the smallest-id tight in-neighbour one level closer. Every reached vertex has a tight path from the source
    (the vertex that first got a distance d got it from a smaller distance, or over a zero arc from a vertex that had d
    earlier), so all get one; any visiting order gives a valid tree (each vertex's claimer is one level closer)."""
    xp = be.xp
    n = G.num_vertices
    level = xp.full(n, -1, dtype=np.int32)  # int32: atomicCAS on the GPU
    level[source] = 0
    pred = xp.full(n, -1, dtype=np.int64)
    state = (dist, level, pred)
    be.advance(G, Frontier.from_vertices(one_vertex(xp, source), n), TIGHT_CLAIM, FIFO, state)
    be.pull(G, None, TIGHT_PARENT, PULL_PASS, state, TIGHT_CANDIDATE)
    return pred

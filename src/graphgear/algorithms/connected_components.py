"""Weakly connected components: Afforest (union-find on a sampled subgraph) and min-label propagation.

afforest           Sutton, Ben-Nun, Barak, "Optimizing Parallel Graph Connectivity Computation via Subgraph Sampling"
                   (IPDPS'18), as in the GAP benchmark suite's cc.cc. Every vertex starts as its own tree
                   (comp[v] = v). `Link` joins the trees of an edge's two ends by hooking the higher root under the
                   lower one with a compare-and-swap; `Compress` points every vertex at its root. Sampling: in round r
                   (r = 0, 1) each vertex links only its r-th neighbour, then compresses -- two sparse rounds that
                   already collect most of a giant component. `SampleFrequentElement` picks the most frequent root of
                   1024 random vertices (the giant component c), and the final link phase runs only for vertices
                   outside c, over their remaining out-neighbours (and, for a directed graph, all in-neighbours: a
                   vertex of c skips its out-arcs, so the arc u -> v with u in c is seen from v). A final compress
                   leaves comp[v] = the smallest vertex id of v's component (links always hook high under low).
label_propagation  min-label propagation as a vertex program (SEP-Graph, Wang et al., PPoPP'19): the value is a
                   component label, initially the vertex id; an edge carries the label unchanged; the buffer keeps the
                   minimum. The iterative controller (SEP-Graph Algorithm 1) picks sync-pull-td / async-push-td /
                   async-push-dd each round. A program only sends along out-edges, so a directed graph runs on its
                   symmetrised copy (built once per graph, cached while the graph lives).

Both leave comp[v] = min vertex id of v's component; `canonical_labels` numbers the components 0..C-1 in order of
their smallest vertex, as SciPy does.

Strategies (Afforest). Union-find with CAS linking is order-independent, so Afforest has one path; the Strategy's
``drive`` picks how the final link phase finds the vertices outside the giant component: ``topology`` walks every
vertex and the link functor skips those in c (GAP's loop), ``data`` first filters them into a vertex queue. Direction
and sync do not change Afforest (recorded in the trace). The controllers (auto/static/adaptive) run GAP's topology loop.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..backends.cpu.atomics import atomic_cas
from ..engine.controller import CONTROLLERS, FixedController, check_strategy, make_controller
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError
from ..frontier import Frontier
from ..functor import Functor
from ..graph.build import index_dtype
from ..graph.graph import Graph
from ..program import VertexProgram, programs_on_device, run_program
from ..results import ComponentsResult, Deferred
from ._common import APPLY_SMALLER, canonical_labels, check_choice, run_on_host_once
from .multistep import multistep_labels

__all__ = ["connected_components", "afforest", "label_propagation", "serial_link", "symmetrised", "METHODS",
           "LABEL_PROPAGATION", "SERIAL_LINK"]

METHODS = ("auto", "afforest", "label_propagation")
NEIGHBOR_ROUNDS = 2  # Afforest: neighbours linked per vertex in the sampling phase (GAP's default)
NUM_SAMPLES = 1024  # SampleFrequentElement: random vertices drawn to find the giant component
SAMPLE_SEED = 27491095  # GAP's seed for the sampling generator
AFFOREST_TOPOLOGY = Strategy(drive="topology", frontier="bitmap")  # what the controllers run Afforest with

# ---------------------------------------------------------------------------------------------------- Afforest functors
# state = (offsets, indices, t_offsets, t_indices, comp, params); params = int64[3]: (r, c, directed)
#   r  the neighbour offset: the sampled neighbour in a sampling round, the first unsampled one in the final phase
#   c  the giant component's root (-1 before it is known)
# The functors are compiled with _nrt=False (they never allocate): otherwise numba reference-counts the state's arrays
# on every call of a functor with loops: atomics that the threads fight over (several times slower: docs/performance.md#kernels-without-reference-counting).
functor = numba.njit(nogil=True, _nrt=False)


@numba.njit(inline="always", nogil=True, _nrt=False)
def _link(u, v, comp):  # pragma: no cover - numba
    """GAP's Link: hook the higher of the two roots under the lower one (CAS), retrying from the grandparents."""
    p1 = comp[u]
    p2 = comp[v]
    while p1 != p2:
        high = p1 if p1 > p2 else p2
        low = p1 + (p2 - high)
        p_high = comp[high]
        if p_high == low:
            break
        if p_high == high and atomic_cas(comp, high, high, low) == high:
            break
        p1 = comp[comp[high]]
        p2 = comp[low]


@functor
def _link_sampled(u, state):  # pragma: no cover - numba
    offsets, indices, t_offsets, t_indices, comp, params = state
    k = offsets[u] + params[0]
    if k < offsets[u + 1]:
        _link(u, indices[k], comp)


@functor
def _compress(v, state):  # pragma: no cover - numba
    comp = state[4]
    while comp[v] != comp[comp[v]]:
        comp[v] = comp[comp[v]]


@functor
def _link_remaining(u, state):  # pragma: no cover - numba
    offsets, indices, t_offsets, t_indices, comp, params = state
    if comp[u] == params[1]:
        return
    for k in range(offsets[u] + params[0], offsets[u + 1]):
        _link(u, indices[k], comp)
    if params[2]:
        for k in range(t_offsets[u], t_offsets[u + 1]):
            _link(u, t_indices[k], comp)


@functor
def _outside_giant(v, state):  # pragma: no cover - numba
    return state[4][v] != state[5][1]


@functor
def _serial_link(driver, state):  # pragma: no cover - numba
    """Afforest's Link and Compress on one thread (no CAS, no sampling), for an undirected graph: every edge links its
    two ends' roots, the higher hooked under the lower, halving the path on each find (each edge once: the arc u -> w
    with w < u; w -> u mirrors it); then each vertex, in id order, takes its root's number. Every parent is a smaller
    id, so a root is its component's smallest vertex and the numbers 0..C-1 follow the smallest vertices (as
    `canonical_labels` numbers them). Runs once, whatever `driver` is."""
    offsets, indices, parent, label = state
    n = offsets.shape[0] - 1
    for v in range(n):
        parent[v] = v
    for u in range(n):
        for k in range(offsets[u], offsets[u + 1]):
            w = indices[k]
            if w >= u:
                continue
            a = u
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            b = w
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b
    count = 0
    for v in range(n):  # in id order: v's parent p < v is numbered already and points at its root by now
        p = parent[v]
        if p == v:
            label[v] = count
            count += 1
        else:
            label[v] = label[p]
            parent[v] = parent[p]


SERIAL_LINK = Functor("cc_serial_link", _serial_link)  # the CPU's one-thread pass: no CUDA version


def serial_link(be: Any, graph: Graph) -> Any:
    """An undirected graph's component numbers 0..C-1 (in order of each component's smallest vertex) by
    `_serial_link`, on the host: the backend's own label array on the CPU backend, a copy on another."""
    if graph.directed:
        raise GraphError("serial_link takes an undirected graph")
    n = graph.num_vertices
    label = np.empty(n, dtype=np.int64)
    run_on_host_once(SERIAL_LINK, (graph.offsets, graph.indices, np.empty(n, dtype=index_dtype(n)), label), n)
    return be.asarray(label)


# CUDA bodies (role "vertex": the vertex is `v`). Members follow the state tuple: offsets long long*, indices int*,
# t_offsets long long*, t_indices int*, comp int*, params long long* (comp is int32 like the GPU's indices). `hook` is
# GAP's Link, as `_link`; comp is read through a volatile pointer so that every retry sees other threads' hooks.
AFFOREST_STATE = ("offsets", "indices", "t_offsets", "t_indices", "comp", "params")
_HOOK_CUDA = """auto hook = [&](int a, int b) {
  volatile int* c = comp;
  int p1 = c[a];
  int p2 = c[b];
  while (p1 != p2) {
    const int high = p1 > p2 ? p1 : p2;
    const int low = p1 + (p2 - high);
    const int p_high = c[high];
    if (p_high == low) break;
    if (p_high == high && atomicCAS(comp + high, high, low) == high) break;
    p1 = c[c[high]];
    p2 = c[low];
  }
};
"""
LINK_SAMPLED = Functor(
    "afforest_link_sampled", _link_sampled,
    _HOOK_CUDA + "const long long k = offsets[v] + params[0];\nif (k < offsets[v + 1]) hook(v, indices[k]);",
    state=AFFOREST_STATE,
)
COMPRESS = Functor("afforest_compress", _compress,
                   "volatile int* c = comp;\nwhile (c[v] != c[c[v]]) c[v] = c[c[v]];", state=AFFOREST_STATE)
LINK_REMAINING = Functor(
    "afforest_link_remaining", _link_remaining,
    _HOOK_CUDA + "if (comp[v] == params[1]) return;\n"
    "for (long long k = offsets[v] + params[0]; k < offsets[v + 1]; ++k) hook(v, indices[k]);\n"
    "if (params[2]) for (long long k = t_offsets[v]; k < t_offsets[v + 1]; ++k) hook(v, t_indices[k]);",
    state=AFFOREST_STATE,
)
OUTSIDE_GIANT = Functor("afforest_outside_giant", _outside_giant, "return comp[v] != params[1];", state=AFFOREST_STATE)

# ------------------------------------------------------------------------------------------- label propagation program


@numba.njit(nogil=True)
def _lp_edge(message, weight, params):  # pragma: no cover - numba
    return message


@numba.njit(nogil=True)
def _lp_settled(value, params):  # pragma: no cover - numba
    return False  # a label can fall until the end: no vertex is settled


LABEL_PROPAGATION = VertexProgram(
    name="cc_label_propagation",
    kind="iterative",
    accumulate="min",
    compute=APPLY_SMALLER,
    edge=Functor("cc_edge", _lp_edge, "return message;"),
    settled=Functor("cc_settled", _lp_settled, "return false;"),
    monotone=True,
)

# What the GPU backend compiles for connected components (tests/cuda/test_cuda_sources.py builds each with nvcc): the
# state dtypes exactly as `afforest` passes them on the GPU (int32 vertex ids there).
_AFFOREST_DTYPES = (np.int64, np.int32, np.int64, np.int32, np.int32, np.int64)
CUDA_FUNCTORS = [
    (LINK_SAMPLED, "vertex", _AFFOREST_DTYPES, ()),
    (COMPRESS, "vertex", _AFFOREST_DTYPES, ()),
    (LINK_REMAINING, "vertex", _AFFOREST_DTYPES, ()),
    (OUTSIDE_GIANT, "vertex_predicate", _AFFOREST_DTYPES, ()),
]
CUDA_PROGRAMS = [LABEL_PROPAGATION]

# ---------------------------------------------------------------------------------------------------------- helpers

_SYMMETRISED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def symmetrised(graph: Graph) -> Graph:
    """The undirected graph with an edge {u, v} for every arc u -> v of `graph` (the graph itself when undirected);
    built once per graph and kept while the graph lives."""
    if not graph.directed:
        return graph
    cached = _SYMMETRISED.get(graph)
    if cached is None:
        n = graph.num_vertices
        src = np.repeat(np.arange(n, dtype=np.int64), graph.out_degree())
        cached = Graph.from_edges(src, graph.indices, num_vertices=n, directed=False, renumber=False,
                                  name=f"{graph.name} (symmetrised)" if graph.name else "")
        _SYMMETRISED[graph] = cached
    return cached


_PICKS: dict = {}


def _sample_frequent_element(be: Any, comp: Any, n: int) -> tuple[Any, Any]:
    """GAP's SampleFrequentElement: the most frequent root among NUM_SAMPLES random vertices (the smallest root on a
    tie) and its share, both 0-d arrays on the backend: counted there, all pairs of samples compared at once (a
    million comparisons, one launch), so nothing is read back before the final phase is queued."""
    key = (be.name, n)
    if key not in _PICKS:  # GAP's draws, on the backend once per graph size
        _PICKS[key] = be.asarray(np.random.default_rng(SAMPLE_SEED).integers(0, n, NUM_SAMPLES))
    xp = be.xp
    roots = comp[_PICKS[key]].astype(np.int64)
    counts = (roots[:, None] == roots[None, :]).sum(axis=1)
    best = xp.argmax(counts * (n + 1) + (n - roots))  # most frequent, then smallest
    return roots[best], counts[best] / NUM_SAMPLES


# ---------------------------------------------------------------------------------------------------------- Afforest


def _afforest_strategy(strategy: Any, graph: Graph) -> tuple[Strategy, str, str]:
    """(the Strategy Afforest runs with, the controller's name, why). The controllers' names need no graph statistics
    here (Afforest has one path), so they skip `make_controller`, whose auto/static tables compute `graph.stats()`."""
    if isinstance(strategy, str) and strategy in CONTROLLERS:
        return AFFOREST_TOPOLOGY, strategy, f"{strategy}: Afforest runs GAP's topology-driven loops"
    controller = make_controller(strategy, graph, "iterative")
    if isinstance(controller, FixedController):
        return controller.strategy, controller.name, controller.reason
    return AFFOREST_TOPOLOGY, controller.name, f"{controller.name}: Afforest runs GAP's topology-driven loops"


_LINK_DEGREES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _link_degrees(be: Any, G: Any, graph: Graph, t_offsets: Any, directed: bool) -> tuple[list[int], Any]:
    """Graph constants of Afforest's trace, computed once per graph and backend (they were six kernels per run):
    the vertices of degree > r for each sampling round r, and the arcs each vertex links in the final phase (its
    degree less the NEIGHBOR_ROUNDS sampled, plus its in-degree on a directed graph)."""
    per_graph = _LINK_DEGREES.setdefault(graph, {})
    if be.name not in per_graph:
        xp = be.xp
        degree = xp.maximum(G.out_degree - NEIGHBOR_ROUNDS, 0)
        if directed:
            degree = degree + (t_offsets[1:] - t_offsets[:-1])
        counts = be.to_host(xp.stack([xp.count_nonzero(G.out_degree > r) for r in range(NEIGHBOR_ROUNDS)]))
        per_graph[be.name] = ([int(c) for c in counts], degree)
    return per_graph[be.name]


def afforest(graph: Graph, *, backend: Any = "auto", strategy: Any = "auto") -> tuple[np.ndarray, Trace]:
    """comp[v] = smallest vertex id of v's weak component, by Afforest; and the trace (one row per phase)."""
    be = get_backend(backend)
    G = be.graph(graph)
    xp = be.xp
    n = graph.num_vertices
    base, controller_name, reason = _afforest_strategy(strategy, graph)
    trace = Trace(algorithm="cc_afforest", backend=be.name, controller=controller_name)
    topology = base.with_(drive="topology", frontier="bitmap", dedup="none")
    if n == 0:
        return xp.zeros(0, dtype=np.int64), trace
    directed = bool(graph.directed)
    t_offsets, t_indices, _ = G.csc() if directed else (G.offsets, G.indices, None)
    comp = xp.arange(n, dtype=G.indices.dtype)
    params = xp.asarray([0, -1, int(directed)], dtype=np.int64)
    state = (G.offsets, G.indices, t_offsets, t_indices, comp, params)

    def row(phase: str, s: Any, vertices: int, edges: int, seconds: float, why: str) -> None:
        trace.add(strategy=str(s), path=s.path, frontier_vertices=vertices, frontier_edges=edges, edges_processed=edges,
                  seconds=seconds, decision=s.path, reason=why, phase=phase)

    # sampling: link the r-th neighbour of every vertex, then compress. The trace's edge counts are graph constants
    # (cached) but for the final phase's; it and the giant component's root are device scalars, and the phases are
    # timed on the backend's timeline, all read when the trace is first read (the topology-driven run reads nothing)
    sampled_edges, link_degree = _link_degrees(be, G, graph, t_offsets, directed)
    timeline = be.timeline()
    timeline.mark()
    for r in range(NEIGHBOR_ROUNDS):
        params[0] = r
        be.for_each_vertex(None, LINK_SAMPLED, state, num_vertices=n)
        be.for_each_vertex(None, COMPRESS, state, num_vertices=n)
        timeline.mark()

    # the giant component, then the remaining edges of the vertices outside it
    c, share = _sample_frequent_element(be, comp, n)
    params[0] = NEIGHBOR_ROUNDS
    params[1] = c
    remaining = xp.where(comp != c, link_degree, 0).sum()  # the arcs the final phase links (an upper bound)
    filtered = ""
    if base.drive == "data":
        link = base.with_(frontier="vertex_queue") if base.frontier == "edge_queue" else base
        frontier = be.filter(Frontier.all_vertices(n, xp), OUTSIDE_GIANT, state)
        be.for_each_vertex(frontier, LINK_REMAINING, state, num_vertices=n)
        linked, filtered = frontier.size, " (filtered queue)"
    else:
        link, linked = topology, n
        be.for_each_vertex(None, LINK_REMAINING, state, num_vertices=n)
    timeline.mark()
    be.for_each_vertex(None, COMPRESS, state, num_vertices=n)
    timeline.mark()

    def rows() -> None:
        seconds = timeline.seconds()
        for r in range(NEIGHBOR_ROUNDS):
            row("sample", topology, n, sampled_edges[r], seconds[r], f"{reason}; link neighbour {r} of every vertex")
        why = f"component {int(c)} holds ~{float(share):.0%} of {NUM_SAMPLES} sampled vertices: skip it{filtered}"
        row("link", link, linked, int(remaining), seconds[-2], f"{reason}; {why}")
        row("compress", topology, n, 0, seconds[-1], f"{reason}; point every vertex at its root")

    trace.defer(rows, lambda: sum(timeline.seconds()))
    return comp, trace


# ---------------------------------------------------------------------------------------------------- label propagation


def label_propagation(graph: Graph, *, backend: Any = "auto",
                      strategy: Any = "auto") -> tuple[Any, Trace, Callable[[], None] | None]:
    """comp[v] = smallest vertex id of v's weak component, by min-label propagation; the program's trace; and, where
    the labels stay on the device unread, a check that raises if a device run failed (None otherwise)."""
    g = symmetrised(graph)
    n = g.num_vertices
    be = get_backend(backend)
    if programs_on_device(be, strategy):
        # Multistep: a flood from the pivot labels the giant component at once; the rest propagate (both on device)
        values, trace, check = multistep_labels(LABEL_PROPAGATION, g, be, strategy)
        return values.astype(np.int64), trace, check
    values = np.full(n, np.inf)
    buffers = np.arange(n, dtype=np.float64)
    run = run_program(LABEL_PROPAGATION, g, values, buffers, None, backend=be, strategy=strategy)
    return run.values.astype(np.int64), run.trace, None


# ---------------------------------------------------------------------------------------------------------- entry


def connected_components(graph: Graph, *, method: str = "auto", backend: Any = "auto",
                         strategy: Any = "auto") -> ComponentsResult:
    """Weakly connected components (a directed graph's arcs count in both directions): ``labels`` numbered 0..C-1 in
    order of each component's smallest vertex. ``method`` is "afforest" (the default, "auto") or "label_propagation"."""
    check_choice("method", method, METHODS)
    check_strategy(strategy)
    be = get_backend(backend)
    if method == "label_propagation":
        comp, trace, check = label_propagation(graph, backend=be, strategy=strategy)
    else:
        (comp, trace), check = afforest(graph, backend=be, strategy=strategy), None
    labels = canonical_labels(comp, roots=True)  # both methods label each vertex with its component's smallest id
    if check is not None:  # device runs read back (and a failure raised) when the labels are first read
        labels = Deferred(lambda labels=labels: (check(), labels)[1])
    return ComponentsResult(labels, trace=trace, graph=graph, seconds=Deferred(lambda: trace.seconds))

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

Both leave comp[v] = min vertex id of v's component; `numbering_steps` (_common) numbers the components 0..C-1 in
order of their smallest vertex, as SciPy does: a prefix count of the roots, run as four more steps of Afforest's own
step run (on the GPU the whole of Afforest, numbering included, is one launch), or as a run of their own after label
propagation.

Strategies (Afforest). Union-find with CAS linking is order-independent, so Afforest has one path; the Strategy's
``drive`` picks how the final link phase finds the vertices outside the giant component: ``topology`` walks every
vertex and the link functor skips those in c (GAP's loop), ``data`` first filters them into a vertex queue. Direction
and sync do not change Afforest (recorded in the trace). The controllers (auto/static/adaptive) run GAP's topology loop.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..backends.cpu.atomics import atomic_add, atomic_cas, atomic_max
from ..engine.controller import CONTROLLERS, FixedController, check_strategy, make_controller
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError
from ..frontier import Frontier
from ..functor import Functor
from ..graph.build import index_dtype
from ..graph.graph import Graph
from ..program import VertexProgram, nothing_to_check, programs_on_device, run_program
from ..results import ComponentsResult, Deferred
from ._common import (APPLY_SMALLER, CHUNK_PREFIX, CHUNK_SUMS, NUMBER_DTYPES, NUMBERING_STEPS, ROOT_NUMBER, ROOT_WORDS,
                      check_choice, numbered_components, numbering_steps, run_on_host_once)
from .multistep import multistep_labels

__all__ = ["connected_components", "afforest", "label_propagation", "serial_link", "symmetrised", "METHODS",
           "LABEL_PROPAGATION", "SERIAL_LINK"]

METHODS = ("auto", "afforest", "label_propagation")
NEIGHBOR_ROUNDS = 2  # Afforest: neighbours linked per vertex in the sampling phase (GAP's default)
NUM_SAMPLES = 1024  # SampleFrequentElement: random vertices drawn to find the giant component
SAMPLE_SEED = 27491095  # GAP's seed for the sampling generator
AFFOREST_TOPOLOGY = Strategy(drive="topology", frontier="bitmap")  # what the controllers run Afforest with

# ---------------------------------------------------------------------------------------------------- Afforest functors
# state = (offsets, indices, t_offsets, t_indices, comp, params); params = int64[PARAMS]: one row per phase
#   params[0]  r: the neighbour offset: the sampled neighbour in a sampling round, the first unsampled one in the final
#              phase
#   params[1]  1 on a directed graph (the final phase also links in-neighbours)
#   params[2]  SampleFrequentElement's key, count << 32 | (ROOT_BITS - root), the largest over the samples (0 before):
#              the most frequent root, then the smallest; the giant component's root c = ROOT_BITS - (key & 0xFFFFFFFF)
#   params[3:] the final phase's linked arcs, counted in ARC_SLOTS slots (v's in slot v % ARC_SLOTS: few threads meet
#              on one address) and summed when the trace is read
# The functors are compiled with _nrt=False (they never allocate): otherwise numba reference-counts the state's arrays
# on every call of a functor with loops: atomics that the threads fight over (several times slower: docs/performance.md#kernels-without-reference-counting).
functor = numba.njit(nogil=True, _nrt=False)
ARC_SLOTS = 64
PARAMS = 3 + ARC_SLOTS
ROOT_BITS = 0x7FFFFFFF  # vertex ids are below 2^31 (int32 on the GPU)


@numba.njit(inline="always", nogil=True, _nrt=False)
def _representative(v, comp):  # pragma: no cover - numba
    """v's root, shortening the path on the way: each vertex passed is pointed at its grandparent (Jaiganesh and
    Burtscher's intermediate pointer jumping, ECL-CC, SC'18). Every parent is a smaller id than its child, so the walk
    stops at the first vertex that is not larger than its parent; a parent read late is still an ancestor."""
    curr = np.int64(comp[v])  # int64 throughout: a loop's vertex may be unsigned, which numba unifies with int32 as float
    if curr != v:
        prev = np.int64(v)
        nxt = comp[curr]
        while curr > nxt:
            comp[prev] = nxt
            prev = curr
            curr = nxt
            nxt = comp[curr]
    return curr


@numba.njit(inline="always", nogil=True, _nrt=False)
def _link(u, v, comp):  # pragma: no cover - numba
    """Afforest's Link: hook the higher of the two roots under the lower one. As in GAP, the higher one is read
    before the CAS is tried (a root another thread hooked already costs a read, not an atomic that the threads of its
    tree would queue on); from a root hooked meanwhile the walk goes on from its new parent. The roots are found with
    intermediate pointer jumping (ECL-CC) rather than GAP's grandparent reads, so that a sampling round leaves short
    paths to compress (docs/performance.md#connected-components; benchmarks/afforest_passes.py)."""
    a = _representative(u, comp)
    b = _representative(v, comp)
    while a != b:
        high = max(a, b)
        low = min(a, b)
        seen = comp[high]
        if seen == high:
            seen = atomic_cas(comp, high, high, low)
            if seen == high:
                break
        if a == high:
            a = _representative(seen, comp)
        else:
            b = _representative(seen, comp)


@functor
def _link_sampled(u, state):  # pragma: no cover - numba
    offsets, indices, t_offsets, t_indices, comp, params = state
    k = offsets[u] + params[0]
    if k < offsets[u + 1]:
        _link(u, indices[k], comp)


@functor
def _start(v, state):  # pragma: no cover - numba
    # Afforest's first step: every vertex its own tree, and the call's final-phase row set from the graph's initial row
    # (its first PARAMS words; the last word is the vertex count, as v runs over max(n, PARAMS))
    comp, params, initial = state
    if v < initial[PARAMS]:
        comp[v] = v
    if v < PARAMS:
        params[v] = initial[v]


@functor
def _compress(v, state):  # pragma: no cover - numba
    comp = state[4]
    while comp[v] != comp[comp[v]]:
        comp[v] = comp[comp[v]]


@numba.njit(inline="always", nogil=True, _nrt=False)
def _giant_root(params):  # pragma: no cover - numba
    return ROOT_BITS - (params[2] & 0xFFFFFFFF)


@functor
def _link_remaining(u, state):  # pragma: no cover - numba
    offsets, indices, t_offsets, t_indices, comp, params = state
    if comp[u] == _giant_root(params):
        return
    first = offsets[u] + params[0]
    arcs = max(offsets[u + 1] - first, 0)
    for k in range(first, offsets[u + 1]):
        _link(u, indices[k], comp)
    if params[1]:
        arcs += t_offsets[u + 1] - t_offsets[u]
        for k in range(t_offsets[u], t_offsets[u + 1]):
            _link(u, t_indices[k], comp)
    if arcs:
        atomic_add(params, 3 + u % ARC_SLOTS, arcs)


@functor
def _outside_giant(v, state):  # pragma: no cover - numba
    return state[4][v] != _giant_root(state[5])


@functor
def _sample_roots(i, state):  # pragma: no cover - numba
    picks, comp, roots, params = state
    roots[i] = comp[picks[i]]


@functor
def _sample_frequent(i, state):  # pragma: no cover - numba
    # GAP's SampleFrequentElement, one thread per sample over the samples' roots (gathered by _sample_roots, so the
    # count reads one small array): the sample's root, how many samples share it, and the largest key
    # count << 32 | (ROOT_BITS - root) kept in params[2] (most frequent, then smallest root)
    picks, comp, roots, params = state
    root = roots[i]
    count = 0
    for j in range(roots.shape[0]):
        if roots[j] == root:
            count += 1
    atomic_max(params, 2, (count << 32) | (ROOT_BITS - root))


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
# `_link`, `representative` `_representative`. comp is read with plain (L1-cached) loads: a late read is still an
# ancestor, a root is only ever changed by the CAS, and Compress runs while no link does (the volatile reads of GAP's
# loop made every pass an L2 round trip per step: docs/performance.md#connected-components; benchmarks/afforest_passes.py).
AFFOREST_STATE = ("offsets", "indices", "t_offsets", "t_indices", "comp", "params")
_HOOK_CUDA = """auto representative = [&](int x) {
  int curr = comp[x];
  if (curr != x) {
    int prev = x, next;
    while (curr > (next = comp[curr])) { comp[prev] = next; prev = curr; curr = next; }
  }
  return curr;
};
auto hook = [&](int a, int b) {
  a = representative(a);
  b = representative(b);
  while (a != b) {
    const int high = a > b ? a : b, low = a < b ? a : b;
    int seen = comp[high];
    if (seen == high) {
      seen = atomicCAS(comp + high, high, low);
      if (seen == high) break;
    }
    if (a == high) a = representative(seen); else b = representative(seen);
  }
};
"""
LINK_SAMPLED = Functor(
    "afforest_link_sampled", _link_sampled,
    _HOOK_CUDA + "const long long k = offsets[v] + params[0];\nif (k < offsets[v + 1]) hook(v, indices[k]);",
    state=AFFOREST_STATE,
)
START_STATE = ("comp", "params", "initial")
START = Functor("afforest_start", _start,
                f"if (v < initial[{PARAMS}]) comp[v] = v;\nif (v < {PARAMS}) params[v] = initial[v];",
                state=START_STATE)
COMPRESS = Functor("afforest_compress", _compress, "while (comp[v] != comp[comp[v]]) comp[v] = comp[comp[v]];",
                   state=AFFOREST_STATE)
LINK_REMAINING = Functor(
    "afforest_link_remaining", _link_remaining,
    _HOOK_CUDA + f"if (comp[v] == {ROOT_BITS} - (params[2] & 0xFFFFFFFF)) return;  // in the giant component\n"
    "const long long first = offsets[v] + params[0];\n"
    "long long arcs = first < offsets[v + 1] ? offsets[v + 1] - first : 0;\n"
    "for (long long k = first; k < offsets[v + 1]; ++k) hook(v, indices[k]);\n"
    "if (params[1]) {\n"
    "  arcs += t_offsets[v + 1] - t_offsets[v];\n"
    "  for (long long k = t_offsets[v]; k < t_offsets[v + 1]; ++k) hook(v, t_indices[k]);\n"
    "}\n"
    f"if (arcs) atomicAdd((unsigned long long*)(params + 3 + v % {ARC_SLOTS}), (unsigned long long)arcs);",
    state=AFFOREST_STATE,
)
OUTSIDE_GIANT = Functor("afforest_outside_giant", _outside_giant,
                        f"return comp[v] != {ROOT_BITS} - (params[2] & 0xFFFFFFFF);", state=AFFOREST_STATE)
SAMPLE_STATE = ("picks", "comp", "roots", "params")
SAMPLE_ROOTS = Functor("afforest_sample_roots", _sample_roots, "roots[v] = comp[picks[v]];", state=SAMPLE_STATE)
# On the GPU each block first copies the samples' roots to shared memory, so the count reads them at shared-memory
# speed rather than one L2 round trip per 16 (benchmarks/afforest_passes.py's step times). Every thread of a block
# that counts calls the functor equally often (NUM_SAMPLES is a multiple of the block size), so the barrier is uniform.
SAMPLE_FREQUENT = Functor(
    "afforest_sample_frequent", _sample_frequent,
    f"__shared__ int shared_roots[{NUM_SAMPLES}];\n"
    f"for (int j = threadIdx.x; j < {NUM_SAMPLES}; j += blockDim.x) shared_roots[j] = roots[j];\n"
    "__syncthreads();\n"
    "const int root = roots[v];\nlong long count = 0;\n"
    f"#pragma unroll 16\nfor (int j = 0; j < {NUM_SAMPLES}; ++j) count += shared_roots[j] == root;\n"
    "__syncthreads();  // the next call's copy waits for this count\n"
    f"atomicMax(params + 2, (count << 32) | ({ROOT_BITS}LL - root));",
    state=SAMPLE_STATE,
)

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
    silent_leaves=True,
)

# What the GPU backend compiles for connected components (tests/cuda/test_cuda_sources.py builds each with nvcc): the
# state dtypes exactly as `afforest` passes them on the GPU (int32 vertex ids there).
_AFFOREST_DTYPES = (np.int64, np.int32, np.int64, np.int32, np.int32, np.int64)
CUDA_FUNCTORS = [
    (START, "vertex", (np.int32, np.int64, np.int64), ()),
    (LINK_SAMPLED, "vertex", _AFFOREST_DTYPES, ()),
    (COMPRESS, "vertex", _AFFOREST_DTYPES, ()),
    (LINK_REMAINING, "vertex", _AFFOREST_DTYPES, ()),
    (OUTSIDE_GIANT, "vertex_predicate", _AFFOREST_DTYPES, ()),
    *((f, "vertex", (np.int64, np.int32, np.int32, np.int64), ()) for f in (SAMPLE_ROOTS, SAMPLE_FREQUENT)),
    *((f, "vertex", (label,) + NUMBER_DTYPES, ()) for label in (np.int32, np.int64)  # numbering_steps
      for f in (ROOT_WORDS, CHUNK_SUMS, CHUNK_PREFIX, ROOT_NUMBER)),
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


_SAMPLED_EDGES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_WORKSPACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _Workspace:
    """What every Afforest run on one graph and backend reuses, made at the first run: the graph's arrays, the sampling
    rounds' parameter rows (r, directed: read only) and the final phase's initial row (its row as a run starts it,
    then the vertex count, for START), GAP's NUM_SAMPLES random picks and their roots' scratch, and for numbered runs
    the comp array, whose state tuples are made here once. A numbered run's comp does not outlive it (its numbers are
    the run's own array), and one thread's runs follow each other, so they share it (a workspace per host thread). A
    call then allocates only its final-phase row (the trace reads it later), its numbers (or its comp) and its step
    stamps, and a topology-driven run launches a plan made once per numbering (`step_plan`): each CuPy allocation, view
    or copy, and each launch argument packed, costs the host microseconds while the GPU waits
    (docs/performance.md#host-time-of-a-call)."""

    def __init__(self, be: Any, graph: Graph) -> None:
        G = be.graph(graph)
        xp, n = be.xp, graph.num_vertices
        t_offsets, t_indices, _ = G.csc() if graph.directed else (G.offsets, G.indices, None)
        self.arrays = (G.offsets, G.indices, t_offsets, t_indices)
        self.index_dtype = G.indices.dtype
        rows = np.zeros((NEIGHBOR_ROUNDS, PARAMS), dtype=np.int64)
        rows[:, 0] = np.arange(NEIGHBOR_ROUNDS)  # r: the sampled neighbour
        rows[:, 1] = int(graph.directed)
        initial = np.zeros(PARAMS + 1, dtype=np.int64)
        initial[:3] = NEIGHBOR_ROUNDS, int(graph.directed), 0  # the first unsampled neighbour; the key, counts 0
        initial[PARAMS] = n
        rows_on = be.asarray(rows)
        self.rows = [rows_on[r] for r in range(NEIGHBOR_ROUNDS)]
        self.initial = be.asarray(initial)
        self.picks = be.asarray(np.random.default_rng(SAMPLE_SEED).integers(0, n, NUM_SAMPLES))
        self.roots = xp.empty(NUM_SAMPLES, dtype=self.index_dtype)
        self.comp = xp.empty(n, dtype=self.index_dtype)
        self.sampling = self.rounds(self.comp)
        # the topology run's StepPlan by `numbered`, made at its first run (per run: its final row, and its numbers
        # or, unnumbered, its comp)
        self.plans: dict[bool, Any] = {}

    def rounds(self, comp: Any) -> list[tuple]:
        """The sampling rounds' states over `comp`."""
        return [self.arrays + (comp, row) for row in self.rows]


def _workspace(be: Any, graph: Graph) -> _Workspace:
    """The graph's workspace on `be` for this host thread (threads' runs may interleave; one thread's follow each
    other)."""
    per_graph = _WORKSPACES.setdefault(graph, {})
    key = (be.name, threading.get_ident())
    ws = per_graph.get(key)
    if ws is None:
        ws = per_graph[key] = _Workspace(be, graph)
    return ws


def _sampled_edges(graph: Graph) -> list[int]:
    """The trace's edge count of each sampling round r: the vertices of degree > r (a graph constant, kept)."""
    if graph not in _SAMPLED_EDGES:
        degree = graph.out_degree()
        _SAMPLED_EDGES[graph] = [int(np.count_nonzero(degree > r)) for r in range(NEIGHBOR_ROUNDS)]
    return _SAMPLED_EDGES[graph]


def _sampling_steps(ws: _Workspace, comp: Any, final: Any) -> tuple[list, tuple]:
    """(steps, final state): Afforest's start (every vertex its own tree, the call's final row set) and sampling
    rounds (link the r-th neighbour of every vertex, then compress), then SampleFrequentElement's pick of the giant
    component into `final`; and the final phase's state over comp and final."""
    n = int(comp.size)
    sampling = ws.sampling if comp is ws.comp else ws.rounds(comp)
    steps = [(START, (comp, final, ws.initial), max(n, PARAMS))]
    for r in range(NEIGHBOR_ROUNDS):
        steps += [(LINK_SAMPLED, sampling[r], n), (COMPRESS, sampling[r], n)]
    sample = (ws.picks, comp, ws.roots, final)
    steps += [(SAMPLE_ROOTS, sample, NUM_SAMPLES), (SAMPLE_FREQUENT, sample, NUM_SAMPLES)]
    return steps, ws.arrays + (comp, final)


def _final_steps(state: tuple, n: int) -> list:
    """GAP's final phase as whole-set steps: every vertex outside the giant component links its remaining arcs,
    then every vertex points at its root."""
    return [(LINK_REMAINING, state, n), (COMPRESS, state, n)]


def afforest(graph: Graph, *, backend: Any = "auto", strategy: Any = "auto",
             numbered: bool = False) -> tuple[Any, Trace, Callable[[], None]]:
    """comp[v] = smallest vertex id of v's weak component, by Afforest (``numbered``: the components numbered 0..C-1
    in order of their smallest vertex instead, by `numbering_steps` run after the final compress, their time in the
    compress row); the trace (one row per phase); and a check that raises where the device run failed.

    The phases are one sequence of steps (`run_steps`: on the GPU, one launch with a grid barrier between steps), with
    no host read: SampleFrequentElement leaves its pick in the final phase's parameters on the device, where the
    final link reads it, and the final link counts the arcs it links there too; the trace reads them, and the steps'
    times, when it is first read."""
    be = get_backend(backend)
    xp = be.xp
    n = graph.num_vertices
    base, controller_name, reason = _afforest_strategy(strategy, graph)
    trace = Trace(algorithm="cc_afforest", backend=be.name, controller=controller_name)
    topology = base.with_(drive="topology", frontier="bitmap", dedup="none")
    if n == 0:
        return xp.zeros(0, dtype=np.int64), trace, nothing_to_check
    ws = _workspace(be, graph)
    final = xp.empty(PARAMS, dtype=np.int64)  # this call's final-phase row, set by START: the trace reads it later
    filtered = ""
    # a numbered run's comp is the workspace's; an unnumbered run returns comp, so it gets its own
    comp = ws.comp if numbered else xp.empty(n, dtype=ws.index_dtype)
    if base.drive != "data":  # GAP's topology loop (the default): one launch, planned at the workspace's first run
        number = xp.empty(n, dtype=np.int64) if numbered else comp  # of this numbering; then this call's arrays
        plan = ws.plans.get(numbered)
        if plan is None:
            steps, state = _sampling_steps(ws, comp, final)
            numbering = numbering_steps(be, comp, number)[0] if numbered else []
            plan = ws.plans[numbered] = be.step_plan(steps + _final_steps(state, n) + numbering,
                                                     per_run=(final, number))
        runs = (plan.run(final, number),)
        checks = (runs[0].check,)
        link, linked = topology, n
    else:  # the vertices outside the giant component filtered into a queue first
        steps, state = _sampling_steps(ws, comp, final)
        numbering, number = numbering_steps(be, comp) if numbered else ([], comp)
        sampled = be.run_steps(steps)
        link = base.with_(frontier="vertex_queue") if base.frontier == "edge_queue" else base
        timeline = be.timeline()
        timeline.mark()
        frontier = be.filter(Frontier.all_vertices(n, xp), OUTSIDE_GIANT, state)
        be.for_each_vertex(frontier, LINK_REMAINING, state, num_vertices=n)
        timeline.mark()
        be.for_each_vertex(None, COMPRESS, state, num_vertices=n)
        timeline.mark()
        runs = (sampled, timeline) + ((be.run_steps(numbering),) if numbered else ())
        checks = (sampled.check, runs[-1].check)
        linked, filtered = frontier.size, " (filtered queue)"
    numbering_count = NUMBERING_STEPS if numbered else 0

    def seconds() -> list[float]:
        """Per phase: each sampling round (the first with the initialisation), the final link (with the sampling of
        the giant component), the final compress (with the numbering)."""
        t = [x for run in runs for x in run.seconds()]
        t, numbering_seconds = t[:len(t) - numbering_count], sum(t[len(t) - numbering_count:])
        sample = [t[0] + t[1] + t[2]] + [t[1 + 2 * r] + t[2 + 2 * r] for r in range(1, NEIGHBOR_ROUNDS)]
        return sample + [t[-4] + t[-3] + t[-2], t[-1] + numbering_seconds]

    def rows_of_trace() -> None:
        times = seconds()
        key, arcs = (int(x) for x in be.to_host(xp.stack([final[2], final[3:].sum()])))
        count, root = key >> 32, ROOT_BITS - (key & 0xFFFFFFFF)
        sampled = _sampled_edges(graph)
        for r in range(NEIGHBOR_ROUNDS):
            row("sample", topology, n, sampled[r], times[r], f"{reason}; link neighbour {r} of every vertex")
        why = f"component {root} holds ~{count / NUM_SAMPLES:.0%} of {NUM_SAMPLES} sampled vertices: skip it{filtered}"
        row("link", link, linked, arcs, times[-2], f"{reason}; {why}")
        row("compress", topology, n, 0, times[-1], f"{reason}; point every vertex at its root"
            + ("; number the components by their roots" if numbered else ""))

    def row(phase: str, s: Any, vertices: int, edges: int, seconds: float, why: str) -> None:
        trace.add(strategy=str(s), path=s.path, frontier_vertices=vertices, frontier_edges=edges, edges_processed=edges,
                  seconds=seconds, decision=s.path, reason=why, phase=phase)

    def check() -> None:
        for c in checks:
            c()

    trace.defer(rows_of_trace, lambda: sum(seconds()))
    return number, trace, check


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
    return run.state.value.astype(np.int64), run.trace, None  # on the backend, where numbered_components runs


# ---------------------------------------------------------------------------------------------------------- entry


def connected_components(graph: Graph, *, method: str = "auto", backend: Any = "auto",
                         strategy: Any = "auto") -> ComponentsResult:
    """Weakly connected components (a directed graph's arcs count in both directions): ``labels`` numbered 0..C-1 in
    order of each component's smallest vertex. ``method`` is "afforest" (the default, "auto") or "label_propagation"."""
    check_choice("method", method, METHODS)
    check_strategy(strategy)
    be = get_backend(backend)
    if method == "label_propagation":  # each vertex labelled by its component's smallest id, then numbered
        comp, trace, check = label_propagation(graph, backend=be, strategy=strategy)
        labels, numbered = numbered_components(be, comp)
        checks = [c for c in (check, numbered) if c is not None]
    else:  # Afforest numbers the components in its own step run
        labels, trace, check = afforest(graph, backend=be, strategy=strategy, numbered=True)
        checks = [check]
    # device runs read back (and a failure raised) when the labels are first read
    labels = Deferred(lambda labels=labels: ([c() for c in checks], labels)[1])
    return ComponentsResult(labels, trace=trace, graph=graph, seconds=Deferred(lambda: trace.seconds))

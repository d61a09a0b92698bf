"""Betweenness centrality by Brandes' algorithm: a shortest-path-counting BFS forward, dependencies accumulated back.

Method: U. Brandes, "A faster algorithm for betweenness centrality", J. Math. Sociol. 25(2), 2001. For a source s:

    ForwardPhase   level-synchronous BFS from s that counts shortest paths: sigma[v] = sum of sigma[u] over the
                   in-neighbours u one level up. Push: the frontier's out-edges claim unvisited vertices (atomic_cas on
                   the level array) and add sigma[u] (atomic_fadd). Pull: every unvisited vertex sums sigma over its
                   in-neighbours on the previous level (no atomics, no early exit: every parent counts). The traversal
                   controller (SEP-Graph Algorithm 2) picks push or pull per level; an async push drains the whole BFS
                   in one pass of the operator's FIFO worklist (FIFO order from one source is BFS order, so sigma[u]
                   is final when u is expanded).
    BackwardPhase  delta[u] = sum over out-neighbours v one level deeper of sigma[u] / sigma[v] * (1 + delta[v]),
                   deepest level first; bc[u] += delta[u]. After a level-synchronous forward phase, one gather per
                   level (LevelGather): each vertex of level d sums coef[v] = (1 + delta[v]) / sigma[v] over all its
                   out-neighbours and writes only its own entries (race-free). No level test is needed: coef lives in
                   two arrays by level parity, and an out-neighbour of level d lies on a level <= d + 1, so the array
                   of d + 1's parity holds d + 1's coefficients and zeros elsewhere (d - 1 is not done yet, d + 3 is
                   never adjacent). After an async forward phase (the controller's choice for high-diameter graphs),
                   one async pass over the reached vertices in reverse BFS order (Brandes' stack, drained by the same
                   FIFO worklist; each vertex's successors are final when it is reached) instead of one call per level.
                   On the GPU, whose async advance expands level after level in parallel (no FIFO order), the levels
                   are rebuilt from the level array (one sort) and LevelGather runs per level.

This is the single-source BC of SEP-Graph (Wang et al., PPoPP'19) and MultiGraph (Hong et al., PACT'17), whose metric is
2|E| / t per source; it runs for every source (exact BC), for k sampled sources, or for given sources.

Weighted graphs (``weight`` a name, networkx's weight="weight"): Brandes over Dijkstra's distances, in
betweenness_weighted.py (delta-stepping distances, the shortest-path DAG of tight arcs, path counts in Kahn's order,
the same LevelGather backward).

Semantics follow networkx.betweenness_centrality:
- ``weight=None`` (the default, as in networkx and cuGraph): shortest paths count hops and weights are ignored; a name
  on a weighted Graph means its weights (a Graph holds one weight array), on an unweighted one hops;
- parallel arcs (a graph built with duplicates="keep") count once, as in networkx, whose graphs have none; self-loops
  never lie on a shortest path;
- ``k``: sources = random.Random(seed).sample(vertices, k) exactly as networkx samples them, and networkx's rescaling
  for sampled sources (`_rescale`: sampled sources and the other vertices are scaled apart when endpoints=False, so
  k = 1 gives NaN at the sampled vertex, as in networkx); k == V is the exact computation;
- ``sources``: the exact sum over the given sources (user labels; repeats count again), scaled as networkx scales the
  exact computation, i.e. networkx.betweenness_centrality_subset(G, sources, targets=G, normalized) when
  endpoints=False. ``sources=[s], normalized=False`` is the papers' single-source BC: delta_s(v) on a directed graph,
  delta_s(v) / 2 on an undirected one (each unordered pair counted once). All vertices as sources give the exact BC.
- path counts past float64's range (a lattice more than ~1,000 hops across): networkx's float counts give NaN; here
  the run's non-finite sums send every source to a recount with wide-range counts (brandes_wide.py), exact values.
"""

from __future__ import annotations

import numbers
import random
import time
import weakref
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..backends.cpu.atomics import atomic_cas, atomic_fadd
from ..engine.controller import (
    CONTROLLERS,
    DEEP_LEVELS,
    Decision,
    IterationInfo,
    check_strategy,
    controller_name,
    learned_depth,
    make_controller,
    note_depth,
    parsed_once,
)
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError
from ..frontier import Frontier, one_vertex
from ..functor import Functor
from ..graph.graph import Graph, check_flag, described, shown
from ..operators import ACTIVATE
from ..results import BetweennessResult, Deferred
from ._common import check_weight, resolve_source
from .brandes import COEFFICIENT, GATHER, LEVEL_UPDATE

__all__ = ["betweenness_centrality"]


# ------------------------------------------------------------------------------------------------------- functors
# Functors index their state tuple in place (state[LEVEL][v]) rather than unpacking it: numba reference-counts every
# unpacked array and cannot drop the counts when branches follow, which made a per-vertex functor many times slower
# (docs/performance.md#kernels-without-reference-counting).
LEVEL, SIGMA, DEPTH = 0, 1, 2  # forward state: (level, sigma) for push, (level, sigma, depth) for pull
DELTA = 2  # reverse-order pass: (level, sigma, delta)
# what Brandes' device loop runs (backends/cuda/brandes.py), by the expansion its run reports: the forward levels
# pushed one lane per vertex, or by Slota's hierarchical expansion (team / warp / thread queues), each level behind a
# grid barrier inside the one launch
DEVICE_LOOP = Strategy(sync="async", direction="push", drive="data", frontier="vertex_queue", balance="vertex_group",
                       group_size=1)
DEVICE_LOOPS = {"thread": DEVICE_LOOP, "hierarchical": Strategy(sync="async", direction="push", drive="data",
                                                                frontier="vertex_queue", balance="hierarchical")}
A_DELTA, A_BC, A_ENDPOINT = 0, 1, 2  # (delta, bc, endpoint) of the final bc += delta


@numba.njit(nogil=True)
def _forward_push(u, v, w, state):  # pragma: no cover - numba
    """Push edge u -> v: claim v for level[u] + 1 if unvisited; add sigma[u] when v lies on that level."""
    next_level = state[LEVEL][u] + 1
    lv = state[LEVEL][v]
    claimed = False
    if lv == -1:
        lv = atomic_cas(state[LEVEL], v, -1, next_level)
        if lv == -1:
            claimed = True
            lv = next_level
    if lv == next_level:
        atomic_fadd(state[SIGMA], v, state[SIGMA][u])
    return claimed


@numba.njit(nogil=True)
def _forward_candidate(v, state):  # pragma: no cover - numba
    return state[LEVEL][v] == -1


@numba.njit(nogil=True)
def _forward_pull(v, u, w, state):  # pragma: no cover - numba
    """Unvisited v gathers sigma from in-neighbours on the current level (the guard keeps an async sweep or a
    topology-driven pull level-synchronous)."""
    if state[LEVEL][u] == state[DEPTH][0]:
        state[LEVEL][v] = state[DEPTH][0] + 1
        state[SIGMA][v] += state[SIGMA][u]
        return ACTIVATE
    return 0


@numba.njit(nogil=True)
def _dependency_push(u, v, w, state):  # pragma: no cover - numba
    """Edge u -> v of the reverse-BFS-order pass: a successor v (one level deeper, delta final) adds to delta[u]."""
    if state[LEVEL][v] == state[LEVEL][u] + 1:
        atomic_fadd(state[DELTA], u, state[SIGMA][u] / state[SIGMA][v] * (1.0 + state[DELTA][v]))
    return False


@numba.njit(nogil=True)
def _add_dependency(u, state):  # pragma: no cover - numba
    state[A_BC][u] += state[A_DELTA][u] + state[A_ENDPOINT][0]


# CUDA bodies: the state arrays are named as in the CPU functors' state tuples (one name per array, in tuple order);
# a scalar is a one-element array. Pull runs several lanes per candidate (group_size 4/16/32), so a pull functor that
# adds into v's entry adds atomically. On the GPU: level int32, sigma/delta/coef/bc/endpoint float64, the CSR offsets
# int64 and indices int32.
FORWARD_PUSH = Functor(
    "bc_forward_push", _forward_push,
    "const int nl = level[u] + 1; int lv = level[v]; bool claimed = false;"
    " if (lv == -1) { lv = atomicCAS(&level[v], -1, nl); if (lv == -1) { claimed = true; lv = nl; } }"
    " if (lv == nl) atomicAdd(&sigma[v], sigma[u]); return claimed;",
    state=("level", "sigma"),
)
FORWARD_CANDIDATE = Functor("bc_forward_candidate", _forward_candidate, "return level[v] == -1;",
                            state=("level", "sigma", "depth"))
FORWARD_PULL = Functor(
    "bc_forward_pull", _forward_pull,
    "if (level[u] == depth[0]) { level[v] = depth[0] + 1; atomicAdd(&sigma[v], sigma[u]); return GG_ACTIVATE; }"
    " return 0;",
    state=("level", "sigma", "depth"),
)
# the reverse-order pass runs on a backend whose async advance drains one FIFO worklist in order (the CPU); the GPU
# runs LevelGather instead (see _single_source). The CUDA bodies are right for a level-by-level use all the same.
DEPENDENCY_PUSH = Functor(
    "bc_dependency_push", _dependency_push,
    "if (level[v] == level[u] + 1) atomicAdd(&delta[u], sigma[u] / sigma[v] * (1.0 + delta[v])); return false;",
    state=("level", "sigma", "delta"),
)
ADD_DEPENDENCY = Functor("bc_add_dependency", _add_dependency, "bc[v] += delta[v] + endpoint[0];",
                         state=("delta", "bc", "endpoint"))

# what the GPU backend compiles (tests/cuda/test_cuda_sources.py compiles each with nvcc): (functor, role, state dtypes as
# the calls pass them on the GPU, extra roles)
_I64, _I32, _F64 = np.int64, np.int32, np.float64
CUDA_FUNCTORS = [
    (FORWARD_PUSH, "advance", (_I32, _F64), ()),
    (FORWARD_PULL, "pull", (_I32, _F64, _I32), (("GGC", ("vertex_predicate", FORWARD_CANDIDATE)),)),
    (COEFFICIENT, "reduce", (_F64,), ()),
    (LEVEL_UPDATE, "vertex", (_F64, _F64, _F64, _F64, _F64), ()),
    (DEPENDENCY_PUSH, "advance", (_I32, _F64, _F64), ()),
    (ADD_DEPENDENCY, "vertex", (_F64, _F64, _F64), ()),
]


# ------------------------------------------------------------------------------------------------------- helpers
_SIMPLE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _simple_view(graph: Graph) -> Graph:
    """The graph without parallel arcs (networkx counts a multi-edge once); the graph itself when it has none.
    Rows are sorted by target, so parallel arcs are neighbours in their row. Checked once per graph."""
    if graph in _SIMPLE:
        return _SIMPLE[graph] or graph
    offsets, indices = graph.offsets, graph.indices
    n, arcs = graph.num_vertices, graph.num_arcs
    simple = None
    if arcs > 1:
        repeat = indices[1:] == indices[:-1]
        starts = offsets[1:-1]
        starts = starts[(starts > 0) & (starts < arcs)]
        repeat[starts - 1] = False  # a row's first arc never repeats the previous row's last
        if repeat.any():
            keep = np.concatenate(([True], ~repeat))
            rows = np.repeat(np.arange(n), np.diff(offsets))
            counts = np.bincount(rows[keep], minlength=n)
            new_offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
            simple = Graph(new_offsets, indices[keep], None, directed=graph.directed, vertex_ids=graph.vertex_ids,
                           name=graph.name)
    _SIMPLE[graph] = simple
    return simple or graph


def _python_random(seed: Any) -> Any:
    """A random.Random as networkx's @py_random_state makes one (None: the global generator)."""
    if seed is None or seed is random:
        return random._inst  # type: ignore[attr-defined]
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, (bool, np.bool_)):
        raise GraphError(f"seed must be None, an int, a random.Random or a NumPy generator, got {described(seed)}")
    if isinstance(seed, numbers.Integral):
        return random.Random(int(seed))
    try:  # numpy generators: networkx wraps them; use its wrapper when networkx is there
        from networkx.utils import create_py_random_state
    except ImportError:  # pragma: no cover - networkx is a test dependency
        raise GraphError(f"seed must be None, an int or a random.Random, got {described(seed)}") from None
    try:
        return create_py_random_state(seed)
    except (TypeError, ValueError) as exc:
        raise GraphError(f"bad seed {shown(seed)}: {exc}") from None


def _choose_sources(graph: Graph, k: Any, seed: Any, sources: Any) -> tuple[list[int], np.ndarray | None]:
    """(internal source ids, the sampled ids for networkx's k-rescaling or None for an exact sum)."""
    n = graph.num_vertices
    rng = _python_random(seed)  # checked whether or not k samples with it
    if sources is not None:
        if k is not None:
            raise GraphError(f"give either k (sampled sources) or sources, not both (k={shown(k)}, "
                             f"sources={shown(sources)})")
        many = isinstance(sources, (list, tuple)) or not isinstance(sources, (str, bytes)) and np.ndim(sources) > 0
        labels = list(sources) if many else [sources]
        if not labels:
            raise GraphError(f"sources={shown(sources)} is empty: give at least one source vertex (or leave sources "
                             "None for all of them)")
        if n == 0:
            raise GraphError("the graph has no vertices, so it has no source vertex")
        return [resolve_source(graph, s, f"sources[{i}]") for i, s in enumerate(labels)], None
    if k is None:
        return list(range(n)), None
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise GraphError(f"k must be a whole number of sources, got {described(k)}")
    k = int(k)
    if k < 0 or k > n:
        raise GraphError(f"k = {k} sources cannot be sampled from {n} vertices (need 0 < k <= {n})")
    if k == n:  # networkx: the exact computation
        return list(range(n)), None
    if k == 0:
        raise GraphError("k = 0 samples no source; networkx's rescaling divides by k")
    sampled = rng.sample(range(n), k)  # = networkx's seed.sample(list(G.nodes()), k), by position
    return sampled, np.asarray(sampled, dtype=np.int64)


def _rescale(bc: Any, xp: Any, n: int, *, normalized: bool, directed: bool, endpoints: bool,
             sampled: np.ndarray | None) -> Any:
    """networkx.algorithms.centrality.betweenness._rescale, on an array."""
    k = None if sampled is None else len(sampled)
    pairs_end = n if endpoints else n - 1  # networkx's N
    if pairs_end < 2:
        return bc
    k_source = pairs_end if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (k_source * (pairs_end - 1)) if normalized else pairs_end / (k_source * correction)
        return bc * scale if scale != 1 else bc
    if normalized:
        scale_source = 1 / ((k_source - 1) * (pairs_end - 1)) if k_source > 1 else np.nan
        scale_other = 1 / (k_source * (pairs_end - 1))
    else:
        scale_source = pairs_end / ((k_source - 1) * correction) if k_source > 1 else np.nan
        scale_other = pairs_end / (k_source * correction)
    is_source = xp.zeros(n, dtype=bool)
    is_source[xp.asarray(sampled)] = True
    return xp.where(is_source, bc * scale_source, bc * scale_other)


# ------------------------------------------------------------------------------------------------------- Brandes
def _single_source(be: Any, G: Any, graph: Graph, s: int, arrays: tuple, trace: Trace, strategy: Any,
                   deep_exit: bool = False) -> int | None:
    """Forward and backward phase from source s, adding s's dependencies to bc. Returns the vertices reached.

    A level-synchronous forward phase records its depth (note_depth), as the device's traversals do, so that auto
    later takes the graph for high-diameter (learned_depth). With `deep_exit` (auto, on a backend with Brandes'
    device loop) a forward phase that reaches DEEP_LEVELS levels on a graph without hubs stops there and returns None,
    bc untouched: the caller runs this source and the rest in the device loop (SEP-Graph's delta test misses a deep
    graph of higher average degree, whose host-driven levels each pay a launch and a read, both ways)."""
    xp = be.xp
    level, sigma, delta, coef, bc, depth, endpoint = arrays
    n, num_arcs = G.num_vertices, G.num_arcs
    level.fill(-1)
    sigma.fill(0.0)
    level[s] = 0
    sigma[s] = 1.0
    controller = make_controller(strategy, graph, "traversal", async_order=be.capabilities.async_order)
    frontier = Frontier.from_vertices(one_vertex(xp, s), n)
    levels = [frontier]
    level_edges = []  # out-edges of each level's frontier (the controller's count, kept for the backward trace)
    ran_async = None
    d = 0
    while frontier.size:  # ForwardPhase
        info = IterationInfo(d, frontier.size, frontier.out_edges(G.out_degree), n, num_arcs)
        level_edges.append(info.frontier_edges)
        decision = controller.choose(info)
        st = decision.strategy
        start = time.perf_counter()
        if st.direction == "pull":
            depth[0] = d
            source = None if st.drive == "topology" else frontier
            nxt = be.pull(G, source, FORWARD_PULL, st, (level, sigma, depth), FORWARD_CANDIDATE)
            edges = num_arcs
        else:
            nxt = be.advance(G, frontier, FORWARD_PUSH, st, (level, sigma))
            edges = info.frontier_edges
        seconds = time.perf_counter() - start
        controller.observe(decision, info, seconds)
        trace.add(strategy=str(st), path=st.path, frontier_vertices=info.frontier_vertices,
                  frontier_edges=info.frontier_edges, edges_processed=int(edges), seconds=seconds,
                  decision=decision.decision, reason=decision.reason, phase="forward")
        if st.sync == "async":
            ran_async = st.with_(direction="push", frontier="vertex_queue", drive="data")
        frontier = nxt.to_sparse()
        if frontier.size:
            levels.append(frontier)
        d += 1
        if deep_exit and d == DEEP_LEVELS and ran_async is None:
            note_depth(graph, d)
            if learned_depth(graph):
                return None
    if ran_async is None:
        note_depth(graph, d)
    else:
        # a backend whose async advance drains one FIFO worklist in order (the CPU's) leaves a reverse-BFS-order queue
        # that is Brandes' stack; one that runs level by level in parallel (the GPU's) gets LevelGather per level
        if be.capabilities.async_order == "fifo":
            return 1 + _reverse_order_pass(be, G, ran_async, arrays, trace)
        levels, level_edges = _levels_from_array(be, G, level, levels[0])
    coef_parity = (coef, delta)  # two coefficient arrays by level parity (delta's storage serves as the second)
    coef.fill(0.0)
    delta.fill(0.0)
    acc = xp.empty(n, dtype=np.float64)  # each level vertex's sum of successor coefficients
    for d in range(len(levels) - 1, 0, -1):  # BackwardPhase, LevelGather per level
        f = levels[d]
        out_edges = level_edges[d]
        start = time.perf_counter()
        be.neighbor_reduce(G, COEFFICIENT, (coef_parity[(d + 1) % 2],), "sum", "out", out=acc, vertices=f)
        be.for_each_vertex(f, LEVEL_UPDATE, (acc, sigma, coef_parity[d % 2], bc, endpoint))
        trace.add(strategy=str(GATHER), path=GATHER.path, frontier_vertices=f.size, frontier_edges=out_edges,
                  edges_processed=out_edges, seconds=time.perf_counter() - start, decision="gather",
                  reason=f"level {d}: each vertex sums its successors' coefficients (race-free)", phase="backward")
    return sum(f.size for f in levels)


def _levels_from_array(be: Any, G: Any, level: Any, source: Frontier) -> tuple[list[Frontier], list[int]]:
    """The BFS levels as frontiers [source, level 1, level 2, ...] and their out-edge counts, rebuilt from the level
    array (after an async forward phase, which returns no per-level frontiers): one sort by level and one host read
    of the per-level sizes and out-edges."""
    xp = be.xp
    n = source.num_vertices
    reached = xp.flatnonzero(level > 0)
    source_edges = source.out_edges(G.out_degree)
    if reached.size == 0:
        return [source], [source_edges]
    depth = level[reached]
    order = reached[xp.argsort(depth)]
    counts = xp.stack([xp.bincount(depth), xp.bincount(depth, weights=G.out_degree[reached])])
    sizes, edges = be.to_host(counts).astype(np.int64)  # sizes[0] == 0: the source is not among `reached`
    ends = np.cumsum(sizes).tolist()
    levels = [source] + [Frontier.from_vertices(order[ends[d - 1]:ends[d]], n) for d in range(1, len(ends))]
    return levels, [source_edges] + edges[1:].tolist()


def _reverse_order_pass(be: Any, G: Any, st: Strategy, arrays: tuple, trace: Trace) -> int:
    """The backward phase after an async forward phase: the reached vertices in reverse BFS order through one async
    advance (the FIFO worklist keeps the order), then bc += delta. Returns the vertices reached besides s."""
    xp = be.xp
    level, sigma, delta, coef, bc, depth, endpoint = arrays
    n = G.num_vertices
    reached = xp.flatnonzero(level > 0)
    order = Frontier.from_vertices(reached[xp.argsort(-level[reached], kind="stable")], n)
    delta.fill(0.0)
    out_edges = order.out_edges(G.out_degree)
    start = time.perf_counter()
    be.advance(G, order, DEPENDENCY_PUSH, st, (level, sigma, delta))
    be.for_each_vertex(order, ADD_DEPENDENCY, (delta, bc, endpoint))
    if not bool(xp.isfinite(sigma[reached]).all()):  # a count past float64's range: sigma[u] / inf = 0 lost the
        bc[reached[0]] = np.nan  # paths silently here (LevelGather makes NaN of it), so mark bc for the recount
    trace.add(strategy=str(st), path=st.path, frontier_vertices=order.size, frontier_edges=out_edges,
              edges_processed=out_edges, seconds=time.perf_counter() - start, decision="reverse-order",
              reason="async forward phase: one pass over the reached vertices in reverse BFS order (Brandes' stack)",
              phase="backward")
    return order.size


def betweenness_centrality(graph: Graph, *, k: Any = None, normalized: bool = True, weight: str | None = None,
                           endpoints: bool = False, seed: Any = None, sources: Any = None, backend: Any = "auto",
                           strategy: Any = "auto") -> BetweennessResult:
    """Brandes betweenness centrality as networkx.betweenness_centrality defines it; see the module notes for k, seed,
    sources, normalized, endpoints and weight (None: hops; a name: the graph's weights, betweenness_weighted.py).
    ``.centrality`` is float64 per internal vertex id."""
    normalized = check_flag("normalized", normalized)
    endpoints = check_flag("endpoints", endpoints)
    check_weight(weight)
    ids, sampled = _choose_sources(graph, k, seed, sources)
    check_strategy(strategy)
    be = get_backend(backend)
    strategy = parsed_once(strategy)  # not once per source
    if weight is not None and graph.weighted:
        return _weighted(be, graph, ids, sampled, normalized, endpoints, strategy)
    xp = be.xp
    n = graph.num_vertices
    G = be.graph(_simple_view(graph))
    level = xp.full(n, -1, dtype=np.int32)
    sigma = xp.zeros(n, dtype=np.float64)
    delta = xp.zeros(n, dtype=np.float64)
    coef = xp.zeros(n, dtype=np.float64)
    bc = xp.zeros(n, dtype=np.float64)
    depth = xp.zeros(1, dtype=np.int32)
    endpoint = xp.asarray([1.0 if endpoints else 0.0])
    arrays = (level, sigma, delta, coef, bc, depth, endpoint)
    trace = Trace(algorithm="betweenness_centrality", backend=be.name,
                  controller=controller_name(strategy))
    automatic = isinstance(strategy, str) and strategy in CONTROLLERS  # a caller's own Strategy runs as given
    one_pass = be.capabilities.brandes_loop and automatic
    first = _one_pass_decision(graph, ids, strategy, be.capabilities) if one_pass else None
    done = 0  # sources whose dependencies the host-driven levels added
    overflowed = None  # known past float64's range after the first source (None: not looked at yet)
    while first is None and done < len(ids):
        s = ids[done]
        reached = _single_source(be, G, graph, s, arrays, trace, strategy, deep_exit=one_pass)
        if reached is None:  # the forward phase found the graph deep: this source and the rest in the device loop
            first = _one_pass_decision(graph, ids, strategy, be.capabilities)
            one_pass = first is not None  # (it is: the depth just learned makes the first decision one async pass)
            continue
        if endpoints:
            bc[s] += reached - 1
        done += 1
        if _overflowed_early(xp, bc, done, len(ids)):
            overflowed = True
            break
    rescale = {"normalized": normalized, "directed": graph.directed, "endpoints": endpoints, "sampled": sampled}
    if first is not None and done < len(ids):  # Brandes' whole loop on the device, one launch per source, read
        run = be.brandes(G, ids[done:], bc, endpoints)  # back when the result or the trace is first read
        counted: list = []

        def summed() -> Any:  # the run's sums, recounted where they overflowed: once, whichever is read first
            if not counted:
                run.check()
                _ = trace.rows  # the device's rows first (their fill calls back here and counts)
            if not counted:
                # the device loop flags an overflow in its log (no read of its own) where it ran every source
                counted.append(_recount_if_overflowed(be, _simple_view(graph), ids, bc, trace, weighted=False,
                                                      endpoints=endpoints, flagged=run.overflowed() if done == 0 else None))
            return counted[0]

        trace.defer(lambda: (_device_rows(run, trace, first), summed()), run.seconds)
        return BetweennessResult(Deferred(lambda: _rescale(summed(), xp, n, **rescale)), trace=trace, graph=graph,
                                 seconds=Deferred(lambda: (summed(), trace.seconds)[1]))
    bc = _recount_if_overflowed(be, _simple_view(graph), ids, bc, trace, weighted=False, endpoints=endpoints,
                                flagged=overflowed)
    bc = _rescale(bc, xp, n, **rescale)
    # a GPU run's centrality stays on the device until read (the result copies it on first access)
    return BetweennessResult(bc, trace=trace, graph=graph, seconds=trace.seconds)


def _one_pass_decision(graph: Graph, ids: list[int], strategy: Any, capabilities: Any) -> Any:
    """The decision to run Brandes' whole loop on the device (a backend with capabilities.brandes_loop): a graph of at
    most capabilities.brandes_loop_arcs arcs, whatever its depth (its host-driven levels would cost more), else the
    controller's first decision where it is one async push-dd pass (a high-diameter graph: SEP-Graph's delta test, or
    the depth an earlier traversal of `graph` learned); None otherwise (the host drives the levels)."""
    if not ids:
        return None
    if graph.num_arcs <= capabilities.brandes_loop_arcs:
        return Decision(DEVICE_LOOP, "push", f"{graph.num_arcs:,} arcs, at most the {capabilities.brandes_loop_arcs:,} "
                        "that run the device loop whatever the depth (host-driven levels would cost more)")
    s = ids[0]
    info = IterationInfo(0, 1, int(graph.offsets[s + 1] - graph.offsets[s]), graph.num_vertices, graph.num_arcs)
    decision = make_controller(strategy, graph, "traversal", async_order=capabilities.async_order).choose(info)
    st = decision.strategy
    return decision if (st.sync, st.direction, st.drive) == ("async", "push", "data") else None


def _device_rows(run: Any, trace: Trace, first: Any) -> None:
    """The trace rows of a device run (backends/cuda/brandes.py) from its log: per source, one row per level of the
    forward phase, then one per level of the backward phase, each with the time between its barriers."""
    st = DEVICE_LOOPS[run.expansion]
    level_edges: dict[int, int] = {}
    for phase, level, vertices, edges, seconds in run.levels():
        if phase == "start":
            level_edges.clear()
        elif phase == "forward":
            level_edges[level] = edges
            reason = (f"{first.reason}; Brandes' forward and backward phases in one persistent launch"
                      if level == 0 else f"level {level}: on the device (no host read)")
            trace.add(strategy=str(st), path=st.path, frontier_vertices=vertices, frontier_edges=edges,
                      edges_processed=edges, seconds=seconds, decision="push", reason=reason, phase="forward")
        else:
            edges = level_edges.get(level, 0)
            trace.add(strategy=str(GATHER), path=GATHER.path, frontier_vertices=vertices, frontier_edges=edges,
                      edges_processed=edges, seconds=seconds, decision="gather",
                      reason=f"level {level}: each vertex sums its successors' coefficients (on the device)",
                      phase="backward")
    if run.unlogged():
        trace.add(strategy=str(GATHER), path=GATHER.path, frontier_vertices=0, frontier_edges=0, edges_processed=0,
                  seconds=0.0, decision="gather", reason=f"{run.unlogged():,} more levels ran on the device (past "
                  "the log's rows; their time is not counted)", phase="backward")


def _overflowed_early(xp: Any, bc: Any, done: int, total: int) -> bool:
    """Whether, after the first of several sources, the summed dependencies already hold inf or NaN (the path counts
    passed float64's range): then every source goes to the recount at once instead of after the rest's levels. One
    reduction and read, after the first source only."""
    return done == 1 < total and not bool(xp.isfinite(bc).all())


def _recount_if_overflowed(be: Any, view: Graph, ids: list[int], bc: Any, trace: Trace, *, weighted: bool,
                           endpoints: bool, flagged: bool | None = None) -> Any:
    """bc (the summed dependencies, before rescaling) as it is when every entry is finite; else every source recounted
    on the host with wide-range path counts (brandes_wide.py): a shortest-path count past float64's range (a lattice
    more than ~1,000 hops across) leaves NaN or inf in bc on every path, where networkx leaves NaN. One reduction and
    one read per call, unless `flagged` says already (Brandes' device loop flags it in the log it reads back; the
    host loops after their first source, _overflowed_early)."""
    overflowed = bool(flagged) if flagged is not None else not bool(be.xp.isfinite(bc).all())
    if not overflowed:
        return bc
    from .brandes_wide import wide_brandes

    start = time.perf_counter()
    counted = be.xp.asarray(wide_brandes(view, ids, weighted=weighted, endpoints=endpoints))
    trace.add(strategy="wide-brandes", path="host", frontier_vertices=len(ids), frontier_edges=view.num_arcs,
              edges_processed=view.num_arcs * len(ids), seconds=time.perf_counter() - start, decision="recount",
              reason="shortest-path counts passed float64's range (1.8e308): every source recounted on the host with "
                     "a binary exponent per count (brandes_wide.py)", phase="backward")
    return counted


def _weighted(be: Any, graph: Graph, ids: list[int], sampled: np.ndarray | None, normalized: bool, endpoints: bool,
              strategy: Any) -> BetweennessResult:
    """Weighted BC over the given sources (betweenness_weighted.py), rescaled as networkx rescales."""
    from .betweenness_weighted import dag_strategy, dag_view, weighted_single_source

    xp = be.xp
    n = graph.num_vertices
    view = dag_view(graph)
    G = be.graph(view)
    sigma, count, coef, acc, bc = (xp.zeros(n, dtype=np.float64) for _ in range(5))
    pending = xp.zeros(n, dtype=np.int32)  # int32: the GPU's atomicSub
    endpoint = xp.asarray([1.0 if endpoints else 0.0])
    source = xp.zeros(1, dtype=np.int32)
    arrays = (sigma, pending, count, coef, acc, bc, endpoint, source)
    trace = Trace(algorithm="betweenness_centrality", backend=be.name,
                  controller=controller_name(strategy))
    push = dag_strategy(strategy, view)
    overflowed = None
    for done, s in enumerate(ids, 1):
        reached = weighted_single_source(be, G, view, s, arrays, trace, strategy, push)
        if endpoints:
            bc[s] += reached - 1
        if _overflowed_early(xp, bc, done, len(ids)):
            overflowed = True
            break
    bc = _recount_if_overflowed(be, view, ids, bc, trace, weighted=True, endpoints=endpoints, flagged=overflowed)
    bc = _rescale(bc, xp, n, normalized=normalized, directed=graph.directed, endpoints=endpoints, sampled=sampled)
    return BetweennessResult(bc, trace=trace, graph=graph, seconds=trace.seconds)

"""Breadth-first search as a vertex program: top-down (push), bottom-up (pull) and direction-optimising.

Method: level-synchronous BFS (Beamer, Asanovic, Patterson, "Direction-Optimizing Breadth-First Search", SC'12) in
SEP-Graph's vertex-program form (Wang et al., PPoPP'19): the value is the distance, an edge adds 1, the buffer keeps the
minimum. Push (top-down) expands the frontier's out-edges; pull (bottom-up) lets every unvisited vertex look for a parent
among its in-neighbours and stop at the first one found (early exit). The `auto` controller switches between them by
SEP-Graph Algorithm 2. Predecessors are recovered afterwards by one pull pass (the smallest-id parent at distance - 1).

On a high-diameter graph (SEP-Graph's delta test) the controller runs one async push-dd pass. A backend whose async
advance drains one FIFO worklist on one thread (the CPU's; engine.controller.fifo_pass) runs that pass as a serial
BFS: FIFO order from one source is BFS order, so a vertex's first distance is final, and the pass records the BFS
tree as it goes (`FIFO_VISIT`: every arc from level d - 1 into a vertex of level d offers its tail, the smallest id
stays), the same tree as the pull pass. Thousands of levels cost no parallel loop each, and no pull pass follows
(benchmarks/cpu_vs_scipy.py, docs/performance.md).
"""

from __future__ import annotations

import time
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..engine.controller import IterationInfo, check_strategy, fifo_pass, make_controller
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError
from ..frontier import Frontier, one_vertex
from ..functor import Functor, cpu_functor
from ..graph.graph import described
from ..graph.layout import LAYOUTS, device_layout
from ..program import VertexProgram, run_program
from ..results import BFSResult, Deferred
from ._common import APPLY_SMALLER, check_choice, predecessors_from_distances, resolve_source


@numba.njit(nogil=True)
def _edge(message, weight, params):  # pragma: no cover - numba
    return message + 1.0


@numba.njit(nogil=True)
def _settled(value, params):  # pragma: no cover - numba
    return value < np.inf


BFS_PROGRAM = VertexProgram(
    name="bfs",
    kind="traversal",
    accumulate="min",
    compute=APPLY_SMALLER,
    edge=Functor("bfs_edge", _edge, "return message + 1;"),
    settled=Functor("bfs_settled", _settled, "return value < GG_INF;"),
    first_wins=True,
    monotone=True,
    silent_leaves=True,
)


@numba.njit(nogil=True)
def _apply_within(value, buffer, degree, params):  # pragma: no cover - numba
    # params[0]: the depth limit. A distance past it is never taken, and a vertex at the limit sends nothing
    if buffer < value and buffer <= params[0]:
        return buffer, buffer, buffer, buffer < params[0]
    return value, buffer, value, False


# BFS with a depth limit (networkx's depth_limit): vertices farther than params[0] hops stay unreached. Monotone like
# BFS_PROGRAM: a longer path's distance past the limit is refused, and a shorter one found later still improves it.
BFS_WITHIN = VertexProgram(
    name="bfs",
    kind="traversal",
    accumulate="min",
    compute=Functor("bfs_apply_within", _apply_within,
                    "if (buffer < value && buffer <= params[0]) { value = buffer; message = value;"
                    " send = value < params[0]; }"),
    edge=BFS_PROGRAM.edge,
    settled=BFS_PROGRAM.settled,
    first_wins=True,
    monotone=True,
    silent_leaves=True,
)

PULL_PASS = Strategy(direction="pull", frontier="bitmap")


@cpu_functor
def _fifo_visit(u, v, w, state):  # pragma: no cover - numba
    # state: (dist int64, pred int64, limit int64[1]); one thread drains the FIFO, so plain stores suffice
    d = state[0][u] + 1
    if state[0][v] < 0:
        if d > state[2][0]:  # u lies at the depth limit: it expands nothing
            return False
        state[0][v] = d
        state[1][v] = u
        return True
    if state[0][v] == d and u < state[1][v]:  # another parent one level up: the smallest id stays
        state[1][v] = u
    return False


# Only a backend whose async advance is one FIFO worklist on one thread runs this functor (fifo_pass): it assumes BFS
# order and plain stores, so it has no CUDA body.
FIFO_VISIT = Functor("bfs_fifo_visit", _fifo_visit, state=("dist", "pred", "limit"))


def bfs(graph: Any, source: Any, *, depth_limit: int | None = None, backend: Any = "auto", strategy: Any = "auto",
        layout: str = "auto") -> BFSResult:
    """Hop distances and a BFS tree from `source` (a vertex id, or a label of a renumbered graph).

    ``distances`` is int64 with -1 for unreachable vertices; ``predecessors`` holds each vertex's parent (-1 for the
    source and unreachable vertices). ``strategy="direction=push"`` is top-down BFS, ``"direction=pull"`` bottom-up,
    ``"auto"`` direction-optimising. The predecessors are computed when first read (one pull pass over the
    distances: the smallest-id parent one level up), so a caller who needs only distances does not pay for them.
    ``layout`` "degree" runs the traversal on the graph renumbered by degree (MultiGraph; graph/layout.py): a warp's
    vertices have alike degrees and the hubs' bits and values share cache lines; "in_degree_groups" on the graph
    renumbered by MultiGraph's six in-degree groups (its Table 1); "given" on the ids as they are;
    "auto" picks degree for a large power-law graph on the GPU. The distances are mapped back, and the predecessors
    are found on the given ids, so the answer does not depend on the layout. ``depth_limit`` (networkx's): vertices
    farther than that many hops from the source are unreached (-1); None searches the whole graph.
    """
    s = resolve_source(graph, source)
    limit = check_depth_limit(depth_limit)
    check_choice("layout", layout, LAYOUTS)
    check_strategy(strategy)
    be = get_backend(backend)
    renumbering, _, note = device_layout(be, graph, layout, auto=be.capabilities.degree_layout)
    if renumbering is None and be.capabilities.async_order == "fifo":
        controller = make_controller(strategy, graph, "traversal", monotone=True,
                                     async_order=be.capabilities.async_order)
        info = IterationInfo(0, 1, int(graph.offsets[s + 1] - graph.offsets[s]), graph.num_vertices, graph.num_arcs)
        serial = fifo_pass(controller.choose(info), be.capabilities.async_order)
        if serial is not None:
            return _fifo_bfs(be, graph, s, limit, serial, info, controller.name)
    traversed = graph if renumbering is None else renumbering.graph
    r = s if renumbering is None else int(renumbering.rank[s])
    if limit is None:
        run = run_program(BFS_PROGRAM, traversed, source=r, backend=be, strategy=strategy, lazy=True)
    else:
        run = run_program(BFS_WITHIN, traversed, source=r, params=(float(limit),), backend=be, strategy=strategy,
                          lazy=True)
        note += f"; depth limit {limit}"
    run.trace.controller += note
    value = run.state.value
    # unreachable (inf) -> -1, mapped back to the given ids in the same launch; queued behind the traversal
    hops = be.hop_counts(value, None if renumbering is None else renumbering.index("rank", value))
    # a GPU traversal is read back when a result is first read (run.check: the host need not wait for the kernel);
    # the BFS tree is derived from the distances by one pull pass over the given ids, when first read (results.Deferred)
    distances = Deferred(lambda: run.checked(hops))
    pred = Deferred(lambda: predecessors_from_distances(
        be, be.graph(graph), PULL_PASS, run.checked(value if renumbering is None else renumbering.to_original(value)),
        s, unit_weights=True))
    return BFSResult(distances, pred, trace=run.trace, graph=graph, seconds=Deferred(lambda: run.trace.seconds))


def _fifo_bfs(be: Any, graph: Any, s: int, limit: int | None, decision: Any, info: IterationInfo,
              controller: str) -> BFSResult:
    """SEP-Graph's async push-dd pass on a FIFO backend: distances and the BFS tree in one serial pass (module
    notes)."""
    xp, n = be.xp, graph.num_vertices
    G = be.graph(graph)
    start = time.perf_counter()
    dist = xp.full(n, -1, dtype=np.int64)
    pred = xp.full(n, -1, dtype=np.int64)
    dist[s] = 0
    state = (dist, pred, one_vertex(xp, n if limit is None else limit))
    be.advance(G, Frontier.from_vertices(one_vertex(xp, s), n), FIFO_VISIT, decision.strategy, state)
    seconds = time.perf_counter() - start
    trace = Trace(algorithm="bfs", backend=be.name,
                  controller=controller + ("" if limit is None else f"; depth limit {limit}"))
    st = decision.strategy
    trace.add(strategy=str(st), path=st.path, frontier_vertices=info.frontier_vertices,
              frontier_edges=info.frontier_edges, edges_processed=info.frontier_edges, seconds=seconds,
              decision=decision.decision, reason=decision.reason + "; the BFS tree is recorded in the same pass")
    return BFSResult(dist, pred, trace=trace, graph=graph, seconds=seconds)


def check_depth_limit(depth_limit: Any) -> int | None:
    """The depth limit as an int (None: no limit); a GraphError naming anything but a whole number >= 0."""
    if depth_limit is None:
        return None
    if isinstance(depth_limit, (bool, np.bool_)) or not isinstance(depth_limit, (int, np.integer)) or depth_limit < 0:
        raise GraphError(f"depth_limit must be None or a whole number >= 0, got {described(depth_limit)}")
    return int(depth_limit)

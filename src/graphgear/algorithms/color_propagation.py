"""Color propagation: max-label propagation until nothing changes.

Method: Slota, Rajamanickam, Madduri, "High-performance Graph Analytics on Manycore Processors" (IPDPS'15; seeds/003),
Algorithm 2 (the coloring step of Multistep SCC). colors[v] = v to start and every vertex is active; each iteration
every active vertex u pushes its color to the out-neighbours v with a smaller color (colors[v] = max(colors[v],
colors[u])), and the vertices whose color grew form the next work set (as the paper's text says; its pseudocode's
"add u to S_i+1" is a slip); it stops when no color changes. At the end colors[v] is the largest vertex id that reaches
v along edges (v itself included); on an undirected graph, the largest id of v's component.

Paths (one per iteration, chosen by the controller; the answer is the same on every path, because max is monotone and
idempotent and a vertex whose color grows is always active again):

    push  be.advance over the active vertices' out-edges; the functor raises colors[v] with atomic_max on the int64
          colors array and activates v when it grew. sync: one parallel pass per iteration; async: one FIFO worklist
          drained to the fixed point on one thread (Slota's loop with the work set updated in place).
    pull  be.pull: every vertex takes the largest color of its active in-neighbours (all of them, topology-driven);
          no atomics, each vertex writes only its own color. async: one Gauss-Seidel sweep in id order.
    drive data: the active vertices only; topology: every vertex works every iteration.

Controller kind: "iterative" (SEP-Graph Algorithm 1: time the candidates sync-pull-td, async-push-td, async-push-dd,
then run the one predicted fastest). Color propagation is label propagation: there is no source, every vertex starts
active, and a vertex can be re-activated many times as larger colors arrive. Algorithm 2's bookkeeping (E' = edges not
yet explored, decreased by each push round) assumes a traversal that explores each edge about once, which does not
hold here: its first all-vertex round would exhaust E' and pin it to pull until the work set is small.

Trace: one row per iteration; ``frontier_edges`` is outDegree(active), ``edges_processed`` the edges the operator
looked at (out-edges of the pushing vertices; in-edges of every vertex for pull; for async push, the first wave only,
since the drained worklist is not counted).
"""

from __future__ import annotations

import time
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..backends.cpu.atomics import atomic_max
from ..engine.controller import IterationInfo, check_strategy, make_controller
from ..engine.trace import Trace
from ..frontier import Frontier
from ..functor import Functor, cpu_functor
from ..graph.graph import Graph
from ..operators import ACTIVATE
from ..program import VertexProgram, programs_on_device
from ..results import ColorResult, Deferred
from .multistep import multistep_labels

__all__ = ["color_propagation", "PUSH_COLOR", "PULL_COLOR"]

# state = (colors,) with colors int64[V]. Functors never allocate: _nrt=False spares a reference count per call.
functor = numba.njit(nogil=True, _nrt=False)


@functor
def _push_color(u, v, w, state):  # pragma: no cover - numba
    colors = state[0]
    c = colors[u]
    if colors[v] >= c:  # cheap test before the atomic
        return False
    return atomic_max(colors, v, c) < c


@functor
def _pull_color(v, u, w, state):  # pragma: no cover - numba
    colors = state[0]
    c = colors[u]
    if c > colors[v]:
        colors[v] = c
        return ACTIVATE
    return 0


@functor
def _every_vertex(v, state):  # pragma: no cover - numba
    return True


# CUDA bodies: colors is long long* (int64). Pull raises colors[v] with atomicMax as well: on the GPU several lanes
# (vertex_group pull) scan one vertex's in-edges at once, and a plain store could overwrite a larger color with a
# smaller one while the larger one's source is no longer active.
PUSH_COLOR = Functor("color_push", _push_color,
                     "const long long c = colors[u]; return colors[v] < c && atomicMax(&colors[v], c) < c;",
                     state=("colors",))
PULL_COLOR = Functor("color_pull", _pull_color,
                     "const long long c = colors[u]; "
                     "if (c > colors[v] && atomicMax(&colors[v], c) < c) return GG_ACTIVATE; return 0;",
                     state=("colors",))
EVERY_VERTEX = Functor("every_vertex", _every_vertex, "return true;", state=("colors",))

@cpu_functor
def _apply_larger(value, buffer, degree, params):  # pragma: no cover - numba
    if buffer > value:
        return buffer, buffer, buffer, True
    return value, buffer, value, False


@numba.njit(nogil=True)
def _color_edge(message, weight, params):  # pragma: no cover - numba
    return message


@numba.njit(nogil=True)
def _never_settled(value, params):  # pragma: no cover - numba
    return False  # a color can grow until the end


# Color propagation as a vertex program (values float64: vertex ids are exact below 2^53): a larger buffer becomes the
# color and is sent on. Monotone (max only moves up), so a backend that runs such programs whole on the device
# (capabilities.device_programs) runs it to its fixed point in one persistent launch (program.run_program).
COLOR_PROGRAM = VertexProgram(
    name="color_propagation",
    kind="iterative",
    accumulate="max",
    compute=Functor("apply_larger", _apply_larger,
                    "if (buffer > value) { value = buffer; message = value; send = true; }"),
    edge=Functor("color_edge", _color_edge, "return message;"),
    settled=Functor("color_settled", _never_settled, "return false;"),
    monotone=True,
    silent_leaves=True,
)
CUDA_PROGRAMS = [COLOR_PROGRAM]

# What the GPU backend compiles for color propagation (tests/cuda/test_cuda_sources.py builds each with nvcc).
CUDA_FUNCTORS = [
    (PUSH_COLOR, "advance", (np.int64,), ()),
    (PULL_COLOR, "pull", (np.int64,), (("GGC", ("vertex_predicate", EVERY_VERTEX)),)),
]


def color_propagation(graph: Graph, *, backend: Any = "auto", strategy: Any = "auto") -> ColorResult:
    """colors[v] = the largest vertex id that reaches v along edges (int64), by Slota et al.'s color propagation."""
    check_strategy(strategy)
    be = get_backend(backend)
    if programs_on_device(be, strategy):
        return _on_device(be, graph, strategy)
    G = be.graph(graph)
    xp = be.xp
    n = graph.num_vertices
    controller = make_controller(strategy, graph, "iterative")
    trace = Trace(algorithm="color_propagation", backend=be.name, controller=controller.name)
    colors = xp.arange(n, dtype=np.int64)
    state = (colors,)
    frontier = Frontier.all_vertices(n, xp)
    iteration = 0
    while frontier.size:
        info = IterationInfo(iteration, frontier.size, frontier.out_edges(G.out_degree), n, graph.num_arcs)
        decision = controller.choose(info)
        s = decision.strategy
        start = time.perf_counter()
        topology = s.drive == "topology"
        if s.direction == "push":
            sources = Frontier.all_vertices(n, xp) if topology else frontier
            edges = graph.num_arcs if topology else info.frontier_edges
            frontier = be.advance(G, sources, PUSH_COLOR, s, state)
        else:
            frontier = be.pull(G, None if topology else frontier, PULL_COLOR, s, state, EVERY_VERTEX)
            edges = graph.num_arcs
        seconds = time.perf_counter() - start
        controller.observe(decision, info, seconds)
        trace.add(strategy=str(s), path=s.path, frontier_vertices=info.frontier_vertices,
                  frontier_edges=info.frontier_edges, edges_processed=int(edges), seconds=seconds,
                  decision=decision.decision, reason=decision.reason)
        iteration += 1
    return ColorResult(colors, trace=trace, graph=graph, seconds=trace.seconds)  # a GPU result copies on first read


def _on_device(be: Any, graph: Graph, strategy: str) -> ColorResult:
    """COLOR_PROGRAM from every vertex, run whole on the device as Multistep runs it (multistep.multistep_labels: a flood
    from one pivot, then SEP-Graph's Algorithm 2 over the vertices it did not reach, each in one persistent launch);
    the colors are read back, and a failed launch raises, when first read."""
    values, trace, check = multistep_labels(COLOR_PROGRAM, graph, be, strategy)
    colors = Deferred(lambda: (check(), values.astype(np.int64))[1])
    return ColorResult(colors, trace=trace, graph=graph, seconds=Deferred(lambda: trace.seconds))

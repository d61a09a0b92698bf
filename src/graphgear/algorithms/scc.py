"""Strongly connected components by Multistep: trim, forward-backward from one pivot, then coloring.

Method: G. M. Slota, S. Rajamanickam, K. Madduri, "BFS and Coloring-based Parallel Algorithms for Strongly Connected
Components and Related Problems", IPDPS'14 (seeds/003 runs it on manycore processors with one loop template):

    Trim         a vertex with no remaining in-neighbour or no remaining out-neighbour (self-loops aside) is an SCC of
                 its own; remove it. One round is one pass over every remaining vertex, which looks for an alive
                 in-neighbour and an alive out-neighbour and stops at the first (early exit); a vertex removed is
                 removed at once, so a later vertex of the same pass sees it gone (a removed vertex is an SCC of its
                 own, on no cycle, so removing it early is as correct as removing it a round later). Rounds repeat
                 while a round removes at least 1% of the remaining vertices (at least one round, at most
                 TRIM_ROUNDS): one `run_steps` loop, whose rule is decided where the counts are (on the GPU inside the
                 launch, nothing read back).
    FW-BW        pivot = the remaining vertex with the largest in-degree x out-degree (it most likely lies in the giant
                 SCC); BFS forward over out-edges and backward over in-edges, both restricted to remaining vertices;
                 the vertices reached both ways form the pivot's SCC.
    Coloring     while more than TARJAN_CUTOFF vertices remain: every remaining vertex takes its id as color;
                 max-color propagation forward (restricted to remaining vertices) until nothing changes, so color[v] =
                 the largest id that reaches v; each root (color[v] == v) does a backward BFS restricted to vertices of
                 its color: the vertices reached are the root's SCC. Each round removes at least the SCC of the largest
                 remaining id, but a graph whose ids grow along its paths (a citation graph) can take many rounds.
    Tarjan       the small remainder, as Multistep does, by Tarjan's serial algorithm (R. Tarjan, "Depth-first search
                 and linear graph algorithms", SIAM J. Comput. 1972) over the remaining vertices: one numba task run
                 through the CPU backend's for_each_vertex on a one-vertex frontier - the documented exception to
                 "everything is a parallel operator". On the GPU backend this serial step runs on the host, as in
                 Multistep: the alive and label arrays come to the host and go back after it. TARJAN_CUTOFF is
                 100,000 vertices (our choice; on 2 CPU cores serial Tarjan beats coloring rounds on such
                 remainders); 0 colors to the end.

Every traversal here is one operator: max-label propagation restricted to remaining vertices of one group
(PROPAGATE_PUSH / PROPAGATE_PULL, an early exit once a label reaches its cap). A BFS is propagation of the label 1 from
its sources (cap 1: bottom-up early exit); coloring is propagation of the ids (no cap); the coloring's backward BFS uses
the colors as groups. BFS phases run under the traversal controller (SEP-Graph Algorithm 2), color propagation under
the iterative controller (Algorithm 1). Backward steps run on the reverse graph (the CSC as a CSR, built once per graph
and cached); an undirected graph is its own reverse, and its SCCs are its connected components. Labels are numbered
0..C-1 in order of each component's smallest vertex.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..backends.base import Repeat
from ..backends.cpu.atomics import atomic_add, atomic_max
from ..engine.controller import Controller, IterationInfo, check_strategy, fifo_pass, make_controller, parsed_once
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..frontier import Frontier, one_vertex
from ..functor import Functor, cpu_functor
from ..graph.build import index_dtype
from ..graph.graph import Graph
from ..operators import ACTIVATE, STOP
from ..results import ComponentsResult, Deferred
from ._common import append_trace, canonical_labels, numbered_components, run_on_host_once
from .connected_components import serial_link
from .multistep import reach

__all__ = ["strongly_connected_components"]

TRIM_AGAIN = 0.01  # another trim round while the last one removed at least this fraction of the remaining vertices
TRIM_ROUNDS = 64  # at most this many trim rounds (the length of the device's per-round log); coloring takes the rest
TARJAN_CUTOFF = 100_000  # coloring rounds while more vertices than this remain, then serial Tarjan on the rest


# ------------------------------------------------------------------------------------------------------- functors
# Functors index their state tuple in place (state[VALUE][v]) rather than unpacking it: numba reference-counts every
# unpacked array and cannot drop the counts when branches follow, which made a per-vertex functor many times slower
# (docs/performance.md#kernels-without-reference-counting).
VALUE, ALIVE_, GROUP, CAP = 0, 1, 2, 3  # propagation state: (value, alive, group, cap)
TRIM_STATE = ("out_offsets", "out_indices", "in_offsets", "in_indices", "alive", "label", "tally")
T_ROUND, T_LEFT, T_LOG = 0, 1, 2  # tally: the round, the vertices left before it, each round's removals from T_LOG on
S_FORWARD, S_BACKWARD, S_ALIVE, S_LABEL, S_COLOR = 0, 1, 2, 3, 4  # settle state


@numba.njit(nogil=True)
def _propagate_push(u, v, w, state):  # pragma: no cover - numba
    """Offer u's label to v when v remains and is in u's group; v activates when its label grew."""
    x = state[VALUE][u]
    if state[ALIVE_][v] != 0 and state[GROUP][v] == state[GROUP][u] and state[VALUE][v] < x:
        return atomic_max(state[VALUE], v, x) < x
    return False


@numba.njit(nogil=True)
def _propagate_candidate(v, state):  # pragma: no cover - numba
    return state[ALIVE_][v] != 0 and state[VALUE][v] < state[CAP][0]


@numba.njit(nogil=True)
def _propagate_pull(v, u, w, state):  # pragma: no cover - numba
    """v takes a larger label from a remaining in-neighbour of its group; stop once v's label reaches the cap."""
    x = state[VALUE][u]
    if state[ALIVE_][u] != 0 and state[GROUP][u] == state[GROUP][v] and x > state[VALUE][v]:
        state[VALUE][v] = x
        return ACTIVATE | STOP if x >= state[CAP][0] else ACTIVATE
    return 0


@cpu_functor
def _trim_pass(v, state):  # pragma: no cover - numba
    """Trim v (its own SCC) where it lacks a remaining in- or out-neighbour other than itself; count it in this
    round's slot of the tally."""
    out_offsets, out_indices, in_offsets, in_indices, alive, label, tally = state
    if alive[v] == 0:
        return
    for k in range(in_offsets[v], in_offsets[v + 1]):
        u = in_indices[k]
        if u != v and alive[u] != 0:
            for j in range(out_offsets[v], out_offsets[v + 1]):
                w = out_indices[j]
                if w != v and alive[w] != 0:
                    return
            break
    alive[v] = 0
    label[v] = v
    atomic_add(tally, T_LOG + tally[T_ROUND], 1)


@cpu_functor
def _trim_tally(i, state):  # pragma: no cover - numba
    """After a round (one thread): the vertices left, and the next round's slot."""
    tally = state[6]
    tally[T_LEFT] -= tally[T_LOG + tally[T_ROUND]]
    tally[T_ROUND] += 1


@cpu_functor
def _trim_again(r, state):  # pragma: no cover - numba
    """Another round while round r removed at least TRIM_AGAIN of the vertices it started with, and some are left."""
    tally = state[6]
    removed = tally[T_LOG + r]
    return tally[T_LEFT] > 0 and removed >= 1 and removed >= TRIM_AGAIN * (tally[T_LEFT] + removed)


@cpu_functor
def _remaining_ids(v, state):  # pragma: no cover - numba
    if state[0][v] != 0:
        slot = atomic_add(state[1], 0, 1)
        if slot < state[2][0]:
            state[1][1 + slot] = v


@numba.njit(nogil=True)
def _settle(v, state):  # pragma: no cover - numba
    """Vertices reached forward and backward join the SCC named by color[v]; then reset the marks and give every
    remaining vertex its own id as color for the next coloring round."""
    if state[S_FORWARD][v] != 0 and state[S_BACKWARD][v] != 0:
        state[S_LABEL][v] = state[S_COLOR][v]
        state[S_ALIVE][v] = 0
    state[S_FORWARD][v] = 0
    state[S_BACKWARD][v] = 0
    state[S_COLOR][v] = v if state[S_ALIVE][v] != 0 else -1


@numba.njit(nogil=True)
def _tarjan(driver, state):  # pragma: no cover - numba
    """Tarjan's algorithm in Pearce's form (PEA_FIND_SCC2: one index per vertex, no low-link or on-stack arrays),
    iterative, over the remaining vertices and the arcs between them. Each SCC is labelled by its smallest vertex, or
    (whole[0] != 0: every vertex remains) numbered 0..C-1 in order of its smallest vertex. Runs once, whatever
    `driver` is.

    rindex[v] is v's DFS index while v is open, then the id of its SCC: the ids count down from n - 1, and `index`
    falls by one for each vertex given an id, so a finished SCC's id exceeds every open vertex's index and needs no
    on-stack test. `calls`, `position` and `root` hold the DFS path: each path vertex, its next arc, and whether it
    still roots its SCC; after a child returns, its parent reads that arc again and takes the child's rindex if it is
    smaller. The stack of finished non-roots names the SCCs' first vertices at the end. `vertices`: the remaining
    vertices in increasing order (unread when every vertex remains), so a small remainder costs no pass over all n."""
    offsets, indices, alive, label, rindex, root, stack, calls, position, whole, vertices = state
    everything = whole[0] != 0
    n = offsets.shape[0] - 1
    count = n if everything else vertices.shape[0]
    index = 1
    c = n - 1
    top = 0
    for i in range(count):
        r = i if everything else vertices[i]
        if rindex[r] != 0:
            continue
        rindex[r] = index
        index += 1
        root[0] = 1
        calls[0] = r
        position[0] = offsets[r]
        depth = 0
        while depth >= 0:
            v = calls[depth]
            k = position[depth]
            end = offsets[v + 1]
            low = rindex[v]
            is_root = root[depth]
            descended = False
            while k < end:
                w = indices[k]
                if everything or alive[w] != 0:
                    low_w = rindex[w]
                    if low_w == 0:  # tree arc: visit w; v goes on from this arc when w is done
                        position[depth] = k
                        rindex[v] = low
                        root[depth] = is_root
                        depth += 1
                        calls[depth] = w
                        position[depth] = offsets[w]
                        rindex[w] = index
                        index += 1
                        root[depth] = 1
                        descended = True
                        break
                    if low_w < low:
                        low = low_w
                        is_root = 0
                k += 1
            if descended:
                continue
            if is_root != 0:  # v roots an SCC: v and the stack's vertices above it, by index
                index -= 1
                while top > 0 and low <= rindex[stack[top - 1]]:
                    top -= 1
                    rindex[stack[top]] = c
                    index -= 1
                rindex[v] = c
                c -= 1
            else:
                rindex[v] = low
                stack[top] = v
                top += 1
            depth -= 1
    first = stack  # empty now: the first vertex (or number) of each SCC id c + 1 .. n - 1
    first[c + 1:] = -1
    numbered = 0
    for i in range(count):  # name each SCC after its smallest vertex (the first of it in id order), or number them so
        v = i if everything else vertices[i]
        if first[rindex[v]] < 0:
            first[rindex[v]] = numbered if everything else v
            numbered += 1
        label[v] = first[rindex[v]]
        if not everything:
            alive[v] = 0


# CUDA bodies: the state arrays are named as in the CPU functors' state tuples (one name per array, in tuple order);
# a scalar is a one-element array. On the GPU: value/group/label/color/forward/backward/tally int64, alive int8, the
# offsets int64 and the indices int32. Pull runs several lanes per candidate (group_size 4/16/32), so PROPAGATE_PULL raises
# value[v] with atomicMax (a plain store could let a smaller label overwrite a larger one of another lane).
PROPAGATE_PUSH = Functor(
    "scc_propagate_push", _propagate_push,
    "const long long x = value[u];"
    " if (alive[v] != 0 && group[v] == group[u] && value[v] < x) return atomicMax(&value[v], x) < x;"
    " return false;",
    state=("value", "alive", "group", "cap"),
)
PROPAGATE_CANDIDATE = Functor("scc_propagate_candidate", _propagate_candidate,
                              "return alive[v] != 0 && value[v] < cap[0];", state=("value", "alive", "group", "cap"))
PROPAGATE_PULL = Functor(
    "scc_propagate_pull", _propagate_pull,
    "const long long x = value[u];"
    " if (alive[u] != 0 && group[u] == group[v] && x > value[v] && atomicMax(&value[v], x) < x)"
    " return x >= cap[0] ? (GG_ACTIVATE | GG_STOP) : GG_ACTIVATE;"
    " return 0;",
    state=("value", "alive", "group", "cap"),
)
# Trim counts its removals once per warp (a ballot, one atomic add): on rmat:21:16 the first round removes over a
# million vertices, and one counter taking an atomic from each would serialise them.
TRIM_PASS = Functor(
    "scc_trim_pass", _trim_pass,
    "bool drop = false;\n"
    "if (alive[v] != 0) {\n"
    "  drop = true;\n"
    "  for (long long k = in_offsets[v]; k < in_offsets[v + 1]; ++k) {\n"
    "    const long long u = in_indices[k];\n"
    "    if (u != v && alive[u] != 0) {\n"
    "      for (long long j = out_offsets[v]; j < out_offsets[v + 1]; ++j) {\n"
    "        const long long w = out_indices[j];\n"
    "        if (w != v && alive[w] != 0) { drop = false; break; }\n"
    "      }\n"
    "      break;\n"
    "    }\n"
    "  }\n"
    "  if (drop) { alive[v] = 0; label[v] = v; }\n"
    "}\n"
    "const unsigned lanes = __activemask(), dropped = __ballot_sync(lanes, drop);\n"
    "if (dropped && (threadIdx.x & 31) == __ffs(lanes) - 1)\n"
    f"  atomicAdd((unsigned long long*)(tally + {T_LOG} + tally[{T_ROUND}]), (unsigned long long)__popc(dropped));",
    state=TRIM_STATE,
)
TRIM_TALLY = Functor("scc_trim_tally", _trim_tally,
                     f"tally[{T_LEFT}] -= tally[{T_LOG} + tally[{T_ROUND}]]; tally[{T_ROUND}] += 1;", state=TRIM_STATE)
TRIM_AGAIN_RULE = Functor(
    "scc_trim_again", _trim_again,
    f"const long long removed = tally[{T_LOG} + v];\n"
    f"return tally[{T_LEFT}] > 0 && removed >= 1 && removed >= {TRIM_AGAIN!r} * (double)(tally[{T_LEFT}] + removed);",
    state=TRIM_STATE,
)
# The vertices that remain after FW-BW, gathered on the device into found[1..cap] (found[0] counts them all), so the
# call's one host read is a short list rather than the whole alive array; slots are taken once per warp (a ballot)
REMAINING_IDS = Functor(
    "scc_remaining_ids", _remaining_ids,
    "const bool keep = alive[v] != 0;\n"
    "const unsigned lanes = __activemask(), ballot = __ballot_sync(lanes, keep);\n"
    "if (ballot) {\n"
    "  const int lane = threadIdx.x & 31, leader = __ffs(lanes) - 1;\n"
    "  unsigned long long base = 0;\n"
    "  if (lane == leader) base = atomicAdd((unsigned long long*)found, (unsigned long long)__popc(ballot));\n"
    "  base = __shfl_sync(lanes, base, leader);\n"
    "  const long long slot = (long long)base + __popc(ballot & ((1u << lane) - 1u));\n"
    "  if (keep && slot < cap[0]) found[1 + slot] = v;\n"
    "}",
    state=("alive", "found", "cap"),
)
# serial Tarjan has no CUDA version: on the GPU backend the remainder goes to the host (see _Run.tarjan)
TARJAN = Functor("scc_tarjan", _tarjan)
SETTLE = Functor(
    "scc_settle", _settle,
    "if (forward[v] != 0 && backward[v] != 0) { label[v] = color[v]; alive[v] = 0; }"
    " forward[v] = 0; backward[v] = 0; color[v] = alive[v] != 0 ? (long long)v : -1LL;",
    state=("forward", "backward", "alive", "label", "color"),
)

# what the GPU backend compiles (tests/cuda/test_cuda_sources.py compiles each with nvcc): (functor, role, state dtypes as
# the calls pass them on the GPU, extra roles)
_I64, _I8 = np.int64, np.int8
CUDA_FUNCTORS = [
    *((f, role, (_I64, np.int32, _I64, np.int32, _I8, _I64, _I64), ())
      for f, role in ((TRIM_PASS, "vertex"), (TRIM_TALLY, "vertex"), (TRIM_AGAIN_RULE, "vertex_predicate"))),
    (PROPAGATE_PUSH, "advance", (_I64, _I8, _I64, _I64), ()),
    (PROPAGATE_PULL, "pull", (_I64, _I8, _I64, _I64), (("GGC", ("vertex_predicate", PROPAGATE_CANDIDATE)),)),
    (SETTLE, "vertex", (_I64, _I64, _I8, _I64, _I64), ()),
    (REMAINING_IDS, "vertex", (_I8, _I64, _I64), ()),
]


# ------------------------------------------------------------------------------------------------------- helpers
_REVERSE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_BOTH_WAYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _reverse_view(graph: Graph) -> Graph:
    """The reverse graph (every arc turned round): its CSR is the graph's CSC. Built once per graph."""
    if not graph.directed:
        return graph
    reverse = _REVERSE.get(graph)
    if reverse is None:
        offsets, indices, _ = graph.csc()
        reverse = _REVERSE[graph] = Graph(offsets, indices, None, directed=True, name=f"reverse of {graph.name}")
    return reverse


def _both_ways(graph: Graph) -> Graph:
    """The graph and its reverse side by side as one graph of 2n vertices: vertex v's forward copy is v (the graph's
    out-arcs), its backward copy n + v (the reverse graph's, shifted by n). A BFS from {p, n + p} reaches forward from
    p in the first half and backward from p in the second: FW-BW's two searches as one, whose levels are those of the
    deeper of the two, so on a high-diameter graph the searches' per-level latency (a grid barrier or a launch a
    level) is paid once, not twice. Its CSC is the same halves in the other order (the reverse graph's rows are the
    graph's columns), given rather than transposed. Built once per graph."""
    both = _BOTH_WAYS.get(graph)
    if both is None:
        n, m = graph.num_vertices, graph.num_arcs
        reverse = _reverse_view(graph)
        ids = index_dtype(2 * n)

        def side_by_side(first: Graph, second: Graph) -> tuple[np.ndarray, np.ndarray]:
            offsets = np.concatenate((first.offsets, second.offsets[1:] + m))
            indices = np.empty(2 * m, dtype=ids)
            indices[:m] = first.indices
            np.add(second.indices, n, out=indices[m:], dtype=ids, casting="unsafe")
            return offsets, indices

        offsets, indices = side_by_side(graph, reverse)
        both = _BOTH_WAYS[graph] = Graph(offsets, indices, None, directed=True, name=f"{graph.name} both ways")
        in_offsets, in_indices = side_by_side(reverse, graph)
        both._csc = (in_offsets, in_indices, None)
    return both


class _Run:
    """The arrays and helpers of one Multistep run."""

    def __init__(self, be: Any, graph: Graph, strategy: Any) -> None:
        xp = be.xp
        n = graph.num_vertices
        self.be, self.graph, self.strategy, self.n = be, graph, strategy, n
        self.G = be.graph(graph)
        self.alive = xp.ones(n, dtype=np.int8)
        self.label = xp.empty(n, dtype=np.int64)  # every vertex is labelled by one of the steps
        self.controller = make_controller(strategy, graph, "traversal", async_order=be.capabilities.async_order)
        self.checks: list[Any] = []  # device runs read back lazily: each raises if its run failed
        # every label is its SCC's smallest vertex (trim's, FW-BW's on the device and Tarjan's are; the coloring's
        # are the largest), so numbered_components numbers them in one run without reading anything back
        self.roots = True
        self.trace = Trace(algorithm="strongly_connected_components", backend=be.name, controller=self.controller.name)

    def multistep(self) -> None:
        """The reverse graph and the arrays of Multistep's parallel steps (a whole-graph Tarjan needs none of them)."""
        xp, n = self.be.xp, self.n
        self.R = self.be.graph(_reverse_view(self.graph))
        self.color = xp.full(n, -1, dtype=np.int64)
        self.forward = xp.zeros(n, dtype=np.int64)
        self.backward = xp.zeros(n, dtype=np.int64)
        self.same = xp.zeros(n, dtype=np.int64)  # one group: FW-BW and color propagation are not split by color

    def row(self, st: Strategy, info: IterationInfo, edges: int, seconds: float, decision: str, reason: str,
            phase: str) -> None:
        self.trace.add(strategy=str(st), path=st.path, frontier_vertices=info.frontier_vertices,
                       frontier_edges=info.frontier_edges, edges_processed=int(edges), seconds=seconds,
                       decision=decision, reason=reason, phase=phase)

    def remaining(self) -> int:
        return int(self.be.xp.count_nonzero(self.alive))

    # --------------------------------------------------------------------------------------------------- Trim
    def trim(self) -> None:
        """Trim rounds while a round removes many: one `run_steps` loop (module notes), its rows read with the trace."""
        be, n, G = self.be, self.n, self.G
        tally = np.zeros(T_LOG + TRIM_ROUNDS, dtype=np.int64)
        tally[T_LEFT] = n  # trim runs first: every vertex remains
        tally = be.asarray(tally)
        in_offsets, in_indices, _ = G.csc()
        state = (G.offsets, G.indices, in_offsets, in_indices, self.alive, self.label, tally)
        run = be.run_steps([Repeat(((TRIM_PASS, state, n), (TRIM_TALLY, state, 1)), TRIM_AGAIN_RULE, state,
                                   TRIM_ROUNDS)])
        self.checks.append(run.check)
        st = Strategy(direction="pull", drive="topology", frontier="bitmap")

        def rows() -> None:
            log = be.to_host(tally)
            seconds = run.seconds()
            left = n
            for r in range(int(log[T_ROUND])):
                gone = int(log[T_LOG + r])
                more = r + 1 < log[T_ROUND]
                self.row(st, IterationInfo(r, left, G.num_arcs, n, G.num_arcs), 2 * G.num_arcs, seconds[2 * r] + seconds[2 * r + 1],
                         "pull", f"trim round {r + 1}: removed {gone:,} of {left:,} (each remaining vertex looks for a "
                         "remaining in- and out-neighbour, early exit); "
                         + ("another round: it removed at least 1%" if more else
                            "last round: " + ("nothing left" if left == gone else
                                              f"it removed less than {TRIM_AGAIN:.0%}" if r + 1 < TRIM_ROUNDS
                                              else f"TRIM_ROUNDS {TRIM_ROUNDS} reached")), "trim")
                left -= gone

        self.trace.defer(rows, lambda: sum(run.seconds()))

    # --------------------------------------------------------------------------------------------------- propagation
    def propagate(self, G: Any, frontier: Frontier, value: Any, group: Any, cap: int, controller: Controller,
                  phase: str, what: str) -> None:
        """Max-label propagation from `frontier` over G's arcs, restricted to remaining vertices of one group."""
        be = self.be
        state = (value, self.alive, group, be.xp.asarray([cap], dtype=np.int64))
        left = self.remaining()  # the traversal runs on the remaining subgraph: its |V| for the controller's beta rule
        it = 0
        while frontier.size:
            info = IterationInfo(it, frontier.size, frontier.out_edges(G.out_degree), left, G.num_arcs)
            decision = controller.choose(info)
            st = decision.strategy
            start = time.perf_counter()
            if st.direction == "pull":
                source = None if st.drive == "topology" else frontier
                nxt = be.pull(G, source, PROPAGATE_PULL, st, state, PROPAGATE_CANDIDATE)
                edges = G.num_arcs
            else:
                nxt = be.advance(G, frontier, PROPAGATE_PUSH, st, state)
                edges = info.frontier_edges
            seconds = time.perf_counter() - start
            controller.observe(decision, info, seconds)
            self.row(st, info, edges, seconds, decision.decision, f"{what}: {decision.reason}", phase)
            frontier = nxt
            it += 1

    def settle(self) -> None:
        self.be.for_each_vertex(None, SETTLE, (self.forward, self.backward, self.alive, self.label, self.color),
                                num_vertices=self.n)

    # --------------------------------------------------------------------------------------------------- FW-BW
    def forward_backward(self) -> None:
        """The pivot's SCC: reached forward (out-edges) and backward (in-edges) within the remaining vertices."""
        xp, n = self.be.xp, self.n
        in_degree = self.R.out_degree
        score = xp.where(self.alive != 0, self.G.out_degree * in_degree, -1)
        if self.be.capabilities.device_programs:
            self.forward_backward_on_device(xp.argmax(score).reshape(1))
            return
        pivot = int(xp.argmax(score))
        if score[pivot] < 0:  # trim removed every vertex
            return
        self.color.fill(pivot)  # the SCC's name
        self.roots = False
        start = Frontier.from_vertices(one_vertex(xp, pivot), n)
        for G, mark, way in ((self.G, self.forward, "forward"), (self.R, self.backward, "backward")):
            mark[pivot] = 1
            controller = make_controller(self.strategy, self.graph, "traversal",
                                         async_order=self.be.capabilities.async_order)
            self.propagate(G, start, mark, self.same, 1, controller, "fw-bw", f"{way} BFS from pivot {pivot}")
        self.settle()

    def forward_backward_on_device(self, pivot: Any) -> None:
        """FW-BW as one BFS launch (multistep.reach) over the graph and its reverse side by side (_both_ways: from the
        pivot's forward and backward copies), where the backend runs programs whole on the device: nothing is read
        back, the pivot included. An undirected graph is its own reverse: one BFS over it. Right after trim the only
        vertices removed are SCCs of one vertex, which can lie on no cycle through the pivot, so the vertices reached
        both ways over the whole graph are the pivot's SCC, as within the remaining vertices. Where trim removed
        every vertex, the pivot is not alive and the search starts from nothing."""
        n, start = self.n, self.alive[pivot] != 0
        if self.graph.directed:
            reached, run = reach(_both_ways(self.graph), self.be.xp.concatenate((pivot, pivot + n)), self.be,
                                 self.strategy, "fw-bw", start=start)
            self.forward[...] = reached[:n]
            self.backward[...] = reached[n:]
        else:
            reached, run = reach(self.graph, pivot, self.be, self.strategy, "fw-bw", start=start)
            self.forward[...] = reached
            self.backward[...] = reached
        # the SCC's name: its smallest vertex (a reduction on the device, nothing read back)
        both = (self.forward != 0) & (self.backward != 0)
        self.color[...] = self.be.xp.where(both, self.be.xp.arange(n, dtype=np.int64), n).min()
        self.settle()
        self.checks.append(run.check)
        self.trace.defer(lambda: append_trace(self.trace, run.trace, "fw-bw"), lambda: run.trace.seconds)

    # --------------------------------------------------------------------------------------------------- Coloring
    def coloring(self) -> np.ndarray:
        """Coloring rounds while more than TARJAN_CUTOFF vertices remain (colors were set to the ids by the last
        settle); returns the vertices that remain, on the host, in increasing order. Which vertices remain is gathered
        on the device into a list of at most TARJAN_CUTOFF (REMAINING_IDS) and read with their count: the call's one
        host read where no coloring round runs (trim and FW-BW read nothing back); a coloring round reads the alive
        array and its frontiers' sizes."""
        be, xp, n = self.be, self.be.xp, self.n
        found = xp.zeros(1 + TARJAN_CUTOFF, dtype=np.int64)
        self.checks.append(be.run_steps([(REMAINING_IDS, (self.alive, found, be.asarray(
            np.array([TARJAN_CUTOFF], dtype=np.int64))), n)]).check)
        found = be.to_host(found)
        if found[0] <= TARJAN_CUTOFF:
            return np.sort(found[1:1 + found[0]])
        # max-colour propagation: an iterative program, monotone (colours only grow), so "hybrid" steers it too
        controller = make_controller(self.strategy, self.graph, "iterative", monotone=True)
        ids = xp.arange(n, dtype=np.int64)
        rounds = 0
        while True:
            remaining = np.flatnonzero(be.to_host(self.alive))
            if remaining.size <= TARJAN_CUTOFF:
                return remaining
            rounds += 1
            self.roots = False  # a coloring SCC is named after its root, its largest vertex
            self.propagate(self.G, Frontier.from_vertices(be.asarray(remaining), n), self.color, self.same, n,
                           controller, "color", f"coloring round {rounds}: max-color propagation")
            roots = xp.flatnonzero((self.alive != 0) & (self.color == ids))
            self.backward[roots] = 1  # forward = backward: a root's SCC is what its backward BFS reaches
            bfs = make_controller(self.strategy, self.graph, "traversal", async_order=be.capabilities.async_order)
            self.propagate(self.R, Frontier.from_vertices(roots, n), self.backward, self.color, 1, bfs, "color",
                           f"coloring round {rounds}: backward BFS from {roots.size:,} roots within their colors")
            be.for_each_vertex(None, SETTLE, (self.backward, self.backward, self.alive, self.label, self.color),
                               num_vertices=n)

    # --------------------------------------------------------------------------------------------------- Tarjan
    def tarjan(self, why: str, remaining: np.ndarray | None = None) -> None:
        """The `remaining` vertices (host ids; None: every vertex, and Tarjan numbers the SCCs 0..C-1 itself, with no
        canonical_labels pass) by serial Tarjan: one numba task through the CPU backend's for_each_vertex on a
        one-vertex frontier, over the graph's host CSR. Serial work belongs on the host (Slota et al.'s Multistep runs
        this step on the CPU too): only the remaining vertices' labels go to the backend."""
        be, n = self.be, self.n
        start = time.perf_counter()
        whole = remaining is None
        alive = np.zeros(n, dtype=np.int8)
        if not whole:
            alive[remaining] = 1
        label = np.empty(n, dtype=np.int64)
        ids = index_dtype(n)  # vertex ids and DFS indices
        arcs = index_dtype(self.graph.num_arcs)  # `position`: arc offsets
        scratch = (np.zeros(n, dtype=ids), np.empty(n, dtype=np.int8), np.empty(n, dtype=ids), np.empty(n, dtype=ids),
                   np.empty(n, dtype=arcs), np.full(1, whole, dtype=np.int8),
                   np.zeros(0, dtype=np.int64) if whole else np.ascontiguousarray(remaining, dtype=np.int64))
        run_on_host_once(TARJAN, (self.graph.offsets, self.graph.indices, alive, label) + scratch, n)
        if whole:
            self.label = be.asarray(label)
        else:
            where = be.asarray(remaining)
            self.label[where] = be.asarray(label[remaining])
            self.alive[where] = 0
        seconds = time.perf_counter() - start
        left = n if whole else int(remaining.size)
        st = Strategy(sync="async")
        info = IterationInfo(0, left, 0, n, self.G.num_arcs)
        # deferred: an add now would read back the device rows deferred before it
        self.trace.defer(lambda: self.row(st, info, self.G.num_arcs, seconds, "tarjan", why, "tarjan"), seconds)

    def serial_link(self, why: str) -> None:
        """An undirected graph's SCCs are its connected components: Afforest's link over every edge, on one thread
        (connected_components.serial_link), numbers them with less work per arc than Tarjan's depth-first search."""
        start = time.perf_counter()
        self.label = serial_link(self.be, self.graph)
        n, arcs = self.n, self.G.num_arcs
        self.row(Strategy(sync="async"), IterationInfo(0, n, 0, n, arcs), arcs, time.perf_counter() - start, "link",
                 f"{why}: an undirected graph's SCCs are its connected components; Afforest's link over every edge on "
                 "one thread numbers them", "link")

    def serial_pass(self) -> str | None:
        """Why one serial pass should take the whole graph (Tarjan, or for an undirected graph Afforest's link), or None
        (Multistep's steps run). SEP-Graph's traversal controller runs a high-diameter graph's traversals as one async
        push-dd pass each; where the backend drains that pass as one FIFO worklist on one thread
        (engine.controller.fifo_pass), trim and forward-backward would be serial passes over the graph too, and one
        serial pass does all of their work and the rest. TARJAN_CUTOFF 0 (no serial step) keeps Multistep."""
        if not TARJAN_CUTOFF:
            return None
        n, arcs = self.n, self.G.num_arcs
        serial = fifo_pass(self.controller.choose(IterationInfo(0, n, arcs, n, arcs)), self.be.capabilities.async_order)
        if serial is None:
            return None
        return serial.reason


def strongly_connected_components(graph: Graph, *, backend: Any = "auto", strategy: Any = "auto") -> ComponentsResult:
    """Strongly connected components by Multistep (trim, forward-backward, coloring): ``.labels`` numbered 0..C-1
    (in order of each component's smallest vertex). An undirected graph gives its connected components."""
    check_strategy(strategy)
    be = get_backend(backend)
    strategy = parsed_once(strategy)
    run = _Run(be, graph, strategy)
    whole = run.serial_pass() if graph.num_vertices else None
    if whole is not None and not graph.directed:
        run.serial_link(whole)
    elif whole is not None:
        run.tarjan(f"{whole}: Tarjan's one depth-first pass finds every SCC, where trim and forward-backward would each "
                   "be a serial pass")
    elif graph.num_vertices:
        run.multistep()
        run.trim()
        run.forward_backward()
        left = run.coloring()
        if left.size:
            run.tarjan(f"{left.size:,} vertices remain (<= TARJAN_CUTOFF {TARJAN_CUTOFF:,}): serial Tarjan", left)
    if whole is not None:
        labels = run.label
    elif run.roots:  # every label its SCC's smallest vertex: numbered on the backend, nothing read back
        labels, numbered = numbered_components(be, run.label)
        run.checks.append(numbered)
    else:
        labels = canonical_labels(run.label)
    if run.checks:  # device runs read back (and a failure raised) when the labels or times are first read
        return ComponentsResult(Deferred(lambda: ([check() for check in run.checks], labels)[1]), trace=run.trace,
                                graph=graph, seconds=Deferred(lambda: run.trace.seconds))
    return ComponentsResult(labels, trace=run.trace, graph=graph, seconds=run.trace.seconds)

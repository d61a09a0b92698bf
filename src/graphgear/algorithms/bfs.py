"""Breadth-first search as a vertex program: top-down (push), bottom-up (pull) and direction-optimising.

Method: level-synchronous BFS (Beamer, Asanovic, Patterson, "Direction-Optimizing Breadth-First Search", SC'12) in
SEP-Graph's vertex-program form (Wang et al., PPoPP'19): the value is the distance, an edge adds 1, the buffer keeps the
minimum. Push (top-down) expands the frontier's out-edges; pull (bottom-up) lets every unvisited vertex look for a parent
among its in-neighbours and stop at the first one found (early exit). The `auto` controller switches between them by
SEP-Graph Algorithm 2. Predecessors are recovered afterwards by one pull pass (the smallest-id parent at distance - 1).
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from ..backends import get_backend
from ..engine.strategy import Strategy
from ..functor import Functor
from ..graph.layout import LAYOUTS, device_layout
from ..program import VertexProgram, run_program
from ..errors import GraphError
from ..graph.graph import described
from ..results import BFSResult, Deferred
from ._common import APPLY_SMALLER, check_choice, check_strategy, predecessors_from_distances, resolve_source


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
)

PULL_PASS = Strategy(direction="pull", frontier="bitmap")


def bfs(graph: Any, source: Any, *, depth_limit: int | None = None, backend: Any = "auto", strategy: Any = "auto",
        layout: str = "auto") -> BFSResult:
    """Hop distances and a BFS tree from `source` (a vertex id, or a label of a renumbered graph).

    ``distances`` is int64 with -1 for unreachable vertices; ``predecessors`` holds each vertex's parent (-1 for the
    source and unreachable vertices). ``strategy="direction=push"`` is top-down BFS, ``"direction=pull"`` bottom-up,
    ``"auto"`` direction-optimising. The predecessors are computed when first read (one pull pass over the
    distances: the smallest-id parent one level up), so a caller who needs only distances does not pay for them.
    ``layout`` "degree" runs the traversal on the graph renumbered by degree (MultiGraph; graph/layout.py): a warp's
    vertices have alike degrees and the hubs' bits and values share cache lines; "given" on the ids as they are;
    "auto" picks degree for a large power-law graph on the GPU. The distances are mapped back, and the predecessors
    are found on the given ids, so the answer does not depend on the layout. ``depth_limit`` (networkx's): vertices
    farther than that many hops from the source are unreached (-1); None searches the whole graph.
    """
    s = resolve_source(graph, source)
    limit = check_depth_limit(depth_limit)
    check_choice("layout", layout, LAYOUTS)
    check_strategy(strategy)
    be = get_backend(backend)
    renumbering, _, note = device_layout(be, graph, layout, auto=be.name == "cuda")
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


def check_depth_limit(depth_limit: Any) -> int | None:
    """The depth limit as an int (None: no limit); a GraphError naming anything but a whole number >= 0."""
    if depth_limit is None:
        return None
    if isinstance(depth_limit, (bool, np.bool_)) or not isinstance(depth_limit, (int, np.integer)) or depth_limit < 0:
        raise GraphError(f"depth_limit must be None or a whole number >= 0, got {described(depth_limit)}")
    return int(depth_limit)

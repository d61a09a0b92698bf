"""Slota et al.'s Multistep step "BFS from a pivot", shared by colour propagation, label propagation and SCC.

Method: G. M. Slota, S. Rajamanickam, K. Madduri, "BFS and Coloring-based Parallel Algorithms for Strongly Connected
Components and Related Problems" (IPDPS'14) and "High-performance Graph Analytics on Manycore Processors" (IPDPS'15;
seeds/003, section IV): before colour propagation, one BFS from a pivot that most likely lies in the giant component
settles that component at once, so propagation is left with the small rest. Label propagation run from every vertex
would raise (or lower) the labels of the giant component again and again as better ones arrive from far away; a BFS
visits each of its vertices once, with the early exit of bottom-up levels.

`reach` is that BFS: BFS_PROGRAM from one pivot given as a one-element array (on the device, so choosing the pivot
reads nothing back), one persistent launch on a backend that runs programs whole on the device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.trace import Trace
from ..graph.graph import Graph
from ..program import ProgramRun, VertexProgram, nothing_to_check, run_program
from ._common import append_trace
from .bfs import BFS_PROGRAM

__all__ = ["reach", "multistep_labels"]


def reach(graph: Graph, pivot: Any, be: Any, strategy: Any, phase: str, start: Any = True) -> tuple[Any, ProgramRun]:
    """(reached, run): which vertices a BFS from `pivot` (a one-element index array on the backend) reaches along
    `graph`'s arcs, as a bool array on the backend, and the BFS's ProgramRun (its trace, and its check, which raises
    if the device run failed). `start`: whether the pivot starts at all (a one-element bool array on the backend,
    so deciding reads nothing back; where it is false, nothing is reached). Nothing is read back: the run is lazy."""
    xp = be.xp
    n = graph.num_vertices
    distances = xp.full(n, np.inf, dtype=np.float64)
    buffers = xp.full(n, np.inf, dtype=np.float64)
    buffers[pivot] = 0.0 if start is True else xp.where(start, 0.0, np.inf)
    run = run_program(BFS_PROGRAM, graph, distances, buffers, pivot, backend=be, strategy=strategy, copy=False,
                      lazy=True, phase=phase)
    return run.state.value < np.inf, run


def multistep_labels(program: VertexProgram, graph: Graph, be: Any,
                     strategy: Any) -> tuple[Any, Trace, Callable[[], None]]:
    """A label program run from every vertex (labels = vertex ids; accumulate "max" for colour propagation, "min" for
    label propagation) as Multistep runs it: a BFS from a pivot, then the program from every vertex the BFS did not
    reach.

      undirected  the pivot is the vertex of the largest degree; the BFS reaches its component, whose label is the
                  largest (smallest) id among the vertices reached: one reduction on the device.
      directed    (colour propagation: colours flow along arcs) the pivot is vertex n-1 itself (0 for min): its label
                  is final wherever it reaches, and nothing it reaches can reach a vertex it does not.
    The vertices reached start the program with their label and nothing to send; the rest start as the program does
    (the arcs between the two sets cannot change a reached vertex's label: undirected, there are none; directed, the
    pivot's label is already the largest). Nothing is read back between the two launches (Backend.chained).
    Returns (values, trace, check): the values on the backend, the runs' rows (phases "pivot" and "propagate") and a
    check that raises if either device run failed."""
    xp = be.xp
    n = graph.num_vertices
    if n == 0:  # no pivot: nothing to run
        return xp.zeros(0, dtype=np.float64), Trace(algorithm=program.name, backend=be.name), nothing_to_check
    largest = program.accumulate == "max"
    empty = -np.inf if largest else np.inf
    if graph.directed:
        pivot = xp.full(1, n - 1 if largest else 0, dtype=np.int64)
    else:
        pivot = xp.argmax(be.graph(graph).out_degree).reshape(1).astype(np.int64)
    with be.chained():  # the second launch does not wait for the first (read back with the result)
        reached, bfs = reach(graph, pivot, be, strategy, "pivot")
        ids = xp.arange(n, dtype=np.float64)
        among = xp.where(reached, ids, empty)
        label = among.max() if largest else among.min()  # a 0-d array: stays on the device
        values = xp.where(reached, label, empty)
        buffers = xp.where(reached, empty, ids)
        rest = run_program(program, graph, values, buffers, None, backend=be, strategy=strategy, copy=False,
                           lazy=True, phase="propagate")
    trace = Trace(algorithm=program.name, backend=be.name, controller=rest.trace.controller)
    trace.defer(lambda: (append_trace(trace, bfs.trace, "pivot"), append_trace(trace, rest.trace, "propagate")),
                lambda: bfs.trace.seconds + rest.trace.seconds)

    def check() -> None:
        bfs.check()
        rest.check()

    return rest.state.value, trace, check

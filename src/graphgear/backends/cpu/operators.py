"""CPU kernels of the generic operators: advance (push), pull, filter, for_each_vertex, vertex_reduce, neighbor_reduce.

Each is a kernel template (templates.py) around its functor slots, and takes the state tuple of arrays the functors
read and write: ``advance_queue[f](...)`` is the push kernel compiled around functor f (and cached on disk by numba).
Functor contracts:

    advance   f(u, v, w, state) -> bool     v joins the next frontier when True (push over out-edges of u)
    pull      f(v, u, w, state) -> int      bit ACTIVATE: v joins the next frontier; bit STOP: stop scanning v's
                                            in-edges (bottom-up BFS's early exit). Called for active sources u only.
    candidate c(v, state) -> bool           which vertices pull at all (e.g. the unvisited ones)
    filter    p(v, state) -> bool           keep v
    for_each  f(v, state) -> None
    reduce    m(v, u, w, state) -> float    one neighbour's term of v's reduction (sum/min/max)

Parallel loops use the atomics of atomics.py where several threads may write one place; a functor that updates shared
state must use them too (`atomic_cas` to claim a vertex, `atomic_add` to count). Async advance drains one FIFO worklist
on one thread, so its functors may update plainly.
"""

from __future__ import annotations

import numba
import numpy as np

from ...operators import ACTIVATE, STOP
from .atomics import atomic_add, atomic_cas
from .templates import template


# The functor slots the templates below call by name; each specialisation binds them to its functors (templates.py).
functor = candidate = predicate = map_fn = None


@numba.njit(inline="always", nogil=True)
def weight_of(weights, k, weighted):  # pragma: no cover - numba
    """The weight of arc k, or 1 for an unweighted graph."""
    return weights[k] if weighted else 1.0


_weight = weight_of


@numba.njit(inline="always", nogil=True)
def fifo_start(worklist, queued, ring):  # pragma: no cover - numba
    """Fill a FIFO ring (capacity n + 1, the caller's: kernels do not allocate) with each worklist vertex once
    (queued[v] marks membership); returns the tail."""
    tail = 0
    for i in range(worklist.shape[0]):
        v = worklist[i]
        if queued[v] == 0:
            queued[v] = 1
            ring[tail] = v
            tail += 1
    return tail


@numba.njit(inline="always", nogil=True)
def fifo_push(ring, tail, v, queued):  # pragma: no cover - numba
    """Append v unless it is already queued; returns the new tail (the ring wraps at its capacity)."""
    if queued[v] == 0:
        queued[v] = 1
        ring[tail] = v
        tail = tail + 1 if tail + 1 < ring.shape[0] else 0
    return tail


# Not inlined: inside a prange with a reduction, numba 0.68.0's parfor pass failed on this loop's conditional reads
# ("unexpected cycle in lookup()", numba issue #10132); a call keeps the loop outside the parfor.
@template("functor", nogil=True)
def _pull_scan(v, t_offsets, t_indices, t_weights, weighted, active, all_active, state, next_mask,
               sweep):  # pragma: no cover - numba
    """Scan v's in-edges from active sources (in a sweep, sources activated earlier in it count); returns edges scanned."""
    scanned = 0
    for k in range(t_offsets[v], t_offsets[v + 1]):
        u = t_indices[k]
        if all_active or active[u] or (sweep and next_mask[u]):
            scanned += 1
            r = functor(v, u, _weight(t_weights, k, weighted), state)
            if r & ACTIVATE:
                next_mask[v] = True
            if r & STOP:
                break
    return scanned


@template("functor", parallel=True, nogil=True)
def advance_queue(offsets, indices, weights, weighted, queue, state, touched, out, counter):  # pragma: no cover
    """Sync push over a vertex queue; every activated vertex is appended once (touched = test-and-set)."""
    for i in numba.prange(queue.shape[0]):
        u = queue[i]
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            if functor(u, v, _weight(weights, k, weighted), state):
                if touched[v] == 0 and atomic_cas(touched, v, 0, 1) == 0:
                    out[atomic_add(counter, 0, 1)] = v


@template("functor", parallel=True, nogil=True)
def advance_mask(offsets, indices, weights, weighted, mask, state, next_mask):  # pragma: no cover
    """Sync push, topology-driven: scan every vertex, expand the active ones; the next frontier is a bool map."""
    for u in numba.prange(offsets.shape[0] - 1):
        if not mask[u]:
            continue
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            if functor(u, v, _weight(weights, k, weighted), state):
                next_mask[v] = True


@template("functor", nogil=True)
def advance_async(offsets, indices, weights, weighted, worklist, state, queued, ring):  # pragma: no cover
    """Async push: drain one FIFO worklist, activated vertices join the same worklist at once. Returns
    (vertices expanded, edges visited)."""
    tail = fifo_start(worklist, queued, ring)
    head = 0
    expanded = 0
    visited = 0
    while head != tail:
        u = ring[head]
        head = head + 1 if head + 1 < ring.shape[0] else 0
        queued[u] = 0
        expanded += 1
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            visited += 1
            if functor(u, v, _weight(weights, k, weighted), state):
                tail = fifo_push(ring, tail, v, queued)
    return expanded, visited


@template("candidate", "functor", parallel=True, nogil=True)
def pull_mask(t_offsets, t_indices, t_weights, weighted, active, all_active, state, next_mask):  # pragma: no cover
    """Sync pull: each candidate v scans its in-edges from active sources."""
    for v in numba.prange(t_offsets.shape[0] - 1):
        next_mask[v] = False
        if candidate(v, state):
            _pull_scan(v, t_offsets, t_indices, t_weights, weighted, active, all_active, state, next_mask, False)


@template("candidate", "functor", nogil=True)
def pull_async(t_offsets, t_indices, t_weights, weighted, active, all_active, state, next_mask):  # pragma: no cover
    """Async pull: one sweep in id order; a vertex activated earlier in the sweep is already an active source."""
    scanned = 0
    for v in range(t_offsets.shape[0] - 1):
        next_mask[v] = False
        if candidate(v, state):
            scanned += _pull_scan(v, t_offsets, t_indices, t_weights, weighted, active, all_active, state, next_mask,
                                  True)
    return scanned


@template("predicate", parallel=True, nogil=True)
def filter_queue(queue, state, keep):  # pragma: no cover
    for i in numba.prange(queue.shape[0]):
        keep[i] = predicate(queue[i], state)


@template("predicate", parallel=True, nogil=True)
def filter_mask(mask, state, keep):  # pragma: no cover
    for v in numba.prange(mask.shape[0]):
        keep[v] = mask[v] and predicate(v, state)


@template("functor", parallel=True, nogil=True)
def for_each_queue(queue, state):  # pragma: no cover
    for i in numba.prange(queue.shape[0]):
        functor(queue[i], state)


@template("functor", parallel=True, nogil=True)
def for_each_all(n, state):  # pragma: no cover
    for v in numba.prange(n):
        functor(v, state)


@template("functor", parallel=True, nogil=True)
def vertex_values(vertices, listed, count, state, values):  # pragma: no cover
    """values[i] = functor(v, state) for the i-th vertex (of `vertices` when listed, else v = i): vertex_reduce's map;
    the host combines the values."""
    for i in numba.prange(count):
        values[i] = functor(np.int64(vertices[i]) if listed else np.int64(i), state)


@template("map_fn", parallel=True, nogil=True)
def neighbor_reduce(offsets, indices, weights, weighted, state, monoid, identity, vertices, listed,
                    out):  # pragma: no cover - numba
    """out[v] = reduce over v's neighbours u (a row of the given CSR/CSC) of map_fn(v, u, w, state); monoid 0 = min,
    1 = max, 2 = sum. A row per thread; every row, or only the rows of `vertices` when `listed`."""
    count = vertices.shape[0] if listed else offsets.shape[0] - 1
    for i in numba.prange(count):
        v = np.int64(vertices[i]) if listed else np.int64(i)
        acc = identity
        for k in range(offsets[v], offsets[v + 1]):
            x = map_fn(v, indices[k], _weight(weights, k, weighted), state)
            if monoid == 2:
                acc += x
            elif monoid == 0:
                acc = min(acc, x)
            else:
                acc = max(acc, x)
        out[v] = acc

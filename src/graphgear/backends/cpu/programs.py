"""CPU kernels that run a vertex program (SEP-Graph's interface) under every execution path.

A vertex program holds per vertex a value, a buffer and a message (all float64 here). One round:

    compute   for the vertices that work this round (the worklist, or all of them when topology-driven):
              (value, buffer, message, send) = compute(value, buffer, out_degree, params)
    exchange  push: every sender accumulates edge(message, w) into each out-neighbour's buffer (atomically);
              pull: every vertex accumulates edge(message[u], w) from its sending in-neighbours (no conflicts)

and the vertices whose buffer changed form the next worklist. ``sync`` keeps the two phases apart for all vertices
(a barrier between rounds). ``async`` lets an update be seen at once: push-dd drains one FIFO worklist (a vertex
is computed when it comes off the queue and pushes straight away), push-td and pull are Gauss-Seidel sweeps.

The accumulate operation is a monoid: MIN, MAX, SUM or OR (OR on 0/1 values). Parallel push uses the atomics of
atomics.py, so the CPU has the GPU kernels' semantics: no lost updates, any interleaving.
"""

from __future__ import annotations

import numba
import numpy as np

from .atomics import atomic_add, atomic_cas, atomic_fadd, bits_float, float_bits
from .operators import fifo_push, fifo_start, weight_of
from .templates import template

MIN, MAX, SUM, OR = 0, 1, 2, 3
MONOIDS = {"min": MIN, "max": MAX, "sum": SUM, "or": OR}
IDENTITY = {MIN: np.inf, MAX: -np.inf, SUM: 0.0, OR: 0.0}

# The program's functors, the slots of the kernel templates below (templates.py): `prog.push_sync[edge](...)`.
compute = edge = settled = None


@numba.njit(inline="always", nogil=True)
def improves(monoid, old, contribution):  # pragma: no cover - numba
    """Would accumulating `contribution` change `old`?"""
    if monoid == MIN:
        return contribution < old
    if monoid == SUM:
        return contribution != 0.0
    return contribution > old  # MAX, OR


@numba.njit(inline="always", nogil=True)
def combine(monoid, old, contribution):  # pragma: no cover - numba
    if monoid == MIN:
        return min(old, contribution)
    if monoid == SUM:
        return old + contribution
    return max(old, contribution)


@numba.njit(inline="always", nogil=True)
def atomic_accumulate(monoid, buffer, bits, v, contribution):  # pragma: no cover - numba
    """buffer[v] = buffer[v] (+) contribution, atomically; True when buffer[v] changed."""
    if monoid == SUM:
        if contribution == 0.0:
            return False
        atomic_fadd(buffer, v, contribution)
        return True
    old = buffer[v]
    while improves(monoid, old, contribution):
        prev = atomic_cas(bits, v, float_bits(old), float_bits(contribution))
        if prev == float_bits(old):
            return True
        old = bits_float(prev)
    return False


# ------------------------------------------------------------------------------------------------------- compute


@template("compute", parallel=True, nogil=True)
def compute_vertices(vertices, value, buffer, message, degree, send, params):  # pragma: no cover
    """compute() on each listed vertex; send[v] says whether it sends this round."""
    for i in numba.prange(vertices.shape[0]):
        v = vertices[i]
        value[v], buffer[v], message[v], send[v] = compute(value[v], buffer[v], degree[v], params)


@template("compute", parallel=True, nogil=True)
def compute_all(value, buffer, message, degree, send, params):  # pragma: no cover
    """compute() on every vertex (topology-driven)."""
    for v in numba.prange(value.shape[0]):
        value[v], buffer[v], message[v], send[v] = compute(value[v], buffer[v], degree[v], params)


# ---------------------------------------------------------------------------------------------------- sync push


@template("edge", parallel=True, nogil=True)
def push_sync(
    offsets, indices, weights, weighted, senders, message, buffer, bits, touched, out, counter, params, monoid
):  # pragma: no cover - numba
    """Every sender pushes edge(message, w) to its out-neighbours; each changed neighbour is appended once to out."""
    for i in numba.prange(senders.shape[0]):
        u = senders[i]
        m = message[u]
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            w = weight_of(weights, k, weighted)
            if atomic_accumulate(monoid, buffer, bits, v, edge(m, w, params)):
                if touched[v] == 0 and atomic_cas(touched, v, 0, 1) == 0:
                    out[atomic_add(counter, 0, 1)] = v


@template("settled", "edge", parallel=True, nogil=True)
def pull_sync(
    t_offsets, t_indices, t_weights, weighted, sender, message, buffer, value, touched, params, monoid, first_wins,
    skip_settled,
):  # pragma: no cover - numba
    """Every (unsettled) vertex gathers from its sending in-neighbours; touched[v] = 1 when its buffer changed."""
    for v in numba.prange(t_offsets.shape[0] - 1):
        touched[v] = 0
        if skip_settled and settled(value[v], params):
            continue
        acc = buffer[v]
        changed = False
        for k in range(t_offsets[v], t_offsets[v + 1]):
            u = t_indices[k]
            if sender[u]:
                c = edge(message[u], weight_of(t_weights, k, weighted), params)
                if improves(monoid, acc, c):
                    acc = combine(monoid, acc, c)
                    changed = True
                    if first_wins:
                        break
        if changed:
            buffer[v] = acc
            touched[v] = 1


# ---------------------------------------------------------------------------------------------------------- async


@template("compute", "edge", nogil=True)
def push_async_data(offsets, indices, weights, weighted, worklist, value, buffer, message, degree, queued, ring, params,
                    monoid):  # pragma: no cover - numba
    """Drain one FIFO worklist: a vertex computes when it leaves the queue and pushes at once (updates visible
    immediately). Returns (vertices computed, edges pushed)."""
    tail = fifo_start(worklist, queued, ring)
    head = 0
    computed = 0
    pushed = 0
    while head != tail:
        u = ring[head]
        head = head + 1 if head + 1 < ring.shape[0] else 0
        queued[u] = 0
        value[u], buffer[u], message[u], send = compute(value[u], buffer[u], degree[u], params)
        computed += 1
        if not send:
            continue
        m = message[u]
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            c = edge(m, weight_of(weights, k, weighted), params)
            pushed += 1
            if improves(monoid, buffer[v], c):
                buffer[v] = combine(monoid, buffer[v], c)
                tail = fifo_push(ring, tail, v, queued)
    return computed, pushed


@template("compute", "edge", nogil=True)
def push_async_topology(
    offsets, indices, weights, weighted, value, buffer, message, degree, params, monoid
):  # pragma: no cover - numba
    """One Gauss-Seidel sweep: every vertex in id order computes and pushes at once. Returns (senders, edges)."""
    senders = 0
    pushed = 0
    for u in range(value.shape[0]):
        value[u], buffer[u], message[u], send = compute(value[u], buffer[u], degree[u], params)
        if not send:
            continue
        senders += 1
        m = message[u]
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            c = edge(m, weight_of(weights, k, weighted), params)
            pushed += 1
            if improves(monoid, buffer[v], c):
                buffer[v] = combine(monoid, buffer[v], c)
    return senders, pushed


@template("settled", "compute", "edge", nogil=True)
def pull_async(
    t_offsets, t_indices, t_weights, weighted, value, buffer, message, degree, params, monoid, skip_settled,
):  # pragma: no cover - numba
    """One Gauss-Seidel pull sweep (idempotent monoids only): each vertex gathers every in-neighbour's current
    message, then computes at once. Returns (senders, edges scanned)."""
    senders = 0
    scanned = 0
    for v in range(value.shape[0]):
        if skip_settled and settled(value[v], params):
            continue
        acc = buffer[v]
        for k in range(t_offsets[v], t_offsets[v + 1]):
            c = edge(message[t_indices[k]], weight_of(t_weights, k, weighted), params)
            scanned += 1
            if improves(monoid, acc, c):
                acc = combine(monoid, acc, c)
        buffer[v] = acc
        value[v], buffer[v], message[v], send = compute(value[v], acc, degree[v], params)
        if send:
            senders += 1
    return senders, scanned

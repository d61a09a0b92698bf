"""Distributed weakly connected components: min-label propagation with pointer jumping (Shiloach & Vishkin's hooking
and shortcutting, in the label form of FastSV, Zhang, Azad & Hu, SIAM PP'20), over the 1D partition.

Every rank owns the labels of its vertex range; each round all-gathers the labels (one comm.allgatherv) and then

    Hook        each own vertex takes the least label over itself and its out- and in-neighbours
    Shortcut    then the label of its label, read from the gathered array (labels are vertex ids of the same
                component, no larger than the vertex), which halves the distance a small label still has to travel

until no label changes anywhere (the changes counted by one allreduce). At the fixed point every label is its
component's smallest vertex, which the client numbers 0..C-1 in order of that vertex, as gg.connected_components.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..algorithms._common import canonical_labels
from ..engine.trace import Trace
from ..results import ComponentsResult
from .kernels import kernels_for
from .runtime import local, to_host


def connected_components(dg: Any) -> ComponentsResult:
    """Weakly connected components of a DistributedGraph, numbered as gg.connected_components numbers them."""
    start = time.perf_counter()
    out = dg.spmd(_components_rank)
    roots = np.concatenate([o[0] for o in out])
    trace = Trace(algorithm="cc-label-propagation", backend=f"distributed {dg.backend} x{dg.size}",
                  controller="fixed")
    for row in out[0][1]:
        trace.add(**row)
    return ComponentsResult(canonical_labels(roots, roots=True), trace=trace, graph=dg,
                            seconds=time.perf_counter() - start)


def _components_rank(ctx: Any, part: Any) -> tuple[np.ndarray, list[dict]]:
    xp, comm, K = ctx.xp, ctx.comm, kernels_for(ctx.backend)
    L = local(ctx, part)
    dtype = np.int32 if L.n < 2**31 else np.int64
    mine = xp.arange(L.lo, L.hi, dtype=dtype)
    labels = comm.allgatherv(mine, L.counts)
    rows, changed = [], 1
    while changed:
        tick = time.perf_counter()
        new = labels[L.lo:L.hi].copy()
        K.hook(L.offsets, L.indices, labels, L.lo, new)
        if L.in_indices is not L.indices:  # a directed graph: its in-neighbours too (weak components)
            K.hook(L.in_offsets, L.in_indices, labels, L.lo, new)
        new = labels[new]  # shortcut
        changed = int(to_host(ctx, comm.allreduce(xp.count_nonzero(new != labels[L.lo:L.hi]).reshape(1)
                                                  .astype(np.int64), "sum"))[0])
        labels = comm.allgatherv(new, L.counts)
        rows.append(dict(strategy="direction=pull,drive=topology", path="sync-pull-td", frontier_vertices=L.n,
                         frontier_edges=0, edges_processed=0, seconds=time.perf_counter() - tick, decision="pull",
                         reason=f"{changed:,} labels changed"))
    return to_host(ctx, labels[L.lo:L.hi]).astype(np.int64), rows

"""CudaGraph: a graph's arrays on the device, cached on the Graph, and what is built from them on first use: the in-edge
CSC (also with each row's hubs first), near-far's light/heavy split and its heavy arcs' CSC; hub_chunks cuts long rows
into chunks of edges."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import DeviceMemoryError
from . import runtime as rt
from .runtime import cupy
from .sources import HEAVY_CHUNK, SEGMENT, SPLIT_CHUNK_FROM


@dataclass
class CudaGraph:
    """Device copies of a Graph's arrays, cached on the Graph (``g.device_cache["cuda"]``)."""

    graph: Any
    offsets: Any
    indices: Any
    weights: Any  # float32[A], or float32[1] when unweighted
    weighted: bool
    out_degree: Any
    num_vertices: int
    num_arcs: int
    _csc: tuple[Any, Any, Any] | None = field(default=None, repr=False)
    _csc_hubs_first: tuple[Any, Any, Any] | None = field(default=None, repr=False)
    _hubs_first_column: Any = field(default=None, repr=False)
    _pulled: int | None = field(default=None, repr=False)
    _segments: tuple[int, Any] | None = field(default=None, repr=False)  # shared_group_segments
    _rows_of_at_least: dict = field(default_factory=dict, repr=False)  # degree -> vertices of that many arcs or more
    persistent: Any = field(default=None, repr=False)  # PersistentBuffers, allocated on first use
    # a single-source start's buffer and message (float64[V] each), lent to one program state at a time until its run
    # is over (Programs.program_state, release_state) or it is gone (a weakref to it); allocated on first use
    source_scratch: tuple[Any, Any] | None = field(default=None, repr=False)
    source_scratch_owner: Any = field(default=None, repr=False)
    _light_heavy: dict = field(default_factory=dict, repr=False)  # delta -> (light CSR, heavy CSR); their CSCs
    # neighbor_reduce's ReducePlan by direction, degree bins by (direction, spec), the power iteration's PowerPlan
    # ("power", with its work arrays)
    reduce_plans: dict = field(default_factory=dict, repr=False)

    def csc(self) -> tuple[Any, Any, Any]:
        if self._csc is None:
            cp = cupy()
            t_offsets, t_indices, t_weights = self.graph.csc()
            rt.check_free_memory(t_offsets.nbytes + t_indices.nbytes + (0 if t_weights is None else t_weights.nbytes),
                                 "the in-edge CSC")
            self._csc = (cp.asarray(t_offsets), cp.asarray(t_indices),
                         cp.asarray(t_weights) if t_weights is not None else self.weights)
        return self._csc

    def shared_group_segments(self) -> tuple[int, Any]:
        """MultiGraphS's segments on the device (balance="segmented"): the number of targets of in-degree groups 1-4
        and their segment table (graph/layout.py shared_group_segments; None where there are none), uploaded once;
        StrategyError where the groups are not numbered first."""
        if self._segments is None:
            from ...graph.layout import shared_group_segments, shared_group_targets

            high = shared_group_targets(self.graph)
            table = shared_group_segments(self.graph, SEGMENT)
            if table is not None:
                rt.check_free_memory(table.nbytes, "MultiGraphS's segment table")
            self._segments = (high, None if table is None else cupy().asarray(table))
        return self._segments

    def rows_of_at_least(self, degree: int) -> int:
        """How many vertices have at least `degree` out-arcs (from the host's degrees, once per degree)."""
        if degree not in self._rows_of_at_least:
            self._rows_of_at_least[degree] = int(np.count_nonzero(self.graph.out_degree() >= degree))
        return self._rows_of_at_least[degree]

    def pull_candidates(self) -> int:
        """How many vertices a pull round scans: up to the last vertex with in-arcs, since none after it can pull
        anything. A graph renumbered by degree (MultiGraph's layout; undirected, or directed with in-arcs where the
        out-arcs are) has its isolated vertices last, and a bottom-up BFS round need not visit them (a Kronecker
        graph's many isolated vertices: docs/performance.md#grid-barrier). From the host's CSC, once."""
        if self._pulled is None:
            with_in_arcs = np.flatnonzero(np.diff(self.graph.csc()[0]))
            self._pulled = int(with_in_arcs[-1]) + 1 if with_in_arcs.size else 0
        return self._pulled

    def csc_hubs_first(self) -> tuple[Any, Any, Any]:
        """The in-edge CSC with each row's sources in decreasing out-degree (ties in id order), for first-wins pulls
        (bottom-up BFS): they stop at the first in-neighbour in the frontier, and a hub is the likeliest to be there.
        The first bottom-up round of a kron:21 BFS scans 5.2M in-edges instead of 11.7M (its time: docs/
        performance.md#figures-from-the-cuda-backends-comments). A
        copy beside csc(), whose id order the smallest-id parent passes rely on; csc() itself where the device has
        no room for it."""
        if self._csc_hubs_first is None:
            cp = cupy()
            t_offsets, t_indices, t_weights = self.csc()
            arcs = int(t_indices.size)
            weighted = t_weights.size == arcs and arcs > 0
            try:
                rt.check_free_memory(28 * arcs + (4 * arcs if weighted else 0) + 4 * self.num_vertices,
                                     "the hubs-first in-edge CSC")
            except DeviceMemoryError:
                return self.csc()
            top = int(self.out_degree.max()) if arcs else 0
            rows = cp.repeat(cp.arange(self.num_vertices, dtype=cp.int64), cp.diff(t_offsets))
            order = cp.argsort(rows * (top + 1) + (top - self.out_degree[t_indices].astype(cp.int64)))  # stable
            del rows
            self._csc_hubs_first = (t_offsets, t_indices[order], t_weights[order] if weighted else t_weights)
            if arcs:
                first = self._csc_hubs_first[1][cp.minimum(t_offsets[:-1], arcs - 1)]
                self._hubs_first_column = cp.where(t_offsets[1:] > t_offsets[:-1], first, -1).astype(cp.int32)
            else:
                self._hubs_first_column = cp.full(self.num_vertices, -1, dtype=cp.int32)
        return self._csc_hubs_first

    def hubs_first_column(self) -> Any:
        """The hubs-first CSC's first column: each vertex's first in-neighbour (its likeliest parent in a bottom-up
        round), -1 where it has none, one int32 a vertex in vertex order -- an ELL column beside the CSC. A bottom-up
        round tests it with a coalesced read, where the row's first in-edge cost a scattered sector of the CSC per
        candidate; on kron:21 the first in-neighbour is the parent of 99.4% of the vertices the first bottom-up round
        of a BFS reaches (docs/performance.md#every-run). None where csc_hubs_first() fell back to csc()."""
        self.csc_hubs_first()
        return self._hubs_first_column

    def light_heavy(self, delta: float) -> tuple[tuple[Any, Any, Any], tuple[Any, Any, Any]]:
        """The out-arcs split at `delta` into two CSRs (offsets, indices, weights): the light ones (weight < delta)
        and the heavy ones, each row in its CSR order; Meyer & Sanders' light/heavy split for near-far (weighted
        graphs: program_persistent checks). Cached per delta (the last one asked only: a copy of the graph's arcs)."""
        split = self._light_heavy.get(delta)
        if split is None:
            cp = cupy()
            # both halves together hold the arcs once; the mask and its int64 running count are temporary
            rt.check_free_memory(8 * self.num_arcs + 2 * self.offsets.nbytes + 9 * self.num_arcs,
                                 f"the light/heavy split of the arcs at delta {delta:g}")
            self._light_heavy.clear()
            if self.persistent is not None:  # plans hold the old split's arrays
                self.persistent.plans.clear()
            light = self.weights < delta
            before = cp.concatenate([cp.zeros(1, dtype=cp.int64), cp.cumsum(light, dtype=cp.int64)])
            light_offsets = before[self.offsets]
            heavy_offsets = self.offsets - light_offsets
            split = self._light_heavy[delta] = (
                (light_offsets, self.indices[light], self.weights[light]),
                (heavy_offsets, self.indices[~light], self.weights[~light]),
            )
        return split

    def split_csc(self, delta: float, part: int) -> tuple[Any, ...] | None:
        """One half of light_heavy(delta) (part 0 the light arcs, 1 the heavy ones) as an in-arc CSC (offsets,
        sources, weights; each row's sources in increasing order) and its long rows' chunks (hub_chunks), for the
        pulls of near-far's split (kernels/persistent.cuh gg_split_pull: a bucket's heavy rows, a light round).
        Cached with the split; None where the device has no room for it (those arcs are then pushed)."""
        offsets, indices, weights = self.light_heavy(delta)[part]
        key = ("csc", part, delta)
        csc = self._light_heavy.get(key)
        if csc is None:
            cp = cupy()
            arcs = int(indices.size)
            try:  # the CSC (12 bytes an arc) and the sort's temporaries (the rows and the order, 16)
                rt.check_free_memory(28 * arcs + offsets.nbytes,
                                     f"the {('light', 'heavy')[part]} arcs' in-arc CSC at delta {delta:g}")
            except DeviceMemoryError:
                return None
            rows = cp.repeat(cp.arange(self.num_vertices, dtype=cp.int32), cp.diff(offsets))
            order = cp.argsort(indices)  # stable: each row's sources stay in increasing order
            t_offsets = cp.zeros(self.num_vertices + 1, dtype=cp.int64)
            cp.cumsum(cp.bincount(indices, minlength=self.num_vertices), out=t_offsets[1:])
            csc = self._light_heavy[key] = (t_offsets, rows[order], weights[order],
                                            *hub_chunks(t_offsets, SPLIT_CHUNK_FROM, HEAVY_CHUNK))
        return csc


def hub_chunks(offsets: Any, huge: int, chunk: int) -> tuple[Any, Any, Any]:
    """The rows of at least `huge` arcs cut into chunks of `chunk` arcs: (row, first arc, end arc) per chunk, as
    device arrays (int32, int64, int64)."""
    cp = cupy()
    degree = cp.diff(offsets)
    hubs = cp.flatnonzero(degree >= huge).astype(cp.int32)
    pieces = (degree[hubs] + chunk - 1) // chunk
    rows = cp.repeat(hubs, pieces)
    starts = cp.cumsum(pieces) - pieces  # first chunk index of each row
    within = cp.arange(rows.size) - cp.repeat(starts, pieces)
    first = offsets[rows] + within * chunk
    return rows, first, cp.minimum(first + chunk, offsets[rows + 1])

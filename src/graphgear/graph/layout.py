"""Vertex layouts: MultiGraph's degree-group renumbering (Hong et al., PACT'17, section 4 and Table 1).

A power-law graph's edges mostly point at a few hubs, scattered over the id range by the generator or the file. A pull
pass (PageRank's gather) reads one value per in-edge at its source's id, so each read is a random 32-byte sector of a
V-long array. Renumbering the vertices by decreasing out-degree packs the sources that are read most often into the
first ids: their values share cache lines, and the L1/L2 caches hold the hot part of the array: layout "degree" sorts
by decreasing out-degree. MultiGraph's own preprocessing, layout "in_degree_groups", puts the vertices into the six
groups of its Table 1 by in-degree (>= 2048, 1024-2047, 512-1023, 256-511, 128-255, < 128), each group numbered
consecutively in id order: a row panel of its edge matrix then holds destinations of one group, whose work per vertex
is alike, and its sparse mode treats groups 1-4 and 5-6 apart.

    DegreeRenumbering.order[new] = old id,   .rank[old] = new id,   .graph = the same graph with vertices renumbered

`degree_renumbering(graph)` and `in_degree_groups(graph)` build theirs once per Graph and cache it. Algorithms run on
`.graph` and map their results back with `to_original` (values per vertex) so users never see the internal ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from .build import first_unsorted_row

if TYPE_CHECKING:  # pragma: no cover
    from .graph import Graph

__all__ = ["LAYOUTS", "IN_DEGREE_GROUPS", "DegreeRenumbering", "check_layout", "degree_renumbering", "device_layout",
           "in_degree_group", "in_degree_groups", "shared_group_segments", "shared_group_targets", "skewed"]

LAYOUTS = ("auto", "given", "degree", "in_degree_groups")  # an algorithm's `layout` argument: see device_layout
IN_DEGREE_GROUPS = (2048, 1024, 512, 256, 128)  # MultiGraph's Table 1: the lower in-degree bound of groups 1-5

SKEWED_GINI = 0.5  # a degree distribution this uneven (Gini) counts as power-law
SKEWED_MIN_ARCS = 1 << 20  # below this the whole graph stays in cache: renumbering gains nothing


@dataclass(frozen=True)
class DegreeRenumbering:
    """A graph's vertices renumbered by degree: by decreasing out-degree (layout "degree"), or by MultiGraph's
    in-degree groups (layout "in_degree_groups"); ties keep their id order."""

    order: np.ndarray  # int64[V]: new id -> original id
    rank: np.ndarray  # int64[V]: original id -> new id
    graph: Any  # the renumbered Graph
    device: dict = field(default_factory=dict, repr=False, compare=False)  # CuPy copies of order and rank

    def to_renumbered(self, values: Any) -> Any:
        """A per-vertex array in original ids, rearranged to the renumbered ids (NumPy or CuPy)."""
        return values[self.index("order", values)]

    def to_original(self, values: Any) -> Any:
        """A per-vertex array in renumbered ids, rearranged back to the original ids (NumPy or CuPy)."""
        return values[self.index("rank", values)]

    def index(self, name: str, values: Any) -> Any:
        """order or rank where it can index `values`: as it is for NumPy, its device copy for CuPy."""
        return getattr(self, name) if isinstance(values, np.ndarray) else self.device_index(name)

    def device_index(self, name: str) -> Any:
        """The cached CuPy copy of order or rank (int32: half the bytes for a gather to read; a renumbered graph's
        ids fit, as its CSR's indices do)."""
        if name not in self.device:
            import cupy as cp

            self.device[name] = cp.asarray(getattr(self, name).astype(self.graph.indices.dtype))
        return self.device[name]


def skewed(graph: Graph) -> bool:
    """Whether a pull pass over `graph` gains from degree renumbering: a power-law degree distribution (Gini >=
    SKEWED_GINI) on a graph too large for the caches (>= SKEWED_MIN_ARCS arcs)."""
    return graph.num_arcs >= SKEWED_MIN_ARCS and graph.degree_stats()["gini"] >= SKEWED_GINI


def check_layout(layout: str) -> None:
    """A clear error for a `layout` argument that is not one of LAYOUTS."""
    if layout not in LAYOUTS:
        from ..errors import GraphError

        raise GraphError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")


def device_layout(backend: Any, graph: Graph, layout: str, auto: bool) -> tuple[DegreeRenumbering | None, Any, str]:
    """The vertex layout an algorithm runs on: (the renumbering or None, the backend's graph to run on, a note for
    the trace). "degree": the graph renumbered by degree; "in_degree_groups": by MultiGraph's in-degree groups;
    "given": the ids as they are; "auto": degree where `auto` (the algorithm gains from it on this backend) and the
    graph is skewed, given otherwise, and given where the device has no room for the renumbered copy
    (DeviceMemoryError; an explicit layout raises it)."""
    from ..errors import DeviceMemoryError

    check_layout(layout)
    if layout == "given" or (layout == "auto" and not (auto and skewed(graph))):
        return None, backend.graph(graph), ""
    if layout == "in_degree_groups":
        renumbering, note = in_degree_groups(graph), "; vertices renumbered by in-degree group (MultiGraph, Table 1)"
    else:
        renumbering, note = degree_renumbering(graph), "; vertices renumbered by degree (MultiGraph)"
    try:
        return renumbering, backend.graph(renumbering.graph), note
    except DeviceMemoryError:
        if layout != "auto":
            raise
        return None, backend.graph(graph), "; ids as given (no device memory for the degree renumbering)"


def degree_renumbering(graph: Graph) -> DegreeRenumbering:
    """The degree renumbering of `graph` (built on first use, then cached on the graph)."""
    cached = graph.layouts.get("degree")
    if cached is None:
        cached = graph.layouts["degree"] = _renumbered(graph, np.argsort(-graph.out_degree(), kind="stable"),
                                                       "degree renumbered")
    return cached


def in_degree_group(in_degree: np.ndarray) -> np.ndarray:
    """MultiGraph's group of each vertex by its in-degree (Table 1), numbered 0..5 for the paper's groups 1..6."""
    return np.searchsorted(-np.asarray(IN_DEGREE_GROUPS), -np.asarray(in_degree), side="left")


def in_degree_groups(graph: Graph) -> DegreeRenumbering:
    """`graph` renumbered by MultiGraph's in-degree groups (Table 1): group 1 (in-degree >= 2048) first, each group
    in id order (built on first use, then cached on the graph)."""
    cached = graph.layouts.get("in_degree_groups")
    if cached is None:
        order = np.argsort(in_degree_group(graph.in_degree()), kind="stable")
        # rows sorted by target, as MultiGraphS's segments read them (shared_group_targets)
        cached = graph.layouts["in_degree_groups"] = _renumbered(graph, order, "renumbered by in-degree group",
                                                                 sort_rows=True)
    return cached


def shared_group_targets(graph: Graph) -> int:
    """How many targets MultiGraphS accumulates in shared memory on `graph` (balance="segmented"): the vertices of
    in-degree groups 1-4 (in-degree >= IN_DEGREE_GROUPS[3]). They must be numbered first and every row sorted by
    target, as layout "in_degree_groups" makes them, so that a row's arcs into a segment of them are one stretch
    (shared_group_segments says where); StrategyError otherwise. Checked once per graph (O(arcs)), then cached."""
    cached = graph.layouts.get("shared_group_targets")
    if cached is None:
        from ..errors import StrategyError

        high = graph.in_degree() >= IN_DEGREE_GROUPS[3]
        count = int(high.sum())
        if not high[:count].all() or first_unsorted_row(graph.offsets, graph.indices) >= 0:
            raise StrategyError(
                f"balance=segmented accumulates the targets of in-degree groups 1-4 in shared memory: they must be "
                f"numbered first and each row sorted by target, which {graph.name or 'this graph'} is not; run it "
                "with layout='in_degree_groups'")
        cached = graph.layouts["shared_group_targets"] = count
    return cached


def shared_group_segments(graph: Graph, segment: int) -> np.ndarray | None:
    """MultiGraphS's segment table (balance="segmented"; the paper keeps a CSC per segment): for the targets of
    in-degree groups 1-4 cut into segments of `segment` ids, int32[V, S + 1] whose row u holds, for s < S, the offset in
    u's row of its first arc into segment s, and at S that of its first arc past the groups (three_stage's part). A
    block then reads where a row's arcs into its segment begin and end instead of searching the row. None where no
    vertex is in groups 1-4. Built once per graph and segment size (a binary search per row and boundary), cached."""
    key = f"shared_group_segments:{segment}"
    if key not in graph.layouts:
        high = shared_group_targets(graph)
        count = -(-high // segment)
        bounds = np.append(np.arange(count, dtype=np.int64) * segment, high)
        graph.layouts[key] = (_segment_starts(graph.offsets, graph.indices, bounds.astype(graph.indices.dtype))
                              if count else None)
    return graph.layouts[key]


@numba.njit(parallel=True, nogil=True, cache=True)
def _segment_starts(offsets, indices, bounds):  # pragma: no cover
    """Per row (sorted by target), the offset of its first arc at or past each bound."""
    n = offsets.shape[0] - 1
    out = np.empty((n, bounds.shape[0]), dtype=np.int32)
    for u in numba.prange(n):
        out[u, :] = np.searchsorted(indices[offsets[u]:offsets[u + 1]], bounds)
    return out


def _renumbered(graph: Graph, order: np.ndarray, label: str, sort_rows: bool = False) -> DegreeRenumbering:
    """`graph` with vertex order[new] given the id `new`: the renumbering and the renumbered graph (each row sorted
    by target where `sort_rows`, else in the original row's order)."""
    from .graph import Graph

    degree = graph.out_degree()
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size, dtype=order.dtype)
    offsets = np.zeros(graph.num_vertices + 1, dtype=np.int64)
    np.cumsum(degree[order], out=offsets[1:])
    indices = np.empty_like(graph.indices)
    weighted = graph.weights is not None
    weights = np.empty_like(graph.weights) if weighted else np.zeros(1, dtype=np.float32)
    _renumber_rows(graph.offsets, graph.indices, graph.weights if weighted else weights, weighted, order,
                   rank.astype(graph.indices.dtype), offsets, indices, weights, sort_rows)
    renumbered = Graph(offsets, indices, weights if weighted else None, directed=graph.directed,
                       name=f"{graph.name} ({label})" if graph.name else label)
    return DegreeRenumbering(order, rank, renumbered)


@numba.njit(parallel=True, nogil=True, cache=True)
def _renumber_rows(offsets, indices, weights, weighted, order, rank, new_offsets, new_indices, new_weights,
                   sort_rows):  # pragma: no cover
    """Row `new` of the renumbered CSR is row order[new] of the original, its targets renumbered by `rank` (and
    sorted, arcs to the same target in their order, where `sort_rows`)."""
    for new in numba.prange(order.shape[0]):
        old = order[new]
        start = offsets[old]
        to = new_offsets[new]
        d = offsets[old + 1] - start
        for k in range(d):
            new_indices[to + k] = rank[indices[start + k]]
            if weighted:
                new_weights[to + k] = weights[start + k]
        if sort_rows and d > 1:
            by = np.argsort(new_indices[to:to + d], kind="mergesort")
            new_indices[to:to + d] = new_indices[to:to + d][by]
            if weighted:
                new_weights[to:to + d] = new_weights[to:to + d][by]

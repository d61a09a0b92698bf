"""Vertex layouts: MultiGraph's degree-group renumbering (Hong et al., PACT'17, section 4 and Table 1).

A power-law graph's edges mostly point at a few hubs, scattered over the id range by the generator or the file. A pull
pass (PageRank's gather) reads one value per in-edge at its source's id, so each read is a random 32-byte sector of a
V-long array. Renumbering the vertices by decreasing out-degree packs the sources that are read most often into the
first ids: their values share cache lines, and the L1/L2 caches hold the hot part of the array. MultiGraph renumbers
its dense-frontier layout by degree groups for this reason; graphgear sorts by degree (a finer grouping, one step).

    DegreeRenumbering.order[new] = old id,   .rank[old] = new id,   .graph = the same graph with vertices renumbered

`degree_renumbering(graph)` builds it once per Graph and caches it. Algorithms run on `.graph` and map their results
back with `to_original` (values per vertex) so users never see the internal ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .graph import Graph

__all__ = ["LAYOUTS", "DegreeRenumbering", "check_layout", "degree_renumbering", "device_layout", "skewed"]

LAYOUTS = ("auto", "given", "degree")  # an algorithm's `layout` argument: see device_layout

SKEWED_GINI = 0.5  # a degree distribution this uneven (Gini) counts as power-law
SKEWED_MIN_ARCS = 1 << 20  # below this the whole graph stays in cache: renumbering gains nothing


@dataclass(frozen=True)
class DegreeRenumbering:
    """A graph's vertices renumbered by decreasing out-degree (ties keep their id order)."""

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
    the trace). "degree": the graph renumbered by degree; "given": the ids as they are; "auto": degree where `auto`
    (the algorithm gains from it on this backend) and the graph is skewed, given otherwise, and given where the
    device has no room for the renumbered copy (DeviceMemoryError; "degree" raises it)."""
    from ..errors import DeviceMemoryError

    check_layout(layout)
    if layout == "given" or (layout == "auto" and not (auto and skewed(graph))):
        return None, backend.graph(graph), ""
    renumbering = degree_renumbering(graph)
    try:
        return renumbering, backend.graph(renumbering.graph), "; vertices renumbered by degree (MultiGraph)"
    except DeviceMemoryError:
        if layout == "degree":
            raise
        return None, backend.graph(graph), "; ids as given (no device memory for the degree renumbering)"


def degree_renumbering(graph: Graph) -> DegreeRenumbering:
    """The degree renumbering of `graph` (built on first use, then cached on the graph)."""
    cached = graph.layouts.get("degree")
    if cached is not None:
        return cached
    from .graph import Graph

    degree = graph.out_degree()
    order = np.argsort(-degree, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size, dtype=order.dtype)
    offsets = np.zeros(graph.num_vertices + 1, dtype=np.int64)
    np.cumsum(degree[order], out=offsets[1:])
    indices = np.empty_like(graph.indices)
    weighted = graph.weights is not None
    weights = np.empty_like(graph.weights) if weighted else np.zeros(1, dtype=np.float32)
    _renumber_rows(graph.offsets, graph.indices, graph.weights if weighted else weights, weighted, order,
                   rank.astype(graph.indices.dtype), offsets, indices, weights)
    renumbered = Graph(offsets, indices, weights if weighted else None, directed=graph.directed,
                       name=f"{graph.name} (degree renumbered)" if graph.name else "degree renumbered")
    layout = graph.layouts["degree"] = DegreeRenumbering(order, rank, renumbered)
    return layout


@numba.njit(parallel=True, nogil=True, cache=True)
def _renumber_rows(offsets, indices, weights, weighted, order, rank, new_offsets, new_indices, new_weights):  # pragma: no cover
    """Row `new` of the renumbered CSR is row order[new] of the original, its targets renumbered by `rank`."""
    for new in numba.prange(order.shape[0]):
        old = order[new]
        start = offsets[old]
        to = new_offsets[new]
        for k in range(offsets[old + 1] - start):
            new_indices[to + k] = rank[indices[start + k]]
            if weighted:
                new_weights[to + k] = weights[start + k]

"""The model of a graph partitioned over Dask workers: the 1D partition of the CSR and the CSC by source-vertex ranges.

Rank r of P owns the vertices [bounds[r], bounds[r + 1]): their out-edges (its rows of the CSR, targets in global ids)
and, on a directed graph, their in-edges (its rows of the CSC); an undirected graph's CSR is its own CSC, stored once.
The ranges are cut where the running count of arcs (out + in on a directed graph) passes r/P of the total, so each rank
holds about as many arcs ("source-vertex ranges balanced by arcs"), the 1D partition of Buluç & Madduri's distributed
BFS and of cuGraph's multi-GPU graphs. Every per-vertex array of a run is split the same way: a rank computes its
slice, and the collectives (comm.py) move slices between ranks.

A `DistributedGraph` is the client's handle: the workers, the bounds, one Dask future per rank holding its `Part` in
that worker's memory, and the graph's sizes and labels. Its parts are made either by scattering a single-process
Graph's rows from the client, or on the workers themselves (readers.py: each reads its byte range of a file, or draws
its share of a generator's records, and the records travel to their owners).
"""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..graph.graph import Graph
from . import runtime

__all__ = ["Part", "DistributedGraph", "balanced_bounds", "is_distributed"]

BACKENDS = ("auto", "cpu", "cuda")
ALIGN = 8  # every range but the last starts and ends on a multiple of 8: the ranks' packed frontier bits concatenate


@dataclass
class Part:
    """Rank r's share: rows [lo, hi) of the CSR (and of the CSC on a directed graph) of a graph of n vertices."""

    lo: int
    hi: int
    n: int
    directed: bool
    bounds: np.ndarray  # every rank's range: [bounds[r], bounds[r + 1])
    offsets: np.ndarray  # int64[hi - lo + 1], from 0
    indices: np.ndarray  # int32/int64 global target ids
    weights: np.ndarray | None
    in_offsets: np.ndarray | None = None  # directed only: in-edges of [lo, hi), sources in global ids
    in_indices: np.ndarray | None = None
    in_weights: np.ndarray | None = None
    labels: np.ndarray | None = None  # the graph's vertex labels (every rank holds them), None without labels
    name: str = ""
    build_seconds: dict[str, float] | None = None  # the rank's build phases, where the workers built the part

    @property
    def size(self) -> int:
        return self.hi - self.lo

    @property
    def num_arcs(self) -> int:
        return int(self.indices.shape[0])

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The in-edges of the rank's vertices (the CSR itself on an undirected graph)."""
        if not self.directed:
            return self.offsets, self.indices, self.weights
        return self.in_offsets, self.in_indices, self.in_weights

    def nbytes(self) -> int:
        arrays = (self.offsets, self.indices, self.weights, self.in_offsets, self.in_indices, self.in_weights)
        return sum(a.nbytes for a in arrays if a is not None)


def is_distributed(graph: Any) -> bool:
    return isinstance(graph, DistributedGraph)


EQUAL_RANGES_SLACK = 0.05  # equal vertex ranges unless a rank then holds over 5% more arcs than the mean


def balanced_bounds(arcs_per_vertex: np.ndarray, parts: int) -> np.ndarray:
    """Vertex bounds [0, b1, ..., n] of `parts` ranges, every one but the last starting and ending on a multiple of
    ALIGN (a range may be empty on a tiny graph).

    Equal ranges (every rank but the last holds the same number of vertices) where no rank then holds more than
    EQUAL_RANGES_SLACK over the mean number of arcs, as on graphs with randomly numbered vertices (Graph500's Kronecker
    graphs): the ranks' slices of a vertex array then lie where NCCL's allgather and reduce-scatter put them, with no
    copy into a padded layout (comm.py; what the copies cost is in docs/distributed.md). Otherwise b_r is the first
    vertex at which the running count of arcs reaches r/parts of all of them, rounded down to a multiple of ALIGN."""
    n = int(arcs_per_vertex.shape[0])
    running = np.concatenate(([0], np.cumsum(arcs_per_vertex, dtype=np.int64)))
    total = int(running[-1])
    if total == 0:  # no arcs: split the vertices evenly
        running = np.arange(n + 1, dtype=np.int64)
        total = n
    equal = equal_ranges(n, parts)
    if keeps_equal_ranges(np.diff(running[equal]), total):
        return equal
    return arc_cuts(n, np.searchsorted(running, cut_targets(total, parts), side="left"))


def equal_ranges(n: int, parts: int) -> np.ndarray:
    """Bounds of `parts` ranges of n vertices, every one but the last the same multiple of ALIGN long."""
    step = -(-n // (parts * ALIGN)) * ALIGN
    equal = np.minimum(np.arange(parts + 1, dtype=np.int64) * step, n)
    equal[-1] = n
    return equal


def keeps_equal_ranges(range_arcs: np.ndarray, total: int) -> bool:
    """Whether no equal range holds more than EQUAL_RANGES_SLACK over the mean of the arcs."""
    return bool(range_arcs.max(initial=0) <= (1 + EQUAL_RANGES_SLACK) * total / len(range_arcs))


def cut_targets(total: int, parts: int) -> np.ndarray:
    """The running arc counts at which ranges 1..parts-1 begin: r/parts of all."""
    return np.arange(1, parts, dtype=np.float64) * total / parts


def arc_cuts(n: int, firsts: np.ndarray) -> np.ndarray:
    """Bounds from the first vertex at which each cut's running count is reached, rounded down to ALIGN."""
    return np.concatenate(([0], np.minimum(firsts // ALIGN * ALIGN, n), [n])).astype(np.int64)


def _rows(offsets: np.ndarray, indices: np.ndarray, weights: np.ndarray | None, lo: int, hi: int) -> tuple:
    a, b = int(offsets[lo]), int(offsets[hi])
    return (np.ascontiguousarray(offsets[lo:hi + 1] - a), np.ascontiguousarray(indices[a:b]),
            None if weights is None else np.ascontiguousarray(weights[a:b]))


def parts_of(graph: Graph, bounds: np.ndarray) -> list[Part]:
    """The Parts of a single-process Graph under `bounds` (copies of its rows, made on the client)."""
    n = graph.num_vertices
    csc = graph.csc() if graph.directed else None
    out = []
    for r in range(len(bounds) - 1):
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        part = Part(lo, hi, n, graph.directed, bounds, *_rows(graph.offsets, graph.indices, graph.weights, lo, hi))
        if csc is not None:
            part.in_offsets, part.in_indices, part.in_weights = _rows(*csc, lo, hi)
        out.append(part)
    return out


def arcs_per_vertex(graph: Graph) -> np.ndarray:
    """What the partition balances: out-degree, plus in-degree on a directed graph (its CSC is stored too)."""
    return graph.out_degree() + graph.in_degree() if graph.directed else graph.out_degree()


class DistributedGraph:
    """A graph partitioned over the workers of a Dask client (see the module notes). Made by `partition`; pass it to
    `gg.bfs`, `gg.sssp`, `gg.pagerank` or `gg.connected_components` as any graph. ``close()`` (or a ``with`` block)
    releases the parts, the device copies and the collectives on the workers."""

    def __init__(self, client: Any, workers: list[str], backend: str, gpus: list[int] | None = None) -> None:
        self.client = client
        self.workers = list(workers)
        self.backend = backend
        self.key = f"gg-{uuid.uuid4().hex[:12]}"
        self.parts: list[Any] = []
        self.bounds = np.zeros(len(workers) + 1, dtype=np.int64)
        self.num_vertices = 0
        self.num_arcs = 0
        self.directed = False
        self.weighted = False
        self.vertex_ids: np.ndarray | None = None
        self.name = ""
        self.build_seconds: list[dict[str, float]] | None = None  # per rank, where the workers built the parts
        self._open = False
        self._authkey = secrets.token_bytes(16)
        self._gpus = list(gpus) if gpus else [1] * len(workers)  # GPUs each worker sees

    # --------------------------------------------------------------------------------------------------- properties
    @property
    def size(self) -> int:
        """The number of ranks (workers)."""
        return len(self.workers)

    @property
    def counts(self) -> np.ndarray:
        """How many vertices each rank owns."""
        return np.diff(self.bounds)

    @property
    def num_edges(self) -> int:
        return self.num_arcs if self.directed else self.num_arcs // 2  # self-loops are dropped by the builders

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return (f"DistributedGraph({self.name!r}, {kind}, {self.num_vertices:,} vertices, {self.num_arcs:,} arcs over "
                f"{self.size} {self.backend} worker{'s' if self.size != 1 else ''})")

    def labels_graph(self) -> Graph:
        """A Graph of the same vertices and labels and no arcs: what argument checks (a source, a personalization
        dict) and the result exports look labels up in. Made once."""
        shim = getattr(self, "_labels_graph", None)
        if shim is None or shim.num_vertices != self.num_vertices:
            shim = Graph(np.zeros(self.num_vertices + 1, dtype=np.int64), np.zeros(0, dtype=np.int32), None,
                         directed=self.directed, vertex_ids=self.vertex_ids, name=self.name)
            self._labels_graph = shim
        return shim

    def out_degree(self) -> np.ndarray:
        """int64[V]: every vertex's out-degree, gathered from the ranks."""
        return np.concatenate(self.spmd(_out_degree)) if self.parts else np.zeros(0, dtype=np.int64)

    def vertex_index(self, labels: Any, name: str = "vertex") -> Any:
        return self.labels_graph().vertex_index(labels, name)

    def vertex_labels(self, index: Any) -> np.ndarray:
        return self.labels_graph().vertex_labels(index)

    # ------------------------------------------------------------------------------------------------------ running
    def open(self) -> None:
        """Open the ranks' collectives on the workers (two rounds of one task per worker); done once."""
        if self._open:
            return
        P = self.size
        replies = self.client.gather([
            self.client.submit(runtime.listen, self.key, r, self.backend, self._authkey, workers=[w],
                               allow_other_workers=False, pure=False, key=f"{self.key}-listen-{r}")
            for r, w in enumerate(self.workers)])
        addresses = [a for a, _, _ in replies]
        unique_id = replies[0][1]
        places = runtime.devices([g for _, _, g in replies], self._gpus)
        self.client.gather([
            self.client.submit(runtime.connect, self.key, r, P, self.backend, addresses, self._authkey, unique_id,
                               places[r], workers=[w], allow_other_workers=False, pure=False,
                               key=f"{self.key}-connect-{r}")
            for r, w in enumerate(self.workers)])
        self._open = True

    def spmd(self, fn: Callable[..., Any], *args: Any, parts: list[Any] | None = None, keep: bool = False,
             per_rank: list[tuple] | None = None) -> list[Any]:
        """Run ``fn(rank, part, *args, *per_rank[r])`` on every rank at once; the results in rank order, or their
        futures (left on the workers) with ``keep=True``."""
        if not self._open:
            self.open()
        parts = self.parts if parts is None else parts
        tag = uuid.uuid4().hex[:8]
        futures = [
            self.client.submit(runtime.run_on_rank, self.key, r, fn, parts[r] if parts else None, *args,
                               *(per_rank[r] if per_rank else ()), workers=[w], allow_other_workers=False,
                               pure=False, key=f"{self.key}-{getattr(fn, '__name__', 'fn')}-{tag}-{r}")
            for r, w in enumerate(self.workers)]
        return futures if keep else self.client.gather(futures)

    def to_graph(self) -> Graph:
        """The whole graph as one single-process Graph, its parts gathered to the client (for checks and tests)."""
        parts = self.client.gather(self.parts)
        offsets = [np.zeros(1, dtype=np.int64)]
        base = 0
        for p in parts:
            offsets.append(p.offsets[1:] + base)
            base += p.num_arcs
        weights = None if not self.weighted else np.concatenate([p.weights for p in parts])
        g = Graph(np.concatenate(offsets), np.concatenate([p.indices for p in parts]), weights,
                  directed=self.directed, vertex_ids=self.vertex_ids, name=self.name)
        return g

    def close(self) -> None:
        """Release the parts and the ranks' collectives and device arrays on the workers."""
        if self._open:
            try:
                self.client.gather([
                    self.client.submit(runtime.release, self.key, r, workers=[w], allow_other_workers=False,
                                       pure=False, key=f"{self.key}-release-{r}")
                    for r, w in enumerate(self.workers)])
            except Exception:  # a worker already gone: nothing of this graph is left on it
                pass
            self._open = False
        for f in self.parts:
            f.release()
        self.parts = []

    def __enter__(self) -> DistributedGraph:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _out_degree(ctx: Any, part: Part) -> np.ndarray:
    return np.diff(part.offsets).astype(np.int64)

"""The Graph: a CSR of out-edges, a lazily built CSC of in-edges, optional weights, and caches.

One Graph is built once and then only read: algorithms, statistics and backends share its arrays. Layout:

- ``offsets``  int64[V + 1]: row u's out-edges are ``indices[offsets[u]:offsets[u + 1]]``, sorted by target;
- ``indices``  int32[A] (int64 once V >= 2^31): the targets, A = number of stored arcs;
- ``weights``  float32[A] or None;
- an undirected graph stores both arcs of every edge, so its CSR is symmetric and is its own CSC.

Statistics (`stats`) and device copies (filled by the backends) are cached on the Graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from ..errors import GraphError
from .build import BuildCounts, as_id_array, build_csr, check_id_range, index_dtype, renumber_ids

if TYPE_CHECKING:  # pragma: no cover
    import networkx
    import scipy.sparse

__all__ = ["Graph"]

_POLICIES = ("drop", "keep")


class Graph:
    """A graph in CSR form. Build one with `graphgear.load`, `Graph.from_edges` or the other ``from_*`` constructors."""

    def __init__(
        self,
        offsets: np.ndarray,
        indices: np.ndarray,
        weights: np.ndarray | None = None,
        *,
        directed: bool = True,
        vertex_ids: np.ndarray | None = None,
        counts: BuildCounts = BuildCounts(),
        name: str = "",
    ) -> None:
        """Wrap CSR arrays as they are (checked, not copied). Most users want `Graph.from_edges` instead."""
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        if offsets.ndim != 1 or offsets.size == 0 or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
            raise GraphError("CSR offsets must be a non-empty, non-decreasing 1-D array starting at 0")
        num_vertices = offsets.size - 1
        indices = np.ascontiguousarray(indices, dtype=index_dtype(num_vertices))
        if indices.shape != (int(offsets[-1]),):
            raise GraphError(f"CSR indices hold {indices.size} arcs but offsets end at {int(offsets[-1])}")
        check_id_range(indices, num_vertices, "indices")
        if weights is not None:
            weights = np.ascontiguousarray(weights, dtype=np.float32)
            if weights.shape != indices.shape:
                raise GraphError(f"{weights.size} weights for {indices.size} arcs")
        if vertex_ids is not None and len(vertex_ids) != num_vertices:
            raise GraphError(f"{len(vertex_ids)} vertex ids for {num_vertices} vertices")
        self.offsets = offsets
        self.indices = indices
        self.weights = weights
        self.directed = bool(directed)
        self.vertex_ids = vertex_ids
        self.counts = counts
        self.name = name
        self._csc: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = None
        self._stats: dict[str, Any] | None = None
        self._degree_stats: dict[str, Any] | None = None
        self._self_loops: int | None = None
        self._lightest_arc: tuple[int, float] | None = None
        self._label_index: dict[Any, int] | None = None
        self.device_cache: dict[str, Any] = {}  # filled by backends: device copies of the arrays above
        self.layouts: dict[str, Any] = {}  # filled by graph.layout: renumbered copies (degree renumbering)

    # ------------------------------------------------------------------------------------------------- constructors
    @classmethod
    def from_edges(
        cls,
        src: Any,
        dst: Any,
        weights: Any = None,
        num_vertices: int | None = None,
        directed: bool = True,
        *,
        self_loops: str = "drop",
        duplicates: str = "drop",
        renumber: bool | None = None,
        name: str = "",
    ) -> Graph:
        """Build a Graph from edge records ``src[i] -> dst[i]`` (with ``weights[i]``).

        Vertex ids are 0..num_vertices-1; without num_vertices the id range is 0..max(id). Self-loops and duplicate
        records are dropped unless ``self_loops="keep"`` / ``duplicates="keep"`` (a duplicate keeps its minimum weight);
        `stats` reports both counts. ``renumber=True`` maps arbitrary labels (sparse ints, strings) to 0..V-1 in sorted
        order and keeps them in ``vertex_ids``; the default renumbers only labels that are not numbers (numbers must be
        whole). An undirected graph (``directed=False``) stores both arcs of every edge.
        """
        for option, value in (("self_loops", self_loops), ("duplicates", duplicates)):
            if value not in _POLICIES:
                raise GraphError(f"{option} must be 'drop' or 'keep', got {value!r}")
        src_raw, dst_raw = np.asarray(src), np.asarray(dst)
        if src_raw.ndim != 1 or dst_raw.ndim != 1 or src_raw.shape != dst_raw.shape:
            raise GraphError(f"src and dst must be 1-D arrays of one length, got shapes {src_raw.shape} and {dst_raw.shape}")
        w = None
        if weights is not None:
            w = np.asarray(weights)
            if w.shape != src_raw.shape:
                raise GraphError(f"weights must have the shape of src {src_raw.shape}, got {w.shape}")
            if w.dtype.kind not in "iuf" or w.dtype.kind == "b":
                raise GraphError(f"weights must be numbers, got dtype {w.dtype}")
            w = w.astype(np.float32)
            if w.size and not np.all(np.isfinite(w)):
                i = int(np.argmin(np.isfinite(w)))
                raise GraphError(f"weights[{i}] = {float(w[i])} is not a finite float32")
        if renumber is None:  # numbers are ids (floats must be whole); anything else (strings, objects) are labels
            renumber = src_raw.dtype.kind not in "iuf" or dst_raw.dtype.kind not in "iuf"
        vertex_ids = None
        if renumber:
            if num_vertices is not None:
                raise GraphError("num_vertices cannot be given with renumber=True: the labels define the vertices")
            s, d, vertex_ids = renumber_ids(src_raw, dst_raw)
            n = len(vertex_ids)
        else:
            s, d = as_id_array(src_raw, "src"), as_id_array(dst_raw, "dst")
            if num_vertices is None:
                n = int(max(s.max(), d.max())) + 1 if s.size else 0
                if s.size and min(int(s.min()), int(d.min())) < 0:
                    check_id_range(s, n, "src")
                    check_id_range(d, n, "dst")
            else:
                n = int(num_vertices)
                if n < 0:
                    raise GraphError(f"num_vertices must be >= 0, got {num_vertices}")
            check_id_range(s, n, "src")
            check_id_range(d, n, "dst")
        offsets, indices, out_w, counts = build_csr(
            s, d, w, n, directed, keep_self_loops=self_loops == "keep", keep_duplicates=duplicates == "keep"
        )
        return cls(offsets, indices, out_w, directed=directed, vertex_ids=vertex_ids, counts=counts, name=name)

    @classmethod
    def from_scipy(cls, matrix: Any, directed: bool | None = None, **options: Any) -> Graph:
        """Build from a square scipy.sparse matrix or array: entry (i, j) is an arc i -> j weighted by its value.

        A pattern-only (boolean) matrix gives an unweighted graph. ``directed=None`` means undirected exactly when the
        matrix is symmetric.
        """
        from .build import from_scipy

        return from_scipy(cls, matrix, directed, **options)

    @classmethod
    def from_networkx(cls, graph: Any, weight: str | None = "weight", **options: Any) -> Graph:
        """Build from a networkx Graph/DiGraph; node labels are kept in ``vertex_ids`` (in the graph's node order)."""
        from .build import from_networkx

        return from_networkx(cls, graph, weight, **options)

    @classmethod
    def from_table(
        cls,
        table: Any,
        source: str = "src",
        target: str = "dst",
        weight: str | None = None,
        directed: bool = True,
        **options: Any,
    ) -> Graph:
        """Build from a pandas DataFrame or pyarrow Table of edges, naming its source, target and weight columns."""
        from .build import from_table

        return from_table(cls, table, source, target, weight, directed, **options)

    # ---------------------------------------------------------------------------------------------------- sizes
    @property
    def num_vertices(self) -> int:
        """Number of vertices V (ids 0..V-1)."""
        return self.offsets.shape[0] - 1

    @property
    def num_arcs(self) -> int:
        """Number of stored arcs (an undirected edge counts twice, a kept self-loop once)."""
        return self.indices.shape[0]

    @property
    def num_edges(self) -> int:
        """Edges: arcs of a directed graph, unordered pairs (self-loops once) of an undirected one."""
        if self.directed:
            return self.num_arcs
        loops = self.num_self_loops
        return (self.num_arcs - loops) // 2 + loops

    @property
    def num_self_loops(self) -> int:
        """Self-loops stored (0 unless the graph was built with self_loops='keep')."""
        if self._self_loops is None:
            self._self_loops = int(_count_self_loops(self.offsets, self.indices))
        return self._self_loops

    @property
    def weighted(self) -> bool:
        """Whether the arcs carry weights."""
        return self.weights is not None

    def out_degree(self) -> np.ndarray:
        """int64[V]: out-degree of every vertex (the degree, for an undirected graph)."""
        return np.diff(self.offsets)

    def in_degree(self) -> np.ndarray:
        """int64[V]: in-degree of every vertex."""
        return np.diff(self.csc()[0])

    def lightest_arc(self) -> tuple[int, float]:
        """(index, weight) of the first arc of the smallest weight; (-1, inf) without weights or arcs. Cached: the
        algorithms that refuse negative weights ask it on every call, and the pass over the weights takes tens of
        milliseconds on a graph of 60 million arcs."""
        if self._lightest_arc is None:
            w = self.weights
            k = -1 if w is None or w.size == 0 else int(np.argmin(w))
            self._lightest_arc = (k, float(w[k]) if k >= 0 else np.inf)
        return self._lightest_arc

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(offsets, indices, weights) of the in-edges, each column sorted by source; built once, then cached."""
        if not self.directed:
            return self.offsets, self.indices, self.weights
        if self._csc is None:
            from .build import transpose_csr

            self._csc = transpose_csr(self.offsets, self.indices, self.weights)
        return self._csc

    def degree_stats(self) -> dict[str, Any]:
        """Cached degree statistics only (min/avg/max degree, std, Gini): cheap, for the configuration table."""
        if self._degree_stats is None:
            from .stats import degree_stats

            self._degree_stats = degree_stats(self)
        return dict(self._degree_stats)

    def stats(self) -> dict[str, Any]:
        """Cached statistics: sizes, degree distribution (min/avg/max/std, Gini), isolated vertices, what the build
        dropped, weakly connected components and the pseudo-diameter. See `graphgear.graph.stats`."""
        if self._stats is None:
            from .stats import compute_stats

            self._stats = compute_stats(self)
        return dict(self._stats)

    # ---------------------------------------------------------------------------------------------------- user ids
    def vertex_index(self, labels: Any) -> np.ndarray | int:
        """Internal index (0..V-1) of user vertex labels; the identity when the graph was not renumbered."""
        if self.vertex_ids is None and type(labels) is int and 0 <= labels < self.num_vertices:
            return labels  # one source vertex given as an int: every single-source call asks this
        scalar = np.ndim(labels) == 0
        values = np.atleast_1d(np.asarray(labels))
        if self.vertex_ids is None:
            out = as_id_array(values, "vertex")
            check_id_range(out, self.num_vertices, "vertex")
        else:
            if self._label_index is None:
                self._label_index = {label: i for i, label in enumerate(self.vertex_ids.tolist())}
            try:
                out = np.array([self._label_index[v] for v in values.tolist()], dtype=np.int64)
            except KeyError as exc:
                raise GraphError(f"vertex {exc.args[0]!r} is not in the graph") from None
        return int(out[0]) if scalar else out

    def vertex_labels(self, index: Any) -> np.ndarray:
        """User labels of internal vertex indices (the indices themselves when the graph was not renumbered)."""
        index = np.asarray(index)
        if index.size and (index.min() < 0 or index.max() >= self.num_vertices):
            bad = index[(index < 0) | (index >= self.num_vertices)].flat[0]
            raise GraphError(f"vertex index {bad} is out of range for {self.num_vertices} vertices")
        return index if self.vertex_ids is None else self.vertex_ids[index]

    # ---------------------------------------------------------------------------------------------------- exports
    def to_scipy(self) -> scipy.sparse.csr_array:
        """A scipy.sparse CSR array (V x V) of the stored arcs; values are the weights, or 1 when unweighted."""
        import scipy.sparse

        data = np.ones(self.num_arcs, dtype=np.float32) if self.weights is None else self.weights
        return scipy.sparse.csr_array((data, self.indices, self.offsets), shape=(self.num_vertices, self.num_vertices))

    def to_networkx(self, weight: str = "weight") -> networkx.Graph:
        """A networkx DiGraph (directed) or Graph (undirected) with the user's vertex labels and ``weight`` attributes."""
        import networkx as nx

        out = nx.DiGraph() if self.directed else nx.Graph()
        labels = self.vertex_labels(np.arange(self.num_vertices))
        out.add_nodes_from(labels.tolist())
        rows = np.repeat(np.arange(self.num_vertices), self.out_degree())
        src, dst = labels[rows].tolist(), labels[self.indices].tolist()
        if self.weights is None:
            out.add_edges_from(zip(src, dst))
        else:
            out.add_weighted_edges_from(zip(src, dst, self.weights.tolist()), weight=weight)
        return out

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        weighted = ", weighted" if self.weighted else ""
        name = f" {self.name!r}" if self.name else ""
        return f"<Graph{name}: {self.num_vertices:,} vertices, {self.num_edges:,} edges, {kind}{weighted}>"


@numba.njit(cache=True, nogil=True)
def _count_self_loops(offsets, indices):  # pragma: no cover - numba
    n = 0
    for u in range(offsets.shape[0] - 1):
        for k in range(offsets[u], offsets[u + 1]):
            if indices[k] == u:
                n += 1
    return n

"""The Graph: a CSR of out-edges, a lazily built CSC of in-edges, optional weights, and caches.

One Graph is built once and then only read: algorithms, statistics and backends share its arrays. Layout:

- ``offsets``  int64[V + 1]: row u's out-edges are ``indices[offsets[u]:offsets[u + 1]]``, sorted by target;
- ``indices``  int32[A] (int64 once V >= 2^31): the targets, A = number of stored arcs;
- ``weights``  float32[A] or None;
- an undirected graph stores both arcs of every edge, so its CSR is symmetric and is its own CSC.

Statistics (`stats`) and device copies (filled by the backends) are cached on the Graph.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from ..errors import GraphError
from .build import BuildCounts, as_id_array, build_csr, check_id_range, index_dtype, renumber_ids

if TYPE_CHECKING:  # pragma: no cover
    import networkx
    import scipy.sparse

__all__ = ["Graph", "shown", "described", "check_flag"]

_POLICIES = ("drop", "keep")
# the keyword options each constructor passes on to from_edges (the others it sets itself)
_EDGE_OPTIONS = ("self_loops", "duplicates", "renumber", "name")


# ------------------------------------------------------------------------------------------------ argument checks
def shown(value: Any, limit: int = 160) -> str:
    """`value`'s repr for an error message, clipped to `limit` characters (a dict of a million entries, say)."""
    try:
        text = repr(value)
    except Exception:  # a broken __repr__ must not hide the error being reported
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def described(value: Any) -> str:
    """``int 123``: the type's name and the value, for messages about an argument of the wrong kind."""
    return f"{type(value).__name__} {shown(value)}"


def check_flag(name: str, value: Any, none: bool = False) -> bool:
    """`value` as a bool when it is one (Python's or NumPy's), else a GraphError naming `name`. A flag given as 1,
    "no" or a list is refused rather than read by its truth: "no" is true. ``none=True`` lets None through (the
    caller's "decide for me")."""
    if value is None and none:
        return value
    if not isinstance(value, (bool, np.bool_)):
        wanted = "True, False or None" if none else "True or False"
        raise GraphError(f"{name} must be {wanted}, got {described(value)}")
    return bool(value)


def _check_options(constructor: str, options: dict[str, Any], allowed: tuple[str, ...]) -> None:
    """GraphError naming an option a ``from_*`` constructor does not pass on (Python would raise a TypeError deep
    inside, or a 'multiple values' one for an option the constructor sets itself)."""
    for key in options:
        if key not in allowed:
            raise GraphError(f"Graph.{constructor} has no option {key!r}; its options are {', '.join(allowed)}")


def _whole_numbers(values: Any, name: str) -> np.ndarray:
    """`values` (one number or a 1-D sequence) as a 1-D integer array (an integer array as it is, no copy; whole
    floats as int64); a GraphError naming the first entry that is not a whole number (a bool, a string, None, 1.5,
    NaN) or the shape that is not 1-D."""
    original = values
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):  # a ragged nesting
        raise GraphError(f"{name} must be whole numbers, got {described(original)}") from None
    if arr.ndim > 1:
        raise GraphError(f"{name} must be one number or a 1-D list of them, got shape {arr.shape}: {shown(original)}")
    arr = np.atleast_1d(arr)
    kind = arr.dtype.kind
    if kind in "iu":
        if kind == "u" and arr.size and arr.max() >= 2**63:
            i = int(np.argmax(arr >= 2**63))
            raise GraphError(f"{name}[{i}] = {int(arr[i])} does not fit in int64")
        return arr
    if kind == "f":
        whole = np.isfinite(arr) & (arr == np.floor(arr))
        bad = np.flatnonzero(~whole)
    else:  # bools, strings, objects: find the first entry that is not an integer
        bad = [i for i, v in enumerate(arr.tolist()) if isinstance(v, bool) or not isinstance(v, numbers.Integral)]
    if len(bad):
        i = int(bad[0])
        value = original[i] if isinstance(original, (list, tuple)) else arr[i]
        value = value.item() if isinstance(value, np.generic) else value
        raise GraphError(f"{name}[{i}] = {shown(value)} is not a whole number")
    return arr.astype(np.int64)


def _edge_ids(values: np.ndarray, name: str) -> np.ndarray:
    """`as_id_array` (the ids of edge records as int64), its error extended by the first record at fault."""
    try:
        return as_id_array(values, name)
    except GraphError as exc:
        try:
            _whole_numbers(values, name)
        except GraphError as where:
            raise GraphError(f"{exc}: {where}") from None
        raise


def float32_weights(weights: Any, name: str = "weights") -> np.ndarray:
    """`weights` as a contiguous float32 array; a GraphError naming the first one that is not a number, or not a
    finite float32: NaN, +-inf, or a float64 beyond float32's range (3.4e38), which the cast would turn into inf.
    SSSP would report a vertex reached over such an arc as unreachable, and PageRank would spread NaN. The one check
    of both `Graph.__init__` and `Graph.from_edges` (there on the records, before the build reorders them)."""
    original = weights
    try:
        raw = np.asarray(weights)
    except (TypeError, ValueError):
        raise GraphError(f"{name} must be numbers, got {described(original)}") from None
    if raw.dtype.kind not in "iuf":
        raise GraphError(f"{name} must be numbers, got dtype {raw.dtype}: {shown(original)}")
    with np.errstate(over="ignore"):  # float64 beyond float32's range becomes inf here, and is reported below
        w = np.ascontiguousarray(raw, dtype=np.float32)
    # max and min carry a NaN or an infinity through (the fastest pass, far faster than a mask of np.isfinite:
    # docs/performance.md#weight-checks); the position is looked for only when there is one
    if w.size and not (np.isfinite(w.max()) and np.isfinite(w.min())):
        if w.ndim != 1:  # another shape, which the caller refuses: name the value rather than a position
            raise GraphError(f"{name} must be finite float32 numbers, got {shown(original)}")
        i = int(np.argmin(np.isfinite(w)))
        raise GraphError(f"{name}[{i}] = {float(raw.reshape(-1)[i])!r} is not a finite float32")
    return w


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
        """Wrap CSR arrays as they are (checked, not copied unless their dtype differs). Most users want
        `Graph.from_edges` instead. Weights must be finite float32 values (`float32_weights`)."""
        if np.ndim(offsets) != 1 or np.size(offsets) == 0:
            raise GraphError(f"CSR offsets must be a non-empty 1-D array, got {shown(offsets)}")
        offsets = np.ascontiguousarray(_whole_numbers(offsets, "offsets"), dtype=np.int64)
        if offsets[0] != 0:
            raise GraphError(f"CSR offsets must start at 0, got offsets[0] = {int(offsets[0])}")
        step = np.diff(offsets)
        if np.any(step < 0):
            i = int(np.argmax(step < 0))
            raise GraphError(f"CSR offsets must be non-decreasing: offsets[{i + 1}] = {int(offsets[i + 1])} < "
                             f"offsets[{i}] = {int(offsets[i])}")
        num_vertices = offsets.size - 1
        if np.ndim(indices) != 1:
            raise GraphError(f"CSR indices must be a 1-D array, got {shown(indices)}")
        indices = _whole_numbers(indices, "indices")
        if indices.shape != (int(offsets[-1]),):
            raise GraphError(f"CSR indices hold {indices.size} arcs but offsets end at {int(offsets[-1])}")
        check_id_range(indices, num_vertices, "indices")  # before the cast to int32, which would wrap 2^32 + 1 to 1
        indices = np.ascontiguousarray(indices, dtype=index_dtype(num_vertices))
        if weights is not None:
            weights = float32_weights(weights)
            if weights.shape != indices.shape:
                raise GraphError(f"{weights.size} weights for {indices.size} arcs")
        if vertex_ids is not None and (not hasattr(vertex_ids, "__len__") or np.ndim(vertex_ids) == 0):
            raise GraphError(f"vertex_ids must be a sequence of {num_vertices} labels, got {described(vertex_ids)}")
        if vertex_ids is not None and len(vertex_ids) != num_vertices:
            raise GraphError(f"{len(vertex_ids)} vertex ids for {num_vertices} vertices")
        if not isinstance(counts, BuildCounts):
            raise GraphError(f"counts must be a BuildCounts, got {described(counts)}")
        if not isinstance(name, str):
            raise GraphError(f"name must be a string, got {described(name)}")
        self.offsets = offsets
        self.indices = indices
        self.weights = weights
        self.directed = check_flag("directed", directed)
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
            if not isinstance(value, str) or value not in _POLICIES:
                raise GraphError(f"{option} must be 'drop' or 'keep', got {shown(value)}")
        directed = check_flag("directed", directed)
        renumber = check_flag("renumber", renumber, none=True)
        if not isinstance(name, str):
            raise GraphError(f"name must be a string, got {described(name)}")
        if num_vertices is not None and (isinstance(num_vertices, (bool, np.bool_))
                                         or not isinstance(num_vertices, numbers.Integral)):
            raise GraphError(f"num_vertices must be a whole number >= 0 or None, got {described(num_vertices)}")
        try:
            src_raw, dst_raw = np.asarray(src), np.asarray(dst)
        except (TypeError, ValueError):  # ragged nestings
            raise GraphError(f"src and dst must be 1-D arrays of one length, got {shown(src)} and "
                             f"{shown(dst)}") from None
        if src_raw.ndim != 1 or dst_raw.ndim != 1 or src_raw.shape != dst_raw.shape:
            raise GraphError(f"src and dst must be 1-D arrays of one length, got shapes {src_raw.shape} and "
                             f"{dst_raw.shape}: {shown(src)} and {shown(dst)}")
        w = None
        if weights is not None:
            w = float32_weights(weights)
            if w.shape != src_raw.shape:
                raise GraphError(f"weights must have the shape of src {src_raw.shape}, got {w.shape}: {shown(weights)}")
        if renumber is None:  # numbers are ids (floats must be whole); anything else (strings, objects) are labels
            renumber = src_raw.dtype.kind not in "iuf" or dst_raw.dtype.kind not in "iuf"
        vertex_ids = None
        if renumber:
            if num_vertices is not None:
                raise GraphError("num_vertices cannot be given with renumber=True: the labels define the vertices")
            s, d, vertex_ids = renumber_ids(src_raw, dst_raw)
            n = len(vertex_ids)
        else:
            s, d = _edge_ids(src_raw, "src"), _edge_ids(dst_raw, "dst")
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
        matrix is symmetric. ``options``: self_loops, duplicates, renumber and name, as for `from_edges`.
        """
        from .build import from_scipy

        try:
            import scipy.sparse

            sparse = scipy.sparse.issparse(matrix)
        except ImportError:  # pragma: no cover - without SciPy there is no sparse matrix to pass
            sparse = False
        if not sparse:
            raise GraphError(f"expected a scipy.sparse matrix or array, got {described(matrix)}")
        check_flag("directed", directed, none=True)
        _check_options("from_scipy", options, _EDGE_OPTIONS)
        return from_scipy(cls, matrix, directed, **options)

    @classmethod
    def from_networkx(cls, graph: Any, weight: str | None = "weight", **options: Any) -> Graph:
        """Build from a networkx Graph/DiGraph; node labels are kept in ``vertex_ids`` (in the graph's node order).
        ``weight`` names the edge attribute that holds the weights (None: unweighted; the graph is unweighted too
        when some edge lacks it). ``options``: self_loops, duplicates and name, as for `from_edges`."""
        from .build import from_networkx

        if not hasattr(graph, "is_directed") or not hasattr(graph, "edges"):
            raise GraphError(f"expected a networkx graph, got {described(graph)}")
        if weight is not None and not isinstance(weight, str):
            raise GraphError(f"weight must be the name of an edge attribute (a string) or None, got "
                             f"{described(weight)}")
        _check_options("from_networkx", options, ("self_loops", "duplicates", "name"))
        try:
            return from_networkx(cls, graph, weight, **options)
        except GraphError:
            raise
        except (TypeError, ValueError):  # an edge's weight that is not a number (np.fromiter cannot convert it)
            for u, v, data in graph.edges(data=True):
                value = data.get(weight)
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.number)):
                    raise GraphError(f"edge {u!r} -> {v!r} has {weight}={shown(value)}, not a number") from None
            raise

    @classmethod
    def from_table(
        cls,
        table: Any,
        source: str | None = None,
        target: str | None = None,
        weight: str | None = None,
        directed: bool = True,
        **options: Any,
    ) -> Graph:
        """Build from a pandas DataFrame or pyarrow Table of edges, naming its source, target and weight columns.
        A source or target left None is found among the usual names: ``src``/``dst`` (graphgear), ``source``/
        ``target`` (NetworkX's ``to_pandas_edgelist``), ``source``/``destination`` (cuGraph); `build.table_columns`.
        No weight column: unweighted. ``options``: num_vertices, self_loops, duplicates, renumber and name, as for
        `from_edges`."""
        from .build import from_table

        if not hasattr(table, "column_names") and not hasattr(table, "columns"):
            raise GraphError(f"expected a pandas DataFrame or a pyarrow Table, got {described(table)}")
        for role, column in (("source", source), ("target", target), ("weight", weight)):
            if not isinstance(column, Hashable):
                raise GraphError(f"{role} must name a column of the table, got {described(column)}")
        check_flag("directed", directed)
        _check_options("from_table", options, ("num_vertices",) + _EDGE_OPTIONS)
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
    def vertex_index(self, labels: Any, name: str = "vertex") -> np.ndarray | int:
        """Internal index (0..V-1) of user vertex labels: one label gives an int, a 1-D sequence an int64 array; the
        identity when the graph was not renumbered (ids must then be whole numbers, bools refused). A GraphError
        names the label at fault, as ``{name}[i] = value``; ``name`` is the caller's argument ("source")."""
        if self.vertex_ids is None and type(labels) is int and 0 <= labels < self.num_vertices:
            return labels  # one source vertex given as an int: every single-source call asks this
        if self.vertex_ids is not None:
            return self._label_positions(labels, name)
        if isinstance(labels, (str, bytes)):
            raise GraphError(f"{name} {labels!r} is a label, but this graph's vertices are the ids 0.."
                             f"{self.num_vertices - 1} (build it with renumber=True to use labels)")
        scalar = not isinstance(labels, (list, tuple)) and np.ndim(labels) == 0
        out = _whole_numbers(labels, name).astype(np.int64, copy=False)
        check_id_range(out, self.num_vertices, name)
        return int(out[0]) if scalar else out

    def _label_positions(self, labels: Any, name: str) -> np.ndarray | int:
        """vertex_index on a renumbered graph: one label (a tuple too, when it is one of the labels) or a 1-D
        sequence of them, by a dict from label to index (built on first use)."""
        if self._label_index is None:
            self._label_index = {label: i for i, label in enumerate(self.vertex_ids.tolist())}
        where = "" if name == "vertex" else f"{name}: "
        try:
            found = self._label_index.get(labels)
        except TypeError:  # unhashable: a list or an array of labels
            found = None
        if found is not None:
            return found
        if isinstance(labels, (list, tuple)):
            items = list(labels)
        else:
            values = np.asarray(labels)
            if values.ndim == 0:  # a 0-d array (unhashable) holding one label
                try:
                    found = self._label_index.get(values.item())
                except TypeError:
                    found = None
                if found is None:
                    raise GraphError(f"{where}vertex {shown(labels)} is not in the graph")
                return found
            if values.ndim > 1:
                raise GraphError(f"{name} must be one vertex label or a 1-D list of them, got shape {values.shape}: "
                                 f"{shown(labels)}")
            items = values.tolist()
        out = np.empty(len(items), dtype=np.int64)
        for i, label in enumerate(items):
            try:
                out[i] = self._label_index[label]
            except (KeyError, TypeError):  # not a label, or unhashable (a list inside the list)
                raise GraphError(f"{where}vertex {shown(label)} is not in the graph") from None
        return out

    def vertex_labels(self, index: Any) -> np.ndarray:
        """User labels of internal vertex indices (the indices themselves when the graph was not renumbered)."""
        if not isinstance(index, np.ndarray) or index.dtype.kind not in "iu":
            scalar = np.ndim(index) == 0 and not isinstance(index, (list, tuple))
            checked = _whole_numbers(index, "vertex index")
            index = checked[0] if scalar else checked
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

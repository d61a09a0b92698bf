"""Building the CSR of a Graph from edge records, and the constructors from SciPy, NetworkX and edge tables.

The CSR build is a counting sort of the arcs by source (one pass over the records) followed by a per-row sort of the
targets, done in parallel with numba. Each arc is sorted as one packed 64-bit key ``target << 33 | ordered weight bits
<< 1 | mirrored``, so sorting a row orders it by target and parallel arcs by weight: the policy "duplicates keep their
minimum weight" is then the first key of each run, the same in both directions of an undirected edge. Rows come out sorted by target, which SciPy's canonical CSR and several kernels rely on.

Policies (both reported in the build counts):
- self-loops are dropped unless ``self_loops="keep"``;
- duplicate records (the same ordered ``(source, target)`` repeated) are dropped unless ``duplicates="keep"``; the arc
  kept carries the minimum weight of its copies. In an undirected graph ``(u, v)`` and ``(v, u)`` name the same edge: it
  is stored once in each direction, and the pair is not counted as a duplicate (files list undirected edges both ways).
  With ``duplicates="keep"`` every record is an edge of its own, so such a pair becomes two parallel edges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numba
import numpy as np

from .. import memory
from ..errors import GraphError

INT32_LIMIT = 2**31  # vertex ids below this are stored as int32
_PACKED_LIMIT = 2**31  # the packed sort key holds targets below 2^31
_WIDE_ARC_BYTES = 60  # the wide path's peak per arc (see csr_build_bytes)


@dataclass(frozen=True)
class BuildCounts:
    """What a build dropped: the counts `Graph.stats()` reports."""

    self_loops_dropped: int = 0
    duplicates_dropped: int = 0


def index_dtype(num_vertices: int) -> np.dtype:
    """int32 vertex ids, or int64 once the id range passes 2^31."""
    return np.dtype(np.int32) if num_vertices < INT32_LIMIT else np.dtype(np.int64)


def as_id_array(values: Any, name: str) -> np.ndarray:
    """A 1-D int64 array of vertex ids, or a GraphError that says why not."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise GraphError(f"{name} must be a 1-D array of vertex ids, got shape {arr.shape}")
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf" or arr.dtype.kind == "f" and arr.size and not np.all(
        np.isfinite(arr) & (arr == np.floor(arr))
    ):
        raise GraphError(
            f"{name} must hold integer vertex ids (dtype {arr.dtype}); use renumber=True for labels that are not ids"
        )
    if arr.dtype.kind == "u" and arr.size and arr.max() >= 2**63:
        raise GraphError(f"{name} holds an id that does not fit in int64: {int(arr.max())}")
    return arr.astype(np.int64, copy=False)


def check_id_range(ids: np.ndarray, num_vertices: int, name: str) -> None:
    """Raise a GraphError naming the first record whose id is negative or >= num_vertices."""
    if ids.size == 0:
        return
    bad = (ids < 0) | (ids >= num_vertices)
    if bad.any():
        i = int(np.argmax(bad))
        raise GraphError(f"{name}[{i}] = {int(ids[i])} is out of range for {num_vertices} vertices (0..{num_vertices - 1})")


def renumber_ids(src: Any, dst: Any, vertex_labels: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Map arbitrary labels (sparse ints, strings, ...) to 0..V-1; returns (src, dst, labels) with labels[i] = user id.

    Labels are sorted (np.unique), so the numbering does not depend on the order of the records. ``vertex_labels`` adds
    vertices that appear in no edge (isolated vertices).
    """
    src_a, dst_a = np.asarray(src), np.asarray(dst)
    parts = [src_a, dst_a] if vertex_labels is None else [src_a, dst_a, np.asarray(vertex_labels)]
    try:
        labels, inverse = np.unique(np.concatenate(parts), return_inverse=True)
    except TypeError as exc:  # mixed, unorderable labels
        raise GraphError(f"vertex labels cannot be sorted for renumbering: {exc}") from exc
    m = src_a.shape[0]
    inverse = inverse.astype(np.int64, copy=False)
    return inverse[:m], inverse[m : 2 * m], labels


# ---------------------------------------------------------------------------------------------------------------- CSR


def _ordered_weight_bits(weights: np.ndarray) -> np.ndarray:
    """float32 weights as uint64 holding uint32 bits whose unsigned order is the float order (negative floats flipped).

    Done in place on the one uint64 array (plus two bool masks), so its peak is 10 bytes per record (see
    `csr_build_bytes`)."""
    bits = np.asarray(weights, dtype=np.float32).view(np.uint32).astype(np.uint64)
    negative = bits >= np.uint64(0x80000000)
    np.bitwise_xor(bits, np.uint64(0xFFFFFFFF), out=bits, where=negative)
    np.bitwise_or(bits, np.uint64(0x80000000), out=bits, where=~negative)
    return bits


def _weights_from_bits(bits: np.ndarray) -> np.ndarray:
    """The float32 weights of `_ordered_weight_bits`' uint32 bits, converted in place (``bits`` is reused)."""
    bits = np.asarray(bits, dtype=np.uint32)
    positive = bits >= np.uint32(0x80000000)
    np.bitwise_xor(bits, np.uint32(0x80000000), out=bits, where=positive)
    np.invert(bits, out=bits, where=~positive)
    return bits.view(np.float32)


@numba.njit(cache=True, parallel=True, nogil=True)
def _scatter_keys(src, dst, wbits, offsets, symmetric, keys, blocks):  # pragma: no cover - numba
    """Counting-sort scatter: put each record's packed key into its source row (and its mirror into the target row).
    An empty `wbits`: unweighted, every weight field 0. The rows are cut into `blocks` ranges, one thread each; every
    thread reads all the records in order and writes those of its rows, so each row's keys come in record order
    whatever the threads (the same keys as one thread's pass) and no two threads share a cursor."""
    n = offsets.shape[0] - 1
    cursor = offsets[:-1].copy()
    weighted = wbits.shape[0] > 0
    for b in numba.prange(blocks):
        lo = n * b // blocks
        hi = n * (b + 1) // blocks
        for i in range(src.shape[0]):
            u = src[i]
            v = dst[i]
            mine_u = lo <= u < hi
            mine_v = symmetric and u != v and lo <= v < hi
            if not (mine_u or mine_v):
                continue
            wb = wbits[i] << np.uint64(1) if weighted else np.uint64(0)
            if mine_u:
                keys[cursor[u]] = (np.uint64(v) << np.uint64(33)) | wb
                cursor[u] += 1
            if mine_v:
                keys[cursor[v]] = (np.uint64(u) << np.uint64(33)) | wb | np.uint64(1)
                cursor[v] += 1


def _scatter_blocks(records: int) -> int:
    """Threads for the scatter: each reads every record, so a few (up to 8) where the records are many."""
    return max(1, min(numba.get_num_threads(), 8, records >> 20))


@numba.njit(cache=True, parallel=True, nogil=True)
def _sort_rows(keys, offsets, drop_duplicates, unique_counts, duplicate_counts):  # pragma: no cover - numba
    """Sort each row's keys; count (and unless kept, squeeze out) duplicate targets, keeping the first (minimum) key."""
    n = offsets.shape[0] - 1
    for r in numba.prange(n):
        a = offsets[r]
        b = offsets[r + 1]
        if b - a > 1:
            keys[a:b].sort()  # in place: no copy (and a shorter compilation than np.sort)
        write = a
        dups = 0
        i = a
        while i < b:
            target = keys[i] >> np.uint64(33)
            own = 0  # records of this ordered (r, target) pair: the non-mirrored keys
            j = i
            while j < b and (keys[j] >> np.uint64(33)) == target:
                if keys[j] & np.uint64(1) == 0:
                    own += 1
                j += 1
            if own > 1:
                dups += own - 1
            if drop_duplicates:
                keys[write] = keys[i]
                write += 1
            else:
                for k in range(i, j):
                    keys[write] = keys[k]
                    write += 1
            i = j
        unique_counts[r] = write - a
        duplicate_counts[r] = dups


@numba.njit(cache=True, parallel=True, nogil=True)
def _compact_rows(keys, offsets, new_offsets, indices, wbits):  # pragma: no cover - numba
    """The sorted rows' targets into `indices`, and their weight bits into `wbits` unless it is empty (unweighted)."""
    n = offsets.shape[0] - 1
    weighted = wbits.shape[0] > 0
    for r in numba.prange(n):
        a = offsets[r]
        out = new_offsets[r]
        for k in range(new_offsets[r + 1] - out):
            key = keys[a + k]
            indices[out + k] = key >> np.uint64(33)
            if weighted:
                wbits[out + k] = (key >> np.uint64(1)) & np.uint64(0xFFFFFFFF)


_NO_BITS64 = np.zeros(0, dtype=np.uint64)

# Peak bytes of the CSR build, per record / arc / vertex (memory_peaks.py measures them; docs/memory.md explains them).
# Python objects, small arrays and what the allocator keeps of freed memory (glibc returns blocks above its mmap
# threshold, at most 32 MiB, at once): the resident peak above tracemalloc's in memory_peaks.py, whatever the size.
_SLACK_BYTES = 16 << 20


@numba.njit(cache=True, parallel=True, nogil=True)
def first_unsorted_row(offsets, indices):  # pragma: no cover - numba
    """The first row whose targets are not sorted (a Graph's promise; MultiGraphS's segments and the tiles' light
    order rely on it), or -1."""
    n = offsets.shape[0] - 1
    bad = np.full(n, False)
    for u in numba.prange(n):
        for k in range(offsets[u] + 1, offsets[u + 1]):
            if indices[k] < indices[k - 1]:
                bad[u] = True
                break
    for u in range(n):
        if bad[u]:
            return u
    return -1


def csr_build_bytes(
    num_vertices: int, records: int, directed: bool, weighted: bool, *, self_loops: bool = True
) -> int:
    """Estimated peak of the host memory `build_csr` allocates for ``records`` edge records over ``num_vertices``
    vertices, beyond the record arrays it is handed (those already exist when it is called).

    Callers check it with `graphgear.memory.require` before they allocate anything in proportion to a file's or a
    user's numbers, so that a vertex id of 2^40 is refused at once instead of exhausting the machine. It is an upper
    bound (duplicates and self-loops are assumed absent, so every record becomes its arcs), calibrated by
    ``benchmarks/memory_peaks.py``:

    - packed path (ids below 2^31), the larger of two phases. While the records are scattered into the sort keys:
      the loop-free copy of the records (16 bytes, 4 more weighted), their weight bits (8, weighted only), the sort
      keys (8 per arc), two int64 arrays per vertex (offsets, the scatter's cursors). While the rows are compacted
      (the records and their copy freed): the keys, the compacted indices and weight bits (4 + 4 per arc, the bits
      weighted only; the per-row sort's copies are smaller), four int64 arrays per vertex (offsets twice, two row
      counts);
    - wide path (ids of 2^31 and more, a global lexicographic sort), peak while the duplicates are dropped: the same
      copy, the sorted arcs' four columns (21 bytes per arc) and their kept copy (20), the duplicate run bookkeeping
      (8 + 8 + 1 + 1 per arc), one byte per arc for NumPy's sort buffers, two int64 arrays per vertex.

    An undirected graph has two arcs per record. ``self_loops=False`` says the records hold none (a generator that
    draws none): the build then makes no loop-free copy.
    """
    n, m = max(0, int(num_vertices)), max(0, int(records))
    arcs = m if directed else 2 * m
    copy = (16 + (4 if weighted else 0)) * m if self_loops else 0
    if n >= _PACKED_LIMIT:
        mirror = 0 if directed else m
        return copy + mirror + _WIDE_ARC_BYTES * arcs + 16 * (n + 1) + _SLACK_BYTES
    w = 1 if weighted else 0
    scatter = copy + 8 * w * m + 8 * arcs + 16 * (n + 1)
    compact = (12 + 4 * w) * arcs + 32 * (n + 1)
    return max(scatter, compact) + _SLACK_BYTES


def build_csr(
    src: np.ndarray,
    dst: np.ndarray,
    weights: np.ndarray | None,
    num_vertices: int,
    directed: bool,
    *,
    keep_self_loops: bool = False,
    keep_duplicates: bool = False,
    release: Callable[[], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, BuildCounts]:
    """CSR (offsets int64, indices int32/int64, weights float32 or None) of validated integer edge records.

    An undirected graph stores each edge as two arcs (a kept self-loop as one). Rows are sorted by target.
    `release`: called once the records are in the sort keys, for a caller that hands them over (a distributed
    rank's received records) to drop its references, so that they are freed before the rows are sorted.
    """
    m = src.shape[0]
    memory.require(
        csr_build_bytes(num_vertices, m, directed, weights is not None),
        f"the CSR of {num_vertices:,} vertices and {m:,} edge records",
    )
    loops = src == dst
    n_loops = int(np.count_nonzero(loops))
    if n_loops and not keep_self_loops:
        keep = np.logical_not(loops, out=loops)
        src, dst = src[keep], dst[keep]
        weights = None if weights is None else weights[keep]
        del keep
    del loops  # the mask is not part of the peak (csr_build_bytes)
    if num_vertices >= _PACKED_LIMIT:
        return _build_csr_wide(src, dst, weights, num_vertices, directed, keep_duplicates, n_loops, keep_self_loops)
    weighted = weights is not None
    wbits = _ordered_weight_bits(np.asarray(weights)) if weighted else _NO_BITS64
    degree = np.bincount(src, minlength=num_vertices)
    if not directed:
        degree += np.bincount(dst[src != dst], minlength=num_vertices)
    offsets = np.zeros(num_vertices + 1, dtype=np.int64)
    np.cumsum(degree, out=offsets[1:])
    del degree
    keys = np.empty(int(offsets[-1]), dtype=np.uint64)
    _scatter_keys(src, dst, wbits, offsets, not directed, keys, _scatter_blocks(src.shape[0]))
    del src, dst, weights, wbits
    if release is not None:
        release()
    unique_counts = np.empty(num_vertices, dtype=np.int64)
    duplicate_counts = np.empty(num_vertices, dtype=np.int64)
    _sort_rows(keys, offsets, not keep_duplicates, unique_counts, duplicate_counts)
    new_offsets = np.zeros(num_vertices + 1, dtype=np.int64)
    np.cumsum(unique_counts, out=new_offsets[1:])
    indices = np.empty(int(new_offsets[-1]), dtype=index_dtype(num_vertices))
    out_bits = np.empty(int(new_offsets[-1]) if weighted else 0, dtype=np.uint32)
    _compact_rows(keys, offsets, new_offsets, indices, out_bits)
    del keys
    out_weights = _weights_from_bits(out_bits) if weighted else None
    n_dups = int(duplicate_counts.sum()) if m else 0
    counts = BuildCounts(
        self_loops_dropped=0 if keep_self_loops else n_loops,
        duplicates_dropped=0 if keep_duplicates else n_dups,
    )
    return new_offsets, indices, out_weights, counts


def _build_csr_wide(src, dst, weights, num_vertices, directed, keep_duplicates, n_loops, keep_self_loops):
    """The same build for id ranges of 2^31 and more (int64 ids), by a global lexicographic sort."""
    own = np.zeros(src.shape[0], dtype=np.int8)
    w = np.zeros(src.shape[0], dtype=np.float32) if weights is None else np.asarray(weights, dtype=np.float32)
    if not directed:
        mirror = src != dst
        src, dst = np.concatenate([src, dst[mirror]]), np.concatenate([dst, src[mirror]])
        own = np.concatenate([own, np.ones(int(mirror.sum()), dtype=np.int8)])
        w = np.concatenate([w, w[mirror]])
    order = np.lexsort((own, w, dst, src))
    src, dst, own, w = src[order], dst[order], own[order], w[order]
    del order
    same = np.zeros(src.shape[0], dtype=bool)
    same[1:] = (src[1:] == src[:-1]) & (dst[1:] == dst[:-1])
    starts = np.flatnonzero(~same)
    own_per_pair = np.add.reduceat((own == 0).astype(np.int64), starts) if starts.size else np.zeros(0, np.int64)
    n_dups = int(np.maximum(own_per_pair - 1, 0).sum())
    if not keep_duplicates:
        keep = ~same
        src, dst, w = src[keep], dst[keep], w[keep]
    offsets = np.zeros(num_vertices + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=num_vertices), out=offsets[1:])
    counts = BuildCounts(0 if keep_self_loops else n_loops, 0 if keep_duplicates else n_dups)
    return offsets, dst.astype(np.int64), None if weights is None else w, counts


@numba.njit(cache=True, nogil=True)
def _transpose(offsets, indices, wbits, t_offsets, t_indices, t_wbits):  # pragma: no cover - numba
    cursor = t_offsets[:-1].copy()
    for u in range(offsets.shape[0] - 1):
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            p = cursor[v]
            t_indices[p] = u
            t_wbits[p] = wbits[k]
            cursor[v] = p + 1


def transpose_csr(
    offsets: np.ndarray, indices: np.ndarray, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """CSC (the CSR of the reversed graph) by a counting sort; each column comes out sorted by source."""
    n = offsets.shape[0] - 1
    t_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(indices, minlength=n), out=t_offsets[1:])
    t_indices = np.empty_like(indices)
    bits = np.zeros(indices.shape[0], np.uint32) if weights is None else weights.view(np.uint32)
    t_bits = np.empty_like(bits)
    _transpose(offsets, indices, bits, t_offsets, t_indices, t_bits)
    return t_offsets, t_indices, None if weights is None else t_bits.view(np.float32)


# ------------------------------------------------------------------------------------------------------ constructors


def from_scipy(cls: type, matrix: Any, directed: bool | None, **options: Any) -> Any:
    """Graph from a square scipy.sparse matrix; see `Graph.from_scipy`."""
    import scipy.sparse

    if not scipy.sparse.issparse(matrix):
        raise GraphError(f"expected a scipy.sparse matrix or array, got {type(matrix).__name__}")
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise GraphError(f"an adjacency matrix must be square, got shape {matrix.shape}")
    coo = matrix.tocoo()
    if directed is None:
        directed = bool((abs(matrix - matrix.T) > 0).nnz)
    weights = None if coo.dtype == np.bool_ else coo.data
    return cls.from_edges(coo.row, coo.col, weights, num_vertices=matrix.shape[0], directed=directed, **options)


def from_networkx(cls: type, graph: Any, weight: str | None, **options: Any) -> Any:
    """Graph from a networkx Graph or DiGraph, keeping node labels in node order; see `Graph.from_networkx`.

    The edges are iterated once (one `np.fromiter` over ``graph.edges(data=weight)`` into a record array), since that
    Python loop is the conversion's whole cost on a large graph. A multigraph is refused: its parallel edges would be
    merged into one (the lightest) without a word, and that is seldom what its owner means."""
    if not hasattr(graph, "is_directed") or not hasattr(graph, "edges"):
        raise GraphError(f"expected a networkx graph, got {type(graph).__name__}")
    if callable(getattr(graph, "is_multigraph", None)) and graph.is_multigraph():
        raise GraphError(f"a networkx {type(graph).__name__} has parallel edges, which graphgear does not keep apart; "
                         "convert it first, e.g. nx.DiGraph(G) (or nx.Graph(G)), choosing which edge's weight stays")
    nodes = list(graph.nodes)
    position = {node: i for i, node in enumerate(nodes)}
    m = graph.number_of_edges()
    if weight is None:
        pairs = np.fromiter(((position[u], position[v]) for u, v in graph.edges()), dtype=np.dtype((np.int64, 2)),
                            count=m)
        src, dst, weights = pairs[:, 0], pairs[:, 1], None
    else:
        # one record per edge: its ends, whether it has the attribute, its value (0 where it has none)
        record = np.dtype([("u", np.int64), ("v", np.int64), ("has", np.bool_), ("w", np.float64)])
        rows = np.fromiter(((position[u], position[v], w is not None, 0.0 if w is None else w)
                            for u, v, w in graph.edges(data=weight, default=None)), dtype=record, count=m)
        src, dst = rows["u"], rows["v"]
        weights = rows["w"] if m and rows["has"].all() else None  # unweighted when some edge lacks the attribute
    g = cls.from_edges(src, dst, weights, num_vertices=len(nodes), directed=graph.is_directed(), renumber=False,
                       **options)
    if nodes != list(range(len(nodes))):
        g.vertex_ids = node_labels(nodes)
    return g


def node_labels(nodes: list[Any]) -> np.ndarray:
    """A 1-D array holding these labels as they are: NumPy's own dtype when it keeps every label (ints, strings),
    else objects (tuples, mixed types: NumPy would stack tuples into rows and turn 1 and "a" into "1" and "a")."""
    try:
        labels = np.asarray(nodes)
    except (ValueError, TypeError):  # ragged tuples and other labels numpy cannot stack stay objects
        labels = None
    if labels is None or labels.ndim != 1 or labels.tolist() != nodes:
        labels = np.empty(len(nodes), dtype=object)
        labels[:] = nodes
    return labels


# The source/target column pairs `from_table` finds by itself: graphgear's, NetworkX's to_pandas_edgelist, cuGraph's.
TABLE_COLUMNS = (("src", "dst"), ("source", "target"), ("source", "destination"))


def table_columns(columns: list[Any], source: Any = None, target: Any = None) -> tuple[Any, Any]:
    """The (source, target) column names of an edge table with these `columns`: those given, the others found among
    `TABLE_COLUMNS`' pairs. Finding them lets ``Graph.from_table(nx.to_pandas_edgelist(G))`` work as written. A
    GraphError names the table's columns when no pair fits, or when two do (which is the edge would be a guess)."""
    if source is not None and target is not None:
        return source, target
    fits = [(s, t) for s, t in TABLE_COLUMNS
            if source in (None, s) and target in (None, t) and s in columns and t in columns]
    if len(fits) == 1:
        return fits[0]
    if len(fits) > 1:
        pairs = " and ".join(f"{s!r}/{t!r}" for s, t in fits)
        raise GraphError(f"the edge table has the columns {pairs}: which pair is the edge would be a guess; its "
                         f"columns are {columns}; name them with source= and target=")
    if source is None and target is None:
        for s, t in TABLE_COLUMNS:  # one end of a pair without its partner: name the partners it could have
            if s in columns or t in columns:
                role, end = ("target", s) if s in columns else ("source", t)
                partners = [p[role == "target"] for p in TABLE_COLUMNS if end in p]
                raise GraphError(f"the edge table has no {role} column {_either(partners)} to go with {end!r}; "
                                 f"its columns are {columns}; name them with source= and target=")
        sources = list(dict.fromkeys(s for s, _ in TABLE_COLUMNS))
        targets = list(dict.fromkeys(t for _, t in TABLE_COLUMNS))
        raise GraphError(f"the edge table has no source column {_either(sources)} and no target column "
                         f"{_either(targets)} (graphgear's src/dst, NetworkX's source/target, cuGraph's "
                         f"source/destination); its columns are {columns}; name them with source= and target=")
    role, given = ("target", source) if target is None else ("source", target)
    candidates = list(dict.fromkeys(p[role == "target"] for p in TABLE_COLUMNS))
    present = [c for c in candidates if c in columns]
    if len(present) == 1:
        return (source, present[0]) if role == "target" else (present[0], target)
    if present:
        raise GraphError(f"the edge table has the {role} columns {_either(present, 'and')}: which goes with "
                         f"{given!r} would be a guess; its columns are {columns}; name it with {role}=")
    raise GraphError(f"the edge table has no {role} column {_either(candidates)} to go with {given!r}; its columns "
                     f"are {columns}; name it with {role}=")


def _either(names: list[Any], word: str = "or") -> str:
    shown = [repr(n) for n in names]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} {word} {shown[-1]}"


def table_column_names(table: Any) -> list[Any]:
    """The column names of a pandas DataFrame or pyarrow Table, as a list."""
    return list(table.column_names) if hasattr(table, "column_names") else list(getattr(table, "columns", []))


def table_column(table: Any, column: Any) -> np.ndarray:
    """One column of a pandas DataFrame or pyarrow Table as a NumPy array (no Python loop over its values)."""
    values = table[column]
    if hasattr(values, "to_numpy") and not hasattr(values, "index"):  # pyarrow ChunkedArray
        return values.to_numpy()
    return np.asarray(values)


def from_table(
    cls: type, table: Any, source: Any, target: Any, weight: Any, directed: bool, **options: Any
) -> Any:
    """Graph from a pandas DataFrame or pyarrow Table; see `Graph.from_table`. Source and target columns left None
    are found by `table_columns`."""
    columns = table_column_names(table)
    for role, column in (("source", source), ("target", target), ("weight", weight)):
        if column is not None and column not in columns:
            raise GraphError(f"the edge table has no {role} column {column!r}; its columns are {columns}")
    source, target = table_columns(columns, source, target)
    weights = None if weight is None else table_column(table, weight)
    return cls.from_edges(table_column(table, source), table_column(table, target), weights, directed=directed,
                          **options)


def gapless_or_renumbered(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(src, dst, labels) of integer ids: as they are with labels None when they are exactly 0..max, else renumbered
    to 0..V-1 over the ids named (in increasing order) with labels[i] = the id, so that building them makes no vertex
    that no record names. O(records) with a mask of max + 1 bytes when max < 2 * records (at most that many ids are
    distinct, so a larger max always has gaps); by a sort (`renumber_ids`) for a wider or negative range. The arrays
    given are never written."""
    m = src.shape[0]
    if m == 0:
        return src, dst, None
    low, top = min(int(src.min()), int(dst.min())), max(int(src.max()), int(dst.max()))
    if low < 0 or top + 1 > 2 * m:
        return renumber_ids(src, dst)
    named = named_ids(src, dst, top + 1)
    if named.all():
        return src, dst, None
    s, d = src.astype(np.int64), dst.astype(np.int64)  # copies: compact_ids renumbers in place
    return s, d, compact_ids(s, d, named)


def named_ids(src: np.ndarray, dst: np.ndarray, num_ids: int) -> np.ndarray:
    """bool[num_ids]: which of the ids 0..num_ids-1 some record names (the ids must lie in that range)."""
    named = np.zeros(num_ids, dtype=bool)
    named[src] = True
    named[dst] = True
    return named


def compact_ids(src: np.ndarray, dst: np.ndarray, named: np.ndarray) -> np.ndarray:
    """Renumber int64 ids ``src``/``dst`` **in place** to 0..V-1 over the V ids `named` marks (`named_ids`), in
    increasing order (as `renumber_ids` numbers them); returns the labels, labels[i] = the old id. O(records + ids)
    with no sort and no copy of the records (file readers' arrays, which may be most of the memory in use)."""
    rank = np.cumsum(named, dtype=np.int64)
    rank -= 1
    for ids in (src, dst):  # mode="clip" is unbuffered: each entry is read before its own slot is written
        np.take(rank, ids, out=ids, mode="clip")
    return np.flatnonzero(named)

"""What the text writers share: the header comments (direction and counts, read back by load), the stored arcs once per
edge, and the vectorised formatting (numba) of integer edge rows and METIS adjacency lines, one pass each."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba
import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..graph import Graph

__all__ = ["header_lines", "arcs", "integral", "format_rows", "format_int_rows", "format_metis"]

_NL, _SP = 10, 32

@numba.njit(cache=True, nogil=True)
def _put_int(out, pos, value):  # pragma: no cover - numba
    if value < 0:
        out[pos] = 45
        pos += 1
        value = -value
    if value == 0:
        out[pos] = 48
        return pos + 1
    digits = 0
    x = value
    while x > 0:
        digits += 1
        x //= 10
    for i in range(digits - 1, -1, -1):
        out[pos + i] = 48 + value % 10
        value //= 10
    return pos + digits


@numba.njit(cache=True, nogil=True)
def _format_int_rows(columns, prefix, sep, out):  # pragma: no cover - numba
    """Rows of integer columns as text ("prefix c0 sep c1 sep c2\\n"); returns bytes used."""
    pos = 0
    for i in range(columns.shape[0]):
        for b in range(prefix.shape[0]):
            out[pos] = prefix[b]
            pos += 1
        for j in range(columns.shape[1]):
            if j:
                out[pos] = sep
                pos += 1
            pos = _put_int(out, pos, columns[i, j])
        out[pos] = _NL
        pos += 1
    return pos


def format_int_rows(columns: np.ndarray, prefix: bytes = b"", sep: bytes = b" ") -> bytes:
    """Integer table (rows x columns) as text lines, formatted in one numba pass."""
    columns = np.ascontiguousarray(columns, dtype=np.int64)
    if columns.ndim != 2:
        raise ValueError("columns must be 2-D")
    width = len(prefix) + columns.shape[1] * 21 + 1
    out = np.empty(columns.shape[0] * width, dtype=np.uint8)
    used = _format_int_rows(columns, np.frombuffer(prefix, np.uint8), sep[0], out)
    return out[:used].tobytes()


@numba.njit(cache=True, nogil=True)
def _format_metis(offsets, indices, weights, with_weights, out):  # pragma: no cover - numba
    pos = 0
    for u in range(offsets.shape[0] - 1):
        for k in range(offsets[u], offsets[u + 1]):
            if k > offsets[u]:
                out[pos] = _SP
                pos += 1
            pos = _put_int(out, pos, indices[k] + 1)
            if with_weights:
                out[pos] = _SP
                pos += 1
                pos = _put_int(out, pos, weights[k])
        out[pos] = _NL
        pos += 1
    return pos


def format_metis(offsets: np.ndarray, indices: np.ndarray, weights: np.ndarray | None) -> bytes:
    """METIS body: one line per vertex with its 1-based neighbours (and integer weights)."""
    n = offsets.shape[0] - 1
    out = np.empty(n + indices.shape[0] * (21 + (21 if weights is not None else 0)) + 1, dtype=np.uint8)
    w = np.zeros(1, np.int64) if weights is None else weights.astype(np.int64)
    used = _format_metis(offsets, indices.astype(np.int64), w, weights is not None, out)
    return out[:used].tobytes()


def header_lines(graph: Graph, comment: str) -> str:
    """The comment lines graphgear writes on top of a text file: the direction and the counts (read back by load)."""
    kind = "Directed" if graph.directed else "Undirected"
    name = f": {graph.name}" if graph.name else ""
    return (f"{comment} {kind} graph{name} (written by graphgear)\n"
            f"{comment} Nodes: {graph.num_vertices} Edges: {graph.num_edges}\n")


def arcs(graph: Graph, once: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(rows, targets, weights) of the stored arcs; with once, an undirected edge only as its u <= v arc."""
    rows = np.repeat(np.arange(graph.num_vertices, dtype=np.int64), graph.out_degree())
    cols = graph.indices.astype(np.int64)
    weights = graph.weights
    if once and not graph.directed:
        keep = rows <= cols
        rows, cols = rows[keep], cols[keep]
        weights = None if weights is None else weights[keep]
    return rows, cols, weights


def integral(weights: np.ndarray) -> bool:
    """Whether every weight is a whole number that prints exactly as an integer."""
    return bool(np.all(weights == np.round(weights)) and np.all(np.abs(weights) < 2**53))


def format_rows(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray | None, prefix: bytes, sep: bytes) -> bytes:
    """Rows of ``prefix u sep v [sep w]`` text; integer weights as integers, others with 9 significant digits (enough
    to read every float32 back exactly)."""
    if weights is None or integral(weights):
        table = np.stack([rows, cols] if weights is None else [rows, cols, weights.astype(np.int64)], axis=1)
        return format_int_rows(table, prefix, sep)
    s = sep.decode()
    text = "".join(
        f"{prefix.decode()}{u}{s}{v}{s}{w:.9g}\n" for u, v, w in zip(rows.tolist(), cols.tolist(), weights.tolist())
    )
    return text.encode()

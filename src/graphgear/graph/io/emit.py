"""Vectorised formatting of graph text (numba): integer edge rows and METIS adjacency lines, one pass each."""

from __future__ import annotations

import numba
import numpy as np

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

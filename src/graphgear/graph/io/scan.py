"""Vectorised text parsing and formatting of edge records (numba): SNAP/CSV edge lists, DIMACS ``.gr`` arcs, METIS.

No Python code runs per line. A text buffer (bytes of the whole, decompressed file) is cut at line ends into chunks that
numba threads scan in parallel; each scan reads the tokens of a line as integers (ids) or decimals (weights) straight
from the bytes. A scan stops at the first bad line and reports its status, line number and byte offset, so the caller can
raise a GraphFormatError that shows the line. Matrix Market goes through SciPy's fast_matrix_market reader instead
(see io.py): no hand-written parser where a library does the job.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

# line kinds of an edge-list scan
MODE_EDGES = 0  # "u v [w]" lines; '#' and '%' comment lines
MODE_DIMACS = 1  # "a u v w" lines; 'c' comments; the 'p' header line is skipped here and read by the caller

# scan status codes
OK = 0
BAD_NUMBER = 1
BAD_COLUMNS = 2
ID_TOO_LARGE = 3
BAD_LINE_KIND = 4
TOO_MANY = 5
TOO_FEW = 6

MESSAGES = {
    BAD_NUMBER: "not a number where {what} was expected",
    BAD_COLUMNS: "expected {ncols} columns ({what}) on every data line",
    ID_TOO_LARGE: "vertex id too large (more than 18 digits)",
    BAD_LINE_KIND: "unexpected line: {what}",
    TOO_MANY: "{what}",
    TOO_FEW: "{what}",
}

_NL, _SP, _TAB, _CR, _COMMA = 10, 32, 9, 13, 44


@dataclass(frozen=True)
class ScanError:
    """Where a scan stopped: status code, 1-based line number, byte offset of that line's start."""

    status: int
    line: int
    offset: int


@numba.njit(cache=True, nogil=True, inline="always")
def _is_sep(c, comma):  # pragma: no cover - numba
    return c == _SP or c == _TAB or c == _CR or (comma and c == _COMMA)


@numba.njit(cache=True, nogil=True)
def _parse_int(buf, pos, end, comma):  # pragma: no cover - numba
    """Integer token at pos -> (status, value, next pos)."""
    neg = False
    c = buf[pos]
    if c == 45 or c == 43:  # - +
        neg = c == 45
        pos += 1
    value = 0
    digits = 0
    while pos < end:
        c = buf[pos]
        if c >= 48 and c <= 57:
            value = value * 10 + (c - 48)
            digits += 1
            pos += 1
        elif c == _NL or _is_sep(c, comma):
            break
        else:
            return BAD_NUMBER, 0, pos
    if digits == 0:
        return BAD_NUMBER, 0, pos
    if digits > 18:
        return ID_TOO_LARGE, 0, pos
    return OK, -value if neg else value, pos


@numba.njit(cache=True, nogil=True)
def _parse_float(buf, pos, end, comma):  # pragma: no cover - numba
    """Decimal token (sign, digits, '.', digits, exponent) at pos -> (status, value, next pos)."""
    neg = False
    c = buf[pos]
    if c == 45 or c == 43:
        neg = c == 45
        pos += 1
    mant = 0.0
    scale = 0
    digits = 0
    seen_dot = False
    while pos < end:
        c = buf[pos]
        if c >= 48 and c <= 57:
            mant = mant * 10.0 + (c - 48)
            digits += 1
            if seen_dot:
                scale -= 1
            pos += 1
        elif c == 46 and not seen_dot:  # .
            seen_dot = True
            pos += 1
        else:
            break
    if digits == 0:
        return BAD_NUMBER, 0.0, pos
    if pos < end and (buf[pos] == 101 or buf[pos] == 69):  # e E
        pos += 1
        st, e, pos = _parse_int(buf, pos, end, comma) if pos < end else (BAD_NUMBER, 0, pos)
        if st != OK:
            return BAD_NUMBER, 0.0, pos
        scale += e
    if pos < end and not (buf[pos] == _NL or _is_sep(buf[pos], comma)):
        return BAD_NUMBER, 0.0, pos
    value = mant / 10.0 ** (-scale) if scale < 0 else mant * 10.0**scale  # one rounding for up to 22 decimals
    return OK, -value if neg else value, pos


@numba.njit(cache=True, nogil=True)
def _scan_edges(buf, lo, hi, line0, mode, comma, ncols, src, dst, w, out0, stop_at):  # pragma: no cover
    """Scan lines of buf[lo:hi] (line0 = number of the first line) into src/dst/w from index out0.

    ncols is 2 or 3 (the third column is a weight). Returns (status, line, line start, records written). With
    stop_at >= 0 the scan returns at that record (status TOO_MANY) so a caller can find the line of a record.
    """
    n = out0
    line = line0
    pos = lo
    while pos < hi:
        start = pos
        # skip leading blanks
        while pos < hi and _is_sep(buf[pos], comma):
            pos += 1
        if pos >= hi:
            break
        c = buf[pos]
        data = True
        if c == _NL:
            data = False
        elif mode == MODE_EDGES and (c == 35 or c == 37):  # '#' '%'
            data = False
        elif mode == MODE_DIMACS:
            if c == 99 or c == 112:  # 'c' comment, 'p' header (read by the caller)
                data = False
            elif c == 97 and pos + 1 < hi and _is_sep(buf[pos + 1], comma):  # 'a '
                pos += 1
                while pos < hi and _is_sep(buf[pos], comma):
                    pos += 1
            else:
                return BAD_LINE_KIND, line, start, n - out0
        if data:
            if n == stop_at:
                return TOO_MANY, line, start, n - out0
            col = 0
            while True:
                while pos < hi and _is_sep(buf[pos], comma):
                    pos += 1
                if pos >= hi or buf[pos] == _NL:
                    break
                if col >= ncols:
                    return BAD_COLUMNS, line, start, n - out0
                if col < 2:
                    st, v, pos = _parse_int(buf, pos, hi, comma)
                    if st != OK:
                        return st, line, start, n - out0
                    if col == 0:
                        src[n] = v
                    else:
                        dst[n] = v
                else:
                    st, f, pos = _parse_float(buf, pos, hi, comma)
                    if st != OK:
                        return st, line, start, n - out0
                    w[n] = f
                col += 1
            if col != ncols:
                return BAD_COLUMNS, line, start, n - out0
            n += 1
        # to the next line
        while pos < hi and buf[pos] != _NL:
            pos += 1
        pos += 1
        line += 1
    return OK, line, pos, n - out0


@numba.njit(cache=True, parallel=True, nogil=True)
def _scan_edges_chunks(buf, bounds, lines, mode, comma, ncols, src, dst, w, outs, results):  # pragma: no cover
    for k in numba.prange(bounds.shape[0] - 1):
        st, ln, off, cnt = _scan_edges(
            buf, bounds[k], bounds[k + 1], lines[k], mode, comma, ncols, src, dst, w, outs[k], -1
        )
        results[k, 0] = st
        results[k, 1] = ln
        results[k, 2] = off
        results[k, 3] = cnt


@numba.njit(cache=True, parallel=True, nogil=True)
def _count_newlines(buf, bounds, counts):  # pragma: no cover - numba
    for k in numba.prange(bounds.shape[0] - 1):
        c = 0
        for i in range(bounds[k], bounds[k + 1]):
            if buf[i] == _NL:
                c += 1
        counts[k] = c


def _chunk_bounds(buf: np.ndarray, lo: int, chunks: int) -> np.ndarray:
    """Chunk starts at line starts: about equal byte ranges of buf[lo:]."""
    n = buf.shape[0]
    cuts = [lo]
    for k in range(1, chunks):
        p = lo + (n - lo) * k // chunks
        nl = np.flatnonzero(buf[p : min(n, p + (1 << 20))] == _NL)
        q = p + int(nl[0]) + 1 if nl.size else n
        if q > cuts[-1]:
            cuts.append(min(q, n))
    cuts.append(n)
    return np.unique(np.array(cuts, dtype=np.int64))


def scan_edges(
    buf: np.ndarray, lo: int, line0: int, mode: int, comma: bool, ncols: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | ScanError:
    """Parse all data lines of buf[lo:] into (src int64, dst int64, weights float64 or None), or say where it failed."""
    if lo >= buf.shape[0]:
        return np.empty(0, np.int64), np.empty(0, np.int64), (np.empty(0, np.float64) if ncols == 3 else None)
    chunks = max(1, min(numba.get_num_threads() * 4, buf.shape[0] // (1 << 20) + 1))
    bounds = _chunk_bounds(buf, lo, chunks)
    newlines = np.zeros(bounds.shape[0] - 1, dtype=np.int64)
    _count_newlines(buf, bounds, newlines)
    lines = line0 + np.concatenate([[0], np.cumsum(newlines)[:-1]]).astype(np.int64)
    outs = np.concatenate([[0], np.cumsum(newlines + 1)[:-1]]).astype(np.int64)
    cap = int((newlines + 1).sum())
    src = np.empty(cap, dtype=np.int64)
    dst = np.empty(cap, dtype=np.int64)
    w = np.empty(cap if ncols == 3 else 1, dtype=np.float64)
    results = np.zeros((bounds.shape[0] - 1, 4), dtype=np.int64)
    _scan_edges_chunks(buf, bounds, lines, mode, comma, ncols, src, dst, w, outs, results)
    for status, line, offset, _ in results:
        if status != OK:
            return ScanError(int(status), int(line), int(offset))
    pieces = list(zip(outs.tolist(), results[:, 3].tolist()))
    if len(pieces) == 1:
        count = pieces[0][1]
        return src[:count], dst[:count], (w[:count] if ncols == 3 else None)

    def gather(a: np.ndarray) -> np.ndarray:
        return np.concatenate([a[o : o + c] for o, c in pieces])

    return gather(src), gather(dst), (gather(w) if ncols == 3 else None)


def locate_record(buf: np.ndarray, lo: int, line0: int, mode: int, comma: bool, ncols: int, record: int) -> ScanError:
    """Line number and offset of data record number `record` (for messages about a value found after parsing)."""
    one = np.empty(record + 1, dtype=np.int64)
    w = np.empty(record + 1 if ncols == 3 else 1, dtype=np.float64)
    status, line, offset, _ = _scan_edges(buf, lo, buf.shape[0], line0, mode, comma, ncols, one, one.copy(), w, 0, record)
    return ScanError(int(status), int(line), int(offset))


# ---------------------------------------------------------------------------------------------------------- METIS


@numba.njit(cache=True, nogil=True)
def _scan_metis(buf, lo, line0, n, vertex_tokens, edge_weights, src, dst, w):  # pragma: no cover - numba
    """METIS body: line i (comments '%' aside) lists vertex i's neighbours (1-based), each followed by its weight when
    edge_weights. The first vertex_tokens tokens of a line (vertex sizes/weights) are skipped.

    Returns (status, line, line start, records, vertex lines seen).
    """
    hi = buf.shape[0]
    cap = src.shape[0]
    pos = lo
    line = line0
    v = 0
    k = 0
    while pos < hi:
        start = pos
        while pos < hi and _is_sep(buf[pos], False):
            pos += 1
        if pos < hi and buf[pos] == 37:  # '%' comment line
            while pos < hi and buf[pos] != _NL:
                pos += 1
            pos += 1
            line += 1
            continue
        blank = pos >= hi or buf[pos] == _NL
        if v >= n:
            if not blank:
                return TOO_MANY, line, start, k, v
        else:
            tok = 0
            while True:
                while pos < hi and _is_sep(buf[pos], False):
                    pos += 1
                if pos >= hi or buf[pos] == _NL:
                    break
                st, x, pos = _parse_int(buf, pos, hi, False)
                if st != OK:
                    return st, line, start, k, v
                if tok >= vertex_tokens:
                    j = tok - vertex_tokens
                    if not edge_weights or j % 2 == 0:
                        if k >= cap:
                            return TOO_MANY, line, start, k, v
                        src[k] = v
                        dst[k] = x - 1
                        w[k] = 1.0
                        k += 1
                    else:
                        w[k - 1] = x
                tok += 1
            if tok < vertex_tokens or (edge_weights and (tok - vertex_tokens) % 2 == 1):
                return BAD_COLUMNS, line, start, k, v
            v += 1
        while pos < hi and buf[pos] != _NL:
            pos += 1
        pos += 1
        line += 1
    return OK, line, pos, k, v


def scan_metis(
    buf: np.ndarray, lo: int, line0: int, n: int, m: int, vertex_tokens: int, edge_weights: bool
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int] | ScanError:
    """Parse a METIS body expecting 2m adjacency entries; returns ((src, dst, weights), vertex lines) or a ScanError."""
    cap = 2 * m
    src = np.empty(cap, dtype=np.int64)
    dst = np.empty(cap, dtype=np.int64)
    w = np.empty(cap, dtype=np.float64)
    status, line, offset, k, v = _scan_metis(buf, lo, line0, n, vertex_tokens, edge_weights, src, dst, w)
    if status != OK:
        return ScanError(int(status), int(line), int(offset))
    return (src[:k], dst[:k], w[:k]), int(v)


# ------------------------------------------------------------------------------------------------------ formatting


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

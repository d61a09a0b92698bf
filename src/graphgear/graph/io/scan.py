"""Vectorised scanning of graph text (numba): edge lists, DIMACS ``.gr`` arcs, Matrix Market entries, METIS bodies.

No Python code runs per line. The text (bytes of the whole, decompressed file) is cut at line ends into chunks that
numba threads scan in parallel; each scan reads a line's fields straight from the bytes under the number grammar of
docs/formats.md:

- ID   ``[+-]?[0-9]{1,18}``                                  vertex ids and counts (int64);
- INT  ``[+-]?[0-9]+``                                       Matrix Market integer weights;
- REAL ``[+-]?([0-9]+(.[0-9]*)?|.[0-9]+)([eE][+-]?[0-9]+)?``  weights.

A token ends only at whitespace (space, tab, CR), the line end, a comma in a comma-separated file, or (edge lists) a
comment character; anything else makes it invalid, so ``0t2.5``, ``1-73`` and ``1x`` are errors, not numbers. A scan
stops at the first bad line and reports its status, line number, byte offset and column, so the caller can raise a
GraphFormatError that shows the line.

Decimal conversion: up to 18 significant digits are kept exactly in an int64, then scaled by a power of ten: exact
(one rounding) for at most 15 significant digits and exponents within +-22 (Clinger's fast path), within one float64
unit in the last place beyond. Exponents saturate, so ``0e999`` is 0 and ``1e-999`` underflows to 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

# line grammars of a scan
MODE_EDGES = 0  # "u v [w [t]]" lines; '#' and '%' start a comment anywhere on a line
MODE_DIMACS = 1  # "a u v w" lines; 'c' comment lines; a 'p' line here is a second problem line
MODE_MTX = 2  # "i j [v]" lines; '%' comment lines

# kind of the third column
WEIGHT_REAL = 0
WEIGHT_INT = 1

# scan status codes
OK = 0
BAD_NUMBER = 1
BAD_COLUMNS = 2
ID_TOO_LARGE = 3
BAD_LINE_KIND = 4
TOO_MANY = 5
TOO_FEW = 6
EMPTY_FIELD = 7
TWO_VALUES = 8
SECOND_PROBLEM = 9

CHUNK_BYTES = 1 << 20  # a scan cuts the text into chunks of about this size (at most 4 per thread); tests shrink it

_NL, _SP, _TAB, _CR, _COMMA, _HASH, _PERCENT = 10, 32, 9, 13, 44, 35, 37
_MAX_ID_DIGITS = 18
_MAX_SIGNIFICANT = 18  # digits kept exactly in an int64 mantissa (19 nines would overflow it)
_EXP_SATURATE = 100_000  # an exponent beyond this under- or overflows anyway
_POW10 = np.array([10.0**k for k in range(23)])  # exact in float64 up to 1e22


@dataclass(frozen=True)
class ScanError:
    """Where a scan stopped: status code, 1-based line number, byte offset of that line's start, 0-based column."""

    status: int
    line: int
    offset: int
    column: int = -1


@numba.njit(cache=True, nogil=True, inline="always")
def _is_space(c):  # pragma: no cover - numba
    return c == _SP or c == _TAB or c == _CR


@numba.njit(cache=True, nogil=True, inline="always")
def _ends(c, comma, inline):  # pragma: no cover - numba
    """Whether byte c ends a token: whitespace, the line end, a comma (comma-separated), a comment (edge lists)."""
    return c == _NL or c == _SP or c == _TAB or c == _CR or (comma and c == _COMMA) or (
        inline and (c == _HASH or c == _PERCENT))


@numba.njit(cache=True, nogil=True, inline="always")
def _parse_id(buf, pos, end, comma, inline):  # pragma: no cover - numba
    """ID token at pos -> (status, value, next pos)."""
    neg = False
    c = buf[pos]
    if c == 45 or c == 43:  # - +
        neg = c == 45
        pos += 1
    start = pos
    value = 0
    while pos < end:
        d = np.int64(buf[pos]) - 48
        if d < 0 or d > 9:
            break
        value = value * 10 + d  # past 18 digits the value is refused below, so its overflow does not matter
        pos += 1
    digits = pos - start
    if pos < end and not _ends(buf[pos], comma, inline):
        return BAD_NUMBER, 0, pos
    if digits == 0:
        return BAD_NUMBER, 0, pos
    if digits > _MAX_ID_DIGITS:
        return ID_TOO_LARGE, 0, pos
    return OK, -value if neg else value, pos


@numba.njit(cache=True, nogil=True)
def _scale(mant, significant, e10):  # pragma: no cover - numba
    """mant * 10^e10 in float64 (mant > 0 holds `significant` digits)."""
    if significant <= 15 and 0 <= e10 <= 22:
        return float(mant) * _POW10[e10]  # both exact: one rounding
    if significant <= 15 and -22 <= e10 < 0:
        return float(mant) / _POW10[-e10]
    if e10 > 400:
        return np.inf
    if e10 < -400:
        return 0.0
    if e10 < -300:  # keep 10^e10 out of the subnormal range: two steps
        return float(mant) * 10.0 ** (e10 + 100) * 1e-100
    return float(mant) * 10.0**e10


@numba.njit(cache=True, nogil=True, inline="always")
def _parse_real(buf, pos, end, comma, inline, integer_only):  # pragma: no cover - numba
    """REAL (or, with integer_only, INT) token at pos -> (status, value, next pos)."""
    neg = False
    c = buf[pos]
    if c == 45 or c == 43:
        neg = c == 45
        pos += 1
    mant = 0
    significant = 0
    e10 = 0
    digits = 0
    point = False
    while pos < end:
        c = buf[pos]
        if c >= 48 and c <= 57:
            d = c - 48
            digits += 1
            if significant < _MAX_SIGNIFICANT:
                if mant != 0 or d != 0:  # leading zeros are not significant
                    mant = mant * 10 + d
                    significant += 1
                if point:
                    e10 -= 1
            elif not point:
                e10 += 1  # an integer digit past the kept ones scales the value
        elif c == 46 and not point and not integer_only:  # .
            point = True
        else:
            break
        pos += 1
    if digits == 0:
        return BAD_NUMBER, 0.0, pos
    if pos < end and (buf[pos] == 101 or buf[pos] == 69) and not integer_only:  # e E
        pos += 1
        eneg = False
        if pos < end and (buf[pos] == 45 or buf[pos] == 43):
            eneg = buf[pos] == 45
            pos += 1
        exp = 0
        edigits = 0
        while pos < end and buf[pos] >= 48 and buf[pos] <= 57:
            if exp < _EXP_SATURATE:
                exp = exp * 10 + (buf[pos] - 48)
            edigits += 1
            pos += 1
        if edigits == 0:
            return BAD_NUMBER, 0.0, pos
        e10 += -exp if eneg else exp
    if pos < end and not _ends(buf[pos], comma, inline):
        return BAD_NUMBER, 0.0, pos
    value = 0.0 if mant == 0 else _scale(mant, significant, e10)
    return OK, -value if neg else value, pos


@numba.njit(cache=True, nogil=True)
def _scan_lines(buf, lo, hi, line0, mode, comma, ncols, wkind, src, dst, w, out0, stop_at):  # pragma: no cover
    """Scan the lines of buf[lo:hi] (line0 = number of the first) into src/dst/w from index out0.

    Columns 0 and 1 are IDs, column 2 a weight (REAL or INT), column 3 a REAL that is checked and dropped. Returns
    (status, line, line start, records written, column). With stop_at >= 0 the scan returns at that record (status
    TOO_MANY) so a caller can find the line of a record.
    """
    inline = mode == MODE_EDGES
    n = out0
    line = line0
    pos = lo
    while pos < hi:
        start = pos
        while pos < hi and _is_space(buf[pos]):
            pos += 1
        data = pos < hi and buf[pos] != _NL
        if data:
            c = buf[pos]
            if mode == MODE_EDGES:
                data = c != _HASH and c != _PERCENT
            elif mode == MODE_MTX:
                data = c != _PERCENT
            elif c == 99:  # DIMACS 'c' comment
                data = False
            elif c == 112:  # 'p'
                return SECOND_PROBLEM, line, start, n - out0, -1
            elif c == 97 and pos + 1 < hi and _is_space(buf[pos + 1]):  # 'a '
                pos += 1
                while pos < hi and _is_space(buf[pos]):
                    pos += 1
            else:
                return BAD_LINE_KIND, line, start, n - out0, -1
        if data:
            if n == stop_at:
                return TOO_MANY, line, start, n - out0, -1
            col = 0
            while True:  # whitespace-separated tokens, or fields between single commas (blanks around ignored)
                while pos < hi and _is_space(buf[pos]):
                    pos += 1
                c = buf[pos] if pos < hi else _NL
                if c == _NL or (inline and (c == _HASH or c == _PERCENT)):
                    if comma and col > 0:  # a comma with nothing after it
                        return EMPTY_FIELD, line, start, n - out0, col
                    break
                if comma and c == _COMMA:
                    return EMPTY_FIELD, line, start, n - out0, col
                if col >= ncols:
                    return BAD_COLUMNS, line, start, n - out0, col
                if col < 2:
                    st, v, pos = _parse_id(buf, pos, hi, comma, inline)
                    if st != OK:
                        return st, line, start, n - out0, col
                    if col == 0:
                        src[n] = v
                    else:
                        dst[n] = v
                else:
                    st, f, pos = _parse_real(buf, pos, hi, comma, inline, col == 2 and wkind == WEIGHT_INT)
                    if st != OK:
                        return st, line, start, n - out0, col
                    if col == 2:
                        w[n] = f  # a fourth column (KONECT's timestamp) is checked and dropped
                col += 1
                if comma:
                    while pos < hi and _is_space(buf[pos]):
                        pos += 1
                    if pos < hi and buf[pos] == _COMMA:
                        pos += 1
                        continue
                    if not (pos >= hi or buf[pos] == _NL or (inline and (buf[pos] == _HASH or buf[pos] == _PERCENT))):
                        return TWO_VALUES, line, start, n - out0, col - 1
                    break
            if col != ncols:
                return BAD_COLUMNS, line, start, n - out0, col
            n += 1
        while pos < hi and buf[pos] != _NL:  # the rest of the line: a comment, or nothing
            pos += 1
        pos += 1
        line += 1
    return OK, line, pos, n - out0, -1


@numba.njit(cache=True, parallel=True, nogil=True)
def _scan_chunks(buf, bounds, lines, mode, comma, ncols, wkind, src, dst, w, outs, results):  # pragma: no cover
    for k in numba.prange(bounds.shape[0] - 1):
        st, ln, off, cnt, col = _scan_lines(
            buf, bounds[k], bounds[k + 1], lines[k], mode, comma, ncols, wkind, src, dst, w, outs[k], -1
        )
        results[k, 0] = st
        results[k, 1] = ln
        results[k, 2] = off
        results[k, 3] = cnt
        results[k, 4] = col


@numba.njit(cache=True, parallel=True, nogil=True)
def _count_newlines(buf, bounds, counts):  # pragma: no cover - numba
    for k in numba.prange(bounds.shape[0] - 1):
        c = 0
        for i in range(bounds[k], bounds[k + 1]):
            if buf[i] == _NL:
                c += 1
        counts[k] = c


@numba.njit(cache=True, nogil=True)
def _compact(a, outs, counts):  # pragma: no cover - numba
    """Move each chunk's records down behind the previous chunk's (in place, in order)."""
    at = 0
    for k in range(outs.shape[0]):
        o = outs[k]
        if o != at:
            for i in range(counts[k]):
                a[at + i] = a[o + i]
        at += counts[k]
    return at


def _chunk_bounds(buf: np.ndarray, lo: int) -> np.ndarray:
    """Chunk starts at line starts: about equal byte ranges of buf[lo:], CHUNK_BYTES or more each."""
    n = buf.shape[0]
    chunks = max(1, min(numba.get_num_threads() * 4, (n - lo) // max(1, CHUNK_BYTES) + 1))
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
    buf: np.ndarray, lo: int, line0: int, mode: int, comma: bool, ncols: int, wkind: int = WEIGHT_REAL
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | ScanError:
    """Parse the data lines of buf[lo:] into (src int64, dst int64, weights float64 or None), or say where it failed.

    Takes 24 bytes per line of the text (the caller checks the memory for that first, see `record_bytes`).
    """
    weighted = ncols >= 3
    if lo >= buf.shape[0]:
        return np.empty(0, np.int64), np.empty(0, np.int64), (np.empty(0, np.float64) if weighted else None)
    bounds = _chunk_bounds(buf, lo)
    newlines = np.zeros(bounds.shape[0] - 1, dtype=np.int64)
    _count_newlines(buf, bounds, newlines)
    lines = line0 + np.concatenate([[0], np.cumsum(newlines)[:-1]]).astype(np.int64)
    outs = np.concatenate([[0], np.cumsum(newlines + 1)[:-1]]).astype(np.int64)
    cap = int((newlines + 1).sum())
    src = np.empty(cap, dtype=np.int64)
    dst = np.empty(cap, dtype=np.int64)
    w = np.empty(cap if weighted else 1, dtype=np.float64)
    results = np.zeros((bounds.shape[0] - 1, 5), dtype=np.int64)
    _scan_chunks(buf, bounds, lines, mode, comma, ncols, wkind, src, dst, w, outs, results)
    for status, line, offset, _, col in results:
        if status != OK:
            return ScanError(int(status), int(line), int(offset), int(col))
    counts = np.ascontiguousarray(results[:, 3])
    total = _compact(src, outs, counts)
    _compact(dst, outs, counts)
    if weighted:
        _compact(w, outs, counts)
    return src[:total], dst[:total], (w[:total] if weighted else None)


def record_bytes(newlines: int, weighted: bool = True) -> int:
    """Bytes `scan_edges` takes for a text of `newlines` line ends (its record arrays hold one slot per line)."""
    return (newlines + 1) * (24 if weighted else 16)


def locate_record(
    buf: np.ndarray, lo: int, line0: int, mode: int, comma: bool, ncols: int, record: int, wkind: int = WEIGHT_REAL
) -> ScanError:
    """Line number and offset of data record number `record` (for messages about a value found after parsing)."""
    one = np.empty(record + 1, dtype=np.int64)
    w = np.empty(record + 1, dtype=np.float64)
    status, line, offset, _, col = _scan_lines(
        buf, lo, buf.shape[0], line0, mode, comma, ncols, wkind, one, one.copy(), w, 0, record
    )
    return ScanError(int(status), int(line), int(offset), int(col))


@numba.njit(cache=True, nogil=True)
def _count_data_lines(buf, lo, comment):  # pragma: no cover - numba
    """Lines of buf[lo:] that are neither blank nor start (after blanks) with the comment byte."""
    n = 0
    pos = lo
    hi = buf.shape[0]
    while pos < hi:
        while pos < hi and _is_space(buf[pos]):
            pos += 1
        if pos < hi and buf[pos] != _NL and buf[pos] != comment:
            n += 1
        while pos < hi and buf[pos] != _NL:
            pos += 1
        pos += 1
    return n


def count_data_lines(buf: np.ndarray, lo: int, comment: bytes) -> int:
    """How many lines of buf[lo:] are neither blank nor comment lines (first non-blank byte `comment`)."""
    return int(_count_data_lines(buf, lo, comment[0]))


# ---------------------------------------------------------------------------------------------------------- METIS


@numba.njit(cache=True, nogil=True)
def _scan_metis(buf, lo, line0, n, vertex_tokens, edge_weights, src, dst, w):  # pragma: no cover - numba
    """METIS body: line i (comment lines '%' aside) lists vertex i's neighbours (1-based IDs), each followed by its
    weight (an ID-grammar integer) when edge_weights. The first vertex_tokens tokens of a line (vertex sizes and
    weights) are checked and skipped.

    Returns (status, line, line start, records, vertex lines seen, column).
    """
    hi = buf.shape[0]
    cap = src.shape[0]
    pos = lo
    line = line0
    v = 0
    k = 0
    while pos < hi:
        start = pos
        while pos < hi and _is_space(buf[pos]):
            pos += 1
        if pos < hi and buf[pos] == _PERCENT:  # comment line
            while pos < hi and buf[pos] != _NL:
                pos += 1
            pos += 1
            line += 1
            continue
        blank = pos >= hi or buf[pos] == _NL
        if v >= n:
            if not blank:
                return TOO_MANY, line, start, k, v, -1
        else:
            tok = 0
            while True:
                while pos < hi and _is_space(buf[pos]):
                    pos += 1
                if pos >= hi or buf[pos] == _NL:
                    break
                st, x, pos = _parse_id(buf, pos, hi, False, False)
                if st != OK:
                    return st, line, start, k, v, tok
                if tok >= vertex_tokens:
                    j = tok - vertex_tokens
                    if not edge_weights or j % 2 == 0:
                        if k >= cap:
                            return TOO_MANY, line, start, k, v, tok
                        src[k] = v
                        dst[k] = x - 1
                        w[k] = 1.0
                        k += 1
                    else:
                        w[k - 1] = x
                tok += 1
            if tok < vertex_tokens or (edge_weights and (tok - vertex_tokens) % 2 == 1):
                return BAD_COLUMNS, line, start, k, v, tok
            v += 1
        while pos < hi and buf[pos] != _NL:
            pos += 1
        pos += 1
        line += 1
    return OK, line, pos, k, v, -1


def scan_metis(
    buf: np.ndarray, lo: int, line0: int, n: int, cap: int, vertex_tokens: int, edge_weights: bool
) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], int] | ScanError:
    """Parse a METIS body into at most `cap` adjacency entries; returns ((src, dst, weights), vertex lines) or a
    ScanError (status TOO_MANY when the body lists more than cap entries or more than n vertex lines)."""
    src = np.empty(cap, dtype=np.int64)
    dst = np.empty(cap, dtype=np.int64)
    w = np.empty(cap, dtype=np.float64)
    status, line, offset, k, v, col = _scan_metis(buf, lo, line0, n, vertex_tokens, edge_weights, src, dst, w)
    if status != OK:
        return ScanError(int(status), int(line), int(offset), int(col))
    return (src[:k], dst[:k], w[:k]), int(v)


def as_buffer(raw: Any) -> np.ndarray:
    """The text as a uint8 array (no copy)."""
    return np.frombuffer(raw, dtype=np.uint8)

"""Matrix Market coordinate files (``.mtx``), read by graphgear's own scanner and written by SciPy.

SciPy's reader (fast_matrix_market) can take the interpreter down on malformed input (a blank or junk after the last
number with no final newline, a NUL byte after a number), so reading goes through the same vectorised scanner as the
edge lists, under docs/formats.md's "Matrix Market" grammar: a strict banner, a size line, exactly nnz entries whose
fields follow the banner's field (pattern: two ids, integer: an INT value, real: a REAL value). A file without the
banner (NetworkRepository ships many) is read as general coordinate data with a FormatWarning that says how.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from ...errors import FormatWarning, GraphFormatError, warn
from ..graph import Graph
from . import scan
from .emit import arcs, header_lines, integral
from .text import (Records, check_ids, check_weights, first_line, is_count, line_text, next_line, require_csr,
                   split_fields)

__all__ = ["read_mtx", "write_mtx", "BANNER"]

BANNER = b"%%matrixmarket"
_FIELDS = {b"pattern": "pattern", b"integer": "integer", b"real": "real", b"double": "real"}
_SYMMETRIES = (b"general", b"symmetric")
_NO_BANNER = " (no %%MatrixMarket banner: read as coordinate data)"


def _is_comment(text: bytes) -> bool:
    return text[:1] == b"%"


def read_mtx(path: Path, raw: bytes | bytearray) -> Records:
    """Parse a Matrix Market coordinate file (with or without its banner) into records."""
    first = bytes(raw[: next_line(raw, 0)]).rstrip(b"\n")
    if first.lstrip(b" \t\r").lower().startswith(BANNER):
        return _read_with_banner(path, raw, first)
    return _read_without_banner(path, raw)


def _read_with_banner(path: Path, raw: bytes | bytearray, banner: bytes) -> Records:
    text = line_text(raw, 0)
    # whitespace is space, tab and CR only (bytes.split would also cut at a vertical tab or a form feed)
    tokens = [t.decode("ascii", "replace").encode() for t in split_fields(banner.lower(), False)]
    expected = "expected the banner '%%MatrixMarket matrix coordinate <field> <symmetry>'"
    if len(tokens) != 5 or tokens[0] != BANNER or tokens[1] != b"matrix":
        raise GraphFormatError(path, 1, expected, text)
    layout, field, symmetry = tokens[2], tokens[3], tokens[4]
    if layout == b"array":
        raise GraphFormatError(path, 1, "a dense 'array' Matrix Market file is not a graph; use 'coordinate'", text)
    if layout != b"coordinate":
        raise GraphFormatError(path, 1, f"unknown Matrix Market format {layout.decode()!r}; {expected}", text)
    if field == b"complex" or symmetry in (b"skew-symmetric", b"hermitian"):
        raise GraphFormatError(path, 1, f"unsupported Matrix Market {field.decode()} {symmetry.decode()} matrix", text)
    if field not in _FIELDS or symmetry not in _SYMMETRIES:
        raise GraphFormatError(path, 1, f"unknown Matrix Market field or symmetry; {expected} (field pattern, "
                               "integer or real; symmetry general or symmetric)", text)
    kind = _FIELDS[field]
    size = first_line(raw, _is_comment, next_line(raw, 0), 2)
    if size is None:
        raise GraphFormatError(path, None, "no size line 'rows cols entries' after the banner")
    size_text = size.text
    fields = split_fields(size.content, False)
    if len(fields) != 3 or not all(is_count(f) for f in fields):
        raise GraphFormatError(path, size.number, "expected the size line 'rows cols entries'", size_text)
    rows, cols, nnz = (int(f) for f in fields)
    if rows != cols:
        raise GraphFormatError(path, size.number, f"an adjacency matrix must be square, this one is {rows} x {cols}",
                               size_text)
    directed = symmetry == b"general"
    weighted = kind != "pattern"
    require_csr(path, raw, rows, 0, directed, weighted, (size.number, size.offset), f"the size line's {rows:,} rows")
    ncols = 3 if weighted else 2
    wkind = scan.WEIGHT_INT if kind == "integer" else scan.WEIGHT_REAL
    columns = ("row index", "column index", f"{kind} value")[:ncols]
    src, dst, weights, locate = _entries(path, raw, next_line(raw, size.offset), size.number + 1, ncols, wkind, columns,
                                         f", as the banner's '{kind}' says", "")
    if src.size > nnz:
        err = locate(nnz)
        raise GraphFormatError(path, err.line, f"more entries than the size line's {nnz:,}", line_text(raw, err.offset))
    if src.size < nnz:
        raise GraphFormatError(path, size.number, f"the size line says {nnz:,} entries but the file holds "
                               f"{src.size:,}", size_text)
    return _finish(path, raw, src, dst, weights, rows, directed, locate, size.number, size.offset)


def _read_without_banner(path: Path, raw: bytes | bytearray) -> Records:
    first = first_line(raw, _is_comment)
    if first is None:
        raise GraphFormatError(path, None, "no entries" + _NO_BANNER)
    fields = split_fields(first.content, False)
    buf = scan.as_buffer(raw)
    after = next_line(raw, first.offset)
    rows = None
    if len(fields) == 3 and all(is_count(f) for f in fields) and \
            scan.count_data_lines(buf, after, b"%") == int(fields[2]):
        rows, cols = int(fields[0]), int(fields[1])
        if rows != cols:
            raise GraphFormatError(path, first.number, f"an adjacency matrix must be square, this one is {rows} x "
                                   f"{cols}" + _NO_BANNER, first.text)
        require_csr(path, raw, rows, 0, True, True, (first.number, first.offset), f"the size line's {rows:,} rows")
        entry = first_line(raw, _is_comment, after, first.number + 1)
        if entry is None:
            return _finish(path, raw, np.empty(0, np.int64), np.empty(0, np.int64), None, rows, True,
                           lambda i: scan.ScanError(scan.OK, first.number, first.offset), first.number, first.offset)
        ncols = len(split_fields(entry.content, False))
        how = f"the size line on line {first.number} ({rows} x {cols}, {int(fields[2]):,} entries)"
    else:
        entry = first
        ncols = len(fields)
        how = "no size line (the largest id is the vertex count)"
    if ncols not in (2, 3):
        raise GraphFormatError(path, entry.number, f"expected 2 or 3 fields (row column [value]), found {ncols}"
                               + _NO_BANNER, entry.text)
    warn(f"{path}: no %%MatrixMarket banner; read as general coordinate data: 1-based ids, {how}, "
                  f"{'weights in the third column' if ncols == 3 else 'no weights'}, directed (load it with "
                  "directed=False for a symmetric matrix)", FormatWarning)
    columns = ("row index", "column index", "real value")[:ncols]
    src, dst, weights, locate = _entries(path, raw, entry.offset, entry.number, ncols, scan.WEIGHT_REAL, columns, "",
                                         _NO_BANNER)
    n = rows if rows is not None else (int(max(src.max(), dst.max())) + 1 if src.size else 0)
    at = (first.number, first.offset) if rows is not None else (None, None)
    return _finish(path, raw, src, dst, weights, n, True, locate, *at)


def _entries(path: Path, raw: bytes | bytearray, lo: int, line0: int, ncols: int, wkind: int,
             columns: tuple[str, ...], why: str, suffix: str):
    buf = scan.as_buffer(raw)
    result = scan.scan_edges(buf, lo, line0, scan.MODE_MTX, False, ncols, wkind)
    if isinstance(result, scan.ScanError):
        if result.status == scan.BAD_COLUMNS:
            message = f"expected {ncols} fields ({' '.join(columns)}) on every entry line{why}"
        else:
            name = columns[result.column] if 0 <= result.column < len(columns) else "a field"
            if result.status == scan.ID_TOO_LARGE:
                message = f"{name} too large (more than 18 digits)"
            elif result.column == 2 and wkind == scan.WEIGHT_INT:
                message = "not an integer where the integer value was expected (the banner's field is 'integer')"
            else:
                message = f"not a number where the {name} was expected"
        raise GraphFormatError(path, result.line, message + suffix, line_text(raw, result.offset))
    src, dst, weights = result

    def locate(i: int) -> scan.ScanError:
        return scan.locate_record(buf, lo, line0, scan.MODE_MTX, False, ncols, i, wkind)

    src -= 1
    dst -= 1
    return src, dst, weights, locate


def _finish(path: Path, raw: bytes | bytearray, src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None, n: int,
            directed: bool, locate, line: int | None, offset: int | None) -> Records:
    check_ids(path, raw, src, n, 1, locate)
    check_ids(path, raw, dst, n, 1, locate)
    weights = check_weights(path, raw, weights, locate)
    def where() -> tuple[int | None, int | None]:
        if line is not None or not src.size:
            return line, offset
        err = locate(int(np.argmax(np.maximum(src, dst))))
        return err.line, err.offset

    require_csr(path, raw, n, src.size, directed, weights is not None, where, f"{n:,} rows")
    return Records(src, dst, weights, n, directed)


def write_mtx(graph: Graph, path: Path) -> bytes:
    """Matrix Market coordinate text (SciPy's writer): general for a directed graph, symmetric (the lower triangle) for
    an undirected one; pattern, integer or real by the weights."""
    import scipy.io
    import scipy.sparse

    rows, cols, weights = arcs(graph, once=True)
    if not graph.directed:  # symmetric Matrix Market stores the lower triangle
        rows, cols = cols, rows
    n = graph.num_vertices
    if weights is None:
        matrix = scipy.sparse.coo_array((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(n, n))
        field = "pattern"
    else:
        field = "integer" if integral(weights) else "real"
        data = weights.astype(np.int64) if field == "integer" else weights.astype(np.float64)
        matrix = scipy.sparse.coo_array((data, (rows, cols)), shape=(n, n))
    out = io.BytesIO()
    comment = header_lines(graph, "").replace("\n ", "\n").strip()
    scipy.io.mmwrite(out, matrix, comment=comment, field=field, symmetry="general" if graph.directed else "symmetric")
    return out.getvalue()


"""DIMACS 9th Challenge shortest-path files (``.gr``): ``c`` comments, one ``p sp N M`` problem line, ``a u v w`` arcs
(1-based), read and written. The grammar is docs/formats.md's "DIMACS shortest path"."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import GraphFormatError
from ..graph import Graph
from . import scan
from .emit import arcs, format_rows, header_lines
from .text import (Records, check_ids, check_weights, direction_hint, first_line, header_line, is_count, line_text,
                   next_line, require_csr, scan_message, top_comments)

__all__ = ["read_dimacs", "write_dimacs"]

_COLUMNS = ("from", "to", "weight")


def _is_comment(text: bytes) -> bool:
    return text[:1] == b"c"


def read_dimacs(path: Path, raw: bytes | bytearray) -> Records:
    """Parse a ``.gr`` file into records."""
    first, text, fields = header_line(path, raw, _is_comment, "no 'p sp <vertices> <arcs>' problem line")
    if fields[:1] == [b"a"]:
        raise GraphFormatError(path, first.number, "an arc before the problem line 'p sp <vertices> <arcs>'", text)
    if len(fields) != 4 or fields[0] != b"p" or fields[1] != b"sp" or not all(is_count(f) for f in fields[2:]):
        raise GraphFormatError(path, first.number, "expected the problem line 'p sp <vertices> <arcs>'", text)
    n, m = int(fields[2]), int(fields[3])
    require_csr(path, raw, n, 0, True, True, (first.number, first.offset), f"the problem line's {n:,} vertices")
    body = next_line(raw, first.offset)
    buf = scan.as_buffer(raw)
    result = scan.scan_edges(buf, body, first.number + 1, scan.MODE_DIMACS, False, 3)
    if isinstance(result, scan.ScanError):
        if result.status == scan.SECOND_PROBLEM:
            message = "a second problem line (a file holds one 'p sp <vertices> <arcs>')"
        elif result.status == scan.BAD_LINE_KIND:
            message = "unexpected line: expected an arc 'a <from> <to> <weight>' or a comment 'c ...'"
        elif result.status == scan.BAD_COLUMNS:
            message = "expected 3 columns (from to weight) after 'a'"
        else:
            message = scan_message(result, _COLUMNS)
        raise GraphFormatError(path, result.line, message, line_text(raw, result.offset))
    src, dst, weights = result
    if src.size != m:
        raise GraphFormatError(path, first.number, f"the problem line says {m:,} arcs but the file holds {src.size:,}",
                               text)

    def locate(i: int) -> scan.ScanError:
        return scan.locate_record(buf, body, first.number + 1, scan.MODE_DIMACS, False, 3, i)

    src -= 1
    dst -= 1
    check_ids(path, raw, src, n, 1, locate)
    check_ids(path, raw, dst, n, 1, locate)
    weights = check_weights(path, raw, weights, locate)
    require_csr(path, raw, n, src.size, True, True, (first.number, first.offset), f"{n:,} vertices and {m:,} arcs")
    directed = direction_hint(top_comments(raw, lambda t: t[:1] in (b"c", b"p"), _first_arc(raw, body)))
    return Records(src, dst, weights, n, True if directed is None else directed)


def _first_arc(raw: bytes | bytearray, body: int) -> int:
    line = first_line(raw, lambda t: t[:1] == b"c", body)
    return len(raw) if line is None else line.offset


def write_dimacs(graph: Graph, path: Path) -> bytes:
    """A ``.gr`` file: both arcs of an undirected edge, weight 1 for an unweighted graph."""
    rows, cols, weights = arcs(graph, once=False)
    if weights is None:
        weights = np.ones(rows.size, dtype=np.float32)
    head = header_lines(graph, "c") + f"p sp {graph.num_vertices} {rows.size}\n"
    return head.encode() + format_rows(rows + 1, cols + 1, weights, b"a ", b" ")

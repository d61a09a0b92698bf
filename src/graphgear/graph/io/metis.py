"""METIS / Chaco graphs (DIMACS10 ``.graph``): a header ``n m [fmt [ncon]]`` and one line per vertex listing its
neighbours (1-based), read and written. The grammar is docs/formats.md's "METIS": the adjacency must be symmetric and
hold no self-loops, and the counts must match the header."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import GraphError, GraphFormatError
from ..graph import Graph
from . import scan
from .emit import format_metis, header_lines, integral
from .text import (Records, check_ids, check_weights, header_line, is_count, line_text, next_line, require_csr,
                   scan_message)

__all__ = ["read_metis", "write_metis"]


def _is_comment(text: bytes) -> bool:
    return text[:1] == b"%"


def read_metis(path: Path, raw: bytes | bytearray) -> Records:
    """Parse a METIS file into records: each undirected edge once (its u < v entry), after the checks."""
    first, text, fields = header_line(path, raw, _is_comment, "no header line '<vertices> <edges> [fmt [ncon]]'")
    if not 2 <= len(fields) <= 4 or not all(is_count(f) for f in fields):
        raise GraphFormatError(path, first.number, "expected the header '<vertices> <edges> [fmt [ncon]]'", text)
    n, m = int(fields[0]), int(fields[1])
    fmt = fields[2].decode().zfill(3) if len(fields) > 2 else "000"
    if len(fmt) != 3 or any(c not in "01" for c in fmt):
        raise GraphFormatError(path, first.number, f"unknown METIS fmt {fields[2].decode()!r} (expected up to three "
                               "digits 0/1, e.g. 1, 10, 11)", text)
    ncon = int(fields[3]) if len(fields) > 3 else 1
    vertex_tokens = (1 if fmt[0] == "1" else 0) + (ncon if fmt[1] == "1" else 0)
    edge_weights = fmt[2] == "1"
    require_csr(path, raw, n, 0, False, edge_weights, (first.number, first.offset), f"the header's {n:,} vertices")
    body = next_line(raw, first.offset)
    cap = min(2 * m, (len(raw) - body) // 2 + 1)  # an entry takes two bytes at least: a bogus m allocates nothing
    buf = scan.as_buffer(raw)
    result = scan.scan_metis(buf, body, first.number + 1, n, cap, vertex_tokens, edge_weights)
    if isinstance(result, scan.ScanError):
        if result.status == scan.TOO_MANY and result.column < 0:
            message = f"the header says {n:,} vertices; the body has more vertex lines"
        elif result.status == scan.TOO_MANY:
            message = f"the header says {m:,} edges ({2 * m:,} adjacency entries); the body has more"
        elif result.status == scan.BAD_COLUMNS:
            message = "a neighbour without its edge weight" if edge_weights else "missing vertex weights"
        else:
            message = scan_message(result, ("a neighbour id",) * (result.column + 1))
        raise GraphFormatError(path, result.line, message, line_text(raw, result.offset))
    (src, dst, weights), lines = result
    if lines != n:
        raise GraphFormatError(path, first.number, f"the header says {n:,} vertices but the body has {lines:,} vertex "
                               "lines", text)
    if src.size != 2 * m:
        raise GraphFormatError(path, first.number, f"the header says {m:,} edges ({2 * m:,} adjacency entries) but "
                               f"the body lists {src.size:,}", text)

    def locate(i: int) -> scan.ScanError:  # the line of vertex src[i]: count the non-comment lines after the header
        pos, line, seen = body, first.number + 1, -1
        while True:
            end = raw.find(b"\n", pos)
            if not bytes(raw[pos : len(raw) if end < 0 else end]).lstrip().startswith(b"%"):
                seen += 1
                if seen == src[i]:
                    return scan.ScanError(scan.OK, line, pos)
            pos, line = end + 1, line + 1

    check_ids(path, raw, dst, n, 1, locate)
    loops = np.flatnonzero(src == dst)
    if loops.size:
        err = locate(int(loops[0]))
        raise GraphFormatError(path, err.line, f"vertex {int(src[loops[0]]) + 1} lists itself (a METIS graph has no "
                               "self-loops)", line_text(raw, err.offset))
    w = check_weights(path, raw, weights, locate) if edge_weights else None
    _check_symmetric(path, raw, src, dst, w, locate)
    keep = src < dst  # symmetric: each edge once, the build stores both arcs
    return Records(src[keep], dst[keep], None if w is None else w[keep], n, False)


def _check_symmetric(path: Path, raw: bytes | bytearray, src: np.ndarray, dst: np.ndarray, w: np.ndarray | None,
                     locate) -> None:
    """Every entry "u lists v (weight w)" has its "v lists u (weight w)", with multiplicity; else a GraphFormatError
    on the line of an entry without its mirror. The entries sorted by (u, v, w) must equal the mirrored entries sorted
    the same way; at the first difference, the smaller of the two is an entry the other list lacks."""
    zero = np.zeros(src.shape[0], np.float32) if w is None else w
    a = np.lexsort((zero, dst, src))  # the entries (u, v, w) in order
    b = np.lexsort((zero, src, dst))  # the mirrored entries (v, u, w) in order
    same = (src[a] == dst[b]) & (dst[a] == src[b]) & (zero[a] == zero[b])
    if same.all():
        return
    i = int(np.argmin(same))
    entry = (int(src[a[i]]), int(dst[a[i]]), float(zero[a[i]]))
    mirror = (int(dst[b[i]]), int(src[b[i]]), float(zero[b[i]]))
    if entry < mirror:  # entry is listed more often than its mirror
        record = int(a[i])
    else:  # the entry b[i] mirrors to something listed more often than b[i] itself: b[i]'s mirror is missing
        record = int(b[i])
    u, v, weight = int(src[record]), int(dst[record]), float(zero[record])
    err = locate(record)
    with_weight = "" if w is None else f" with weight {weight:g}"
    raise GraphFormatError(path, err.line, f"vertex {u + 1} lists {v + 1}{with_weight}, but vertex {v + 1} does not "
                           f"list {u + 1}{with_weight} (METIS adjacency must be symmetric)", line_text(raw, err.offset))


def write_metis(graph: Graph, path: Path) -> bytes:
    """A METIS file: undirected graphs without self-loops, integer weights only."""
    if graph.directed:
        raise GraphError(f"{path}: METIS holds undirected graphs only; save a directed graph as .mtx, .el or .gr")
    if graph.num_self_loops:
        raise GraphError(f"{path}: METIS does not allow self-loops; this graph has {graph.num_self_loops}")
    if graph.weights is not None and not integral(graph.weights):
        raise GraphError(f"{path}: METIS edge weights are integers; this graph has fractional weights")
    fmt = " 1" if graph.weights is not None else ""
    head = f"% {header_lines(graph, '%')[2:]}{graph.num_vertices} {graph.num_edges}{fmt}\n"
    return head.encode() + format_metis(graph.offsets, graph.indices, graph.weights)

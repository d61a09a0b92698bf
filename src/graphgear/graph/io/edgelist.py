"""Edge lists (SNAP, CSV/TSV, KONECT): ``source target [weight]`` lines, read and written. The grammar is
docs/formats.md's "Edge lists": comments start at ``#`` or ``%`` anywhere on a line; a header row is a first line whose
fields are all not numbers; SNAP's ``Nodes:``/``Edges:`` counts and KONECT's format and counts lines are checked
against the body."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import GraphFormatError
from ..graph import Graph
from . import scan
from .emit import arcs, format_rows, header_lines
from .text import (Line, Records, check_ids, check_weights, direction_hint, first_line, is_count, is_real, line_text,
                   next_line, require_csr, scan_message, split_fields, top_comments)

__all__ = ["EdgeListRecords", "read_edgelist", "write_edgelist"]

_KONECT = re.compile(rb"[ \t\r]*%[ \t\r]*(sym|asym|bip)(?:[ \t\r].*)?")  # KONECT's format line (line 1)
_KONECT_COUNTS = re.compile(rb"[ \t\r]*%[ \t\r]*([0-9]+)[ \t\r]+([0-9]+)[ \t\r]+([0-9]+)[ \t\r]*")  # line 2
# SNAP's "# Nodes: 7115 Edges: 103689": the word whole, then a count not followed by more of a word or a number
_NODES = re.compile(rb"(?<![A-Za-z0-9_])Nodes:[ \t\r]*([0-9]+)(?![0-9A-Za-z_.])")
_EDGES = re.compile(rb"(?<![A-Za-z0-9_])Edges:[ \t\r]*([0-9]+)(?![0-9A-Za-z_.])")
_COLUMNS = ("source", "target", "weight", "timestamp")


@dataclass
class EdgeListRecords(Records):
    """An edge list's records, with what `load`'s renumbering rule asks of the file (docs/formats.md, "Vertex ids and
    renumbering"): whether it states its vertex count, so that ids it names no edge for are real isolated vertices,
    and the base its ids are written in."""

    declared: bool = False  # a `Nodes:` count above every id, or KONECT's counts line
    base: int = 0  # an id as written is the id here + base (KONECT: 1)


def _is_comment(text: bytes) -> bool:
    return text[:1] in (b"#", b"%")


def _count(path: Path, lines: list[Line], pattern: re.Pattern[bytes]) -> tuple[int, Line] | None:
    """The first count statement of a kind in these comment lines (docs/formats.md, "Counts")."""
    for line in lines:
        match = pattern.search(line.content)
        if match:
            return _checked(path, match.group(1), line), line
    return None


def _checked(path: Path, digits: bytes, line: Line) -> int:
    if not is_count(digits):
        raise _error(path, line, f"count {digits[:40].decode()} has more than 18 digits")
    return int(digits)


def _error(path: Path, line: Line, message: str) -> GraphFormatError:
    return GraphFormatError(path, line.number, message, line.text)


def read_edgelist(path: Path, raw: bytes | bytearray) -> Records:
    """Parse an edge list (see the module notes) into records."""
    konect = _KONECT.fullmatch(bytes(raw[: next_line(raw, 0)]).rstrip(b"\n"))
    if konect and konect.group(1) == b"bip":
        raise GraphFormatError(path, 1, "a bipartite KONECT network has two vertex sets; graphgear reads graphs of one",
                               line_text(raw, 0))
    first = first_line(raw, _is_comment, cut=b"#%")
    comments = top_comments(raw, _is_comment, len(raw) if first is None else first.offset)
    base = 1 if konect else 0
    if konect:  # its format line says the direction, its count line (if any) the counts; other comments say nothing
        directed = konect.group(1) == b"asym"
        nodes = edges = None
        counts = _KONECT_COUNTS.fullmatch(comments[1].content) if len(comments) > 1 and comments[1].number == 2 \
            else None
        if counts:
            m, n1, n2 = (_checked(path, g, comments[1]) for g in counts.groups())
            if n1 != n2:
                raise _error(path, comments[1], f"KONECT's counts line names two vertex sets ({n1:,} and {n2:,})")
            edges, nodes = (m, comments[1]), (n1, comments[1])
    else:
        hint = direction_hint(comments)
        directed = True if hint is None else hint
        nodes, edges = _count(path, comments, _NODES), _count(path, comments, _EDGES)
    if first is None:
        return _no_edges(path, raw, nodes, edges, directed, "no edges: the file holds only comments and blank lines")
    comma = b"," in first.content
    fields = split_fields(first.content, comma)
    header: tuple[Line, int] | None = None
    data = first
    if not any(is_real(f) for f in fields):  # a header row: no field is a number
        if comma and not all(fields):
            raise _error(path, first, "an empty column name in the header row (a CSV written with its index? "
                                      "write it without, e.g. pandas' index=False)")
        header = (first, len(fields))
        following = first_line(raw, _is_comment, next_line(raw, first.offset), first.number + 1, cut=b"#%")
        if following is None:
            return _no_edges(path, raw, nodes, edges, directed, "no edges: the file holds only a header row")
        data = following
    columns = split_fields(data.content, comma)
    ncols = len(columns)
    allowed = (2, 3, 4) if konect else (2, 3)
    if comma and not all(columns):
        raise _error(path, data, f"an empty field in column {columns.index(b'') + 1}")
    if ncols not in allowed:
        want = "2, 3 or 4 columns (source target [weight [timestamp]])" if konect else \
            "2 or 3 columns (source target [weight])"
        raise _error(path, data, f"expected {want}, found {ncols}")
    if header is not None and header[1] != ncols:
        raise _error(path, header[0], f"the header row names {header[1]} columns but the data lines have {ncols}")
    if path.name.lower().removesuffix(".gz").endswith(".wel") and ncols != 3:
        raise _error(path, data, "a .wel file needs a weight column (source target weight)")
    buf = scan.as_buffer(raw)
    result = scan.scan_edges(buf, data.offset, data.number, scan.MODE_EDGES, comma, ncols)
    if isinstance(result, scan.ScanError):
        raise GraphFormatError(path, result.line, scan_message(result, _COLUMNS[:ncols]),
                               line_text(raw, result.offset))
    src, dst, weights = result

    def locate(i: int) -> scan.ScanError:
        return scan.locate_record(buf, data.offset, data.number, scan.MODE_EDGES, comma, ncols, i)

    if base:
        src -= base
        dst -= base
    weights = check_weights(path, raw, weights if ncols >= 3 else None, locate)
    records = src.shape[0]
    if edges is not None and edges[0] != records:
        raise _error(path, edges[1], f"the header says {edges[0]:,} edges but the file holds {records:,} edge lines")
    top = int(max(src.max(), dst.max())) if records else -1
    check_ids(path, raw, src, max(top + 1, 1), base, locate)  # a negative id
    check_ids(path, raw, dst, max(top + 1, 1), base, locate)
    n = top + 1
    if records:
        def where() -> tuple[int, int]:
            at = locate(int(np.argmax(src)) if src.max() >= dst.max() else int(np.argmax(dst)))
            return at.line, at.offset

        require_csr(path, raw, max(n, nodes[0] if nodes else 0), records, directed, weights is not None, where,
                    f"vertex id {top + base}")
    if nodes is not None:
        n = _vertices(path, raw, nodes, src, dst, top, base, bool(konect), locate)
    declared = nodes is not None and top < nodes[0]  # not SNAP's count of the ids that appear (wiki-Vote's)
    return EdgeListRecords(src, dst, weights, n, directed, declared=declared, base=base)


def _no_edges(path: Path, raw: bytes | bytearray, nodes: tuple[int, Line] | None, edges: tuple[int, Line] | None,
              directed: bool, message: str) -> Records:
    if nodes is None:
        raise GraphFormatError(path, None, message)
    if edges is not None and edges[0] != 0:
        raise _error(path, edges[1], f"the header says {edges[0]:,} edges but the file holds none")
    require_csr(path, raw, nodes[0], 0, directed, False, (nodes[1].number, nodes[1].offset), f"{nodes[0]:,} nodes")
    empty = np.empty(0, np.int64)
    return EdgeListRecords(empty, empty.copy(), None, nodes[0], directed, declared=True)


def _vertices(path: Path, raw: bytes | bytearray, nodes: tuple[int, Line], src: np.ndarray, dst: np.ndarray, top: int,
              base: int, konect: bool, locate) -> int:
    """The vertex count a header's node count gives (docs/formats.md, "Counts")."""
    count, line = nodes
    if top < count:
        return count  # ids within the count: isolated vertices up to it
    if konect:  # KONECT's count is the id range
        i = int(np.argmax(src)) if src.max() >= dst.max() else int(np.argmax(dst))
        err = locate(i)
        raise GraphFormatError(path, err.line, f"vertex id {top + base} is above KONECT's vertex count {count:,}",
                               line_text(raw, err.offset))
    seen = np.zeros(top + 1, dtype=bool)
    seen[src] = True
    seen[dst] = True
    distinct = int(np.count_nonzero(seen))
    if distinct != count:
        raise _error(path, line, f"the header says {count:,} nodes but the edges name {distinct:,} distinct vertices "
                                 f"(largest id {top + base:,})")
    return top + 1  # SNAP counts the vertices that appear; its ids may have gaps


# ---------------------------------------------------------------------------------------------------------- writing


def write_edgelist(graph: Graph, path: Path) -> bytes:
    """An edge list: the header comments, a ``source,target[,weight]`` row for CSV, one line per edge."""
    rows, cols, weights = arcs(graph, once=True)
    csv = ".csv" in [s.lower() for s in path.suffixes]
    sep = b"," if csv else b"\t"
    head = header_lines(graph, "#")
    if csv:
        head += "source,target,weight\n" if weights is not None else "source,target\n"
    return head.encode() + format_rows(rows, cols, weights, b"", sep)


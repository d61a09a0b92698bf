"""An independent, line-by-line reading of docs/formats.md: the yardstick graphgear's file readers are fuzzed against.

`read(data, name)` reads the bytes of one file the way docs/formats.md states it and returns a `ReferenceGraph` (the
edge records, the vertex count and the direction) or raises `ReferenceFormatError`. `expected_graph` turns the records
into the Graph `gg.load` should return (through `Graph.from_edges` with load's defaults: self-loops and duplicates
dropped, a duplicate keeping its minimum weight; an .npz is the stored CSR as it is). Nothing here comes from
graphgear.graph.io: plain Python over bytes, regular expressions with ASCII digits only (Python's float() alone would
accept "inf", "1_0" and Unicode digits, so every token is matched against the grammar first).

Readings chosen where docs/formats.md leaves room (each a choice to report, not a fact about graphgear):

- Lines are the pieces between ``\\n`` bytes; the empty piece after a final ``\\n`` is not a line (a METIS body
  ``"3 1\\n2\\n1\\n\\n"`` has three vertex lines, the last one blank). A BOM is skipped after decompression.
- Numbers: vertex ids may carry a sign (``-0`` is 0); counts (``p sp N M``, METIS and Matrix Market headers,
  ``Nodes:``/``Edges:``, KONECT's count line) are unsigned COUNTs of at most 18 digits. METIS edge weights and the
  vertex sizes/weights it skips follow the ID grammar, either sign. An INT is rounded once to float32 (not through float64). Outside the exact decimal range
  (more than 15 significant digits, or a power of ten beyond +-22 once trailing zeros move into the exponent) the
  spec lets a conversion be one float64 ulp off, so the float32 of the float64 neighbours are accepted too (for INTs
  as well): `ReferenceGraph.weights_low/high`, and at float32's overflow boundary both a refusal and the largest
  float32 (`OverflowBoundaryError`, `read(..., lenient=True)`, `ReferenceGraph.may_overflow`).
- Edge lists: a comma-separated header row may not hold an empty field, but its column names may hold blanks; data
  fields hold one token each. A header row sets no column count when the file has no data lines. The direction hint
  and the ``Nodes:``/``Edges:`` statements come from the comment lines above the first non-blank line (the header row
  when there is one), with no byte bound; in a line holding both direction words the first decides.
  ``Nodes:``/``Edges:`` are case-sensitive, not preceded by a letter, digit or ``_``, followed by optional blanks and
  ``[0-9]+`` that is not followed by a letter, digit, ``_`` or ``.``: anything else (``Nodes: 1.5``, ``Nodes: -2``) is
  no statement, and a later one may count. A statement's number of more than 18 digits is an error.
- KONECT is recognised by content, whatever the name: line 1 is ``%``, optional blanks, then ``sym``, ``asym`` or
  ``bip`` (case-sensitive) followed by a blank or the line's end (``% sym-unweighted`` is an ordinary comment). Line 2
  is the count line when, after its ``%``, it is exactly three runs of ``[0-9]+``; they must then be valid counts
  with both vertex counts equal. A KONECT file ignores ``Nodes:``/``Edges:`` and direction comments (its format line
  decides); its count line acts as ``Nodes:``/``Edges:`` would (so with no data lines it is N vertices, no edges).
- METIS: ``fmt`` is one to three digits 0/1; ``ncon`` may be 0; symmetry compares the written integer weights.
- Matrix Market: line 1 claims a banner when it starts (after blanks) with ``%%MatrixMarket`` in any case; the claim
  must then be a valid banner, else the file is banner-less (and that line a comment). Banner-less: "the lines after
  it" are the data lines (comments and blank lines not counted).
- gzip: members one after the other as Python's gzip module reads them, except that reserved header flag bits are
  refused (RFC 1952, as zlib does).
- .npz: gzip content is decompressed first ("every file"). Members are ``<key>.npy``; others are ignored (a cache entry
  holds more members than a graph), a missing required one is an error. dtypes: ``version`` any integer dtype,
  ``format``/``name`` unicode scalars, ``offsets``/``counts``/``indices`` any integer dtype with values within int64
  (either byte order), ``weights`` any float dtype (finite once float32), ``directed`` bool, counts not negative; ``fortran_order`` does not matter for 0-d and 1-d arrays; a member
  whose size is not exactly its header plus its data is an error. Rows are sorted non-strictly (a graph saved with
  duplicates kept is valid) and symmetry counts arcs with multiplicity; vertex labels are numbers (integer or float
  kinds) or unicode strings, unique under numpy's equality. The graph is used as stored: load's self-loop and
  duplicate policies do not apply to an .npz.
"""

from __future__ import annotations

import io
import re
import warnings
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePath

import numpy as np

__all__ = ["BOM", "OverflowBoundaryError", "ReferenceFormatError", "ReferenceGraph", "expected_graph", "format_of", "read", "read_file"]

BOM = b"\xef\xbb\xbf"
GZIP_MAGIC = b"\x1f\x8b"

EDGE_LIST_EXTENSIONS = (".txt", ".el", ".wel", ".csv", ".tsv", ".edges")
FORMAT_BY_EXTENSION = {
    **{ext: "edgelist" for ext in EDGE_LIST_EXTENSIONS},
    ".gr": "dimacs",
    ".graph": "metis",
    ".metis": "metis",
    ".chaco": "metis",
    ".mtx": "mtx",
    ".npz": "npz",
}

# The number grammar of docs/formats.md ("Numbers"), bytes patterns: [0-9] is ASCII only.
ID = re.compile(rb"[+-]?[0-9]{1,18}")
INT = re.compile(rb"[+-]?[0-9]+")
REAL = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_REAL_PARTS = re.compile(rb"[+-]?([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
_TOKEN = re.compile(rb"[^ \t\r]+")  # whitespace is space, tab and \r only
_BLANKS = b" \t\r"
_DIRECTION = re.compile(rb"\b(un)?directed\b", re.IGNORECASE)  # bytes \b: word characters are [A-Za-z0-9_]
_NODES = re.compile(rb"(?<![A-Za-z0-9_])Nodes:[ \t\r]*([0-9]+)(?![0-9A-Za-z_.])")
_EDGES = re.compile(rb"(?<![A-Za-z0-9_])Edges:[ \t\r]*([0-9]+)(?![0-9A-Za-z_.])")
_KONECT = re.compile(rb"[ \t\r]*%[ \t\r]*(sym|asym|bip)(?:[ \t\r].*)?")
_KONECT_COUNTS = re.compile(rb"[ \t\r]*%[ \t\r]*([0-9]+)[ \t\r]+([0-9]+)[ \t\r]+([0-9]+)[ \t\r]*")
_METIS_FMT = re.compile(rb"[01]{1,3}")
COUNT = re.compile(rb"[0-9]{1,18}")
_FLOAT32_MAX_BITS = 24


class ReferenceFormatError(Exception):
    """The reference refuses the file: it breaks docs/formats.md (the message says where and how)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(message if line is None else f"line {line}: {message}")


@dataclass
class ReferenceGraph:
    """What a file holds: edge records ``src[i] -> dst[i]`` (int64, 0-based) with float32 ``weights`` (or None), the
    vertex count and the direction. ``weights_low``/``weights_high`` (or None) bound a weight that docs/formats.md
    lets a reader convert one float64 ulp off, and ``may_overflow`` says that such a weight could then overflow float32
    (a reader may refuse the file). ``offsets`` is set for an .npz: the records are then its stored arcs in CSR order,
    to be used as they are."""

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    num_vertices: int
    directed: bool
    weights_low: np.ndarray | None = None
    weights_high: np.ndarray | None = None
    offsets: np.ndarray | None = None
    may_overflow: bool = False

    @property
    def num_records(self) -> int:
        return int(self.src.size)


# ------------------------------------------------------------------------------------------------------- entry points


def format_of(name: str) -> str:
    """The format a file name selects (its last suffix, a trailing .gz ignored, any case); ValueError for others."""
    suffixes = [s.lower() for s in PurePath(name).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    if not suffixes or suffixes[-1] not in FORMAT_BY_EXTENSION:
        raise ValueError(f"{name}: the reference reads only names ending in {', '.join(FORMAT_BY_EXTENSION)}")
    return FORMAT_BY_EXTENSION[suffixes[-1]]


def read_file(path: str) -> ReferenceGraph:
    """`read` of a file on disk."""
    with open(path, "rb") as f:
        return read(f.read(), PurePath(path).name)


def read(data: bytes, name: str, lenient: bool = False) -> ReferenceGraph:
    """The graph the bytes `data` of a file named `name` hold, as docs/formats.md reads them. A weight at the float32
    overflow boundary (`OverflowBoundaryError`) is an error, or with `lenient` the largest float32; a graph where a
    reader one ulp off could overflow has `may_overflow` set."""
    _Conversion.lenient, _Conversion.may_overflow = lenient, False
    graph = _read(data, name)
    graph.may_overflow = _Conversion.may_overflow
    return graph


def _read(data: bytes, name: str) -> ReferenceGraph:
    fmt = format_of(name)
    if data[:2] == GZIP_MAGIC:
        data = _gunzip(data)
    if fmt == "npz":
        return _read_npz(data)
    body = data.removeprefix(BOM)
    if not body.strip(_BLANKS + b"\n"):
        raise ReferenceFormatError("empty file")
    lines = _lines(body)
    if fmt == "edgelist":
        wel = PurePath(name.lower().removesuffix(".gz")).suffix == ".wel"
        return _read_edgelist(lines, wel, len(data) - len(body))
    if fmt == "dimacs":
        return _read_dimacs(lines)
    if fmt == "metis":
        return _read_metis(lines)
    return _read_mtx(lines)


def _gunzip(data: bytes) -> bytes:
    """Every gzip member one after the other as Python's gzip module reads them (zero padding after a member too, other
    bytes after it refused), except that a header with reserved flag bits set is refused, as RFC 1952 asks (zlib)."""
    out = []
    rest = data
    first = True
    while True:
        if not first:
            rest = rest.lstrip(b"\x00")
            if not rest:
                return b"".join(out)
            if not rest.startswith(GZIP_MAGIC):
                raise ReferenceFormatError("bytes after the last gzip member that are not another member")
        first = False
        member = zlib.decompressobj(wbits=31)
        try:
            out.append(member.decompress(rest))
            out.append(member.flush())
        except zlib.error as exc:
            raise ReferenceFormatError(f"corrupt gzip data ({exc})") from None
        if not member.eof:
            raise ReferenceFormatError("truncated gzip data")
        rest = member.unused_data


def _lines(body: bytes) -> list[bytes]:
    """The lines of the text: pieces between \\n bytes, without the empty piece after a final \\n."""
    lines = body.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def _blank(text: bytes) -> bool:
    return not text.strip(_BLANKS)


def _comment_line(line: bytes, marker: bytes) -> bool:
    """A line whose first non-blank byte is `marker`."""
    return line.lstrip(_BLANKS)[:1] == marker


# ------------------------------------------------------------------------------------------------------------ numbers


def _id(token: bytes, line: int, what: str = "vertex id") -> int:
    """An ID token's value (`[+-]?[0-9]{1,18}`), or an error naming `what`."""
    if not ID.fullmatch(token):
        raise ReferenceFormatError(f"{what} {token[:40]!r} is not an ID ([+-]?[0-9]{{1,18}})", line)
    return int(token)


def _count(token: bytes, line: int, what: str) -> int:
    """A count: unsigned digits, at most 18 (`[0-9]{1,18}`)."""
    if not COUNT.fullmatch(token):
        raise ReferenceFormatError(f"{what} {token[:40]!r} is not a count ([0-9]{{1,18}})", line)
    return int(token)


class OverflowBoundaryError(ReferenceFormatError):
    """A weight whose value by the spec overflows float32 while a conversion one float64 ulp off (which docs/formats.md
    allows outside the exact decimal range) does not: a reader may refuse the file or read the largest float32.
    `read(..., lenient=True)` gives the second answer."""


class _Conversion:
    """State of one `read`: whether boundary weights take their finite neighbour, and whether one may overflow."""

    lenient = False
    may_overflow = False


def _int_float32(token: bytes, line: int) -> tuple[np.float32, np.float32, np.float32]:
    """An INT token (`[+-]?[0-9]+`, any length): (value, lowest, highest) float32 a reader may give. The value is the
    integer rounded once to float32 (ties to even); outside the exact decimal range a reader may go through a float64
    within one ulp (the spec's conversion note), so those roundings are allowed too. Overflow is an error."""
    if not INT.fullmatch(token):
        raise ReferenceFormatError(f"weight {token[:40]!r} is not an INT ([+-]?[0-9]+)", line)
    if len(token.lstrip(b"+-").lstrip(b"0")) > 40:  # at least 1e40, beyond float32 (and int()'s digit limit)
        raise ReferenceFormatError(f"weight {token[:40]!r} overflows float32", line)
    value = int(token)
    magnitude = abs(value)
    bits = magnitude.bit_length()
    if bits > _FLOAT32_MAX_BITS:
        shift = bits - _FLOAT32_MAX_BITS
        quotient, rest = divmod(magnitude, 1 << shift)
        half = 1 << (shift - 1)
        if rest > half or (rest == half and quotient & 1):
            quotient += 1
        magnitude = quotient << shift
    single = np.float32(np.inf) if magnitude >= 1 << 128 else np.float32(float(magnitude))  # exact: <= 25 bits
    return _allowed_float32(token, line, "weight", -single if value < 0 else single, float(value))


def _real_float32(token: bytes, line: int, what: str = "weight") -> tuple[np.float32, np.float32, np.float32]:
    """A REAL token: (value, lowest, highest) float32 a reader may give: the decimal rounded to float64 (correctly, or
    within one ulp outside the exact range) and then to float32. Overflow is an error."""
    if not REAL.fullmatch(token):
        raise ReferenceFormatError(f"{what} {token[:40]!r} is not a REAL", line)
    x = float(token)  # correctly rounded; the token is known to be a plain ASCII decimal
    with np.errstate(over="ignore"):
        return _allowed_float32(token, line, what, np.float32(x), x)


def _allowed_float32(token: bytes, line: int, what: str, value: np.float32, x: float):
    """(value, lowest, highest) from the spec's `value` and the float64 `x` a reader rounds from: outside the exact
    decimal range the float32 of x and of its float64 neighbours are allowed too. An infinite value is an overflow
    error, an `OverflowBoundaryError` when an allowed one is finite, or with `_Conversion.lenient` that finite one; a
    finite value with an infinite allowed one sets `_Conversion.may_overflow`."""
    candidates = [value]
    if not _exact_decimal(token):
        with np.errstate(over="ignore"):
            candidates += [np.float32(np.nextafter(x, -np.inf)), np.float32(x), np.float32(np.nextafter(x, np.inf))]
    finite = [c for c in candidates if np.isfinite(c)]
    if not np.isfinite(value):
        if not finite or not _Conversion.lenient:
            error = OverflowBoundaryError if finite else ReferenceFormatError
            raise error(f"{what} {token[:40]!r} overflows float32", line)
        value = max(finite, key=abs)
    if len(finite) < len(candidates):
        _Conversion.may_overflow = True
    return value, min(finite), max(finite)


def _exact_decimal(token: bytes) -> bool:
    """Whether the decimal is w * 10**q with at most 15 digits in w and |q| <= 22 (the range converted exactly)."""
    whole, fraction, exponent = _REAL_PARTS.fullmatch(token).groups()
    digits = (whole or b"") + (fraction or b"")
    significant = digits.lstrip(b"0")
    if not significant:
        return True  # zero
    if exponent is not None and len(exponent.lstrip(b"+-").lstrip(b"0")) > 6:
        return False
    q = (int(exponent) if exponent else 0) - len(fraction or b"")
    trimmed = significant.rstrip(b"0")
    q += len(significant) - len(trimmed)
    return len(trimmed) <= 15 and -22 <= q <= 22


class _Weights:
    """float32 weights with their one-ulp bounds, gathered record by record."""

    def __init__(self) -> None:
        self.value: list[np.float32] = []
        self.low: list[np.float32] = []
        self.high: list[np.float32] = []

    def add(self, value: np.float32, low: np.float32 | None = None, high: np.float32 | None = None) -> None:
        self.value.append(value)
        self.low.append(value if low is None else low)
        self.high.append(value if high is None else high)

    def arrays(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        value = np.array(self.value, dtype=np.float32)
        low, high = np.array(self.low, dtype=np.float32), np.array(self.high, dtype=np.float32)
        if np.array_equal(low, value) and np.array_equal(high, value):
            return value, None, None
        return value, low, high


def _graph(src: list[int], dst: list[int], weights: _Weights | None, n: int, directed: bool) -> ReferenceGraph:
    value, low, high = weights.arrays() if weights is not None else (None, None, None)
    return ReferenceGraph(np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), value, n, directed, low, high)


# --------------------------------------------------------------------------------------------------------- edge lists


def _content(line: bytes) -> bytes:
    """The line without its comment: `#` or `%` starts one anywhere."""
    cut = len(line)
    for marker in (b"#", b"%"):
        at = line.find(marker)
        if at >= 0:
            cut = min(cut, at)
    return line[:cut]


def _fields(content: bytes, csv: bool, line: int, names: bool = False) -> list[bytes]:
    """The fields of a line (comment removed): between single commas (trimmed, never empty, one token each, except
    that a header row's column names may hold blanks: `names`) or between runs of whitespace."""
    if not csv:
        return _TOKEN.findall(content)
    fields = []
    for part in content.split(b","):
        field = part.strip(_BLANKS)
        if not field:
            raise ReferenceFormatError("an empty comma-separated field", line)
        if not names and _TOKEN.fullmatch(field) is None:
            raise ReferenceFormatError(f"a comma-separated field of two tokens {field[:40]!r}", line)
        fields.append(field)
    return fields


def _read_edgelist(lines: list[bytes], wel: bool, bom: int) -> ReferenceGraph:
    konect_directed, konect_counts = _konect_lines(lines)
    first = next((i for i, line in enumerate(lines) if not _blank(_content(line))), None)
    if konect_directed is not None:
        directed, nodes, edges = konect_directed, None, None
    else:
        directed, nodes, edges = _edge_list_hints(lines if first is None else lines[:first], bom)
    if konect_counts is not None:  # KONECT's count line states the counts as Nodes:/Edges: would
        edges, nodes = (konect_counts[0], 2), (konect_counts[1], 2)
    if first is None:
        return _no_data_lines(nodes, edges, directed)
    csv = b"," in _content(lines[first])
    header: list[bytes] | None = None
    rows: list[tuple[int, list[bytes]]] = []
    for i in range(first, len(lines)):
        content = _content(lines[i])
        if _blank(content):
            continue
        if i == first:
            names = _fields(content, csv, i + 1, names=True)
            if not any(REAL.fullmatch(f) for f in names):
                header = names
                continue
        fields = _fields(content, csv, i + 1)
        rows.append((i + 1, fields))
    if not rows:
        return _no_data_lines(nodes, edges, directed)
    allowed = (3,) if wel else (2, 3, 4) if konect_directed is not None else (2, 3)
    ncols = len(rows[0][1])
    if ncols not in allowed:
        raise ReferenceFormatError(f"{ncols} fields on a data line (allowed: {allowed})", rows[0][0])
    if header is not None and len(header) != ncols:
        raise ReferenceFormatError(f"a header row of {len(header)} fields over data lines of {ncols}", first + 1)
    base = 1 if konect_directed is not None else 0
    src: list[int] = []
    dst: list[int] = []
    weights = _Weights() if ncols >= 3 else None
    for line, fields in rows:
        if len(fields) != ncols:
            raise ReferenceFormatError(f"{len(fields)} fields where the data lines have {ncols}", line)
        u, v = _id(fields[0], line), _id(fields[1], line)
        if min(u, v) < base:
            raise ReferenceFormatError(f"vertex id {min(u, v)} out of range (ids start at {base})", line)
        src.append(u - base)
        dst.append(v - base)
        if weights is not None:
            weights.add(*_real_float32(fields[2], line))
        if ncols == 4 and not REAL.fullmatch(fields[3]):
            raise ReferenceFormatError(f"timestamp {fields[3][:40]!r} is not a REAL", line)
    largest = max(max(src), max(dst))
    n = largest + 1
    if konect_counts is not None:
        konect_edges, konect_vertices = konect_counts
        if konect_edges != len(rows):
            raise ReferenceFormatError(f"KONECT's count line says {konect_edges} edges, the file has {len(rows)}", 2)
        if largest >= konect_vertices:
            raise ReferenceFormatError(f"vertex id {largest + 1} above KONECT's vertex count {konect_vertices}")
        return _graph(src, dst, weights, konect_vertices, directed)
    if edges is not None and edges[0] != len(rows):
        raise ReferenceFormatError(f"'Edges: {edges[0]}' but the file has {len(rows)} data lines", edges[1])
    if nodes is not None:
        if largest < nodes[0]:
            n = nodes[0]
        elif nodes[0] != len(set(src) | set(dst)):
            raise ReferenceFormatError(f"'Nodes: {nodes[0]}' is neither above every id nor the distinct ids' count",
                                       nodes[1])
    return _graph(src, dst, weights, n, directed)


def _no_data_lines(nodes: tuple[int, int] | None, edges: tuple[int, int] | None, directed: bool) -> ReferenceGraph:
    """A file without data lines: N vertices without edges when it states ``Nodes: N``, else an error."""
    if nodes is None:
        raise ReferenceFormatError("no edges: the file has no data lines")
    if edges is not None and edges[0] != 0:
        raise ReferenceFormatError(f"'Edges: {edges[0]}' but the file has no data lines", edges[1])
    return _graph([], [], None, nodes[0], directed)


def _edge_list_hints(above: list[bytes], bom: int) -> tuple[bool, tuple[int, int] | None, tuple[int, int] | None]:
    """(directed, (N, line) of ``Nodes:`` or None, (M, line) of ``Edges:`` or None) from the comment lines above the
    first non-blank line."""
    directed: bool | None = None
    nodes = edges = None
    offset = bom
    for number, line in enumerate(above, 1):
        if directed is None:
            match = _DIRECTION.search(line)
            if match:
                directed = match.group(1) is None
        if nodes is None:
            match = _NODES.search(line)
            if match:
                nodes = (_count(match.group(1), number, "'Nodes:' count"), number)
        if edges is None:
            match = _EDGES.search(line)
            if match:
                edges = (_count(match.group(1), number, "'Edges:' count"), number)
        offset += len(line) + 1
    return (True if directed is None else directed), nodes, edges


def _konect_lines(lines: list[bytes]) -> tuple[bool | None, tuple[int, int] | None]:
    """(directed or None when not KONECT, (edge count, vertex count) of the ``% M N N`` line or None)."""
    match = _KONECT.fullmatch(lines[0]) if lines else None
    if match is None:
        return None, None
    kind = match.group(1)
    if kind == b"bip":
        raise ReferenceFormatError("a bipartite KONECT network ('% bip') is not a graph graphgear reads", 1)
    counts = _KONECT_COUNTS.fullmatch(lines[1]) if len(lines) > 1 else None
    if counts is None:
        return kind == b"asym", None
    m, n1, n2 = (_count(counts.group(k), 2, "KONECT count") for k in (1, 2, 3))
    if n1 != n2:
        raise ReferenceFormatError(f"KONECT's count line gives two vertex counts, {n1} and {n2}", 2)
    return kind == b"asym", (m, n1)


# ------------------------------------------------------------------------------------------------------------- DIMACS


def _read_dimacs(lines: list[bytes]) -> ReferenceGraph:
    problem: tuple[int, int] | None = None
    directed: bool | None = None
    src: list[int] = []
    dst: list[int] = []
    weights = _Weights()
    for number, line in enumerate(lines, 1):
        if _blank(line):
            continue
        kind = line.lstrip(_BLANKS)[:1]
        if kind == b"c":
            if not src and directed is None:
                match = _DIRECTION.search(line)
                if match:
                    directed = match.group(1) is None
            continue
        fields = _TOKEN.findall(line)
        if kind == b"p":
            if problem is not None:
                raise ReferenceFormatError("a second problem line", number)
            if len(fields) != 4 or fields[0] != b"p" or fields[1] != b"sp":
                raise ReferenceFormatError("not a problem line 'p sp N M'", number)
            problem = (_count(fields[2], number, "vertex count"), _count(fields[3], number, "arc count"))
        elif kind == b"a":
            if problem is None:
                raise ReferenceFormatError("an arc before the problem line", number)
            if len(fields) != 4 or fields[0] != b"a":
                raise ReferenceFormatError("not an arc line 'a u v w'", number)
            u, v = _id(fields[1], number), _id(fields[2], number)
            for x in (u, v):
                if not 1 <= x <= problem[0]:
                    raise ReferenceFormatError(f"vertex id {x} out of range 1..{problem[0]}", number)
            src.append(u - 1)
            dst.append(v - 1)
            weights.add(*_real_float32(fields[3], number))
        else:
            raise ReferenceFormatError(f"a line that is not c, p or a: {line[:40]!r}", number)
    if problem is None:
        raise ReferenceFormatError("no problem line 'p sp N M'")
    if len(src) != problem[1]:
        raise ReferenceFormatError(f"the problem line says {problem[1]} arcs, the file has {len(src)}")
    return _graph(src, dst, weights, problem[0], True if directed is None else directed)


# -------------------------------------------------------------------------------------------------------------- METIS


def _read_metis(lines: list[bytes]) -> ReferenceGraph:
    start = next((i for i, line in enumerate(lines) if not _blank(line) and not _comment_line(line, b"%")), None)
    if start is None:
        raise ReferenceFormatError("no header line 'n m [fmt [ncon]]'")
    head = _TOKEN.findall(lines[start])
    if not 2 <= len(head) <= 4:
        raise ReferenceFormatError(f"a header of {len(head)} fields (expected n m [fmt [ncon]])", start + 1)
    n = _count(head[0], start + 1, "vertex count")
    m = _count(head[1], start + 1, "edge count")
    fmt = head[2] if len(head) > 2 else b"0"
    if not _METIS_FMT.fullmatch(fmt):
        raise ReferenceFormatError(f"fmt {fmt[:40]!r} is not up to three 0/1 digits without leading zeros", start + 1)
    ncon = _count(head[3], start + 1, "ncon") if len(head) > 3 else 1
    sizes, vertex_weights, edge_weights = (c == ord("1") for c in fmt.rjust(3, b"0"))
    skip = int(sizes) + (ncon if vertex_weights else 0)
    vertex = 0
    entries: list[tuple[int, int, int]] = []
    for i in range(start + 1, len(lines)):
        line, number = lines[i], i + 1
        if _comment_line(line, b"%"):
            continue
        if vertex == n:
            if not _blank(line):
                raise ReferenceFormatError(f"more than the header's {n} vertex lines", number)
            continue
        vertex += 1
        tokens = _TOKEN.findall(line)
        if len(tokens) < skip:
            raise ReferenceFormatError(f"{len(tokens)} fields where the vertex size/weights need {skip}", number)
        for token in tokens[:skip]:
            _id(token, number, "vertex size or weight")
        rest = tokens[skip:]
        if edge_weights and len(rest) % 2:
            raise ReferenceFormatError("a neighbour without its edge weight", number)
        step = 2 if edge_weights else 1
        for k in range(0, len(rest), step):
            v = _id(rest[k], number, "neighbour id")
            if not 1 <= v <= n:
                raise ReferenceFormatError(f"neighbour id {v} out of range 1..{n}", number)
            if v == vertex:
                raise ReferenceFormatError(f"vertex {vertex} lists itself", number)
            w = _id(rest[k + 1], number, "edge weight") if edge_weights else 0
            entries.append((vertex, v, w))
    if vertex < n:
        raise ReferenceFormatError(f"the header says {n} vertices, the body has {vertex} vertex lines")
    if len(entries) != 2 * m:
        raise ReferenceFormatError(f"the header says {m} edges ({2 * m} entries), the body lists {len(entries)}")
    forward = Counter(entries)
    if forward != Counter((v, u, w) for u, v, w in entries):
        u, v, w = next(e for e in forward if forward[e] != forward.get((e[1], e[0], e[2]), 0))
        raise ReferenceFormatError(f"asymmetric adjacency: {u} lists {v} (weight {w}) {forward[(u, v, w)]} times, "
                                   f"{v} lists {u} {forward.get((v, u, w), 0)} times")
    weights = None
    if edge_weights:
        weights = _Weights()
        for _, _, w in entries:
            weights.add(*_int_float32(str(w).encode(), 0))
    return _graph([u - 1 for u, _, _ in entries], [v - 1 for _, v, _ in entries], weights, n, False)


# ------------------------------------------------------------------------------------------------------ Matrix Market


_MTX_FIELDS = {b"pattern": "pattern", b"integer": "integer", b"real": "real", b"double": "real"}
_MTX_SYMMETRIES = {b"general": True, b"symmetric": False}


def _read_mtx(lines: list[bytes]) -> ReferenceGraph:
    if lines and lines[0].lstrip(_BLANKS)[:14].lower() == b"%%matrixmarket":
        field, directed = _mtx_banner(lines[0])
        data = _mtx_data_lines(lines, 1)
        if not data:
            raise ReferenceFormatError("no size line 'rows cols nnz'")
        number, size = data[0]
        if len(size) != 3:
            raise ReferenceFormatError(f"a size line of {len(size)} fields (expected rows cols nnz)", number)
        rows, cols, nnz = (_count(t, number, "size") for t in size)
        if rows != cols:
            raise ReferenceFormatError(f"a {rows} x {cols} matrix is not square", number)
        entries = data[1:]
        if len(entries) != nnz:
            raise ReferenceFormatError(f"the size line says {nnz} entries, the file has {len(entries)}", number)
        ncols = 2 if field == "pattern" else 3
        return _mtx_entries(entries, ncols, field, rows, directed)
    data = _mtx_data_lines(lines, 0)  # banner-less: general coordinate data (graphgear warns)
    if not data:
        raise ReferenceFormatError("no entries")
    number, first = data[0]
    if len(first) == 3 and all(COUNT.fullmatch(t) for t in first) and int(first[2]) == len(data) - 1:
        rows, cols, _ = (_count(t, number, "size") for t in first)
        if rows != cols:
            raise ReferenceFormatError(f"a {rows} x {cols} matrix is not square", number)
        entries, n = data[1:], rows
    else:
        entries, n = data, None
    if not entries:
        return _graph([], [], None, n, True)
    ncols = len(entries[0][1])
    if ncols not in (2, 3):
        raise ReferenceFormatError(f"an entry of {ncols} fields (expected i j [value])", entries[0][0])
    graph = _mtx_entries(entries, ncols, "pattern" if ncols == 2 else "real", n, True)
    if n is None:
        graph.num_vertices = int(max(graph.src.max(), graph.dst.max())) + 1
    return graph


def _mtx_banner(line: bytes) -> tuple[str, bool]:
    """(field, directed) of a valid banner; refuses anything else."""
    words = [w.lower() for w in _TOKEN.findall(line)]
    if len(words) != 5 or words[0] != b"%%matrixmarket" or words[1] != b"matrix":
        raise ReferenceFormatError("not a banner '%%MatrixMarket matrix coordinate FIELD SYMMETRY'", 1)
    if words[2] != b"coordinate":
        raise ReferenceFormatError(f"a Matrix Market {words[2][:20]!r} file is not a coordinate graph", 1)
    if words[3] not in _MTX_FIELDS:
        raise ReferenceFormatError(f"unsupported field {words[3][:20]!r}", 1)
    if words[4] not in _MTX_SYMMETRIES:
        raise ReferenceFormatError(f"unsupported symmetry {words[4][:20]!r}", 1)
    return _MTX_FIELDS[words[3]], _MTX_SYMMETRIES[words[4]]


def _mtx_data_lines(lines: list[bytes], start: int) -> list[tuple[int, list[bytes]]]:
    """(line number, fields) of the lines from `start` that are neither blank nor % comments."""
    return [(i + 1, _TOKEN.findall(lines[i])) for i in range(start, len(lines))
            if not _blank(lines[i]) and not _comment_line(lines[i], b"%")]


def _mtx_entries(entries, ncols: int, field: str, n: int | None, directed: bool) -> ReferenceGraph:
    src: list[int] = []
    dst: list[int] = []
    weights = None if field == "pattern" else _Weights()
    for number, fields in entries:
        if len(fields) != ncols:
            raise ReferenceFormatError(f"an entry of {len(fields)} fields where {ncols} are expected", number)
        i, j = _id(fields[0], number), _id(fields[1], number)
        for x in (i, j):
            if x < 1 or (n is not None and x > n):
                raise ReferenceFormatError(f"index {x} out of range 1..{n if n is not None else 'any'}", number)
        src.append(i - 1)
        dst.append(j - 1)
        if field == "integer":
            weights.add(*_int_float32(fields[2], number))
        elif field == "real":
            weights.add(*_real_float32(fields[2], number))
    return _graph(src, dst, weights, 0 if n is None else n, directed)


# ---------------------------------------------------------------------------------------------------------------- npz


_NPZ_REQUIRED = ("format", "version", "offsets", "indices", "directed", "counts", "name")
_NPZ_OPTIONAL = ("weights", "vertex_ids")


def _npz_header(member) -> tuple[np.dtype, tuple[int, ...], int]:
    """(dtype, shape, header bytes) of one .npy member, read with numpy.lib.format's header reader."""
    fmt = np.lib.format
    version = fmt.read_magic(member)
    if version == (1, 0):
        shape, _, dtype = fmt.read_array_header_1_0(member)
    elif version == (2, 0):
        shape, _, dtype = fmt.read_array_header_2_0(member)
    elif version == (3, 0):
        from numpy.lib import _format_impl

        shape, _, dtype = _format_impl._read_array_header(member, version)
    else:
        raise ValueError(f"unknown .npy version {version}")
    return dtype, shape, member.tell()


def _npz_check_header(key: str, dtype: np.dtype, shape: tuple[int, ...]) -> None:
    """The dtype and shape docs/formats.md requires of each member (lengths between members are checked later)."""
    kinds = {
        "format": ("U",), "name": ("U",), "version": ("i", "u"), "directed": ("b",),
        "offsets": ("i", "u"), "counts": ("i", "u"), "indices": ("i", "u"), "weights": ("f",),
        "vertex_ids": ("i", "u", "f", "U"),
    }
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None or dtype.kind not in kinds[key]:
        raise ReferenceFormatError(f"npz member {key!r} has dtype {dtype}")
    ndim = 0 if key in ("format", "name", "version", "directed") else 1
    if len(shape) != ndim or any(s < 0 for s in shape) or (key == "counts" and shape != (2,)):
        raise ReferenceFormatError(f"npz member {key!r} has shape {shape}")
    if key == "offsets" and shape[0] < 1:
        raise ReferenceFormatError("npz offsets are empty")


def _read_npz(data: bytes) -> ReferenceGraph:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, KeyError) as exc:
        raise ReferenceFormatError(f"not a zip archive ({type(exc).__name__}: {exc})") from None
    with archive:
        names = set(archive.namelist())
        keys = [k for k in _NPZ_REQUIRED + _NPZ_OPTIONAL if f"{k}.npy" in names]
        missing = [k for k in _NPZ_REQUIRED if k not in keys]
        if missing:
            raise ReferenceFormatError(f"npz members missing: {missing}")
        headers = {}
        try:
            for key in keys:  # every header before any array is read
                info = archive.getinfo(f"{key}.npy")
                with archive.open(info) as member, warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # numpy's note on headers written by Python 2
                    try:
                        dtype, shape, start = _npz_header(member)
                    except ReferenceFormatError:
                        raise
                    except Exception as exc:  # noqa: BLE001 - numpy's header parser meets untrusted text (tokenize too)
                        raise ReferenceFormatError(f"npz member {key!r}: unreadable .npy header ({exc!r:.200})") from None
                _npz_check_header(key, dtype, shape)
                size = int(np.prod(shape, dtype=object)) * dtype.itemsize
                if start + size != info.file_size:
                    raise ReferenceFormatError(
                        f"npz member {key!r}: header {start} + data {size} bytes != member size {info.file_size}")
                headers[key] = (info, dtype, shape, start, size)
            arrays = {}
            for key, (info, dtype, shape, start, size) in headers.items():
                with archive.open(info) as member:
                    raw = member.read()
                if len(raw) != start + size:
                    raise ReferenceFormatError(f"npz member {key!r} is shorter than its header says")
                arrays[key] = np.frombuffer(raw, dtype=dtype, count=int(np.prod(shape)), offset=start).reshape(shape)
        except ReferenceFormatError:
            raise
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError, KeyError,
                RuntimeError, TypeError, MemoryError, zlib.error, SyntaxError, UnicodeDecodeError) as exc:
            raise ReferenceFormatError(f"unreadable npz ({type(exc).__name__}: {exc})") from None
    return _npz_graph(arrays)


def _npz_graph(arrays: dict[str, np.ndarray]) -> ReferenceGraph:
    """The stored CSR after every check of docs/formats.md."""
    if str(arrays["format"][()]) != "graphgear-csr":
        raise ReferenceFormatError(f"npz format tag {str(arrays['format'][()])[:40]!r}")
    if int(arrays["version"][()]) != 1:
        raise ReferenceFormatError(f"npz version {int(arrays['version'][()])}")
    if np.any(arrays["counts"].astype(object) < 0):
        raise ReferenceFormatError("npz counts are negative")
    for key in ("offsets", "indices"):
        if arrays[key].dtype.kind == "u" and arrays[key].size and int(arrays[key].max()) >= 2**63:
            raise ReferenceFormatError(f"npz {key} beyond int64")
    offsets = arrays["offsets"].astype(np.int64)
    indices = arrays["indices"].astype(np.int64)
    n, arcs = offsets.size - 1, indices.size
    if offsets[0] != 0 or np.any(np.diff(offsets) < 0) or offsets[-1] != arcs:
        raise ReferenceFormatError(f"npz offsets are not non-decreasing from 0 to {arcs}")
    if arcs and (indices.min() < 0 or indices.max() >= n):
        raise ReferenceFormatError(f"npz indices out of range 0..{n - 1}")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    if arcs > 1 and np.any((np.diff(indices) < 0) & (rows[1:] == rows[:-1])):
        raise ReferenceFormatError("npz rows are not sorted by target")
    weights = None
    if "weights" in arrays:
        weights = arrays["weights"].astype(np.float32)
        if weights.size != arcs:
            raise ReferenceFormatError(f"npz holds {weights.size} weights for {arcs} arcs")
        if not np.all(np.isfinite(weights)):
            raise ReferenceFormatError("npz weights are not all finite")
    if "vertex_ids" in arrays:
        labels = arrays["vertex_ids"]
        if labels.size != n:
            raise ReferenceFormatError(f"npz holds {labels.size} vertex labels for {n} vertices")
        if labels.dtype.kind == "f" and not np.all(np.isfinite(labels)):
            raise ReferenceFormatError("npz vertex labels are numbers that are not finite")
        if np.unique(labels).size != n:
            raise ReferenceFormatError("npz vertex labels are not unique")
    directed = bool(arrays["directed"][()])
    if not directed:
        w = [0.0] * arcs if weights is None else weights.tolist()
        arcs_counted = Counter(zip(rows.tolist(), indices.tolist(), w))
        if arcs_counted != Counter(zip(indices.tolist(), rows.tolist(), w)):
            raise ReferenceFormatError("an undirected npz graph whose arcs are not symmetric")
    return ReferenceGraph(rows, indices, weights, n, directed, offsets=offsets)


# ----------------------------------------------------------------------------------------------------- expected graph


def expected_graph(ref: ReferenceGraph, weights: str = "value"):
    """The graphgear Graph the records make with load's defaults; `weights` = "low"/"high" builds it with the one-ulp
    bounds instead. An .npz is its stored CSR."""
    from graphgear import Graph

    w = {"value": ref.weights, "low": ref.weights_low, "high": ref.weights_high}[weights]
    if w is None:
        w = ref.weights
    if ref.offsets is not None:
        return Graph(ref.offsets, ref.dst, w, directed=ref.directed)
    return Graph.from_edges(ref.src, ref.dst, w, num_vertices=ref.num_vertices, directed=ref.directed)

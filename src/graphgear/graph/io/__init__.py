"""Graph files: load and save Matrix Market, SNAP/CSV edge lists, DIMACS ``.gr``, METIS, and the binary cache.

| format     | extensions                       | content                                                           |
|------------|----------------------------------|-------------------------------------------------------------------|
| mtx        | .mtx                             | Matrix Market coordinate, pattern/integer/real, general/symmetric  |
| edgelist   | .txt .el .wel .csv .tsv .edges   | "u v [w]" lines, 0-based, '#'/'%' comments, CSV header row allowed  |
| dimacs     | .gr                              | DIMACS 9 shortest path: "p sp n m", "a u v w" (1-based), 'c' notes  |
| metis      | .graph .metis .chaco             | METIS/Chaco (DIMACS10): "n m [fmt [ncon]]", one line per vertex     |
| npz        | .npz                             | graphgear's versioned binary cache of the CSR                       |

Any of the text formats may be gzipped (``.gz`` or gzip content). The format comes from the extension, else from the
content. Directedness comes from the file where it says so: a symmetric Matrix Market header and METIS mean undirected;
a comment naming a "directed"/"undirected" graph (SNAP headers, graphgear's own files) decides edge lists and ``.gr``;
otherwise they are directed. ``load(..., directed=...)`` overrides it.

Text parsing is vectorised (numba, see parse.py; Matrix Market through SciPy's fast_matrix_market). A parsed file is
cached as ``.npz`` in the cache folder (``$GRAPHGEAR_CACHE_DIR``, default ``~/.cache/graphgear``) when it is large, and
loaded from there while the file is unchanged: a cache load skips parsing and the CSR build.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from ... import progress as _progress
from ...errors import GraphError, GraphFormatError
from . import scan as parse
from ..build import BuildCounts
from ..graph import Graph

__all__ = ["load", "save", "detect_format", "FORMATS", "CACHE_VERSION"]

FORMATS = ("mtx", "edgelist", "dimacs", "metis", "npz")
EXTENSIONS = {
    ".mtx": "mtx",
    ".txt": "edgelist",
    ".el": "edgelist",
    ".wel": "edgelist",
    ".csv": "edgelist",
    ".tsv": "edgelist",
    ".edges": "edgelist",
    ".gr": "dimacs",
    ".graph": "metis",
    ".metis": "metis",
    ".chaco": "metis",
    ".npz": "npz",
}
CACHE_VERSION = 1
CACHE_MIN_BYTES = 16 << 20  # files at least this large are cached by default
_GZIP_MAGIC = b"\x1f\x8b"
_HINT_BYTES = 1 << 16
_DIRECTED_HINT = re.compile(rb"\b(un)?directed\b", re.IGNORECASE)
_NODES_HINT = re.compile(rb"^[#%]\s*Nodes:\s*(\d+)", re.IGNORECASE | re.MULTILINE)


# ------------------------------------------------------------------------------------------------------------- load


def load(
    path_or_spec: str | os.PathLike[str],
    directed: bool | None = None,
    *,
    format: str | None = None,
    self_loops: str = "drop",
    duplicates: str = "drop",
    renumber: bool = False,
    cache: bool | None = None,
    progress: bool | None = None,
) -> Graph:
    """Load a graph from a file or build one from a generator spec (``kron:20``, ``grid:512:512:0.8:w``, ...).

    ``directed=None`` keeps the direction the file states (see the module notes); True/False overrides it (a directed
    file loaded undirected merges u->v and v->u). ``self_loops``/``duplicates`` are the build policies of
    `Graph.from_edges`; ``renumber=True`` maps sparse ids to 0..V-1 (kept in ``vertex_ids``). ``cache=None`` caches
    files of 16 MiB and more; True/False forces it. Errors in a file raise GraphFormatError naming the file and line.
    """
    text = os.fspath(path_or_spec)
    path = Path(text)
    if not path.exists() and isinstance(path_or_spec, str):
        from ..generate import generate, is_spec

        if is_spec(text):
            return _with_direction(generate(text, progress=progress), directed)
    if not path.exists():
        raise GraphError(f"{text}: no such file, and not a generator spec (kron:SCALE, rmat:SCALE:EF, er:N:DEG, ...)")
    if path.is_dir():
        raise GraphError(f"{text}: is a folder, not a graph file")
    fmt = format or detect_format(path)
    if fmt not in FORMATS:
        raise GraphError(f"unknown format {fmt!r}; graphgear reads {', '.join(FORMATS)}")
    if fmt == "npz":
        return _with_direction(load_npz(path), directed)
    options = dict(directed=directed, self_loops=self_loops, duplicates=duplicates, renumber=renumber)
    cached = _cache_path(path, fmt, options) if _use_cache(path, cache) else None
    if cached is not None and cached.exists():
        try:
            return load_npz(cached)
        except GraphFormatError:
            pass  # stale or damaged cache entry: parse again and overwrite it
    with _progress.task(f"loading {path.name}", total=None, enabled=progress) as bar:
        raw = _read_bytes(path, bar)
        bar.update(description=f"parsing {path.name}")
        src, dst, weights, n, file_directed = _READERS[fmt](path, raw)
        del raw
        bar.update(description=f"building CSR of {path.name}")
        # an undirected file asked for as directed keeps both arcs of each edge (the flag flips below)
        g = _build(path, src, dst, weights, n, file_directed and directed is not False, options)
        g = _with_direction(g, directed)
    if cached is not None:
        _write_atomic(cached, lambda f: _write_npz(g, f))
    return g


def _build(path: Path, src, dst, weights, n: int, directed: bool, options: dict[str, Any]) -> Graph:
    return Graph.from_edges(
        src,
        dst,
        weights,
        num_vertices=None if options["renumber"] else n,
        directed=directed,
        self_loops=options["self_loops"],
        duplicates=options["duplicates"],
        renumber=options["renumber"],
        name=path.name,
    )


def _with_direction(g: Graph, directed: bool | None) -> Graph:
    """The graph with the asked direction: undirected -> directed keeps both arcs; directed -> undirected merges them."""
    if directed is None or bool(directed) == g.directed:
        return g
    if directed:
        return Graph(g.offsets, g.indices, g.weights, directed=True, vertex_ids=g.vertex_ids, counts=g.counts, name=g.name)
    rows = np.repeat(np.arange(g.num_vertices, dtype=np.int64), g.out_degree())
    out = Graph.from_edges(rows, g.indices.astype(np.int64), g.weights, num_vertices=g.num_vertices, directed=False)
    out.vertex_ids, out.name = g.vertex_ids, g.name
    return out


def detect_format(path: str | os.PathLike[str]) -> str:
    """Format name from the extension (a trailing .gz ignored), else from the first bytes of the content."""
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in EXTENSIONS:
        return EXTENSIONS[suffixes[-1]]
    with open(p, "rb") as f:
        head = f.read(_HINT_BYTES)
    if head.startswith(_GZIP_MAGIC):
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, _HINT_BYTES)
        except zlib.error:
            return "edgelist"
    if head.startswith(b"PK"):
        return "npz"
    if head.lstrip().startswith(b"%%MatrixMarket"):
        return "mtx"
    for line in head.splitlines():
        stripped = line.strip()
        if stripped and stripped[:1] not in (b"#", b"%"):
            return "dimacs" if stripped[:2] in (b"c ", b"p ", b"a ") or stripped == b"c" else "edgelist"
    return "edgelist"


def _read_bytes(path: Path, bar: _progress.Task) -> bytes:
    """The whole (decompressed) content; a truncated or corrupt gzip stream is a GraphFormatError."""
    size = path.stat().st_size
    bar.total = size
    chunks = []
    with open(path, "rb") as f:
        gzipped = f.read(2) == _GZIP_MAGIC
        f.seek(0)
        source: Any = gzip.GzipFile(fileobj=f) if gzipped else f
        try:
            while True:
                chunk = source.read(32 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                bar.update(f.tell())
        except (EOFError, OSError, zlib.error) as exc:
            raise GraphFormatError(path, None, f"corrupt or truncated gzip data ({exc})") from None
    raw = b"".join(chunks)
    if not raw.strip():
        raise GraphFormatError(path, None, "empty file")
    return raw


# ---------------------------------------------------------------------------------------------------------- readers
# Each reader returns (src, dst, weights or None, number of vertices, directed as the file says).


def _line_text(raw: bytes, offset: int) -> str:
    end = raw.find(b"\n", offset)
    return raw[offset : end if end >= 0 else len(raw)].decode("utf-8", "replace")


def _line_at(raw: bytes, line: int) -> str:
    """Text of 1-based line `line`."""
    pos = 0
    for _ in range(line - 1):
        pos = raw.find(b"\n", pos) + 1
        if pos == 0:
            return ""
    return _line_text(raw, pos)


def _scan_error(path: Path, raw: bytes, err: parse.ScanError, what: str, ncols: int = 0) -> GraphFormatError:
    message = parse.MESSAGES.get(err.status, "cannot parse line").format(what=what, ncols=ncols)
    return GraphFormatError(path, err.line, message, _line_text(raw, err.offset))


def _direction_hint(raw: bytes, comment: bytes) -> bool | None:
    """True/False when a comment line near the top names a directed/undirected graph, else None."""
    for line in raw[:_HINT_BYTES].splitlines():
        stripped = line.lstrip()
        if not stripped:
            continue
        if not stripped.startswith(comment):
            if comment == b"c" and stripped.startswith(b"p"):
                continue
            break
        match = _DIRECTED_HINT.search(stripped)
        if match:
            return match.group(1) is None
    return None


def _check_ids(path: Path, raw: bytes, ids: np.ndarray, n: int, base: int, locate) -> None:
    """Every id in 0..n-1 (as written: base..n-1+base); else a GraphFormatError on the first bad record's line."""
    bad = (ids < 0) | (ids >= n)
    if bad.any():
        i = int(np.argmax(bad))
        err = locate(i)
        value = int(ids[i]) + base
        allowed = f"{base}..{n - 1 + base}" if n else "none: the graph has no vertices"
        raise GraphFormatError(path, err.line, f"vertex id {value} out of range (allowed {allowed})", _line_text(raw, err.offset))


def _first_data_line(raw: bytes, comments: tuple[bytes, ...], pos: int = 0, line: int = 1) -> tuple[int, int, bytes] | None:
    """(offset, 1-based line number, text) of the first line from `pos` (line `line`) that is neither blank nor a
    comment."""
    while pos < len(raw):
        end = raw.find(b"\n", pos)
        end = len(raw) if end < 0 else end
        text = raw[pos:end].strip()
        if text and not text.startswith(comments):
            return pos, line, text
        pos, line = end + 1, line + 1
    return None


def _is_number(token: bytes) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _read_edgelist(path: Path, raw: bytes):
    header_nodes = _NODES_HINT.search(raw[:_HINT_BYTES])
    nodes = int(header_nodes.group(1)) if header_nodes else 0
    directed = _direction_hint(raw, b"#")
    if directed is None:
        directed = _direction_hint(raw, b"%")
    directed = True if directed is None else directed
    first = _first_data_line(raw, (b"#", b"%"))
    if first is None or (first[2].startswith(b"source") and _first_data_line(raw, (b"#", b"%"), first[0] + len(first[2]) + 1) is None):
        if nodes:  # a graph with vertices and no edges, as a "# Nodes: N" header says
            return np.empty(0, np.int64), np.empty(0, np.int64), None, nodes, directed
        raise GraphFormatError(path, None, "no edges: the file holds only comments and blank lines")
    lo, line0, text = first
    comma = b"," in text
    tokens = [t for t in re.split(rb"[\s,]+" if comma else rb"\s+", text) if t]
    if not all(_is_number(t) for t in tokens):  # a header row ("source,target,weight")
        end = raw.find(b"\n", lo)
        lo, line0 = (len(raw) if end < 0 else end + 1), line0 + 1
        rest = _first_data_line(raw, (b"#", b"%"), lo, line0)
        if rest is None:
            raise GraphFormatError(path, None, "no edges: the file holds only a header row")
        tokens = [t for t in re.split(rb"[\s,]+" if comma else rb"\s+", rest[2]) if t]
    ncols = len(tokens)
    if ncols not in (2, 3):
        raise GraphFormatError(path, line0, f"expected 2 or 3 columns (source target [weight]), found {ncols}", text.decode("utf-8", "replace"))
    if path.name.lower().removesuffix(".gz").endswith(".wel") and ncols != 3:
        raise GraphFormatError(path, line0, "a .wel file needs a weight column (source target weight)", text.decode())
    buf = np.frombuffer(raw, dtype=np.uint8)
    what = "source target weight" if ncols == 3 else "source target"
    result = parse.scan_edges(buf, lo, line0, parse.MODE_EDGES, comma, ncols)
    if isinstance(result, parse.ScanError):
        raise _scan_error(path, raw, result, what, ncols)
    src, dst, weights = result
    n = int(max(src.max(), dst.max())) + 1 if src.size else 0
    locate = lambda i: parse.locate_record(buf, lo, line0, parse.MODE_EDGES, comma, ncols, i)  # noqa: E731
    _check_ids(path, raw, src, max(n, 1), 0, locate)
    _check_ids(path, raw, dst, max(n, 1), 0, locate)
    return src, dst, weights, max(n, nodes), directed


def _read_dimacs(path: Path, raw: bytes):
    first = _first_data_line(raw, (b"c",))
    if first is None:
        raise GraphFormatError(path, None, "no 'p sp <vertices> <arcs>' problem line")
    lo, line0, text = first
    fields = text.split()
    if len(fields) != 4 or fields[0] != b"p" or fields[1] != b"sp" or not all(f.isdigit() for f in fields[2:]):
        raise GraphFormatError(path, line0, "expected the problem line 'p sp <vertices> <arcs>'", text.decode("utf-8", "replace"))
    n, m = int(fields[2]), int(fields[3])
    end = raw.find(b"\n", lo)
    body = len(raw) if end < 0 else end + 1
    buf = np.frombuffer(raw, dtype=np.uint8)
    result = parse.scan_edges(buf, body, line0 + 1, parse.MODE_DIMACS, False, 3)
    if isinstance(result, parse.ScanError):
        raise _scan_error(path, raw, result, "an arc line 'a <from> <to> <weight>'", 3)
    src, dst, weights = result
    if src.size != m:
        raise GraphFormatError(path, line0, f"the problem line says {m} arcs but the file holds {src.size}", text.decode())
    src -= 1
    dst -= 1
    locate = lambda i: parse.locate_record(buf, body, line0 + 1, parse.MODE_DIMACS, False, 3, i)  # noqa: E731
    _check_ids(path, raw, src, n, 1, locate)
    _check_ids(path, raw, dst, n, 1, locate)
    directed = _direction_hint(raw, b"c")
    return src, dst, weights, n, True if directed is None else directed


def _read_metis(path: Path, raw: bytes):
    first = _first_data_line(raw, (b"%",))
    if first is None:
        raise GraphFormatError(path, None, "no header line '<vertices> <edges> [fmt [ncon]]'")
    lo, line0, text = first
    fields = text.split()
    if not 2 <= len(fields) <= 4 or not all(f.isdigit() for f in fields):
        raise GraphFormatError(path, line0, "expected the header '<vertices> <edges> [fmt [ncon]]'", text.decode("utf-8", "replace"))
    n, m = int(fields[0]), int(fields[1])
    fmt = fields[2].decode().zfill(3) if len(fields) > 2 else "000"
    if len(fmt) != 3 or any(c not in "01" for c in fmt):
        raise GraphFormatError(path, line0, f"unknown METIS fmt {fields[2].decode()!r} (expected digits 0/1, e.g. 1, 10, 11)", text.decode())
    ncon = int(fields[3]) if len(fields) > 3 else 1
    vertex_tokens = (1 if fmt[0] == "1" else 0) + (ncon if fmt[1] == "1" else 0)
    edge_weights = fmt[2] == "1"
    end = raw.find(b"\n", lo)
    body = len(raw) if end < 0 else end + 1
    buf = np.frombuffer(raw, dtype=np.uint8)
    result = parse.scan_metis(buf, body, line0 + 1, n, m, vertex_tokens, edge_weights)
    if isinstance(result, parse.ScanError):
        if result.status == parse.TOO_MANY:
            message = f"the header says {n} vertices and {m} edges ({2 * m} adjacency entries); the body has more"
        elif result.status == parse.BAD_COLUMNS:
            message = "a neighbour without its edge weight" if edge_weights else "missing vertex weights"
        else:
            message = parse.MESSAGES[result.status].format(what="a neighbour id")
        raise GraphFormatError(path, result.line, message, _line_text(raw, result.offset))
    (src, dst, weights), lines = result
    if lines != n:
        raise GraphFormatError(path, line0, f"the header says {n} vertices but the body has {lines} vertex lines", text.decode())
    if src.size != 2 * m:
        raise GraphFormatError(
            path, line0, f"the header says {m} edges ({2 * m} adjacency entries) but the body lists {src.size}", text.decode()
        )

    def locate(i: int) -> parse.ScanError:  # the line of vertex src[i]: count non-comment lines after the header
        pos, line, seen = body, line0 + 1, -1
        while True:
            end = raw.find(b"\n", pos)
            if not raw[pos : len(raw) if end < 0 else end].lstrip().startswith(b"%"):
                seen += 1
                if seen == src[i]:
                    return parse.ScanError(parse.OK, line, pos)
            pos, line = end + 1, line + 1

    _check_ids(path, raw, dst, n, 1, locate)
    return src, dst, weights if edge_weights else None, n, False


def _read_mtx(path: Path, raw: bytes):
    import scipy.io

    stream = io.BytesIO(raw)
    try:
        rows, cols, entries, layout, field, symmetry = scipy.io.mminfo(stream)
    except ValueError as exc:
        raise _mtx_error(path, raw, exc) from None
    if layout != "coordinate":
        raise GraphFormatError(path, 1, "a dense 'array' Matrix Market file is not a graph; use 'coordinate'", _line_at(raw, 1))
    if field == "complex" or symmetry in ("skew-symmetric", "hermitian"):
        raise GraphFormatError(path, 1, f"unsupported Matrix Market {field} {symmetry} matrix", _line_at(raw, 1))
    if rows != cols:
        raise GraphFormatError(path, None, f"an adjacency matrix must be square, this one is {rows} x {cols}")
    stream.seek(0)
    try:
        matrix = scipy.io.mmread(stream, spmatrix=False).tocoo()
    except ValueError as exc:
        if "Truncated" in str(exc):
            raise GraphFormatError(path, None, f"the header says {entries} entries but the file ends early ({exc})") from None
        raise _mtx_error(path, raw, exc) from None
    weights = None if field == "pattern" else matrix.data
    return matrix.row.astype(np.int64), matrix.col.astype(np.int64), weights, rows, symmetry == "general"


def _mtx_error(path: Path, raw: bytes, exc: Exception) -> GraphFormatError:
    """fast_matrix_market's "Line N: message" as a GraphFormatError that shows line N."""
    match = re.match(r"Line (\d+): (.*)", str(exc))
    if not match:
        return GraphFormatError(path, None, str(exc))
    line = int(match.group(1))
    return GraphFormatError(path, line, match.group(2).rstrip(".").lower(), _line_at(raw, line))


_READERS = {"edgelist": _read_edgelist, "dimacs": _read_dimacs, "metis": _read_metis, "mtx": _read_mtx}


# ----------------------------------------------------------------------------------------------------- binary cache


def _write_npz(g: Graph, f: Any) -> None:
    arrays: dict[str, Any] = dict(
        format=np.array("graphgear-csr"),
        version=np.array(CACHE_VERSION),
        offsets=g.offsets,
        indices=g.indices,
        directed=np.array(g.directed),
        counts=np.array([g.counts.self_loops_dropped, g.counts.duplicates_dropped], dtype=np.int64),
        name=np.array(g.name),
    )
    if g.weights is not None:
        arrays["weights"] = g.weights
    if g.vertex_ids is not None:
        labels = g.vertex_ids
        if labels.dtype == object:
            labels = np.asarray(labels.tolist())
            if labels.dtype == object or labels.ndim != 1:
                labels = np.array([str(x) for x in g.vertex_ids.tolist()])
        arrays["vertex_ids"] = labels
    np.savez(f, **arrays)


def load_npz(path: str | os.PathLike[str]) -> Graph:
    """Load a graph saved by `save` as .npz (the binary cache format)."""
    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            if "format" not in data or str(data["format"]) != "graphgear-csr":
                raise GraphFormatError(path, None, "not a graphgear .npz graph (no 'graphgear-csr' format tag)")
            version = int(data["version"])
            if version != CACHE_VERSION:
                raise GraphFormatError(path, None, f"graph cache version {version}, this graphgear reads {CACHE_VERSION}")
            counts = data["counts"]
            return Graph(
                data["offsets"],
                data["indices"],
                data["weights"] if "weights" in data else None,
                directed=bool(data["directed"]),
                vertex_ids=data["vertex_ids"] if "vertex_ids" in data else None,
                counts=BuildCounts(int(counts[0]), int(counts[1])),
                name=str(data["name"]),
            )
    except GraphFormatError:
        raise
    except (OSError, ValueError, KeyError, EOFError) as exc:
        raise GraphFormatError(path, None, f"not a readable graphgear .npz file ({exc})") from None


def _use_cache(path: Path, cache: bool | None) -> bool:
    if os.environ.get("GRAPHGEAR_CACHE", "1") == "0" and cache is None:
        return False
    return bool(cache) if cache is not None else path.stat().st_size >= CACHE_MIN_BYTES


def cache_dir() -> Path:
    """Folder of cached parsed files: $GRAPHGEAR_CACHE_DIR, else ~/.cache/graphgear."""
    return Path(os.environ.get("GRAPHGEAR_CACHE_DIR") or Path.home() / ".cache" / "graphgear")


def _cache_path(path: Path, fmt: str, options: dict[str, Any]) -> Path:
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{fmt}|{sorted(options.items())}|{CACHE_VERSION}"
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    return cache_dir() / f"{path.name}.{digest}.npz"


def _write_atomic(target: Path, write) -> None:
    """Write through a temporary file in the target's folder and rename it into place: never a half-written file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------------------------------------------------- save


def save(graph: Graph, path: str | os.PathLike[str], format: str | None = None, *, progress: bool | None = None) -> None:
    """Write a graph; the format comes from the extension (``.gz`` compresses). The file appears whole or not at all.

    Edge lists and ``.gr`` record the direction in a comment and `load` reads it back; an undirected graph is written
    once per edge (edge lists, Matrix Market ``symmetric``) or as both arcs (``.gr``). METIS holds undirected graphs
    with integer weights only. DIMACS ``.gr`` always has weights (1 for an unweighted graph).
    """
    path = Path(path)
    fmt = format or _format_from_name(path)
    if fmt not in _WRITERS:
        raise GraphError(f"unknown format {fmt!r}; graphgear writes {', '.join(_WRITERS)}")
    gz = path.name.lower().endswith(".gz")
    with _progress.task(f"writing {path.name}", enabled=progress):
        if fmt == "npz":
            _write_atomic(path, lambda f: _write_npz(graph, f))
            return
        payload = _WRITERS[fmt](graph, path)

        def write(f: Any) -> None:
            if gz:
                with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0) as z:
                    z.write(payload)
            else:
                f.write(payload)

        _write_atomic(path, write)


def _format_from_name(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if not suffixes or suffixes[-1] not in EXTENSIONS:
        raise GraphError(f"{path}: cannot tell the format from the name; use one of {', '.join(sorted(EXTENSIONS))}")
    return EXTENSIONS[suffixes[-1]]


def _arcs(graph: Graph, once: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(rows, targets, weights) of the stored arcs; with once, an undirected edge only as its u <= v arc."""
    rows = np.repeat(np.arange(graph.num_vertices, dtype=np.int64), graph.out_degree())
    cols = graph.indices.astype(np.int64)
    weights = graph.weights
    if once and not graph.directed:
        keep = rows <= cols
        rows, cols = rows[keep], cols[keep]
        weights = None if weights is None else weights[keep]
    return rows, cols, weights


def _integral(weights: np.ndarray) -> bool:
    return bool(np.all(weights == np.round(weights)) and np.all(np.abs(weights) < 2**53))


def _format_rows(rows: np.ndarray, cols: np.ndarray, weights: np.ndarray | None, prefix: bytes, sep: bytes) -> bytes:
    if weights is None or _integral(weights):
        table = np.stack([rows, cols] if weights is None else [rows, cols, weights.astype(np.int64)], axis=1)
        return parse.format_int_rows(table, prefix, sep)
    s = sep.decode()
    text = "".join(
        f"{prefix.decode()}{u}{s}{v}{s}{w:.9g}\n" for u, v, w in zip(rows.tolist(), cols.tolist(), weights.tolist())
    )
    return text.encode()


def _header_lines(graph: Graph, comment: str) -> str:
    kind = "Directed" if graph.directed else "Undirected"
    name = f": {graph.name}" if graph.name else ""
    return f"{comment} {kind} graph{name} (written by graphgear)\n{comment} Nodes: {graph.num_vertices} Edges: {graph.num_edges}\n"


def _write_edgelist(graph: Graph, path: Path) -> bytes:
    rows, cols, weights = _arcs(graph, once=True)
    csv = ".csv" in [s.lower() for s in path.suffixes]
    sep = b"," if csv else b"\t"
    head = _header_lines(graph, "#")
    if csv:
        head += "source,target,weight\n" if weights is not None else "source,target\n"
    return head.encode() + _format_rows(rows, cols, weights, b"", sep)


def _write_dimacs(graph: Graph, path: Path) -> bytes:
    rows, cols, weights = _arcs(graph, once=False)
    if weights is None:
        weights = np.ones(rows.size, dtype=np.float32)
    head = _header_lines(graph, "c") + f"p sp {graph.num_vertices} {rows.size}\n"
    return head.encode() + _format_rows(rows + 1, cols + 1, weights, b"a ", b" ")


def _write_metis(graph: Graph, path: Path) -> bytes:
    if graph.directed:
        raise GraphError(f"{path}: METIS holds undirected graphs only; save a directed graph as .mtx, .el or .gr")
    if graph.num_self_loops:
        raise GraphError(f"{path}: METIS does not allow self-loops; this graph has {graph.num_self_loops}")
    if graph.weights is not None and not _integral(graph.weights):
        raise GraphError(f"{path}: METIS edge weights are integers; this graph has fractional weights")
    fmt = " 1" if graph.weights is not None else ""
    head = f"% {_header_lines(graph, '%')[2:]}{graph.num_vertices} {graph.num_edges}{fmt}\n"
    return head.encode() + parse.format_metis(graph.offsets, graph.indices, graph.weights)


def _write_mtx(graph: Graph, path: Path) -> bytes:
    import scipy.io
    import scipy.sparse

    rows, cols, weights = _arcs(graph, once=True)
    if not graph.directed:  # symmetric Matrix Market stores the lower triangle
        rows, cols = cols, rows
    n = graph.num_vertices
    if weights is None:
        matrix = scipy.sparse.coo_array((np.ones(rows.size, dtype=bool), (rows, cols)), shape=(n, n))
        field = "pattern"
    else:
        field = "integer" if _integral(weights) else "real"
        data = weights.astype(np.int64) if field == "integer" else weights.astype(np.float64)
        matrix = scipy.sparse.coo_array((data, (rows, cols)), shape=(n, n))
    out = io.BytesIO()
    comment = _header_lines(graph, "").replace("\n ", "\n").strip()
    scipy.io.mmwrite(out, matrix, comment=comment, field=field, symmetry="general" if graph.directed else "symmetric")
    return out.getvalue()


_WRITERS = {"edgelist": _write_edgelist, "dimacs": _write_dimacs, "metis": _write_metis, "mtx": _write_mtx, "npz": None}

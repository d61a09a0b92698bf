"""Graph files: load and save Matrix Market, SNAP/CSV/KONECT edge lists, DIMACS ``.gr``, METIS, and the binary cache.

| format     | extensions                       | content                                                           |
|------------|----------------------------------|-------------------------------------------------------------------|
| mtx        | .mtx                             | Matrix Market coordinate, pattern/integer/real, general/symmetric  |
| edgelist   | .txt .el .wel .csv .tsv .edges   | "u v [w]" lines, 0-based, '#'/'%' comments, CSV header row allowed  |
| dimacs     | .gr                              | DIMACS 9 shortest path: "p sp n m", "a u v w" (1-based), 'c' notes  |
| metis      | .graph .metis .chaco             | METIS/Chaco (DIMACS10): "n m [fmt [ncon]]", one line per vertex     |
| npz        | .npz                             | graphgear's binary CSR (validated when read)                        |

docs/formats.md is the exact grammar. Any text format may be gzipped (``.gz`` or gzip content). The format comes from
the extension, else from the content; a Matrix Market banner on the first line makes a file Matrix Market whatever its
name. Directedness comes from the file where it says so (a symmetric Matrix Market header and METIS mean undirected; a
comment naming a "directed"/"undirected" graph decides edge lists and ``.gr``); otherwise they are directed.
``load(..., directed=...)`` overrides it.

Vertex ids (docs/formats.md, "Vertex ids and renumbering"): an edge list whose ids leave gaps that nothing in the file
declares (SNAP's wiki-Vote: ids 3..8297, 7,115 of them used) is renumbered by default, so that no vertex comes of an id
no edge names; its ids become the graph's labels (``vertex_ids``) and results are reported in them. Matrix Market,
DIMACS and METIS state their vertex count in their header, so their isolated vertices are real and their ids are kept.
``renumber=False`` keeps every file's ids, ``renumber=True`` renumbers every file.

Module map: source.py opens files safely and reads their text under the memory bound; scan.py is the vectorised
scanner every text reader uses; edgelist.py, dimacs.py, metis.py and mtx.py read and write one format each; npz.py is
the binary format; cache.py the verified cache of parsed files; output.py writes every file whole or not at all.
"""

from __future__ import annotations

import gzip
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np

from ... import progress as _progress
from ...errors import FileError, GraphError
from ..build import compact_ids, named_ids
from ..graph import Graph
from . import cache as _cache
from .dimacs import read_dimacs, write_dimacs
from .edgelist import EdgeListRecords, read_edgelist, write_edgelist
from .metis import read_metis, write_metis
from .mtx import BANNER, read_mtx, write_mtx
from . import npz
from .npz import read_npz, write_npz
from .output import check_writable, describe_mode, write_atomically
from .source import os_error, read_head, read_text
from .text import HINT_BYTES, Records

__all__ = ["load", "save", "detect_format", "read_records", "named_when_renumbered", "cache_dir", "load_npz",
           "FORMATS", "EXTENSIONS", "CACHE_VERSION"]

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
_READERS = {"edgelist": read_edgelist, "dimacs": read_dimacs, "metis": read_metis, "mtx": read_mtx}
_WRITERS = {"edgelist": write_edgelist, "dimacs": write_dimacs, "metis": write_metis, "mtx": write_mtx, "npz": None}
_POLICIES = ("drop", "keep")
_ONE_BASED = ("mtx", "dimacs", "metis")  # formats whose ids are written from 1 (a KONECT edge list says so itself)
cache_dir = _cache.cache_dir
load_npz = read_npz
CACHE_VERSION = npz.VERSION  # the .npz layout's version (cache entries add their own scheme, cache.SCHEME)


# ------------------------------------------------------------------------------------------------------------- load


def load(
    path_or_spec: str | os.PathLike[str],
    directed: bool | None = None,
    *,
    format: str | None = None,
    self_loops: str = "drop",
    duplicates: str = "drop",
    renumber: bool | None = None,
    cache: bool | None = None,
    progress: bool | None = None,
) -> Graph:
    """Load a graph from a file or build one from a generator spec (``kron:20``, ``grid:512:512:0.8:w``, ...).

    ``directed=None`` keeps the direction the file states (see the module notes); True/False overrides it (a directed
    file loaded undirected merges u->v and v->u). ``self_loops``/``duplicates`` are the build policies of
    `Graph.from_edges`. ``renumber`` maps the ids a file names to 0..V-1 and keeps the file's ids as labels in
    ``vertex_ids`` (results are reported in them): None (the default) does so for an edge list whose ids have gaps
    its header does not declare (`named_when_renumbered`), True for every file, False for none. ``cache=None`` caches
    files of 16 MiB and more; True/False forces it. A malformed file raises GraphFormatError naming the file, line and
    text; a path that cannot be read raises FileError; a graph that would not fit in memory HostMemoryError.
    """
    text = _path_text(path_or_spec)
    _check_options(directed, format, self_loops, duplicates, renumber, cache, progress)
    path = Path(text)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise os_error(text, exc, "cannot look at it") from None
    if st is None:
        from ..generate import generate, is_spec

        if isinstance(path_or_spec, str) and is_spec(text):
            return _with_direction(generate(text, progress=progress), directed)
        raise FileError(text, "no such file, and not a generator spec (kron:SCALE, rmat:SCALE:EF, er:N:DEG, ...)")
    if not stat.S_ISREG(st.st_mode):
        raise FileError(text, f"is {describe_mode(st.st_mode)}, not a graph file")
    fmt = format or detect_format(path)
    if fmt == "npz":
        return _with_direction(read_npz(path), directed)
    options = dict(directed=directed, self_loops=self_loops, duplicates=duplicates, renumber=renumber)
    entry = _cache.CacheEntry(path, fmt, options) if _use_cache(st, cache) else None
    if entry is not None:
        cached = entry.load()
        if cached is not None:
            return cached
    with _progress.task(f"loading {path.name}", total=None, enabled=progress) as bar:
        records = read_records(path, fmt, bar)
        bar.update(description=f"building CSR of {path.name}")
        # an undirected file asked for as directed keeps both arcs of each edge (the flag flips below)
        g = _build(path, fmt, records, records.directed and directed is not False, options)
        g = _with_direction(g, directed)
    if entry is not None:
        entry.store(g)
    return g


def read_records(path: str | os.PathLike[str], fmt: str | None = None, bar: Any = None) -> Records:
    """The edge records of a text file as its reader parses them (before the CSR build): for tools and benchmarks."""
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt not in _READERS:
        raise GraphError(f"{path}: read_records reads text formats ({', '.join(_READERS)}), not {fmt!r}")
    raw = read_text(path, bar)
    if bar is not None:
        bar.update(description=f"parsing {path.name}")
    return _READERS[fmt](path, raw)


def _path_text(path_or_spec: Any) -> str:
    if not isinstance(path_or_spec, (str, os.PathLike)):
        raise GraphError(f"expected a file path or a generator spec, got {type(path_or_spec).__name__} "
                         f"{path_or_spec!r}")
    text = os.fsdecode(os.fspath(path_or_spec))
    if not text or "\x00" in text:
        raise GraphError(f"expected a file path or a generator spec, got {text!r}")
    return text


def _check_options(directed: Any, format: Any, self_loops: Any, duplicates: Any, renumber: Any, cache: Any,
                   progress: Any) -> None:
    for name, value in (("directed", directed), ("cache", cache), ("progress", progress)):
        if value is not None and not isinstance(value, (bool, np.bool_)):
            raise GraphError(f"{name} must be True, False or None, got {value!r}")
    if renumber is not None and not isinstance(renumber, (bool, np.bool_)):
        raise GraphError(f"renumber must be True, False or None, got {renumber!r}")
    if format is not None and format not in FORMATS:
        raise GraphError(f"unknown format {format!r}; graphgear reads {', '.join(FORMATS)}")
    for name, value in (("self_loops", self_loops), ("duplicates", duplicates)):
        if value not in _POLICIES:
            raise GraphError(f"{name} must be 'drop' or 'keep', got {value!r}")


def named_when_renumbered(records: Records, renumber: bool | None = None) -> np.ndarray | None:
    """The mask of the ids a file's edges name (`build.named_ids`) when `load` renumbers its vertices to them, else
    None (docs/formats.md, "Vertex ids and renumbering"): as asked by True or False; by default (None), for an edge
    list whose ids leave a value below the largest unnamed by any edge, unless its header declares the vertex count
    (a ``Nodes:`` count above every id, KONECT's counts line). Matrix Market, DIMACS and METIS headers always declare
    theirs (``rows``, ``p sp N M``, ``n m``): isolated vertices there are real."""
    if renumber is False:
        return None
    if renumber is None and (not isinstance(records, EdgeListRecords) or records.declared):
        return None
    named = named_ids(records.src, records.dst, records.num_vertices)
    return named if renumber or not named.all() else None


def _build(path: Path, fmt: str, records: Records, directed: bool, options: dict[str, Any]) -> Graph:
    labels = None
    src, dst, n = records.src, records.dst, records.num_vertices
    named = named_when_renumbered(records, options["renumber"])
    if named is not None:  # the records are ours: renumbered in place; the labels are the ids as written
        labels = compact_ids(src, dst, named)
        n = labels.size
        labels += records.base if isinstance(records, EdgeListRecords) else int(fmt in _ONE_BASED)
    g = Graph.from_edges(
        src,
        dst,
        records.weights,
        num_vertices=n,
        directed=directed,
        self_loops=options["self_loops"],
        duplicates=options["duplicates"],
        renumber=False,
        name=path.name,
    )
    g.vertex_ids = labels
    return g


def _with_direction(g: Graph, directed: bool | None) -> Graph:
    """The graph with the asked direction: undirected -> directed keeps both arcs; directed -> undirected merges
    them."""
    if directed is None or bool(directed) == g.directed:
        return g
    if directed:
        return Graph(g.offsets, g.indices, g.weights, directed=True, vertex_ids=g.vertex_ids, counts=g.counts,
                     name=g.name)
    rows = np.repeat(np.arange(g.num_vertices, dtype=np.int64), g.out_degree())
    out = Graph.from_edges(rows, g.indices.astype(np.int64), g.weights, num_vertices=g.num_vertices, directed=False)
    out.vertex_ids, out.name = g.vertex_ids, g.name
    return out


def detect_format(path: str | os.PathLike[str]) -> str:
    """Format name: Matrix Market when the first line is its banner, else from the extension (a trailing .gz
    ignored), else from the first bytes of the content."""
    p = Path(path)
    head = read_head(p, HINT_BYTES)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if head.split(b"\n", 1)[0].lstrip(b" \t\r")[: len(BANNER)].lower() == BANNER:
        return "mtx"
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in EXTENSIONS:
        return EXTENSIONS[suffixes[-1]]
    if head.startswith(b"PK"):
        return "npz"
    for line in head.splitlines():
        stripped = line.strip()
        if stripped and stripped[:1] not in (b"#", b"%"):
            return "dimacs" if stripped[:2] in (b"c ", b"p ", b"a ") or stripped == b"c" else "edgelist"
    return "edgelist"


def _use_cache(st: os.stat_result, cache: bool | None) -> bool:
    if os.environ.get("GRAPHGEAR_CACHE", "1") == "0" and cache is None:
        return False
    return bool(cache) if cache is not None else st.st_size >= _cache.MIN_BYTES


# ------------------------------------------------------------------------------------------------------------- save


def save(graph: Graph, path: str | os.PathLike[str], format: str | None = None, *,
         progress: bool | None = None) -> None:
    """Write a graph; the format comes from the extension (``.gz`` compresses). The file appears whole or not at all
    (`output.write_atomically`: special files and read-only files are refused, the umask is respected).

    Edge lists and ``.gr`` record the direction in a comment and `load` reads it back; an undirected graph is written
    once per edge (edge lists, Matrix Market ``symmetric``) or as both arcs (``.gr``). METIS holds undirected graphs
    with integer weights only. DIMACS ``.gr`` always has weights (1 for an unweighted graph).
    """
    if not isinstance(graph, Graph):
        raise GraphError(f"save writes a graphgear Graph, got {type(graph).__name__}")
    path = Path(_path_text(path))
    check_writable(path, what="graph")  # a special, read-only or misplaced target fails before any work
    fmt = format or _format_from_name(path)
    if fmt not in _WRITERS:
        raise GraphError(f"unknown format {fmt!r}; graphgear writes {', '.join(_WRITERS)}")
    gz = path.name.lower().endswith(".gz")
    with _progress.task(f"writing {path.name}", enabled=progress):
        if fmt == "npz":
            write_atomically(path, lambda f: write_npz(graph, f), what="graph")
            return
        payload = _WRITERS[fmt](graph, path)

        def write(f: Any) -> None:
            if gz:
                with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=6, mtime=0) as z:
                    z.write(payload)
            else:
                f.write(payload)

        write_atomically(path, write, what="graph")


def _format_from_name(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if not suffixes or suffixes[-1] not in EXTENSIONS:
        raise GraphError(f"{path}: cannot tell the format from the name; use one of {', '.join(sorted(EXTENSIONS))}")
    return EXTENSIONS[suffixes[-1]]

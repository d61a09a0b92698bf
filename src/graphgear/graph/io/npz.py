"""graphgear's binary graph (``.npz``): the CSR arrays in NumPy's zip container, read under checks and written with
the CRC-32 of every member recorded.

Reading never trusts the file: each member's ``.npy`` header (dtype, shape) is read and checked before its data, its
size is checked against the zip directory and the memory available, no pickles are allowed, and the data is read in
chunks into an array of the declared size (zipfile verifies each member's CRC-32 as its last byte is read). Then the
graph is checked: `Graph` itself checks offsets, the id range and finite weights, `check_promises` the rest (rows
sorted by target, unique labels, the symmetry an undirected graph promises). A cache entry (cache.py) is verified by
its manifest instead: its source's identity and the CRC-32 of every member, recorded when graphgear wrote it.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

import numba
import numpy as np

from ... import memory
from ...errors import GraphError, GraphFormatError, GraphgearError
from ..build import BuildCounts, first_unsorted_row
from ..graph import Graph
from .source import open_regular, os_error

__all__ = ["read_npz", "write_npz", "check_promises", "NpzMembers", "FORMAT_TAG", "VERSION", "MANIFEST"]

FORMAT_TAG = "graphgear-csr"
VERSION = 1
MANIFEST = "manifest"  # a cache entry's record of its source and of every member's CRC-32 (cache.py)
_CHUNK = 16 << 20
_SMALL = 1 << 20  # a scalar member (format, version, name, manifest) larger than this is not one of ours
_KINDS = {  # member -> dtype kinds allowed, dimensions
    "format": ("U", 0), "version": ("iu", 0), "directed": ("b", 0), "name": ("U", 0), "counts": ("iu", 1),
    "offsets": ("iu", 1), "indices": ("iu", 1), "weights": ("f", 1), "vertex_ids": ("iufU", 1), MANIFEST: ("U", 0),
}
_REQUIRED = ("format", "version", "offsets", "indices", "directed", "counts", "name")


# ---------------------------------------------------------------------------------------------------------- writing


def write_npz(graph: Graph, f: BinaryIO, manifest: dict[str, Any] | None = None) -> None:
    """Write `graph` as .npz into the binary file `f`. With `manifest` (a cache entry's source record), a last member
    stores it together with the CRC-32 of every other member, as the zip directory lists them."""
    arrays: dict[str, Any] = dict(
        format=np.array(FORMAT_TAG),
        version=np.array(VERSION),
        offsets=graph.offsets,
        indices=graph.indices,
        directed=np.array(graph.directed),
        counts=np.array([graph.counts.self_loops_dropped, graph.counts.duplicates_dropped], dtype=np.int64),
        name=np.array(graph.name),
    )
    if graph.weights is not None:
        arrays["weights"] = graph.weights
    if graph.vertex_ids is not None:
        arrays["vertex_ids"] = _label_array(graph.vertex_ids)
    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        crcs = {}
        for name, array in arrays.items():
            with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
            crcs[name] = zf.getinfo(f"{name}.npy").CRC
        if manifest is not None:
            record = json.dumps({**manifest, "members": crcs}, sort_keys=True)
            with zf.open(f"{MANIFEST}.npy", "w") as member:
                np.lib.format.write_array(member, np.array(record), allow_pickle=False)


def _label_array(labels: np.ndarray) -> np.ndarray:
    """Vertex labels as numbers or strings (object arrays would need pickles)."""
    if labels.dtype != object:
        return labels
    out = np.asarray(labels.tolist())
    if out.dtype == object or out.ndim != 1:
        out = np.array([str(x) for x in labels.tolist()])
    return out


# ---------------------------------------------------------------------------------------------------------- reading


class NpzMembers:
    """The members of an .npz file, read one at a time under checks. Errors are GraphFormatError naming the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = os.fdopen(open_regular(path), "rb")
        try:
            self._zip = zipfile.ZipFile(self._file)
            self.infos = {i.filename.removesuffix(".npy"): i for i in self._zip.infolist()}
        except BaseException as exc:
            self._file.close()
            if isinstance(exc, (MemoryError, GraphgearError)) or not isinstance(exc, Exception):
                raise
            # zipfile's errors on damaged bytes are not a contract (BadZipFile, NotImplementedError for a version
            # field, struct.error, UnicodeDecodeError, ...): every one of them means the file is not readable
            raise GraphFormatError(path, None, f"not a readable .npz (zip) file ({type(exc).__name__}: {exc})") \
                from None

    def close(self) -> None:
        self._zip.close()
        self._file.close()

    def __enter__(self) -> NpzMembers:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def crc(self, name: str) -> int:
        return self.infos[name].CRC

    def array(self, name: str, limit: int | None = None) -> np.ndarray:
        """Member `name`'s array: its header checked against _KINDS, the zip directory and the memory available."""
        info = self.infos.get(name)
        if info is None:
            raise GraphFormatError(self.path, None, f"not a graphgear .npz graph: no {name!r} array")
        kinds, ndim = _KINDS[name]
        try:
            with self._zip.open(info) as member:
                version = np.lib.format.read_magic(member)
                header = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                          np.lib.format.read_array_header_2_0)
                shape, fortran, dtype = header(member, max_header_size=10_000)
                if not isinstance(dtype, np.dtype) or dtype.kind not in kinds or dtype.hasobject or dtype.fields:
                    raise GraphFormatError(self.path, None, f"array {name!r} has dtype {dtype}, expected "
                                           f"{'/'.join(_KIND_NAMES[k] for k in kinds)}")
                if len(shape) != ndim:
                    raise GraphFormatError(self.path, None, f"array {name!r} has shape {shape}, expected "
                                           f"{'a scalar' if ndim == 0 else 'one dimension'}")
                count = int(np.prod(shape, dtype=object))
                nbytes = count * dtype.itemsize
                data_bytes = info.file_size - member.tell()
                if nbytes != data_bytes:
                    raise GraphFormatError(self.path, None, f"array {name!r} claims shape {shape} ({nbytes:,} bytes) "
                                           f"but its member holds {data_bytes:,}")
                if limit is not None and nbytes > limit:
                    raise GraphFormatError(self.path, None, f"array {name!r} is {nbytes:,} bytes, more than {limit:,}")
                memory.require(nbytes, f"array {name!r} of shape {shape}", path=self.path)
                out = np.empty(count, dtype=dtype)
                view = memoryview(out).cast("B") if nbytes else None
                got = 0
                while got < nbytes:
                    chunk = member.read(min(_CHUNK, nbytes - got))
                    if not chunk:
                        raise GraphFormatError(self.path, None, f"array {name!r} ends early")
                    view[got : got + len(chunk)] = chunk
                    got += len(chunk)
                if member.read(1):  # reaching the end makes zipfile check the member's CRC-32
                    raise GraphFormatError(self.path, None, f"array {name!r} has bytes after its data")
        except (MemoryError, GraphgearError):
            raise
        except Exception as exc:  # zipfile's and numpy's header errors on damaged bytes, as above
            if isinstance(exc, OSError) and exc.errno is not None:
                raise os_error(self.path, exc) from None
            raise GraphFormatError(self.path, None, f"array {name!r} is damaged ({type(exc).__name__}: {exc})") \
                from None
        if fortran and ndim > 1:
            raise GraphFormatError(self.path, None, f"array {name!r} is in Fortran order")
        if not dtype.isnative:
            out = out.astype(dtype.newbyteorder("="))
        return out.reshape(shape)

    def scalar(self, name: str) -> Any:
        return self.array(name, limit=_SMALL)[()]


_KIND_NAMES = {"i": "int", "u": "uint", "f": "float", "b": "bool", "U": "str"}


def read_npz(path: str | os.PathLike[str], members: NpzMembers | None = None, *, validate: bool = True) -> Graph:
    """Load a graph saved as .npz (see the module notes); `validate=False` only where a manifest vouched for it."""
    path = Path(path)
    own = members is None
    m = NpzMembers(path) if members is None else members
    try:
        names = set(m.infos)
        if "format" not in names or str(m.scalar("format")) != FORMAT_TAG:
            raise GraphFormatError(path, None, f"not a graphgear .npz graph (no {FORMAT_TAG!r} format tag)")
        missing = [k for k in _REQUIRED if k not in names]
        if missing:
            raise GraphFormatError(path, None, f"not a graphgear .npz graph: no {', '.join(map(repr, missing))} array")
        version = int(m.scalar("version"))
        if version != VERSION:
            raise GraphFormatError(path, None, f"graph file version {version}, this graphgear reads {VERSION}")
        counts = m.array("counts", limit=_SMALL)
        if counts.shape != (2,) or (counts < 0).any():
            raise GraphFormatError(path, None, f"array 'counts' must hold two counts >= 0, got {counts.tolist()}")
        offsets = m.array("offsets")
        indices = m.array("indices")
        weights = m.array("weights") if "weights" in names else None
        labels = m.array("vertex_ids") if "vertex_ids" in names else None
        directed = bool(m.scalar("directed"))
        name = str(m.scalar("name"))
    finally:
        if own:
            m.close()
    try:
        graph = Graph(offsets, indices, weights, directed=directed, vertex_ids=labels,
                      counts=BuildCounts(int(counts[0]), int(counts[1])), name=name)
        if validate:
            check_promises(graph)
    except GraphError as exc:
        raise GraphFormatError(path, None, str(exc)) from None
    return graph


# ------------------------------------------------------------------------------------------------------- validation


def check_promises(graph: Graph) -> None:
    """Raise GraphError naming the first promise of a Graph these arrays break beyond what `Graph` itself checks
    (offsets, id range, finite weights, lengths): rows sorted by target, vertex labels finite and unique, and for an
    undirected graph the symmetry it promises (every arc u -> v of weight w has its v -> u of weight w)."""
    offsets, ids = graph.offsets, graph.indices.astype(np.int64, copy=False)
    row = int(first_unsorted_row(offsets, ids))
    if row >= 0:
        raise GraphError(f"row {row}'s targets are not sorted")
    labels = graph.vertex_ids
    if labels is not None:
        if labels.dtype.kind == "f" and not np.isfinite(labels).all():
            raise GraphError("vertex labels must be finite numbers")
        if np.unique(labels).size != graph.num_vertices:
            raise GraphError("vertex labels are not unique")
    if not graph.directed:
        weights = graph.weights
        bits = np.zeros(0, np.uint32) if weights is None else weights.view(np.uint32)
        arc = int(_first_unmirrored_arc(offsets, ids, bits, weights is not None))
        if arc >= 0:
            u = int(np.searchsorted(offsets, arc, side="right") - 1)
            weight = "" if weights is None else f" of weight {float(weights[arc]):g}"
            raise GraphError(f"undirected, but arc {u} -> {int(ids[arc])}{weight} has no arc {int(ids[arc])} -> {u}"
                             f"{weight}")


@numba.njit(cache=True, nogil=True)
def _run(indices, lo, hi, v):  # pragma: no cover - numba
    """[start, stop) of the entries equal to v in the sorted indices[lo:hi]."""
    a, b = lo, hi
    while a < b:
        mid = (a + b) // 2
        if indices[mid] < v:
            a = mid + 1
        else:
            b = mid
    start = a
    b = hi
    while a < b:
        mid = (a + b) // 2
        if indices[mid] <= v:
            a = mid + 1
        else:
            b = mid
    return start, a


@numba.njit(cache=True, parallel=True, nogil=True)
def _first_unmirrored_arc(offsets, indices, bits, weighted):  # pragma: no cover - numba
    """The first arc u -> v (by position) whose run of parallel arcs u -> v differs, as a multiset of weights, from
    the run v -> u; -1 when the CSR is symmetric. Rows must be sorted."""
    n = offsets.shape[0] - 1
    first = np.full(n, -1, dtype=np.int64)
    for u in numba.prange(n):
        k = offsets[u]
        end = offsets[u + 1]
        while k < end:
            v = indices[k]
            k2 = k + 1
            while k2 < end and indices[k2] == v:
                k2 += 1
            a, b = _run(indices, offsets[v], offsets[v + 1], u)
            if b - a != k2 - k:
                first[u] = k
                break
            if weighted and v != u:
                if k2 - k == 1:
                    if bits[k] != bits[a]:
                        first[u] = k
                        break
                else:
                    mine = np.sort(bits[k:k2])
                    theirs = np.sort(bits[a:b])
                    if not np.array_equal(mine, theirs):
                        first[u] = k
                        break
            k = k2
    for u in range(n):
        if first[u] >= 0:
            return first[u]
    return -1


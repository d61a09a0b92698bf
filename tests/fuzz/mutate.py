"""Mutations of seed files, each drawn from one `random.Random` and described by a short note.

- Bytes of text: bit flips, deletions, insertions of random and of interesting bytes (digits, ``-+.eE,#% \\t\\r\\n``, NUL,
  0xff, the BOM, non-ASCII digits and spaces, long digit runs, spec keywords), byte replacements, number tokens
  replaced by boundary values, line duplication/deletion/swaps, truncations, CRLF and BOM. With a parse-chunk size set
  (`graphgear.graph.io.scan.CHUNK_BYTES`), half of the positions are placed at the chunk cuts (multiples of the size,
  one byte either side, and the line end after them), where a parallel scanner joins its pieces.
- gzip: the (mutated) text compressed in one or several members at random levels, then maybe its bytes mutated
  (flips in header, body or trailer, truncation, appended zeros, garbage or another member).
- .npz: byte mutations of the zip, byte mutations of one .npy member re-zipped with a valid CRC, and semantic ones
  (`NPZ_SEMANTIC`): direction flipped, NaN/inf weights, unsorted rows, asymmetric undirected graphs, wrong dtypes and
  shapes, an .npy header claiming 2**40 elements, missing or extra members, object arrays, bad offsets and ids, labels,
  and valid variants (big-endian, npy 2.0/3.0 headers, fortran_order, self-loops and duplicates kept, compression).
"""

from __future__ import annotations

import gzip
import io
import random
import re
import zipfile

import numpy as np

from .seeds import npy_bytes, zip_members

BOM = b"\xef\xbb\xbf"
INTERESTING = [
    *(bytes([c]) for c in b"0123456789-+.eE,#% \t\r\n"), b"\x00", b"\xff", BOM, b"\x0b", b"\x0c", b"\xc2\xa0",
    "\u0663".encode(), "\uff11".encode(), b"inf", b"nan", b"NaN", b"1_0", b"0x1p3", b"1,5", b"0t2.5", b"1-73", b"1e39",
    b"1e-999", b"0e999", b"-0", b"+0", b"1e", b"e5", b"..", b"directed", b"undirected", b"# Undirected graph\n",
    b"# Nodes: 3 Edges: 2\n", b"Nodes: 100", b"Edges: 1", b"% sym unweighted\n", b"% asym\n", b"% bip\n", b"% 2 9 9\n",
    b"c undirected\n", b"p sp 3 3\n", b"a 1 2 3\n", b"%%MatrixMarket matrix coordinate real general\n",
    b"source,target\n", b"c", b"a", b"p", b"%%", b"\r\n", b"\n\n",
]
BOUNDARY_NUMBERS = [
    "0", "1", "-1", "2", "-0", "+7", "007", "999999999999999999", "1000000000000000000", "-999999999999999999",
    "4194304", "4194305", "67108864", "2147483647", "2147483648", "4294967296", "100000000000", "1e3", "1.5", ".5", "5.",
    "3.4028235e38", "3.4028236e38", "1e39", "-1e39", "1e-46", "0e999", "1e400", "16777217", "9" * 40,
    "340282356779733661637539395458142568448", "0.30000000000000004", "1e+",
]
_NUMBER_TOKEN = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def digit_run(rng: random.Random) -> bytes:
    k = rng.randint(5, 40)
    return rng.choice([b"9" * k, b"1" + b"0" * k, bytes(rng.choice(b"0123456789") for _ in range(k))])


SCAN_PARTS = 16  # a scanner cuts at most 4 chunks per thread; workers run up to 4 numba threads


def chunk_cuts(size: int, chunk: int) -> list[int]:
    """Where a scanner with chunk size `chunk` may cut `size` bytes: every multiple of the size, and the points
    splitting the text into equal parts of at least that size (as graphgear.graph.io.scan does, before it moves each
    cut to a line start)."""
    parts = max(1, min(SCAN_PARTS, size // chunk + 1))
    return sorted({chunk * k for k in range(1, size // chunk + 1)} | {size * k // parts for k in range(1, parts)})


class Positions:
    """Where a mutation lands: anywhere, or (when a chunk size is set) at a parse-chunk cut half of the time: the cut
    itself, a byte either side, or the line end after it."""

    def __init__(self, rng: random.Random, chunk: int | None) -> None:
        self.rng, self.chunk = rng, chunk

    def pick(self, buf: bytearray, end_inclusive: bool = True) -> tuple[int, str]:
        size = len(buf) + (1 if end_inclusive else 0)
        if size <= 0:
            return 0, "@0"
        cuts = chunk_cuts(len(buf), self.chunk) if self.chunk else []
        if cuts and self.rng.random() < 0.5:
            cut = self.rng.choice(cuts)
            pos = cut + self.rng.choice([-1, 0, 0, 1])
            if self.rng.random() < 0.3:
                nl = buf.find(b"\n", cut)
                pos = nl + self.rng.choice([0, 1]) if nl >= 0 else pos
            pos = min(max(pos, 0), size - 1)
            return pos, f"@cut{cut}{'+' if pos > cut else '-' if pos < cut else '='}{pos - cut if pos != cut else ''}"
        pos = self.rng.randrange(size)
        return pos, f"@{pos}"


# ------------------------------------------------------------------------------------------------------ byte mutations


def _flip(buf: bytearray, rng: random.Random, at: Positions) -> str:
    if not buf:
        return "flip: empty"
    pos, where = at.pick(buf, end_inclusive=False)
    bit = rng.randrange(8)
    buf[pos] ^= 1 << bit
    return f"flip bit {bit} {where}"


def _delete(buf: bytearray, rng: random.Random, at: Positions) -> str:
    if not buf:
        return "delete: empty"
    pos, where = at.pick(buf, end_inclusive=False)
    k = rng.choice([1, 1, 1, 2, 3, 4, 8])
    del buf[pos : pos + k]
    return f"delete {k} {where}"


def _insert(buf: bytearray, rng: random.Random, at: Positions) -> str:
    pos, where = at.pick(buf)
    r = rng.random()
    blob = (bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))) if r < 0.25
            else digit_run(rng) if r < 0.35 else rng.choice(INTERESTING))
    buf[pos:pos] = blob
    return f"insert {blob[:24]!r} {where}"


def _replace(buf: bytearray, rng: random.Random, at: Positions) -> str:
    if not buf:
        return "replace: empty"
    pos, where = at.pick(buf, end_inclusive=False)
    blob = rng.choice(INTERESTING) if rng.random() < 0.8 else bytes([rng.randrange(256)])
    buf[pos : pos + 1] = blob
    return f"replace byte with {blob[:24]!r} {where}"


def _number(buf: bytearray, rng: random.Random, at: Positions) -> str:
    tokens = list(_NUMBER_TOKEN.finditer(buf))
    if not tokens:
        return _insert(buf, rng, at)
    token = rng.choice(tokens)
    old = token.group()
    choices = BOUNDARY_NUMBERS
    if re.fullmatch(rb"[+-]?[0-9]{1,18}", old):
        value = int(old)
        choices = choices + [str(value + 1), str(value - 1), str(value + 1), str(2 * value + 1)]
    new = rng.choice(choices).encode() if rng.random() < 0.9 else digit_run(rng)
    buf[token.start() : token.end()] = new
    return f"number {old[:20]!r} -> {new[:24]!r} @{token.start()}"


def _split_lines(buf: bytearray) -> list[bytes]:
    return bytes(buf).splitlines(keepends=True) if buf else []


def _line_op(buf: bytearray, rng: random.Random, at: Positions) -> str:
    lines = _split_lines(buf)
    if not lines:
        return _insert(buf, rng, at)
    i = rng.randrange(len(lines))
    op = rng.choice(["duplicate", "delete", "swap", "move", "blank", "comment"])
    if op == "duplicate":
        lines.insert(rng.randrange(len(lines) + 1), lines[i] if lines[i].endswith(b"\n") else lines[i] + b"\n")
    elif op == "delete":
        del lines[i]
    elif op in ("swap", "move"):
        j = rng.randrange(len(lines))
        if op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            lines.insert(j, lines.pop(i))
        if lines and not lines[-1].endswith(b"\n") and any(not x.endswith(b"\n") for x in lines[:-1]):
            lines = [x if x.endswith(b"\n") else x + b"\n" for x in lines]
    elif op == "blank":
        lines.insert(i, rng.choice([b"\n", b"  \n", b"\r\n", b"\t\n"]))
    else:
        lines[i] = rng.choice([b"#", b"%", b"c ", b"% "]) + lines[i]
    buf[:] = b"".join(lines)
    return f"line {op} {i}"


def _truncate(buf: bytearray, rng: random.Random, at: Positions) -> str:
    r = rng.random()
    if r < 0.3 and buf.endswith(b"\n"):
        del buf[-1:]
        return "truncate: final newline"
    pos, where = at.pick(buf)
    if r < 0.6:
        nl = buf.rfind(b"\n", 0, pos)
        pos = nl + 1 if nl >= 0 else 0
        where = f"@line-start {pos}"
    del buf[pos:]
    return f"truncate {where}"


def _crlf_bom(buf: bytearray, rng: random.Random, at: Positions) -> str:
    r = rng.random()
    if r < 0.4:
        buf[:] = bytes(buf).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        return "crlf"
    if r < 0.7:
        buf[:0] = BOM
        return "bom"
    pos, where = at.pick(buf)
    buf[pos:pos] = BOM
    return f"bom {where}"


TEXT_MUTATIONS = [(_flip, 3), (_delete, 2), (_insert, 4), (_replace, 2), (_number, 4), (_line_op, 3), (_truncate, 1),
                  (_crlf_bom, 1)]
ZIP_MUTATIONS = [(_flip, 4), (_delete, 1), (_insert, 2), (_replace, 2), (_truncate, 1)]


def mutate_bytes(data: bytes, rng: random.Random, count: int, chunk: int | None = None,
                 table=TEXT_MUTATIONS) -> tuple[bytes, list[str]]:
    """`count` mutations of `data` drawn from `table` (function, weight)."""
    buf = bytearray(data)
    at = Positions(rng, chunk)
    functions, weights = zip(*table)
    notes = [rng.choices(functions, weights)[0](buf, rng, at) for _ in range(count)]
    return bytes(buf), notes


# ---------------------------------------------------------------------------------------------------------------- gzip


def gzip_text(text: bytes, rng: random.Random, chunk: int | None) -> tuple[bytes, list[str]]:
    """The text as one gzip member, or cut into several (at a chunk cut when one is set)."""
    members = 1 if rng.random() < 0.8 else rng.randint(2, 3)
    cuts = sorted(rng.randrange(len(text) + 1) for _ in range(members - 1))
    if chunk and cuts and len(text) > chunk and rng.random() < 0.5:
        cuts = sorted(rng.choice(chunk_cuts(len(text), chunk)) for _ in cuts)
    pieces = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    out = b""
    for piece in pieces:
        level = rng.randint(0, 9)
        buf = io.BytesIO()
        with gzip.GzipFile(filename="g.txt" if rng.random() < 0.3 else "", fileobj=buf, mode="wb",
                           compresslevel=level, mtime=0) as z:
            z.write(piece)
        out += buf.getvalue()
    return out, [f"gzip {members} member(s) cut at {cuts}" if members > 1 else "gzip"]


def mutate_gzip(gz: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """One mutation of gzip bytes: a flip in header, body or trailer, a truncation, or bytes appended."""
    buf = bytearray(gz)
    r = rng.random()
    if r < 0.45:
        region = rng.choice(["header", "body", "trailer"])
        lo, hi = {"header": (0, min(10, len(buf))), "body": (10, max(11, len(buf) - 8)),
                  "trailer": (max(0, len(buf) - 8), len(buf))}[region]
        pos = min(rng.randrange(lo, max(lo + 1, hi)), len(buf) - 1)
        buf[pos] ^= 1 << rng.randrange(8)
        return bytes(buf), [f"gzip flip {region} @{pos}"]
    if r < 0.7:
        k = rng.choice([1, 2, 4, 8, rng.randint(1, max(1, len(buf) - 1))])
        return bytes(buf[: max(0, len(buf) - k)]), [f"gzip truncate {k}"]
    tail = rng.choice([b"\x00" * rng.randint(1, 16), bytes(rng.randrange(256) for _ in range(rng.randint(1, 8))),
                       gzip.compress(b"\n", mtime=0), gzip.compress(b"0 1\n", mtime=0), b"\x1f\x8b"])
    return bytes(buf) + tail, [f"gzip append {tail[:12]!r}"]


# ---------------------------------------------------------------------------------------------------------- npz arrays


def _rows(a: dict) -> np.ndarray:
    offsets = a["offsets"].astype(np.int64)
    return np.repeat(np.arange(offsets.size - 1), np.diff(offsets))


def _remove_arc(a: dict, k: int) -> None:
    rows = _rows(a)
    a["indices"] = np.delete(a["indices"], k)
    if "weights" in a:
        a["weights"] = np.delete(a["weights"], k)
    offsets = a["offsets"].astype(np.int64).copy()
    offsets[rows[k] + 1 :] -= 1
    a["offsets"] = offsets


def _sem_flip_directed(a, rng):
    a["directed"] = np.array(not bool(a["directed"]))
    return "directed flipped"


def _sem_bad_weight(a, rng):
    if "weights" not in a or not a["weights"].size:
        a["weights"] = np.ones(a["indices"].size + rng.choice([0, 1]), dtype=np.float32)
        return "weights added (maybe one too many)"
    w = a["weights"].copy()
    value = rng.choice([np.nan, np.inf, -np.inf, -0.0, 3.4028235e38])
    w[rng.randrange(w.size)] = value
    a["weights"] = w
    return f"a weight set to {value}"


def _sem_unsorted(a, rng):
    rows, idx = _rows(a), a["indices"].copy()
    spots = [k for k in range(idx.size - 1) if rows[k] == rows[k + 1]]
    if not spots:
        return _sem_flip_directed(a, rng)
    k = rng.choice(spots)
    idx[k], idx[k + 1] = idx[k + 1], idx[k]
    a["indices"] = idx
    return f"row {rows[k]} unsorted at arc {k}"


def _sem_asymmetric(a, rng):
    if not a["indices"].size:
        return _sem_bad_offsets(a, rng)
    a["directed"] = np.array(False)
    k = rng.randrange(a["indices"].size)
    if "weights" in a and rng.random() < 0.5:
        w = a["weights"].copy()
        w[k] += 1
        a["weights"] = w
        return f"undirected, weight of arc {k} changed"
    _remove_arc(a, k)
    return f"undirected, arc {k} removed"


def _sem_dtype(a, rng):
    key, dtype = rng.choice([("offsets", np.int32), ("offsets", np.uint64), ("indices", np.float64),
                             ("indices", np.uint32), ("indices", np.int16), ("directed", np.int8),
                             ("version", np.float64), ("version", "U1"), ("format", "S13"), ("counts", np.int32),
                             ("name", np.int64), ("weights", np.float64), ("weights", np.float16),
                             ("vertex_ids", np.bool_), ("offsets", np.float64)])
    if key not in a:
        key = "offsets"
    try:
        a[key] = a[key].astype(dtype)
    except (ValueError, TypeError):
        a[key] = np.zeros(a[key].shape, dtype=dtype)
    return f"{key} as {np.dtype(dtype)}"


def _sem_shape(a, rng):
    key = rng.choice(["counts", "offsets", "directed", "version", "format"])
    if key == "counts":
        a[key] = np.array([0, 0, 0], dtype=np.int64)
    elif key == "offsets":
        a[key] = a[key].reshape(1, -1)
    else:
        a[key] = a[key].reshape(1)
    return f"{key} reshaped to {a[key].shape}"


def _sem_missing(a, rng):
    key = rng.choice(sorted(a))
    del a[key]
    return f"member {key} removed"


def _sem_extra(a, rng):
    a[rng.choice(["extra", "offsets2", "notes"])] = np.arange(3)
    return "an extra member"


def _sem_object(a, rng):
    key = rng.choice(["vertex_ids", "name", "weights"])
    n = a["offsets"].size - 1
    a[key] = (np.array([f"v{i}" for i in range(n)] + [None], dtype=object)[:n] if key == "vertex_ids"
              else np.array("x", dtype=object) if key == "name" else np.array([1.0] * a["indices"].size, dtype=object))
    return f"{key} as an object array"


def _sem_bad_offsets(a, rng):
    offsets = a["offsets"].astype(np.int64).copy()
    r = rng.random()
    if r < 0.3:
        offsets[0] = 1
        what = "offsets start at 1"
    elif r < 0.6 and offsets.size > 2:
        k = rng.randrange(1, offsets.size - 1)
        offsets[k] = offsets[k + 1] + 1
        what = f"offsets decrease at {k}"
    else:
        offsets[-1] += rng.choice([-1, 1])
        what = "offsets end off by one"
    a["offsets"] = offsets
    return what


def _sem_bad_index(a, rng):
    if not a["indices"].size:
        return _sem_bad_offsets(a, rng)
    idx = a["indices"].astype(np.int64).copy()
    value = rng.choice([-1, a["offsets"].size - 1, 2**31])
    idx[rng.randrange(idx.size)] = value
    a["indices"] = idx
    return f"an index set to {value}"


def _sem_labels(a, rng):
    n = a["offsets"].size - 1
    r = rng.random()
    if r < 0.35 and n > 1:
        labels = np.arange(n, dtype=np.int64)
        labels[-1] = labels[0]
        a["vertex_ids"] = labels
        return "duplicate vertex labels"
    if r < 0.55:
        a["vertex_ids"] = np.arange(n + rng.choice([-1, 1]) if n else 1)
        return "vertex labels of the wrong length"
    a["vertex_ids"] = rng.choice([np.arange(n) * 2.5, np.array([f"label {i}" for i in range(n)]),
                                  np.arange(n, dtype=np.uint16)])
    return f"vertex labels of dtype {a['vertex_ids'].dtype} (valid)"


def _sem_tag(a, rng):
    if rng.random() < 0.5:
        a["version"] = np.array(rng.choice([0, 2, -1, 2**40]))
        return f"version {int(a['version'])}"
    a["format"] = np.array(rng.choice(["graphgear-csc", "", "graphgear-csr "]))
    return f"format tag {str(a['format'])!r}"


def _sem_big_endian(a, rng):
    key = rng.choice([k for k in ("offsets", "indices", "counts", "weights", "version") if k in a])
    a[key] = a[key].astype(a[key].dtype.newbyteorder(">"))
    return f"{key} big-endian (valid)"


def _insert_arc(a: dict, u: int, v: int, w: float) -> None:
    """Insert the arc u -> v (weight w) where its row keeps sorted order."""
    lo, hi = int(a["offsets"][u]), int(a["offsets"][u + 1])
    k = lo + int(np.searchsorted(a["indices"][lo:hi].astype(np.int64), v, side="right"))
    a["indices"] = np.insert(a["indices"], k, v).astype(a["indices"].dtype)
    if "weights" in a:
        a["weights"] = np.insert(a["weights"], k, w).astype(np.float32)
    offsets = a["offsets"].astype(np.int64).copy()
    offsets[u + 1 :] += 1
    a["offsets"] = offsets


def _sem_keep(a, rng):
    """A self-loop or a duplicate arc (both ways when undirected), as a graph built with self_loops/duplicates="keep"
    stores them: valid."""
    n = a["offsets"].size - 1
    if not n:
        return _sem_extra(a, rng)
    idx = a["indices"].astype(np.int64)
    if idx.size and rng.random() < 0.5:
        k = rng.randrange(idx.size)
        u, v = int(_rows(a)[k]), int(idx[k])
        w = float(a["weights"][k]) if "weights" in a else 1.0
        _insert_arc(a, u, v, w)
        if not bool(a["directed"]) and u != v:
            _insert_arc(a, v, u, w)
        return f"duplicate arc {u}->{v} kept (valid)"
    u = rng.randrange(n)
    _insert_arc(a, u, u, 1.5)
    return f"self-loop {u}->{u} kept (valid)"


NPZ_SEMANTIC = [(_sem_flip_directed, 2), (_sem_bad_weight, 2), (_sem_unsorted, 2), (_sem_asymmetric, 2),
                (_sem_dtype, 3), (_sem_shape, 1), (_sem_missing, 2), (_sem_extra, 1), (_sem_object, 1),
                (_sem_bad_offsets, 2), (_sem_bad_index, 2), (_sem_labels, 2), (_sem_tag, 1), (_sem_big_endian, 1),
                (_sem_keep, 2)]


def npz_from_arrays(arrays: dict[str, np.ndarray], rng: random.Random) -> tuple[bytes, list[str]]:
    """Zip the arrays as .npy members, with the container-level variants: npy header version, fortran_order on a 1-D
    array, an .npy header claiming 2**40 elements, byte mutations of one member (re-zipped: its CRC is valid),
    compression."""
    notes = []
    members = {}
    version = rng.choice([None] * 6 + [(1, 0), (2, 0), (3, 0)])
    if version:
        notes.append(f"npy version {version}")
    for key, array in arrays.items():
        members[f"{key}.npy"] = npy_bytes(array, version)
    r = rng.random()
    if r < 0.08:
        key = rng.choice([k for k in ("offsets", "indices", "weights", "counts") if f"{k}.npy" in members])
        members[f"{key}.npy"] = _huge_header(members[f"{key}.npy"], arrays[key], rng)
        notes.append(f"{key} header claims 2**40 elements")
    elif r < 0.12:
        key = rng.choice([k for k in ("offsets", "indices", "weights") if f"{k}.npy" in members])
        members[f"{key}.npy"] = _fortran(arrays[key])
        notes.append(f"{key} fortran_order=True (valid)")
    elif r < 0.3:
        key = rng.choice(sorted(members))
        members[key], more = mutate_bytes(members[key], rng, rng.randint(1, 2), table=ZIP_MUTATIONS + [(_number, 2)])
        notes.append(f"member {key}: {'; '.join(more)}")
    compression = zipfile.ZIP_DEFLATED if rng.random() < 0.25 else zipfile.ZIP_STORED
    if compression == zipfile.ZIP_DEFLATED:
        notes.append("deflated")
    return zip_members(members, compression), notes


def _huge_header(member: bytes, array: np.ndarray, rng: random.Random) -> bytes:
    header = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": False, "shape": (2**40,)}
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, header)
    data = np.ascontiguousarray(array).tobytes()
    return out.getvalue() + (data if rng.random() < 0.7 else b"")


def _fortran(array: np.ndarray) -> bytes:
    header = {"descr": np.lib.format.dtype_to_descr(array.dtype), "fortran_order": True, "shape": array.shape}
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, header)
    return out.getvalue() + np.ascontiguousarray(array).tobytes()

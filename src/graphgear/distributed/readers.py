"""Parts built on the workers, in parallel: each rank reads its byte range of a file (or draws its share of a
generator's records), the records travel to the owners of their vertices, and each owner builds its rows.

    edge list   (a plain one: ``u v [w]`` lines, ``#``/``%`` comments, no header row, no KONECT or SNAP count
                lines, not gzipped) rank r parses the lines that start in bytes [r S / P, (r + 1) S / P) of the
                file with the same scanner as gg.load (graph/io/scan.py); line numbers in errors are the file's
    .npz        graphgear's binary CSR (stored, uncompressed members): rank r reads the offsets, then only its rows
                of indices and weights; a directed graph's in-edges are sent to their owners
    kron / rmat rank r draws records [r M / P, (r + 1) M / P) of ``kron:SCALE...`` exactly as gg.load draws them
                (the PCG64 stream advanced to its first record's draws), so the graph is gg.load's

Then, as `gg.load` builds: the ranks' record counts per vertex (an allreduce) give the balanced bounds
(graph.balanced_bounds); every record goes to the owner of its source (laid out by owner with a parallel counting
sort, then comm alltoallv), both directions of each edge on an undirected graph; each owner builds its CSR rows with
graph.build.build_csr (self-loops and duplicate arcs dropped, a duplicate keeping its least weight) and, on a directed
graph, its CSC rows from the records sent to the owner of their target. An edge list whose ids leave gaps is
renumbered as gg.load renumbers it (the ids named, in increasing order; they become the graph's labels).

A format not listed here (Matrix Market, DIMACS, METIS, CSV with a header row, KONECT, gzip) is loaded by the client
and scattered: `read_in_parallel` says whether it took the path.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numba
import numpy as np

from .. import progress
from ..backends.cpu.atomics import atomic_add
from ..errors import GraphgearError
from ..graph.build import build_csr
from .graph import DistributedGraph, Part, arc_cuts, balanced_bounds, cut_targets, equal_ranges, keeps_equal_ranges

__all__ = ["read_in_parallel"]


def read_in_parallel(dg: DistributedGraph, path_or_spec: Any, directed: bool | None) -> bool:
    """Build `dg`'s parts on its workers when the file or spec allows it (see the module notes); False otherwise,
    with nothing made."""
    text = os.fsdecode(os.fspath(path_or_spec))
    if not os.path.exists(text):
        from ..graph.generate import is_spec, parse_spec

        if not is_spec(text):
            return False
        spec = parse_spec(text)
        if spec.kind not in ("kron", "rmat"):
            return False
        graph_directed = spec.kind == "rmat" if directed is None else bool(directed)
        _build(dg, _kron_records, (str(spec), graph_directed), graph_directed, name=str(spec))
        return True
    path = Path(text)
    from ..graph.io import detect_format

    fmt = detect_format(path)
    if fmt == "npz":
        _npz(dg, path, directed)
        return True
    if fmt == "edgelist" and not path.name.endswith(".gz"):
        plan = _edgelist_plan(path)
        if plan is None:
            return False
        graph_directed = plan["directed"] if directed is None else bool(directed)
        _build(dg, _edgelist_records, (str(path), plan), graph_directed, name=path.name, renumber=True)
        return True
    return False


# ------------------------------------------------------------------------------------------------- the shared build
BUILD_PHASES = ("reading the records", "counting arcs per vertex", "sending records to their owners",
                "building the rows")


def _build(dg: DistributedGraph, records: Any, args: tuple, directed: bool, *, name: str,
           renumber: bool = False) -> None:
    # with progress on, rank 0 names its phase in a Dask Variable and the client's bar shows it
    phase = f"{dg.key}-phase" if progress.shown() else None
    futures = dg.spmd(_build_rank, records, args, directed, renumber, name, phase, keep=True)
    if phase is not None:
        _follow(dg, futures, phase, f"{name} on {dg.size} workers")
    _adopt(dg, futures)


def _follow(dg: DistributedGraph, futures: list[Any], phase: str, what: str) -> None:
    """Wait for the ranks' build with a progress bar naming the phase rank 0 is in."""
    from distributed import Variable, wait

    variable = Variable(phase, client=dg.client)
    try:
        with progress.task(f"{what}: {BUILD_PHASES[0]}", total=len(BUILD_PHASES)) as bar:
            while True:
                try:
                    wait(futures, timeout=0.25)
                    break
                except _TIMEOUTS:
                    pass
                try:
                    k = int(variable.get(timeout=0.05))
                except _TIMEOUTS:
                    continue
                bar.update(k, description=f"{what}: {BUILD_PHASES[k]}")
    finally:
        variable.delete()


_TIMEOUTS = (TimeoutError, asyncio.TimeoutError)  # the same class from Python 3.11 on


def _reporter(ctx: Any, phase: str) -> Any:
    """Rank 0's way of naming its phase to the client (the others say nothing). Progress never fails a build: a
    Variable that cannot be set (no client in this worker) is given up."""
    if ctx.rank != 0 or phase is None:
        return lambda k: None
    try:
        from distributed import Variable

        variable = Variable(phase)
    except Exception:  # noqa: BLE001 - see the docstring
        return lambda k: None

    def say(k: int) -> None:
        try:
            variable.set(k)
        except Exception:  # noqa: BLE001 - see the docstring
            pass

    return say


def _adopt(dg: DistributedGraph, futures: list[Any]) -> None:
    """Take the parts the workers built (left in their memory) and the graph's facts from their metadata."""
    meta = dg.client.gather([dg.client.submit(_meta, f, pure=False) for f in futures])
    dg.parts = futures
    first = meta[0]
    dg.bounds, dg.num_vertices, dg.num_arcs = first["bounds"], first["n"], sum(m["arcs"] for m in meta)
    dg.directed, dg.weighted = first["directed"], first["weighted"]
    dg.vertex_ids, dg.name = first["labels"], first["name"]
    dg.build_seconds = [m["build_seconds"] for m in meta] if first["build_seconds"] is not None else None


def _meta(part: Part) -> dict:
    return {"bounds": part.bounds, "n": part.n, "arcs": part.num_arcs, "directed": part.directed,
            "weighted": part.weights is not None, "labels": part.labels, "name": part.name,
            "build_seconds": part.build_seconds}


def _agree(ctx: Any, error: BaseException | None) -> None:
    """Every rank raises the error of the lowest rank that failed (a bad line in rank 2's range fails them all), so
    no rank waits in a collective for one that left."""
    blob = np.frombuffer(pickle.dumps(error), dtype=np.uint8)
    replies = ctx.host.alltoallv([blob] * ctx.size)
    for reply in replies:
        failed = pickle.loads(reply.tobytes())
        if failed is not None:
            raise failed


def _guarded(ctx: Any, work: Any) -> Any:
    """`work()`'s value, after every rank has finished its own: the lowest failed rank's error is raised on all."""
    error, value = None, None
    try:
        value = work()
    except GraphgearError as exc:
        error = exc
    _agree(ctx, error)
    return value


def _build_rank(ctx: Any, part: None, records: Any, args: tuple, directed: bool, renumber: bool, name: str,
                phase: str | None) -> Part:
    host = ctx.host
    report, seconds, tick = _reporter(ctx, phase), {}, [time.perf_counter()]

    def say(k: int) -> None:  # phase k begins: the last one's time kept, and rank 0 tells the client
        if k:
            now = time.perf_counter()
            seconds[BUILD_PHASES[k - 1]], tick[0] = now - tick[0], now
        if k < len(BUILD_PHASES):
            report(k)

    say(0)
    src, dst, weights, n = records(ctx, *args)
    say(1)
    labels = None
    if renumber:  # ids with gaps: the ids named, in increasing order, become 0..V-1 (gg.load's compact_ids)
        named = np.zeros(n, dtype=np.uint8)
        named[src] = 1
        named[dst] = 1
        named = host.allreduce(named, "max")
        if not named.all():
            rank_of = np.cumsum(named, dtype=np.int64) - 1
            labels = np.flatnonzero(named).astype(np.int64)
            src, dst, n = rank_of[src], rank_of[dst], int(labels.size)
    # arcs per vertex, out and in (an undirected edge is an arc each way); self-loops are dropped as gg.load drops
    # them (build_csr below sees local row ids, not the vertices), so they count nothing
    load = np.zeros(n, dtype=np.int64)
    _arcs_per_vertex(src, dst, load, max(1, min(numba.get_num_threads() * 4, src.shape[0] >> 16)))
    bounds = _bounds_over_ranks(host, load)
    del load
    say(2)
    drawn = [src, dst, weights]
    del src, dst, weights  # from here the list holds the records: the last _to_owners frees them once laid out
    cols = _to_owners(host, bounds, drawn, by_target=True, drop_loops=True) if directed else None
    rows = _to_owners(host, bounds, drawn, mirror=not directed, drop_loops=True, consume=True)
    say(3)
    lo, hi = int(bounds[ctx.rank]), int(bounds[ctx.rank + 1])
    offsets, indices, w = _own_rows(rows, lo, hi, n)
    out = Part(lo, hi, n, directed, bounds, offsets, indices, w, labels=labels, name=name, build_seconds=seconds)
    if cols is not None:
        out.in_offsets, out.in_indices, out.in_weights = _own_rows(cols, lo, hi, n)
    say(4)
    return out


def _bounds_over_ranks(host: Any, load: np.ndarray) -> np.ndarray:
    """graph.balanced_bounds of the ranks' summed arcs per vertex, without summing the whole vector on every rank:
    the load is reduce-scattered by equal ranges (each rank sends (P-1)/P of it instead of P-1 times all of it), each
    rank's range total is all-gathered, and each arc-balanced cut is found by the rank whose range holds it."""
    P, n = host.size, int(load.shape[0])
    equal = equal_ranges(n, P)
    mine = np.asarray(host.reduce_scatter(load, np.diff(equal), "sum"), dtype=np.int64)
    totals = host.allgatherv(np.array([mine.sum()], dtype=np.int64))
    if not totals.sum():  # no arcs: split the vertices evenly, as balanced_bounds does
        mine = np.ones_like(mine)
        totals = np.diff(equal)
    total = int(totals.sum())
    if keeps_equal_ranges(totals, total):
        return equal
    before = int(totals[:host.rank].sum())  # the running count where this rank's range begins
    running = before + np.concatenate(([0], np.cumsum(mine, dtype=np.int64)))
    targets = cut_targets(total, P)
    firsts = np.full(P - 1, -1, dtype=np.int64)
    claimed = (targets > before) & (targets <= running[-1])  # the cuts whose running count this range reaches
    firsts[claimed] = int(equal[host.rank]) + np.searchsorted(running, targets[claimed], side="left")
    firsts = host.allgatherv(firsts).reshape(P, P - 1).max(axis=0)  # each cut from the one rank that found it
    return arc_cuts(n, firsts)


def _own_rows(records: list, lo: int, hi: int, n: int, *, keep_duplicates: bool = False) -> tuple:
    """The rank's rows [lo, hi) from the records it owns (row, global target, weight), by gg.load's CSR build; the
    list is emptied (its arrays freed) once the build has them in its sort keys. The build sees only the rank's
    hi - lo rows (its passes and arrays are per row), unless the targets need the wide build of 2^31 ids and more,
    which takes the whole id range."""
    rows = hi - lo if n < 2**31 else max(n, 1)
    if lo:
        np.subtract(records[0], records[0].dtype.type(lo), out=records[0])  # the owner's rows from 0, in place
    offsets, indices, w, _ = build_csr(records[0], records[1], records[2], max(rows, 1), True, keep_self_loops=True,
                                       keep_duplicates=keep_duplicates, release=records.clear)
    records.clear()
    return np.ascontiguousarray(offsets[:hi - lo + 1]), indices, w


def _to_owners(host: Any, bounds: np.ndarray, records: list, *, by_target: bool = False, mirror: bool = False,
               drop_loops: bool = False, consume: bool = False) -> list:
    """The records [source, target, weight or None] each rank owns by source (by target with `by_target`), gathered
    there in rank order as [key, other, weight]. `mirror`: every record also travels as (other, key, weight) to the
    owner of `other` (both arcs of an undirected edge); `drop_loops`: records with key == other stay behind;
    `consume`: the list is emptied once its records are laid out by owner, so they are freed before they travel.

    The records are laid out by owner in two parallel passes (a count per owner and slice of the records, then each
    slice writing at its own offsets: a counting sort on the owners), as 4-byte ids where the vertices allow, and each
    owner's block travels as it is, received straight into this rank's arrays."""
    P = host.size
    key, other, weights = records
    if by_target:
        key, other = other, key
    if consume:
        records.clear()
    chunks = max(1, min(64, key.shape[0] // (1 << 16)))
    counts = _owner_counts(key, other, bounds, mirror, drop_loops, chunks)
    totals = counts.sum(axis=0)
    cuts = np.concatenate(([0], np.cumsum(totals)))
    start = cuts[:-1] + np.cumsum(counts, axis=0) - counts  # where slice c's records for rank p begin
    ids = np.int32 if int(bounds[-1]) < 2**31 else np.int64
    laid = [np.empty(int(cuts[-1]), dtype=ids), np.empty(int(cuts[-1]), dtype=ids),
            None if weights is None else np.empty(int(cuts[-1]), dtype=weights.dtype)]
    _owner_scatter(key, other, _NO_WEIGHTS if weights is None else weights, weights is not None, bounds, mirror,
                   drop_loops, start, laid[0], laid[1], _NO_WEIGHTS if weights is None else laid[2])
    del key, other, weights  # the records' last references, where the caller handed them over
    arriving = [int(a[0]) for a in host.alltoallv([totals[p:p + 1].astype(np.int64) for p in range(P)])]
    mine = sum(arriving)  # what every rank sends here, in all
    out = []
    for k in range(3):  # a column at a time, each freed once sent
        column, laid[k] = laid[k], None
        if column is None:
            out.append(None)
            continue
        into = np.empty(mine, dtype=column.dtype)
        host.alltoallv([column[cuts[p]:cuts[p + 1]] for p in range(P)], out=into, sizes=arriving)
        del column
        out.append(into)
    return out


_NO_WEIGHTS = np.zeros(0, dtype=np.float32)


@numba.njit(cache=True, parallel=True, nogil=True)
def _arcs_per_vertex(src, dst, load, chunks):  # pragma: no cover - numba
    """load[v] += the arcs the records give v: one at each end of a record, none for a self-loop. The records in
    `chunks` slices over the rank's threads, counting with atomic adds (vertices are many, so they rarely collide)."""
    m = src.shape[0]
    for c in numba.prange(chunks):
        for i in range(m * c // chunks, m * (c + 1) // chunks):
            u = src[i]
            v = dst[i]
            if u != v:
                atomic_add(load, u, 1)
                atomic_add(load, v, 1)


@numba.njit(cache=True, nogil=True)
def _owner(bounds, u):  # pragma: no cover - numba
    """The rank whose range holds vertex u: the last r with bounds[r] <= u (ranges may be empty)."""
    return np.searchsorted(bounds, u, side="right") - 1


@numba.njit(cache=True, parallel=True, nogil=True)
def _owner_counts(key, other, bounds, mirror, drop_loops, chunks):  # pragma: no cover - numba
    m = key.shape[0]
    counts = np.zeros((chunks, bounds.shape[0] - 1), dtype=np.int64)
    for c in numba.prange(chunks):
        for i in range(m * c // chunks, m * (c + 1) // chunks):
            u, v = key[i], other[i]
            if drop_loops and u == v:
                continue
            counts[c, _owner(bounds, u)] += 1
            if mirror:
                counts[c, _owner(bounds, v)] += 1
    return counts


@numba.njit(cache=True, nogil=True)
def _place(bounds, at, u, v, w, weighted, out_key, out_other, out_weights):  # pragma: no cover - numba
    """Record (u, v, w) into the next free slot of u's owner's block."""
    p = _owner(bounds, u)
    j = at[p]
    out_key[j], out_other[j] = u, v
    if weighted:
        out_weights[j] = w
    at[p] = j + 1


@numba.njit(cache=True, parallel=True, nogil=True)
def _owner_scatter(key, other, weights, weighted, bounds, mirror, drop_loops, start, out_key, out_other,
                   out_weights):  # pragma: no cover - numba
    m, chunks = key.shape[0], start.shape[0]
    for c in numba.prange(chunks):
        at = start[c].copy()
        for i in range(m * c // chunks, m * (c + 1) // chunks):
            u, v = key[i], other[i]
            if drop_loops and u == v:
                continue
            w = weights[i] if weighted else np.float32(0)
            _place(bounds, at, u, v, w, weighted, out_key, out_other, out_weights)
            if mirror:
                _place(bounds, at, v, u, w, weighted, out_key, out_other, out_weights)


# ------------------------------------------------------------------------------------------------------- generators
def _kron_records(ctx: Any, spec_text: str, directed: bool) -> tuple:
    """Records [r M / P, (r + 1) M / P) of a kron/rmat spec, drawn as graph.generate draws them."""
    from ..graph.generate import INITIATOR, _kronecker_chunk, _threshold, _weights, parse_spec

    spec = parse_spec(spec_text)
    scale, edge_factor = int(spec.params[0]), int(spec.params[1])
    n, m = 1 << scale, edge_factor << scale
    first, last = m * ctx.rank // ctx.size, m * (ctx.rank + 1) // ctx.size
    a, b, c = INITIATOR
    ab = a + b
    t_ab, t_a, t_c = _threshold(ab), _threshold(a / ab), _threshold(c / (1.0 - ab))
    rng = np.random.default_rng(spec.seed)
    perm = rng.permutation(n).astype(np.int64)
    bits = rng.bit_generator
    buffered = {k: bits.state[k] for k in ("has_uint32", "uinteger")}  # advance() drops the 32-bit buffer

    def advance(generator: Any, draws: int) -> None:
        generator.advance(draws)
        state = generator.state
        state.update(buffered)
        generator.state = state

    src = np.empty(last - first, dtype=np.int64)
    dst = np.empty(last - first, dtype=np.int64)
    # The rank's records in slices, one thread each, every thread with its own copy of the stream advanced to its
    # slice (random_raw and the numba kernel release the GIL), so the records are the same whatever the thread count.
    threads = max(1, min(16, ctx.threads, (last - first) // (1 << 16)))
    cuts = np.linspace(first, last, threads + 1).astype(np.int64)

    def draw(t: int) -> None:
        mine = type(bits)()
        mine.state = bits.state
        advance(mine, int(cuts[t]) * scale)
        chunk = max(1, (1 << 20) // scale)
        for start in range(int(cuts[t]), int(cuts[t + 1]), chunk):
            count = min(chunk, int(cuts[t + 1]) - start)
            _kronecker_chunk(mine.random_raw(count * scale), scale, t_ab, t_a, t_c, perm, src, dst, start - first,
                             count)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(draw, range(threads)))
    weights = None
    if spec.weighted:  # drawn after every record's bits, as one array: each rank draws it whole and keeps its slice
        advance(bits, m * scale)
        weights = np.ascontiguousarray(_weights(rng, m)[first:last])
    return src, dst, weights, n


# --------------------------------------------------------------------------------------------------------- .npz
def _npz(dg: DistributedGraph, path: Path, directed: bool | None) -> None:
    _adopt(dg, dg.spmd(_npz_rank, str(path), directed, keep=True))


def _read_range(members: Any, name: str, first: int, last: int) -> np.ndarray:
    """Elements [first, last) of a 1-D member, read from its stored bytes (its header checked by NpzMembers)."""
    from ..errors import GraphFormatError

    info = members.infos[name]
    with members._zip.open(info) as member:
        version = np.lib.format.read_magic(member)
        header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = header(member, max_header_size=10_000)
        if len(shape) != 1 or not 0 <= first <= last <= shape[0]:
            raise GraphFormatError(members.path, None, f"array {name!r} of shape {shape} has no elements "
                                   f"[{first}, {last})")
        member.seek(member.tell() + first * dtype.itemsize)
        data = member.read((last - first) * dtype.itemsize)
        if len(data) != (last - first) * dtype.itemsize:
            raise GraphFormatError(members.path, None, f"array {name!r} ends early")
    return np.frombuffer(data, dtype=dtype).astype(dtype.newbyteorder("="), copy=True)


def _npz_rank(ctx: Any, part: None, path_text: str, directed: bool | None) -> Part:
    from ..errors import GraphFormatError
    from ..graph.io.npz import FORMAT_TAG, NpzMembers

    path = Path(path_text)
    error, made = None, None
    try:
        with NpzMembers(path) as members:
            if "format" not in members.infos or str(members.scalar("format")) != FORMAT_TAG:
                raise GraphFormatError(path, None, f"not a graphgear .npz graph (no {FORMAT_TAG!r} format tag)")
            offsets = members.array("offsets")
            stored_directed = bool(members.scalar("directed"))
            name = str(members.scalar("name"))
            labels = members.array("vertex_ids") if "vertex_ids" in members.infos else None
            n = offsets.shape[0] - 1
            if n < 0 or offsets[0] != 0 or (np.diff(offsets) < 0).any():
                raise GraphFormatError(path, None, "array 'offsets' must start at 0 and never decrease")
            graph_directed = stored_directed if directed is None else bool(directed)
            if graph_directed != stored_directed:
                raise GraphFormatError(path, None, "a distributed read keeps the file's direction; load it with "
                                       "gg.load(path, directed=...) and partition that Graph instead")
            bounds = balanced_bounds(np.diff(offsets), ctx.size)  # by out-arcs: the in-degrees are not read
            lo, hi = int(bounds[ctx.rank]), int(bounds[ctx.rank + 1])
            a, b = int(offsets[lo]), int(offsets[hi])
            indices = _read_range(members, "indices", a, b)
            if indices.size and (indices.min() < 0 or indices.max() >= n):
                raise GraphFormatError(path, None, f"array 'indices' holds a vertex id outside 0..{n - 1}")
            weights = _read_range(members, "weights", a, b).astype(np.float32) if "weights" in members.infos \
                else None
        made = (offsets, indices, weights, n, bounds, graph_directed, name, labels)
    except GraphgearError as exc:
        error = exc
    _agree(ctx, error)
    offsets, indices, weights, n, bounds, graph_directed, name, labels = made
    lo, hi = int(bounds[ctx.rank]), int(bounds[ctx.rank + 1])
    out = Part(lo, hi, n, graph_directed, bounds, offsets[lo:hi + 1] - offsets[lo], indices, weights, labels=labels,
               name=name)
    if graph_directed:  # the in-edges: every arc to the owner of its target, built there into CSC rows
        rows = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(out.offsets))
        cols = _to_owners(ctx.host, bounds, [rows, indices.astype(np.int64), weights], by_target=True, consume=True)
        out.in_offsets, out.in_indices, out.in_weights = _own_rows(cols, lo, hi, n, keep_duplicates=True)
    return out


# ----------------------------------------------------------------------------------------------------- edge lists
def _edgelist_plan(path: Path) -> dict | None:
    """What the parallel read needs from a plain edge list's head (first data line, columns, direction), or None
    when the file has what only gg.load reads (a header row, KONECT or SNAP count lines)."""
    from ..graph.io import edgelist as el
    from ..graph.io.source import read_head
    from ..graph.io.text import direction_hint, first_line, is_real, split_fields, top_comments

    head = read_head(path, 1 << 16)
    if el._KONECT.fullmatch(bytes(head[: head.find(b"\n") if b"\n" in head else len(head)])):
        return None
    first = first_line(head, el._is_comment, cut=b"#%")
    if first is None or first.offset + len(first.content) >= len(head):
        return None  # only comments in the head, or a first line longer than it: gg.load reads those
    comments = top_comments(head, el._is_comment, first.offset)
    if any(el._NODES.search(c.content) or el._EDGES.search(c.content) for c in comments):
        return None
    comma = b"," in first.content
    fields = split_fields(first.content, comma)
    if not any(is_real(f) for f in fields) or len(fields) not in (2, 3) or (comma and not all(fields)):
        return None
    if path.name.lower().endswith(".wel") and len(fields) != 3:
        return None
    hint = direction_hint(comments)
    return {"offset": first.offset, "line": first.number, "comma": comma, "ncols": len(fields),
            "directed": True if hint is None else hint}


def _edgelist_records(ctx: Any, path_text: str, plan: dict) -> tuple:
    """Rank r's lines: those whose first byte lies in its byte range of the body, parsed by graph/io/scan.py. Each
    local phase ends in `_agree`, so a bad line fails every rank at the same collective."""
    from ..errors import GraphFormatError
    from ..graph.io import scan
    from ..graph.io.source import open_regular, os_error
    from ..graph.io.text import check_weights, line_text, scan_message

    path = Path(path_text)

    def read() -> bytearray:
        body, size = plan["offset"], os.path.getsize(path)
        begin = body + (size - body) * ctx.rank // ctx.size
        end = body + (size - body) * (ctx.rank + 1) // ctx.size
        first = max(begin - 1, 0)  # the byte before the range: a line end there means a line starts at `begin`
        try:
            with os.fdopen(open_regular(path), "rb") as f:
                f.seek(first)
                raw = bytearray(f.read(end - first))
                while end < size and raw and not raw.endswith(b"\n"):  # the last line that starts in the range
                    piece = f.read(1 << 16)
                    if not piece:
                        break
                    cut = piece.find(b"\n")
                    raw += piece if cut < 0 else piece[: cut + 1]
        except OSError as exc:
            raise os_error(path, exc) from None
        if begin == 0:
            return raw
        cut = raw.find(b"\n")
        return raw[cut + 1:] if cut >= 0 else bytearray()

    text = _guarded(ctx, read)
    counts = ctx.host.alltoallv([np.asarray([text.count(b"\n")], dtype=np.int64)] * ctx.size)
    line0 = plan["line"] + int(sum(int(c[0]) for c in counts[: ctx.rank]))
    ncols, comma = plan["ncols"], plan["comma"]

    def parse() -> tuple:
        buf = scan.as_buffer(text)
        result = scan.scan_edges(buf, 0, line0, scan.MODE_EDGES, comma, ncols)
        if isinstance(result, scan.ScanError):
            columns = ("source", "target", "weight")[:ncols]
            raise GraphFormatError(path, result.line, scan_message(result, columns), line_text(text, result.offset))
        src, dst, weights = result

        def locate(i: int) -> Any:
            return scan.locate_record(buf, 0, line0, scan.MODE_EDGES, comma, ncols, i)

        weights = check_weights(path, text, weights if ncols >= 3 else None, locate)
        bad = np.flatnonzero((src < 0) | (dst < 0))
        if bad.size:
            at = locate(int(bad[0]))
            value = int(src[bad[0]] if src[bad[0]] < 0 else dst[bad[0]])
            raise GraphFormatError(path, at.line, f"vertex id {value} is negative", line_text(text, at.offset))
        return src, dst, weights

    src, dst, weights = _guarded(ctx, parse)
    top = int(max(src.max(), dst.max())) if src.size else -1
    n = int(ctx.host.allreduce(np.asarray([top + 1], dtype=np.int64), "max")[0])
    return src, dst, weights, max(n, 0)

"""Seeded synthetic graph generators behind a spec string (``kron:20``, ``rgg:16:w:seed=3``, ``grid:512:512:0.8``).

Spec grammar
------------
A spec is ``NAME:P1[:P2...][:w][:seed=N]``: tokens separated by ``:``, no spaces. The generator NAME comes first, then
its positional parameters in order, then -- in any order, each at most once -- the options:

    w          add random integer weights, uniform in 1..255, stored as float32 (drawn after the structure, so
               ``kron:10`` and ``kron:10:w`` have the same edges)
    seed=N     the seed (an integer >= 0; default 0) of ``numpy.random.default_rng``

    kron:SCALE[:EF]         Graph500 Kronecker graph, 2^SCALE vertices, EF*2^SCALE edge records (EF default 16),
                            undirected
    rmat:SCALE:EF           R-MAT graph (Chakrabarti et al.), same initiator, directed
    er:N:AVGDEG             Erdos-Renyi G(n, m) style, round(N*AVGDEG/2) random pairs, undirected
    rgg:SCALE               random geometric graph as in DIMACS10 (2^SCALE points in the unit square), undirected
    grid:ROWS:COLS[:KEEP]   road-like 4-neighbour lattice, each edge kept with probability KEEP (default 1), undirected

Ranges: SCALE 1..40, EF >= 1 (integer), N >= 1, AVGDEG >= 0, ROWS and COLS >= 1, 0 < KEEP <= 1. Anything else -- an
unknown name, a missing or extra parameter, a value that is not a number or out of range, an unknown token -- raises
`GraphSpecError` quoting the whole spec and the bad token, with the valid forms. A spec whose generation and CSR build
would need more memory than this machine has available is refused before anything is allocated, with a
`SpecMemoryError` (a `HostMemoryError` and a `GraphSpecError`) naming the bytes needed and available (see
`estimate_bytes`).

Every generator is deterministic for a given spec (same seed, same CSR on every machine with the same NumPy) and
vectorised: NumPy for the bulk work, small numba kernels for the Kronecker bit loop and the geometric neighbour search.
Self-loops and duplicate records that a generator draws are dropped by `Graph.from_edges` (counted in
``graph.counts``); the vertex count is always the full N, isolated vertices included.

`is_spec` tells a spec from a file path: ``kron:16`` is a spec, ``kron.txt`` and ``/tmp/rgg.mtx`` are not.
"""

from __future__ import annotations

import math
import re
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numba
import numpy as np

from .. import memory
from ..errors import GraphError, GraphSpecError, HostMemoryError, SpecMemoryError
from ..progress import Task, task
from .build import _SLACK_BYTES, csr_build_bytes
from .graph import Graph

__all__ = [
    "GeneratorSpec",
    "KINDS",
    "SpecMemoryError",
    "VALID_FORMS",
    "is_spec",
    "parse_spec",
    "weighted_spec",
    "generate",
    "estimate_bytes",
    "kronecker",
    "kronecker_edges",
    "rmat",
    "erdos_renyi",
    "random_geometric",
    "rgg_points",
    "rgg_radius",
    "orient",
    "grid",
]

# Graph500 initiator (spec section 3.2): A=0.57, B=0.19, C=0.19, D=1-(A+B+C)=0.05
INITIATOR = (0.57, 0.19, 0.19)
RGG_RADIUS_FACTOR = 0.55  # DIMACS10 rgg: r = 0.55 * sqrt(ln n / n)
WEIGHT_MAX = 255
_CHUNK_DRAWS = 1 << 20  # 64-bit draws per Kronecker chunk (8 MiB): bounds memory, feeds the progress bar

VALID_FORMS = (
    "kron:SCALE[:EF], rmat:SCALE:EF, er:N:AVGDEG, rgg:SCALE, grid:ROWS:COLS[:KEEP], "
    "each optionally followed by :w (weights 1..255) and :seed=N, in any order"
)


# --------------------------------------------------------------------------------------------------------- parsing
class _Bad(ValueError):
    """A token that does not parse; the message says what was expected."""


_INT_RE = re.compile(r"[0-9]+")
_FLOAT_RE = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _integer(name: str, low: int, high: int | None = None) -> Callable[[str], int]:
    expected = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"

    def parse(token: str) -> int:
        if not _INT_RE.fullmatch(token):
            raise _Bad(f"{name} must be {expected}")
        value = int(token)
        if value < low or (high is not None and value > high):
            raise _Bad(f"{name} must be {expected}")
        return value

    return parse


def _real(name: str, low: float, high: float | None = None, low_open: bool = False) -> Callable[[str], float]:
    expected = f"a number {'>' if low_open else '>='} {low:g}" + (f" and <= {high:g}" if high is not None else "")

    def parse(token: str) -> float:
        if not _FLOAT_RE.fullmatch(token):
            raise _Bad(f"{name} must be {expected}")
        value = float(token)
        too_low = value < low or (low_open and value == low)
        if not math.isfinite(value) or too_low or (high is not None and value > high):
            raise _Bad(f"{name} must be {expected}")
        return value

    return parse


@dataclass(frozen=True)
class _Param:
    name: str
    parse: Callable[[str], int | float]
    default: int | float | None = None  # None: required


_SCALE = _Param("SCALE", _integer("SCALE", 1, 40))
_KIND_PARAMS: dict[str, tuple[_Param, ...]] = {
    "kron": (_SCALE, _Param("EF", _integer("EF", 1), 16)),
    "rmat": (_SCALE, _Param("EF", _integer("EF", 1))),
    "er": (_Param("N", _integer("N", 1)), _Param("AVGDEG", _real("AVGDEG", 0.0))),
    "rgg": (_SCALE,),
    "grid": (
        _Param("ROWS", _integer("ROWS", 1)),
        _Param("COLS", _integer("COLS", 1)),
        _Param("KEEP", _real("KEEP", 0.0, 1.0, low_open=True), 1.0),
    ),
}
KINDS: tuple[str, ...] = tuple(_KIND_PARAMS)


@dataclass(frozen=True)
class GeneratorSpec:
    """A parsed generator spec: ``kind`` (``"kron"``, ``"rmat"``, ``"er"``, ``"rgg"``, ``"grid"``), ``params`` (the
    positional parameters in spec order, defaults filled in: kron/rmat (SCALE, EF), er (N, AVGDEG), rgg (SCALE,),
    grid (ROWS, COLS, KEEP)), ``weighted`` (the ``w`` option) and ``seed``. ``str()`` gives the canonical spec."""

    kind: str
    params: tuple[int | float, ...]
    weighted: bool = False
    seed: int = 0

    def __str__(self) -> str:
        tokens = [self.kind, *(repr(float(p)) if isinstance(p, float) else str(p) for p in self.params)]
        if self.weighted:
            tokens.append("w")
        if self.seed:
            tokens.append(f"seed={self.seed}")
        return ":".join(tokens)


def is_spec(text: str) -> bool:
    """True when ``text`` looks like a generator spec: a known generator name followed by ``:`` (``kron:16``).

    Only the prefix is checked (``kron:abc`` is a spec, a malformed one that `parse_spec` rejects), so a file path such
    as ``kron.txt`` or ``/tmp/rgg.mtx`` is never taken for a spec.
    """
    if not isinstance(text, str):
        return False
    name, colon, _ = text.partition(":")
    return bool(colon) and name in _KIND_PARAMS


def weighted_spec(spec: str) -> str:
    """The weighted form of a generator spec (``kron:21`` -> ``kron:21:w``: SSSP's inputs in the benchmarks); a spec
    that is weighted already, or a path, as it is."""
    return f"{spec}:w" if is_spec(spec) and not parse_spec(spec).weighted else spec


def _fail(spec: str, why: str, token: str | None = None) -> GraphSpecError:
    shown = f", got {token!r}" if token is not None else ""
    return GraphSpecError(f"bad generator spec {spec!r}: {why}{shown}. Valid forms: {VALID_FORMS}")


def parse_spec(spec: str) -> GeneratorSpec:
    """Parse a generator spec (see the module docstring for the grammar) into a `GeneratorSpec`.

    Raises `GraphSpecError` naming the spec, the bad token and the valid forms. Sizes are not checked here; `generate`
    refuses specs whose `estimate_bytes` exceeds the available memory.
    """
    if not isinstance(spec, str):
        kind = type(spec).__name__
        raise GraphSpecError(f"a generator spec must be a string, got {kind}. Valid forms: {VALID_FORMS}")
    name, *tokens = spec.split(":")
    if name not in _KIND_PARAMS:
        raise _fail(spec, f"unknown generator {name!r} (known: {', '.join(KINDS)})")
    params = _KIND_PARAMS[name]
    values: list[int | float] = []
    weighted: bool | None = None
    seed: int | None = None
    for token in tokens:
        if token == "w":
            if weighted is not None:
                raise _fail(spec, "option 'w' given twice", token)
            weighted = True
        elif token.startswith("seed="):
            if seed is not None:
                raise _fail(spec, "option 'seed=' given twice", token)
            text = token[len("seed=") :]
            if not _INT_RE.fullmatch(text):
                raise _fail(spec, "seed must be an integer >= 0", token)
            seed = int(text)
        elif weighted is not None or seed is not None:
            raise _fail(spec, f"unexpected token after the options (parameters of {name} come first)", token)
        elif len(values) == len(params):
            raise _fail(spec, f"too many parameters for {name} (it takes {_form(name)})", token)
        else:
            try:
                values.append(params[len(values)].parse(token))
            except _Bad as exc:
                raise _fail(spec, str(exc), token) from None
    for p in params[len(values) :]:
        if p.default is None:
            raise _fail(spec, f"missing parameter {p.name} ({name} takes {_form(name)})")
        values.append(p.default)
    return GeneratorSpec(name, tuple(values), bool(weighted), 0 if seed is None else seed)


def _form(kind: str) -> str:
    out = kind
    for p in _KIND_PARAMS[kind]:
        out += f":{p.name}" if p.default is None else f"[:{p.name}]"
    return out


# ------------------------------------------------------------------------------------------------------ sizes
def rgg_radius(n: int) -> float:
    """The DIMACS10 random-geometric-graph radius for ``n`` points: ``0.55 * sqrt(ln n / n)``."""
    return RGG_RADIUS_FACTOR * math.sqrt(math.log(n) / n)


def _vertices_records(parsed: GeneratorSpec) -> tuple[int, int]:
    """The vertex count and an upper bound of the edge records the generator hands to the CSR build."""
    kind, p = parsed.kind, parsed.params
    if kind in ("kron", "rmat"):
        n = 1 << int(p[0])
        return n, int(p[1]) * n
    if kind == "er":
        n = int(p[0])
        return n, int(round(n * float(p[1]) / 2))
    if kind == "rgg":
        n = 1 << int(p[0])
        expected = math.pi * rgg_radius(n) ** 2 * n * (n - 1) / 2  # border effects ignored: above the mean
        return n, _above_mean(expected, expected)
    rows, cols, keep = int(p[0]), int(p[1]), float(p[2])
    full = rows * (cols - 1) + (rows - 1) * cols
    return rows * cols, full if keep >= 1.0 else min(full, _above_mean(keep * full, full * keep * (1.0 - keep)))


def _above_mean(mean: float, variance: float) -> int:
    """A count that a random count of this mean and variance stays below: four standard deviations above the mean."""
    return math.ceil(mean + 4.0 * math.sqrt(variance) + 8)


def _generator_bytes(parsed: GeneratorSpec, n: int, m: int) -> int:
    """Peak bytes of the generator's own work, before the CSR build (see `estimate_bytes`)."""
    kind = parsed.kind
    weights = 5 * m if parsed.weighted else 0  # uint8 draws, then float32
    if kind in ("kron", "rmat"):
        scale = int(parsed.params[0])
        chunk = max(1, _CHUNK_DRAWS // scale)
        draws = 8 * scale * min(m, 3 * chunk)  # 64-bit draws: a chunk drawn, one in the worker, one being released
        return max(16 * n + 16 * m + draws, 16 * m + weights)  # the label permutation (and its int64 copy), records
    if kind == "er":
        return 16 * m + weights
    if kind == "rgg":
        g = max(1, int(1.0 / rgg_radius(n)))
        return 88 * n + 8 * (g * g + 1) + 16 * m  # points, cell ids and order, sorted coordinates, counts; pairs
    rows, cols, keep = int(parsed.params[0]), int(parsed.params[1]), float(parsed.params[2])
    full = rows * (cols - 1) + (rows - 1) * cols
    peak = max(16 * n + 16 * full, 16 * m + weights)  # the id lattice and one raveled copy, the records
    if keep < 1.0:
        peak = max(peak, 25 * full, 17 * full + 16 * m)  # all records, a uniform and a mask each, the kept copies
    return peak


def estimate_bytes(spec: str | GeneratorSpec) -> int:
    """Estimated peak host memory of generating a spec and building its CSR: what `generate` checks, before anything
    is allocated, against the memory this machine has available (`graphgear.memory.require`).

    The larger of two phases, both calibrated by ``benchmarks/memory_peaks.py`` (docs/memory.md):

    - the generator's own work: its edge records (two int64 ids, 16 bytes each) and temporaries: the Kronecker
      label permutation and bit draws, the geometric points and their cells, the grid's lattice and keep-mask;
    - the CSR build: the records it is handed (16 bytes each; weighted, the float32 weights twice, the generator's and
      `Graph.from_edges`' copy) plus `csr_build_bytes` (the build's sort keys, copies and outputs).

    Record counts are upper bounds: exact for kron, rmat and er, four standard deviations above the mean where they
    are random (rgg, grid with KEEP < 1); self-loops and duplicates are assumed absent.
    """
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    n, m = _vertices_records(parsed)
    directed, loops = parsed.kind == "rmat", parsed.kind in ("kron", "rmat", "er")  # rgg and grid draw no loops
    held = 16 * m + (8 * m if parsed.weighted else 0)
    build = held + csr_build_bytes(n, m, directed, parsed.weighted, self_loops=loops)
    return max(_generator_bytes(parsed, n, m) + _SLACK_BYTES, build)


def _check_size(text: str, parsed: GeneratorSpec) -> None:
    """Refuse, before anything is allocated, a spec whose estimated peak exceeds the available memory."""
    n, m = _vertices_records(parsed)
    what = f"generator spec {text!r} ({n:,} vertices, about {m:,} edge records)"
    try:
        memory.require(estimate_bytes(parsed), what)
    except HostMemoryError as exc:
        raise SpecMemoryError(f"{exc}; use a smaller size") from None


# ------------------------------------------------------------------------------------------------------ entry point
def generate(spec: str, progress: bool | None = None) -> Graph:
    """Build the graph a spec describes (``kron:20``, ``rmat:16:8:w``, ``er:1000:4:seed=7``, ``rgg:16``,
    ``grid:512:512:0.8``); ``graph.name`` is the spec. ``progress`` shows a bar for long runs (None: the process
    default, see `graphgear.progress.enable`). Raises `GraphSpecError` for a malformed spec, and `SpecMemoryError`
    (also a GraphSpecError) for one this machine has not the memory for."""
    parsed = parse_spec(spec)
    return _build(parsed, spec, progress)


def _generate_spec(spec: GeneratorSpec, progress: bool | None) -> Graph:
    text = str(spec)
    return _build(parse_spec(text), text, progress)  # re-parsed: the same checks as a spec string


def _build(parsed: GeneratorSpec, name: str, progress: bool | None) -> Graph:
    _check_size(name, parsed)
    builder = _BUILDERS[parsed.kind]
    with task(f"generating {name}", enabled=progress) as bar:
        return builder(parsed, name, bar)


def _weights(rng: np.random.Generator, m: int) -> np.ndarray:
    return rng.integers(1, WEIGHT_MAX + 1, size=m, dtype=np.uint8).astype(np.float32)


# ------------------------------------------------------------------------------------------------------ Kronecker
def _threshold(p: float) -> np.uint64:
    # u > p for u = k / 2^32 (k a uniform 32-bit integer) holds exactly when k > floor(p * 2^32)
    return np.uint64(math.floor(p * 2.0**32))


@numba.njit(cache=True, nogil=True)
def _kronecker_chunk(raw, scale, t_ab, t_a, t_c, perm, src, dst, start, count):  # pragma: no cover - numba
    # Edge e of the chunk uses raw[e*scale + level] for its level-th bit pair: the low 32 bits are the first uniform
    # (ii_bit = u1 > ab), the high 32 bits the second (jj_bit = u2 > (c_norm if ii_bit else a_norm)). Branch-free.
    lo_mask = np.uint64(0xFFFFFFFF)
    shift = np.uint64(32)
    for e in range(count):
        i = np.int64(0)
        j = np.int64(0)
        base = e * scale
        for level in range(scale):
            r = raw[base + level]
            ii = (r & lo_mask) > t_ab
            jj = (r >> shift) > (t_c if ii else t_a)
            i |= np.int64(ii) << level
            j |= np.int64(jj) << level
        src[start + e] = perm[i]
        dst[start + e] = perm[j]


def _kronecker_records(
    scale: int, edge_factor: int, rng: np.random.Generator, bar: Task | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Graph500 Kronecker edge records (label permutation applied, edge permutation not), drawing from ``rng``."""
    n = 1 << scale
    m = edge_factor * n
    a, b, c = INITIATOR
    ab = a + b
    c_norm = c / (1.0 - ab)
    a_norm = a / ab
    t_ab, t_a, t_c = _threshold(ab), _threshold(a_norm), _threshold(c_norm)
    perm = rng.permutation(n).astype(np.int64)  # vertex labels: new label of vertex v is perm[v]
    src = np.empty(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    chunk = max(1, _CHUNK_DRAWS // scale)
    bits = rng.bit_generator
    if m <= chunk:
        _kronecker_chunk(bits.random_raw(m * scale), scale, t_ab, t_a, t_c, perm, src, dst, 0, m)
        return src, dst
    # Pipelined: this thread draws chunk k+1 (serially, from the one stream) while a worker thread turns chunk k into
    # records (the kernel releases the GIL and writes its own slice), so the result does not depend on the timing.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending: Future[None] | None = None
        for start in range(0, m, chunk):
            count = min(chunk, m - start)
            raw = bits.random_raw(count * scale)
            if pending is not None:
                pending.result()
                if bar is not None:
                    bar.advance(chunk)
            pending = pool.submit(_kronecker_chunk, raw, scale, t_ab, t_a, t_c, perm, src, dst, start, count)
        assert pending is not None
        pending.result()
    if bar is not None:
        bar.update(m)
    return src, dst


def kronecker_edges(
    scale: int, edge_factor: int = 16, seed: int = 0, *, weighted: bool = False, permute_edges: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The raw Graph500 Kronecker edge list ``(src, dst, weights)`` (int64, int64, float32 or None) that
    ``kron:SCALE:EF[:w]:seed=SEED`` builds its graph from, self-loops and duplicates included.

    Draws from ``numpy.random.default_rng(seed)``, in this order: the vertex label permutation (``permutation(N)``),
    the Kronecker bits (``random_raw``, one 64-bit draw per edge and level, see `kronecker`), the weights when
    ``weighted`` (``integers(1, 256)``), and last the edge permutation (``permutation(M)``) when ``permute_edges``.
    `generate` skips that last draw: the edge records are i.i.d., each weight travels with its record, and the CSR
    build sorts the records (keeping the minimum weight of a duplicate), so the order changes nothing in the graph.
    """
    parsed = parse_spec(str(GeneratorSpec("kron", (scale, edge_factor), weighted, seed)))
    _check_size(str(parsed), parsed)
    rng = np.random.default_rng(seed)
    src, dst = _kronecker_records(scale, edge_factor, rng)
    w = _weights(rng, src.size) if weighted else None
    if permute_edges:
        order = rng.permutation(src.size)
        src, dst = src[order], dst[order]
        w = None if w is None else w[order]
    return src, dst, w


def _kron_like(parsed: GeneratorSpec, name: str, bar: Task, directed: bool) -> Graph:
    scale, edge_factor = int(parsed.params[0]), int(parsed.params[1])
    rng = np.random.default_rng(parsed.seed)
    bar.total = edge_factor << scale
    src, dst = _kronecker_records(scale, edge_factor, rng, bar)
    w = _weights(rng, src.size) if parsed.weighted else None
    bar.update(description=f"building {name}")
    return Graph.from_edges(src, dst, w, num_vertices=1 << scale, directed=directed, name=name)


def _build_kron(parsed: GeneratorSpec, name: str, bar: Task) -> Graph:
    """Build ``kronecker``'s graph from a parsed spec."""
    return _kron_like(parsed, name, bar, directed=False)


def _build_rmat(parsed: GeneratorSpec, name: str, bar: Task) -> Graph:
    """Build ``rmat``'s graph from a parsed spec."""
    return _kron_like(parsed, name, bar, directed=True)


def kronecker(
    scale: int, edge_factor: int = 16, *, weighted: bool = False, seed: int = 0, progress: bool | None = None
) -> Graph:
    """``kron:SCALE[:EF]``: the Graph500 Kronecker graph (Graph500 benchmark specification, section 3 "Graph
    Generation", and its reference ``kronecker_generator.m``): N = 2^SCALE vertices, M = EF*N edge records drawn
    independently from the 2x2 initiator A=0.57, B=0.19, C=0.19, D=0.05 applied SCALE times (Leskovec et al., "Kronecker
    graphs", JMLR 2010).

    Models the skewed, heavy-tailed degree distribution and small diameter of social and web graphs. Exactly the
    reference's vectorised form: per level ``ii_bit = rand > A+B``; ``jj_bit = rand > (c_norm if ii_bit else a_norm)``
    with ``c_norm = C/(1-(A+B))``, ``a_norm = A/(A+B)``; ``src |= ii_bit << level``, ``dst |= jj_bit << level``. The two
    uniforms of a level are the two 32-bit halves of one 64-bit PCG64 draw (u = k/2^32; the comparison is done on the
    integers, exactly). Vertex labels are randomly permuted, as the reference does (the permutation is drawn first and
    applied as the records are made); its final edge permutation cannot change the CSR and is skipped (see
    `kronecker_edges`). Undirected; self-loops and duplicate records are dropped by the build (``graph.counts`` says how
    many).
    """
    return _generate_spec(GeneratorSpec("kron", (scale, edge_factor), weighted, seed), progress)


def rmat(scale: int, edge_factor: int, *, weighted: bool = False, seed: int = 0, progress: bool | None = None) -> Graph:
    """``rmat:SCALE:EF``: an R-MAT graph (Chakrabarti, Zhan, Faloutsos, "R-MAT: A Recursive Model for Graph Mining", SDM
    2004): each of M = EF*2^SCALE arcs picks its quadrant of the adjacency matrix recursively, SCALE times, with
    probabilities a=0.57, b=0.19, c=0.19, d=0.05 (the Graph500 parameters; no per-level noise).

    Models directed power-law graphs (web, citation, communication). The draw is the same as ``kron`` (same seed, same
    records) but the graph is DIRECTED. Vertex labels are randomly permuted as in Graph500: without it vertex 0 is the
    hub, ids and degrees are correlated and low ids sit together in memory, which flatters cache behaviour and skews any
    algorithm that breaks ties by id. Self-loops and duplicate arcs are dropped by the build.
    """
    return _generate_spec(GeneratorSpec("rmat", (scale, edge_factor), weighted, seed), progress)


# ------------------------------------------------------------------------------------------------------ Erdos-Renyi
def _build_er(parsed: GeneratorSpec, name: str, bar: Task) -> Graph:
    """Build ``erdos_renyi``'s graph from a parsed spec."""
    n = int(parsed.params[0])
    _, m = _vertices_records(parsed)
    rng = np.random.default_rng(parsed.seed)
    src = rng.integers(0, n, size=m, dtype=np.int64)
    dst = rng.integers(0, n, size=m, dtype=np.int64)
    w = _weights(rng, m) if parsed.weighted else None
    bar.update(description=f"building {name}")
    return Graph.from_edges(src, dst, w, num_vertices=n, directed=False, name=name)


def erdos_renyi(
    n: int, avg_degree: float, *, weighted: bool = False, seed: int = 0, progress: bool | None = None
) -> Graph:
    """``er:N:AVGDEG``: an Erdos-Renyi random graph, G(n, m) style (Erdos and Renyi, "On random graphs I", 1959): M =
    round(N*AVGDEG/2) vertex pairs drawn uniformly and independently (with replacement), undirected.

    Models a graph with no structure: Poisson degrees, tiny diameter, one giant component once AVGDEG > 1. Pairs that
    are self-loops or repeats are dropped by the build, so the edge count is slightly below M (by about M/N + M^2/N^2)
    and the average degree slightly below AVGDEG.
    """
    return _generate_spec(GeneratorSpec("er", (n, float(avg_degree)), weighted, seed), progress)


# ------------------------------------------------------------------------------------------------------ geometric
def rgg_points(scale: int, seed: int = 0) -> np.ndarray:
    """float64[2^SCALE, 2]: the points of ``rgg:SCALE:seed=SEED``, row v being vertex v's (x, y) in [0, 1)^2.

    They are the first draw of ``default_rng(seed)`` (``random((n, 2))``), so a test can recompute the edges by brute
    force: ``{u, v}`` is an edge exactly when ``dx*dx + dy*dy < r*r`` with ``r = rgg_radius(n)``.
    """
    return np.random.default_rng(seed).random((1 << int(scale), 2))


@numba.njit(cache=True, nogil=True)
def _rgg_scan(xs, ys, cell, cell_start, g, r2, pos, order, out_u, out_v):  # pragma: no cover - numba
    # Points are sorted by cell (cell = cy*g + cx, cells of side 1/g >= r). Each pair is looked at once, from its
    # earlier point: later points of the same cell and of cell cx+1 (one contiguous range of the sorted points), and
    # all points of cells cx-1..cx+1 in the row above (another contiguous range). With fill False, pos[k] gets the
    # number of neighbours found for point k; with fill True the pairs are written from pos[k] on (pos holds the
    # exclusive prefix sums).
    n = xs.shape[0]
    fill = out_u.shape[0] > 0
    for k in range(n):
        c = cell[k]
        cx = c % g
        cy = c // g
        hi_x = min(cx + 1, g - 1)
        found = 0
        at = pos[k] if fill else 0
        x = xs[k]
        y = ys[k]
        for rng_i in range(2):
            if rng_i == 0:
                lo = k + 1
                hi = cell_start[cy * g + hi_x + 1]
            else:
                if cy + 1 >= g:
                    break
                row = (cy + 1) * g
                lo = cell_start[row + max(cx - 1, 0)]
                hi = cell_start[row + hi_x + 1]
            for j in range(lo, hi):
                dx = xs[j] - x
                dy = ys[j] - y
                if dx * dx + dy * dy < r2:
                    if fill:
                        out_u[at + found] = order[k]
                        out_v[at + found] = order[j]
                    found += 1
        if not fill:
            pos[k] = found


def _rgg_pairs(points: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """All pairs (u < v not guaranteed, each pair once) of ``points`` closer than ``radius``, by grid bucketing."""
    n = points.shape[0]
    g = max(1, int(1.0 / radius))  # cells of side 1/g >= radius: neighbours lie in the 3x3 block of cells
    cx = np.minimum((points[:, 0] * g).astype(np.int64), g - 1)
    cy = np.minimum((points[:, 1] * g).astype(np.int64), g - 1)
    cell = cy * g + cx
    order = np.argsort(cell, kind="stable")
    cell = cell[order]
    xs = np.ascontiguousarray(points[order, 0])
    ys = np.ascontiguousarray(points[order, 1])
    cell_start = np.zeros(g * g + 1, dtype=np.int64)
    np.cumsum(np.bincount(cell, minlength=g * g), out=cell_start[1:])
    counts = np.zeros(n, dtype=np.int64)
    empty = np.empty(0, dtype=np.int64)
    r2 = radius * radius
    _rgg_scan(xs, ys, cell, cell_start, g, r2, counts, order, empty, empty)
    pos = np.zeros(n, dtype=np.int64)
    np.cumsum(counts[:-1], out=pos[1:])
    total = int(counts.sum())
    u = np.empty(total, dtype=np.int64)
    v = np.empty(total, dtype=np.int64)
    if total:
        _rgg_scan(xs, ys, cell, cell_start, g, r2, pos, order, u, v)
    return u, v


def _build_rgg(parsed: GeneratorSpec, name: str, bar: Task) -> Graph:
    """Build ``random_geometric``'s graph from a parsed spec."""
    scale = int(parsed.params[0])
    n = 1 << scale
    rng = np.random.default_rng(parsed.seed)
    points = rng.random((n, 2))  # the same draw as rgg_points(scale, seed)
    bar.total = 3
    bar.advance(1)
    u, v = _rgg_pairs(points, rgg_radius(n))
    del points
    bar.advance(1)
    w = _weights(rng, u.size) if parsed.weighted else None
    bar.update(description=f"building {name}")
    graph = Graph.from_edges(u, v, w, num_vertices=n, directed=False, name=name)
    bar.advance(1)
    return graph


def random_geometric(scale: int, *, weighted: bool = False, seed: int = 0, progress: bool | None = None) -> Graph:
    """``rgg:SCALE``: a random geometric graph as in the 10th DIMACS Implementation Challenge (``rgg_n_2_X_s0``; Bader,
    Meyerhenke, Sanders, Wagner (eds.), "Graph Partitioning and Graph Clustering", 2013): N = 2^SCALE points uniform in
    the unit square, an edge between two points at Euclidean distance < r = 0.55 * sqrt(ln N / N).

    Models spatial / mesh-like networks (sensor and wireless networks): degrees concentrated around pi*0.3025*ln N
    (about 0.95 ln N), high clustering, large diameter (about 1/r); r is just below the connectivity threshold sqrt(ln N
    / (pi N)), so a giant component holds all but a handful of vertices. Vertex v is the v-th point of `rgg_points`
    (random order, no spatial numbering). Undirected. Neighbours are found by bucketing the points into square cells of
    side >= r and comparing each point only with the points of its own and the adjacent cells (each pair once), in a
    numba kernel: O(N log N) overall.
    """
    return _generate_spec(GeneratorSpec("rgg", (scale,), weighted, seed), progress)


# ------------------------------------------------------------------------------------------------------ grid
def _build_grid(parsed: GeneratorSpec, name: str, bar: Task) -> Graph:
    """Build ``grid``'s graph from a parsed spec."""
    rows, cols, keep = int(parsed.params[0]), int(parsed.params[1]), float(parsed.params[2])
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    del ids
    rng = np.random.default_rng(parsed.seed)
    if keep < 1.0:
        kept = rng.random(src.size) < keep
        src, dst = src[kept], dst[kept]
        del kept  # not held through the build (estimate_bytes)
    w = _weights(rng, src.size) if parsed.weighted else None
    bar.update(description=f"building {name}")
    return Graph.from_edges(src, dst, w, num_vertices=rows * cols, directed=False, name=name)


def grid(
    rows: int, cols: int, keep: float = 1.0, *, weighted: bool = False, seed: int = 0, progress: bool | None = None
) -> Graph:
    """``grid:ROWS:COLS[:KEEP]``: a road-like lattice of ROWS x COLS vertices, vertex r*COLS + c at row r, column c,
    joined to its right and lower neighbours (the 4-neighbour grid, ``networkx.grid_2d_graph``), ROWS*(COLS-1) +
    (ROWS-1)*COLS edges; with KEEP < 1 each edge is kept independently with probability KEEP (bond percolation,
    Broadbent and Hammersley 1957).

    Models road networks and meshes (the DIMACS9 road graphs and DIMACS10 lattices): planar, degree <= 4, diameter about
    ROWS + COLS. KEEP below 0.5 (the bond-percolation threshold of the square lattice) shatters the grid into small
    components; KEEP around 0.8 gives a road-like network with dead ends and detours. Undirected.
    """
    return _generate_spec(GeneratorSpec("grid", (rows, cols, float(keep)), weighted, seed), progress)


def orient(graph: Graph, both: float = 0.5, *, seed: int = 5) -> Graph:
    """A directed graph from an undirected one: every edge {u, v} with u < v as the arc u -> v, and also as v -> u with
    probability `both` (seeded). From a grid, a directed high-diameter graph with many strongly connected components
    of every size (SCC's hard case: thousands of levels, no giant component to peel at once)."""
    if graph.directed:
        raise GraphError(f"orient takes an undirected graph, got the directed {graph.name or 'graph'}")
    if not 0.0 <= both <= 1.0:
        raise GraphError(f"both must be a probability from 0 to 1, got {both!r}")
    rows = np.repeat(np.arange(graph.num_vertices), graph.out_degree())
    up = rows < graph.indices
    src, dst = rows[up], graph.indices[up]
    back = np.random.default_rng(seed).random(src.size) < both
    return Graph.from_edges(np.concatenate([src, dst[back]]), np.concatenate([dst, src[back]]),
                            num_vertices=graph.num_vertices, directed=True, name=f"oriented {graph.name}")


_BUILDERS: dict[str, Callable[[GeneratorSpec, str, Task], Graph]] = {
    "kron": _build_kron,
    "rmat": _build_rmat,
    "er": _build_er,
    "rgg": _build_rgg,
    "grid": _build_grid,
}

"""Pieces shared by the algorithms: argument checks, labels 0..C-1, predecessors from distances, graph views."""

from __future__ import annotations

import numbers
import threading
from dataclasses import fields
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from ..engine.trace import Trace, TraceRow
from ..errors import GraphError
from ..frontier import one_vertex
from ..functor import Functor, cpu_functor
from ..graph.graph import Graph, described, shown
from ..operators import ACTIVATE, STOP


def resolve_source(graph: Any, source: Any, name: str = "source") -> int:
    """Internal index of one source vertex given in the user's ids (a whole number 0..V-1, or a label of a renumbered
    graph); a GraphError naming `name` and the value when it is not one vertex of the graph (None, a list, 1.5, True,
    a string on a graph of ids, an id out of range): "source=9 is out of range for 9 vertices (0..8)"."""
    n = graph.num_vertices
    if type(source) is int and graph.vertex_ids is None and 0 <= source < n:
        return source  # the common call, without the checks below
    if n == 0:
        raise GraphError(f"the graph has no vertices, so it has no source vertex ({name}={shown(source)})")
    if source is None:
        raise GraphError(f"{name}=None: a source vertex is required")
    if graph.vertex_ids is not None:
        index = graph.vertex_index(source, name)
        if not isinstance(index, (int, np.integer)):
            raise GraphError(f"{name} must be one vertex label, got {described(source)}")
        return int(index)
    value = source.item() if isinstance(source, np.ndarray) and source.ndim == 0 else source
    whole = isinstance(value, numbers.Integral) or isinstance(value, (float, np.floating)) and float(value).is_integer()
    if isinstance(value, (bool, np.bool_)) or not whole:
        raise GraphError(f"{name} must be one vertex id, a whole number from 0 to {n - 1}, got {described(source)}")
    if not 0 <= value < n:
        raise GraphError(f"{name}={shown(source)} is out of range for {n} vertices (0..{n - 1})")
    return int(value)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """`value` when it is one of the strings `choices` (a method, a layout), else a GraphError naming `name`, the
    value and the choices."""
    if not isinstance(value, str) or value not in choices:
        raise GraphError(f"{name} must be one of {', '.join(choices)}, got {shown(value)}")
    return value


def check_weight(weight: Any) -> str | None:
    """`weight` as NetworkX takes it: the name of the edge attribute that holds the weights, or None to ignore them
    (every arc counts 1). The name picks the attribute of a NetworkX graph or the column of a table when one is
    converted (graph.convert.as_graph); a Graph holds one weight array, which any name means. A GraphError names
    anything else (NetworkX's callables included: a Graph has no per-edge attributes to call one on)."""
    if weight is not None and not isinstance(weight, str):
        raise GraphError(f"weight must be the name of an edge attribute (a string) or None to ignore the weights, got "
                         f"{described(weight)}")
    return weight


_UNWEIGHTED: WeakKeyDictionary = WeakKeyDictionary()


def unweighted_view(graph: Graph) -> Graph:
    """`graph` without its weights (``weight=None``: every arc counts 1, as in NetworkX), sharing its CSR arrays and
    labels; the graph itself when it has no weights. Made once per graph and kept while the graph lives, so its device
    copies (one more copy of the structure on the GPU) are made once too."""
    if not graph.weighted:
        return graph
    view = _UNWEIGHTED.get(graph)
    if view is None:
        view = _UNWEIGHTED[graph] = Graph(graph.offsets, graph.indices, None, directed=graph.directed,
                                          vertex_ids=graph.vertex_ids, counts=graph.counts, name=graph.name)
    return view


def append_trace(trace: Trace, rows: Trace, phase: str, notes: Any = None) -> None:
    """Copy the rows of another run's trace (a sub-computation: an SSSP inside BC, a solve inside PageRank) into
    `trace`, each labelled `phase`; `notes`: a text per row, added to its reason (rows past the notes are not
    copied)."""
    names = [f.name for f in fields(TraceRow) if f.name not in ("iteration", "phase", "reason")]
    for row, note in zip(rows, notes) if notes is not None else ((row, "") for row in rows):
        trace.add(**{name: getattr(row, name) for name in names}, reason=row.reason + note, phase=phase)


def check_non_negative_weights(graph: Any, algorithm: str) -> None:
    """GraphError naming the most negative arc (its ends in the user's ids) where `algorithm` needs weights >= 0;
    one pass over the weights per graph (Graph.lightest_arc)."""
    k, lightest = graph.lightest_arc()
    if lightest < 0:
        u = int(np.searchsorted(graph.offsets, k, side="right")) - 1
        src, dst = graph.vertex_labels(np.array([u, int(graph.indices[k])])).tolist()
        raise GraphError(f"{algorithm} needs non-negative weights: arc {src} -> {dst} has weight {lightest!r}")


def run_on_host_once(functor: Functor, state: tuple, num_vertices: int) -> None:
    """Run a whole-graph serial functor once (Multistep's serial step: Tarjan, Afforest's serial link) as one numba
    task through the CPU backend's for_each_vertex on a one-vertex frontier. Its state lives on the host."""
    from ..backends import get_backend
    from ..frontier import Frontier

    one = Frontier.from_vertices(np.zeros(1, dtype=np.int64), num_vertices)
    get_backend("cpu").for_each_vertex(one, functor, state)


# ------------------------------------------------------------------------------ numbering components by their roots
# Where every label is its component's smallest vertex (a root labels itself), the component of root r is numbered by
# how many roots lie below r: a prefix count of the roots, as four whole-set steps (`numbering_steps`), so that it
# runs inside one step launch (Afforest's own, on the GPU) rather than as a scan library call and its launches:
#   ROOT_WORDS    per vertex, over 32 x the words: each word's roots' bits and their count in prefix[w] (a warp's
#                 ballot on the GPU: the count is a multiple of 32, so every lane of a warp takes part; on the CPU the
#                 word's first vertex does the word)
#   CHUNK_SUMS    per chunk of sizes[2] words: the chunk's count (one warp per chunk on the GPU: index = 32 c + lane)
#   CHUNK_PREFIX  per chunk: the chunks before it summed, then prefix[w] made exclusive within the chunk (one warp
#                 per chunk, a shuffle scan per 32 words; on the CPU lane 0 does the chunk alone)
#   ROOT_NUMBER   per vertex: its root's word prefix plus the roots below the root in its word
# A chunk spans at least MIN_CHUNK_WORDS words and enough that there are at most twice as many chunks as words in a
# chunk, so both the chunk's own scan and the sum over the chunks before it stay short (numbering_steps).
MIN_CHUNK_WORDS = 256
NUMBERING_STEPS = 4  # the steps numbering_steps returns
NUMBER_STATE = ("label", "bits", "prefix", "chunk", "number", "sizes")  # sizes: the vertices, words, words per chunk


@cpu_functor
def _root_words(v, state):  # pragma: no cover - numba
    if v % 32:
        return
    label, bits, prefix = state[0], state[1], state[2]
    n = label.shape[0]
    word = 0
    for i in range(32):
        u = v + i
        if u < n and label[u] == u:
            word |= 1 << i
    bits[v // 32] = word
    count = 0
    while word:
        word &= word - 1
        count += 1
    prefix[v // 32] = count


@cpu_functor
def _chunk_sums(v, state):  # pragma: no cover - numba
    if v % 32:
        return
    prefix, chunk, size = state[2], state[3], state[5][2]
    c = v // 32
    total = 0
    for w in range(c * size, min((c + 1) * size, prefix.shape[0])):
        total += prefix[w]
    chunk[c] = total


@cpu_functor
def _chunk_prefix(v, state):  # pragma: no cover - numba
    if v % 32:
        return
    prefix, chunk, size = state[2], state[3], state[5][2]
    c = v // 32
    base = 0
    for j in range(c):
        base += chunk[j]
    for w in range(c * size, min((c + 1) * size, prefix.shape[0])):
        count = prefix[w]
        prefix[w] = base
        base += count


@cpu_functor
def _root_number(v, state):  # pragma: no cover - numba
    r = state[0][v]
    below = state[1][r >> 5] & ((1 << (r & 31)) - 1)
    count = 0
    while below:
        below &= below - 1
        count += 1
    state[4][v] = state[2][r >> 5] + count


_CHUNK = "const int lane = v & 31;\nconst long long c = v >> 5, first = c * sizes[2], end = min(first + sizes[2], sizes[1]);\n"
_WARP_SUM = "for (int o = 16; o > 0; o >>= 1) total += __shfl_xor_sync(0xffffffffu, total, o);\n"
ROOT_WORDS = Functor(
    "root_words", _root_words,
    "const unsigned word = __ballot_sync(0xffffffffu, v < sizes[0] && label[v] == v);\n"
    "if ((v & 31) == 0) { bits[v >> 5] = word; prefix[v >> 5] = __popc(word); }",
    state=NUMBER_STATE,
)
CHUNK_SUMS = Functor(
    "chunk_sums", _chunk_sums,
    _CHUNK + "long long total = 0;\n"
    "for (long long w = first + lane; w < end; w += 32) total += prefix[w];\n"
    + _WARP_SUM + "if (lane == 0) chunk[c] = total;",
    state=NUMBER_STATE,
)
CHUNK_PREFIX = Functor(
    "chunk_prefix", _chunk_prefix,
    _CHUNK + "long long total = 0;\n"
    "for (long long j = lane; j < c; j += 32) total += chunk[j];\n"
    + _WARP_SUM + "long long base = total;\n"
    "for (long long w0 = first; w0 < end; w0 += 32) {\n"
    "  const long long w = w0 + lane, x = w < end ? prefix[w] : 0;\n"
    "  long long inclusive = x;\n"
    "  for (int o = 1; o < 32; o <<= 1) {\n"
    "    const long long y = __shfl_up_sync(0xffffffffu, inclusive, o);\n"
    "    if (lane >= o) inclusive += y;\n"
    "  }\n"
    "  if (w < end) prefix[w] = base + inclusive - x;\n"
    "  base += __shfl_sync(0xffffffffu, inclusive, 31);\n"
    "}",
    state=NUMBER_STATE,
)
ROOT_NUMBER = Functor(
    "root_number", _root_number,
    "const long long r = label[v];\n"
    "number[v] = prefix[r >> 5] + __popc((unsigned)bits[r >> 5] & ((1u << (r & 31)) - 1u));",
    state=NUMBER_STATE,
)
NUMBER_DTYPES = (np.int64, np.int64, np.int64, np.int64, np.int64)  # bits, prefix, chunk, number, sizes
# (id of the backend, n, thread) -> (backend, the scratch's three parts, the sizes on the backend, words, lanes)
_NUMBER_SCRATCH: dict[tuple[int, int, int], tuple] = {}


def numbering_steps(backend: Any, labels: Any, number: Any = None) -> tuple[list[tuple[Any, tuple, int]], Any]:
    """(steps, number): the `run_steps` steps that number each vertex's component by its root (every label its
    component's smallest vertex; see the notes above), and the int64 array they fill. The steps may follow others in
    one run (Afforest's). A call allocates only its result (unless given `number`): the scratch (the words' bits,
    their prefix, the chunks' counts) and the sizes, which the steps only read, are kept on the backend per vertex
    count and host thread (one thread's runs follow each other, and no run's result is in the scratch), so a call
    makes no other allocation, view or copy, each host time while the GPU waits
    (docs/performance.md#host-time-of-a-call)."""
    n = int(labels.size)
    key = (id(backend), n, threading.get_ident())
    kept = _NUMBER_SCRATCH.get(key)
    if kept is None or kept[0] is not backend:
        if len(_NUMBER_SCRATCH) >= 16:
            _NUMBER_SCRATCH.clear()
        words = (n + 31) // 32
        size = MIN_CHUNK_WORDS
        while 2 * size * size < words:
            size *= 2
        chunks = (words + size - 1) // size
        scratch = backend.xp.empty(2 * words + chunks, dtype=np.int64)
        sizes = backend.asarray(np.array([n, words, size], dtype=np.int64))
        parts = (scratch[:words], scratch[words:2 * words], scratch[2 * words:])
        kept = _NUMBER_SCRATCH[key] = (backend, parts, sizes, words, 32 * chunks)
    _, (bits, prefix, chunk), sizes, words, lanes = kept
    if number is None:
        number = backend.xp.empty(n, dtype=np.int64)
    state = (labels, bits, prefix, chunk, number, sizes)
    return [(ROOT_WORDS, state, 32 * words), (CHUNK_SUMS, state, lanes), (CHUNK_PREFIX, state, lanes),
            (ROOT_NUMBER, state, n)], number


def numbered_components(backend: Any, labels: Any) -> tuple[Any, Any]:
    """(number, check): components numbered 0..C-1 in order of their smallest vertex where every label (an integer
    array on `backend`) is its component's smallest vertex, by `numbering_steps` in one `run_steps` (one launch on
    the GPU, nothing read back); `check` raises where that run failed."""
    if labels.size == 0:
        return labels.astype(np.int64), lambda: None
    steps, number = numbering_steps(backend, labels)
    return number, backend.run_steps(steps).check


def canonical_labels(labels: Any, roots: bool = False) -> Any:
    """Renumber component labels to 0..C-1 in order of each component's smallest vertex, on the labels' device
    (NumPy or CuPy: a GPU run keeps its labels on the GPU). ``roots=True``: the caller guarantees that every label is
    its component's smallest vertex (union-find roots after a compress, min-label propagation), so the one linear
    pass runs without the check (a host read); an algorithm with its backend at hand calls `numbered_components`."""
    from ..frontier import _array_module

    xp = _array_module(labels)
    labels = xp.asarray(labels)
    if labels.size == 0:
        return labels.astype(np.int64)
    ids = xp.arange(labels.size)
    if labels.dtype.kind in "iu" and (roots or _labels_are_roots(xp, labels, ids)):
        # every label is its component's smallest vertex (union-find roots, min-label propagation): one linear pass
        rank = xp.cumsum(labels == ids) - 1
        return rank[labels].astype(np.int64)
    _, first, inverse = xp.unique(labels, return_index=True, return_inverse=True)
    order = xp.argsort(first)  # first occurrences are distinct: any sort is stable here
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.size)
    return rank[inverse.ravel()].astype(np.int64)


def _labels_are_roots(xp: Any, labels: Any, ids: Any) -> bool:
    """Whether every label is a vertex id no larger than its vertex and labels itself (a root); one host read."""
    inside = (labels >= 0) & (labels <= ids)  # labels <= ids < size
    root_of_root = labels[xp.where(inside, labels, 0)] == labels
    return bool(xp.all(inside & root_of_root))


@cpu_functor
def _parent_candidate(v, state):  # pragma: no cover - numba
    # state: (dist, pred, source[1], unit[1]); indexed in place (unpacking costs reference counting per call)
    if v == state[2][0] or not state[0][v] < np.inf:
        return False
    if state[3][0] and state[0][v] == 1.0:  # one hop: the source is the parent, no scan (hubs' neighbours)
        state[1][v] = state[2][0]
        return False
    return True


@cpu_functor
def _parent(v, u, w, state):  # pragma: no cover - numba
    if state[0][u] + (1.0 if state[3][0] else w) == state[0][v]:
        state[1][v] = u
        return ACTIVATE | STOP
    return 0


PARENT_CANDIDATE = Functor(
    "parent_candidate", _parent_candidate,
    "if (v == s2[0] || !(s0[v] < GG_INF)) return false; if (s3[0] && s0[v] == 1.0) { s1[v] = s2[0]; return false; } "
    "return true;",
)
PARENT = Functor(
    "parent", _parent,
    "if (s0[u] + (s3[0] ? 1.0 : (double)w) == s0[v]) {"
    " atomicMin((unsigned long long*)(s1 + v), (unsigned long long)u); return GG_ACTIVATE | GG_STOP; } return 0;",
)


def predecessors_from_distances(backend: Any, G: Any, strategy: Any, dist: Any, source: int, unit_weights: bool) -> Any:
    """pred[v] = the smallest-id in-neighbour u with dist[u] + w(u, v) == dist[v] (a shortest-path tree), -1 for the
    source and unreachable vertices; ``unit_weights`` counts every edge as 1 (BFS hops on a weighted graph). One pull
    pass over the CSC: each vertex writes only its own entry, and where several lanes scan one row at once (a GPU warp
    gathering a long row) the CUDA functor keeps the smallest id by an atomic min (-1 is the largest unsigned value)."""
    xp = backend.xp
    pred = xp.full(G.num_vertices, -1, dtype=np.int64)
    state = (dist, pred, one_vertex(xp, source), one_vertex(xp, unit_weights, np.bool_))
    backend.pull(G, None, PARENT, strategy, state, PARENT_CANDIDATE)
    return pred


@cpu_functor
def _apply_smaller(value, buffer, degree, params):  # pragma: no cover - numba
    if buffer < value:
        return buffer, buffer, buffer, True
    return value, buffer, value, False


# compute() of the min-accumulating vertex programs (BFS, label propagation): a smaller buffer becomes the value and
# is sent on; the message is always the value, so async pull may re-read it.
APPLY_SMALLER = Functor(
    "apply_smaller", _apply_smaller, "if (buffer < value) { value = buffer; message = value; send = true; }"
)

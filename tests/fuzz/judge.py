"""The outcome of one case: `gg.load` and the reference read the same bytes, and their answers are compared.

| outcome             | meaning                                                                                       |
|---------------------|-----------------------------------------------------------------------------------------------|
| equal               | both give a graph, and the graphs are equal (vertices, direction, offsets, indices, weights)  |
| both_refuse         | graphgear raised a GraphgearError and the reference refused                                   |
| memory_refused      | graphgear raised HostMemoryError where the reference reads a graph of more than 2**22 vertices |
|                     | (or the machine itself had less memory available than the limit, three tries 2 s apart)       |
| disagree            | different graphs, or one accepts what the other refuses                                       |
| foreign_exception   | graphgear raised an exception that is not a GraphgearError                                    |
| crash / hang        | the worker process died / gave no answer in time (set by the runner)                          |
| reference_bug       | the reference itself raised something other than ReferenceFormatError (a bug here)            |

A reference graph of more than `LARGE_VERTICES` vertices is never built: graphgear may refuse it for memory (the
workers run with GRAPHGEAR_MEMORY_LIMIT=512M, against which such a CSR and its build are large), and when graphgear
builds it anyway its arcs are compared with the reference's without an offsets array.
"""

from __future__ import annotations

import os
import re
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import reference_formats as ref

from .cases import Case

OUTCOMES = ("equal", "both_refuse", "memory_refused", "disagree", "foreign_exception", "crash", "hang", "reference_bug")
FAILURES = ("disagree", "foreign_exception", "crash", "hang", "reference_bug")
LARGE_VERTICES = 1 << 22
SHORT_MEMORY_RETRIES, SHORT_MEMORY_PAUSE = 3, 2.0


@dataclass
class Verdict:
    outcome: str
    reason: str = ""


def _scan_module():
    try:
        from graphgear.graph.io import scan
    except ImportError:
        return None
    return scan


def load_with_graphgear(case: Case, path: Path):
    """(graph, None) or (None, exception) from ``gg.load(path, cache=False, renumber=False)`` under the case's chunk
    size. The reference reads the id range docs/formats.md's grammar gives; renumbering an edge list's gaps (load's
    default since issue 22) is a step after the parse, tested in tests/test_io.py."""
    import graphgear as gg

    scan = _scan_module()
    default = getattr(scan, "CHUNK_BYTES", None) if scan is not None else None
    try:
        if case.chunk_bytes and default is not None:
            scan.CHUNK_BYTES = case.chunk_bytes
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return gg.load(str(path), cache=False, renumber=False), None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - every exception is an answer here
        return None, exc
    finally:
        if default is not None:
            scan.CHUNK_BYTES = default


def judge(case: Case, workdir: Path) -> Verdict:
    """Write the case's file under `workdir`, load it with graphgear and the reference, and classify."""
    from graphgear.errors import GraphgearError, HostMemoryError

    path = workdir / case.name
    path.write_bytes(case.data)
    try:
        graph, error = load_with_graphgear(case, path)
        for _ in range(SHORT_MEMORY_RETRIES):  # another process took the memory for a moment: wait and load again
            if not (isinstance(error, HostMemoryError) and _machine_short()):
                break
            time.sleep(SHORT_MEMORY_PAUSE)
            graph, error = load_with_graphgear(case, path)
    finally:
        path.unlink(missing_ok=True)
    boundary = None  # the reading where a weight at float32's overflow boundary is the largest float32
    try:
        expected, refusal = ref.read(case.data, case.name), None
    except ref.OverflowBoundaryError as exc:
        expected, refusal = None, exc
        try:
            boundary = ref.read(case.data, case.name, lenient=True)
        except ref.ReferenceFormatError:
            pass
    except ref.ReferenceFormatError as exc:
        expected, refusal = None, exc
    except Exception as exc:  # noqa: BLE001
        return Verdict("reference_bug", _describe(exc, path, case))
    if error is not None and not isinstance(error, GraphgearError):
        return Verdict("foreign_exception", _describe(error, path, case))
    if expected is None:
        if error is not None:
            return Verdict("both_refuse", _describe(error, path, case))
        if boundary is not None and compare(boundary, graph, boundary.num_vertices > LARGE_VERTICES) is None:
            return Verdict("equal", "a weight at float32's overflow boundary read as the largest float32 (allowed)")
        return Verdict("disagree", f"graphgear accepts ({_shape(graph)}), the reference refuses: {refusal}")
    large = expected.num_vertices > LARGE_VERTICES
    if error is not None:
        if large and isinstance(error, HostMemoryError):
            return Verdict("memory_refused", f"V={expected.num_vertices}")
        if isinstance(error, HostMemoryError) and _machine_short():
            return Verdict("memory_refused", f"the machine itself is short of memory: {_describe(error, path, case)}")
        if expected.may_overflow and not isinstance(error, HostMemoryError):
            return Verdict("both_refuse", f"allowed: a weight one ulp from float32 overflow; {_describe(error, path, case)}")
        return Verdict("disagree", f"graphgear refuses ({_describe(error, path, case)}), the reference reads "
                                   f"V={expected.num_vertices} records={expected.num_records}")
    difference = compare(expected, graph, large)
    return Verdict("disagree", difference) if difference else Verdict("equal")


def compare(expected: ref.ReferenceGraph, g, large: bool = False) -> str | None:
    """None when graphgear's graph `g` is the one the reference's records make, else what differs first."""
    if g.num_vertices != expected.num_vertices:
        return f"num_vertices: graphgear {g.num_vertices}, reference {expected.num_vertices}"
    if g.directed != expected.directed:
        return f"directed: graphgear {g.directed}, reference {expected.directed}"
    if large:
        return _compare_sparse(expected, g)
    want = ref.expected_graph(expected)
    if not np.array_equal(g.offsets, want.offsets):
        return f"offsets differ (arcs: graphgear {g.offsets[-1]}, reference {want.offsets[-1]})"
    if not np.array_equal(g.indices, want.indices):
        k = int(np.argmax(g.indices != want.indices))
        return f"indices differ first at arc {k}: graphgear {g.indices[k]}, reference {want.indices[k]}"
    return _compare_weights(g.weights, want.weights, expected)


def _compare_weights(got, want, expected: ref.ReferenceGraph) -> str | None:
    if (got is None) != (want is None):
        return f"weighted: graphgear {got is not None}, reference {want is not None}"
    if got is None or np.array_equal(got, want):
        return None
    if expected.weights_low is not None:  # a decimal outside the exact range may be one float64 ulp off
        low = ref.expected_graph(expected, "low").weights
        high = ref.expected_graph(expected, "high").weights
        if np.all((got == want) | ((got >= low) & (got <= high))):
            return None
    k = int(np.argmax(~((got == want) | (np.isnan(got) & np.isnan(want)))))
    return f"weights differ first at arc {k}: graphgear {got[k]!r}, reference {want[k]!r}"


def _compare_sparse(expected: ref.ReferenceGraph, g) -> str | None:
    """Arcs of a graph too large to build twice: the reference's records renumbered densely, built, mapped back."""
    from graphgear import Graph

    ids = np.unique(np.concatenate([expected.src, expected.dst]))
    small = Graph.from_edges(np.searchsorted(ids, expected.src), np.searchsorted(ids, expected.dst), expected.weights,
                             num_vertices=ids.size, directed=expected.directed)
    want_rows = ids[np.repeat(np.arange(ids.size), np.diff(small.offsets))]
    want_cols = ids[small.indices.astype(np.int64)]
    rows = np.repeat(np.arange(g.num_vertices, dtype=np.int64), np.diff(g.offsets))
    if not (np.array_equal(rows, want_rows) and np.array_equal(g.indices.astype(np.int64), want_cols)):
        return f"arcs differ (graphgear {rows.size}, reference {want_rows.size}) in a graph of {g.num_vertices} vertices"
    return _compare_weights(g.weights, small.weights, expected)


def _machine_short() -> bool:
    """Whether this machine has less memory available than GRAPHGEAR_MEMORY_LIMIT: then a refusal for memory is right
    whatever the file (other sessions share the machine)."""
    from graphgear import memory

    cap = os.environ.get(memory.LIMIT_ENV)
    if not cap:
        return False
    os.environ.pop(memory.LIMIT_ENV)
    try:
        room = memory.available_bytes()
    finally:
        os.environ[memory.LIMIT_ENV] = cap
    return room is not None and room < memory.parse_size(cap)


def _shape(g) -> str:
    return f"V={g.num_vertices} arcs={g.indices.size} directed={g.directed} weighted={g.weights is not None}"


def _describe(exc: BaseException, path: Path, case: Case) -> str:
    """``Type: message [at file:line]``, one line, the scratch path replaced by the file's name."""
    message = " ".join(str(exc).split()).replace(str(path), case.name).replace(str(path.parent) + os.sep, "")
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" [at {_short(last.filename)}:{last.lineno}]"
    return f"{type(exc).__name__}: {message[:300]}{where}"


def _short(filename: str) -> str:
    match = re.search(r"(graphgear/.*|numpy/.*|scipy/.*|numba/.*|reference_formats\.py|fuzz/.*)$", filename)
    return match.group(1) if match else Path(filename).name


_NORMALIZE = [
    (re.compile(r"[\w.]*\.(?:el|txt|csv|tsv|wel|edges|gr|graph|mtx|npz)(?:\.gz)?\b"), "FILE"),
    (re.compile(r"\((V=[^)]*)\)"), "(…)"), (re.compile(r"dtype \w+"), "dtype T"), (re.compile(r"0x[0-9a-fA-F]+"), "0xN"),
    (re.compile(r"'[^']*'|\"[^\"]*\""), "'…'"), (re.compile(r"\b\d+(\.\d+)?\b"), "N"),
]
_FOREIGN = re.compile(r"(\w+):.*(\[at [^\]]*\])$")


def signature(outcome: str, reason: str) -> str:
    """What cases that fail the same way share: for an exception its type and where it was raised, else the reason
    with numbers, quoted text, dtypes and graph shapes blanked."""
    match = _FOREIGN.match(reason) if outcome == "foreign_exception" else None
    if match:
        return f"{outcome}: {match.group(1)} {match.group(2)}"
    text = reason
    for pattern, replacement in _NORMALIZE:
        text = pattern.sub(replacement, text)
    return f"{outcome}: {text[:200]}"

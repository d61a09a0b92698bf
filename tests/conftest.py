"""Shared test fixtures: an isolated cache folder, the real graphs of ../shared/graphs, the gpu mark, and the backends
an algorithm test runs on (`backend`, `on_backends`)."""

from __future__ import annotations

import os
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import strategies as st

import graphgear as gg
from graphgear.algorithms import betweenness
from graphgear.backends.base import Capabilities
from graphgear.backends.cpu import CpuBackend
from graphgear.engine.strategy import Strategy
from graphgear.engine.trace import Trace

REPO = Path(__file__).resolve().parents[1]
SHARED_GRAPHS = Path(os.environ.get("GRAPHGEAR_SHARED_GRAPHS", REPO.parent / "shared" / "graphs"))

# The ten real graphs and their expected counts (../shared/graphs/README.md): V, E, directed, weighted, max degree, WCC,
# as gg.load reads them by default. wiki-Vote's ids have gaps its header does not declare: since issue 22 the default
# renumbers it to its 7,115 distinct ids (the README's 8,298 vertices and 1,207 WCC, 1,183 of them isolated ids, are
# renumber=False's; tests/test_io.py checks both).
REAL_GRAPHS = {
    "road/luxembourg_osm.mtx": (114_599, 119_666, False, False, 6, 1),
    "road/malta_osm.gr.gz": (34_714, 43_468, False, True, 6, 440),
    "mesh/delaunay_n15.graph": (32_768, 98_274, False, False, 18, 1),
    "mesh/rgg_n_2_15_s0.graph": (32_768, 160_240, False, False, 24, 6),
    "mesh/wing.graph": (62_032, 121_544, False, False, 4, 1),
    "social/email-Enron.txt.gz": (36_692, 183_831, False, False, 1_383, 1_065),
    "social/facebook_combined.txt.gz": (4_039, 88_234, False, False, 1_045, 1),
    "social/wiki-Vote.txt": (7_115, 103_689, True, False, 893, 24),
    "citation/cit-HepTh.txt.gz": (27_770, 352_768, True, False, 562, 143),
    "internet/as-caida20071105.txt.gz": (26_475, 53_381, False, False, 2_628, 1),
}


# The 8 execution paths the CPU backend runs (sync|async x push|pull x data|topology), as strategy strings; pull and
# topology-driven paths keep a dense frontier.
CPU_PATHS = [
    f"sync={sync},direction={direction},drive={drive},"
    f"frontier={'bitmap' if direction == 'pull' or drive == 'topology' else 'vertex_queue'}"
    for sync in ("sync", "async")
    for direction in ("push", "pull")
    for drive in ("data", "topology")
]


# A user-defined vertex program that graphgear does not ship: widest path (maximum bottleneck capacity from a source).
@numba.njit
def _widest_compute(value, buffer, degree, params):
    if buffer > value:
        return buffer, buffer, buffer, True
    return value, buffer, value, False


@numba.njit
def _widest_edge(message, weight, params):
    return min(message, weight)


@numba.njit
def _never(value, params):
    return False


WIDEST_PATH = gg.VertexProgram(
    name="widest_path", kind="traversal", accumulate="max",
    compute=gg.Functor("widest_compute", _widest_compute,
                       "if (buffer > value) { value = buffer; message = value; send = true; }"),
    edge=gg.Functor("widest_edge", _widest_edge, "return fmin(message, (double)weight);"),
    settled=gg.Functor("never", _never, "return false;"),
    monotone=True,
)


def widest_reference(g, source: int) -> np.ndarray:
    """Bottleneck widths by max-min relaxation over all arcs until nothing changes (an independent reference)."""
    rows = np.repeat(np.arange(g.num_vertices), g.out_degree())
    width = np.full(g.num_vertices, -np.inf)
    width[source] = np.inf
    while True:
        new = width.copy()
        np.maximum.at(new, g.indices, np.minimum(width[rows], g.weights))
        if np.array_equal(new, width):
            return width
        width = new


# The backends an algorithm's reference checks run on: each result is compared with SciPy / NetworkX / a verifier on
# the CPU and on the GPU alike. The "cuda" case is marked gpu: it skips itself without CuPy and an NVIDIA GPU, and
# `pytest -m gpu` selects it.
BACKENDS = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@pytest.fixture(params=BACKENDS)
def backend(request) -> str:
    """The backend a test runs on: "cpu", then "cuda" (marked gpu). A test takes it as an argument."""
    return request.param


def on_backends(values, cuda=None, ids=str) -> list:
    """`pytest.mark.parametrize("backend,NAME", on_backends(values, cuda))`: every value on "cpu", and the values of
    `cuda` (all of them when None) on "cuda", marked gpu, where the GPU case should cover only part of the CPU's;
    each case's id is its backend and ids(value)."""
    values = list(values)
    return ([pytest.param("cpu", value, id=f"cpu-{ids(value)}") for value in values]
            + [pytest.param("cuda", value, marks=pytest.mark.gpu, id=f"cuda-{ids(value)}")
               for value in (values if cuda is None else cuda)])


def real_graph(name: str) -> Path:
    """Path of a real graph, or skip the test where ../shared/graphs is not present."""
    path = SHARED_GRAPHS / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    return path


def set_cuda_knobs(monkeypatch, **knobs):
    """Set attributes of the CUDA backend for one test (each back to its value when the test ends, pass or fail);
    returns the backend. The one way tests turn a backend knob."""
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    for name, value in knobs.items():  # a declared capability (fused_power, light_heavy) is switched where it lives
        monkeypatch.setattr(be.capabilities if hasattr(be.capabilities, name) else be, name, value)
    return be


@pytest.fixture
def supplementary_hubs(monkeypatch):
    """Small graphs: let the CUDA backend's supplementary queues take vertices of degree > 64 (the default threshold
    is half the GPU's resident threads, which no test graph reaches)."""
    return set_cuda_knobs(monkeypatch, supplementary_threshold=64)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test writes binary caches to its own temporary folder, never to ~/.cache."""
    monkeypatch.setenv("GRAPHGEAR_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def pytest_collection_modifyitems(config, items):
    """Tests marked `gpu` skip themselves where CuPy or an NVIDIA GPU is missing (CI, this machine)."""
    from graphgear.backends import cuda_available

    if cuda_available():
        return
    skip = pytest.mark.skip(reason="needs CuPy and an NVIDIA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@st.composite
def edge_records(draw, max_vertices: int = 28):
    """Small graphs as records: possibly empty, isolated vertices, self-loops and repeated records, directed or not,
    maybe weighted, with the build keeping or dropping loops and duplicates.
    Returns (n, src, dst, weights, directed, self_loops policy, duplicates policy)."""
    n = draw(st.integers(0, max_vertices))
    m = 0 if n == 0 else draw(st.integers(0, 2 * n + 4))
    ids = st.integers(0, max(n - 1, 0))
    src = draw(st.lists(ids, min_size=m, max_size=m))
    dst = draw(st.lists(ids, min_size=m, max_size=m))
    weights = draw(st.none() | st.lists(st.integers(1, 9), min_size=m, max_size=m))
    directed = draw(st.booleans())
    loops = draw(st.sampled_from(["drop", "keep"]))
    dups = draw(st.sampled_from(["drop", "keep"]))
    return n, src, dst, weights, directed, loops, dups


def assert_multistep_trace(trace, num_vertices: int) -> None:
    """The trace of a label program run as Multistep runs it (algorithms/multistep.py): first the BFS from one pivot
    (phase "pivot", one vertex to start), then the program from every vertex (phase "propagate"; those the BFS
    reached have nothing to send), in that order."""
    rows = trace.rows
    assert (rows[0].phase, rows[0].frontier_vertices) == ("pivot", 1)
    propagate = [row for row in rows if row.phase == "propagate"]
    assert propagate[0].frontier_vertices == num_vertices
    assert [row.phase for row in rows] == ["pivot"] * (len(rows) - len(propagate)) + ["propagate"] * len(propagate)


def band_graph(n: int, width: int = 4) -> gg.Graph:
    """Vertices 0..n-1, each joined to the next `width`: |E|/|V| about 2 * width (SEP-Graph's delta test calls it
    low-diameter from 3 on), some n / (2 * width) levels or more from any vertex, no hubs."""
    src = [i for i in range(n) for j in range(1, width + 1) if i + j < n]
    dst = [i + j for i in range(n) for j in range(1, width + 1) if i + j < n]
    return gg.Graph.from_edges(np.array(src), np.array(dst), num_vertices=n, directed=False)


class _DeviceLoopRun:
    """What StandInDeviceLoop.brandes returns: the device log's rows (a start and one forward level per source) and
    its overflow flag."""

    expansion = "thread"

    def __init__(self, sources, overflowed=False):
        self.rows = [row for s in sources for row in (("start", s, 0, 0, 0.0), ("forward", 0, 1, 8, 0.0))]
        self._overflowed = overflowed

    def overflowed(self):
        return self._overflowed

    def levels(self):
        return self.rows

    def check(self):
        pass

    def unlogged(self):
        return 0

    def seconds(self):
        return 0.0


class StandInDeviceLoop(CpuBackend):
    """The CPU backend with a stand-in for Brandes' device loop (capabilities.brandes_loop): the sources it is given
    run level by level on the CPU, and its calls are counted (self.calls)."""

    capabilities = Capabilities(async_order="levels", brandes_loop=True)

    def __init__(self):
        super().__init__()
        self.calls = []

    def brandes(self, G, sources, bc, endpoint):
        self.calls.append(list(sources))
        n = G.num_vertices
        xp = self.xp
        arrays = (xp.full(n, -1, dtype=np.int32), *(xp.zeros(n) for _ in range(3)), bc, xp.zeros(1, np.int32),
                  xp.asarray([1.0 if endpoint else 0.0]))
        for s in sources:
            reached = betweenness._single_source(self, G, G.graph, s, arrays, Trace(), Strategy())
            if endpoint:
                bc[s] += reached - 1
        return _DeviceLoopRun(sources, overflowed=not bool(np.isfinite(bc).all()))  # as the kernel flags it

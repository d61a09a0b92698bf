"""The CUDA backend: every load-balancing, frontier and synchronisation choice gives the CPU backend's answer.

Marked `gpu`: skipped without CuPy and an NVIDIA GPU. Run on the device with `python3 -m pytest -m gpu`.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from conftest import REAL_GRAPHS, WIDEST_PATH, real_graph, set_cuda_knobs

import graphgear as gg
from graphgear.engine.strategy import Strategy
from graphgear.frontier import Frontier
from graphgear.functor import Functor

pytestmark = pytest.mark.gpu

BALANCERS = [dict(balance="vertex_group", group_size=g) for g in (1, 4, 16, 32)] + [
    dict(balance=b) for b in ("twc", "warp_scan", "merge_path", "three_stage", "block_scan", "hierarchical")
]
PUSH_STRATEGIES = (
    [Strategy(**b) for b in BALANCERS]
    + [Strategy(balance="vertex_group", group_size=4, supports=frozenset({"warp_gather", "block_gather"}))]
    + [Strategy(balance="vertex_group", group_size=1, supports=frozenset({"supplementary_queues"}))]
    + [Strategy(balance="warp_scan", dedup=d) for d in ("atomic", "warp_hash", "block")]
    + [Strategy(balance="vertex_group", group_size=1, frontier="edge_queue", dedup=d) for d in ("none", "warp_hash", "block", "lookup")]
    + [Strategy(balance="merge_path", frontier="edge_queue", dedup="lookup")]
    + [Strategy(lookup="bitmask"), Strategy(lookup="bitmask", balance="three_stage")]
    + [Strategy(frontier="two_phase", **b) for b in BALANCERS]  # Busato & Bombieri's two-phase queue
    + [Strategy(frontier="two_phase", balance="vertex_group", group_size=4,
                supports=frozenset({"warp_gather", "block_gather", "supplementary_queues"}))]
    + [Strategy(frontier="bitmap"), Strategy(drive="topology", frontier="boolmap"), Strategy(sync="async")]
    + [Strategy(sync="async", drive="topology", frontier="bitmap")]  # SEP-Graph's async TD, in the persistent kernel
)
PULL_STRATEGIES = [Strategy(direction="pull", frontier="bitmap", balance="vertex_group", group_size=g) for g in (1, 4, 16, 32)] + [
    Strategy(direction="pull", frontier="bitmap", drive="topology"), Strategy(direction="pull", frontier="bitmap", sync="async"),
    Strategy(direction="pull", frontier="bitmap", sync="async", drive="topology"),
]
GRAPHS = ["kron:12", "rmat:11:8", "grid:40:50:0.8", "rgg:11", "er:3000:6"]


def same_bfs(g, source, strategy):
    label = g.vertex_labels(source).item()  # the source's label: since issue 22 wiki-Vote loads renumbered
    cpu = gg.bfs(g, label, backend="cpu", strategy=strategy)
    gpu = gg.bfs(g, label, backend="cuda", strategy=strategy)
    np.testing.assert_array_equal(gpu.distances, cpu.distances)
    dist, pred = gpu.distances, gpu.predecessors
    reached = dist > 0
    assert pred[source] == -1 and np.all(pred[~reached] == -1)
    v = np.flatnonzero(reached)
    assert np.all(dist[pred[v]] == dist[v] - 1)


@pytest.mark.parametrize("strategy", PUSH_STRATEGIES + PULL_STRATEGIES, ids=str)
@pytest.mark.parametrize("spec", GRAPHS)
@pytest.mark.usefixtures("supplementary_hubs")
def test_bfs_every_strategy(spec, strategy):
    g = gg.load(spec)
    same_bfs(g, int(np.argmax(g.out_degree())), strategy)


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_bfs_real_graphs_auto(name):
    g = gg.load(real_graph(name))
    same_bfs(g, int(np.argmax(g.out_degree())), "auto")


@pytest.mark.parametrize("algorithm,spec", [
    ("bfs", "kron:16"), ("bfs", "rmat:15:8"), ("bfs", "grid:40:50:0.8"),
    ("sssp", "kron:16:w"), ("sssp", "rmat:15:8:w"), ("sssp", "grid:40:50:w"),
])
def test_degree_layout(algorithm, spec):
    """layout="degree" (BFS, near-far SSSP on the graph renumbered by degree): distances equal the CPU's and the tree
    the given ids' run's (it is found on the given ids); "auto" takes it on a large skewed graph (kron:16) and keeps
    the ids elsewhere."""
    from graphgear.graph.layout import skewed

    run = getattr(gg, algorithm)
    g = gg.load(spec)
    s = int(np.argmax(g.out_degree()))
    cpu = run(g, s, backend="cpu", layout="given")
    given = run(g, s, backend="cuda", layout="given")
    assert "renumbered" not in given.trace.controller
    for layout in ("degree", "auto"):
        gpu = run(g, s, backend="cuda", layout=layout)
        np.testing.assert_array_equal(gpu.distances, cpu.distances)
        np.testing.assert_array_equal(gpu.predecessors, given.predecessors)
        renumbered = "renumbered by degree" in gpu.trace.controller
        assert renumbered == (layout == "degree" or skewed(g))
    assert skewed(g) == spec.startswith("kron:16")


@numba.njit
def _visit(u, v, w, state):
    return False


VISIT = Functor("visit", _visit, "if (s0[v] < 0 && atomicCAS((int*)(s0 + v), -1, s1[0] + 1) == -1) return true; return false;")


def advance_levels(g, strategy, each_level=lambda G, frontier: None) -> None:
    """BFS by VISIT advances under `strategy` from g's largest-degree vertex, one be.advance a level, calling
    each_level(G, frontier) after each; the levels must be the CPU BFS's."""
    import cupy as cp

    from graphgear.backends import get_backend

    be = get_backend("cuda")
    G = be.graph(g)
    s = int(np.argmax(g.out_degree()))
    level = cp.full(g.num_vertices, -1, dtype=cp.int32)
    level[s] = 0
    depth = cp.zeros(1, dtype=cp.int32)
    frontier = Frontier.from_vertices(cp.asarray([s], dtype=cp.int32), g.num_vertices, dtype=cp.int32)
    while frontier.size:
        frontier = be.advance(G, frontier, VISIT, strategy, (level, depth))
        depth += 1
        each_level(G, frontier)
    np.testing.assert_array_equal(level.get(), gg.bfs(g, s, backend="cpu").distances)


@pytest.mark.parametrize("strategy", [s for s in PUSH_STRATEGIES if s.sync == "sync"], ids=str)
def test_generic_advance_levels(strategy):
    import cupy as cp

    def summed(G, frontier):  # a queue's out-edges were summed by the emissions: as summing its degrees afterwards
        assert frontier.out_edges(G.out_degree) == int(G.out_degree[cp.asarray(frontier.vertices())].sum())

    advance_levels(gg.load("kron:11"), strategy, summed)


@pytest.mark.parametrize("balance", ["vertex_group", "twc", "warp_scan", "three_stage", "block_scan", "hierarchical"])
@pytest.mark.parametrize("gather", [False, True], ids=["alone", "with block gathering"])
def test_supplementary_queues_on_the_device(balance, gather, monkeypatch):
    """Busato & Bombieri's supplementary queues without the host: the balancer sends the frontier's vertices above the
    threshold (64 here) to the hub queue as it loads them, and one more launch expands them in bins by degree, each
    vertex with its bin's lower bound of threads (with block gathering, the hubs below the threshold by grid
    gathering in the same launch): two launches a level, nothing read back but the level's output size, nothing
    copied to the host between them, and the CPU's BFS levels."""
    import cupy as cp

    import graphgear.backends.cuda.operators as ops
    from graphgear.backends.cuda.runtime import PinnedCounter

    be = set_cuda_knobs(monkeypatch, supplementary_threshold=64)
    g = gg.load("kron:11")
    be.graph(g)  # its device copy made before the launches are counted
    launches, reads = [], []
    launch = ops.rt.launch
    monkeypatch.setattr(ops.rt, "launch", lambda kernel, *a, **k: launches.append(1) or launch(kernel, *a, **k))
    read = PinnedCounter.read_with_edges
    monkeypatch.setattr(PinnedCounter, "read_with_edges", lambda self: reads.append(1) or read(self))
    monkeypatch.setattr(cp, "asnumpy", lambda *a, **k: pytest.fail("a copy to the host inside the level"))
    supports = {"supplementary_queues", "block_gather"} if gather else {"supplementary_queues"}
    diverted = []

    def counted(G, frontier):  # launches and reads since the level before (none before the first level's)
        assert len(launches) == 2 and len(reads) == 1
        diverted.append(int(be._counter.hubs.get()[0]) > 0)
        launches.clear()
        reads.clear()

    advance_levels(g, Strategy(balance=balance, supports=frozenset(supports)), counted)
    assert any(diverted)  # some level had vertices above the threshold


@pytest.mark.parametrize("balance", ["warp_scan", "twc", "three_stage"])
def test_two_phase_level_reads_back_once(balance, monkeypatch):
    """Busato & Bombieri's two-phase queue without a host read between its phases: the expand records the edges
    and their count stays on the device, where the contract's launch reads it; a level reads back once (its output's
    size, as a vertex queue's level does), and the levels give the CPU's BFS."""
    from graphgear.backends.cuda.runtime import PinnedCounter

    reads = []
    read = PinnedCounter.read_with_edges
    monkeypatch.setattr(PinnedCounter, "read_with_edges", lambda self: reads.append(1) or read(self))

    def counted(G, frontier):  # reads since the level before
        assert len(reads) == 1
        reads.clear()

    advance_levels(gg.load("kron:11"), Strategy(balance=balance, frontier="two_phase"), counted)


@pytest.mark.parametrize("spec", ["kron:11", "rmat:11:8", "grid:40:50:0.8"])
@pytest.mark.parametrize("frontier_kind", ["vertex_queue", "edge_queue"])
def test_merge_path_levels_carry_kernel_c_scans(spec, frontier_kind):
    """Busato & Bombieri's kernel C: a merge_path level's output queue comes with its degree prefix sum, written by
    the emissions in the queue's own order (one 64-bit atomic a warp packs the slots and the edge range), and the
    next merge_path level searches it instead of scanning; the levels give the CPU's BFS."""
    import cupy as cp

    scanned = []

    def searched(G, frontier):
        scan = frontier.degree_scan(G.out_degree)
        assert scan is not None and scan.size == frontier.size
        degrees = G.out_degree[cp.asarray(frontier.vertices())].astype(cp.int64)
        np.testing.assert_array_equal(cp.asnumpy(scan), cp.asnumpy(cp.cumsum(degrees)))
        assert frontier.out_edges(G.out_degree) == (int(scan[-1]) if frontier.size else 0)
        scanned.append(frontier.size > 0)

    advance_levels(gg.load(spec), Strategy(balance="merge_path", frontier=frontier_kind, dedup="none"), searched)
    assert sum(scanned) >= 2


@pytest.mark.parametrize("sinks_between", [False, True], ids=["rows in shared memory", "more rows than it holds"])
def test_merge_path_chunk_rows(sinks_between):
    """merge_path's kernel B stages a chunk's rows in shared memory (GG_MERGE_PATH_ROWS of them) and searches there;
    a chunk whose degree-0 rows outnumber that searches the global prefix sum. A frontier of two rows with edges and
    2,000 sinks: the sinks between the two rows put them in one chunk of 2,002 rows, the sinks after them leave a chunk
    of two. Either way every out-edge of the two rows is expanded once, and nothing else."""
    import cupy as cp

    from graphgear.backends import get_backend
    from graphgear.backends.cuda.sources import MERGE_PATH_ROWS, merge_path_chunk

    sinks = np.arange(2, 2002)
    heads = np.arange(2002, 2002 + 2 * 60)  # vertex 0's 60 targets, then vertex 1's
    g = gg.Graph.from_edges(np.repeat([0, 1], 60), heads, num_vertices=2002 + 120)
    assert sinks.size + 2 > MERGE_PATH_ROWS and merge_path_chunk(120, 1 << 20) >= 120  # one chunk holds both rows
    be = get_backend("cuda")
    order = np.concatenate([[0], sinks, [1]]) if sinks_between else np.concatenate([[0, 1], sinks])
    frontier = Frontier.from_vertices(cp.asarray(order, dtype=cp.int32), g.num_vertices, dtype=cp.int32)
    level = cp.full(g.num_vertices, -1, dtype=cp.int32)
    level[cp.asarray(order)] = 0
    state = (level, cp.zeros(1, dtype=cp.int32))
    reached = be.advance(be.graph(g), frontier, VISIT, Strategy(balance="merge_path"), state)
    np.testing.assert_array_equal(np.sort(cp.asnumpy(reached.vertices())), heads)
    expected = np.full(g.num_vertices, -1)
    expected[order] = 0
    expected[heads] = 1
    np.testing.assert_array_equal(level.get(), expected)


GRID_GATHERING = [Strategy(balance="twc")] + [
    Strategy(balance=b, group_size=g, supports=frozenset({"warp_gather", "block_gather"}))
    for b, g in (("vertex_group", 1), ("vertex_group", 4), ("vertex_group", 16), ("vertex_group", 32), ("warp_scan", 32))
]


@pytest.fixture
def low_grid_gather_degree(monkeypatch):
    """Small graphs: let teams of blocks expand every pushed vertex of degree >= 32 (the default is 4096)."""
    return set_cuda_knobs(monkeypatch, grid_gather_degree=32)


@pytest.mark.parametrize("strategy", GRID_GATHERING + [s.with_(sync="async") for s in GRID_GATHERING[:2]], ids=str)
@pytest.mark.parametrize("spec", ["kron:12", "rmat:11:8"])
def test_grid_gathering_of_hubs(spec, strategy, low_grid_gather_degree):
    """A sync push with block gathering leaves the frontier's hubs to a second launch (teams of blocks), the async one
    to the persistent kernel's hub queue: BFS and BC (whose path counts add once per parent) equal the CPU's."""
    import cupy as cp

    be = low_grid_gather_degree
    g = gg.load(spec)
    s = int(np.argmax(g.out_degree()))
    same_bfs(g, s, strategy)
    cpu = gg.betweenness_centrality(g, sources=[s], backend="cpu", strategy=strategy)
    gpu = gg.betweenness_centrality(g, sources=[s], backend="cuda", strategy=strategy)
    np.testing.assert_allclose(gpu.centrality, cpu.centrality, rtol=1e-9, atol=1e-9)
    if strategy.sync == "sync":  # the hub queue took the source (a hub) in the first push
        level = cp.full(g.num_vertices, -1, dtype=cp.int32)
        level[s] = 0
        frontier = Frontier.from_vertices(cp.asarray([s], dtype=cp.int32), g.num_vertices, dtype=cp.int32)
        reached = be.advance(be.graph(g), frontier, VISIT, strategy, (level, cp.zeros(1, dtype=cp.int32)))
        assert int(be._counter.hubs.get()[0]) == 1
        assert reached.size == np.setdiff1d(g.indices[g.offsets[s]:g.offsets[s + 1]], [s]).size


@pytest.mark.parametrize("strategy", [Strategy(), Strategy(direction="pull", frontier="bitmap"),
                                      Strategy(drive="topology", frontier="bitmap"), Strategy(sync="async"),
                                      Strategy(drive="topology", frontier="bitmap", sync="async"),
                                      Strategy(direction="pull", drive="topology", frontier="bitmap", sync="async"),
                                      Strategy(balance="merge_path"), Strategy(balance="vertex_group", group_size=16)], ids=str)
def test_user_program_on_gpu(strategy):
    g = gg.load("grid:30:30:0.9:w")
    n = g.num_vertices
    values = np.full(n, -np.inf)
    buffers = values.copy()
    buffers[0] = np.inf
    cpu = gg.run_program(WIDEST_PATH, g, values, buffers, [0], backend="cpu", strategy=strategy)
    gpu = gg.run_program(WIDEST_PATH, g, values, buffers, [0], backend="cuda", strategy=strategy)
    np.testing.assert_array_equal(gpu.values, cpu.values)


@numba.njit
def _is_even(v, state):
    return v % 2 == 0


@numba.njit
def _mark(v, state):
    state[0][v] = 2 * v


@numba.njit
def _weighted_in(v, u, w, state):
    return state[0][u] * w


EVEN = Functor("is_even", _is_even, "return v % 2 == 0;")
MARK = Functor("mark", _mark, "s0[v] = 2 * v;")
WEIGHTED_IN = Functor("weighted_in", _weighted_in, "return s0[u] * (double)w;")


@pytest.mark.parametrize("monoid", ["sum", "min", "max"])
def test_filter_for_each_and_neighbor_reduce(monoid):
    import cupy as cp

    from graphgear.backends import get_backend

    g = gg.load("rmat:10:8:w")
    cpu, gpu = get_backend("cpu"), get_backend("cuda")
    n = g.num_vertices
    x = np.random.default_rng(3).random(n)
    ref = cpu.neighbor_reduce(cpu.graph(g), WEIGHTED_IN, (x,), monoid)
    got = gpu.neighbor_reduce(gpu.graph(g), WEIGHTED_IN, (cp.asarray(x),), monoid)
    np.testing.assert_allclose(cp.asnumpy(got), ref, rtol=1e-12)
    frontier = Frontier.from_vertices(cp.arange(0, n, 3, dtype=cp.int32), n, dtype=cp.int32)
    kept = gpu.filter(frontier, EVEN, (cp.zeros(1, dtype=cp.int32),))
    assert sorted(cp.asnumpy(kept.vertices()).tolist()) == [v for v in range(0, n, 3) if v % 2 == 0]
    marks = cp.zeros(n, dtype=cp.int64)
    gpu.for_each_vertex(None, MARK, (marks,), num_vertices=n)
    np.testing.assert_array_equal(cp.asnumpy(marks), 2 * np.arange(n))
    marks.fill(0)
    gpu.for_each_vertex(frontier, MARK, (marks,))
    expected = np.zeros(n, dtype=np.int64)
    expected[::3] = 2 * np.arange(0, n, 3)
    np.testing.assert_array_equal(cp.asnumpy(marks), expected)


@pytest.mark.parametrize("monoid", ["sum", "min", "max"])
@pytest.mark.parametrize("spec", ["kron:16:w", "grid:30:40:0.9:w", "er:2000:100:w", "rmat:12:2:w"])
def test_neighbor_reduce_every_group_and_hub_chunks(spec, monoid):
    """Every degree bin (4, 8 or 32 lanes per row), the frontier form (lanes by average degree) and the block chunks
    of rows of degree >= 1024 (kron:16 hubs), with and without a frontier."""
    import cupy as cp

    from graphgear.backends import get_backend

    g = gg.load(spec)
    cpu, gpu = get_backend("cpu"), get_backend("cuda")
    x = np.random.default_rng(5).random(g.num_vertices)
    for direction in ("in", "out"):
        ref = cpu.neighbor_reduce(cpu.graph(g), WEIGHTED_IN, (x,), monoid, direction)
        got = gpu.neighbor_reduce(gpu.graph(g), WEIGHTED_IN, (cp.asarray(x),), monoid, direction)
        np.testing.assert_allclose(cp.asnumpy(got), ref, rtol=1e-11)
        # data-driven: only the listed rows (every third vertex and the largest hub), the other entries untouched
        listed = np.union1d(np.arange(0, g.num_vertices, 3), [int(np.argmax(g.out_degree()))]).astype(np.int32)
        ref = cpu.neighbor_reduce(cpu.graph(g), WEIGHTED_IN, (x,), monoid, direction, out=np.full(g.num_vertices, -7.0),
                                  vertices=Frontier.from_vertices(listed, g.num_vertices))
        got = gpu.neighbor_reduce(gpu.graph(g), WEIGHTED_IN, (cp.asarray(x),), monoid, direction,
                                  out=cp.full(g.num_vertices, -7.0),
                                  vertices=Frontier.from_vertices(cp.asarray(listed), g.num_vertices, dtype=cp.int32))
        np.testing.assert_allclose(cp.asnumpy(got), ref, rtol=1e-11)
        assert (ref == -7.0).sum() >= g.num_vertices // 2
    if spec.startswith("kron"):  # the chunked path ran, and the unlisted hubs' chunks were skipped
        from graphgear.backends.cuda.backend import REDUCE_HUGE

        assert int((g.out_degree() >= REDUCE_HUGE).sum()) >= 2


@numba.njit
def _square_and_report(v, state):
    state[0][v] = state[0][v] * state[0][v]
    return state[0][v] - v


SQUARE_AND_REPORT = Functor("square_and_report", _square_and_report,
                            "x[v] = x[v] * x[v]; return x[v] - (double)v;", state=("x",))


@pytest.mark.parametrize("monoid", ["sum", "min", "max"])
def test_vertex_reduce_updates_state_and_combines(monoid):
    """vertex_reduce over every vertex and over a listed frontier: the functor's writes and the combined value equal
    the CPU backend's (the sum to rounding: the GPU adds in another order)."""
    import cupy as cp

    from graphgear.backends import get_backend

    cpu, gpu = get_backend("cpu"), get_backend("cuda")
    n = 300_001  # more blocks than one launch's cap: the grid-stride loop and one atomic per block
    x = np.random.default_rng(11).random(n) * 10
    listed = np.arange(5, n, 7, dtype=np.int32)
    for frontier in (None, listed):
        a, b = x.copy(), cp.asarray(x)
        ref = cpu.vertex_reduce(None if frontier is None else Frontier.from_vertices(frontier, n), SQUARE_AND_REPORT,
                                (a,), monoid, num_vertices=n)
        got = gpu.vertex_reduce(None if frontier is None else Frontier.from_vertices(cp.asarray(frontier), n,
                                                                                      dtype=cp.int32),
                                SQUARE_AND_REPORT, (b,), monoid, num_vertices=n)
        np.testing.assert_array_equal(cp.asnumpy(b), a)
        np.testing.assert_allclose(float(got[0]), float(ref[0]), rtol=1e-12)
    empty = gpu.vertex_reduce(Frontier.from_vertices(cp.zeros(0, dtype=cp.int32), n, dtype=cp.int32),
                              SQUARE_AND_REPORT, (cp.asarray(x),), monoid)
    assert float(empty[0]) == {"sum": 0.0, "min": np.inf, "max": -np.inf}[monoid]


@numba.njit
def _always(u, v, w, state):
    return True


ALWAYS = Functor("always", _always, "return true;")


@pytest.mark.parametrize("dedup,balance", [("none", "warp_scan"), ("warp_hash", "warp_scan"), ("block", "vertex_group"),
                                           ("atomic", "warp_scan")])
def test_duplicate_removal_techniques_are_distinct(dedup, balance):
    """An edge queue holding each vertex 32 times in a row: after-load removal keeps one per warp (warp_hash) or per
    block (block), emission-time removal (atomic) emits each vertex once, none emits every copy's edges. A vertex queue
    is contracted on emission whatever the dedup: each vertex once."""
    import cupy as cp

    from graphgear.backends import get_backend

    be = get_backend("cuda")
    g = gg.load("grid:16:16")
    G = be.graph(g)
    vertices = np.repeat(np.arange(8, dtype=np.int32), 32)
    frontier = Frontier.from_vertices(cp.asarray(vertices), g.num_vertices, dtype=cp.int32)
    state = (cp.zeros(1, dtype=cp.int32),)
    out = be.advance(G, frontier, ALWAYS, Strategy(balance=balance, dedup=dedup, frontier="edge_queue"), state)
    as_vertices = be.advance(G, frontier, ALWAYS, Strategy(balance=balance, dedup=dedup, frontier="vertex_queue"), state)
    assert as_vertices.size == len(set(g.indices[g.offsets[0]:g.offsets[8]].tolist()))
    edges_once = int(g.out_degree()[:8].sum())
    emitted = out.size
    if dedup == "none":
        assert emitted == 32 * edges_once
    elif dedup == "atomic":
        assert emitted == len(set(g.indices[g.offsets[0]:g.offsets[8]].tolist()))
    elif dedup == "warp_hash":
        assert emitted == edges_once  # each warp held 32 copies of one vertex
    else:
        assert edges_once <= emitted < 32 * edges_once


@pytest.mark.parametrize("balance", BALANCERS, ids=lambda b: "-".join(map(str, b.values())))
def test_duplicate_removal_during_lookup(balance):
    """dedup=lookup (Busato & Bombieri's removal during lookup): the lanes of a warp emitting one vertex in a step
    write it once. With one lane per vertex and each warp holding 32 copies of one vertex, the k-th neighbour of all
    32 is emitted in one step: the edge queue holds each copy's edges once, against 32 times without. Every balancer
    emits the same set of vertices with it as without, never more entries."""
    import cupy as cp

    from graphgear.backends import get_backend

    be = get_backend("cuda")
    g = gg.load("grid:16:16")
    G = be.graph(g)
    frontier = Frontier.from_vertices(cp.asarray(np.repeat(np.arange(8, dtype=np.int32), 32)), g.num_vertices,
                                      dtype=cp.int32)
    state = (cp.zeros(1, dtype=cp.int32),)
    strategy = Strategy(frontier="edge_queue", dedup="lookup", **balance)
    thinned = be.advance(G, frontier, ALWAYS, strategy, state)
    every = be.advance(G, frontier, ALWAYS, strategy.with_(dedup="none"), state)
    edges_once = int(g.out_degree()[:8].sum())
    assert every.size == 32 * edges_once
    assert set(cp.asnumpy(thinned.vertices()).tolist()) == set(cp.asnumpy(every.vertices()).tolist())
    assert thinned.size <= every.size
    if balance == {"balance": "vertex_group", "group_size": 1}:
        assert thinned.size == edges_once


# ------------------------------------------------------------------------------------------ persistent kernel
ASYNC_STRATEGIES = (
    [Strategy(sync="async", **b) for b in BALANCERS]
    + [Strategy(sync="async", lookup="bitmask", balance="twc")]
    + [Strategy(sync="async", balance="vertex_group", group_size=4, supports=frozenset({"warp_gather", "block_gather"}))]
    + [Strategy(sync="async", direction="pull", frontier="bitmap", balance="vertex_group", group_size=g) for g in (1, 4, 16, 32)]
)


@pytest.mark.parametrize("strategy", ASYNC_STRATEGIES, ids=str)
@pytest.mark.parametrize("spec", GRAPHS)
def test_bfs_persistent_kernel(spec, strategy):
    g = gg.load(spec)
    same_bfs(g, int(np.argmax(g.out_degree())), strategy)


@pytest.mark.parametrize("spec", ["kron:12", "rmat:11:8", "grid:40:50:0.8"])
def test_merge_path_rounds_in_one_persistent_launch(spec, monkeypatch):
    """merge_path inside the persistent kernel: each round's compute phase appends the senders with their degree
    prefix sum (one packed 64-bit atomic a block) and the push searches it, so the whole traversal is one launch of
    many rounds and no host-driven level (before, its scan needed the host: a launch and a read each level). The
    senders that cannot add to the next frontier are left out of it (kernel C): kron and the lattice are undirected
    (leaves of degree 1), rmat directed (vertices without out-arcs)."""
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    runs = []
    persistent = be.program_persistent

    def recorded(*args, **kwargs):
        run = persistent(*args, **kwargs)
        runs.append(run.result() if hasattr(run, "result") else run)
        return run

    monkeypatch.setattr(be, "program_persistent", recorded)
    monkeypatch.setattr(be, "_advance_level", lambda *a, **k: pytest.fail("a host-driven level ran"))
    g = gg.load(spec)
    s = int(np.argmax(g.out_degree()))
    st = Strategy(sync="async", balance="merge_path")
    gpu = gg.bfs(g, s, backend="cuda", strategy=st, layout="given")
    np.testing.assert_array_equal(gpu.distances, gg.bfs(g, s, backend="cpu").distances)
    (run,) = runs
    d, degree = gpu.distances, g.out_degree()
    assert run.rounds == int(d.max()) + 1  # a round a level, the last one finding nothing new
    # kernel C's second optimisation: a round's senders are the level's vertices less those that never add to the
    # next frontier: out-degree 0, and on an undirected graph the leaves, reached by their one arc (not the source)
    leaf = 0 if g.directed else 1
    kept = [(d == r) & (degree > (leaf if r else 0)) for r in range(run.rounds)]
    assert run.log[:, 1].tolist() == [int(k.sum()) for k in kept]
    assert run.log[:, 1].sum() < int((d >= 0).sum())  # each of these graphs has such vertices
    assert run.edges_processed(g.num_arcs) == sum(int(degree[k].sum()) for k in kept)


@pytest.mark.parametrize("spec", ["kron:14", "rmat:13:16", "er:20000:12"])
def test_device_rules_decide_like_the_host_controller(spec):
    """The persistent kernel evaluates SEP-Graph Algorithm 2 itself: same push/pull sequence as the CPU's controller."""
    g = gg.load(spec)
    s = int(np.argmax(g.out_degree()))
    cpu = gg.bfs(g, s, backend="cpu")
    gpu = gg.bfs(g, s, backend="cuda")
    np.testing.assert_array_equal(gpu.distances, cpu.distances)
    assert gpu.trace.decisions() == cpu.trace.decisions()
    assert "pull" in gpu.trace.decisions()
    assert all("persistent kernel" in row.reason for row in gpu.trace)
    assert all(row.seconds >= 0 for row in gpu.trace)


def test_bfs_reads_the_device_back_when_a_result_is_read():
    """A BFS the device runs to its end is not read back at once (backend PendingRun): the host leaves the call while
    the kernel runs; reading the distances (or the trace, or the next persistent launch) reads it back; the results
    equal the CPU's and an eager run's."""
    from graphgear.backends import get_backend
    from graphgear.engine.controller import make_controller

    be = get_backend("cuda")
    g = gg.load("kron:14")
    s = int(np.argmax(g.out_degree()))
    lazy = gg.bfs(g, s, backend="cuda")
    pending = be._pending
    assert pending is not None and pending._read is not None
    np.testing.assert_array_equal(lazy.distances, gg.bfs(g, s, backend="cpu").distances)
    assert pending._read is None and pending._run.rounds >= 3  # the distances' read settled it
    second = gg.bfs(g, s + 1, backend="cuda")
    assert be._pending is not None
    third = gg.bfs(g, s, backend="cuda")  # its launch settles the second's read first
    assert second.trace._pending and len(second.trace) >= 1
    eager = gg.bfs(g, s, backend="cuda", strategy=make_controller("auto", g, "traversal", monotone=True))
    np.testing.assert_array_equal(third.distances, eager.distances)
    np.testing.assert_array_equal(third.predecessors, eager.predecessors)
    assert third.seconds == pytest.approx(third.trace.seconds) and third.seconds > 0


@pytest.mark.parametrize("algorithm,spec", [("bfs", "kron:12"), ("sssp", "kron:12:w")])
def test_a_device_error_stays_with_its_result(monkeypatch, algorithm, spec):
    """A lazily read BFS or near-far SSSP whose grid barrier timed out raises when its results are read, not in the
    next call, which runs on fresh buffers."""
    from graphgear.backends import get_backend
    from graphgear.backends.cuda.structs import _barrier_timed_out
    from graphgear.errors import BackendError

    be = get_backend("cuda")
    g = gg.load(spec)
    s = int(np.argmax(g.out_degree()))
    read = be._read_persistent
    run = getattr(gg, algorithm)

    def timed_out(G, B, report):
        G.persistent = None
        raise _barrier_timed_out("the persistent kernel")

    monkeypatch.setattr(be, "_read_persistent", timed_out)
    failed = run(g, s, backend="cuda")
    monkeypatch.setattr(be, "_read_persistent", read)
    good = run(g, s, backend="cuda")  # settles the failed run's read without raising
    with pytest.raises(BackendError, match="grid barrier"):
        failed.distances
    with pytest.raises(BackendError, match="grid barrier"):
        failed.trace.seconds
    with pytest.raises(BackendError, match="grid barrier"):
        failed.predecessors
    np.testing.assert_array_equal(good.distances, run(g, s, backend="cpu").distances)
    assert good.seconds == pytest.approx(good.trace.seconds) and good.seconds > 0


def test_device_trace_is_replayed_when_first_read():
    """A traversal the device finished leaves the replay of its log for the trace's first read: its time is known at
    once, its rows equal an eager replay's (a controller passed in by the caller, which may run again, is replayed
    at once)."""
    from graphgear.engine.controller import make_controller

    g = gg.load("kron:14")
    s = int(np.argmax(g.out_degree()))
    lazy = gg.bfs(g, s, backend="cuda")
    assert lazy.trace._pending and lazy.trace.seconds > 0
    seconds = lazy.trace.seconds
    assert len(lazy.trace) > 2 and not lazy.trace._pending
    assert lazy.trace.seconds == pytest.approx(seconds)
    eager = gg.bfs(g, s, backend="cuda", strategy=make_controller("auto", g, "traversal", monotone=True))
    assert not eager.trace._pending
    assert eager.trace.decisions() == lazy.trace.decisions()
    assert [r.reason for r in eager.trace] == [r.reason for r in lazy.trace]


def test_persistent_kernel_stops_after_max_rounds():
    """max_rounds stops the device mid-traversal with the same values as the CPU after as many rounds."""
    from graphgear.algorithms.bfs import BFS_PROGRAM

    g = gg.load("rgg:12")
    assert g.num_arcs / g.num_vertices >= 5  # not sparse: the adaptive controller hands the rounds to the device
    n = g.num_vertices
    values = np.full(n, np.inf)
    buffers = values.copy()
    buffers[0] = 0.0
    cpu = gg.run_program(BFS_PROGRAM, g, values, buffers, [0], backend="cpu", max_rounds=5)
    gpu = gg.run_program(BFS_PROGRAM, g, values, buffers, [0], backend="cuda", max_rounds=5)
    np.testing.assert_array_equal(gpu.values, cpu.values)
    assert 1 < np.isfinite(gpu.values).sum() < n
    assert len(gpu.trace) == 5
    # read lazily (as BFS reads it, whatever |V| is against max_rounds): the same values and rounds
    from graphgear.backends import get_backend

    lazy = gg.run_program(BFS_PROGRAM, g, values, buffers, [0], backend="cuda", max_rounds=5, lazy=True)
    assert get_backend("cuda")._pending._read is not None
    np.testing.assert_array_equal(lazy.values, cpu.values)
    assert len(lazy.trace) == 5


LOCAL_HOPS_STRATEGIES = [Strategy(sync="async", hops=h, **b) for b in BALANCERS if b["balance"] != "merge_path"
                         for h in (2, 16)] + [
    Strategy(sync="async", hops=8, balance="warp_scan", dedup="warp_hash"),
    Strategy(sync="async", hops=8, balance="vertex_group", group_size=4, supports=frozenset({"warp_gather", "block_gather"})),
    Strategy(sync="async", hops=8, balance="vertex_group", group_size=1, supports=frozenset({"supplementary_queues"}))]


@pytest.mark.parametrize("strategy", LOCAL_HOPS_STRATEGIES, ids=str)
@pytest.mark.parametrize("spec", ["grid:40:50:0.8", "rgg:11", "kron:12", "road/malta_osm.gr.gz"])
def test_block_local_hops(spec, strategy):
    """Block-local hops (several levels per grid barrier, label-correcting) under every balancer: BFS distances and
    the widest-path user program (a max program) equal the CPU's, on graphs of high and low diameter (kron's hubs
    overflow a block's local queue into the global one)."""
    g = gg.load(real_graph(spec) if "/" in spec else spec)
    s = int(np.argmax(g.out_degree()))
    same_bfs(g, s, strategy)
    w = gg.load(spec + ":w") if "/" not in spec else g
    values = np.full(w.num_vertices, -np.inf)
    buffers = values.copy()
    buffers[s] = np.inf
    cpu = gg.run_program(WIDEST_PATH, w, values, buffers, [s], backend="cpu", strategy=strategy)
    gpu = gg.run_program(WIDEST_PATH, w, values, buffers, [s], backend="cuda", strategy=strategy)
    np.testing.assert_array_equal(gpu.values, cpu.values)


@pytest.mark.parametrize("hops", [2, 8, 32])
def test_block_local_hops_cut_grid_barriers(hops):
    """From a corner of a 64 x 64 grid (eccentricity 126) a push with h hops needs about 127 / h grid barriers, not
    127, and the distances are the hop counts."""
    import cupy as cp

    from graphgear.algorithms.bfs import BFS_PROGRAM
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    g = gg.load("grid:64:64")
    G, n = be.graph(g), g.num_vertices
    values = np.full(n, np.inf)
    buffers = values.copy()
    buffers[0] = 0.0
    state = be.program_state(G, BFS_PROGRAM, values, buffers, np.zeros(0))
    start = Frontier.from_vertices(cp.asarray([0], dtype=cp.int32), n, dtype=cp.int32)
    strategy = Strategy(sync="async", balance="vertex_group", group_size=4, hops=hops)
    run = be.program_persistent(G, state, start, strategy, "push")
    row, col = np.divmod(np.arange(n), 64)
    np.testing.assert_array_equal(cp.asnumpy(state.value), row + col)
    assert run.rounds <= -(-127 // hops) + 2 and run.rounds < 127


@pytest.mark.parametrize("spec", ["rmat:10:8:w", "grid:20:20"])
def test_hubs_first_csc_orders_each_row_by_source_degree(spec):
    """First-wins pulls read a CSC whose rows list their sources by decreasing out-degree, ties by id: the same
    arcs (with their weights) as the id-ordered CSC, which stays as it was for the smallest-id parent passes."""
    import cupy as cp

    from graphgear.backends import get_backend

    g = gg.load(spec)
    G = get_backend("cuda").graph(g)
    offsets, indices, weights = (cp.asnumpy(a) for a in G.csc())
    h_offsets, h_indices, h_weights = (cp.asnumpy(a) for a in G.csc_hubs_first())
    degree = g.out_degree()
    np.testing.assert_array_equal(h_offsets, offsets)
    for v in range(g.num_vertices):
        a, b = offsets[v], offsets[v + 1]
        want = sorted(range(a, b), key=lambda k: (-degree[indices[k]], indices[k]))
        np.testing.assert_array_equal(h_indices[a:b], indices[want])
        if g.weighted:
            np.testing.assert_array_equal(h_weights[a:b], weights[want])
    assert np.all(np.diff(indices[offsets[5]:offsets[6]]) >= 0)  # csc() still in id order


@pytest.mark.parametrize("spec", ["rmat:10:8", "kron:10"])
def test_hubs_first_column_is_each_rows_first_source(spec):
    """The hubs-first CSC's first column (a first-wins pull's first test, kernels/program.cuh): each vertex's first
    in-neighbour in that CSC, -1 for a vertex without in-arcs (the Kronecker graph has isolated vertices)."""
    import cupy as cp

    from graphgear.backends import get_backend

    g = gg.load(spec)
    G = get_backend("cuda").graph(g)
    offsets, indices, _ = (cp.asnumpy(a) for a in G.csc_hubs_first())
    first = cp.asnumpy(G.hubs_first_column())
    assert first.dtype == np.int32 and first.shape == (g.num_vertices,)
    empty = offsets[1:] == offsets[:-1]
    assert empty.any() or spec.startswith("rmat")
    np.testing.assert_array_equal(first[empty], -1)
    np.testing.assert_array_equal(first[~empty], indices[offsets[:-1][~empty]])


@pytest.mark.parametrize("spec", ["kron:12", "rmat:12:8"])
def test_bfs_pull_with_the_first_column_matches_the_cpu(spec):
    """Every round bottom-up inside the persistent kernel (async pull: each round tests the first column, then the
    rest of the row) and auto, from several sources, give the CPU's distances."""
    g = gg.load(spec)
    sources = np.flatnonzero(g.out_degree() > 0)[[0, 7, 100]]
    for s in sources:
        want = gg.bfs(g, int(s), backend="cpu").distances
        for strategy in ("direction=pull,sync=async", "auto"):
            got = gg.bfs(g, int(s), backend="cuda", strategy=strategy).distances
            np.testing.assert_array_equal(got, want, err_msg=f"{spec} source {s} {strategy}")


def test_auto_bfs_on_a_high_diameter_graph_takes_local_hops():
    """The auto controller gives a sparse graph's monotone traversal LOCAL_HOPS levels per grid barrier."""
    from graphgear.engine.controller import LOCAL_HOPS

    g = gg.load("grid:60:60")
    gpu = gg.bfs(g, 0, backend="cuda")
    assert all(f"hops={LOCAL_HOPS}" in row.strategy for row in gpu.trace)
    np.testing.assert_array_equal(gpu.distances, gg.bfs(g, 0, backend="cpu").distances)


@pytest.mark.parametrize("strategy", [Strategy(lookup="bitmask"), Strategy(lookup="bitmask", sync="async")], ids=str)
def test_bitmask_lookup_marks_what_push_settled(strategy):
    """lookup=bitmask is its own path: push sets a visited bit for every vertex it settles and tests it before the
    status read; status lookup never makes the bitmap (it is allocated when a strategy first asks for it)."""
    import cupy as cp

    from graphgear.algorithms.bfs import BFS_PROGRAM

    g = gg.load("kron:12")
    n = g.num_vertices
    s = int(np.argmax(g.out_degree()))
    values = np.full(n, np.inf)
    buffers = values.copy()
    buffers[s] = 0.0
    for lookup in ("bitmask", "status"):
        st = strategy.with_(lookup=lookup, direction="push")
        run = gg.run_program(BFS_PROGRAM, g, values, buffers, [s], backend="cuda", strategy=st)
        reached = int(np.isfinite(run.values).sum())
        if lookup == "status":
            assert run.state.visited is None
        else:
            assert int(np.unpackbits(cp.asnumpy(run.state.visited).view(np.uint8)).sum()) == reached - 1
        np.testing.assert_array_equal(run.values, gg.run_program(BFS_PROGRAM, g, values, buffers, [s], backend="cpu",
                                                                 strategy=st).values)


def test_visited_bitmap_lent_to_one_program_state_at_a_time():
    """The persistent kernel's visited bitmap belongs to the graph and is lent to one program state at a time (its
    first launch clears it): a state that lost it to another run gets a clear one back, so the other run's bits
    never make it skip a vertex. A BFS stopped after 2 rounds, a full BFS from elsewhere, then the first one resumed
    (three launches on one graph) equals the CPU's."""
    from graphgear.algorithms.bfs import BFS_PROGRAM
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    g = gg.load("kron:12")
    n = g.num_vertices
    G = be.graph(g)
    strategy = Strategy(sync="async", lookup="bitmask", direction="push")
    order = np.argsort(-g.out_degree(), kind="stable")
    a, b = int(order[0]), int(order[1])

    def state(s):
        return be.program_state(G, BFS_PROGRAM, None, None, np.zeros(0), source=s)

    first = state(a)
    stopped = be.program_persistent(G, first, None, strategy, "push", max_rounds=2)
    assert stopped.remaining.size and first.visited is G.persistent.visited
    second = state(b)
    be.program_persistent(G, second, None, strategy, "push")
    assert second.visited is G.persistent.visited and first.visited is None
    be.program_persistent(G, first, stopped.remaining, strategy, "push")
    for s, st in ((a, first), (b, second)):
        np.testing.assert_array_equal(be.to_host(st.value), gg.run_program(
            BFS_PROGRAM, g, np.full(n, np.inf), np.where(np.arange(n) == s, 0.0, np.inf), [s], backend="cpu").values)


@pytest.mark.parametrize("strategy", [Strategy(direction="push"), Strategy(direction="push", sync="async"),
                                      Strategy(direction="pull", frontier="bitmap"), "auto"], ids=str)
def test_single_source_start_is_made_by_the_first_launch(strategy):
    """run_program(source=s) leaves the start (values inf, buffers inf but 0 at s, the worklist [s]) to the run's first
    launch: the persistent kernel's prologue, the sync round's program_start, or run_program itself when no round
    runs (max_rounds 0). Each equals the CPU's, on arrays that held garbage (a pool reuses a finished run's)."""
    from graphgear.algorithms.bfs import BFS_PROGRAM

    g = gg.load("kron:11")
    s = int(np.argmax(g.out_degree()))
    for _ in range(2):  # the second run's arrays come from the memory pool, holding the first's values
        gpu = gg.run_program(BFS_PROGRAM, g, source=s, backend="cuda", strategy=strategy)
        np.testing.assert_array_equal(gpu.values, gg.run_program(BFS_PROGRAM, g, source=s, backend="cpu",
                                                                 strategy=strategy).values)
    idle = gg.run_program(BFS_PROGRAM, g, source=s, backend="cuda", strategy=strategy, max_rounds=0)
    buffers = idle.backend.to_host(idle.state.buffer)
    assert np.isinf(idle.values).all() and buffers[s] == 0.0 and np.isinf(np.delete(buffers, s)).all()


def test_single_source_scratch_pair_lent_to_one_run_at_a_time():
    """A single-source start's buffer and message are the graph's scratch pair, lent to one program state until its
    run is over (run_program releases it): two lazy BFS runs on one graph share it, and each one's distances, read
    after both were launched, equal the CPU's; a state whose run is not over keeps it, so the next state gets its own
    arrays; a state that is gone gives it back."""
    import gc

    from graphgear.algorithms.bfs import BFS_PROGRAM
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    g = gg.load("kron:12")
    G = be.graph(g)
    order = np.argsort(-g.out_degree(), kind="stable")
    a, b = int(order[0]), int(order[5])
    first = gg.run_program(BFS_PROGRAM, g, source=a, backend="cuda", lazy=True)
    second = gg.run_program(BFS_PROGRAM, g, source=b, backend="cuda", lazy=True)
    assert first.state.buffer is second.state.buffer is G.source_scratch[0]
    assert first.state.message is second.state.message is G.source_scratch[1]
    for s, run in ((a, first), (b, second)):
        np.testing.assert_array_equal(run.values, gg.run_program(BFS_PROGRAM, g, source=s, backend="cpu").values)
    held = be.program_state(G, BFS_PROGRAM, None, None, np.zeros(0), source=a)
    own = be.program_state(G, BFS_PROGRAM, None, None, np.zeros(0), source=b)
    assert held.buffer is G.source_scratch[0] and own.buffer is not G.source_scratch[0]
    assert own.message is not G.source_scratch[1] and own.scratch_of is None
    del held
    gc.collect()
    assert be.program_state(G, BFS_PROGRAM, None, None, np.zeros(0), source=b).buffer is G.source_scratch[0]


@pytest.mark.parametrize("direction", ["push", "pull"])
def test_async_topology_driven_rounds_run_in_one_persistent_launch(monkeypatch, direction):
    """SEP-Graph's async topology-driven path drains inside one persistent launch (every vertex computes each round;
    kernels/persistent.cuh `topology`), not as host-driven sync rounds: no host round runs, one launch does, its log
    shows every vertex computed in every round, and the values equal the CPU's."""
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    launches = []
    persistent = be.program_persistent

    def counted(*args, **kwargs):
        run = persistent(*args, **kwargs)
        launches.append(run)
        return run

    def host_round(*args, **kwargs):
        raise AssertionError("an async topology-driven round ran on the host")

    monkeypatch.setattr(be, "program_persistent", counted)
    monkeypatch.setattr(be, "_compute", host_round)  # every host-driven round computes through it
    g = gg.load("grid:30:30:0.9:w")
    n = g.num_vertices
    values = np.full(n, -np.inf)
    buffers = values.copy()
    buffers[0] = np.inf
    strategy = Strategy(direction=direction, drive="topology", frontier="bitmap", sync="async")
    gpu = gg.run_program(WIDEST_PATH, g, values, buffers, [0], backend="cuda", strategy=strategy)
    cpu = gg.run_program(WIDEST_PATH, g, values, buffers, [0], backend="cpu", strategy=strategy)
    np.testing.assert_array_equal(gpu.values, cpu.values)
    assert len(launches) == 1
    log = launches[0].log
    assert launches[0].rounds > 1 and np.all(log[:, 0] == n)


def test_persistent_launch_needs_a_worklist_or_a_source():
    """A launch without a worklist starts from the state's single-source start, which only its first launch has."""
    from graphgear.algorithms.bfs import BFS_PROGRAM
    from graphgear.backends import get_backend
    from graphgear.errors import StrategyError

    be = get_backend("cuda")
    g = gg.load("kron:10")
    G, n = be.graph(g), g.num_vertices
    state = be.program_state(G, BFS_PROGRAM, None, None, np.zeros(0), source=3)
    be.program_persistent(G, state, None, Strategy(sync="async"), "push")
    with pytest.raises(StrategyError, match="no worklist, and the program state has no single-source start"):
        be.program_persistent(G, state, None, Strategy(sync="async"), "push")
    want = gg.run_program(BFS_PROGRAM, g, source=3, backend="cpu").values
    np.testing.assert_array_equal(be.to_host(state.value), want)
    assert n == state.value.size


@pytest.mark.parametrize("knob, values", [("persistent_blocks", (None, 16, None)),
                                          ("persistent_pull_group", (None, 32, None)),
                                          ("grid_gather_degree", (4096, 64, 4096))])
def test_persistent_plans_follow_the_knobs(monkeypatch, knob, values):
    """A persistent launch's arguments are packed once per configuration and graph (PersistentPlan): a knob turned
    between calls makes a plan of its own, and every call equals the CPU's."""
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    g = gg.load("kron:12")
    want = gg.bfs(g, 5, backend="cpu").distances
    plans = set()
    for value in values:
        set_cuda_knobs(monkeypatch, **{knob: value})
        for source in (5, 5):
            np.testing.assert_array_equal(gg.bfs(g, source, backend="cuda", layout="given").distances, want)
        plans |= {id(plan) for plan in be.graph(g).persistent.plans.values()}
    assert len(plans) >= 2


def test_near_far_plans_follow_the_split():
    """Near-far's plan packs the light/heavy split of its delta; a split for another delta replaces it (the graph
    keeps one) and drops the plans that held the old one, so going back to the first delta gives the CPU's answer."""
    from graphgear.backends import get_backend

    g = gg.load("rmat:12:8:w")  # weights 1..255
    want = gg.sssp(g, 3, backend="cpu").distances
    G = get_backend("cuda").graph(g)
    for delta in (20.0, 100.0, 20.0):
        got = gg.sssp(g, 3, backend="cuda", delta=delta, layout="given").distances
        np.testing.assert_allclose(got, want, rtol=1e-6)
        assert set(G._light_heavy) == {delta, ("csc", 0, delta), ("csc", 1, delta)} and len(G.persistent.plans) == 1


def test_free_memory_check_names_the_bytes():
    from graphgear.backends.cuda import runtime as rt
    from graphgear.errors import DeviceMemoryError

    with pytest.raises(DeviceMemoryError, match=r"the test array needs 931322\.57 GiB of device memory; .* GiB is free"):
        rt.check_free_memory(10**15, "the test array")
    rt.check_free_memory(1 << 20, "a small array")  # fits: no error


@pytest.mark.parametrize("n,s", [(1, 0), (5, 4), (1000, 517)])
def test_single_source_start_and_hop_counts_match_the_cpu(n, s):
    """The CUDA backend's one-kernel start of a single-source traversal where no persistent launch makes it
    (fill_state: values and buffers, on arrays that held garbage) and its conversion of BFS values to int64 hops (-1
    where unreachable) give the CPU backend's arrays."""
    from graphgear.algorithms.bfs import BFS_PROGRAM
    from graphgear.backends import get_backend

    cpu, gpu = get_backend("cpu"), get_backend("cuda")
    G = gpu.graph(gg.Graph.from_edges([], [], num_vertices=n))
    state = gpu.program_state(G, BFS_PROGRAM, None, None, np.zeros(0), source=s)
    for array in (state.value, state.buffer, state.message):
        array.fill(7.0)
    identity = state.message_fill
    gpu.fill_state(state)
    for host, device in zip(cpu.single_source_start(n, s), (state.value, state.buffer)):
        assert host.dtype == device.dtype
        np.testing.assert_array_equal(host, device.get())
    np.testing.assert_array_equal(state.message.get(), np.full(n, identity))
    assert state.source == -1 and state.message_fill is None
    _, buffers, start = cpu.single_source_start(n, s)
    assert buffers[s] == 0.0 and np.isinf(np.delete(buffers, s)).all() and start.tolist() == [s]
    values = np.where(np.arange(n) % 3 == 0, np.inf, np.arange(n, dtype=np.float64))
    hops = gpu.hop_counts(gpu.asarray(values)).get()
    assert hops.dtype == np.int64
    np.testing.assert_array_equal(hops, cpu.hop_counts(values))
    np.testing.assert_array_equal(hops, np.where(np.isinf(values), -1, np.arange(n)))


def test_pull_rounds_scan_only_vertices_with_in_arcs():
    """A pull round's candidates end at the last vertex with in-arcs (CudaGraph.pull_candidates): no vertex after it
    can pull anything. A directed graph whose last 300 vertices only send, and whose isolated vertices come last after
    the degree renumbering (kron): the same BFS as the CPU's under the persistent kernel's pulls, from a sender and
    from a vertex before them."""
    from graphgear.backends import get_backend
    from graphgear.graph.layout import degree_renumbering

    rng = np.random.default_rng(5)
    k, n = 700, 1000
    g = gg.Graph.from_edges(rng.integers(0, n, 6000), rng.integers(0, k, 6000), num_vertices=n, directed=True)
    assert get_backend("cuda").graph(g).pull_candidates() == 1 + int(np.flatnonzero(g.in_degree())[-1]) <= k
    for strategy in [Strategy(sync="async", direction="pull", frontier="bitmap"), "auto"]:
        for source in (n - 1, 3):
            cpu = gg.bfs(g, source, backend="cpu", strategy=strategy)
            np.testing.assert_array_equal(gg.bfs(g, source, backend="cuda", strategy=strategy).distances,
                                          cpu.distances)
    kron = gg.load("kron:12")
    degree_graph = degree_renumbering(kron).graph
    isolated = int((kron.out_degree() == 0).sum())
    assert isolated > 0 and get_backend("cuda").graph(degree_graph).pull_candidates() == kron.num_vertices - isolated
    s = int(np.argmax(kron.out_degree()))
    pull = Strategy(sync="async", direction="pull", frontier="bitmap")
    for strategy in (pull, "auto"):
        np.testing.assert_array_equal(gg.bfs(kron, s, backend="cuda", strategy=strategy, layout="degree").distances,
                                      gg.bfs(kron, s, backend="cpu", strategy=strategy).distances)


DYNAMIC = [Strategy(balance="vertex_group", group_size=1, supports=frozenset({"dynamic_parallelism"})),
           Strategy(balance="vertex_group", group_size=4, supports=frozenset({"dynamic_parallelism", "warp_gather"})),
           Strategy(balance="warp_scan", supports=frozenset({"dynamic_parallelism"})),
           Strategy(balance="block_scan", supports=frozenset({"dynamic_parallelism"})),
           Strategy(balance="vertex_group", group_size=1, frontier="two_phase",
                    supports=frozenset({"dynamic_parallelism"}))]


@pytest.mark.parametrize("strategy", DYNAMIC, ids=str)
@pytest.mark.parametrize("spec", ["kron:12", "rmat:11:8"])
def test_dynamic_parallelism_launches_a_kernel_per_long_row(spec, strategy, low_grid_gather_degree):
    """Busato & Bombieri's dynamic parallelism: a thread whose vertex has at least grid_gather_degree arcs (32 here)
    launches a kernel for its row, from the module compiled for device launches; BFS and Bellman-Ford (a vertex
    program) equal the CPU's, and the push ran that module."""
    from graphgear.backends.cuda import runtime as rt

    be = low_grid_gather_degree
    g = gg.load(spec)
    assert int((g.out_degree() >= 32).sum()) > 10
    made = []
    with_device_launch = rt.KernelTable.with_device_launch

    def recorded(table):
        made.append(table)
        return with_device_launch(table)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rt.KernelTable, "with_device_launch", recorded)
        s = int(np.argmax(g.out_degree()))
        same_bfs(g, s, strategy)
        w = gg.Graph(g.offsets, g.indices, np.ones(g.num_arcs, dtype=np.float32) * 0.5, directed=g.directed)
        gpu = gg.sssp(w, s, method="bellman_ford", backend="cuda", strategy=strategy)
        np.testing.assert_array_equal(gpu.distances, gg.sssp(w, s, method="bellman_ford", backend="cpu").distances)
    assert made and all(table._device_launch is not None for table in made)
    assert be.grid_gather_degree == 32

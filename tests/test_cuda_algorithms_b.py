"""PageRank, betweenness centrality and SCC on the CUDA backend give the CPU backend's answers.

PageRank: L1 difference below 1e-6 (power iteration and the delta program); betweenness: rtol 1e-6 (exact on small
graphs, k sampled sources with a seed on the larger ones); SCC: identical labels (both are numbered 0..C-1 by each
component's smallest vertex). Each on the generated graphs, the real graphs (strategy "auto") and the strategies that
apply. Marked `gpu`: skipped without CuPy and an NVIDIA GPU; run with `python3 -m pytest -m gpu`.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from conftest import REAL_GRAPHS, band_graph, real_graph, set_cuda_knobs

import graphgear as gg
from graphgear.algorithms import scc as scc_module
from graphgear.engine.strategy import Strategy
from graphgear.errors import StrategyError
from graphgear.graph.generate import orient

pytestmark = pytest.mark.gpu

GRAPHS = ["kron:12", "rmat:11:8", "grid:40:50:0.8", "rgg:11", "er:3000:6"]
BALANCERS = [{"balance": "vertex_group", "group_size": g} for g in (1, 4, 16, 32)] + [
    {"balance": b} for b in ("twc", "warp_scan", "merge_path", "three_stage", "block_scan", "hierarchical")
]
PUSH_STRATEGIES = (
    [Strategy(**b) for b in BALANCERS]
    + [Strategy(balance="vertex_group", group_size=4, supports=frozenset({"warp_gather", "block_gather"}))]
    + [Strategy(balance="vertex_group", group_size=1, supports=frozenset({"supplementary_queues"}))]
    + [Strategy(balance="warp_scan", dedup=d) for d in ("atomic", "warp_hash", "block")]
    + [Strategy(balance="warp_scan", frontier="edge_queue", dedup="lookup")]
    + [Strategy(frontier="bitmap"), Strategy(drive="topology", frontier="boolmap"), Strategy(sync="async")]
)
PULL_STRATEGIES = [
    Strategy(direction="pull", frontier="bitmap", balance="vertex_group", group_size=g) for g in (1, 4, 16, 32)
] + [Strategy(direction="pull", frontier="bitmap", drive="topology"),
     Strategy(direction="pull", frontier="bitmap", sync="async")]
# async push through a few load balancers (the program rounds of delta PageRank)
ASYNC_PUSH = [
    Strategy(sync="async", balance="vertex_group", group_size=1),
    Strategy(sync="async", balance="three_stage"),
    Strategy(sync="async", balance="block_scan"),
    Strategy(sync="async", balance="hierarchical"),
    Strategy(sync="async", balance="warp_scan", supports=frozenset({"warp_gather", "block_gather"})),
]


def load(spec: str) -> gg.Graph:
    if spec.startswith("oriented:"):
        return oriented(spec.split(":", 1)[1])
    return gg.load(spec)


def oriented(spec: str) -> gg.Graph:
    """A directed graph with many non-trivial SCCs (graph.generate.orient: every edge u < v as u -> v, half of them
    also as v -> u, seeded)."""
    return orient(gg.load(spec))


# ------------------------------------------------------------------------------------------------------ PageRank
def same_pagerank(g: gg.Graph, method: str, strategy="auto", **kwargs):
    n = max(g.num_vertices, 1)
    if method == "power":
        kwargs = {"tol": 1e-7 / n, "max_iter": 2000, **kwargs}  # one step more or less moves the ranks < 1e-6 (L1)
    else:
        kwargs = {"tol": 1e-8 / n, "max_iter": 20_000, **kwargs}  # both within 1e-8 (L1) of the exact PageRank
    cpu = gg.pagerank(g, method=method, strategy=strategy, backend="cpu", **kwargs)
    gpu = gg.pagerank(g, method=method, strategy=strategy, backend="cuda", **kwargs)
    assert gpu.trace.backend == "cuda"
    assert gpu.ranks.shape == cpu.ranks.shape and gpu.ranks.dtype == np.float64
    assert np.abs(gpu.ranks - cpu.ranks).sum() < 1e-6
    assert abs(gpu.ranks.sum() - 1.0) < 1e-9
    if method == "power":  # the same iterates up to rounding: the same number of steps
        assert gpu.iterations == cpu.iterations
    return cpu, gpu


@pytest.mark.parametrize("method", ["power", "delta", "priority"])
@pytest.mark.parametrize("spec", GRAPHS + ["rmat:11:8:w"])
def test_pagerank_generated_graphs(spec, method):
    same_pagerank(gg.load(spec), method)


@pytest.mark.parametrize("method", ["power", "delta"])
@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_pagerank_real_graphs(name, method):
    same_pagerank(gg.load(real_graph(name)), method)


@pytest.mark.parametrize("method", ["power", "delta"])
def test_pagerank_personalization_and_dangling_weighted(method):
    """A directed weighted graph with dangling vertices, a personalization and a different dangling vector (the delta
    method's second solve)."""
    g = gg.load("rmat:10:4:w")
    n = g.num_vertices
    assert np.any(g.out_degree() == 0)
    personalization = {v: 1.0 + (v % 3) for v in range(0, n, 5)}
    dangling = {v: 1.0 for v in range(1, n, 7)}
    same_pagerank(g, method, alpha=0.8, personalization=personalization, dangling=dangling)


@pytest.mark.parametrize("layout", ["given", "degree"])
@pytest.mark.parametrize("spec", ["kron:14", "rmat:10:4:w"])
def test_pagerank_power_layouts(spec, layout):
    """The power iteration on the given ids and on the degree-renumbered graph (ranks mapped back), with a
    personalization and a dangling vector given by original id."""
    g = gg.load(spec)
    personalization = {v: 1.0 + (v % 3) for v in range(0, g.num_vertices, 5)}
    dangling = {v: 1.0 for v in range(1, g.num_vertices, 7)}
    cpu, gpu = same_pagerank(g, "power", layout=layout, alpha=0.8, personalization=personalization, dangling=dangling)
    given = gg.pagerank(g, method="power", layout="given", backend="cpu", tol=1e-7 / g.num_vertices, max_iter=2000,
                        alpha=0.8, personalization=personalization, dangling=dangling)
    assert np.abs(gpu.ranks - given.ranks).sum() < 1e-6


def fused_equals_stepped(g: gg.Graph, monkeypatch, **kwargs):
    """PageRank's power iteration in one persistent kernel and as a launch sequence with a host read per iteration:
    the same iteration count and trace length, ranks equal to rounding (hub rows summed by chunks with atomics).
    Returns the fused result."""
    fused = gg.pagerank(g, method="power", backend="cuda", **kwargs)
    be = set_cuda_knobs(monkeypatch, fused_power=False)
    stepped = gg.pagerank(g, method="power", backend=be, **kwargs)
    assert fused.iterations == stepped.iterations == len(fused.trace) == len(stepped.trace)
    assert np.abs(fused.ranks - stepped.ranks).max() < 1e-12
    return fused


@pytest.mark.parametrize("spec", ["kron:14", "rmat:10:4:w", "grid:30:30"])
def test_pagerank_power_one_kernel_equals_launch_per_iteration(spec, monkeypatch):
    """The persistent power iteration (kernels/power.cuh) takes the steps of the launch-per-iteration loop: the same
    iteration count, ranks equal to rounding (hub rows summed by chunks with atomics), a trace row per iteration
    with its device time. kron:14 has in-rows of degree >= REDUCE_HUGE (the chunked hubs); rmat:10:4:w is directed
    and weighted, with dangling vertices and a personalization; the grid takes more than LOG_PREFETCH iterations."""
    from graphgear.backends.cuda.backend import LOG_PREFETCH, REDUCE_HUGE

    g = gg.load(spec)
    n = g.num_vertices
    fused = fused_equals_stepped(g, monkeypatch, tol=1e-9 / n, max_iter=5000, alpha=0.9,
                                 personalization={v: 1.0 + v % 4 for v in range(0, n, 3)})
    assert all(row.seconds > 0 and "one persistent kernel" in row.reason for row in fused.trace)
    if spec == "kron:14":
        assert int(np.diff(g.csc()[0]).max()) >= REDUCE_HUGE
    if spec == "grid:30:30":
        assert fused.iterations > LOG_PREFETCH


@pytest.mark.parametrize("max_iter", [0, 1, 3])
def test_pagerank_power_one_kernel_not_converged(max_iter):
    """Too few iterations: the same GraphError on both backends, naming the iterations and the last change."""
    g = gg.load("kron:12")
    for backend in ("cpu", "cuda"):
        with pytest.raises(gg.GraphError, match=f"did not converge in {max_iter} iterations"):
            gg.pagerank(g, method="power", tol=1e-12, max_iter=max_iter, backend=backend)


@pytest.mark.parametrize("heavy", [None, 0, 1, 100, 5000])
@pytest.mark.parametrize("spec,layout", [("kron:14", "degree"), ("kron:14", "given"), ("rmat:10:4:w", "degree"),
                                         ("grid:30:30", "given")])
def test_pagerank_power_heavy_source_block(spec, layout, heavy, monkeypatch):
    """The power iteration with the first `heavy` sources' contributions in shared memory (MultiGraph's heavy source
    block; None: as many as fit where the layout is by degree or the graph fits, 0: none) takes the launch-per-
    iteration loop's steps: the same iteration count and ranks equal to rounding. Block sizes cut rows at every point:
    a row's sources below and above the block's end; kron:14's 16,384 vertices exceed 5,000 and the grid's 900 do not;
    rmat:10:4:w is directed and weighted, with dangling vertices and a personalization."""
    g = gg.load(spec)
    n = g.num_vertices
    kwargs = {"tol": 1e-9 / n, "max_iter": 5000, "alpha": 0.9, "layout": layout}
    if spec.endswith(":w"):
        kwargs["personalization"] = {v: 1.0 + v % 4 for v in range(0, n, 3)}
    set_cuda_knobs(monkeypatch, power_heavy_sources=heavy)
    fused_equals_stepped(g, monkeypatch, **kwargs)


def test_pagerank_power_uniform_vectors_as_values():
    """networkx's uniform defaults (no personalization, dangling or nstart) go to the kernel as one value each, not
    V-long arrays: the same ranks to the last bit as the same uniform vectors given as arrays."""
    g = gg.load("rmat:10:4")  # directed, with dangling vertices: the dangling vector is read
    n = g.num_vertices
    assert np.any(g.out_degree() == 0)
    ones = np.ones(n)
    kwargs = {"tol": 1e-9 / n, "max_iter": 1000, "method": "power", "backend": "cuda"}
    default = gg.pagerank(g, **kwargs)
    given = gg.pagerank(g, personalization=ones, dangling=ones, nstart=ones, **kwargs)
    assert default.iterations == given.iterations
    assert np.array_equal(default.ranks, given.ranks)


@pytest.mark.parametrize("layout", ["degree", "given"])
def test_pagerank_power_calls_keep_their_ranks(layout):
    """The power iteration's work arrays are kept per graph and reused: a result's ranks are its own, not
    overwritten by the next call on the same graph."""
    g = gg.load("kron:12")
    first = gg.pagerank(g, alpha=0.85, method="power", backend="cuda", layout=layout)
    again = gg.pagerank(g, alpha=0.5, method="power", backend="cuda", layout=layout)
    expected = gg.pagerank(g, alpha=0.85, method="power", backend="cpu", layout=layout)
    assert np.abs(first.ranks - expected.ranks).sum() < 1e-6
    assert np.abs(again.ranks - first.ranks).sum() > 1e-3


@pytest.mark.usefixtures("supplementary_hubs")
@pytest.mark.parametrize("strategy", PUSH_STRATEGIES + ASYNC_PUSH, ids=str)
def test_pagerank_delta_push_strategies(strategy):
    _, gpu = same_pagerank(gg.load("kron:12"), "delta", strategy)
    assert {row.path for row in gpu.trace} == {strategy.path}


@pytest.mark.parametrize("strategy", PULL_STRATEGIES, ids=str)
def test_pagerank_delta_pull_strategies(strategy):
    g = gg.load("rmat:11:8:w")
    if strategy.sync == "async":  # a sum accumulate cannot run async pull: refused on both backends
        for backend in ("cpu", "cuda"):
            with pytest.raises(StrategyError, match="async pull"):
                gg.pagerank(g, method="delta", strategy=strategy, backend=backend)
        return
    _, gpu = same_pagerank(g, "delta", strategy)
    assert {row.path for row in gpu.trace} == {strategy.path}


# ------------------------------------------------------------------------------------------------------ betweenness
def same_bc(g: gg.Graph, strategy="auto", **kwargs):
    cpu = gg.betweenness_centrality(g, backend="cpu", strategy=strategy, **kwargs)
    gpu = gg.betweenness_centrality(g, backend="cuda", strategy=strategy, **kwargs)
    assert gpu.trace.backend == "cuda"
    assert gpu.centrality.dtype == np.float64
    np.testing.assert_allclose(gpu.centrality, cpu.centrality, rtol=1e-6)
    assert np.any(gpu.centrality > 0)
    return cpu, gpu


@pytest.mark.parametrize("spec", ["kron:8", "rmat:8:8", "grid:12:15:0.8", "er:400:4"])
def test_bc_exact_small_graphs(spec):
    same_bc(gg.load(spec))


@pytest.mark.parametrize("spec", GRAPHS)
def test_bc_sampled_generated_graphs(spec):
    same_bc(gg.load(spec), k=16, seed=7)


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_bc_sampled_real_graphs(name):
    same_bc(gg.load(real_graph(name)), k=4, seed=1)


@pytest.mark.usefixtures("supplementary_hubs")
@pytest.mark.parametrize("strategy", PUSH_STRATEGIES + PULL_STRATEGIES, ids=str)
def test_bc_every_strategy(strategy):
    """Exact BC on a small directed graph: every forward level on the given path; after an async forward phase the GPU
    gathers level by level (its async advance has no FIFO order for Brandes' stack)."""
    _, gpu = same_bc(gg.load("rmat:8:8"), strategy)
    forward = {row.strategy for row in gpu.trace if row.phase == "forward"}
    assert forward == {str(strategy)}
    assert any(row.phase == "backward" for row in gpu.trace)


@pytest.mark.parametrize("strategy", ["auto", Strategy(sync="async")], ids=str)
def test_bc_endpoints_and_sources(strategy):
    g = gg.load("grid:20:20:0.9")  # high diameter: auto runs the forward phase async
    same_bc(g, strategy, endpoints=True, normalized=False, k=12, seed=3)
    same_bc(g, strategy, sources=[0, 5, 5, 399])


# ------------------------------------------------------------------------------------------------------ SCC
SCC_GRAPHS = GRAPHS + ["oriented:kron:12", "oriented:grid:40:50:0.9"]


def same_scc(g: gg.Graph, strategy="auto"):
    cpu = gg.strongly_connected_components(g, backend="cpu", strategy=strategy)
    gpu = gg.strongly_connected_components(g, backend="cuda", strategy=strategy)
    assert gpu.trace.backend == "cuda"
    assert gpu.labels.dtype == np.int64
    np.testing.assert_array_equal(gpu.labels, cpu.labels)
    rows = list(cpu.trace)
    if len(rows) == 1 and rows[0].phase in ("tarjan", "link") and "one FIFO worklist" in rows[0].reason:
        return cpu, gpu  # a sparse graph on the CPU: one serial pass over it all (controller.fifo_pass)
    # trim removes vertices as it finds them (scc.py), so how many each round removes, and so whether coloring or
    # Tarjan has anything left, depends on the order the backend visits them in; the steps keep their order
    steps = ["trim", "fw-bw", "color", "tarjan"]
    for result in (cpu, gpu):
        phases = [row.phase for row in result.trace]
        assert phases[:1] == ["trim"] and phases == sorted(phases, key=steps.index)
    return cpu, gpu


@pytest.mark.parametrize("coloring", [False, True], ids=["tarjan-rest", "coloring-to-the-end"])
@pytest.mark.parametrize("spec", SCC_GRAPHS)
def test_scc_generated_graphs(spec, coloring):
    g = load(spec)
    with mock.patch.object(scc_module, "TARJAN_CUTOFF", 0 if coloring else scc_module.TARJAN_CUTOFF):
        cpu, gpu = same_scc(g)
    phases = {row.phase for row in gpu.trace}
    if spec.startswith("oriented:"):  # many SCCs of several vertices: every step runs
        assert cpu.num_components > 1 and ("color" if coloring else "tarjan") in phases


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_scc_real_graphs(name):
    same_scc(gg.load(real_graph(name)))


@pytest.mark.parametrize("name", ["social/wiki-Vote.txt", "citation/cit-HepTh.txt.gz"])
def test_scc_real_directed_graphs_coloring(name):
    g = gg.load(real_graph(name))
    with mock.patch.object(scc_module, "TARJAN_CUTOFF", 0):
        same_scc(g)


@pytest.mark.usefixtures("supplementary_hubs")
@pytest.mark.parametrize("strategy", PUSH_STRATEGIES + PULL_STRATEGIES, ids=str)
def test_scc_every_strategy(strategy):
    g = oriented("grid:30:40:0.9")  # dozens of SCCs of several vertices: several coloring rounds
    with mock.patch.object(scc_module, "TARJAN_CUTOFF", 0):
        _, gpu = same_scc(g, strategy)
    assert "color" in {row.phase for row in gpu.trace}
    propagation = {row.strategy for row in gpu.trace if row.phase in ("fw-bw", "color")}
    assert propagation == {str(strategy)}


@pytest.mark.parametrize("spec", ["grid:40:40", "grid:30:50:0.8", "oriented:grid:40:50:0.9", "grid:64:64"])
def test_bc_device_loop(spec):
    """High-diameter graphs: Brandes' forward and backward phases in one persistent launch per source
    (backends/cuda/brandes.py), the same centrality as the CPU's (sampled, given sources with repeats, endpoints), and
    a trace row per level of each phase."""
    g = load(spec)
    for kwargs in (dict(k=8, seed=2), dict(sources=[0, 3, 3, g.num_vertices - 1]),
                   dict(k=5, seed=1, endpoints=True, normalized=False)):
        _, gpu = same_bc(g, **kwargs)
        rows = list(gpu.trace)
        assert "one persistent launch" in rows[0].reason and rows[0].phase == "forward"
        forward = [r for r in rows if r.phase == "forward"]
        backward = [r for r in rows if r.phase == "backward"]
        assert len(backward) == len(forward) - (kwargs.get("k") or len(kwargs["sources"]))  # level 0 has no gather
        assert all(r.strategy == "sync=async,balance=vertex_group,group_size=1" for r in forward)


def test_bc_deep_graph_missed_by_delta_moves_to_the_device_loop(monkeypatch):
    """A deep graph that SEP-Graph's delta test misses (|E|/|V| 8, hundreds of levels, no hubs: rgg:21's kind): auto's
    first source runs DEEP_LEVELS host-driven levels, learns the depth, and it and the rest run in the device loop;
    the next call starts there. The CPU's answer (run after, so that the GPU call learns the depth itself). The graph
    is small, so the size rule (capabilities.brandes_loop_arcs) is off here: it would send it to the loop at once."""
    from graphgear.engine.controller import DEEP_LEVELS

    set_cuda_knobs(monkeypatch, brandes_loop_arcs=0)
    g = band_graph(3000)
    gpu = gg.betweenness_centrality(g, k=6, seed=4, backend="cuda")
    rows = list(gpu.trace)
    assert all(r.phase == "forward" and "persistent" not in r.reason for r in rows[:DEEP_LEVELS])
    assert "earlier traversal" in rows[DEEP_LEVELS].reason and "one persistent launch" in rows[DEEP_LEVELS].reason
    cpu = gg.betweenness_centrality(g, k=6, seed=4, backend="cpu")
    np.testing.assert_allclose(gpu.centrality, cpu.centrality, rtol=1e-6)
    again = gg.betweenness_centrality(g, k=6, seed=4, endpoints=True, backend="cuda")
    assert "one persistent launch" in again.trace.rows[0].reason
    np.testing.assert_allclose(again.centrality, gg.betweenness_centrality(g, k=6, seed=4, endpoints=True,
                                                                         backend="cpu").centrality, rtol=1e-6)


@pytest.mark.parametrize("spec", ["kron:12", "rmat:12:8", "social/email-Enron.txt.gz"])
def test_bc_small_graph_runs_the_device_loop_whatever_its_depth(monkeypatch, spec):
    """A shallow graph of at most capabilities.brandes_loop_arcs arcs runs Brandes' device loop under auto (one
    persistent launch per source, hierarchically where it has hubs), the CPU's centrality; with the size rule off the
    host drives its levels, the same centrality."""
    from graphgear.backends import get_backend

    g = gg.load(real_graph(spec)) if "/" in spec else load(spec)
    assert g.num_arcs <= get_backend("cuda").capabilities.brandes_loop_arcs
    _, gpu = same_bc(g, k=8, seed=5)
    assert "whatever the depth" in gpu.trace.rows[0].reason and "one persistent launch" in gpu.trace.rows[0].reason
    set_cuda_knobs(monkeypatch, brandes_loop_arcs=0)
    _, host = same_bc(g, k=8, seed=5)
    assert all("persistent" not in row.reason for row in host.trace)


def _device_loop_kernels(monkeypatch) -> list[str]:
    """The kernels Brandes' device loop picks (backends/cuda/brandes.py kernel_name), recorded as it picks them."""
    from graphgear.backends.cuda import brandes as device_loop

    picked: list[str] = []
    pick = device_loop.kernel_name
    monkeypatch.setattr(device_loop, "kernel_name", lambda max_degree: picked.append(pick(max_degree)) or picked[-1])
    return picked


def _same_bc_in_the_device_loop(monkeypatch, graphs: list[gg.Graph], calls: list[dict]) -> None:
    """Each call's centrality on each graph through the device loop (its first trace row says so) by
    brandes_hierarchical, equal to the CPU's to 1e-9 relative."""
    from graphgear.engine.controller import high_diameter

    picked = _device_loop_kernels(monkeypatch)
    for g in graphs:
        assert high_diameter(g.num_arcs, g.num_vertices)  # SEP-Graph's delta test sends it to the device loop
        for kwargs in calls:
            gpu = gg.betweenness_centrality(g, backend="cuda", **kwargs)
            assert "one persistent launch" in gpu.trace.rows[0].reason
            assert "balance=hierarchical" in gpu.trace.rows[0].strategy  # the run's expansion, in the trace
            cpu = gg.betweenness_centrality(g, backend="cpu", **kwargs)
            np.testing.assert_allclose(gpu.centrality, cpu.centrality, rtol=1e-9)
            assert np.any(gpu.centrality > 0)
    assert picked and set(picked) == {"brandes_hierarchical"}


def test_bc_device_loop_expands_hubs_hierarchically(monkeypatch):
    """Brandes' device loop on a sparse graph with a team-sized hub (degree 301 >= the block) and a warp-sized one
    (degree 64): a path of 1,500 vertices, a star of 300 leaves joined to its middle, the second hub joined to every
    23rd path vertex, 50 random chords. Sources on the hubs (level 0: a team row pushed), beside them and on the path
    (the hubs' rows summed backward), sampled ones, endpoints."""
    rng = np.random.default_rng(11)
    path, leaves = 1500, 300
    star, warp_hub = path, path + leaves + 1
    src = list(range(path - 1)) + [star] * (leaves + 1) + [warp_hub] * 64
    dst = ([i + 1 for i in range(path - 1)] + list(range(path + 1, path + 1 + leaves)) + [path // 2]
           + [23 * j for j in range(64)])
    chords = rng.integers(0, path, size=(50, 2))
    g = gg.Graph.from_edges(np.array(src + chords[:, 0].tolist()), np.array(dst + chords[:, 1].tolist()),
                            num_vertices=warp_hub + 1, directed=False)
    assert g.degree_stats()["max_degree"] == leaves + 1
    _same_bc_in_the_device_loop(monkeypatch, [g], [
        dict(sources=[star, warp_hub, path // 2, path + 1, 0, path - 1, 23 * 5 + 1]),
        dict(k=12, seed=3),
        dict(k=6, seed=9, endpoints=True, normalized=False),
    ])


def test_bc_device_loop_on_a_sparse_graph_with_hubs(monkeypatch):
    """A long grid (10 x 400) with hubs attached (two of degree 300, one of 40) stays below SEP-Graph's delta, so auto
    runs Brandes' device loop, hierarchically for the hubs; the CPU's centrality. Undirected, and directed with the
    hubs' arcs out to the grid and a few grid vertices' arcs in to each hub."""
    rng = np.random.default_rng(5)
    grid = gg.load("grid:10:400")
    n = grid.num_vertices
    rows = np.repeat(np.arange(n), np.diff(grid.offsets))
    src, dst, into = [rows], [grid.indices], []  # every arc of the grid, both ways
    for hub, degree in enumerate((300, 300, 40)):
        src.append(np.full(degree, n + hub))
        dst.append(rng.choice(n, size=degree, replace=False))
        into.append((rng.choice(n, size=4, replace=False), np.full(4, n + hub)))
    graphs = [gg.Graph.from_edges(np.concatenate(src), np.concatenate(dst), num_vertices=n + 3, directed=False),
              gg.Graph.from_edges(np.concatenate(src + [a for a, _ in into]),
                                  np.concatenate(dst + [b for _, b in into]), num_vertices=n + 3, directed=True)]
    assert all(g.degree_stats()["max_degree"] == 300 for g in graphs)
    _same_bc_in_the_device_loop(monkeypatch, graphs, [dict(sources=[n, n + 2, 0, n - 1]), dict(k=8, seed=2),
                                                      dict(k=4, seed=6, endpoints=True)])


def test_bc_device_loop_reads_back_once(monkeypatch):
    """The device loop reads its log back once, when the result or the trace is first read, not before."""
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    reads = []
    loop = type(be).brandes

    def counted(self, *args, **kwargs):
        run = loop(self, *args, **kwargs)
        log = run._log

        class Counted:
            def get(self):
                reads.append(1)
                return log.get()

        run._log = Counted()
        return run

    monkeypatch.setattr(type(be), "brandes", counted)
    result = gg.betweenness_centrality(gg.load("grid:64:64"), k=3, seed=0, backend="cuda")
    assert reads == []
    assert result.centrality.size and len(result.trace.rows) and result.seconds > 0
    assert reads == [1]

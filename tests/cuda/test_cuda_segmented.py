"""MultiGraphS whole on the GPU (balance=segmented, kernels/program.cuh gg_program_push_segmented): the targets of
in-degree groups 1-4 accumulate in shared memory by segments, the rest go by three_stage. Every vertex program that
pushes gives the CPU backend's result through it: BFS and Bellman-Ford (min), label propagation (min), PageRank's
delta program (sum), on one segment and on several.

Marked `gpu`: skipped without CuPy and an NVIDIA GPU. Run on the device with `python3 -m pytest -m gpu`.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from conftest import real_graph

import graphgear as gg
from graphgear.backends import get_backend
from graphgear.engine.strategy import Strategy
from graphgear.errors import StrategyError
from graphgear.graph.layout import IN_DEGREE_GROUPS, in_degree_groups, shared_group_targets

pytestmark = pytest.mark.gpu

# targets of in-degree groups 1-4: 467 on kron:14 and 90 on rmat:13:16 (one segment of 4,096), about 10,000 on
# er:10000:300 (three segments)
GRAPHS = ["kron:14", "rmat:13:16", "er:10000:300"]
STRATEGIES = [Strategy(balance="segmented"), Strategy(balance="segmented", frontier="edge_queue")]


@cache
def grouped(spec: str) -> gg.Graph:
    """The graph renumbered by in-degree group, rows sorted (layout "in_degree_groups"), with symmetric weights
    0.1 .. 9.7 for Bellman-Ford."""
    g = in_degree_groups(gg.load(spec)).graph
    rows = np.repeat(np.arange(g.num_vertices, dtype=np.int64), g.out_degree())
    cols = g.indices.astype(np.int64)
    w = (((rows ^ cols) + (rows + cols)) % 97 + 1).astype(np.float32) / np.float32(10.0)
    return gg.Graph(g.offsets, g.indices, w, directed=g.directed, name=f"{spec} by in-degree group")


@pytest.fixture
def balancers(monkeypatch) -> list[str]:
    """The advance kernels the CUDA backend launches while the test runs, by name."""
    be = get_backend("cuda")
    names: list[str] = []
    advance_kernel = be._advance_kernel

    def recorded(module, strategy):
        kernel, name = advance_kernel(module, strategy)
        names.append(name)
        return kernel, name

    monkeypatch.setattr(be, "_advance_kernel", recorded)
    return names


@pytest.mark.parametrize("strategy", STRATEGIES, ids=str)
@pytest.mark.parametrize("spec", GRAPHS)
def test_segmented_push_gives_the_cpus_results(spec, strategy, balancers):
    g = grouped(spec)
    high = shared_group_targets(g)
    assert high == int((g.in_degree() >= IN_DEGREE_GROUPS[3]).sum()) > 0
    s = int(np.argmax(g.out_degree()))
    gpu = gg.bfs(g, s, backend="cuda", strategy=strategy, layout="given")
    np.testing.assert_array_equal(gpu.distances, gg.bfs(g, s, backend="cpu", layout="given").distances)
    gpu = gg.sssp(g, s, method="bellman_ford", backend="cuda", strategy=strategy, layout="given")
    cpu = gg.sssp(g, s, method="bellman_ford", backend="cpu", layout="given")
    np.testing.assert_allclose(gpu.distances, cpu.distances, rtol=1e-12)
    if not g.directed:  # a directed graph's components run on its symmetrised copy, numbered otherwise
        gpu = gg.connected_components(g, method="label_propagation", backend="cuda", strategy=strategy)
        np.testing.assert_array_equal(gpu.labels, gg.connected_components(g, backend="cpu").labels)
    n = g.num_vertices
    kwargs = dict(method="delta", tol=1e-8 / n, max_iter=20_000, layout="given")
    gpu = gg.pagerank(g, backend="cuda", strategy=strategy, **kwargs)
    cpu = gg.pagerank(g, backend="cpu", **kwargs)
    assert np.abs(gpu.ranks - cpu.ranks).sum() < 1e-6
    # every push went through the segments, no other balancer (the delta program's first round is every vertex)
    assert balancers and set(balancers) == {"adv_segmented"}


def test_segmented_is_refused_where_the_groups_are_not_numbered_first():
    """On the ids as given (kron's hubs anywhere) the segments would not be contiguous: StrategyError naming the
    layout to use; on that layout the same call gives the CPU's distances. An advance functor has no accumulate for
    the segments."""
    g = gg.load("kron:14")
    s = int(np.argmax(g.out_degree()))
    with pytest.raises(StrategyError, match="layout='in_degree_groups'"):
        gg.bfs(g, s, backend="cuda", strategy=Strategy(balance="segmented"), layout="given")
    result = gg.bfs(g, s, backend="cuda", strategy=Strategy(balance="segmented"), layout="in_degree_groups")
    np.testing.assert_array_equal(result.distances, gg.bfs(g, s, backend="cpu").distances)
    be = get_backend("cuda")
    from graphgear.frontier import Frontier

    with pytest.raises(StrategyError, match="advance functor"):
        be.advance(be.graph(g), Frontier.from_vertices(be.xp.zeros(1, dtype=be.xp.int32), g.num_vertices), None,
                   Strategy(balance="segmented"), ())


@pytest.mark.parametrize("spec", ["grid:40:50", "grid:40:50:0.7", "rgg:11"])
def test_segmented_on_a_graph_without_groups_1_to_4_is_three_stage_over_whole_rows(spec, balancers):
    """No target has in-degree >= 256, so there are no segments (no table: a null one, whose rows are whole); every
    arc goes by three_stage, and the distances are the CPU's. (The gpu ablation's grid once took 0.8 ms here against
    a second for every other sync technique: the table's place held the CSR's offsets, read as a table.)"""
    g = gg.load(spec)
    assert shared_group_targets(in_degree_groups(g).graph) == 0
    for s in np.random.default_rng(1).choice(np.flatnonzero(g.out_degree() > 0), 3, replace=False):
        gpu = gg.bfs(g, int(s), backend="cuda", strategy=Strategy(balance="segmented"), layout="in_degree_groups")
        np.testing.assert_array_equal(gpu.distances, gg.bfs(g, int(s), backend="cpu").distances)
    assert balancers and set(balancers) == {"adv_segmented"}


@pytest.mark.parametrize("name", ["social/wiki-Vote.txt", "social/email-Enron.txt.gz", "citation/cit-HepTh.txt.gz"])
def test_segmented_on_real_graphs_from_random_sources(name):
    """The gpu ablation's call (public API, layout in_degree_groups, the graph's labels as sources) on real graphs
    with a few targets in groups 1-4, directed and undirected, from several sources: the CPU's distances."""
    g = gg.load(real_graph(name))
    ids = np.random.default_rng(2).choice(np.flatnonzero(g.out_degree() > 0), 5, replace=False)
    for s in np.atleast_1d(g.vertex_labels(ids)):
        gpu = gg.bfs(g, s, backend="cuda", strategy=Strategy(balance="segmented"), layout="in_degree_groups")
        np.testing.assert_array_equal(gpu.distances, gg.bfs(g, s, backend="cpu").distances)

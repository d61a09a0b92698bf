"""Strongly connected components (Multistep): the same partition as SciPy's connected_components(connection="strong")
on random graphs (random arcs, cycles, DAGs, chains of cycles), on every real graph, under every CPU path."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import BACKENDS, CPU_PATHS, REAL_GRAPHS, real_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

import graphgear as gg
from graphgear.algorithms import scc as scc_module

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def coloring_to_the_end():
    """No serial Tarjan for the remainder: coloring rounds until every vertex has its SCC."""
    return mock.patch.object(scc_module, "TARJAN_CUTOFF", 0)


def first_seen(labels: np.ndarray) -> np.ndarray:
    """Relabel a partition 0..C-1 in order of each part's smallest vertex (written independently of graphgear)."""
    names: dict = {}
    return np.array([names.setdefault(x, len(names)) for x in np.asarray(labels).tolist()], dtype=np.int64)


def reference(g: gg.Graph) -> np.ndarray:
    if g.num_vertices == 0:
        return np.zeros(0, dtype=np.int64)
    _, labels = connected_components(g.to_scipy(), directed=True, connection="strong")
    return first_seen(labels)


def check(g: gg.Graph, result) -> None:
    np.testing.assert_array_equal(result.labels, reference(g))
    assert result.labels.dtype == np.int64 and result.graph is g
    assert {row.phase for row in result.trace} <= {"trim", "fw-bw", "color", "tarjan", "link"}


@st.composite
def graphs(draw, max_vertices: int = 40):
    """Directed graphs mostly (undirected too): random arcs, unions of cycles, DAGs, chains of small cycles (many
    coloring rounds), with random ids, isolated vertices, and self-loops / parallel arcs kept or dropped."""
    kind = draw(st.sampled_from(["random", "cycles", "dag", "chain"]))
    n = draw(st.integers(0, max_vertices))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src: list[int] = []
    dst: list[int] = []
    if n and kind == "random":
        m = draw(st.integers(0, 3 * n))
        src, dst = rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist()
    elif n and kind == "cycles":
        for _ in range(draw(st.integers(1, 4))):
            cycle = rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False).tolist()
            src += cycle
            dst += cycle[1:] + cycle[:1]
        extra = int(rng.integers(0, n + 1))
        src += rng.integers(0, n, extra).tolist()
        dst += rng.integers(0, n, extra).tolist()
    elif n and kind == "dag":
        order = rng.permutation(n)
        m = int(rng.integers(0, 3 * n + 1))
        a, b = rng.integers(0, n, m), rng.integers(0, n, m)
        keep = a < b
        src, dst = order[a[keep]].tolist(), order[b[keep]].tolist()
    elif n:  # chain of blocks; each block a cycle; block i -> block i + 1 (and back edges never)
        ids = rng.permutation(n)
        blocks = np.array_split(ids, int(rng.integers(1, n + 1)))
        for i, block in enumerate(blocks):
            cycle = block.tolist()
            if len(cycle) > 1:
                src += cycle
                dst += cycle[1:] + cycle[:1]
            if i + 1 < len(blocks):
                src.append(int(block[0]))
                dst.append(int(blocks[i + 1][-1]))
    if n and draw(st.booleans()):  # self-loops and repeated records
        loops = rng.integers(0, n, 3).tolist()
        src += loops + src[:3]
        dst += loops + dst[:3]
    return gg.Graph.from_edges(
        np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), num_vertices=n,
        directed=draw(st.sampled_from([True, True, True, False])),
        self_loops=draw(st.sampled_from(["drop", "keep"])), duplicates=draw(st.sampled_from(["drop", "keep"])),
    )


@settings(max_examples=120, **SETTINGS)
@given(g=graphs())
def test_random_graphs_match_scipy(g):
    check(g, gg.strongly_connected_components(g, backend="cpu"))  # trim, FW-BW, then Tarjan for the small rest


@settings(max_examples=120, **SETTINGS)
@given(g=graphs())
def test_random_graphs_coloring_to_the_end_match_scipy(g):
    with coloring_to_the_end():
        check(g, gg.strongly_connected_components(g, backend="cpu"))


@settings(max_examples=40, **SETTINGS)
@given(g=graphs(), path=st.sampled_from(CPU_PATHS + ["static", "adaptive"]))
def test_random_graphs_every_path(g, path):
    with coloring_to_the_end():
        check(g, gg.strongly_connected_components(g, backend="cpu", strategy=path))


def reversed_chain_of_cycles(blocks: int) -> gg.Graph:
    """Two-vertex cycles (2i, 2i+1), block i + 1 -> block i: the largest id reaches everything, so coloring peels one
    block per round; trimming removes nothing."""
    src, dst = [], []
    for i in range(blocks):
        src += [2 * i, 2 * i + 1]
        dst += [2 * i + 1, 2 * i]
        if i:
            src.append(2 * i)
            dst.append(2 * i - 2)
    return gg.Graph.from_edges(src, dst, num_vertices=2 * blocks)


@pytest.mark.parametrize("path", CPU_PATHS + ["static", "adaptive"])
def test_every_path_on_generated_graphs(path):
    for g in (gg.load("rmat:9:8"), gg.load("kron:8"), gg.load("grid:12:12:0.7"), reversed_chain_of_cycles(12)):
        check(g, gg.strongly_connected_components(g, backend="cpu", strategy=path))
        with coloring_to_the_end():
            check(g, gg.strongly_connected_components(g, backend="cpu", strategy=path))


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_real_graphs(name):
    g = gg.load(real_graph(name))
    r = gg.strongly_connected_components(g, backend="cpu")
    check(g, r)
    if not g.directed:  # an undirected graph's SCCs are its connected components
        assert r.num_components == REAL_GRAPHS[name][5]


def test_phases_in_the_trace():
    g = gg.load("rmat:10:8")
    r = gg.strongly_connected_components(g, backend="cpu")
    check(g, r)
    phases = [row.phase for row in r.trace]
    assert phases[0] == "trim" and "fw-bw" in phases
    assert phases == sorted(phases, key=["trim", "fw-bw", "color", "tarjan"].index)  # the steps in order
    chain = reversed_chain_of_cycles(6)
    r = gg.strongly_connected_components(chain, backend="cpu")
    check(chain, r)
    assert r.num_components == 6 and [row.phase for row in r.trace][-1] == "tarjan"
    with coloring_to_the_end():
        r = gg.strongly_connected_components(chain, backend="cpu")
    check(chain, r)
    phases = [row.phase for row in r.trace]
    assert "tarjan" not in phases and phases.count("color") >= 8  # one block per coloring round


def test_small_cases_by_hand():
    dag = gg.Graph.from_edges([0, 1, 0], [1, 2, 2])
    assert gg.strongly_connected_components(dag, backend="cpu").labels.tolist() == [0, 1, 2]
    cycle = gg.Graph.from_edges([0, 1, 2, 3], [1, 2, 0, 3], self_loops="keep")  # 0->1->2->0, a self-loop at 3
    assert gg.strongly_connected_components(cycle, backend="cpu").labels.tolist() == [0, 0, 0, 1]
    empty = gg.Graph.from_edges([], [], num_vertices=0)
    assert gg.strongly_connected_components(empty, backend="cpu").labels.size == 0
    lone = gg.Graph.from_edges([], [], num_vertices=3)
    assert gg.strongly_connected_components(lone, backend="cpu").labels.tolist() == [0, 1, 2]
    undirected = gg.Graph.from_edges([0, 2], [1, 3], num_vertices=5, directed=False)
    assert gg.strongly_connected_components(undirected, backend="cpu").labels.tolist() == [0, 0, 1, 1, 2]


def test_labels_to_pandas():
    g = gg.Graph.from_edges(["x", "y", "z"], ["y", "x", "x"])
    df = gg.strongly_connected_components(g, backend="cpu").to_pandas()
    assert df.set_index("vertex")["labels"].to_dict() == {"x": 0, "y": 0, "z": 1}


@pytest.mark.parametrize("spec", ["grid:30:30:0.7", "rmat:10:2", "er:2000:2"])
def test_high_diameter_graphs_run_one_serial_pass_on_the_whole_graph(spec):
    """|E|/|V| < delta: SEP-Graph's traversal controller runs one async push-dd pass, which the CPU drains as one
    FIFO worklist; one serial pass then replaces trim and forward-backward: a depth-first one (Tarjan, Pearce's form)
    on a directed graph, Afforest's link on one thread on an undirected one (its SCCs are its components)."""
    g = gg.load(spec)
    assert g.num_arcs / g.num_vertices < 5
    r = gg.strongly_connected_components(g, backend="cpu")
    check(g, r)
    assert [row.phase for row in r.trace] == ["tarjan" if g.directed else "link"]
    reason = r.trace.rows[0].reason
    assert "< delta 5" in reason and "one FIFO worklist on one thread" in reason
    assert ("depth-first" if g.directed else "connected components") in reason


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 60), edges=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 59)), max_size=120))
def test_serial_link_numbers_the_components_as_scipy(n, edges):
    """Afforest's serial link on undirected graphs of many small components (isolated vertices, self-loops,
    repeated edges, edges against the id order): the same partition as SciPy, numbered by smallest vertex."""
    from graphgear.algorithms.connected_components import serial_link
    from graphgear.backends import get_backend

    src = [u % n for u, _ in edges]
    dst = [v % n for _, v in edges]
    g = gg.Graph.from_edges(src, dst, num_vertices=n, directed=False)
    labels = serial_link(get_backend("cpu"), g)
    m = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    count, expected = connected_components(m, directed=False)
    first = {}
    numbered = [first.setdefault(x, len(first)) for x in expected]  # SciPy's labels, renumbered by smallest vertex
    assert labels.tolist() == numbered and labels.max() + 1 == count


def test_multistep_where_the_pass_is_not_serial():
    """A level-synchronous strategy, or TARJAN_CUTOFF 0 (no serial step), keeps Multistep on a sparse graph."""
    g = gg.load("grid:30:30:0.7")
    r = gg.strongly_connected_components(g, backend="cpu", strategy="sync=sync,direction=push")
    check(g, r)
    assert [row.phase for row in r.trace][:1] == ["trim"] and "fw-bw" in {row.phase for row in r.trace}
    with coloring_to_the_end():
        r = gg.strongly_connected_components(g, backend="cpu")
    check(g, r)
    assert "tarjan" not in {row.phase for row in r.trace}


def test_tarjan_is_iterative_on_long_paths():
    """A path and a cycle of 300,000 vertices: the depth-first search is 300,000 deep (no recursion)."""
    n = 300_000
    path = gg.Graph.from_edges(np.arange(n - 1), np.arange(1, n), num_vertices=n)
    r = gg.strongly_connected_components(path, backend="cpu")
    assert r.num_components == n and r.labels.tolist()[:3] == [0, 1, 2] and r.trace.rows[0].phase == "tarjan"
    cycle = gg.Graph.from_edges(np.arange(n), (np.arange(n) + 1) % n, num_vertices=n)
    r = gg.strongly_connected_components(cycle, backend="cpu")
    assert r.num_components == 1 and r.trace.rows[0].phase == "tarjan"
    reverse = gg.Graph.from_edges(np.arange(1, n), np.arange(n - 1), num_vertices=n)  # arcs against the id order
    check(reverse, gg.strongly_connected_components(reverse, backend="cpu"))


@pytest.fixture
def device_route(monkeypatch):
    """The CPU backend taking the GPU's route: programs run whole (FW-BW as one BFS launch over the graph and its
    reverse side by side, multistep.reach) and async pushes drained level by level (so no serial pass takes the
    graph)."""
    be = gg.backends.get_backend("cpu")
    monkeypatch.setattr(be.capabilities, "device_programs", True)
    monkeypatch.setattr(be.capabilities, "async_order", "levels")
    return be


@settings(max_examples=80, **SETTINGS)
@given(g=graphs())
def test_random_graphs_forward_backward_as_one_search(g):
    be = gg.backends.get_backend("cpu")
    with mock.patch.object(be.capabilities, "device_programs", True), \
            mock.patch.object(be.capabilities, "async_order", "levels"):
        check(g, gg.strongly_connected_components(g, backend=be))
        with coloring_to_the_end():
            check(g, gg.strongly_connected_components(g, backend=be))


@pytest.mark.parametrize("spec", ["grid:30:30:0.7", "rmat:10:8", "er:2000:2"])
def test_forward_backward_as_one_search(spec, device_route):
    """A directed graph (trimmed vertices and small SCCs around a giant one): the same SCCs as SciPy, and the trace's
    fw-bw rows are the search's (one per level or pass), after trim's."""
    from graphgear.graph.generate import orient

    g = gg.load(spec)
    g = orient(g) if not g.directed else g
    r = gg.strongly_connected_components(g, backend=device_route)
    check(g, r)
    phases = [row.phase for row in r.trace]
    assert phases[0] == "trim" and "fw-bw" in phases
    assert phases.index("fw-bw") > max(i for i, p in enumerate(phases) if p == "trim")


@pytest.mark.parametrize("backend", BACKENDS)
def test_trim_rounds_as_the_device_loop_logs_them(backend):
    """Trim's rounds run as one step loop whose rule is decided where the counts are: a chain of 100 (each round
    removes at least its two ends, above 1% of what is left) goes entirely, the 3-cycle stays, and the rows count each
    round's removals from what the last one left, the last row saying why trimming stopped. (Without the serial step,
    the CPU's FIFO order would take this high-diameter graph in one serial pass instead of trimming it.)"""
    import re

    chain = np.arange(99)
    src = np.r_[chain, 100, 101, 102]
    dst = np.r_[chain + 1, 101, 102, 100]
    g = gg.Graph.from_edges(src, dst, num_vertices=103)
    with coloring_to_the_end():
        r = gg.strongly_connected_components(g, backend=backend)
    check(g, r)
    trim = [row for row in r.trace if row.phase == "trim"]
    removed = [tuple(int(x.replace(",", "")) for x in re.search(r"removed ([\d,]+) of ([\d,]+)", row.reason).groups())
               for row in trim]
    assert [row.frontier_vertices for row in trim] == [left for _, left in removed]
    assert removed[0][1] == 103 and sum(gone for gone, _ in removed) == 100
    assert all(b[1] == a[1] - a[0] for a, b in zip(removed, removed[1:]))
    assert removed[-1][0] == 0 and "last round" in trim[-1].reason and all("another" in t.reason for t in trim[:-1])


@settings(max_examples=60, **SETTINGS)
@given(g=graphs())
def test_both_ways_reaches_forward_and_backward_in_one_search(g):
    """_both_ways: the graph and its reverse side by side; its given CSC is its CSR transposed, and a BFS from a
    vertex's two copies reaches, in each half, what SciPy's BFS reaches from it along the arcs and against them."""
    from scipy.sparse.csgraph import breadth_first_order

    from graphgear.algorithms.multistep import reach
    from graphgear.algorithms.scc import _both_ways
    from graphgear.graph.build import transpose_csr

    n = g.num_vertices
    both = _both_ways(g)
    assert both.num_vertices == 2 * n and both.num_arcs == 2 * g.num_arcs and both.directed
    given_csc = both.csc()
    made = transpose_csr(both.offsets, both.indices, None)
    assert np.array_equal(given_csc[0], made[0]) and np.array_equal(given_csc[1], made[1])
    be = gg.backends.get_backend("cpu")
    A = g.to_scipy()
    for p in sorted({0, n // 2, n - 1}) if n else ():
        reached, run = reach(both, np.array([p, n + p]), be, "auto", "fw-bw")
        run.check()
        forward = np.zeros(n, dtype=bool)
        forward[breadth_first_order(A, p, directed=True, return_predecessors=False)] = True
        backward = np.zeros(n, dtype=bool)
        backward[breadth_first_order(A.T.tocsr(), p, directed=True, return_predecessors=False)] = True
        assert np.array_equal(reached[:n], forward) and np.array_equal(reached[n:], backward)

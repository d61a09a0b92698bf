"""The smoke benchmark (bench/suites.py, bench/references.py): every case of the suite runs on tiny graphs and agrees
with its references, each row names the reference it used (SciPy where SciPy has the algorithm, NetworkX only for
betweenness), and the SciPy-side helpers agree with what they stand for (networkx.pagerank, BFS distances)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest import real_graph
from scipy.sparse import csgraph

import graphgear as gg
from graphgear.bench import suites
from graphgear.bench.references import pagerank_power, references, tree_depths
from graphgear.engine.strategy import Strategy

TINY = ("kron:7", "rmat:7:8", "grid:12:12:0.9", "rgg:7", "er:200:4")
EXPECTED = {  # the first reference of each algorithm: the fastest library that has it
    "bfs": "scipy breadth_first_order",
    "sssp": "scipy dijkstra",
    "pagerank": "scipy power iteration (networkx.pagerank)",
    "cc": "scipy connected_components (weak)",
    "scc": "scipy connected_components (strong)",
    "bc": "networkx betweenness_centrality",
    "color": "numpy max-label fixpoint",
}


@pytest.fixture(scope="module")
def tiny_results():
    """Every smoke case on the tiny graphs (no real graphs), graphgear and references timed once each."""
    saved = suites.SMOKE_GENERATED
    suites.SMOKE_GENERATED = TINY
    try:
        cases = suites.smoke_suite(None)
    finally:
        suites.SMOKE_GENERATED = saved
    graphs: dict = {}
    return cases, [suites.run_case(case, graphs, backend="cpu", repeat=1) for case in cases]


def test_smoke_suite_covers_every_algorithm_and_graph(tiny_results):
    cases, _ = tiny_results
    assert {c.algorithm for c in cases} == set(suites.ALL_ALGORITHMS)
    assert len(cases) == len(suites.ALL_ALGORITHMS) * len(TINY)
    assert all(c.graph.endswith(":w") for c in cases if c.algorithm == "sssp")  # weighted generator specs


def test_smoke_cases_agree_with_their_references(tiny_results):
    _, results = tiny_results
    for r in results:
        assert not r.error, f"{r.case}: {r.error}"
        assert r.agreement and all(ok for ok, _ in r.agreement.values()), f"{r.case}: {r.agreement}"
        assert r.seconds > 0 and all(t > 0 for t in r.reference_times.values())


def test_each_row_names_its_reference(tiny_results):
    _, results = tiny_results
    for r in results:
        assert next(iter(r.reference_times)) == EXPECTED[r.case.algorithm], r.case
        if r.case.algorithm != "bc":  # NetworkX only where nothing faster has the algorithm
            assert not any(name.startswith("networkx") for name in r.reference_times), r.case


def test_unweighted_sssp_reference_and_renumbered_sources():
    """An unweighted graph's SSSP compares with SciPy's unweighted shortest paths; a graph whose ids were renumbered
    (labels) gets its source as a label, the references as an index, and they agree."""
    g = gg.Graph.from_edges(np.array([10, 20, 30, 20]), np.array([20, 30, 40, 40]), renumber=True)
    assert g.vertex_ids is not None
    for algorithm in ("bfs", "sssp"):
        r = suites.run_case(suites.Case(algorithm, "labelled"), {"labelled": g}, backend="cpu", repeat=1)
        assert all(ok for ok, _ in r.agreement.values()), r.agreement
    assert [ref.name for ref in references("sssp", g, 0)][0] == "scipy shortest_path (unweighted)"


def test_pagerank_power_is_networkx_pagerank():
    """The SciPy power iteration is networkx.pagerank's definition: dangling vertices, weights, directed graphs."""
    g = gg.load("rmat:8:4:w")
    ours = pagerank_power(g.to_scipy())
    theirs = nx.pagerank(g.to_networkx())
    assert np.abs(ours - np.array([theirs[v] for v in range(g.num_vertices)])).sum() < 1e-9
    assert pagerank_power(gg.Graph.from_edges([], [], num_vertices=0).to_scipy()).size == 0


def test_tree_depths_are_bfs_distances():
    for spec in ("grid:9:9:0.6", "rmat:7:4"):
        g = gg.load(spec)
        m = g.to_scipy()
        s = int(np.argmax(g.out_degree()))
        order, pred = csgraph.breadth_first_order(m, s, directed=g.directed, return_predecessors=True)
        expected = csgraph.shortest_path(m, indices=s, unweighted=True, directed=g.directed)
        np.testing.assert_array_equal(tree_depths(order, pred), expected)


@pytest.mark.gpu
def test_the_gpu_ablation_times_every_technique_the_table_and_auto():
    """`graphgear bench --suite gpu`'s ablation: a column per technique and synchronisation, then the configuration
    table's strategy fixed for the run, MultiGraph's hybrid and auto (issue 24, points 2 and 4), each a positive
    time."""
    from graphgear.bench import gpu

    # wiki-Vote is renumbered (its ids have gaps): the sources are its labels, as the public calls take them
    rows = gpu.ablation(["kron:10", str(real_graph("social/wiki-Vote.txt"))], repeat=1, progress=lambda message: None)
    columns = ([f"{name}/{strategy.sync}" for name, strategy in gpu.ablation_strategies()]
               + [f"vertex_group-1+supplementary_queues@16384/{sync}" for sync in ("sync", "async")]
               + ["table", "hybrid", "auto"])
    assert len(rows) == 2 and all(row[c] > 0 for row in rows for c in columns)
    assert [row["wrong"] for row in rows] == [{}, {}]  # every column's distances are the CPU's
    degree = gg.load("kron:10").out_degree()  # the vertices each support takes, printed beside the table
    assert rows[0]["reach"] == {"warp_gather": int((degree >= 32).sum()), "block_gather": int((degree >= 256).sum()),
                                "dynamic_parallelism": 0, "supplementary_queues": 0,
                                "supplementary_queues@16384": 0}


@pytest.mark.gpu
def test_a_supplementary_column_sets_the_threshold_for_its_call_only():
    """The ablation's supplementary queues at a given threshold (SupplementaryAt): the backend's threshold is the
    column's during the call, its own again after it, and the distances are the CPU's."""
    from graphgear.backends import get_backend
    from graphgear.bench import gpu

    g = gg.load("kron:12")
    hub = int(np.argmax(g.out_degree()))
    be = get_backend("cuda")
    seen = []
    original = gg.bfs

    def spy(*args, **kwargs):
        seen.append(be.supplementary_threshold)
        return original(*args, **kwargs)

    strategy = Strategy(balance="vertex_group", group_size=1, supports=frozenset({"supplementary_queues"}))
    before = be.supplementary_threshold
    with pytest.MonkeyPatch.context() as mp:
        from graphgear import api
        mp.setattr(api, "bfs", spy)
        result = gpu._technique_bfs(g, hub, gpu.SupplementaryAt(strategy, 64))
    assert seen == [64] and be.supplementary_threshold == before
    assert np.array_equal(result.distances, gg.bfs(g, hub, backend="cpu").distances)


@pytest.mark.gpu
def test_the_dedup_ablation_times_every_technique_and_counts_what_each_leaves():
    """`graphgear bench --suite gpu`'s duplicate-removal ablation: Bellman-Ford on a weighted graph per technique, a
    positive time each, and the frontier entries computed from one source: none lists more than the exact claim
    (atomic: each round's improved vertices once, the fewest any technique can list), every technique at least that."""
    from graphgear.bench import gpu

    (row,) = gpu.dedup_ablation(["kron:12"], repeat=1, progress=lambda message: None)
    assert row["graph"] == "kron:12:w"
    assert all(row[c] > 0 for c in gpu.DEDUP_TECHNIQUES) and row["wrong"] == {}
    listed = {c: row[f"{c} listed"] for c in gpu.DEDUP_TECHNIQUES}
    assert listed["none"] > listed["atomic"] > 0
    assert all(listed[c] >= listed["atomic"] for c in gpu.DEDUP_TECHNIQUES)


def test_path_ablation_names_sep_graphs_eight_paths_then_the_controllers():
    """The path ablation's columns: each of SEP-Graph's eight paths once, named as the trace names it, then static,
    adaptive (Algorithm 1), hybrid and auto; and the load-balancing ablation holds Busato's supports, alone and
    together, on the node-based mapping."""
    from graphgear.bench import gpu

    columns = gpu.path_columns()
    assert [c for c, _ in columns[8:]] == ["static", "adaptive", "hybrid", "auto"]
    paths = [c for c, _ in columns[:8]]
    assert len(set(paths)) == 8 and all(st.path == c for c, st in columns[:8])
    assert {p.split("-")[0] for p in paths} == {"sync", "async"} and {p.split("-")[2] for p in paths} == {"dd", "td"}
    supports = {name: st for name, st in gpu.ablation_strategies() if "+" in name}
    assert {st.supports for st in supports.values()} == {
        frozenset({"warp_gather"}), frozenset({"block_gather"}), frozenset({"supplementary_queues"}),
        frozenset({"warp_gather", "block_gather", "supplementary_queues"}), frozenset({"dynamic_parallelism"})}
    assert [st.sync for name, st in gpu.ablation_strategies() if "dynamic" in name] == ["sync"]  # no persistent form
    # the supplementary queues again at the paper's GPU's threshold (a GTX 980's resident threads halved)
    at = {c: st for c, st in gpu.ablation_columns() if isinstance(st, gpu.SupplementaryAt)}
    assert list(at) == ["vertex_group-1+supplementary_queues@16384/sync", "vertex_group-1+supplementary_queues@16384/async"]
    assert {st.threshold for st in at.values()} == {16 * 2048 // 2}
    assert [st.strategy for st in at.values()] == [supports["vertex_group-1+supplementary_queues"].with_(sync=s)
                                                   for s in ("sync", "async")]
    # MultiGraphS's segments: one column (no persistent form), on the in-degree groups they need
    segmented = [st for name, st in gpu.ablation_strategies() if name == "segmented"]
    assert segmented == [Strategy(balance="segmented")]
    assert gpu.technique_layout(segmented[0]) == "in_degree_groups" and gpu.technique_layout("auto") == "auto"


@pytest.mark.gpu
def test_the_path_ablation_runs_each_path_as_named():
    """Each fixed path's column runs that path (the trace of a run under its strategy names it and no other), and
    every column has a positive time."""
    from graphgear.bench import gpu

    (row,) = gpu.path_ablation(["kron:10"], repeat=1, progress=lambda message: None)
    assert all(row[c] > 0 for c, _ in gpu.path_columns()) and row["wrong"] == {}
    g = gg.load("kron:10")
    source = int(np.argmax(g.out_degree()))
    for column, strategy in gpu.path_columns()[:8]:
        assert {r.path for r in gg.bfs(g, source, backend="cuda", strategy=strategy).trace.rows} == {column}


@pytest.mark.gpu
def test_the_pagerank_ablation_times_every_method_and_layout():
    """PageRank by method and layout, MultiGraph's dense mode among them: positive times, and the power iteration
    and the dense mode take the same iterations (the same iterates, the gather summed in another order)."""
    from graphgear.bench import gpu

    (row,) = gpu.pagerank_ablation(["rmat:15:32"], repeat=1, progress=lambda message: None)
    assert all(row[c] > 0 and row[f"{c} iterations"] > 0 for c, _ in gpu.PAGERANK_COLUMNS) and row["wrong"] == {}
    assert len({row[f"{c} iterations"] for c in ("power/given", "power/degree", "dense/given", "dense/degree")}) == 1


def test_an_ablation_cell_whose_result_is_not_the_cpus_is_marked_wrong(monkeypatch):
    """Every column of an ablation row is timed from the same sources and its result checked against the reference;
    a column that computes something else keeps its time but is marked WRONG with the difference (the gpu suite's
    segmented grid once took 0.8 ms against a second for every other technique, its distances wrong)."""
    import sys
    import types

    from graphgear.bench import gpu

    used: dict[str, list] = {}

    def timed(cp, fn, sources, repeat, rng):  # the device's timer, on the host: which sources each column ran from
        picked = [rng.choice(sources) for _ in range(repeat)]
        for source in picked:
            fn(int(source))
        return [1e-3] * repeat, None

    def call(g, source, column):
        used.setdefault(column, []).append(source)
        result = gg.bfs(g, source, backend="cpu")
        if column == "lying":
            result.distances[np.flatnonzero(result.distances > 0)[:1]] += 1
        return result

    monkeypatch.setitem(sys.modules, "cupy", types.ModuleType("cupy"))
    monkeypatch.setattr(gpu, "time_gpu", timed)
    columns = [("honest", "honest"), ("lying", "lying"), ("again", "again")]
    (row,) = gpu._ablation_rows(["kron:8"], columns, call, 4, 7, lambda m: None, "test", gpu._cpu_bfs,
                                gpu._same_output("bfs"))
    assert list(row["wrong"]) == ["lying"] and "distances differ" in row["wrong"]["lying"]
    assert used["honest"] == used["lying"] == used["again"] and len(set(used["honest"][:4])) > 1
    assert gpu.ablation_cell(row, "lying", "1.00") == "1.00 WRONG (distances differ)"
    assert gpu.ablation_cell(row, "honest", "1.00") == "1.00"
    assert gpu.reach_line({"graph": "graphs/wiki-Vote.txt", "reach": {"warp_gather": 1200, "block_gather": 0}}) == (
        "wiki-Vote.txt: vertices at a support's threshold: warp_gather 1,200, block_gather 0")


def test_the_ablation_tables_print_every_column_marked_where_wrong(monkeypatch, capsys):
    """The ablation tables the gpu suite and benchmarks/ablation_tables.py print come from one registry
    (gpu.ABLATION_TABLES): each table's cell formats a row of its columns, a wrong cell is marked, and the script
    prints a row per graph, then the support reach lines."""
    import importlib.util
    from pathlib import Path

    from graphgear.bench import gpu

    assert list(gpu.ABLATION_TABLES) == ["balance", "dedup", "paths", "pagerank"]
    for name, table in gpu.ABLATION_TABLES.items():
        row = {"wrong": {}}
        for c in table.columns():
            row.update({c: 1234.5678, f"{c} listed": 4321, f"{c} iterations": 12})
        cells = [table.marked(row, c) for c in table.columns()]
        assert cells and all(cell.startswith("1,234.57") for cell in cells), name
        assert "{n}" in table.title and table.repeat == (3 if name == "pagerank" else 5)
        if name == "dedup":
            assert table.cell(row, "none") == "1,234.57 / 4,321"

    ran = []

    def fake(graphs, repeat, progress):
        ran.append((tuple(graphs), repeat))
        return [{"graph": f"x/{graphs[0]}", "a": 1.0, "b": 2.0, "wrong": {"b": "distances differ"},
                 "reach": {"warp_gather": 3}}]

    assert [name for name, table in gpu.ABLATION_TABLES.items() if table.note is gpu.reach_line] == ["balance"]
    assert all(table.note is None for name, table in gpu.ABLATION_TABLES.items() if name != "balance")
    monkeypatch.setattr(gpu, "ABLATION_TABLES", {"balance": gpu.AblationTable("k", fake, "t {n}", lambda: ["a", "b"],
                                                                              lambda row, c: f"{row[c]:.1f}",
                                                                              note=gpu.reach_line)})
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "ablation_tables.py"
    spec = importlib.util.spec_from_file_location("ablation_tables", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.main(["balance", "--graphs", "g1", "g2"])
    out = capsys.readouterr().out
    assert ran == [(("g1",), 5), (("g2",), 5)]
    assert "| graph | a | b |" in out and "| g1 | 1.0 | 2.0 WRONG (distances differ) |" in out
    assert "g2: vertices at a support's threshold: warp_gather 3" in out


def test_dedup_ablation_names_every_technique_on_an_edge_queue():
    """Each duplicate-removal technique is its own column, on the frontier it applies to (an edge queue), valid."""
    from graphgear.bench import gpu

    strategies = dict(gpu.dedup_strategies())
    assert list(strategies) == list(gpu.DEDUP_TECHNIQUES) == ["none", "warp_hash", "block", "lookup", "atomic"]
    assert all(st.frontier == "edge_queue" and st.dedup == name and st.sync == "sync"
               for name, st in strategies.items())


def test_support_reach_counts_the_vertices_past_each_supports_threshold(monkeypatch):
    """The reach line under the balance ablation: warp gathering from degree 32, block gathering from the block,
    dynamic parallelism from the backend's grid_gather_degree, the supplementary queues past half the device's
    resident threads (or the backend's override) and past the paper's GPU's 16,384 (the SupplementaryAt column).
    The backend and the device are faked: a star of 20,000 leaves and one of exactly 16,384 (not past it), on a
    CPU-only machine."""
    import types

    from graphgear import backends
    from graphgear.backends.cuda import runtime as rt
    from graphgear.bench import gpu

    src = np.r_[np.zeros(20_000, dtype=np.int64), np.full(16_384, 20_001)]
    dst = np.r_[np.arange(1, 20_001), np.arange(20_002, 20_002 + 16_384)]
    g = gg.Graph.from_edges(src, dst, num_vertices=20_002 + 16_384, directed=True)
    fake = types.SimpleNamespace(grid_gather_degree=4_096, supplementary_threshold=None)
    monkeypatch.setattr(backends, "get_backend", lambda name: fake)
    monkeypatch.setattr(rt, "resident_threads", lambda: 270_336)  # an H200's: half of them 135,168
    assert gpu.support_reach(g) == {"warp_gather": 2, "block_gather": 2, "dynamic_parallelism": 2,
                                    "supplementary_queues": 0, "supplementary_queues@16384": 1}
    fake.supplementary_threshold = 64  # the backend's override: degree above 64
    assert gpu.support_reach(g)["supplementary_queues"] == 2

"""Engine pieces: Strategy values and their string form, controllers, trace, frontier, CPU atomics, and a
user-defined vertex program (widest path) under every execution path."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphgear as gg
from conftest import BACKENDS, WIDEST_PATH, widest_reference
from graphgear.backends import get_backend
from graphgear.backends.cpu.atomics import atomic_add, atomic_cas, atomic_fadd, atomic_max, atomic_min
from graphgear.engine.controller import (
    LOCAL_HOPS,
    FixedController,
    IterationInfo,
    IterativeController,
    TraversalController,
    configuration_table,
    controller_name,
    controller_prototype,
    fifo_pass,
    hop_friendly,
    make_controller,
    near_far_hops,
    note_depth,
    parsed_once,
    run_controller,
)
from graphgear.engine.strategy import CHOICES, Strategy
from graphgear.engine.trace import Trace
from graphgear.errors import BackendError, StrategyError
from graphgear.frontier import Frontier

# ---------------------------------------------------------------------------------------------------------- Strategy


def test_strategy_defaults_and_path():
    s = Strategy()
    assert (s.direction, s.sync, s.drive, s.path) == ("push", "sync", "data", "sync-push-dd")
    assert str(s) == "default" and Strategy.parse("default") == s


@st.composite
def valid_strategies(draw):
    while True:
        fields = {name: draw(st.sampled_from(values)) for name, values in CHOICES.items()}
        fields["supports"] = frozenset(draw(st.sets(st.sampled_from(["warp_gather", "block_gather", "supplementary_queues"]))))
        fields["hops"] = draw(st.sampled_from([1, 2, 16]))
        try:
            return Strategy(**fields)
        except StrategyError:
            continue


@settings(max_examples=150, deadline=None)
@given(s=valid_strategies())
def test_strategy_string_round_trip(s):
    assert Strategy.parse(str(s)) == s
    assert Strategy(**{**s.to_dict(), "supports": frozenset(s.to_dict()["supports"])}) == s


@pytest.mark.parametrize(
    "text,words",
    [
        ("direction=sideways", "direction='sideways'"),
        ("direction=pull,frontier=edge_queue", "cannot read an edge queue"),
        ("drive=topology,frontier=edge_queue", "nothing to hold"),
        ("direction=pull,supports=warp_gather", "balance push"),
        ("dedup=warp_hash,frontier=bitmap", "duplicate removal"),
        ("dedup=lookup", "dedup=lookup removes the duplicates an edge queue would hold"),
        ("dedup=lookup,frontier=bitmap", "duplicate removal applies to a data-driven queue"),
        ("frontier=two_phase,sync=async", "frontier=two_phase expands"),
        ("frontier=two_phase,direction=pull", "frontier=two_phase expands"),
        ("frontier=two_phase,drive=topology", "frontier=two_phase expands"),
        ("frontier=two_phase,dedup=warp_hash", "duplicate removal applies"),
        ("group_size=4", "group_size applies"),
        ("group_size=three,balance=vertex_group", "group_size must be"),
        ("speed=fast", "unknown field 'speed'"),
        ("direction", "key=value"),
        ("direction=push,direction=pull", "given twice"),
        ("supports=teleport", "supports=teleport"),
        ("hops=4", "hops=4 runs several levels between grid barriers"),
        ("sync=async,hops=0", "hops must be a whole number"),
        ("sync=async,hops=many", "hops must be a whole number"),
        ("sync=async,hops=8,direction=pull,frontier=bitmap", "direction=push"),
        ("sync=async,hops=8,lookup=bitmask", "bitmask lookup"),
        ("sync=async,hops=8,balance=merge_path", "merge_path"),
        ("balance=segmented,sync=async", "balance=segmented .*needs sync=sync"),
        ("balance=segmented,direction=pull,frontier=bitmap", "balance=segmented"),
        ("balance=segmented,drive=topology,frontier=bitmap", "balance=segmented"),
        ("balance=segmented,frontier=bitmap", "balance=segmented"),
        ("balance=segmented,supports=warp_gather", "no supports"),
        ("sync=async,supports=dynamic_parallelism", "dynamic_parallelism .*needs sync=sync"),
        ("balance=twc,supports=dynamic_parallelism", "balance=vertex_group, warp_scan, block_scan"),
        ("balance=merge_path,supports=dynamic_parallelism", "dynamic_parallelism"),
    ],
)
def test_impossible_or_malformed_strategies(text, words):
    with pytest.raises(StrategyError, match=words.replace("(", r"\(")):
        Strategy.parse(text)


def test_with_validates():
    with pytest.raises(StrategyError):
        Strategy().with_(direction="pull", frontier="edge_queue")
    with pytest.raises(StrategyError, match="unknown Strategy field"):
        Strategy().with_(colour="red")


# ---------------------------------------------------------------------------------------------------------- controllers


def stats(avg, gini, max_degree):
    return {"avg_degree": avg, "gini": gini, "max_degree": max_degree}


@pytest.mark.parametrize(
    "avg,gini,max_degree,balance,group,frontier,sync",
    [
        (2.5, 0.3, 6, "vertex_group", 1, "edge_queue", "async"),  # road-like, skewed: node-based-1 + edge queue
        (3.9, 0.02, 4, "vertex_group", 4, "vertex_queue", "async"),  # mesh
        (40.0, 0.1, 60, "vertex_group", 16, "vertex_queue", "sync"),
        (80.0, 0.1, 120, "vertex_group", 32, "vertex_queue", "sync"),
        (30.0, 0.9, 64_779, "warp_scan", 32, "vertex_queue", "sync"),  # kron
        (10.0, 0.7, 1_000, "warp_scan", 32, "vertex_queue", "sync"),  # Gini >= 0.6: multiple kernel calls
    ],
)
def test_configuration_table(avg, gini, max_degree, balance, group, frontier, sync):
    s, why = configuration_table(stats(avg, gini, max_degree))
    assert (s.balance, s.group_size, s.frontier, s.sync) == (balance, group, frontier, sync)
    assert ("warp_gather" in s.supports) == (max_degree > 32)
    assert ("block_gather" in s.supports) == (max_degree > 256)
    assert "supplementary_queues" not in s.supports
    assert why
    big, _ = configuration_table(stats(30.0, 0.9, 10**6))
    assert "supplementary_queues" in big.supports
    assert configuration_table(stats(30.0, 0.9, 10), name="kron:20")[0].lookup == "bitmask"


def info(it, fv, fe, n=1000, m=20_000):
    return IterationInfo(it, fv, fe, n, m)


def test_algorithm_2_switches_push_pull_push():
    c = TraversalController(Strategy(), 1000, 20_000)
    assert c.choose(info(0, 1, 20)).decision == "push"
    assert c.choose(info(1, 20, 400)).decision == "push"  # 400 <= (20000 - 400) / 15
    d = c.choose(info(2, 400, 8_000))
    assert d.decision == "pull" and d.strategy.direction == "pull" and "switch to pull" in d.reason
    assert c.choose(info(3, 600, 9_000)).decision == "pull"  # |A| 600 >= |V| / 2
    d = c.choose(info(4, 100, 1_000))
    assert d.decision == "push" and "switch to push" in d.reason


def test_algorithm_2_never_switches_on_sparse_graphs():
    c = TraversalController(Strategy(), 1000, 3000)  # |E|/|V| = 3 < delta = 5
    for it in range(3):
        d = c.choose(info(it, 500, 2500, m=3000))
        assert d.strategy.path == "async-push-dd" and "delta" in d.reason


def test_sparse_pass_with_hops():
    """A sparse graph's one async pass expands `hops` levels per grid barrier when given (with status lookup, which
    label correcting needs); without, it stays level-synchronous, and a denser graph never gets them."""
    base = Strategy(lookup="bitmask", balance="vertex_group", group_size=4)
    hops = TraversalController(base, 1000, 3000, hops=LOCAL_HOPS).choose(info(0, 1, 3, m=3000))
    assert (hops.strategy.hops, hops.strategy.lookup, hops.strategy.path) == (LOCAL_HOPS, "status", "async-push-dd")
    assert f"{LOCAL_HOPS} levels per grid barrier" in hops.reason
    other = TraversalController(base, 1000, 3000).choose(info(0, 1, 3, m=3000))
    assert other.strategy.hops == 1 and other.strategy.lookup == "bitmask"
    dense = TraversalController(base, 1000, 30000, hops=LOCAL_HOPS).choose(info(0, 1, 30, m=30000))
    assert dense.strategy.hops == 1


def test_fifo_pass_is_the_sparse_pass_on_a_fifo_backend():
    """SEP-Graph's async push-dd pass where the backend drains async worklists as one FIFO on one thread: level by
    level in FIFO order (hops 1, the GPU's hops note dropped from the reason), and only that decision, only there."""
    base = Strategy(balance="vertex_group", group_size=4)
    sparse = TraversalController(base, 1000, 3000, hops=LOCAL_HOPS).choose(info(0, 1, 3, m=3000))
    serial = fifo_pass(sparse, "fifo")
    assert serial.strategy == sparse.strategy.with_(hops=1) and serial.strategy.path == "async-push-dd"
    assert "levels per grid barrier" not in serial.reason and "one FIFO worklist on one thread" in serial.reason
    assert serial.reason.startswith("|E|/|V| = 3.00 < delta 5: one async push-dd pass")
    assert fifo_pass(sparse, "levels") is None  # the GPU's async advance runs level by level in parallel
    dense = TraversalController(base, 1000, 30000).choose(info(0, 1, 30, m=30000))
    assert fifo_pass(dense, "fifo") is None
    fixed = FixedController(Strategy.parse("sync=async")).choose(info(0, 1, 30, m=30000))
    assert fifo_pass(fixed, "fifo").reason == "fixed by the caller: one FIFO worklist on one thread (this backend's " \
                                               "async order)"
    assert fifo_pass(FixedController(Strategy.parse("sync=async,direction=pull")).choose(info(0, 1, 3)), "fifo") is None
    assert get_backend("cpu").capabilities.async_order == "fifo"


@pytest.mark.parametrize("spec,takes", [("grid:30:30", True), ("rgg:12", True), ("er:4000:20", True), ("rmat:12:8", False),
                                        ("kron:12", False)])
def test_near_far_hops_on_graphs_without_hubs(spec, takes):
    """Near-far's hops by maximum degree alone: a grid, a random geometric graph and a dense Erdos-Renyi graph have no
    vertex above NEAR_FAR_HOPS_MAX_DEGREE, the power-law graphs do."""
    g = gg.load(spec)
    assert near_far_hops(g) == takes


@pytest.mark.parametrize("spec,takes", [("grid:30:30", True), ("rmat:10:2", False), ("kron:10", False)])
def test_auto_gives_hops_to_monotone_traversals_of_hop_friendly_graphs(spec, takes):
    """Sparse and hub-free (a grid, a road network): LOCAL_HOPS for a monotone program, none for another; a sparse
    power-law graph (its hubs make its diameter small) or a dense one: none."""
    g = gg.load(spec)
    assert hop_friendly(g) == takes
    first = info(0, 1, 3, n=g.num_vertices, m=g.num_arcs)
    assert make_controller("auto", g, "traversal", monotone=True).choose(first).strategy.hops == (LOCAL_HOPS if takes else 1)
    assert make_controller("auto", g, "traversal").choose(first).strategy.hops == 1


def test_controller_prototype_decides_as_make_controller_and_follows_the_learned_depth():
    """A run reads its controller's decisions before its launch from a prototype built once per graph and request
    (run_controller gives each run a copy of it): the same object while nothing changes, the same
    decisions as make_controller's controller, and a new one once a deep traversal of the graph is learned (the
    controller then takes the graph as high-diameter). A Strategy or a caller's controller is make_controller's."""
    g = gg.load("grid:12:12:0.9")
    one = controller_prototype("auto", g, "traversal", True, "levels")
    assert controller_prototype("auto", g, "traversal", True, "levels") is one
    assert controller_prototype("auto", g, "traversal", False, "levels") is not one
    fresh = make_controller("auto", g, "traversal", monotone=True)
    assert one.device_rules() == fresh.device_rules() and one.name == fresh.name == "auto"
    first = info(0, 1, 3, n=g.num_vertices, m=g.num_arcs)
    assert one.choose(first).strategy == fresh.choose(first).strategy
    even = gg.load("rgg:12")  # |E|/|V| above SEP-Graph's delta, degrees even (Gini about 0.2)
    shallow = controller_prototype("auto", even, "traversal", False, "levels")
    assert shallow.device_rules() is not None  # the device applies Algorithm 2's rules
    note_depth(even, 10_000)  # a deep traversal learned: the graph counts as high-diameter from now on
    deep = controller_prototype("auto", even, "traversal", False, "levels")
    assert deep is not shallow and deep.deep and deep.device_rules() is None
    assert make_controller("auto", even, "traversal").device_rules() is None
    caller = FixedController(Strategy(direction="pull"))
    assert controller_prototype(caller, g, "traversal") is caller


def test_a_runs_controller_is_a_copy_its_rounds_leave_the_prototype_as_it_was():
    """run_program's own controller is copy.copy(prototype) (run_controller, TraversalController.__copy__): the same
    attributes, a different object of the same class, and Algorithm 2's state (E', the policy) changed by its rounds
    only in the copy, so the next run starts from the prototype's."""
    import copy

    g = gg.load("rmat:12:8")
    prototype = controller_prototype("auto", g, "traversal", True, "levels")
    before = dict(vars(prototype))
    run = copy.copy(prototype)
    assert run is not prototype and type(run) is type(prototype) and vars(run) == before
    m = g.num_arcs
    for r, (vertices, edges) in enumerate([(1, 50), (40, m // 3), (2000, m // 2), (30, 100)]):
        run.choose(info(r, vertices, edges, n=g.num_vertices, m=m))
    assert vars(run) != before and run.policy == "push" and run.unexplored < before["unexplored"]
    assert vars(prototype) == before
    assert copy.copy(prototype).choose(info(0, 1, 50, n=g.num_vertices, m=m)).strategy == \
        make_controller("auto", g, "traversal", monotone=True).choose(info(0, 1, 50, n=g.num_vertices, m=m)).strategy
    mine = run_controller("auto", g, "traversal", True, "levels")  # what run_program takes: a copy, the same state
    assert mine is not prototype and vars(mine) == before
    fixed = Strategy(direction="pull")
    assert run_controller(fixed, g, "traversal").strategy == fixed  # a caller's Strategy: make_controller's


def test_hops_need_a_monotone_program_and_a_program():
    """Label correcting is refused to a program that does not declare itself monotone, and to a functor advance
    (BC's level-synchronous forward phase); a monotone program's result is the same with hops (the CPU ignores them)."""
    import dataclasses

    g = gg.load("grid:12:12:0.9:w")
    n = g.num_vertices
    values = np.full(n, -np.inf)
    buffers = values.copy()
    buffers[0] = np.inf
    hops = Strategy(sync="async", hops=4)
    run = gg.run_program(WIDEST_PATH, g, values, buffers, [0], backend="cpu", strategy=hops)
    np.testing.assert_array_equal(run.values, widest_reference(g, 0))
    with pytest.raises(StrategyError, match="monotone=True"):
        gg.run_program(dataclasses.replace(WIDEST_PATH, monotone=False), g, values, buffers, [0], backend="cpu",
                       strategy=hops)
    with pytest.raises(StrategyError, match="runs level by level"):
        gg.betweenness_centrality(g, sources=[0], backend="cpu", strategy=hops)
    summing = dataclasses.replace(WIDEST_PATH, accumulate="sum", monotone=True)
    with pytest.raises(StrategyError, match="accumulates with sum"):
        gg.run_program(summing, g, values, buffers, [0], backend="cpu", strategy=hops)


def test_algorithm_1_inspects_then_predicts():
    c = IterativeController(Strategy())
    seen = []
    for it, seconds in enumerate([0.010, 0.020, 0.001]):
        d = c.choose(info(it, 1000, 20_000))
        seen.append(d.strategy.path)
        assert "inspect" in d.reason
        c.observe(d, info(it, 1000, 20_000), seconds)
    assert seen == ["sync-pull-td", "async-push-td", "async-push-dd"]
    d = c.choose(info(3, 10, 100))  # few active edges: data-driven push is predicted cheapest
    assert d.strategy.path == "async-push-dd" and "predicted" in d.reason


def test_host_rounds_are_timed_on_the_backends_timeline(monkeypatch):
    """The host loop times each round on the backend's timeline (on the GPU: CUDA events, the round as it ran on
    the device, not the host's time to queue it), and Algorithm 1 compares those times: here a timeline that says
    each round took 1, 2, 3, ... ms, which the trace rows and the controller's normalised times show."""
    from graphgear.algorithms.connected_components import LABEL_PROPAGATION

    be = get_backend("cpu")
    ticks = iter(range(1, 1000))

    class Timeline:
        def mark(self):
            pass

        def seconds(self):
            return [next(ticks) * 1e-3]

    monkeypatch.setattr(be, "timeline", lambda: Timeline(), raising=False)
    g = gg.load("grid:6:6")
    controller = IterativeController(Strategy())
    run = gg.run_program(LABEL_PROPAGATION, g, np.full(36, np.inf), np.arange(36, dtype=np.float64), None,
                         backend=be, strategy=controller)
    rows = run.trace.rows
    assert len(rows) >= 3 and [r.seconds for r in rows] == [k * 1e-3 for k in range(1, len(rows) + 1)]
    work = [IterativeController._work(s, info(k, 36, rows[k].frontier_edges, n=36, m=g.num_arcs))
            for k, s in enumerate(controller.candidates)]
    assert controller.normalised == pytest.approx([(k + 1) * 1e-3 / w for k, w in enumerate(work)])


def test_make_controller_forms():
    g = gg.load("grid:10:10")
    assert isinstance(make_controller("direction=pull", g, "traversal"), FixedController)
    assert isinstance(make_controller(Strategy(), g, "iterative"), FixedController)
    assert make_controller("static", g, "traversal").name == "static"
    assert isinstance(make_controller("auto", g, "traversal"), TraversalController)
    assert isinstance(make_controller("adaptive", g, "iterative"), IterativeController)
    with pytest.raises(StrategyError):
        make_controller(42, g, "traversal")
    with pytest.raises(StrategyError):
        make_controller("auto", g, "sideways")



def test_controller_name_is_the_built_controllers():
    """The trace name betweenness takes without building a controller is the one make_controller's would carry."""
    g = gg.load("grid:10:10")
    forms = ["auto", "static", "adaptive", "hybrid", "direction=pull", Strategy(direction="push"),
             FixedController(Strategy())]
    for form in forms:
        assert controller_name(form) == make_controller(form, g, "traversal").name, form
    assert [controller_name(f) for f in forms] == ["auto", "static", "adaptive", "hybrid", "fixed", "fixed", "fixed"]


def test_parsed_once_parses_short_forms_only():
    """Betweenness and SCC make a controller per source or phase: a short form is parsed once, before; a named
    controller, a Strategy and a controller pass as given; a faulty short form is refused by name."""
    assert parsed_once("direction=pull") == Strategy(direction="pull")
    fixed = FixedController(Strategy())
    for form in ("auto", "static", "adaptive", "hybrid", Strategy(sync="async"), fixed):
        assert parsed_once(form) is form
    with pytest.raises(StrategyError, match="sideways"):
        parsed_once("direction=sideways")

# ---------------------------------------------------------------------------------------------------------- trace


def test_trace_json_and_table(tmp_path):
    r = gg.bfs(gg.load("kron:10"), 0, backend="cpu")
    data = json.loads(r.trace.to_json(str(tmp_path / "t.json")))
    assert data["algorithm"] == "bfs" and len(data["iterations"]) == len(r.trace)
    assert set(data["iterations"][0]) >= {"iteration", "strategy", "frontier_vertices", "frontier_edges", "seconds",
                                          "decision", "reason"}
    assert json.loads((tmp_path / "t.json").read_text()) == data
    text = str(r.trace)
    assert "decision" in text and "reason" in text
    t = Trace(algorithm="x")
    for i in range(100):
        t.add(strategy="default", path="sync-push-dd", frontier_vertices=i, frontier_edges=i, edges_processed=i,
              seconds=0.001, decision="push", reason="test")
    assert "more iterations" in str(t) and t.seconds == pytest.approx(0.1)


def test_trace_deferred_rows_come_first_and_once():
    """Trace.defer: the rows appear when the trace is first read, before rows added later, with their total time
    known before; the fill runs once."""
    t = Trace(algorithm="x")
    calls = []

    def fill():
        calls.append(1)
        for i in range(3):
            t.add(strategy="default", path="async-push-dd", frontier_vertices=i, frontier_edges=i, edges_processed=i,
                  seconds=0.5, decision="push", reason="device")

    t.defer(fill, 1.5)
    assert t.seconds == pytest.approx(1.5) and not calls
    t.add(strategy="default", path="sync-pull-dd", frontier_vertices=9, frontier_edges=9, edges_processed=9,
          seconds=0.25, decision="pull", reason="host")
    assert calls == [1] and t.decisions() == ["push", "push", "push", "pull"]
    assert [r.iteration for r in t] == [0, 1, 2, 3] and t.seconds == pytest.approx(1.75)
    assert len(t) == 4 and calls == [1]


def test_trace_deferred_fills_keep_their_order():
    """Two deferred fills add their rows in the order they were deferred (a fill's adds read the rows, which must not
    start the next fill in the middle of it)."""
    t = Trace(algorithm="x")

    def fill(decision):
        def run():
            for _ in range(2):
                t.add(strategy="default", path="async-push-dd", frontier_vertices=1, frontier_edges=1,
                      edges_processed=1, seconds=0.25, decision=decision, reason="device")
        return run

    t.defer(fill("push"), 0.5)
    t.defer(fill("pull"), 0.5)
    assert t.seconds == pytest.approx(1.0)
    assert t.decisions() == ["push", "push", "pull", "pull"] and t.seconds == pytest.approx(1.0)


def test_trace_deferred_seconds_asked_once_when_first_read():
    """Trace.defer with a callable total time (a device run not read back yet): nothing is asked until the time or
    the rows are read, and the callable runs once."""
    t = Trace(algorithm="x")
    asked = []

    def seconds():
        asked.append(1)
        return 0.75

    def fill():
        for _ in range(3):
            t.add(strategy="default", path="async-push-dd", frontier_vertices=1, frontier_edges=1, edges_processed=1,
                  seconds=0.25, decision="push", reason="device")

    t.defer(fill, seconds)
    assert not asked
    assert t.seconds == pytest.approx(0.75) and t.seconds == pytest.approx(0.75) and asked == [1]
    assert len(t) == 3 and t.seconds == pytest.approx(0.75) and asked == [1]


# ---------------------------------------------------------------------------------------------------------- frontier


def test_frontier_conversions():
    f = Frontier.from_vertices([5, 1, 3], 8)
    assert not f.is_dense and f.size == 3
    d = f.to_dense()
    assert d.is_dense and d.size == 3 and d.mask.tolist() == [False, True, False, True, False, True, False, False]
    assert d.to_sparse().queue.tolist() == [1, 3, 5]
    assert f.out_edges(np.arange(8)) == 9 and d.out_edges(np.arange(8)) == 9
    assert not Frontier.empty(4) and Frontier.all_vertices(4).size == 4
    with pytest.raises(ValueError):
        Frontier(3)


# ---------------------------------------------------------------------------------------------------------- atomics


@numba.njit(parallel=True)
def _hammer(counts, mins, maxs, sums, flags, n):
    for i in numba.prange(n):
        atomic_add(counts, i % 3, 1)
        atomic_min(mins, i % 2, -i)
        atomic_max(maxs, i % 2, i)
        atomic_fadd(sums, 0, 0.5)
        atomic_cas(flags, i % 4, 0, 1)


def test_atomics_lose_no_update():
    counts, mins, maxs = np.zeros(3, np.int64), np.zeros(2, np.int64), np.zeros(2, np.int32)
    sums, flags = np.zeros(1, np.float64), np.zeros(4, np.int8)
    _hammer(counts, mins, maxs, sums, flags, 200_000)
    assert counts.tolist() == [66_667, 66_667, 66_666]
    assert mins.tolist() == [-199_998, -199_999] and maxs.tolist() == [199_998, 199_999]
    assert sums[0] == 100_000.0 and flags.tolist() == [1, 1, 1, 1]


# ---------------------------------------------------------------------------------------------------------- programs


PATHS = [Strategy(sync=sy, direction=d, drive=dr, frontier="bitmap" if d == "pull" or dr == "topology" else "vertex_queue")
         for sy in ("sync", "async") for d in ("push", "pull") for dr in ("data", "topology")]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), directed=st.booleans(), path=st.sampled_from(PATHS))
def test_user_program_widest_path_every_path(seed, directed, path):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 40)), int(rng.integers(0, 120))
    g = gg.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 100, m), num_vertices=n,
                            directed=directed)
    source = int(rng.integers(0, n))
    values = np.full(n, -np.inf)
    buffers = values.copy()
    buffers[source] = np.inf
    run = gg.run_program(WIDEST_PATH, g, values, buffers, [source], backend="cpu", strategy=path)
    np.testing.assert_array_equal(run.values, widest_reference(g, source))
    assert len(run.trace) >= 1


def test_backend_names():
    assert get_backend("cpu").name == "cpu"
    with pytest.raises(BackendError, match="unknown backend"):
        get_backend("tpu")


def test_auto_backend_asks_for_a_gpu_once(monkeypatch):
    """backend="auto" resolves once a process (the check cost ~40 us on every call that left the default)."""
    import graphgear.backends as backends

    asked = []
    monkeypatch.setattr(backends, "cuda_available", lambda: asked.append(1) or False)
    backends._auto_choice.cache_clear()
    try:
        assert get_backend("auto").name == "cpu"
        assert get_backend("auto").name == "cpu"
        assert len(asked) == 1
    finally:
        backends._auto_choice.cache_clear()


def test_run_program_leaves_the_callers_arrays_alone():
    from graphgear.algorithms.bfs import BFS_PROGRAM

    g = gg.load("grid:10:10")
    values = np.full(g.num_vertices, np.inf)
    buffers = values.copy()
    buffers[0] = 0.0
    run = gg.run_program(BFS_PROGRAM, g, values, buffers, [0], backend="cpu")
    assert np.isfinite(run.values).all()
    assert np.isinf(values).all() and buffers[0] == 0.0 and np.isinf(buffers[1:]).all()


def test_run_program_from_a_source():
    """run_program(source=s) is the single-source start (values inf, buffers inf but 0 at s, the worklist [s]) the
    caller would otherwise make; values and a source together, or neither, are an error."""
    from graphgear.algorithms.bfs import BFS_PROGRAM
    from graphgear.errors import GraphError

    g = gg.load("grid:10:10")
    values = np.full(g.num_vertices, np.inf)
    buffers = values.copy()
    buffers[7] = 0.0
    np.testing.assert_array_equal(gg.run_program(BFS_PROGRAM, g, source=7, backend="cpu").values,
                                  gg.run_program(BFS_PROGRAM, g, values, buffers, [7], backend="cpu").values)
    idle = gg.run_program(BFS_PROGRAM, g, source=7, backend="cpu", max_rounds=0)
    assert np.isinf(idle.values).all() and idle.state.buffer[7] == 0.0
    assert np.isinf(np.delete(idle.state.buffer, 7)).all()
    with pytest.raises(GraphError, match="values and buffers .* or a source"):
        gg.run_program(BFS_PROGRAM, g, values, buffers, [7], source=7, backend="cpu")
    with pytest.raises(GraphError, match="values and buffers .* or a source"):
        gg.run_program(BFS_PROGRAM, g, backend="cpu")


@numba.njit
def _halve_and_report(v, state):
    state[0][v] = state[0][v] / 2
    return state[0][v] + v



@pytest.mark.parametrize("monoid", ["sum", "min", "max"])
def test_cpu_vertex_reduce(monoid):
    """vertex_reduce maps every vertex (or a frontier's) through the functor, which may write state, and combines."""
    from graphgear.functor import Functor

    f = Functor("halve_and_report", _halve_and_report, "x[v] = x[v] / 2; return x[v] + (double)v;", state=("x",))
    be = get_backend("cpu")
    x = np.random.default_rng(2).random(1000)
    combine = {"sum": np.sum, "min": np.min, "max": np.max}[monoid]
    got = be.vertex_reduce(None, f, (x_all := x.copy(),), monoid, num_vertices=1000)
    np.testing.assert_allclose(x_all, x / 2)
    np.testing.assert_allclose(got[0], combine(x / 2 + np.arange(1000)), rtol=1e-12)
    listed = np.array([3, 500, 999])
    got = be.vertex_reduce(Frontier.from_vertices(listed, 1000), f, (x_some := x.copy(),), monoid)
    assert np.array_equal(np.flatnonzero(x_some != x), listed)
    np.testing.assert_allclose(got[0], combine(x[listed] / 2 + listed), rtol=1e-12)
    empty = be.vertex_reduce(Frontier.from_vertices(np.zeros(0, dtype=np.int64), 1000), f, (x.copy(),), monoid)
    assert empty[0] == {"sum": 0.0, "min": np.inf, "max": -np.inf}[monoid]
    with pytest.raises(StrategyError, match="monoid"):
        be.vertex_reduce(None, f, (x.copy(),), "product", num_vertices=1000)


def test_known_out_edges_is_kept_for_its_degree_array_only():
    """An operator that counted a frontier's out-edges records them; another degree array is summed as usual."""
    degree = np.array([3, 0, 2, 5])
    f = Frontier.from_vertices(np.array([0, 3]), 4).known_out_edges(degree, 8)
    assert f.out_edges(degree) == 8
    assert f.out_edges(np.array([1, 1, 1, 1])) == 2
    assert Frontier.from_mask(np.array([True, False, True, False])).out_edges(degree) == 5


def test_degree_scan_is_given_for_its_degree_array_with_its_total_only():
    """Kernel C's degree prefix sum is handed to a consumer only for the degree array it was written over, and only
    with the total the producer counted (merge_path reads both instead of scanning and reading back)."""
    degree = np.array([3, 0, 2, 5])
    scan = np.array([5, 8])
    f = Frontier.from_vertices(np.array([3, 0]), 4).known_out_edges(degree, 8).known_degree_scan(degree, scan)
    assert f.degree_scan(degree) is scan
    assert f.degree_scan(np.array([1, 1, 1, 1])) is None
    assert Frontier.from_vertices(np.array([3, 0]), 4).known_degree_scan(degree, scan).degree_scan(degree) is None
    assert Frontier.from_vertices(np.array([3, 0]), 4).degree_scan(degree) is None
    assert f.to_dense().to_sparse().degree_scan(degree) is None  # a converted frontier carries none


# ------------------------------------------------------------------------------------------------------ run_steps


@numba.njit(nogil=True)
def _count_up(v, state):  # pragma: no cover - numba
    state[0][0] += 1
    state[1][state[0][0]] = v + 10 * state[0][0]


@numba.njit(nogil=True)
def _below_limit(r, state):  # pragma: no cover - numba
    return r + 1 < state[0][1] and state[0][0] == 1 + 2 * (r + 1)  # the round as counted, all of its steps run


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("limit, rounds, expected", [(5, 8, 5), (5, 3, 3), (0, 8, 1)])
def test_run_steps_repeats_its_body_while_the_rule_holds(backend, limit, rounds, expected):
    """A Repeat runs its body, then asks its rule (given the round, counted from 0, and the state as the body left
    it); again while the rule holds, at most `rounds` times (at least once); a step before and after it runs once, and
    seconds() has one entry per step run."""
    from graphgear.backends.base import Repeat
    from graphgear.functor import Functor

    count = Functor("test_count_up", _count_up, "counter[0] += 1; log[counter[0]] = v + 10 * counter[0];",
                    state=("counter", "log"))
    below = Functor("test_below_limit", _below_limit, "return v + 1 < counter[1] && counter[0] == 1 + 2 * (v + 1);", state=("counter", "log"))
    be = get_backend(backend)
    state = (be.asarray(np.array([0, limit], dtype=np.int64)), be.asarray(np.zeros(16, dtype=np.int64)))
    run = be.run_steps([(count, state, 1), Repeat(((count, state, 1), (count, state, 1)), below, state, rounds),
                        (count, state, 1)])
    run.check()
    steps = 1 + 2 * expected + 1
    assert len(run.seconds()) == steps and all(t >= 0 for t in run.seconds())
    counter, log = be.to_host(state[0]), be.to_host(state[1])
    assert counter[0] == steps and log[1:steps + 1].tolist() == [10 * i for i in range(1, steps + 1)]


def test_a_learned_depth_makes_a_graph_high_diameter_where_the_async_pass_is_parallel():
    """Auto takes a graph as high-diameter once a device traversal of it ran DEEP_LEVELS levels or more and its
    degrees are even (rgg: |E|/|V| about 9, yet 100+ levels): one async push-dd pass, the reason in the trace. Not
    before, not for a graph with hubs, not on a backend whose async pass is one FIFO worklist on one thread."""
    from graphgear.engine.controller import DEEP_LEVELS, learned_depth, note_depth

    g = gg.load("rgg:12")
    assert g.num_arcs / g.num_vertices > 5  # SEP-Graph's delta test does not find it
    assert not make_controller("auto", g, "traversal").sparse
    note_depth(g, DEEP_LEVELS - 1)
    assert learned_depth(g) == "" and not make_controller("auto", g, "traversal").sparse
    note_depth(g, DEEP_LEVELS + 20)
    note_depth(g, 3)  # the deepest is kept
    c = make_controller("auto", g, "traversal")
    d = c.choose(info(0, 1, 10, n=g.num_vertices, m=g.num_arcs))
    assert c.sparse and d.strategy.path == "async-push-dd"
    assert f"ran {DEEP_LEVELS + 20:,} levels" in d.reason and "one async push-dd pass" in d.reason
    assert not make_controller("auto", g, "traversal", async_order="fifo").sparse
    hubs = gg.load("kron:10")
    note_depth(hubs, 10 * DEEP_LEVELS)
    assert learned_depth(hubs) == "" and not make_controller("auto", hubs, "traversal").sparse



@pytest.mark.parametrize("algorithm", ("bfs", "sssp", "betweenness_centrality", "strongly_connected_components"))
def test_the_cpu_takes_no_learned_depth(algorithm):
    """A depth learned from a device traversal (say a GPU run earlier in the process) is not the CPU's: its async
    pass is one FIFO worklist on one thread (capabilities.async_order), so its traversals keep their own rule, as
    the CPU's BFS does, whichever algorithm asks."""
    from graphgear.engine.controller import DEEP_LEVELS, note_depth

    g = gg.load("rgg:12:w")
    note_depth(g, DEEP_LEVELS + 20)
    s = int(np.argmax(g.out_degree()))
    args = {"bfs": (s,), "sssp": (s,), "betweenness_centrality": (), "strongly_connected_components": ()}[algorithm]
    kwargs = {"sources": [s]} if algorithm == "betweenness_centrality" else {}
    trace = getattr(gg, algorithm)(g, *args, backend="cpu", **kwargs).trace
    assert trace.rows and not any("an earlier traversal" in row.reason for row in trace.rows)

@pytest.mark.gpu
def test_bfs_on_the_gpu_learns_a_deep_graph_from_its_first_traversal():
    """rgg:14 (|E|/|V| 9, 114 levels): the first BFS runs level by level (SEP-Graph's delta test misses it), records
    its levels when its distances are read, and the next runs one async pass, with the same distances."""
    g = gg.load("rgg:14")
    source = int(np.argmax(g.out_degree()))
    first = gg.bfs(g, source, backend="cuda")
    expected = first.distances
    assert len(first.trace) > 100
    second = gg.bfs(g, source, backend="cuda")
    np.testing.assert_array_equal(second.distances, expected)
    assert len(second.trace) == 1 and "an earlier traversal of this graph ran" in second.trace.rows[0].reason
    # as a benchmark calls it, nothing read between the calls: the next launch reads the first back, so the call
    # after it learns
    g = gg.load("rgg:14")
    runs = [gg.bfs(g, source, backend="cuda") for _ in range(3)]
    assert [len(r.trace) > 100 for r in runs] == [True, True, False]
    np.testing.assert_array_equal(runs[2].distances, expected)

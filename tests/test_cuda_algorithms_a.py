"""SSSP, connected components and color propagation on the CUDA backend: the GPU gives the CPU backend's answer.

Marked `gpu`: skipped without CuPy and an NVIDIA GPU. Run on the device with `python3 -m pytest -m gpu`.

Every answer here is independent of the execution path, so each CPU reference is computed once per graph (strategy
"auto") and every GPU strategy is held to it:

- SSSP distances are compared exactly. Every relaxation computes fl(dist[u] + w) in float64 from the float32 weight on
  both backends, and any order of monotone relaxations from (0 at the source, inf elsewhere) ends at the same fixed
  point, so the order the GPU's threads take does not change a bit. Predecessors are compared exactly as well (both
  backends take the smallest-id tight in-neighbour) and checked for validity on their own: each tree arc is tight and
  every reached vertex's chain of predecessors reaches the source (no cycles, which zero weights could close).
- Connected components: the API's canonical labels (0..C-1 by smallest vertex) are identical; real graphs are also
  held to their documented component counts.
- Color propagation: colors (the largest id reaching each vertex) are identical.

Strategies: each is run on one graph, taken in turn from GRAPHS, to keep the device time small while every balancer,
frontier kind, duplicate removal and direction/sync/drive meets several graph shapes.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import scipy.sparse
from conftest import CPU_PATHS, REAL_GRAPHS, real_graph, set_cuda_knobs
from scipy.sparse.csgraph import connected_components as scipy_components
from scipy.sparse.csgraph import dijkstra

import graphgear as gg
from graphgear.engine.strategy import Strategy

pytestmark = pytest.mark.gpu

GRAPHS = ["kron:12", "rmat:11:8", "grid:40:50:0.8", "rgg:11", "er:3000:6"]
WEIGHTED = [f"{spec}:w" for spec in GRAPHS]

GATHER = frozenset({"warp_gather", "block_gather"})
PUSH = (
    [Strategy(balance="vertex_group", group_size=g) for g in (1, 4, 16, 32)]
    + [Strategy(balance=b) for b in ("twc", "warp_scan", "merge_path", "three_stage", "block_scan", "hierarchical")]
    + [Strategy(balance="vertex_group", group_size=4, supports=GATHER),
       Strategy(balance="warp_scan", supports=GATHER), Strategy(balance="block_scan", supports=GATHER),
       Strategy(balance="vertex_group", group_size=1, supports=frozenset({"supplementary_queues"}))]
    + [Strategy(balance="warp_scan", dedup=d) for d in ("atomic", "warp_hash", "block")]
    + [Strategy(balance="warp_scan", frontier="edge_queue", dedup="lookup")]
    + [Strategy(frontier="bitmap"), Strategy(drive="topology", frontier="boolmap"), Strategy(sync="async"),
       Strategy(sync="async", balance="vertex_group", group_size=4),
       Strategy(sync="async", drive="topology", frontier="bitmap")]
)
PULL = [Strategy(direction="pull", frontier="bitmap", balance="vertex_group", group_size=g) for g in (1, 4, 16, 32)] + [
    Strategy(direction="pull", frontier="bitmap"),
    Strategy(direction="pull", frontier="bitmap", drive="topology"),
    Strategy(direction="pull", frontier="bitmap", sync="async"),
    Strategy(direction="pull", frontier="bitmap", sync="async", drive="topology"),
]
# the eight paths of SEP-Graph (sync|async x push|pull x data|topology) as the CPU backend runs them
PATHS = [Strategy.parse(p) for p in CPU_PATHS]
# vertex programs (Bellman-Ford, label propagation): the eight paths and the push balancers
PROGRAM_STRATEGIES = PATHS + [
    Strategy(balance="vertex_group", group_size=1), Strategy(balance="vertex_group", group_size=16),
    Strategy(balance="vertex_group", group_size=4, supports=GATHER), Strategy(balance="warp_scan"),
    Strategy(balance="merge_path"), Strategy(sync="async", balance="merge_path"), Strategy(balance="three_stage"),
    Strategy(direction="pull", frontier="bitmap", balance="vertex_group", group_size=32),
] + [  # an edge queue under each duplicate removal (a min or max program runs each as named: programs.py)
    Strategy(balance="vertex_group", group_size=1, frontier="edge_queue", dedup=d) for d in ("none", "warp_hash", "block")
]


def cases(strategies: list, graphs: list) -> list:
    """(graph, strategy) pairs: each strategy (once, in order) on one graph, the graphs taken in turn."""
    strategies = list(dict.fromkeys(strategies))
    return [pytest.param(graphs[i % len(graphs)], s, id=f"{graphs[i % len(graphs)]}-{s}") for i, s in enumerate(strategies)]


# ------------------------------------------------------------------------------------------------------ graphs
@cache
def load(spec: str) -> gg.Graph:
    return gg.load(spec)


def symmetric_hash(g: gg.Graph) -> np.ndarray:
    """A pseudo-random non-negative integer per arc, the same for u -> v and v -> u."""
    rows = np.repeat(np.arange(g.num_vertices, dtype=np.int64), g.out_degree())
    key = (rows ^ g.indices.astype(np.int64)) + (rows + g.indices.astype(np.int64))
    return (key * 2654435761) % 1_000_003


def with_weights(g: gg.Graph, zero_every: int = 0) -> gg.Graph:
    """g with weights 0.1 .. 99.7 (not exact in binary: float rounding must agree) and, with zero_every = k, about
    one arc in k of weight 0; symmetric on an undirected graph. A weighted graph keeps its own weights unless zeros
    are asked for."""
    h = symmetric_hash(g)
    w = ((h % 997) + 1).astype(np.float32) / np.float32(10.0) if g.weights is None or zero_every else g.weights.copy()
    if zero_every:
        w[h % zero_every == 0] = 0.0
    return gg.Graph(g.offsets, g.indices, w, directed=g.directed, name=f"{g.name} weighted")


@cache
def real_weighted(name: str) -> gg.Graph:
    return with_weights(gg.load(real_graph(name)))


@cache
def zero_weighted(spec: str) -> gg.Graph:
    return with_weights(gg.load(spec), zero_every=4)


def hub(g: gg.Graph) -> int:
    """The vertex of largest out-degree (the sources here; graphs built here are not renumbered)."""
    return int(np.argmax(g.out_degree()))


# ------------------------------------------------------------------------------------------------------ SSSP
_SSSP_CPU: dict = {}


def sssp_cpu(g: gg.Graph, method: str, delta=None):
    key = (id(g), method, delta)
    if key not in _SSSP_CPU:
        _SSSP_CPU[key] = (g, gg.sssp(g, hub(g), method=method, delta=delta, backend="cpu"))
    return _SSSP_CPU[key][1]


def arc_weight(g: gg.Graph, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The smallest weight of an arc u -> v; fails when there is no such arc. The CSR's arcs are sorted by (source,
    target), so one binary search over the keys source * V + target finds them all."""
    n = g.num_vertices
    keys = np.repeat(np.arange(n, dtype=np.int64), g.out_degree()) * n + g.indices.astype(np.int64)
    want = u.astype(np.int64) * n + v.astype(np.int64)
    first = np.searchsorted(keys, want)
    last = np.searchsorted(keys, want, side="right")
    assert np.all(last > first), "a predecessor is not an in-neighbour"
    w = g.weights.astype(np.float64)
    out = w[first]
    for i in np.flatnonzero(last - first > 1):  # parallel arcs: the lightest one
        out[i] = w[first[i]:last[i]].min()
    return out


def check_tree(g: gg.Graph, source: int, dist: np.ndarray, pred: np.ndarray) -> None:
    """pred is a shortest-path tree: -1 exactly at the source and unreachable vertices, every tree arc tight, and
    every reached vertex's chain of predecessors ends at the source."""
    reached = np.isfinite(dist)
    assert dist[source] == 0.0 and pred[source] == -1
    assert np.all(pred[~reached] == -1)
    v = np.flatnonzero(reached)
    v = v[v != source]
    assert np.all(pred[v] >= 0)
    u = pred[v]
    assert np.all(dist[u] + arc_weight(g, u, v) == dist[v])
    root = np.where(reached, pred, -1)
    root[source] = source
    for _ in range(int(np.ceil(np.log2(max(g.num_vertices, 2)))) + 1):  # pointer jumping: 2^k steps up the chain
        root = np.where(root >= 0, root[np.maximum(root, 0)], -1)
    assert np.all(root[reached] == source), "a chain of predecessors does not reach the source (a cycle)"


def same_sssp(g: gg.Graph, method: str, strategy, delta=None) -> None:
    cpu = sssp_cpu(g, method, delta)
    gpu = gg.sssp(g, hub(g), method=method, delta=delta, backend="cuda", strategy=strategy)
    assert gpu.distances.dtype == np.float64 and gpu.predecessors.dtype == np.int64
    np.testing.assert_array_equal(gpu.distances, cpu.distances)
    check_tree(g, hub(g), gpu.distances, gpu.predecessors)
    np.testing.assert_array_equal(gpu.predecessors, cpu.predecessors)


@pytest.mark.parametrize("spec", WEIGHTED)
def test_sssp_generated_graphs(spec):
    """Both methods under the auto controller, and the CPU's answer checked against SciPy's Dijkstra."""
    g = load(spec)
    s = hub(g)
    ref = dijkstra(scipy.sparse.csr_array((g.weights.astype(np.float64), g.indices, g.offsets),
                                          shape=(g.num_vertices,) * 2), indices=s)
    np.testing.assert_allclose(sssp_cpu(g, "delta_stepping").distances, ref, rtol=1e-12)
    for method in ("delta_stepping", "bellman_ford"):
        same_sssp(g, method, "auto")


@pytest.mark.parametrize("spec,strategy", cases(PUSH + PULL, WEIGHTED))
def test_sssp_delta_stepping_every_strategy(spec, strategy, supplementary_hubs):
    same_sssp(load(spec), "delta_stepping", strategy)


@pytest.mark.parametrize("spec,strategy", cases(PROGRAM_STRATEGIES, WEIGHTED[::-1]))
def test_sssp_bellman_ford_every_path(spec, strategy):
    same_sssp(load(spec), "bellman_ford", strategy)


@pytest.mark.parametrize("dedup", ["none", "warp_hash", "block", "lookup", "atomic"])
def test_sssp_duplicate_removal_runs_as_named(monkeypatch, dedup):
    """Bellman-Ford (a min program) pushes through the edge queue and duplicate removal its strategy names, not an
    exact claim put in their place, and gives the CPU's distances and tree; without removal (none) a round lists a
    vertex once per improving in-edge, more entries than the exact claim (atomic)."""
    from graphgear.backends import get_backend

    be = get_backend("cuda")
    ran = []
    level = be._advance_level

    def spy(G, frontier, module, strategy, *args, **kwargs):
        ran.append(strategy.dedup)
        return level(G, frontier, module, strategy, *args, **kwargs)

    monkeypatch.setattr(be, "_advance_level", spy)
    g = load("kron:12:w")
    strategy = Strategy(balance="vertex_group", group_size=1, frontier="edge_queue", dedup=dedup)
    same_sssp(g, "bellman_ford", strategy)
    assert ran and set(ran) == {dedup}
    listed = sum(row.frontier_vertices for row in gg.sssp(g, hub(g), method="bellman_ford", backend="cuda",
                                                           strategy=strategy).trace.rows)
    exact = sum(row.frontier_vertices for row in gg.sssp(g, hub(g), method="bellman_ford", backend="cuda",
                                                          strategy=strategy.with_(dedup="atomic")).trace.rows)
    assert listed > exact if dedup == "none" else listed >= exact


@pytest.mark.parametrize("strategy", [Strategy(sync="async", hops=8), Strategy(sync="async", balance="warp_scan", hops=32)],
                         ids=str)
@pytest.mark.parametrize("spec", ["grid:40:50:0.8:w", "kron:12:w", "rgg:11:w"])
def test_sssp_block_local_hops(spec, strategy):
    """Bellman-Ford pushed with several levels per grid barrier (label-correcting): the same distances and tree."""
    same_sssp(load(spec), "bellman_ford", strategy)


@pytest.mark.parametrize("spec", ["grid:40:50:0.8:w", "rgg:11:w", "er:3000:12:w"])
def test_near_far_takes_local_hops_on_a_graph_without_hubs(spec):
    """Near-far on the device expands LOCAL_HOPS levels per grid barrier inside each bucket of a graph without hubs:
    a sparse grid, and denser random geometric and Erdos-Renyi graphs (|E| / |V| above SEP-Graph's delta)."""
    from graphgear.engine.controller import LOCAL_HOPS

    g = load(spec)
    same_sssp(g, "delta_stepping", "auto")
    gpu = gg.sssp(g, hub(g), backend="cuda")
    assert f"hops={LOCAL_HOPS}" in gpu.trace.rows[0].strategy
    assert "light/heavy" not in gpu.trace.rows[0].reason


@pytest.mark.parametrize("delta", [1.0, 16.0, 200.0, np.inf])
@pytest.mark.parametrize("spec", ["kron:12:w", "rmat:11:8:w"])
def test_near_far_light_heavy_split(spec, delta, monkeypatch):
    """Near-far on the device with Meyer & Sanders' light/heavy split (the default on graphs with hubs): the CPU's
    distances and tree where every arc is heavy (Delta 1; the weights are 1..255), some are (16, 200) and none is
    (inf), and the distances of the run without the split. With every arc heavy each reached vertex sends its arcs
    exactly once (Dijkstra's count), so the trace's edge count is the out-degree sum of the reached vertices."""
    g = load(spec)
    same_sssp(g, "delta_stepping", "auto", delta=delta)
    split = gg.sssp(g, hub(g), delta=delta, backend="cuda")
    assert "light/heavy split" in split.trace.rows[0].reason
    set_cuda_knobs(monkeypatch, light_heavy=False)
    plain = gg.sssp(g, hub(g), delta=delta, backend="cuda")
    assert "light/heavy" not in plain.trace.rows[0].reason
    np.testing.assert_array_equal(split.distances, plain.distances)
    if delta == 1.0:  # Dijkstra's count needs buckets of width Delta and heavy rows pushed (a pull counts what it reads)
        set_cuda_knobs(monkeypatch, light_heavy=True, heavy_pull_ratio=None, bucket_widen_max=0)
        once = gg.sssp(g, hub(g), delta=delta, backend="cuda")
        np.testing.assert_array_equal(once.distances, plain.distances)
        reached = np.isfinite(once.distances)
        assert once.trace.rows[0].edges_processed == int(g.out_degree()[reached].sum())


@pytest.mark.parametrize("pull_ratio,widen", [(None, 0), (1 << 40, 0), (None, 6), (1 << 40, 6), (4, 6), (4, 1)],
                         ids=str)
@pytest.mark.parametrize("delta", [1.0, None])
@pytest.mark.parametrize("spec", ["kron:12:w", "rmat:11:8:w"])
def test_near_far_heavy_pull_and_bucket_widths(spec, delta, pull_ratio, widen, monkeypatch):
    """The light/heavy split's heavy rows pushed (ratio None), pulled for every bucket (1 << 40: from one heavy arc)
    or by the default ratio, under buckets of fixed width (widen 0) or adapting up to Delta x 2 / x 64: the CPU's
    distances and tree every time; the trace names the rules that applied. A pull reads only the rows of vertices a
    heavy arc can still improve, so with every bucket pulled the trace counts fewer arcs than one pass over every
    heavy arc per bucket would, and at least one in-arc per reached vertex."""
    g = load(spec)
    set_cuda_knobs(monkeypatch, heavy_pull_ratio=pull_ratio, bucket_widen_max=widen)
    same_sssp(g, "delta_stepping", "auto", delta=delta)
    row = gg.sssp(g, hub(g), delta=delta, backend="cuda").trace.rows[0]
    assert "light/heavy split" in row.reason
    assert ("heavy rows pulled" in row.reason) == (pull_ratio is not None)
    assert ("bucket widths adapt up to Delta x" in row.reason) == (widen > 0)
    if pull_ratio == 1 << 40:
        reached = np.isfinite(sssp_cpu(g, "delta_stepping", delta).distances)
        assert int(reached.sum()) - 1 <= row.edges_processed


def test_heavy_pull_reads_only_rows_a_heavy_arc_can_improve(monkeypatch):
    """The heavy pull skips the rows of vertices within Delta of the bucket's low (no heavy arc can improve them), and
    the trace counts the arcs read. Source 0 reaches 1..k over light arcs (weight 1, Delta 10); 1..k are joined by
    heavy arcs (50) among themselves, and 1 leads to k + 1 by one. The first bucket's light rounds push 0's k light
    arcs and settle 1..k at distance 1; its heavy pull then reads k + 1's one in-arc and none of the k(k - 1) into
    1..k: k + 1 arcs in all (one pass over every heavy arc would be k + k(k - 1) + 1)."""
    k = 300  # 0 has out-degree k: a graph with hubs, so near-far takes the light/heavy split, not local hops
    ring = np.arange(1, k + 1)
    src = np.concatenate([np.zeros(k, dtype=np.int64), np.repeat(ring, k), [1]])
    dst = np.concatenate([ring, np.tile(ring, k), [k + 1]])
    w = np.concatenate([np.ones(k), np.full(k * k, 50.0), [50.0]])
    keep = src != dst
    g = gg.Graph.from_edges(src[keep], dst[keep], w[keep], num_vertices=k + 2)
    set_cuda_knobs(monkeypatch, light_heavy=True, heavy_pull_ratio=1 << 40, light_pull_ratio=None,
                   bucket_widen_max=0)
    run = gg.sssp(g, 0, delta=10.0, backend="cuda")
    np.testing.assert_array_equal(run.distances, [0.0] + [1.0] * k + [51.0])
    row = run.trace.rows[0]
    assert "light/heavy split" in row.reason and "heavy rows pulled" in row.reason
    assert row.edges_processed == k + 1


@pytest.mark.parametrize("light_ratio", [None, 1 << 40, 4], ids=str)
@pytest.mark.parametrize("delta", [16.0, None])
@pytest.mark.parametrize("spec", ["kron:12:w", "rmat:11:8:w"])
def test_near_far_light_rounds_pulled(spec, delta, light_ratio, monkeypatch):
    """The light/heavy split's light rounds pushed (ratio None), pulled whenever a sender holds a light arc (1 << 40)
    or by the default ratio: the CPU's distances and tree every time, and the trace names the rule where it applies
    (a pulled round reads every light arc from every source: a label-correcting pass, exact all the same)."""
    g = load(spec)
    set_cuda_knobs(monkeypatch, light_pull_ratio=light_ratio)
    same_sssp(g, "delta_stepping", "auto", delta=delta)
    row = gg.sssp(g, hub(g), delta=delta, backend="cuda").trace.rows[0]
    assert ("light arcs pulled" in row.reason) == (light_ratio is not None)


@pytest.mark.parametrize("delta,strategy", [(1.0, Strategy()), (1.0, Strategy(direction="pull", frontier="bitmap")),
                                            (1.0, Strategy(sync="async")), (np.inf, Strategy())], ids=str)
def test_sssp_bucket_widths(delta, strategy):
    """Narrow buckets (most relaxations land in the far pile, many splits) and one infinite bucket."""
    same_sssp(load("rmat:11:8:w"), "delta_stepping", strategy, delta=delta)


@pytest.mark.parametrize("spec", ["rmat:11:8", "grid:40:50:0.8", "kron:12"])
@pytest.mark.parametrize("method", ["delta_stepping", "bellman_ford"])
def test_sssp_zero_weights_tight_tree(spec, method):
    """A quarter of the arcs weigh 0: predecessors come from tight_tree (hop levels over tight arcs)."""
    g = zero_weighted(spec)
    assert g.weights.min() == 0.0
    same_sssp(g, method, "auto")
    same_sssp(g, method, Strategy(direction="pull", frontier="bitmap", balance="vertex_group", group_size=4))


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_sssp_real_graphs_auto(name):
    """Real graphs with weights (malta's own; the others get 0.1 .. 99.7), delta-stepping under the auto controller."""
    same_sssp(real_weighted(name), "delta_stepping", "auto")


# ------------------------------------------------------------------------------------------------------ components
CC_METHODS = ("afforest", "label_propagation")


@cache
def cc_cpu(g: gg.Graph) -> np.ndarray:
    return gg.connected_components(g, backend="cpu").labels


def same_cc(g: gg.Graph, method: str, strategy) -> np.ndarray:
    gpu = gg.connected_components(g, method=method, backend="cuda", strategy=strategy).labels
    ref = cc_cpu(g)
    assert gpu.dtype == np.int64
    np.testing.assert_array_equal(gpu, ref)
    return gpu


@pytest.mark.parametrize("spec", GRAPHS)
def test_cc_generated_graphs(spec):
    g = load(spec)
    labels = cc_cpu(g)
    count, _ = scipy_components(g.to_scipy(), directed=True, connection="weak")
    assert labels.max() + 1 == count
    for method in CC_METHODS:
        same_cc(g, method, "auto")


@pytest.mark.parametrize("spec,strategy", cases(
    [Strategy(drive="data"), Strategy(drive="topology", frontier="bitmap"), Strategy(direction="pull", frontier="bitmap"),
     Strategy(sync="async", drive="data")], ["rmat:11:8", "kron:12", "er:3000:6", "grid:40:50:0.8"]))
def test_cc_afforest_strategies(spec, strategy):
    """Afforest's data drive filters the vertices outside the giant component into a queue; topology walks all."""
    same_cc(load(spec), "afforest", strategy)


@pytest.mark.parametrize("spec,strategy", cases(PROGRAM_STRATEGIES, GRAPHS))
def test_cc_label_propagation_every_path(spec, strategy):
    same_cc(load(spec), "label_propagation", strategy)


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_cc_real_graphs_auto(name):
    g = gg.load(real_graph(name))
    for method in CC_METHODS:
        labels = same_cc(g, method, "auto")
        assert labels.max() + 1 == REAL_GRAPHS[name][5]


def test_cc_directed_arcs_into_the_giant_component():
    """Directed arcs that only the in-edge pass of Afforest's final phase links (the giant component skips its
    out-arcs), and isolated vertices."""
    n = 3000
    src = np.arange(1, n - 100)
    dst = np.zeros_like(src)  # a star into vertex 0: the giant component
    extra_src = np.array([0, 5, n - 50, n - 40])
    extra_dst = np.array([n - 60, n - 30, n - 41, n - 39])
    g = gg.Graph.from_edges(np.concatenate([src, extra_src]), np.concatenate([dst, extra_dst]), num_vertices=n)
    for method in CC_METHODS:
        same_cc(g, method, "auto")
        same_cc(g, method, Strategy(drive="data"))


# ------------------------------------------------------------------------------------------------------ color propagation
@cache
def color_cpu(g: gg.Graph) -> np.ndarray:
    return gg.color_propagation(g, backend="cpu").colors


def same_colors(g: gg.Graph, strategy) -> None:
    gpu = gg.color_propagation(g, backend="cuda", strategy=strategy).colors
    assert gpu.dtype == np.int64
    np.testing.assert_array_equal(gpu, color_cpu(g))


@pytest.mark.parametrize("spec", GRAPHS)
def test_color_generated_graphs(spec):
    g = load(spec)
    colors = color_cpu(g)
    assert np.all(colors >= np.arange(g.num_vertices))
    same_colors(g, "auto")


@pytest.mark.parametrize("spec,strategy", cases(PUSH + PULL + PATHS, GRAPHS[1:] + GRAPHS[:1]))
def test_color_every_strategy(spec, strategy, supplementary_hubs):
    same_colors(load(spec), strategy)


@pytest.mark.parametrize("name", sorted(REAL_GRAPHS))
def test_color_real_graphs_auto(name):
    same_colors(gg.load(real_graph(name)), "auto")


@pytest.mark.parametrize("spec", ["grid:64:64", "kron:12", "rmat:12:8"])
@pytest.mark.parametrize("method", ["color", "label_propagation"])
def test_multistep_launches_wait_for_nothing(spec, method, monkeypatch):
    """Multistep's BFS and the propagation after it run back to back: the second launch detaches the first (a device
    snapshot of its log, PendingRun.detach) instead of waiting for it, so the call waits for no launch; reading the
    result reads both runs back, and a wrong snapshot would show in the colours or the trace."""
    from graphgear.backends.cuda import persistent

    waits = []
    capture = persistent.PendingRun.capture
    def counted(self):  # a capture that waits for its launch (one already captured returns at once)
        if self._read is not None:
            waits.append(self)
        capture(self)

    monkeypatch.setattr(persistent.PendingRun, "capture", counted)
    g = load(spec)
    run = (lambda: gg.color_propagation(g, backend="cuda")) if method == "color" else (
        lambda: gg.connected_components(g, method="label_propagation", backend="cuda"))
    len(run().trace)  # compiled, and nothing left pending
    waits.clear()
    result = run()
    assert waits == []
    got = result.colors if method == "color" else result.labels
    np.testing.assert_array_equal(got, color_cpu(g) if method == "color" else cc_cpu(g))
    assert waits  # read back with the result
    phases = [row.phase for row in result.trace]
    assert phases[0] == "pivot" and phases[-1] == "propagate"


def test_a_failed_first_launch_fails_the_chained_result(monkeypatch):
    """A chained launch (Multistep's BFS) whose grid barrier timed out: the call does not wait for it, so the colours
    read afterwards raise its error (the propagation ran on its half-set buffers), and the next call runs on fresh
    buffers with the right answer."""
    from graphgear.backends import get_backend
    from graphgear.backends.cuda.structs import _barrier_timed_out
    from graphgear.errors import BackendError

    be = get_backend("cuda")
    g = load("grid:64:64")
    len(gg.color_propagation(g, backend="cuda").trace)  # compiled, nothing pending
    detached = be._detached_read

    def timed_out(G, B, note):
        detached(G, B, note)

        def read():
            G.persistent = None
            raise _barrier_timed_out("the persistent kernel")

        return read

    monkeypatch.setattr(be, "_detached_read", timed_out)
    failed = gg.color_propagation(g, backend="cuda")
    monkeypatch.setattr(be, "_detached_read", detached)
    with pytest.raises(BackendError, match="grid barrier"):
        failed.colors
    np.testing.assert_array_equal(gg.color_propagation(g, backend="cuda").colors, color_cpu(g))


# ------------------------------------------------------------------------------------------------------ small cases
def test_small_graphs_all_three():
    """No vertices, no arcs, a source that reaches nothing, a directed path (no larger id reaches a smaller one: the
    colors stay the ids)."""
    empty = gg.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64), num_vertices=0)
    edgeless = gg.Graph.from_edges(np.array([], dtype=np.int64), np.array([], dtype=np.int64), num_vertices=7)
    path = gg.Graph.from_edges(np.arange(9), np.arange(1, 10), np.full(9, 0.5), num_vertices=10)
    for g in (empty, edgeless, path):
        for method in CC_METHODS:
            np.testing.assert_array_equal(gg.connected_components(g, method=method, backend="cuda").labels, cc_cpu(g))
        np.testing.assert_array_equal(gg.color_propagation(g, backend="cuda").colors, color_cpu(g))
    np.testing.assert_array_equal(gg.color_propagation(path, backend="cuda").colors, np.arange(10))
    for method in ("delta_stepping", "bellman_ford"):
        for source in (0, 9):
            got = gg.sssp(path, source, method=method, backend="cuda")
            ref = gg.sssp(path, source, method=method, backend="cpu")
            np.testing.assert_array_equal(got.distances, ref.distances)
            np.testing.assert_array_equal(got.predecessors, ref.predecessors)
        np.testing.assert_array_equal(gg.sssp(path, 9, method=method, backend="cuda").distances[:9], np.inf)

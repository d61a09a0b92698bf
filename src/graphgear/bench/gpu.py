"""The GPU suite (``graphgear bench --suite gpu``): every algorithm on the issue's graphs, and the load-balancing
ablation (Busato & Bombieri, Fig. 6).

How it measures (METHOD.md): warm-up calls per case (NVRTC compilation, uploads, the degree renumbering), then
`repeat` timed runs, each from a fresh random non-isolated source, timed with CUDA events around the public call; the
median is reported. Results stay on the device (a GPU result copies an array to the host when it is first read), as
GPU frameworks time them. BFS and near-far SSSP are read back lazily (program.run_program, backend PendingRun): the
events cover every GPU step of the call, the traversal, the copy of its status and log behind it and the distances'
conversion, and the host time before the kernel starts; the host's parse of that status, the trace replay and any
check of the run happen when a result is first read, or at the start of the next call (inside its events). GTEPS as
bench/metrics.py defines it. For the topology-driven pass (PageRank's pull over the CSC) the table gives the bytes an
iteration must move and the achieved bandwidth against the device-to-device copy bandwidth this suite measures
itself (2 GiB copy, read + write bytes).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.strategy import Strategy
from ..errors import StrategyError
from ..graph.generate import weighted_spec
from .metrics import teps
from .references import agreement, output_of, pagerank_agreement

__all__ = ["GPU_GRAPHS", "SUITE_REPEAT", "TECHNIQUES", "LAYOUT_TECHNIQUES", "DEDUP_TECHNIQUES", "ABLATION_TABLES",
           "AblationTable", "GpuRow", "copy_bandwidth", "gpu_suite", "ablation", "ablation_columns",
           "ablation_strategies", "dedup_ablation", "dedup_strategies", "scc_vs_scipy"]

GPU_GRAPHS = ("kron:21", "grid:2048:2048")
SCC_GRAPH = "rmat:21:16"
BC_SOURCES = 1  # single-source BC, as the target
# the targets, in ms (PageRank: per iteration); the GPU they are set for and the allowance for a slower one:
# docs/performance.md#the-gpu-bench
TARGETS_MS = {("bfs", "kron:21"): 0.5, ("bfs", "grid:2048:2048"): 15.0, ("sssp", "kron:21:w"): 4.0,
              ("sssp", "grid:2048:2048:w"): 60.0, ("pagerank", "kron:21"): 0.3, ("cc", "kron:21"): 2.0,
              ("bc", "kron:21"): 5.0}
TECHNIQUES = (("vertex_group-1", {"balance": "vertex_group", "group_size": 1}),
              ("vertex_group-4", {"balance": "vertex_group", "group_size": 4}),
              ("vertex_group-16", {"balance": "vertex_group", "group_size": 16}),
              ("vertex_group-32", {"balance": "vertex_group", "group_size": 32}),
              ("twc", {"balance": "twc"}),
              ("warp_scan", {"balance": "warp_scan"}),
              ("merge_path", {"balance": "merge_path"}),
              ("three_stage", {"balance": "three_stage"}),
              ("block_scan", {"balance": "block_scan"}),
              ("hierarchical", {"balance": "hierarchical"}),
              ("two_phase", {"balance": "twc", "frontier": "two_phase"}))  # Busato's two-phase queue (sync only)
# MultiGraphS whole, its shared-memory segments (sync only): a column of the ablation on the in-degree groups it needs
# (technique_layout); the adaptive suite, which runs every strategy on the algorithms' default layout, leaves it out
LAYOUT_TECHNIQUES = (("segmented", {"balance": "segmented"}),)
# Busato & Bombieri's supports on their node-based mapping (a lane a vertex), each alone and together: columns of the
# ablation after the techniques (they add to a technique rather than replace it, so the adaptive suite leaves them out)
SUPPORT_TECHNIQUES = tuple(
    (f"vertex_group-1+{label}", {"balance": "vertex_group", "group_size": 1, "supports": supports})
    for label, supports in (("warp_gather", "warp_gather"), ("block_gather", "block_gather"),
                            ("supplementary_queues", "supplementary_queues"),
                            ("supports", "warp_gather+block_gather+supplementary_queues"),
                            ("dynamic_parallelism", "dynamic_parallelism")))
# the supplementary queues at their paper's GPU's threshold (a GTX 980: 16 SMs x 2,048 resident threads, half of
# them): the paper's rule, half this device's resident threads (135,168 on an H200), takes no vertex of a graph whose
# degrees stay below it, every graph of the ablation among them, so that column runs vertex_group-1 alone; at this
# threshold the queues take the largest hubs of the power-law graphs
PAPER_GPU_SUPPLEMENTARY_THRESHOLD = 16 * 2_048 // 2
# SEP-Graph's eight execution paths (push / pull, sync / async, data- / topology-driven; a pull or a topology drive
# keeps a bitmap frontier), then the controllers that choose among them: the configuration table fixed for the run
# (static), Algorithm 1 (adaptive: candidates timed), MultiGraph's hybrid and auto
PATHS = tuple(Strategy(direction=direction, sync=sync, drive=drive,
                       frontier="bitmap" if direction == "pull" or drive == "topology" else "vertex_queue")
              for sync in ("sync", "async") for direction in ("push", "pull") for drive in ("data", "topology"))
CONTROLLER_COLUMNS = ("static", "adaptive", "hybrid", "auto")
# PageRank's methods and layouts: the pull power iteration (SEP-Graph's sync-pull-td, one persistent kernel on the GPU)
# on the ids as given and renumbered by degree, MultiGraph's dense mode (MultiGraphD's two phases over 2D tiles) on
# both, and the delta program without and with SEP-Graph's priority scheduling
PAGERANK_COLUMNS = (("power/given", {"method": "power", "layout": "given"}),
                    ("power/degree", {"method": "power", "layout": "degree"}),
                    ("dense/given", {"method": "dense", "layout": "given"}),
                    ("dense/degree", {"method": "dense", "layout": "degree"}),
                    ("delta", {"method": "delta"}),
                    ("priority", {"method": "priority"}))
# networkx's default tol (1e-6) stops the power iteration on kron:21 after one iteration (its test is L1 < N * tol)
# and leaves the delta methods nothing to do on grid:2048:2048; at this one every column iterates
PAGERANK_TOL = 1e-10
# Busato & Bombieri's duplicate removal on an edge queue (Merrill's edge frontier, which lists a vertex once per
# activating edge): none, after the frontier load at warp or block level, during lookup, or claimed on emission
DEDUP_TECHNIQUES = ("none", "warp_hash", "block", "lookup", "atomic")
DEDUP_ALGORITHM = "bellman_ford"  # SSSP as a vertex program (min: a vertex listed twice is harmless, so each runs as named)


@dataclass
class GpuRow:
    algorithm: str
    graph: str
    num_vertices: int
    num_edges: int
    ms: float  # median per run (PageRank: per iteration)
    runs: list[float] = field(default_factory=list)
    iterations: int = 0
    gteps: float = 0.0
    bytes_per_iteration: int = 0
    gbps: float = 0.0
    target_ms: float | None = None
    note: str = ""


def copy_bandwidth(cp: Any) -> float:
    """Device-to-device copy bandwidth in bytes/s (read + write), median of 5 copies of 2 GiB after a warm-up."""
    source = cp.ones(1 << 28, dtype=cp.float64)
    target = cp.empty_like(source)
    times = [event_seconds(cp, lambda: target.__setitem__(Ellipsis, source)) for _ in range(6)][1:]
    return 2 * source.nbytes / statistics.median(times)


def event_seconds(cp: Any, fn: Callable[[], Any]) -> float:
    """Seconds of fn() on the device: CUDA events recorded around it on the current stream (METHOD.md), its host
    time included where the device waits for it."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return cp.cuda.get_elapsed_time(start, stop) / 1e3


# Timed runs of each algorithm-and-graph row (the ablation takes 5): METHOD.md's "repeat many times and take the
# median". A source in ten or so takes BFS kron:21 about three times as long as the others (its third round pushes from
# a few hundred hubs), so 5 runs let two of them move the median, and medians of 5 runs of the same code spread where
# medians of 21 agreed (this suite's BFS row; docs/performance.md#the-gpu-bench).
SUITE_REPEAT = 15

# Untimed calls before the timed ones: at least WARM_UP_CALLS, for at least WARM_UP_SECONDS. With one warm-up call the
# suite timed BFS kron:21 well above what scripts that warmed up with 3-5 calls measured on the same code (this suite's
# BFS row; docs/performance.md#the-gpu-bench).
WARM_UP_CALLS = 2
WARM_UP_SECONDS = 0.2


def time_gpu(cp: Any, fn: Callable[[Any], Any], sources: np.ndarray, repeat: int, rng: Any) -> tuple[list[float], Any]:
    """Seconds of `repeat` runs of fn(source), each from a fresh random source, after warming up (WARM_UP_CALLS
    calls and WARM_UP_SECONDS: the first builds the graph's device copies and loads the kernels, and the next few
    still ran slower, see above)."""
    start, calls = time.perf_counter(), 0
    while calls < WARM_UP_CALLS or time.perf_counter() - start < WARM_UP_SECONDS:
        result = fn(int(sources[calls % sources.size]))
        cp.cuda.get_current_stream().synchronize()
        calls += 1
    times = []
    for _ in range(repeat):
        s = int(rng.choice(sources))
        holder: list[Any] = []
        times.append(event_seconds(cp, lambda: holder.append(fn(s))))
        result = holder[0]
    return times, result


def _pagerank_bytes(g: Any) -> int:
    """Bytes one power iteration must move: the CSC (offsets 8(V+1), indices 4A), one 8-byte contribution gathered
    per arc, the gathered sums written (8V), and the rank update reading rank, sum, out-degree and writing rank and
    contribution (5 x 8V)."""
    v, a = g.num_vertices, g.num_arcs
    return 8 * (v + 1) + 4 * a + 8 * a + 8 * v + 5 * 8 * v


def gpu_suite(algorithms: tuple[str, ...], graphs: tuple[str, ...] = GPU_GRAPHS, repeat: int = 5, seed: int = 1,
              progress: Callable[[str], None] = print) -> tuple[list[GpuRow], float]:
    """Time every algorithm on every graph on the GPU; returns the rows and the measured copy bandwidth."""
    import cupy as cp

    from .. import api
    from ..graph.io import load

    rng = np.random.default_rng(seed)
    bandwidth = copy_bandwidth(cp)
    rows = []
    loaded: dict[str, Any] = {}

    def graph(spec: str) -> Any:
        if spec not in loaded:
            loaded[spec] = load(spec)
        return loaded[spec]

    for spec in graphs:
        for algorithm in algorithms:
            if algorithm == "scc":
                continue  # scc_vs_scipy times it on rmat:21:16
            name = weighted_spec(spec) if algorithm == "sssp" else spec
            g = graph(name)
            sources = np.flatnonzero(g.out_degree() > 0)
            calls: dict[str, Callable[[int], Any]] = {
                "bfs": lambda s, g=g: api.bfs(g, s, backend="cuda"),
                "sssp": lambda s, g=g: api.sssp(g, s, backend="cuda"),
                "pagerank": lambda s, g=g: api.pagerank(g, tol=1e-10, max_iter=20, method="power", backend="cuda"),
                "cc": lambda s, g=g: api.connected_components(g, backend="cuda"),
                "bc": lambda s, g=g: api.betweenness_centrality(g, sources=[s], backend="cuda"),
                "color": lambda s, g=g: api.color_propagation(g, backend="cuda"),
            }
            if algorithm not in calls:
                raise ValueError(f"unknown algorithm {algorithm!r}")
            progress(f"{algorithm} on {name}")
            times, result = time_gpu(cp, calls[algorithm], sources, repeat, rng)
            median = statistics.median(times)
            row = GpuRow(algorithm, name, g.num_vertices, g.num_edges, median * 1e3, [t * 1e3 for t in times],
                         iterations=len(result.trace), target_ms=TARGETS_MS.get((algorithm, name)))
            if algorithm == "pagerank":
                iterations = max(1, int(getattr(result, "iterations", 0) or len(result.trace)))
                row.iterations = iterations
                row.ms = median * 1e3 / iterations
                row.bytes_per_iteration = _pagerank_bytes(g)
                row.gbps = row.bytes_per_iteration / (median / iterations) / 1e9
                row.gteps = teps("pagerank", g.num_edges, median / iterations) / 1e9
                row.note = f"{iterations} iterations; {row.gbps / (bandwidth / 1e9):.0%} of copy bandwidth"
            else:
                row.gteps = teps(algorithm, g.num_edges, median, BC_SOURCES) / 1e9
            rows.append(row)
    return rows, bandwidth


def ablation_strategies(techniques: tuple = TECHNIQUES + SUPPORT_TECHNIQUES + LAYOUT_TECHNIQUES
                        ) -> list[tuple[str, Strategy]]:
    """(technique, strategy) of the ablation: each load-balancing technique (and, by default, each support column and
    MultiGraphS's segments) under push, one launch per level (sync) and, where the technique runs inside the
    persistent kernel, one launch in all (async): where Strategy refuses its async form (the two-phase queue,
    MultiGraphS's segments, dynamic parallelism), the technique has none."""
    out = []
    for name, fields in techniques:
        for sync in ("sync", "async"):
            try:
                out.append((name, Strategy(direction="push", sync=sync, **fields)))
            except StrategyError:
                if sync == "sync":
                    raise
    return out


@dataclass(frozen=True)
class SupplementaryAt:
    """An ablation column that runs `strategy` with the CUDA backend's supplementary queues taking vertices of degree
    above `threshold` (its supplementary_threshold, set for the call only) instead of half the device's resident
    threads."""

    strategy: Strategy
    threshold: int


def technique_layout(strategy: Any) -> str:
    """The layout a column's BFS runs on: MultiGraphS's segments on the in-degree groups they need (graph/layout.py
    shared_group_targets), every other column on BFS's default."""
    return "in_degree_groups" if isinstance(strategy, Strategy) and strategy.balance == "segmented" else "auto"


def ablation_columns() -> list[tuple[str, Any]]:
    """(column, strategy) of the ablation table in order: each technique's ("technique/sync"), then the configuration
    table's strategy fixed for the run ("table": strategy "static"), MultiGraph's hybrid (sparse or dense iterations
    by sampled cost, steered from the host) and auto; before those, the supplementary queues again at their paper's
    GPU's threshold ("...@16384/sync", a SupplementaryAt)."""
    supplementary = [(f"{name}@{PAPER_GPU_SUPPLEMENTARY_THRESHOLD}/{st.sync}",
                      SupplementaryAt(st, PAPER_GPU_SUPPLEMENTARY_THRESHOLD))
                     for name, st in ablation_strategies(SUPPORT_TECHNIQUES) if name.endswith("+supplementary_queues")]
    return ([(f"{name}/{st.sync}", st) for name, st in ablation_strategies()] + supplementary
            + [("table", "static"), ("hybrid", "hybrid"), ("auto", "auto")])


def _technique_bfs(g: Any, source: int, column: Any) -> Any:
    """A load-balancing ablation column's BFS from `source`: its strategy on its layout (technique_layout), a
    SupplementaryAt column with the backend's supplementary threshold set for the call."""
    from .. import api
    from ..backends import get_backend

    if not isinstance(column, SupplementaryAt):
        return api.bfs(g, source, backend="cuda", strategy=column, layout=technique_layout(column))
    be = get_backend("cuda")
    before, be.supplementary_threshold = be.supplementary_threshold, column.threshold
    try:
        return api.bfs(g, source, backend="cuda", strategy=column.strategy)
    finally:
        be.supplementary_threshold = before


def _cpu_bfs(g: Any, source: int) -> Any:
    """The BFS ablations' reference: the CPU backend's distances."""
    from .. import api

    return api.bfs(g, source, backend="cpu")


def _same_output(algorithm: str) -> Callable[[Any, Any], tuple[bool, str]]:
    """An ablation's judge of a column's result against the reference's: references.agreement on their outputs."""
    return lambda result, reference: agreement(algorithm, result, output_of(algorithm, reference))


def _same_ranks(result: Any, reference: Any) -> tuple[bool, str]:
    """The PageRank ablation's judge: both stopped by the rule at PAGERANK_TOL, within its bound of each other."""
    return pagerank_agreement(result.ranks, reference.ranks, PAGERANK_TOL)


def support_reach(g: Any) -> dict[str, int]:
    """How many vertices of `g` each of Busato & Bombieri's supports takes on this device: those of out-degree at or
    past its threshold (warp gathering 32, block gathering the block, dynamic parallelism the backend's
    grid_gather_degree, the supplementary queues past half the device's resident threads, and past
    PAPER_GPU_SUPPLEMENTARY_THRESHOLD for their SupplementaryAt column). On a graph where a support reaches none, its
    column runs the technique it adds to, and the ablation prints that beside the table."""
    from ..backends import get_backend
    from ..backends.cuda import runtime as rt

    be = get_backend("cuda")

    def supplementary(threshold: int | None) -> int:  # the degree from which the queues take a vertex
        return rt.hub_degrees(("supplementary_queues",), False, be.grid_gather_degree, threshold)[1]

    thresholds = {"warp_gather": 32, "block_gather": rt.BLOCK, "dynamic_parallelism": be.grid_gather_degree,
                  "supplementary_queues": supplementary(be.supplementary_threshold),
                  f"supplementary_queues@{PAPER_GPU_SUPPLEMENTARY_THRESHOLD}":
                      supplementary(PAPER_GPU_SUPPLEMENTARY_THRESHOLD)}
    degree = g.out_degree()
    return {name: int(np.count_nonzero(degree >= threshold)) for name, threshold in thresholds.items()}


def reach_line(row: dict[str, Any]) -> str:
    """The line printed under the load-balancing ablation for a row: the vertices each support took."""
    reach = ", ".join(f"{name} {count:,}" for name, count in row["reach"].items())
    return f"{str(row['graph']).split('/')[-1]}: vertices at a support's threshold: {reach}"


def ablation(graphs: list[str], repeat: int = 5, seed: int = 2, progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """BFS time per load-balancing technique on every graph: push only (so the technique does all the work), one launch
    per level (sync) and, where the technique runs inside the persistent kernel, one launch in all (async); then the
    configuration table's strategy fixed for the run ("table"), MultiGraph's hybrid and auto (issue 24, points 1, 2
    and 4)."""
    # auto starts from the table (Busato & Bombieri's own choice) and lets SEP-Graph's rules and the device override
    # it (the trace says where)
    return _ablation_rows(graphs, ablation_columns(), _technique_bfs, repeat, seed, progress, "ablation", _cpu_bfs,
                          _same_output("bfs"),
                          facts=lambda g: {"reach": support_reach(g)})


def path_columns() -> list[tuple[str, Any]]:
    """(column, strategy) of the path ablation: SEP-Graph's eight paths by name ("sync-push-dd", ...), then the
    controllers (CONTROLLER_COLUMNS)."""
    return [(st.path, st) for st in PATHS] + [(name, name) for name in CONTROLLER_COLUMNS]


def path_ablation(graphs: list[str], repeat: int = 5, seed: int = 4,
                  progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """BFS time on every graph under each of SEP-Graph's eight execution paths, fixed for the run, and under each
    controller (issue 24, points 1, 3 and 4): the median ms of `repeat` runs from random sources."""
    from .. import api

    return _ablation_rows(graphs, path_columns(), lambda g, s, st: api.bfs(g, s, backend="cuda", strategy=st), repeat,
                          seed, progress, "paths", _cpu_bfs, _same_output("bfs"))


def pagerank_ablation(graphs: list[str], repeat: int = 3, seed: int = 5,
                      progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """PageRank (alpha 0.85, tol PAGERANK_TOL) on every graph by method and layout (PAGERANK_COLUMNS):
    per column the median ms of a whole call and, as "<column> iterations", its iterations (the delta methods:
    rounds; they stop on a bound on the distance to the exact ranks, the power methods on networkx's L1 step)."""
    from .. import api

    def run(g: Any, s: int, kwargs: dict) -> Any:
        return api.pagerank(g, tol=PAGERANK_TOL, max_iter=10_000, backend="cuda", **kwargs)

    return _ablation_rows(graphs, list(PAGERANK_COLUMNS), run, repeat, seed, progress, "pagerank",
                          lambda g, s: api.pagerank(g, tol=PAGERANK_TOL, max_iter=10_000, backend="cpu"), _same_ranks,
                          lambda result: int(result.iterations), "iterations")


def dedup_strategies() -> list[tuple[str, Strategy]]:
    """(technique, strategy) of the duplicate-removal ablation: an edge queue, one lane per vertex (the balancer every
    technique applies to), a launch per level, each DEDUP_TECHNIQUES entry."""
    return [(name, Strategy(direction="push", frontier="edge_queue", balance="vertex_group", group_size=1, dedup=name))
            for name in DEDUP_TECHNIQUES]


def dedup_ablation(graphs: list[str], repeat: int = 5, seed: int = 3,
                   progress: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Bellman-Ford SSSP (weighted graphs: spec + ":w" for a generator) per duplicate-removal technique: per column
    the median ms and, as "<technique> listed", the frontier entries its rounds computed in all (the trace's
    frontier sizes) from the graph's largest-degree vertex: what each technique left of the duplicates as the queue
    was written (none, lookup, atomic; warp_hash and block remove them as the next advance loads the queue, after
    the compute, so they list as many as none and save in the expansion)."""
    from .. import api

    def run(g: Any, s: int, st: Strategy) -> Any:
        return api.sssp(g, s, method=DEDUP_ALGORITHM, backend="cuda", strategy=st)

    def listed(result: Any) -> int:
        return sum(row.frontier_vertices for row in result.trace.rows)

    return _ablation_rows([weighted_spec(spec) for spec in graphs], dedup_strategies(), run, repeat, seed, progress,
                          "duplicate removal", lambda g, s: api.sssp(g, s, backend="cpu"), _same_output("sssp"), listed)


def _ablation_rows(graphs: list[str], columns: list[tuple[str, Any]], call: Callable[[Any, int, Any], Any],
                   repeat: int, seed: int, progress: Callable[[str], None], what: str,
                   reference: Callable[[Any, int], Any], agrees: Callable[[Any, Any], tuple[bool, str]],
                   count: Callable[[Any], int] | None = None,
                   count_name: str = "listed", facts: Callable[[Any], dict] | None = None) -> list[dict[str, Any]]:
    """A row per graph: per (column, strategy) the median ms of call(graph, source, strategy) over `repeat` runs from
    random non-isolated sources (time_gpu; every column of a row from the same sources, so that the columns differ
    by technique only), then one more run from the largest-degree vertex, judged by agrees(its result, reference(graph,
    that vertex)), the CPU backend's run: a column that computes something else, or runs another technique wrongly,
    cannot look fast (its detail goes in the row's "wrong"). With `count`, "<column> <count_name>": count(that
    result); `facts(graph)` adds to the row. Sources are the graph's labels (the public calls take them: a real graph
    may be renumbered)."""
    import cupy as cp

    from ..graph.io import load

    out = []
    for index, spec in enumerate(graphs):
        g = load(spec)
        degree = g.out_degree()
        ids = np.flatnonzero(degree > 0)
        sources = np.atleast_1d(g.vertex_labels(ids))
        hub = int(sources[np.argmax(degree[ids])])  # the largest-degree vertex, as a label
        row: dict[str, Any] = {"graph": spec, "V": g.num_vertices, "E": g.num_edges, "wrong": {},
                               **(facts(g) if facts is not None else {})}
        progress(f"{what} on {spec}")
        expected = reference(g, hub)
        for column, strategy in columns:
            times, _ = time_gpu(cp, lambda s, st=strategy: call(g, s, st), sources, repeat,
                                np.random.default_rng((seed, index)))
            row[column] = statistics.median(times) * 1e3
            result = call(g, hub, strategy)
            same, detail = agrees(result, expected)
            if not same:
                row["wrong"][column] = detail
            if count is not None:
                row[f"{column} {count_name}"] = count(result)
        out.append(row)
    return out


def ablation_cell(row: dict[str, Any], column: str, text: str) -> str:
    """A cell of an ablation table: `text`, marked where the column's result was not the reference's."""
    wrong = row.get("wrong", {}).get(column)
    return text if wrong is None else f"{text} WRONG ({wrong})"


@dataclass(frozen=True)
class AblationTable:
    """One of the suite's ablation tables, as `graphgear bench --suite gpu` and benchmarks/ablation_tables.py print
    it: the ablation that makes its rows, its report key, its title (`{n}`: the runs a cell is the median of), its
    columns, a cell's text, the runs a cell takes where the caller does not say and the line printed under the table
    for each row, if any."""

    key: str
    run: Callable[..., list[dict[str, Any]]]
    title: str
    columns: Callable[[], list[str]]
    cell: Callable[[dict[str, Any], str], str]
    repeat: int = 5
    note: Callable[[dict[str, Any]], str] | None = None

    def marked(self, row: dict[str, Any], column: str) -> str:
        """The cell's text, marked WRONG where the column's result was not the reference's (ablation_cell)."""
        return ablation_cell(row, column, self.cell(row, column))

    def notes(self, rows: list[dict[str, Any]]) -> list[str]:
        """The lines printed under the table: `note` of each row."""
        return [self.note(row) for row in rows] if self.note is not None else []


def _ms(row: dict[str, Any], column: str) -> str:
    return f"{row[column]:,.2f}"


ABLATION_TABLES = {
    "balance": AblationTable(
        "ablation", ablation, "BFS by load-balancing technique, push only, ms (median of {n}; sync: a launch per "
        "level, async: one persistent kernel)", lambda: [c for c, _ in ablation_columns()], _ms, note=reach_line),
    "dedup": AblationTable(
        "dedup_ablation", dedup_ablation, f"SSSP ({DEDUP_ALGORITHM}) by duplicate removal on an edge queue, a launch "
        "per level: ms (median of {n}) / frontier entries computed in all", lambda: list(DEDUP_TECHNIQUES),
        lambda row, c: f"{row[c]:,.2f} / {row[c + ' listed']:,}"),
    "paths": AblationTable(
        "path_ablation", path_ablation, "BFS by SEP-Graph's execution path fixed for the run, then by controller, ms "
        "(median of {n})", lambda: [c for c, _ in path_columns()], _ms),
    "pagerank": AblationTable(
        "pagerank_ablation", pagerank_ablation, f"PageRank (tol {PAGERANK_TOL:g}) by method and layout, ms a call "
        "(median of {n}) / iterations (delta methods: rounds)", lambda: [c for c, _ in PAGERANK_COLUMNS],
        lambda row, c: f"{row[c]:,.2f} / {row[c + ' iterations']:,}", repeat=3),
}


def scc_vs_scipy(repeat: int = 5, spec: str = SCC_GRAPH) -> dict[str, Any]:
    """SCC on the GPU against scipy.sparse.csgraph.connected_components(connection="strong") on the host CPU."""
    import cupy as cp
    from scipy.sparse.csgraph import connected_components

    from .. import api
    from ..graph.io import load

    g = load(spec)
    matrix = g.to_scipy()
    gpu_times, result = time_gpu(cp, lambda s: api.strongly_connected_components(g, backend="cuda"),
                                 np.zeros(1, dtype=np.int64), repeat, np.random.default_rng(0))
    cpu_times = []
    for _ in range(max(1, min(repeat, 3))):
        start = time.perf_counter()
        count, labels = connected_components(matrix, directed=True, connection="strong")
        cpu_times.append(time.perf_counter() - start)
    ours = result.labels
    pairs = np.unique(np.stack([ours, labels.astype(np.int64)]), axis=1).shape[1]  # same partition: pairs = classes
    agree = result.num_components == count == pairs
    return {"graph": spec, "V": g.num_vertices, "E": g.num_edges, "gpu_ms": statistics.median(gpu_times) * 1e3,
            "scipy_ms": statistics.median(cpu_times) * 1e3, "components": count, "agree": agree}

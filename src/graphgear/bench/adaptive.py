"""`graphgear bench --suite adaptive`: `auto` against every fixed strategy that applies (issue 24, point 5).

The question is SEP-Graph's and MultiGraph's: does choosing the execution path per iteration beat committing to one
for the whole run? For BFS, SSSP, CC, PageRank and BC on eight graph shapes (the issue's: power-law undirected and
directed, uniform random, a road-like lattice, a lattice with missing edges, random geometric, a real road graph, a
real social graph), each row times the algorithm under `auto` and under every fixed Strategy of `fixed_strategies`,
on the same graph, source and backend, and reports auto / best fixed. A fixed strategy the algorithm refuses
(StrategyError: e.g. async pull on PageRank's sum) does not apply to that row; any other failure is shown in the row.
Every fixed strategy's result is checked against auto's (exactly, or for PageRank within its stopping rule), so a
path that computes something else cannot look fast.

The summary is the issue's target: auto within 10% of the best fixed strategy on at least 80% of the rows, never
worse than 1.3x, and at least 1.5x faster, in geometric mean over the rows, than the best single fixed strategy (the
one fixed strategy, among those that ran on every row, with the smallest geometric mean).

Timing: the CPU, the median of `repeat` wall-clock runs after a warm-up run (bench.metrics.time_runs); the GPU, the
median of `repeat` CUDA-event timings after bench.gpu's warm-up, every run from the same source. A fixed strategy far
slower than auto (SLOW_FACTOR) is timed by one warm call instead, and its row says so.

Then the final round, on every row whatever its ratio: auto and the FINALISTS fastest fixed strategies of the first
pass (those within FINAL_WITHIN of the fastest) are timed again in turn for FINAL_ROUNDS rounds, the order rotating
every round, each by the second of two calls in a row (warm from its own run, as the first pass times it: timed by one
call in turn, a PageRank call of 0.27 ms took 0.41 right after a 26 ms async path), and their medians replace their
first-pass times (kept in `first_ms`). A row's first pass spans seconds to minutes with auto timed at its start, and
the fastest of some thirty noisy medians is biased low; side by side, the device's drift falls on both
(docs/performance.md#the-adaptive-suites-final-round). A fixed strategy outside the finalists keeps its first-pass
time, so where it is still the fastest the row says so against auto.

Parts: a long suite runs in parts (`select_shapes`, the CLI's --shapes and --algorithms), each part's report written
again after every row (`report`, complete: false until the part ends), so a part stopped by a time limit keeps every
row it finished; `merge_reports` reads the parts back and the summary is taken over all their rows.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.strategy import Strategy
from ..errors import GraphgearError, StrategyError
from ..graph.generate import weighted_spec
from .references import agreement, output_of, pagerank_agreement
from .suites import default_source, run_algorithm

__all__ = ["ADAPTIVE_ALGORITHMS", "AdaptiveRow", "adaptive_graphs", "adaptive_suite", "fixed_strategies",
           "merge_reports", "report", "row_line", "select_shapes", "strategy_label", "summary"]

ADAPTIVE_ALGORITHMS = ("bfs", "sssp", "cc", "pagerank", "bc")
# the target (issue 24, point 5)
WITHIN, SHARE_WITHIN, WORST, GEOMEAN_GAIN = 1.10, 0.80, 1.30, 1.50
# A fixed strategy whose warm call takes SLOW_FACTOR times auto's time (and SLOW_FLOOR_MS at least) is timed by that
# call alone: it cannot be a row's best, and a topology-driven path on a lattice of thousands of levels would
# otherwise take the suite's time in warm-ups and repeats
SLOW_FACTOR, SLOW_FLOOR_MS = 20.0, 50.0
# the final round (module notes): auto and this many of the first pass's fastest fixed strategies, side by side
FINALISTS, FINAL_ROUNDS, FINAL_WITHIN = 3, 5, 1.5
DEFAULT_SCALE = {"cpu": 16, "cuda": 21}  # 2^scale vertices for the generated shapes (tiny ones time the per-level overhead)
REAL_SHAPES = (("real road graph", ("road/luxembourg_osm.mtx", "road/malta_osm.gr.gz")),
               ("real social graph", ("social/email-Enron.txt.gz", "social/wiki-Vote.txt")))


def adaptive_graphs(scale: int, real_folder: Path | None) -> list[tuple[str, str]]:
    """(shape, spec or path) for the eight shapes: six generated with about 2^scale vertices, and the first real
    road and social graph found in `real_folder` (none without it)."""
    side = max(2, round(2 ** (scale / 2)))
    shapes = [("power-law undirected", f"kron:{scale}"),
              ("power-law directed", f"rmat:{scale}:8"),
              ("uniform random", f"er:{2 ** scale}:8"),
              ("road-like lattice", f"grid:{side}:{side}"),
              ("lattice with missing edges", f"grid:{side}:{side}:0.7"),
              ("random geometric", f"rgg:{scale}")]
    if real_folder is not None:
        for shape, names in REAL_SHAPES:
            found = [str(real_folder / name) for name in names if (real_folder / name).exists()]
            if found:
                shapes.append((shape, found[0]))
    return shapes


def fixed_strategies(backend: str) -> list[Strategy]:
    """Every fixed strategy the suite tries: SEP-Graph's eight paths (direction x sync x drive) with the backend's
    defaults for the rest, and on the GPU also every load-balancing technique of the ablation (bench.gpu.TECHNIQUES)
    under sync and async data-driven push, the paths where the technique does the work. The ablation's supports
    columns (bench.gpu.SUPPORT_TECHNIQUES) stay out: they add to a technique rather than replace it, and each would
    add a strategy to every row of the suite."""
    out = []
    for d, s, r in itertools.product(("push", "pull"), ("sync", "async"), ("data", "topology")):
        try:
            out.append(Strategy(direction=d, sync=s, drive=r))
        except StrategyError:  # a path the strategy space rules out as a whole
            continue
    if backend == "cuda":
        from .gpu import TECHNIQUES, ablation_strategies

        out += [strategy for _, strategy in ablation_strategies(TECHNIQUES) if strategy not in out]
    return out


def strategy_label(strategy: Strategy) -> str:
    """A fixed strategy as the table names it: its SEP-Graph path, then what else it fixes (sync-push-dd warp_scan)."""
    rest = [part for part in str(strategy).split(",")
            if part != "default" and part.split("=")[0] not in ("direction", "sync", "drive")]
    return " ".join([strategy.path, *rest])


@dataclass
class AdaptiveRow:
    algorithm: str
    shape: str
    graph: str
    num_vertices: int
    num_edges: int
    auto_ms: float
    fixed_ms: dict[str, float] = field(default_factory=dict)  # strategy -> ms, for those that ran and agreed
    refused: list[str] = field(default_factory=list)  # strategies that do not apply (StrategyError)
    failed: dict[str, str] = field(default_factory=dict)  # strategy -> why (an error, or a result unlike auto's)
    once: list[str] = field(default_factory=list)  # strategies timed by one warm call (SLOW_FACTOR)
    first_ms: dict[str, float] = field(default_factory=dict)  # first-pass times of those the final round re-timed

    @property
    def best(self) -> tuple[str, float]:
        """(strategy, ms) of the fastest fixed strategy; ("", nan) where none ran."""
        if not self.fixed_ms:
            return "", math.nan
        name = min(self.fixed_ms, key=self.fixed_ms.__getitem__)
        return name, self.fixed_ms[name]

    @property
    def ratio(self) -> float:
        """auto / best fixed: below 1, auto beat every fixed strategy."""
        return self.auto_ms / self.best[1]

    @property
    def first_ratio(self) -> float:
        """auto / best fixed as the first pass timed them (before the final round; `ratio` where none ran)."""
        first = [self.first_ms.get(name, ms) for name, ms in self.fixed_ms.items()]
        return self.first_ms.get("auto", self.auto_ms) / min(first)


def _agrees(algorithm: str, result: Any, auto: Any) -> tuple[bool, str]:
    """Whether a fixed strategy's result is auto's. Exact for the traversals and components; PageRank stops at the
    first iterate whose L1 change is below N * tol (networkx's rule, tol 1e-6 as run here), and such an iterate lies
    within alpha / (1 - alpha) times that change of the fixed point, so two paths may end that far apart each way
    (references.pagerank_agreement)."""
    if algorithm == "pagerank":
        return pagerank_agreement(result.ranks, auto.ranks, tol=1e-6)
    return agreement(algorithm, result, output_of(algorithm, auto))


def _timers(backend: str, repeat: int) -> tuple[Callable, Callable, Callable]:
    """(timed, probe, loaded): `timed` and `probe` take a call and give (ms, its result); `timed` is the module notes'
    median after a warm-up, `probe` one call, unwarmed (a CUDA-event time on the GPU), the first look at a fixed
    strategy's cost. `loaded` counts the kernel modules the process has compiled or loaded (None where the backend
    cannot tell: the CPU's numba compiles on first call), so that a probe that loaded none is known to be warm."""
    if backend == "cuda":
        import cupy as cp

        from ..backends.cuda.runtime import modules_loaded
        from .gpu import event_seconds, time_gpu

        def on_gpu(call: Callable[[], Any]) -> tuple[float, Any]:
            times, result = time_gpu(cp, lambda _: call(), np.zeros(1, dtype=np.int64), repeat,
                                     np.random.default_rng(0))
            return statistics.median(times) * 1e3, result

        def probe_gpu(call: Callable[[], Any]) -> tuple[float, Any]:
            held: list[Any] = []
            return event_seconds(cp, lambda: held.append(call())) * 1e3, held[0]

        return on_gpu, probe_gpu, modules_loaded
    from .metrics import time_runs

    def on_cpu(call: Callable[[], Any], repeat: int = repeat, warmup: int = 1) -> tuple[float, Any]:
        seconds, result, _ = time_runs(call, repeat, warmup)
        return seconds * 1e3, result

    return on_cpu, lambda call: on_cpu(call, 1, 0), lambda: None


def _fixed_time(timed: Callable, probe: Callable, call: Callable[[], Any], auto_ms: float,
                loaded: Callable[[], int | None] = lambda: None) -> tuple[float, Any, bool]:
    """A fixed strategy's (ms, result, timed once): timed as auto is, unless a warm call still takes SLOW_FACTOR
    times auto's time, when that call's time is kept. The first call is warm where `loaded` says it compiled or
    loaded no kernel module; otherwise (or where `loaded` cannot tell) a second call is the warm one. On a lattice a
    slow fixed path takes a second or more a call, so the count saves the suite one such call a path."""
    slow = max(SLOW_FACTOR * auto_ms, SLOW_FLOOR_MS)
    before = loaded()
    ms, result = probe(call)
    if ms > slow:
        if before is None or loaded() != before:
            ms, result = probe(call)
        if ms > slow:
            return ms, result, True
    return (*timed(call), False)


def _final_round(row: AdaptiveRow, probe: Callable, calls: dict[str, Callable[[], Any]],
                 rounds: int = FINAL_ROUNDS) -> None:
    """Time auto ("auto" in `calls`) and the finalists side by side (module notes): `rounds` rounds, the order
    rotating, in which each is probed twice and the second probe kept; each one's median replaces its time in `row`,
    its first-pass time kept in first_ms."""
    names = list(calls)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            probe(calls[name])  # warm from its own run, as the first pass timed it
            times[name].append(probe(calls[name])[0])
    for name, ms in times.items():
        if name == "auto":
            row.first_ms[name], row.auto_ms = row.auto_ms, statistics.median(ms)
        else:
            row.first_ms[name], row.fixed_ms[name] = row.fixed_ms[name], statistics.median(ms)


def adaptive_suite(graphs: list[tuple[str, str]], algorithms: tuple[str, ...] = ADAPTIVE_ALGORITHMS, *,
                   backend: str = "cpu", repeat: int = 3,
                   progress: Callable[[str], None] = lambda message: None,
                   on_row: Callable[[list[AdaptiveRow]], None] = lambda rows: None) -> list[AdaptiveRow]:
    """One row per algorithm and graph: auto's time and every fixed strategy's (see the module notes).
    `on_row(rows)` is called with the rows so far as each row ends (the CLI writes its report then)."""
    from ..graph.io import load

    timed, probe, modules = _timers(backend, repeat)
    strategies = fixed_strategies(backend)
    rows = []
    for shape, spec in graphs:
        loaded: dict[str, Any] = {}
        for algorithm in algorithms:
            name = weighted_spec(spec) if algorithm == "sssp" else spec
            if name not in loaded:
                loaded[name] = load(name)
            g = loaded[name]
            source = default_source(g)
            progress(f"{algorithm} on {shape} ({name}): auto and {len(strategies)} fixed strategies")

            def call(strategy: Any, g: Any = g, algorithm: str = algorithm, source: int = source) -> Any:
                return run_algorithm(algorithm, g, source, backend, strategy)

            auto_ms, auto = timed(lambda: call("auto"))
            row = AdaptiveRow(algorithm, shape, name, g.num_vertices, g.num_edges, auto_ms)
            labelled = {}
            for strategy in strategies:
                label = strategy_label(strategy)
                try:
                    ms, result, once = _fixed_time(timed, probe, lambda st=strategy: call(st), auto_ms, modules)
                except StrategyError:
                    row.refused.append(label)
                    continue
                except Exception as exc:  # noqa: BLE001 - a failing path is shown in its row; the suite goes on
                    row.failed[label] = f"{type(exc).__name__}: {exc}"
                    continue
                same, detail = _agrees(algorithm, result, auto)
                if same:
                    row.fixed_ms[label] = ms
                    labelled[label] = strategy
                    if once:
                        row.once.append(label)
                else:
                    row.failed[label] = f"result unlike auto's ({detail})"
            finalists = sorted((label for label in row.fixed_ms if label not in row.once), key=row.fixed_ms.get)
            finalists = [label for label in finalists[:FINALISTS]
                         if row.fixed_ms[label] <= FINAL_WITHIN * row.fixed_ms[finalists[0]]]
            _final_round(row, probe, {"auto": lambda: call("auto"),
                                      **{label: lambda st=labelled[label]: call(st) for label in finalists}})
            rows.append(row)
            progress(row_line(row))
            on_row(rows)
    return rows


def row_line(row: AdaptiveRow) -> str:
    """A finished row in one line, for progress on a suite that runs for many minutes."""
    best, ms = row.best
    head = f"{row.algorithm} on {row.shape} ({Path(row.graph).name}): auto {row.auto_ms:,.3f} ms"
    tail = f", {len(row.failed)} failed" if row.failed else ""
    if not row.fixed_ms:
        return f"{head}, no fixed strategy ran{tail}"
    return f"{head}, best fixed {best} {ms:,.3f} ms, auto / best {row.ratio:.2f}{tail}"


def select_shapes(graphs: list[tuple[str, str]], names: str) -> list[tuple[str, str]]:
    """The shapes named in `names` (comma-separated, as adaptive_graphs names them: "road-like lattice,random
    geometric"), in the suite's order, so that a long suite can run in parts; GraphgearError names an unknown one."""
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    known = [shape for shape, _ in graphs]
    unknown = [name for name in wanted if name not in known]
    if unknown or not wanted:
        raise GraphgearError(f"--shapes: unknown shape {', '.join(map(repr, unknown)) or repr(names)}; the shapes are "
                            f"{', '.join(known)}")
    return [(shape, spec) for shape, spec in graphs if shape in wanted]


def report(rows: list[AdaptiveRow], *, backend: str, scale: Any, repeat: Any, complete: bool) -> dict[str, Any]:
    """The JSON report of a suite (or part of one): its settings, the summary over `rows`, every row with each fixed
    strategy's time, and whether the run ended (`complete`) or the rows are those finished so far."""
    return {"backend": backend, "scale": scale, "repeat": repeat, "complete": complete, "summary": summary(rows),
            "rows": [{**vars(r), "best": r.best[0], "ratio": r.ratio if r.fixed_ms else None} for r in rows]}


_ROW_FIELDS = {"algorithm": str, "shape": str, "graph": str, "num_vertices": int, "num_edges": int,
               "auto_ms": (int, float), "fixed_ms": dict, "refused": list, "failed": dict, "once": list}
_OPTIONAL_ROW_FIELDS = {"first_ms": dict}  # reports written before the final round have none


def _rows_of(path: Path, value: Any) -> tuple[str, list[AdaptiveRow]]:
    """(backend, rows) of one report as `report` wrote it; GraphgearError names the file, the row and the field at
    fault."""
    if not isinstance(value, dict) or not isinstance(value.get("rows"), list) or not isinstance(value.get("backend"), str):
        raise GraphgearError(f"{path}: not a report of graphgear bench --suite adaptive (no 'backend' and 'rows')")
    rows = []
    for i, entry in enumerate(value["rows"], 1):
        if not isinstance(entry, dict):
            raise GraphgearError(f"{path}: row {i} is {type(entry).__name__} {entry!r:.60}, not an object")
        for name, kind in _ROW_FIELDS.items():
            if name not in entry:
                raise GraphgearError(f"{path}: row {i} has no {name!r}")
        fields = {name: entry[name] for name in (*_ROW_FIELDS, *_OPTIONAL_ROW_FIELDS) if name in entry}
        for name, field_value in fields.items():
            kind = _ROW_FIELDS.get(name) or _OPTIONAL_ROW_FIELDS[name]
            if not isinstance(field_value, kind) or isinstance(field_value, bool):
                raise GraphgearError(f"{path}: row {i}: {name} is {field_value!r:.60}")
        times = {"auto_ms": entry["auto_ms"], **entry["fixed_ms"],
                 **{f"{name} (first pass)": ms for name, ms in fields.get("first_ms", {}).items()}}
        for name, ms in times.items():
            if not isinstance(ms, (int, float)) or isinstance(ms, bool) or not math.isfinite(ms) or ms <= 0:
                raise GraphgearError(f"{path}: row {i} ({entry['algorithm']} on {entry['graph']}): the time of {name} "
                                     f"is {ms!r:.60}, not a positive number of ms")
        rows.append(AdaptiveRow(**fields))
    return value["backend"], rows


def merge_reports(paths: list[str | Path]) -> tuple[str, list[AdaptiveRow], list[str]]:
    """(backend, rows, notes) of the reports at `paths`, the parts of one suite: their rows in the order given. A
    report of another backend than the first's, or a row (algorithm and graph) that an earlier report holds, is
    refused with both files named; `notes` says which reports were incomplete (a part stopped early) and where the
    parts' scale or repeat differ."""
    backend, rows, notes = "", [], []
    seen: dict[tuple[str, str], Path] = {}
    settings: dict[str, set] = {"scale": set(), "repeat": set()}
    for raw in paths:
        path = Path(raw)
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise GraphgearError(f"{path}: cannot read it ({exc.strerror or exc})") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            where = f"line {exc.lineno}: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise GraphgearError(f"{path}: not JSON ({where})") from None
        kind, part = _rows_of(path, value)
        if backend and kind != backend:
            raise GraphgearError(f"{path}: a report of backend {kind!r}; {paths[0]} is of {backend!r} (one backend's "
                                 "parts merge)")
        backend = kind
        for row in part:
            key = (row.algorithm, row.graph)
            if key in seen:
                raise GraphgearError(f"{path}: {row.algorithm} on {row.graph} is also in {seen[key]}")
            seen[key] = path
        rows.extend(part)
        if value.get("complete") is False:
            notes.append(f"{path} is the part of a run that stopped early ({len(part)} rows finished)")
        for name, values in settings.items():
            values.add(repr(value.get(name)))
    for name, values in settings.items():
        if len(values) > 1:
            notes.append(f"the parts differ in {name}: {', '.join(sorted(values))}")
    return backend, rows, notes


def summary(rows: list[AdaptiveRow]) -> dict[str, Any]:
    """The issue's target measured on `rows` (those where some fixed strategy ran): the share within WITHIN of the
    best fixed strategy, the worst ratio, and the gain over the best single fixed strategy (geometric means over the
    rows of that strategy's time and auto's; only strategies that ran on every row compete)."""
    timed = [r for r in rows if r.fixed_ms]
    if not timed:
        return {"rows": 0}
    ratios = [r.ratio for r in timed]
    share = sum(x <= WITHIN for x in ratios) / len(ratios)

    def geomean(values: list[float]) -> float:
        return math.exp(sum(math.log(v) for v in values) / len(values))

    everywhere = set.intersection(*(set(r.fixed_ms) for r in timed))
    single = min(everywhere, key=lambda s: geomean([r.fixed_ms[s] for r in timed]), default="")
    gain = geomean([r.fixed_ms[single] for r in timed]) / geomean([r.auto_ms for r in timed]) if single else math.nan
    return {"rows": len(timed), "within": share, "worst": max(ratios), "single": single, "gain": gain,
            "met": share >= SHARE_WITHIN and max(ratios) <= WORST and gain >= GEOMEAN_GAIN}

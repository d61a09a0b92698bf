"""Benchmark suites: which algorithms run on which graphs, and the runner that times them against references.

``smoke`` runs every algorithm on small generated graphs (Kronecker, R-MAT, grid, random geometric, Erdős–Rényi) and on
the real graphs of ``shared/graphs`` when present, with graphgear and the references side by side (references.py:
SciPy wherever it has the algorithm, igraph where installed, NetworkX only for betweenness; each row names its
reference). graphgear's times are medians of `repeat` runs after a warm-up run (numba loads or compiles its
kernels), the references' medians of `repeat` runs (NetworkX: one); MTEPS as in metrics.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..graph.generate import weighted_spec
from .metrics import mteps, time_runs
from .references import BC_SAMPLES, agreement, references

__all__ = ["Case", "CaseResult", "smoke_suite", "run_case", "SUITES", "find_real_graphs"]

ALL_ALGORITHMS = ("bfs", "sssp", "pagerank", "cc", "scc", "bc", "color")
SMOKE_GENERATED = ("kron:14", "rmat:13:8", "grid:128:128:0.9", "rgg:13", "er:8000:8")
SMOKE_REAL = (
    "road/luxembourg_osm.mtx",
    "road/malta_osm.gr.gz",
    "mesh/delaunay_n15.graph",
    "social/email-Enron.txt.gz",
    "social/wiki-Vote.txt",
    "citation/cit-HepTh.txt.gz",
    "internet/as-caida20071105.txt.gz",
)


@dataclass(frozen=True)
class Case:
    algorithm: str
    graph: str  # a generator spec or a file path


@dataclass
class CaseResult:
    case: Case
    num_vertices: int
    num_edges: int
    seconds: float
    mteps: float
    reference_times: dict[str, float] = field(default_factory=dict)
    agreement: dict[str, tuple[bool, str]] = field(default_factory=dict)
    error: str = ""


def find_real_graphs(folder: str | None = None) -> Path | None:
    """The real-graph folder: `folder`, $GRAPHGEAR_GRAPHS, or ../shared/graphs near the working directory."""
    candidates = [folder, os.environ.get("GRAPHGEAR_GRAPHS")]
    here = Path.cwd()
    candidates += [str(p / "shared" / "graphs") for p in (here, *here.parents)]
    for c in candidates:
        if c and Path(c).is_dir():
            return Path(c)
    return None


def smoke_suite(real_folder: Path | None) -> list[Case]:
    graphs = list(SMOKE_GENERATED)
    if real_folder is not None:
        graphs += [str(real_folder / name) for name in SMOKE_REAL if (real_folder / name).exists()]
    cases = []
    for algorithm in ALL_ALGORITHMS:
        for spec in graphs:
            cases.append(Case(algorithm, weighted_spec(spec) if algorithm == "sssp" else spec))
    return cases


SUITES = {"smoke": smoke_suite}


def default_source(graph: Any) -> int:
    """The source used when none is given: the vertex of largest out-degree (never an isolated vertex)."""
    return int(np.argmax(graph.out_degree())) if graph.num_vertices else 0


def run_algorithm(algorithm: str, graph: Any, source: int, backend: str, strategy: Any) -> Any:
    """Run one algorithm of the public API the way the benchmarks do; `source` is an internal vertex index (passed to
    the API as the graph's label of it, as the references take the index)."""
    from .. import api

    if algorithm in ("bfs", "sssp"):
        label = graph.vertex_labels(source).item()
        run = api.bfs if algorithm == "bfs" else api.sssp
        return run(graph, label, backend=backend, strategy=strategy)
    if algorithm == "pagerank":
        return api.pagerank(graph, backend=backend, strategy=strategy)
    if algorithm == "cc":
        return api.connected_components(graph, backend=backend, strategy=strategy)
    if algorithm == "scc":
        return api.strongly_connected_components(graph, backend=backend, strategy=strategy)
    if algorithm == "bc":
        return api.betweenness_centrality(graph, k=min(BC_SAMPLES, graph.num_vertices), seed=0, backend=backend,
                                          strategy=strategy)
    if algorithm == "color":
        return api.color_propagation(graph, backend=backend, strategy=strategy)
    raise ValueError(f"unknown algorithm {algorithm!r}")


def run_case(case: Case, graphs: dict[str, Any], *, backend: str = "cpu", strategy: Any = "auto", repeat: int = 3) -> CaseResult:
    """Time graphgear and every reference on one case, and check that they agree."""
    from ..graph.io import load

    if case.graph not in graphs:
        graphs[case.graph] = load(case.graph)
    graph = graphs[case.graph]
    source = default_source(graph)
    sources = min(BC_SAMPLES, graph.num_vertices) if case.algorithm == "bc" else 1
    try:
        seconds, result, _ = time_runs(lambda: run_algorithm(case.algorithm, graph, source, backend, strategy), repeat)
    except Exception as exc:  # a failing case is reported in the table, the suite goes on
        return CaseResult(case, graph.num_vertices, graph.num_edges, float("nan"), float("nan"), error=f"{type(exc).__name__}: {exc}")
    out = CaseResult(case, graph.num_vertices, graph.num_edges, seconds, mteps(case.algorithm, graph.num_edges, seconds, sources))
    for ref in references(case.algorithm, graph, source):  # timed as graphgear is; NetworkX once (it is slow)
        ref_seconds, expected, _ = time_runs(ref.run, repeat=1 if ref.slow else repeat, warmup=0)
        out.reference_times[ref.name] = ref_seconds
        out.agreement[ref.name] = agreement(case.algorithm, result, expected)
    return out

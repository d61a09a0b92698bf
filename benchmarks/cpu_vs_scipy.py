"""CPU backend against SciPy on high-diameter graphs: BFS and SCC (issue 22, scope 8).

    python benchmarks/cpu_vs_scipy.py [--repeat 3] [--graphs SPEC ...] [--markdown]

BFS: ``gg.bfs(g, s, backend="cpu")`` with its distances and its BFS tree read, against
``scipy.sparse.csgraph.breadth_first_order(m, s, return_predecessors=True)`` (the visiting order and a BFS tree).
SCC: ``gg.strongly_connected_components(g, backend="cpu").labels`` against ``connected_components(m, directed=True,
connection="strong")``. Both sides run in this process on the same graph (SciPy on its CSR matrix, built outside the
timing), one warm-up call each (numba loads or compiles its kernels), then two protocols, medians (and minima):

    interleaved  `repeat` rounds of (graphgear, SciPy): each side starts where the other left the caches and the
                 allocator (the other's arrays in cache, its freed memory to reuse)
    blocked      `repeat` graphgear calls in a row, then `repeat` SciPy calls: each side in its own steady state

Every graphgear answer is checked against SciPy's before the timing: the same distances (from SciPy's own BFS
tree), a valid BFS tree, the same component partition. The source is the vertex of largest out-degree.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

import graphgear as gg

GRAPHS = ("road/luxembourg_osm.mtx", "road/malta_osm.gr.gz", "grid:1024:1024")


def find(spec: str) -> str:
    """A generator spec as it is; a path under shared/graphs found from here or the working directory."""
    if ":" in spec:
        return spec
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parent):
        candidate = base / "shared" / "graphs" / spec
        if candidate.exists():
            return str(candidate)
    raise SystemExit(f"{spec} not found under any shared/graphs")


def scipy_distances(order: np.ndarray, pred: np.ndarray, n: int) -> np.ndarray:
    """Hop distances from SciPy's BFS tree (parents come before children in the visiting order)."""
    dist = np.full(n, -1, dtype=np.int64)
    dist[order[0]] = 0
    for v in order[1:].tolist():
        dist[v] = dist[pred[v]] + 1
    return dist


def check_bfs(g: gg.Graph, s: int, result, expected: np.ndarray) -> None:
    dist, pred = np.asarray(result.distances), np.asarray(result.predecessors)
    assert np.array_equal(dist, expected), "BFS distances differ from SciPy's"
    v = np.flatnonzero(dist > 0)
    assert pred[s] == -1 and np.all(pred[dist <= 0] == -1), "BFS tree: unreached vertices or the source have parents"
    assert np.all(dist[pred[v]] == dist[v] - 1), "BFS tree: a parent is not one level up"
    row_of_arc = np.repeat(np.arange(g.num_vertices), g.out_degree())
    arcs = row_of_arc.astype(np.int64) * g.num_vertices + g.indices
    assert np.isin(pred[v].astype(np.int64) * g.num_vertices + v, arcs).all(), "BFS tree: a parent is no in-neighbour"


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    from graphgear.algorithms._common import canonical_labels

    return bool(np.array_equal(canonical_labels(np.asarray(a)), canonical_labels(np.asarray(b))))


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--graphs", nargs="*", default=list(GRAPHS))
    parser.add_argument("--algorithms", nargs="*", default=["bfs", "scc"], choices=["bfs", "scc"])
    parser.add_argument("--trace", action="store_true", help="print graphgear's last trace of each case")
    args = parser.parse_args()

    from scipy.sparse import csgraph

    rows = []
    for spec in args.graphs:
        g = gg.load(find(spec))
        m = g.to_scipy()
        s = int(np.argmax(g.out_degree()))
        cases = {
            "bfs": (lambda: _bfs(g, s), lambda: csgraph.breadth_first_order(m, s, directed=g.directed,
                                                                              return_predecessors=True)),
            "scc": (lambda: gg.strongly_connected_components(g, backend="cpu"),
                    lambda: csgraph.connected_components(m, directed=True, connection="strong")),
        }
        for name, (ours, theirs) in ((k, cases[k]) for k in args.algorithms):
            result, expected = ours(), theirs()  # warm-up, and the check
            if name == "bfs":
                check_bfs(g, s, result, scipy_distances(expected[0], expected[1], g.num_vertices))
            else:
                assert same_partition(result.labels, expected[1]), "SCC partitions differ from SciPy's"
            t_ours, t_theirs = [], []
            for _ in range(args.repeat):
                t_ours.append(timed(ours))
                t_theirs.append(timed(theirs))
            b_ours = [timed(ours) for _ in range(args.repeat)]
            b_theirs = [timed(theirs) for _ in range(args.repeat)]
            rows.append((spec, g, name, t_ours, t_theirs, b_ours, b_theirs))
            if args.trace:
                print(f"{spec} {name}: " + "; ".join(f"{r.phase or r.decision}: {r.reason}" for r in result.trace))
    ms = lambda t: f"{statistics.median(t) * 1e3:.2f} ({min(t) * 1e3:.2f})"  # noqa: E731
    ratio = lambda ours, theirs: f"{statistics.median(theirs) / statistics.median(ours):.2f}"  # noqa: E731
    print(f"median (min) of {args.repeat}, ms; ratio = SciPy's median / graphgear's (> 1: graphgear is faster)")
    print("| graph | V | arcs | algorithm | graphgear, interleaved | SciPy, interleaved | ratio | graphgear, blocked "
          "| SciPy, blocked | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec, g, name, t_ours, t_theirs, b_ours, b_theirs in rows:
        print(f"| {spec} | {g.num_vertices:,} | {g.num_arcs:,} | {name} | {ms(t_ours)} | {ms(t_theirs)} | "
              f"{ratio(t_ours, t_theirs)} | {ms(b_ours)} | {ms(b_theirs)} | {ratio(b_ours, b_theirs)} |")


def _bfs(g: gg.Graph, s: int):
    """graphgear's BFS with both results read (the distances and the tree), as SciPy returns its tree."""
    result = gg.bfs(g, s, backend="cpu")
    result.distances, result.predecessors
    return result


if __name__ == "__main__":
    main()

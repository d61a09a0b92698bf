"""CPU backend against SciPy / NetworkX on kron:20 (issue 3's acceptance table).

    python benchmarks/cpu_kron.py [--scale 20] [--repeat 3]

Each graphgear time is the median of `repeat` runs after a warm-up run (numba compilation); the references run on the
already-built scipy CSR (networkx on its own graph object, built outside the timing). The source is the vertex of
largest degree (never isolated).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import graphgear as gg


def median(fn, repeat: int, warmup: int = 1) -> tuple[float, object]:
    out = None
    for _ in range(warmup):
        out = fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-networkx", action="store_true")
    args = parser.parse_args()

    from scipy.sparse import csgraph

    g = gg.load(f"kron:{args.scale}")
    gw = gg.load(f"kron:{args.scale}:w")
    A, Aw = g.to_scipy(), gw.to_scipy()
    s = int(np.argmax(g.out_degree()))
    rows = []

    t, r = median(lambda: gg.bfs(g, s, backend="cpu"), args.repeat)
    tr, d = median(lambda: csgraph.breadth_first_order(A, s, return_predecessors=True), args.repeat, 0)
    rows.append(("BFS", t, "scipy breadth_first_order", tr, g.num_edges))

    t, r = median(lambda: gg.sssp(gw, s, backend="cpu"), args.repeat)
    tr, d = median(lambda: csgraph.dijkstra(Aw, indices=s), 1, 0)
    assert np.allclose(r.distances, d)
    rows.append(("SSSP", t, "scipy dijkstra", tr, gw.num_edges))

    t, r = median(lambda: gg.connected_components(g, backend="cpu"), args.repeat)
    tr, d = median(lambda: csgraph.connected_components(A, directed=False), args.repeat, 0)
    rows.append(("CC", t, "scipy connected_components", tr, g.num_edges))

    t, r = median(lambda: gg.pagerank(g, backend="cpu"), args.repeat)
    if not args.skip_networkx:
        import networkx as nx

        rows_, cols_ = np.repeat(np.arange(g.num_vertices), g.out_degree()), g.indices
        G = nx.Graph()
        G.add_nodes_from(range(g.num_vertices))
        keep = rows_ < cols_
        G.add_edges_from(zip(rows_[keep].tolist(), cols_[keep].tolist()))
        tr, ref = median(lambda: nx.pagerank(G), 1, 0)
        l1 = float(np.abs(np.array([ref[i] for i in range(g.num_vertices)]) - r.ranks).sum())
        rows.append(("PageRank", t, f"networkx pagerank (L1 {l1:.1e})", tr, g.num_edges))

    print(f"kron:{args.scale}: {g.num_vertices:,} vertices, {g.num_edges:,} edges; median of {args.repeat} after warm-up")
    print(f"{'algorithm':10} {'graphgear s':>12} {'MTEPS':>8}  {'reference':38} {'ref s':>8} {'speedup':>8}")
    for name, t, ref, tr, edges in rows:
        print(f"{name:10} {t:12.3f} {edges / t / 1e6:8.1f}  {ref:38} {tr:8.3f} {tr / t:7.1f}x")


if __name__ == "__main__":
    main()

"""BC from 8 sources by graph size: Brandes' device loop (the backend's `brandes`, one persistent launch per source)
against auto with the size rule off (capabilities.brandes_loop_arcs = 0: the host drives a shallow graph's levels,
a launch and a read per level). What sets backends/cuda/brandes.py LOOP_ARCS_PER_THREAD
(docs/performance.md#bcs-device-loop-by-size).

    python3 benchmarks/bc_loop_sizes.py [--graphs .data/graphs]   (on a GPU machine, repo root, PYTHONPATH=src)

Each figure is the median of 7 CUDA-event timings after 2 warm-up calls, the same 8 random non-isolated sources for
both; the loop's arcs per thread of its grid (one 256-thread block per multiprocessor) are printed beside.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np

GENERATED = [f"rmat:{s}:8" for s in (12, 14, 15, 16, 17, 18, 19, 20)] + [f"kron:{s}" for s in (12, 14, 16, 18)]
REAL = ["social/facebook_combined.txt.gz", "citation/cit-HepTh.txt.gz", "social/wiki-Vote.txt",
        "social/email-Enron.txt.gz", "internet/as-caida20071105.txt.gz"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", type=Path, default=Path(".data/graphs"))
    args = parser.parse_args()
    import cupy as cp

    import graphgear as gg
    from graphgear.algorithms.betweenness import _simple_view
    from graphgear.backends import get_backend
    from graphgear.backends.cuda import runtime as rt

    be = get_backend("cuda")
    threads = rt.multiprocessors() * rt.BLOCK

    def ms(fn) -> float:
        for _ in range(2):
            fn()
        times = []
        for _ in range(7):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
        return statistics.median(times)

    specs = GENERATED + [str(args.graphs / name) for name in REAL if (args.graphs / name).exists()]
    print(f"{'graph':<34} {'arcs':>11} {'arcs/thread':>11} {'loop ms':>9} {'host ms':>9} {'loop/host':>9}")
    for spec in specs:
        g = gg.load(spec)
        view = _simple_view(g)
        G = be.graph(view)
        ids = np.random.default_rng(7).choice(np.flatnonzero(g.out_degree() > 0), 8, replace=False)
        labels = [int(x) for x in np.atleast_1d(g.vertex_labels(ids))]

        def loop() -> None:
            be.brandes(G, [int(s) for s in ids], cp.zeros(g.num_vertices, dtype=cp.float64), False).check()

        def host() -> None:
            _ = gg.betweenness_centrality(g, sources=labels, backend="cuda").centrality

        arcs = be.capabilities.brandes_loop_arcs
        be.capabilities.brandes_loop_arcs = 0
        try:
            host_ms = ms(host)
        finally:
            be.capabilities.brandes_loop_arcs = arcs
        loop_ms = ms(loop)
        print(f"{Path(spec).name:<34} {view.num_arcs:>11,} {view.num_arcs / threads:>11,.0f} {loop_ms:>9.2f} "
              f"{host_ms:>9.2f} {loop_ms / host_ms:>9.2f}", flush=True)


if __name__ == "__main__":
    main()

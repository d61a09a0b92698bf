"""Device experiments: persistent-kernel grid size on a high-diameter BFS; SSSP and BFS traces on kron.

    PYTHONPATH=src python3 benchmarks/gpu_experiment.py
"""
import statistics

import numpy as np

import graphgear as gg
from graphgear.backends import get_backend


def timed(cp, fn, sources, rng, repeat=5):
    fn(int(sources[0]))
    ts = []
    for _ in range(repeat):
        s = int(rng.choice(sources))
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        r = fn(s)
        b.record()
        b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b))
    return statistics.median(ts), r


def main() -> None:
    import cupy as cp

    be = get_backend("cuda")
    rng = np.random.default_rng(0)
    g = gg.load("grid:2048:2048")
    src = np.flatnonzero(g.out_degree() > 0)
    for blocks in (16, 33, 66, 132):
        be.persistent_blocks = blocks
        ms, r = timed(cp, lambda s: gg.bfs(g, s, backend="cuda"), src, rng)
        print(f"grid BFS, {blocks} blocks: {ms:.3f} ms", flush=True)
    be.persistent_blocks = None
    for spec in ("kron:21:w", "grid:2048:2048:w"):
        gw = gg.load(spec)
        src = np.flatnonzero(gw.out_degree() > 0)
        ms, r = timed(cp, lambda s: gg.sssp(gw, s, backend="cuda"), src, rng)
        row = r.trace.rows[0]
        print(f"{spec} SSSP {ms:.3f} ms; edges processed {row.edges_processed / gw.num_arcs:.2f} x arcs; {row.reason[:90]}")
    k = gg.load("kron:21")
    src = np.flatnonzero(k.out_degree() > 0)
    ms, r = timed(cp, lambda s: gg.bfs(k, s, backend="cuda"), src, rng)
    print(f"kron:21 BFS {ms:.3f} ms")
    for row in r.trace.rows:
        print(f"  {row.iteration} {row.path} |A| {row.frontier_vertices:,} outdeg {row.frontier_edges:,} {row.seconds * 1e3:.3f} ms")


if __name__ == "__main__":
    main()

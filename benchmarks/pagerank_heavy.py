"""PageRank's power iteration on the GPU as the bench runs it (tol 1e-10, max_iter 20): CUDA-event time per call /
iterations, the kernel's device time per iteration, and the time outside the iterations per call, for settings of
the backend's power_heavy_sources (None: the default, 0: no heavy source block, and HEAVY's values), alternating
rounds; PROFILE=1 adds a cProfile of 20 calls.

    HEAVY=8192,16384 PYTHONPATH=src python3 benchmarks/pagerank_heavy.py [spec ...]
"""
import sys
import numpy as np
import cupy as cp
import graphgear as gg
from graphgear.backends import get_backend

specs = sys.argv[1:] or ["kron:21", "grid:2048:2048"]
PROFILE = __import__("os").environ.get("PROFILE")
be = get_backend("cuda")
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
for spec in specs:
    g = gg.load(spec)
    settings = [None, 0] + [int(k) for k in __import__("os").environ.get("HEAVY", "8192").split(",")]
    ev = {k: [] for k in settings}
    dev = {k: [] for k in settings}
    ranks = {}
    gap, first = {}, {}
    for r in range(3):
        for k in (settings if r % 2 == 0 else settings[::-1]):
            be.power_heavy_sources = k
            for _ in range(2):
                gg.pagerank(g, tol=1e-10, max_iter=20, method="power", backend="cuda")
            for _ in range(7):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                res = gg.pagerank(g, tol=1e-10, max_iter=20, method="power", backend="cuda")
                e1.record(); e1.synchronize()
                ev[k].append(cp.cuda.get_elapsed_time(e0, e1) / res.iterations)
                gap.setdefault(k, []).append(cp.cuda.get_elapsed_time(e0, e1) - sum(row.seconds for row in res.trace) * 1e3)
                first.setdefault(k, []).append(res.trace.rows[0].seconds * 1e3)
                dev[k].extend(row.seconds * 1e3 for row in res.trace)
            ranks[k] = res.ranks
    be.power_heavy_sources = None
    for k in settings:
        print(f"{spec} heavy_sources={k}: event {np.median(ev[k]):.3f} ms/iter, device {np.median(dev[k]):.3f} ms/iter, "
              f"outside the iterations {np.median(gap[k]):.3f} ms/call, first iteration {np.median(first[k]):.3f}, "
              f"iterations {res.iterations}, max |diff| vs None {np.abs(ranks[k] - ranks[None]).max():.2e}", flush=True)

if PROFILE:
    import cProfile, pstats
    g = gg.load("kron:21")
    for _ in range(3):
        gg.pagerank(g, tol=1e-10, max_iter=20, method="power", backend="cuda")
    cp.cuda.Device().synchronize()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(20):
        gg.pagerank(g, tol=1e-10, max_iter=20, method="power", backend="cuda")
    cp.cuda.Device().synchronize()
    pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(30)

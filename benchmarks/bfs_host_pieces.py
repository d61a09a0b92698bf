"""Host time of each callee in a BFS call on the GPU (each wrapped with perf_counter, which adds about 1 us a call),
us per call, median of 40 calls from random sources on kron:21, and the CUDA-event time of the call.

    PYTHONPATH=src python3 benchmarks/bfs_host_pieces.py
"""
import time
from collections import defaultdict
import numpy as np
import cupy as cp
import graphgear as gg
from graphgear.backends import get_backend
import graphgear.backends.cuda.runtime as rt
import graphgear.algorithms.bfs as BF
import graphgear.program as PG

be = get_backend("cuda")
g = gg.load("kron:21")
src = np.flatnonzero(g.out_degree() > 0)
rng = np.random.default_rng(1)
for _ in range(5):
    gg.bfs(g, int(rng.choice(src)), backend="cuda")
acc = defaultdict(float)


def wrap(owner, name, label=None):
    f = getattr(owner, name)

    def w(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            acc[label or name] += time.perf_counter() - t
    setattr(owner, name, w)


for name in ("resolve_source", "device_layout", "run_program"):
    wrap(BF, name)
for name in ("make_controller", "_device_rounds", "Trace"):
    wrap(PG, name)
for name in ("single_source_start", "program_state", "program_persistent", "hop_counts", "_persistent_buffers",
             "_persistent_visited", "_persistent_start", "_settle_pending", "_coresident_blocks", "_program_module",
             "graph", "fill_state", "_persistent_plan"):
    if hasattr(be, name):  # the names of the code measured (an older checkout lacks some)
        wrap(be, name)
wrap(be._report, "enqueue")
wrap(rt, "launch")
wrap(cp, "empty")
rows = []
ev = []
for i in range(45):
    acc.clear()
    s = int(rng.choice(src))
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    e0.record()
    t = time.perf_counter()
    r = gg.bfs(g, s, backend="cuda")
    acc["bfs total"] = time.perf_counter() - t
    e1.record(); e1.synchronize()
    ev.append(cp.cuda.get_elapsed_time(e0, e1))
    _ = r.trace.rows
    if i >= 5:
        rows.append(dict(acc))
for key in rows[0]:
    print(f"{key:>22}: {np.median([r.get(key, 0) for r in rows]) * 1e6:9.1f} us")
print(f"event median {np.median(ev):.3f} ms")

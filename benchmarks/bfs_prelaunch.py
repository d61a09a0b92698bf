"""When each stage of a BFS call on the GPU starts and ends, in us after the call (median of 50 calls from random
sources on kron:21, after warm-up): the host time before the persistent kernel's launch returns is time the GPU waits.
Each stage is wrapped to take a timestamp (well under 1 us each); the CUDA-event time of the call is printed last.

    PYTHONPATH=src python3 benchmarks/bfs_prelaunch.py
"""
import time

import cupy as cp
import numpy as np

import graphgear as gg
import graphgear.algorithms.bfs as BF
import graphgear.backends.cuda.runtime as rt
import graphgear.program as PG
from graphgear.backends import get_backend

be = get_backend("cuda")
g = gg.load("kron:21")
src = np.flatnonzero(g.out_degree() > 0)
rng = np.random.default_rng(1)
marks = {}
def mark(name):
    marks.setdefault(name, time.perf_counter())
def wrap(owner, name, enter=True, leave=False):
    f = getattr(owner, name)
    def w(*a, **k):
        if enter: mark(name + ">")
        r = f(*a, **k)
        if leave: mark(name + "<")
        return r
    setattr(owner, name, w)
for name in ("device_layout", "run_program"):
    wrap(BF, name, True, True)
for name in ("make_controller", "_device_rounds", "Trace"):
    wrap(PG, name, True, True)
for name in ("program_state", "program_persistent", "_persistent_buffers", "_persistent_visited", "hop_counts"):
    wrap(be, name, True, True)
# the launch itself: every "persistent" kernel handed out is wrapped
class K:
    def __init__(self, k): self.k = k; self.kernel = getattr(k, 'kernel', None)
    def __call__(self, *a, **kw):
        mark("launch>")
        r = self.k(*a, **kw)
        mark("launch<")
        return r
orig_get = rt.KernelTable.get_function
def get_function(self, name):
    f = orig_get(self, name)
    return K(f) if name == "persistent" else f
rt.KernelTable.get_function = get_function
for _ in range(5):
    gg.bfs(g, int(rng.choice(src)), backend="cuda")
rows = []
ev = []
for i in range(60):
    marks.clear()
    s = int(rng.choice(src))
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    e0.record()
    t0 = time.perf_counter()
    r = gg.bfs(g, s, backend="cuda")
    t1 = time.perf_counter()
    e1.record(); e1.synchronize()
    ev.append(cp.cuda.get_elapsed_time(e0, e1))
    _ = r.trace.rows
    if i >= 10:
        rows.append({k: (v - t0) * 1e6 for k, v in marks.items()} | {"return": (t1 - t0) * 1e6})
keys = sorted(rows[0], key=lambda k: np.median([r[k] for r in rows]))
for k in keys:
    print(f"{k:>24}: {np.median([r[k] for r in rows]):8.1f} us after the call")
print(f"event median {np.median(ev):.3f} ms")

"""Where a GPU call's host time goes: the GPU idles while Python prepares its launch, so this time counts in every
timed call. kron:21 after warm-up, median over calls (BFS from random sources; PageRank with the bench's settings),
and the CUDA-event time of the call last. Two views of the same wrapped callees:

    PYTHONPATH=src python3 benchmarks/host_time.py bfs stages       # when each stage starts (>) and ends (<), us after
                                                                     # the call; the launch returns at "launch<"
    PYTHONPATH=src python3 benchmarks/host_time.py bfs pieces       # host time inside each callee, us per call
    PYTHONPATH=src python3 benchmarks/host_time.py pagerank stages

Each wrapper takes a perf_counter stamp (under 1 us). A callee an older checkout lacks is skipped, so the same script
compares two commits (docs/performance.md#host-time-of-a-call).
"""
import sys
import time
from collections import defaultdict

import cupy as cp
import numpy as np

import graphgear as gg
import graphgear.algorithms.bfs as BF
import graphgear.algorithms.pagerank as PR
import graphgear.backends.cuda.runtime as rt
import graphgear.program as PG
from graphgear.backends import get_backend

ALGORITHM = sys.argv[1] if len(sys.argv) > 1 else "bfs"
MODE = sys.argv[2] if len(sys.argv) > 2 else "stages"
be = get_backend("cuda")
WRAPPED = {  # algorithm -> (owner, callee names); the kernel whose launch is stamped
    "bfs": ([(BF, ("resolve_source", "device_layout", "run_program")),
             (PG, ("controller_prototype", "make_controller", "_device_rounds", "Trace")),
             (be, ("program_state", "fill_state", "program_persistent", "_persistent_buffers", "_persistent_visited",
                   "_persistent_plan", "_capture_pending", "hop_counts", "graph")),
             (be._report, ("enqueue",))], "persistent"),
    "pagerank": ([(PR, ("_check_scalars", "device_layout", "_power_strategy", "_shares", "_power_iteration")),
                  (be, ("power_iteration", "_power_plan", "_heavy_sources", "_power_scratch", "_capture_pending")),
                  (be._report, ("read",))], "gg_power_iteration"),
}
if ALGORITHM not in WRAPPED or MODE not in ("stages", "pieces"):
    sys.exit(__doc__)
marks: dict[str, float] = {}
spent: dict[str, float] = defaultdict(float)


def timed(name, f):
    def wrapper(*a, **k):
        t = time.perf_counter()
        marks.setdefault(name + ">", t)
        try:
            return f(*a, **k)
        finally:
            now = time.perf_counter()
            marks.setdefault(name + "<", now)
            spent[name] += now - t
    return wrapper


class Kernel:
    """A kernel whose launch is timed; attributes pass through (the power iteration sets its shared memory)."""

    def __init__(self, kernel):
        object.__setattr__(self, "_kernel", kernel)
        object.__setattr__(self, "_call", timed("launch", kernel))

    def __call__(self, *a, **k):
        return self._call(*a, **k)

    def __getattr__(self, name):
        return getattr(self._kernel, name)

    def __setattr__(self, name, value):
        setattr(self._kernel, name, value)


callees, kernel_name = WRAPPED[ALGORITHM]
for owner, names in callees:
    for name in names:
        if hasattr(owner, name):
            setattr(owner, name, timed(name, getattr(owner, name)))
if hasattr(rt, "StructLaunch"):  # a struct-argument launch through the driver (the persistent kernel's)
    rt.StructLaunch.__call__ = timed("launch", rt.StructLaunch.__call__)
get_function = rt.KernelTable.get_function
rt.KernelTable.get_function = lambda self, name: (Kernel(get_function(self, name)) if name == kernel_name
                                                  else get_function(self, name))
g = gg.load("kron:21")
sources = np.flatnonzero(g.out_degree() > 0)
picks = iter(np.random.default_rng(1).choice(sources, size=60).tolist())  # picked before the timed calls
call = {"bfs": lambda: gg.bfs(g, next(picks), backend="cuda"),
        "pagerank": lambda: gg.pagerank(g, tol=1e-10, max_iter=20, method="power", backend="cuda")}[ALGORITHM]
rows, events = [], []
for i in range(60):
    marks.clear()
    spent.clear()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    t0 = time.perf_counter()
    result = call()
    t1 = time.perf_counter()
    stop.record()
    stop.synchronize()
    _ = result.trace.rows  # its deferred rows, outside the timed call
    if i >= 10:
        events.append(cp.cuda.get_elapsed_time(start, stop))
        rows.append({k: (v - t0) * 1e6 for k, v in marks.items()} | {"return": (t1 - t0) * 1e6} if MODE == "stages"
                    else {k: v * 1e6 for k, v in spent.items()} | {"call": (t1 - t0) * 1e6})
keys = sorted(rows[0], key=lambda k: np.median([r.get(k, 0) for r in rows]))
for k in keys:
    print(f"{k:>24}: {np.median([r.get(k, 0) for r in rows]):8.1f} us" + (" after the call" if MODE == "stages" else ""))
iterations = f", {result.iterations} iterations" if ALGORITHM == "pagerank" else ""
print(f"{ALGORITHM}: event median {np.median(events):.3f} ms{iterations}")

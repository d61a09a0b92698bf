"""Where the time of one GPU run goes: every graphgear kernel launch timed with CUDA events (launches serialised),
the rest of the run (CuPy array operations, host reads, Python) as the remainder, for each algorithm on one graph.

    PYTHONPATH=src python3 benchmarks/gpu_profile.py [spec] [algorithm ...]
"""

import statistics
import sys
from collections import defaultdict

import numpy as np

import graphgear as gg
from graphgear.backends.cuda import runtime as rt

CALLS = {
    "bfs": lambda g, s: gg.bfs(g, s, backend="cuda"),
    "sssp": lambda g, s: gg.sssp(g, s, backend="cuda"),
    "pagerank": lambda g, s: gg.pagerank(g, tol=1e-10, max_iter=10, method="power", backend="cuda"),
    "cc": lambda g, s: gg.connected_components(g, backend="cuda"),
    "bc": lambda g, s: gg.betweenness_centrality(g, sources=[s], backend="cuda"),
    "color": lambda g, s: gg.color_propagation(g, backend="cuda"),
}


def main() -> None:
    import cupy as cp

    spec = sys.argv[1] if len(sys.argv) > 1 else "kron:21"
    algorithms = sys.argv[2:] or list(CALLS)
    g = gg.load(spec)
    gw = gg.load(spec + ":w") if "sssp" in algorithms else None
    s = int(np.flatnonzero(g.out_degree() > 0)[0])
    times: dict[str, list[float]] = defaultdict(list)
    original = rt.launch
    names: dict[int, str] = {}
    compile_module = rt.compile_module

    class Named:  # a module whose get_function remembers each kernel's name
        def __init__(self, module):
            self.module = module

        def get_function(self, name):
            function = self.module.get_function(name)
            names[id(function)] = name
            return function

    rt.compile_module = lambda source, device_launch=False: Named(compile_module(source, device_launch))

    def timed_launch(kernel, work, args, block=rt.BLOCK, max_blocks=None):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        original(kernel, work, args, block, max_blocks)
        b.record()
        b.synchronize()
        times[names.get(id(kernel), "kernel")].append(cp.cuda.get_elapsed_time(a, b))

    for name in algorithms:
        graph = gw if name == "sssp" else g
        CALLS[name](graph, s)  # warm-up
        cp.cuda.Device().synchronize()
        walls = []
        for _ in range(3):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            CALLS[name](graph, s)
            b.record()
            b.synchronize()
            walls.append(cp.cuda.get_elapsed_time(a, b))
        times.clear()
        rt.launch = timed_launch
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        CALLS[name](graph, s)
        b.record()
        b.synchronize()
        rt.launch = original
        total = cp.cuda.get_elapsed_time(a, b)
        kernels = sum(sum(v) for v in times.values())
        print(f"{name} on {spec}: {statistics.median(walls):.3f} ms (median of 3); profiled run {total:.3f} ms, of which "
              f"graphgear launches {kernels:.3f} ms, the rest (persistent kernels, CuPy ops, host reads, Python) "
              f"{total - kernels:.3f} ms")
        for kname, ts in sorted(times.items(), key=lambda kv: -sum(kv[1]))[:6]:
            print(f"    {kname:28} {len(ts):5d} launches {sum(ts):9.3f} ms")


if __name__ == "__main__":
    main()

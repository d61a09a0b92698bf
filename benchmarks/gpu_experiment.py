"""Device experiments: alternatives for the slow cases of `graphgear bench --suite gpu`, and where host time goes.

    PYTHONPATH=src python3 benchmarks/gpu_experiment.py
"""
import cProfile
import pstats
import statistics

import numpy as np

import graphgear as gg


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

    rng = np.random.default_rng(0)
    for spec in ("kron:21", "grid:2048:2048"):
        g, gw = gg.load(spec), gg.load(spec + ":w")
        src = np.flatnonzero(g.out_degree() > 0)
        cases = {
            "sssp bellman_ford async": lambda s: gg.sssp(gw, s, method="bellman_ford", strategy="sync=async", backend="cuda"),
            "sssp bellman_ford auto": lambda s: gg.sssp(gw, s, method="bellman_ford", backend="cuda"),
            "cc label_propagation async": lambda s: gg.connected_components(g, method="label_propagation", strategy="sync=async", backend="cuda"),
            "cc afforest": lambda s: gg.connected_components(g, method="afforest", backend="cuda"),
        }
        for name, fn in cases.items():
            ms, r = timed(cp, fn, src, rng)
            print(f"{spec:16} {name:30} {ms:10.3f} ms  {len(r.trace)} rows", flush=True)
    g = gg.load("kron:21")
    for name, fn in (("cc afforest", lambda: gg.connected_components(g, method="afforest", backend="cuda")),
                     ("pagerank", lambda: gg.pagerank(g, tol=1e-10, max_iter=10, method="power", backend="cuda"))):
        fn()
        cp.cuda.Device().synchronize()
        prof = cProfile.Profile()
        prof.enable()
        r = fn()
        cp.cuda.Device().synchronize()
        prof.disable()
        print(name)
        print(r.trace)
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()

"""GPU BFS timings and the load-balancing ablation (Busato & Bombieri Fig. 6 style), on the device.

    PYTHONPATH=src python3 benchmarks/gpu_bfs.py [--graphs kron:21 grid:2048:2048] [--repeat 5]

Times are CUDA-event medians of `repeat` runs after one warm-up run (NVRTC compilation, uploads), each run from a
fresh random non-isolated source. Also measures the device-to-device copy bandwidth (bytes read + written).
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

import graphgear as gg
from graphgear.engine.strategy import Strategy

TECHNIQUES = [("vertex_group-1", dict(balance="vertex_group", group_size=1)),
              ("vertex_group-4", dict(balance="vertex_group", group_size=4)),
              ("vertex_group-16", dict(balance="vertex_group", group_size=16)),
              ("vertex_group-32", dict(balance="vertex_group", group_size=32)),
              ("twc", dict(balance="twc")),
              ("warp_scan", dict(balance="warp_scan")),
              ("merge_path", dict(balance="merge_path")),
              ("three_stage", dict(balance="three_stage"))]


def copy_bandwidth(cp) -> float:
    a = cp.random.random(1 << 28, dtype=cp.float64)  # 2 GiB
    b = cp.empty_like(a)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(6):
        start.record()
        b[...] = a
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return 2 * a.nbytes / statistics.median(times[1:])


def time_bfs(cp, g, strategy, repeat, rng) -> tuple[float, int]:
    candidates = np.flatnonzero(g.out_degree() > 0)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    gg.bfs(g, int(candidates[0]), backend="cuda", strategy=strategy)  # warm-up: compile, upload
    times, iterations = [], 0
    for _ in range(repeat):
        s = int(rng.choice(candidates))
        start.record()
        r = gg.bfs(g, s, backend="cuda", strategy=strategy)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
        iterations = len(r.trace)
    return statistics.median(times), iterations


def main() -> None:
    import cupy as cp

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", nargs="+", default=["kron:21", "grid:2048:2048"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*", help="strategy names to time (default: auto, every technique, pull)")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"copy bandwidth: {copy_bandwidth(cp) / 1e12:.2f} TB/s (read + write)")
    rows = []
    for spec in args.graphs:
        g = gg.load(spec)
        for name, fields in [("auto", None)] + [(f"push {n}", f) for n, f in TECHNIQUES] + [("pull", {"direction": "pull", "frontier": "bitmap"})]:
            if args.only and name not in args.only:
                continue
            strategy = "auto" if fields is None else Strategy(**fields)
            ms, its = time_bfs(cp, g, strategy, args.repeat, rng)
            rows.append((spec, name, ms, its, g.num_edges / (ms / 1e3) / 1e9))
            print(f"{spec:16} {name:22} {ms:10.3f} ms  {its:5d} it  {rows[-1][-1]:8.2f} GTEPS", flush=True)
    print("\nBFS (median of %d, CUDA events)" % args.repeat)
    print(f"{'graph':16} {'strategy':22} {'ms':>10} {'iters':>6} {'GTEPS':>8}")
    for spec, name, ms, its, gteps in rows:
        print(f"{spec:16} {name:22} {ms:10.3f} {its:6d} {gteps:8.2f}")


if __name__ == "__main__":
    main()

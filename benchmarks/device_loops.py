"""The device loops of issue 23 on one GPU: BFS, Brandes' single-source BC, colour propagation and label propagation
on grid:2048:2048 (each loop against a BFS's time on the same graph), and SCC against scipy.sparse.csgraph on
rmat:21:16 and on a directed high-diameter graph (graph.generate.orient: every lattice edge of grid:2048:2048 one
way, half of them both ways). graphgear: median of CUDA-event timings after warm-up (bench.gpu.time_gpu);
SciPy: median of 3 wall-clock runs on this machine's CPU.

    PYTHONPATH=src python3 benchmarks/device_loops.py [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", default=None)
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    import cupy as cp
    from scipy.sparse.csgraph import connected_components

    import graphgear as gg
    from graphgear.bench.gpu import time_gpu
    from graphgear.graph.generate import orient

    rng = np.random.default_rng(0)
    out = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    grid = gg.load("grid:2048:2048")
    source = np.array([int(np.argmax(grid.out_degree()))])
    calls = {
        "bfs": lambda s: gg.bfs(grid, s, backend="cuda"),
        "bc": lambda s: gg.betweenness_centrality(grid, sources=[s], backend="cuda"),
        "color": lambda s: gg.color_propagation(grid, backend="cuda"),
        "label_propagation": lambda s: gg.connected_components(grid, method="label_propagation", backend="cuda"),
    }
    for name, call in calls.items():
        times, result = time_gpu(cp, call, source, args.repeat, rng)
        out[f"{name} grid2k ms"] = statistics.median(times) * 1e3
        out[f"{name} grid2k trace rows"] = len(result.trace.rows)
    for name in ("bc", "color", "label_propagation"):
        out[f"{name} / bfs"] = out[f"{name} grid2k ms"] / out["bfs grid2k ms"]
    for label, g in (("rmat:21:16", gg.load("rmat:21:16")), ("oriented grid2k", orient(grid))):
        matrix = g.to_scipy()
        scipy_times = []
        for _ in range(3):
            start = time.perf_counter()
            count, labels = connected_components(matrix, directed=True, connection="strong")
            scipy_times.append(time.perf_counter() - start)
        times, result = time_gpu(cp, lambda s, g=g: gg.strongly_connected_components(g, backend="cuda"), source[:1] * 0,
                                 args.repeat, rng)
        ours = np.asarray(result.labels)
        same = np.unique(np.stack([ours, labels.astype(np.int64)]), axis=1).shape[1] == count == ours.max() + 1
        out[f"scc {label} ms"] = statistics.median(times) * 1e3
        out[f"scc {label} scipy ms"] = statistics.median(scipy_times) * 1e3
        out[f"scc {label} speedup"] = out[f"scc {label} scipy ms"] / out[f"scc {label} ms"]
        out[f"scc {label} same partition"] = bool(same)
        out[f"scc {label} trace rows"] = len(result.trace.rows)
    for key, value in out.items():
        print(f"{key:40s} {value:.3f}" if isinstance(value, float) else f"{key:40s} {value}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()

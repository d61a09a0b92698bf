"""Where the host time of one GPU BFS goes (cProfile), to find per-iteration overheads.

    PYTHONPATH=src python3 benchmarks/gpu_profile.py [spec]
"""

import cProfile
import pstats
import sys
import time

import numpy as np

import graphgear as gg


def main() -> None:
    import cupy as cp

    spec = sys.argv[1] if len(sys.argv) > 1 else "kron:21"
    g = gg.load(spec)
    s = int(np.argmax(g.out_degree()))
    for _ in range(2):
        gg.bfs(g, s, backend="cuda")
    cp.cuda.Device().synchronize()
    start = time.perf_counter()
    r = gg.bfs(g, s, backend="cuda")
    cp.cuda.Device().synchronize()
    print(f"{spec}: {(time.perf_counter() - start) * 1e3:.2f} ms wall; trace {r.trace.seconds * 1e3:.2f} ms in {len(r.trace)} iterations")
    print(r.trace)
    profile = cProfile.Profile()
    profile.enable()
    gg.bfs(g, s, backend="cuda")
    cp.cuda.Device().synchronize()
    profile.disable()
    pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()

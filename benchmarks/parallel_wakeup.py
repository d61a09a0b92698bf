"""What a numba parallel loop costs to start on the CPU backend, and what running small rounds on the calling thread
buys: the figures behind backends/cpu/backend.py's SERIAL_WORK (docs/performance.md#small-rounds-on-one-thread).

    PYTHONPATH=src python3 benchmarks/parallel_wakeup.py [--graphs rgg:16,kron:18] [--repeat 15]

1. A loop adding 1 to each of N elements, compiled parallel and serial, mean of 2,000 calls, for N = 300 ... 300,000
   (graphgear is imported first, so OMP_WAIT_POLICY is passive as in every graphgear process).
2. BFS and SSSP from the vertex of largest degree, median of --repeat calls after 2, with SERIAL_WORK as shipped and
   with SERIAL_WORK = 0 (every round parallel), alternated twice.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import graphgear as gg  # first: it sets OMP_WAIT_POLICY before numba starts its thread team


def wakeup() -> None:
    import numba

    @numba.njit(parallel=True)
    def parallel(x):
        for i in numba.prange(x.shape[0]):
            x[i] += 1.0

    @numba.njit
    def serial(x):
        for i in range(x.shape[0]):
            x[i] += 1.0

    print(f"{numba.get_num_threads()} threads")
    for n in (300, 3_000, 30_000, 300_000):
        x = np.zeros(n)
        times = {}
        for name, f in (("parallel", parallel), ("serial", serial)):
            f(x)
            start = time.perf_counter()
            for _ in range(2000):
                f(x)
            times[name] = (time.perf_counter() - start) / 2000 * 1e6
        print(f"{n:>9,} elements: parallel {times['parallel']:.1f} us, serial {times['serial']:.1f} us")


def rounds(graphs: list[str], repeat: int) -> None:
    from graphgear.backends.cpu import backend

    shipped = backend.SERIAL_WORK
    for spec in graphs:
        g, gw = gg.load(spec), gg.load(f"{spec}:w")
        s = int(np.argmax(g.out_degree()))
        calls = {"bfs": lambda g=g, s=s: gg.bfs(g, s, backend="cpu"),
                 "sssp": lambda gw=gw, s=s: gg.sssp(gw, s, backend="cpu")}
        for trial in range(2):
            for serial_work in (0, shipped):
                backend.SERIAL_WORK = serial_work
                line = []
                for name, call in calls.items():
                    call()
                    call()
                    times = []
                    for _ in range(repeat):
                        start = time.perf_counter()
                        call()
                        times.append(time.perf_counter() - start)
                    line.append(f"{name} {statistics.median(times) * 1e3:.2f} ms")
                print(f"{spec} SERIAL_WORK {serial_work} (trial {trial + 1}): " + ", ".join(line), flush=True)
        backend.SERIAL_WORK = shipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", default="rgg:16,kron:18")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    wakeup()
    rounds(args.graphs.split(","), args.repeat)


if __name__ == "__main__":
    main()

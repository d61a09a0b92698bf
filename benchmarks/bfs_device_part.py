"""How much of a BFS call on kron:21 (the peers' source) is the device's: the call's CUDA-event time against its
persistent kernel relaunched alone with the call's own struct, `hop_counts` alone, the host time of the kernel's
launch (the driver's, as the backend launches it, against RawKernel's call), and the kernel's time by max_rounds
(0: the launch's prologue and end alone; 1, 2, 3: the first rounds; all). Issue 23's BFS kron21 row: the share of
the call that no host trim can remove (docs/performance.md#host-time-of-a-call).

    PYTHONPATH=src python3 benchmarks/bfs_device_part.py          (on a GPU machine)
"""

from __future__ import annotations

import statistics
import time

import cupy as cp
import numpy as np

import graphgear as gg
from graphgear.algorithms.bfs import BFS_PROGRAM
from graphgear.backends import get_backend
from graphgear.backends.cuda import runtime as rt
from graphgear.bench.gpu import time_gpu
from graphgear.engine.controller import make_controller
from graphgear.graph.layout import degree_renumbering

SOURCE = 1351682  # the peers' kron21 source (its vertex of largest degree)
REPEAT = 25


def device_ms(run) -> float:
    """Median CUDA-event ms of `run()` over REPEAT calls after 3 warm-ups (events around the call only)."""
    times = []
    for i in range(REPEAT + 3):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        run()
        stop.record()
        stop.synchronize()
        if i >= 3:
            times.append(cp.cuda.get_elapsed_time(start, stop))
    return statistics.median(times)


def host_us(run) -> float:
    """Median host microseconds of `run()` alone, the device idle before each."""
    times = []
    for _ in range(REPEAT):
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    cp.cuda.Device().synchronize()
    return statistics.median(times) * 1e6


def main() -> None:
    g = gg.load("kron:21")
    be = get_backend("cuda")
    times, result = time_gpu(cp, lambda s: gg.bfs(g, s, backend="cuda"), np.array([SOURCE]), REPEAT,
                             np.random.default_rng(0))
    _ = result.distances  # read back: the buffers are free for the relaunches below
    renumbered = degree_renumbering(g)
    G = be.graph(renumbered.graph)
    (plan,) = G.persistent.plans.values()
    launch = plan.launch  # its buffer still holds the last call's struct: the same source, state and start
    print(f"the call: {statistics.median(times) * 1e3:.3f} ms (median of {REPEAT}, CUDA events)")
    print(f"its persistent kernel relaunched alone: {device_ms(lambda: launch(plan.blocks)):.3f} ms")
    values = cp.full(g.num_vertices, 3.0)
    rank = renumbered.device_index("rank")
    print(f"hop_counts alone: {device_ms(lambda: be.hop_counts(values, rank)):.3f} ms")
    args = launch.args.copy()
    print(f"host time of the launch: driver {host_us(lambda: launch(plan.blocks)):.2f} us, RawKernel "
          f"{host_us(lambda: plan.kernel((plan.blocks,), (rt.BLOCK,), (args,))):.2f} us")
    base, rules = make_controller("auto", renumbered.graph, "traversal", monotone=True).device_rules()
    source = int(renumbered.rank[SOURCE])
    started = {}
    launch_call = rt.StructLaunch.__call__

    def stamped(self, blocks, threads=rt.BLOCK):  # an event right before the kernel's launch
        started["event"].record()
        launch_call(self, blocks, threads)

    rt.StructLaunch.__call__ = stamped
    for label, rounds in (("prologue and end (max_rounds 0)", 0), ("round 0", 1), ("rounds 0-1", 2),
                          ("rounds 0-2", 3), ("every round", 1 << 30)):
        times = []
        for i in range(REPEAT + 3):
            state = be.program_state(G, BFS_PROGRAM, None, None, np.zeros(0), copy=False, source=source)
            started["event"], stop = cp.cuda.Event(), cp.cuda.Event()
            pending = be.program_persistent(G, state, None, base, "adaptive", rules, rounds, lazy=True)
            stop.record()  # behind the kernel and its report's copy
            stop.synchronize()
            runs = pending.result().rounds
            if i >= 3:
                times.append(cp.cuda.get_elapsed_time(started["event"], stop) * 1e3)
        print(f"{label:32s} {statistics.median(times):8.1f} us ({runs} rounds)")
    rt.StructLaunch.__call__ = launch_call

if __name__ == "__main__":
    main()

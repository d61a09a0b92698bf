"""Where a distributed BFS level's time goes on GPUs, and what the collectives cost (issue 25; docs/distributed.md).

    python3 benchmarks/distributed_profile.py [--scale 24] [--gpus 4,2,1]

Run on a machine with several GPUs, from the repo root with PYTHONPATH=src and dask, distributed and dask-cuda
importable, NCCL_NVLS_ENABLE=0. For each GPU count (one dask-cuda worker per GPU), on kron:SCALE (drawn by the workers
once, saved under /tmp/gg-profile and read back by the smaller clusters):

1. the BFS loop time from the vertex of largest degree (median of 5 after 3 warm-up calls) and one call's levels;
   with each level a CUDA graph (the default) and with the level's launches made one by one from the host;
2. the same searches, eager, with every kernel and collective of the ranks wrapped in a device synchronisation before
   and after (so each phase is timed alone; the sum is larger than the loop): ms per search, per rank;
3. on every rank, the collectives of a BFS level timed in a loop: allreduce of 3 counts with the read of the result,
   allgather of n/8 bytes (bottom-up) and all-to-all of n/8 bytes in blocks (top-down), reduce-scatter(max) of n bytes
   (the top-down exchange before the all-to-all), on equal ranges (NCCL's own layout) and on ranges 8 or 64 apart
   (padded and copied), a memset of n bytes, a launch, CuPy's cumsum.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import time

import numpy as np

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")

def _phases() -> dict:
    """The phase timings, kept in a module of the worker (a function sent from here carries its own globals)."""
    from graphgear.distributed import kernels

    return kernels.__dict__.setdefault("_profile_phases", collections.defaultdict(list))


def _eager() -> bool:
    """In a worker: BFS levels launched one by one from the host (no CUDA graphs), its arrays made afresh."""
    from graphgear.distributed import kernels, runtime

    kernels.DeviceKernels.level_graphs = False
    for rank in runtime._RANKS.values():
        rank.cache.pop("bfs", None)
    return True


def _patch() -> bool:
    """In a worker: time every BFS kernel and collective alone (synchronised before and after; eager levels only)."""
    import cupy

    from graphgear.distributed import comm, kernels

    phases = _phases()

    def wrap(owner: type, name: str) -> None:
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            cupy.cuda.get_current_stream().synchronize()
            t = time.perf_counter()
            out = inner(*args, **kwargs)
            cupy.cuda.get_current_stream().synchronize()
            phases[name].append(time.perf_counter() - t)
            return out

        setattr(owner, name, timed)

    for name in ("begin_level", "td_step", "bu_step", "settle"):
        wrap(kernels.DeviceKernels, name)
    for name in ("allgatherv", "alltoall", "allreduce"):
        wrap(comm.NcclCollectives, name)
    return True


def _collect() -> dict:
    phases = _phases()
    out = {k: 1e3 * sum(v) for k, v in phases.items()}
    phases.clear()
    return out


def _collectives(ctx, part, n: int) -> dict:
    """On every rank: the collectives of a BFS level, timed in a loop (ms a call)."""
    import cupy as xp

    c, res = ctx.comm, {}
    equal = np.full(ctx.size, n // ctx.size)

    def t(label: str, fn, reps: int = 50) -> None:
        for _ in range(3):
            fn()
        xp.cuda.get_current_stream().synchronize()
        s = time.perf_counter()
        for _ in range(reps):
            fn()
        xp.cuda.get_current_stream().synchronize()
        res[label] = (time.perf_counter() - s) / reps * 1e3

    small = xp.zeros(6, dtype=np.int64)
    t("allreduce 3 + read", lambda: xp.asnumpy(c.allreduce(small[:3], "sum", out=small[3:])))
    bits = xp.zeros(n // 8 // ctx.size, dtype=np.uint8)
    t("allgather n/8, equal ranges", lambda: c.allgatherv(bits, equal // 8))
    uneven = equal // 8
    uneven[0] += 8
    uneven[-1] -= 8
    b2 = xp.zeros(int(uneven[ctx.rank]), dtype=np.uint8)
    t("allgather n/8, unequal ranges", lambda: c.allgatherv(b2, uneven))
    blocks = xp.zeros(4 * ((n // ctx.size + 31) // 32) * ctx.size, dtype=np.uint8)
    t("alltoall n/8 in blocks", lambda: c.alltoall(blocks, blocks.size // ctx.size))
    mark = xp.zeros(n, dtype=np.uint8)
    t("reduce-scatter n, equal ranges", lambda: c.reduce_scatter(mark, equal, "max"), 20)
    u2 = equal.copy()
    u2[0] += 64
    u2[-1] -= 64
    t("reduce-scatter n, unequal ranges", lambda: c.reduce_scatter(mark, u2, "max"), 20)
    t("memset n", lambda: mark.fill(0), 20)
    t("a launch", lambda: small[:3].fill(0), 200)
    for k in (1, 1000, 1000000):
        a = xp.ones(k, dtype=np.int64)
        t(f"cumsum of {k}", lambda a=a: xp.cumsum(a), 100)
    return res


def main() -> None:
    import graphgear as gg
    from graphgear.distributed import local_cluster, partition

    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=24)
    ap.add_argument("--gpus", default="4,2,1", help="the largest first: it draws the graph")
    args = ap.parse_args()
    path = f"/tmp/gg-profile/kron{args.scale}.npz"
    for P in (int(x) for x in args.gpus.split(",")):
        client = local_cluster(P, "cuda")
        if os.path.exists(path):
            dg = partition(path, client, backend="cuda")
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            dg = partition(f"kron:{args.scale}", client, backend="cuda")
            gg.save(dg.to_graph(), path)
        source = int(np.argmax(dg.out_degree()))
        for how in ("CUDA graph a level", "eager launches"):
            if how == "eager launches":
                client.run(_eager)
            for _ in range(3):
                gg.bfs(dg, source)
            loops = [gg.bfs(dg, source).trace.seconds * 1e3 for _ in range(5)]
            levels = [f"{row.path[5:9]} {row.seconds * 1e3:.3f}" for row in gg.bfs(dg, source).trace]
            print(f"{P} GPUs, {how}: BFS loop {statistics.median(loops):.3f} ms; levels (ms): {levels}", flush=True)
        client.run(_patch)
        for _ in range(5):
            gg.bfs(dg, source)
        for worker, phases in sorted(client.run(_collect).items()):
            print(f"  {worker}: ms a search, each phase synchronised:",
                  {k: round(v / 5, 3) for k, v in sorted(phases.items())}, flush=True)
        print("  collectives on rank 0, ms a call:",
              {k: round(v, 4) for k, v in dg.spmd(_collectives, dg.num_vertices)[0].items()}, flush=True)
        dg.close()
        client.close()


if __name__ == "__main__":
    main()

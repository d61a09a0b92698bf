"""Strong and weak scaling of the distributed BFS and PageRank over 1, 2, 4, ... GPUs of one machine (issue 25).

    python3 benchmarks/distributed_scaling.py [--scale 25] [--gpus 1,2,4] [--repeat 5] [--largest 26] [--json OUT]

Run on a machine with several GPUs, from the repo root with PYTHONPATH=src and dask, distributed and dask-cuda
importable (carried as wheels: docs/distributed.md). NVLink multicast stays off (NCCL_NVLS_ENABLE=0).

1. On the most GPUs asked for, one dask-cuda worker per GPU: kron:SCALE-2, kron:SCALE-1 and kron:SCALE are drawn
   by the workers (gg.distributed.partition of the spec: each its share of gg.load's records), gathered once and saved
   as .npz under --work, so every smaller cluster reads the same graph (each worker its rows);
2. for every GPU count P, a cluster of P workers partitions kron:SCALE (strong scaling) and kron:SCALE-log2(P)+... the
   weak-scaling graph of its size (2^(SCALE - log2(max P) + log2 P) vertices), and times BFS from the vertex of
   largest degree and PageRank to GAP's stopping rule (sum |change| < 1e-4): a warm-up call, then the median of
   --repeat calls; each time is the call's wall time on the client and the ranks' loop time (rank 0's levels or
   iterations, each ended by a collective, so it includes the waits for the slowest rank);
3. with --largest L, kron:L on the most GPUs (drawn by the workers, not gathered);
4. the single-GPU graphgear (gg.bfs / gg.pagerank with backend="cuda" on one Graph) on kron:SCALE, for reference.

--only-largest runs step 3 alone (the largest graph's build can take most of a device command's time).

Prints the strong- and weak-scaling tables (time, GTEPS, speedup over one GPU); --json writes every row.
GTEPS: BFS, the graph's undirected edges per second of one search (Graph500's count, whole graph); PageRank, arcs
per second of one iteration.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # NVLink multicast stays off on shared machines


def log(*args: object) -> None:
    print(f"[{time.strftime('%H:%M:%S')}]", *args, flush=True)


BACKEND = "cuda"


def cluster(P: int):
    from graphgear.distributed import local_cluster

    try:
        return local_cluster(P, BACKEND)
    except Exception as exc:  # dask-cuda missing or failing: a LocalCluster whose rank r takes GPU r
        log(f"LocalCUDACluster failed ({type(exc).__name__}: {exc}); a LocalCluster instead")
        from distributed import Client, LocalCluster

        return Client(LocalCluster(n_workers=P, threads_per_worker=1, dashboard_address=":0"))


def timed(call, repeat: int) -> tuple[float, float, object]:
    """(median wall seconds, median loop seconds, last result) after one warm-up call."""
    call()
    walls, loops, result = [], [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = call()
        walls.append(time.perf_counter() - t)
        loops.append(result.trace.seconds)
    return statistics.median(walls), statistics.median(loops), result


def measure(dg, source: int, repeat: int, edges: int, arcs: int) -> dict:
    import graphgear as gg

    tol = 1e-4 / dg.num_vertices
    bw, bl, b = timed(lambda: gg.bfs(dg, source), repeat)
    log(f"BFS: loop {bl * 1e3:.3f} ms (median of {repeat}), call {bw * 1e3:.1f} ms, {len(b.trace)} levels")
    pw, pl, p = timed(lambda: gg.pagerank(dg, tol=tol, weight=None), repeat)
    it = p.iterations
    return {"bfs_wall_ms": bw * 1e3, "bfs_loop_ms": bl * 1e3, "bfs_levels": len(b.trace),
            "bfs_gteps": edges / bl / 1e9, "bfs_reached": int((b.distances >= 0).sum()),
            "pr_wall_ms": pw * 1e3, "pr_loop_ms": pl * 1e3, "pr_iterations": it,
            "pr_iter_ms": pl / it * 1e3, "pr_gteps": arcs / (pl / it) / 1e9,
            "bfs_distances_sum": int(b.distances[b.distances >= 0].sum()), "pr_sum": float(p.ranks.sum()),
            "bfs_level_ms": [round(row.seconds * 1e3, 3) for row in b.trace],
            "bfs_level_steps": [row.path for row in b.trace]}


def largest(scale: int, gpus: int, repeat: int) -> dict:
    """kron:SCALE drawn by `gpus` workers (not gathered) and timed as `measure` times the others."""
    from graphgear.distributed import partition

    client = cluster(gpus)
    t = time.perf_counter()
    dg = partition(f"kron:{scale}", client, backend=BACKEND)
    built = time.perf_counter() - t
    degrees = dg.out_degree()
    source = int(np.argmax(degrees))
    arcs = int(degrees.sum())
    log(f"kron:{scale}: {dg.num_vertices:,} vertices, {arcs:,} arcs on {gpus} GPUs, built in {built:.1f} s; "
        f"phases on each rank (s): {dg.build_seconds}")
    r = {"gpus": gpus, "scale": scale, "largest": True, "build_s": built, "build_phases": dg.build_seconds,
         **measure(dg, source, repeat, arcs // 2, arcs)}
    log(r)
    dg.close()
    client.close()
    return r


def print_largest(r: dict) -> None:
    print(f"\nLargest: kron:{r['scale']} on {r['gpus']} GPUs, built in {r['build_s']:.1f} s: "
          f"BFS {r['bfs_loop_ms']:.2f} ms ({r['bfs_gteps']:.2f} GTEPS), "
          f"PageRank {r['pr_iter_ms']:.3f} ms/iteration ({r['pr_gteps']:.2f} GTEPS)")


def single_gpu(m: dict, repeat: int) -> dict:
    """gg.bfs and gg.pagerank (power iteration) on one Graph on GPU 0, CUDA-event timed (bench.gpu.time_gpu)."""
    import cupy

    import graphgear as gg
    from graphgear.bench.gpu import time_gpu
    from graphgear.graph.io.npz import read_npz

    g = read_npz(m["path"], validate=False)
    tol = 1e-4 / g.num_vertices
    one, rng = np.array([m["source"]]), np.random.default_rng(0)
    times, _ = time_gpu(cupy, lambda s: gg.bfs(g, s, backend="cuda"), one, repeat, rng)
    bfs_ms = statistics.median(times) * 1e3
    pr = gg.pagerank(g, tol=tol, weight=None, method="power", backend="cuda")
    times, _ = time_gpu(cupy, lambda s: gg.pagerank(g, tol=tol, weight=None, method="power", backend="cuda"),
                        one, repeat, rng)
    return {"bfs_ms": bfs_ms, "pr_ms": statistics.median(times) * 1e3, "pr_iterations": pr.iterations}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--gpus", default="1,2,4")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--largest", type=int, default=0)
    ap.add_argument("--work", default="/tmp/gg-scaling")
    ap.add_argument("--json", default="")
    ap.add_argument("--skip-single", action="store_true", help="no single-process graphgear reference")
    ap.add_argument("--only-largest", action="store_true", help="only step 3: kron:LARGEST on the most GPUs")
    ap.add_argument("--backend", default="cuda", choices=("cuda", "cpu"), help="cpu: a dry run of the script on CPU "
                    "workers (--gpus then counts workers)")
    args = ap.parse_args()
    global BACKEND
    BACKEND = args.backend
    import graphgear as gg
    from graphgear.distributed import partition

    counts = sorted(int(x) for x in args.gpus.split(","))
    most = counts[-1]
    if BACKEND == "cuda":
        import cupy

        have = cupy.cuda.runtime.getDeviceCount()
        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    else:
        have, name = most, "CPU workers"
        args.skip_single = True
    if have < most:
        log(f"only {have} GPUs here; dropping counts above it")
        counts = [c for c in counts if c <= have]
        most = counts[-1]
    log(f"{have} x {name}; GPU counts {counts}")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    steps = int(np.log2(most))
    weak = {P: args.scale - steps + int(np.log2(P)) for P in counts}
    scales = sorted(set(weak.values()) | {args.scale})
    rows: list[dict] = []
    if args.only_largest:
        rows.append(largest(args.largest, most, args.repeat))
        print_largest(rows[-1])
        if args.json:
            Path(args.json).write_text(json.dumps({"gpu": name, "rows": rows}, indent=2, default=str))
        return 0

    # 1. draw the graphs on the most GPUs, save them for the smaller clusters; time the most GPUs on them too
    client = cluster(most)
    meta = {}
    for s in scales:
        t = time.perf_counter()
        dg = partition(f"kron:{s}", client, backend=BACKEND)
        built = time.perf_counter() - t
        g = dg.to_graph()
        path = work / f"kron{s}.npz"
        gg.save(g, path)
        source = int(np.argmax(np.diff(g.offsets)))
        meta[s] = {"path": path, "source": source, "edges": g.num_arcs // 2, "arcs": g.num_arcs,
                   "vertices": g.num_vertices}
        log(f"kron:{s}: {g.num_vertices:,} vertices, {g.num_arcs:,} arcs, drawn and built on {most} workers in "
            f"{built:.1f} s; saved")
        del g
        if s in (args.scale, weak[most]):
            r = measure(dg, source, args.repeat, meta[s]["edges"], meta[s]["arcs"])
            rows.append({"gpus": most, "scale": s, **r})
            log(rows[-1])
        dg.close()
    client.close()

    # 2. fewer GPUs: each reads the saved graphs by rows
    for P in reversed(counts[:-1]):
        client = cluster(P)
        for s in sorted({args.scale, weak[P]}):
            m = meta[s]
            t = time.perf_counter()
            dg = partition(m["path"], client, backend=BACKEND)
            log(f"kron:{s} read by {P} workers in {time.perf_counter() - t:.1f} s")
            r = measure(dg, m["source"], args.repeat, m["edges"], m["arcs"])
            rows.append({"gpus": P, "scale": s, **r})
            log(rows[-1])
            dg.close()
        client.close()

    # 4. tables
    def row(P: int, s: int) -> dict | None:
        return next((r for r in rows if r["gpus"] == P and r["scale"] == s and not r.get("largest")), None)

    base = row(counts[0], args.scale)
    print(f"\nStrong scaling, kron:{args.scale} ({meta[args.scale]['vertices']:,} vertices, "
          f"{meta[args.scale]['arcs']:,} arcs), {name}, ms (loop time; wall time of the call in brackets)")
    print("| GPUs | BFS ms | BFS GTEPS | BFS speedup | PageRank ms/iteration | PR GTEPS | PR speedup |")
    print("|---|---|---|---|---|---|---|")
    for P in counts:
        r = row(P, args.scale)
        if r:
            print(f"| {P} | {r['bfs_loop_ms']:.2f} ({r['bfs_wall_ms']:.1f}) | {r['bfs_gteps']:.2f} | "
                  f"{base['bfs_loop_ms'] / r['bfs_loop_ms']:.2f} | {r['pr_iter_ms']:.3f} ({r['pr_wall_ms']:.1f} in "
                  f"{r['pr_iterations']}) | {r['pr_gteps']:.2f} | {base['pr_iter_ms'] / r['pr_iter_ms']:.2f} |")
    print(f"\nWeak scaling, kron:{weak[counts[0]]} on {counts[0]} GPU ... kron:{weak[most]} on {most}")
    print("| GPUs | graph | BFS ms | BFS GTEPS | PageRank ms/iteration | PR GTEPS |")
    print("|---|---|---|---|---|---|")
    for P in counts:
        r = row(P, weak[P])
        if r:
            print(f"| {P} | kron:{weak[P]} | {r['bfs_loop_ms']:.2f} | {r['bfs_gteps']:.2f} | {r['pr_iter_ms']:.3f} | "
                  f"{r['pr_gteps']:.2f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"gpu": name, "rows": rows}, indent=2, default=str))
    if args.largest:
        rows.append(largest(args.largest, most, args.repeat))
    # 3. single-process graphgear on one GPU, for reference (after the clusters are gone: the GPU is free)
    single: dict = {}
    if not args.skip_single:
        try:
            single = single_gpu(meta[args.scale], args.repeat)
            log("single-process graphgear, one GPU:", single)
        except Exception as exc:  # noqa: BLE001 - reported, not fatal: the distributed tables are the run's point
            single = {"error": f"{type(exc).__name__}: {exc}"}
            log("single-process graphgear failed:", single["error"])
    for r in rows:
        if r.get("largest"):
            print_largest(r)
    if single.get("bfs_ms"):
        print(f"\nSingle-process graphgear on one GPU, kron:{args.scale}: BFS {single['bfs_ms']:.2f} ms, PageRank "
              f"{single['pr_ms']:.2f} ms in {single['pr_iterations']} iterations")
    check = {(r["gpus"], r["scale"]): (r["bfs_distances_sum"], r["bfs_reached"], round(r["pr_sum"], 9)) for r in rows}
    for s in scales:
        seen = {v for (P, sc), v in check.items() if sc == s}
        print(f"kron:{s}: the same BFS distances and PageRank sum on every GPU count: {len(seen) == 1}")
    if args.json:
        Path(args.json).write_text(json.dumps({"gpu": name, "rows": rows, "single": single}, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())

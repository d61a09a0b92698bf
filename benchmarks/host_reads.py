"""Count the host reads of one call (issue 23: at most one per call for BC on grid2k, SCC, colour propagation and
label propagation), with CUPTI through PyTorch's profiler, which records every CUDA runtime call and every copy of the
process, CuPy's included.

For each workload, after a warm-up call: one profiled call (what the call itself reads back before it returns), then
one profiled read of its result and trace (what reading them costs). Printed per part: device-to-host copies
(CUPTI's memcpy records named DtoH) and host waits (cudaStreamSynchronize, cudaEventSynchronize,
cudaDeviceSynchronize calls; a synchronous cudaMemcpy is a copy and a wait). A lazy device run read by the next
launch counts in that launch's call, as it does in steady use.

    PYTHONPATH=src python3 benchmarks/host_reads.py [--json PATH]
"""

from __future__ import annotations

import argparse
import json

import numpy as np

WAITS = ("cudaStreamSynchronize", "cudaEventSynchronize", "cudaDeviceSynchronize", "cudaMemcpy")


def counts(prof) -> dict[str, int]:
    copies = waits = 0
    names: dict[str, int] = {}
    for e in prof.key_averages():
        if "DtoH" in e.key:
            copies += e.count
            names[e.key] = names.get(e.key, 0) + e.count
        if e.key in WAITS or e.key.startswith(tuple(w + "_" for w in WAITS)):
            waits += e.count
            names[e.key] = names.get(e.key, 0) + e.count
    return {"copies": copies, "waits": waits, "names": names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    import cupy as cp
    import torch
    from torch.profiler import ProfilerActivity, profile

    import graphgear as gg
    from graphgear.graph.generate import orient

    grid = gg.load("grid:2048:2048")
    source = int(np.argmax(grid.out_degree()))
    rmat = gg.load("rmat:21:16")
    oriented = orient(grid)
    work = {
        "bfs grid2k (reference)": (lambda: gg.bfs(grid, source, backend="cuda"), "distances"),
        "bc grid2k, one source": (lambda: gg.betweenness_centrality(grid, sources=[source], backend="cuda"),
                                  "centrality"),
        "color grid2k": (lambda: gg.color_propagation(grid, backend="cuda"), "colors"),
        "label propagation grid2k": (
            lambda: gg.connected_components(grid, method="label_propagation", backend="cuda"), "labels"),
        "cc (afforest) grid2k": (lambda: gg.connected_components(grid, backend="cuda"), "labels"),
        "scc rmat:21:16": (lambda: gg.strongly_connected_components(rmat, backend="cuda"), "labels"),
        "scc orient(grid2k)": (lambda: gg.strongly_connected_components(oriented, backend="cuda"), "labels"),
    }
    out: dict[str, dict] = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    print(f"host reads of one call on {out['device']} (CUPTI via torch.profiler)")
    print(f"{'workload':30s} {'call: copies':>13s} {'waits':>6s} {'read result: copies':>20s} {'waits':>6s}")
    for label, (call, field) in work.items():
        np.asarray(getattr(call(), field))  # warm-up: compile, cache device copies
        cp.cuda.runtime.deviceSynchronize()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p_call:
            result = call()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p_read:
            np.asarray(getattr(result, field))
            len(result.trace.rows)
        a, b = counts(p_call), counts(p_read)
        out[label] = {"call": a, "read": b}
        print(f"{label:30s} {a['copies']:13d} {a['waits']:6d} {b['copies']:20d} {b['waits']:6d}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()

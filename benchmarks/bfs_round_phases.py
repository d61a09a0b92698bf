"""Where each round of a BFS on kron:21 (the peers' source) spends its time inside the persistent kernel: a copy of
kernels/ whose persistent.cuh stamps %globaltimer from block 0 after each grid barrier (the round's start, after its
compute phase A, after setting a pull's active bits, after its push or pull) and every block's finish time of phase A
and of the push or pull. Prints, per round: A, the bits, the push or pull, and the blocks' finish min / median / max
(how far the slowest block trails). Issue 23's BFS kron21 row (docs/performance.md#every-run).

    PYTHONPATH=src python3 benchmarks/bfs_round_phases.py [--runs 2]     (on a GPU machine, repo root)

The stamps cost a block barrier before each finish stamp, so the rounds run a little slower than unstamped. The copy's
edits are anchored on persistent.cuh's text: a kernel edit that moves an anchor stops the script, naming it.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np

SOURCE = 1351682  # the peers' kron21 source (its vertex of largest degree)
STAMPS = """__device__ long long gg_stamp[64][4];
__device__ long long gg_finish[8][1024][2];
#define GG_STAMP(r, k) if (blockIdx.x == 0 && threadIdx.x == 0 && (r) < 64) gg_stamp[r][k] = (long long)gg_globaltimer();
#define GG_FINISH(r, k) { __syncthreads(); \\
    if (threadIdx.x == 0 && (r) < 8) gg_finish[r][blockIdx.x][k] = (long long)gg_globaltimer(); }
"""
A_END = "            if (st.heavy_offsets) gg_bucket_append(st, part, send, u, huge);\n        }\n"
SYNC = "if (!gg_grid_sync(st.barrier, status)) return;\n"
PULL = "                if (compute_in_pull && r + 1 < max_rounds) {"
ROUND_END = "        " + SYNC + "        qsize = ns > 0 ? (int)gg_load(out_count) : 0;\n"
EDITS = [  # (anchor in gg_program_persistent, its stamped form)
    ("__device__ __forceinline__ bool gg_persistent_prologue(const GGPersistentArgs& a) {",
     STAMPS + "__device__ __forceinline__ bool gg_persistent_prologue(const GGPersistentArgs& a) {"),
    ("        gg_reset_next_slot(st, r);\n        // A: compute",
     "        gg_reset_next_slot(st, r);\n        GG_STAMP(r, 0)\n        // A: compute"),
    (A_END + "        " + SYNC, A_END + "        GG_FINISH(r, 0)\n        " + SYNC + "        GG_STAMP(r, 1)\n"),
    (PULL, "                GG_STAMP(r, 2)\n" + PULL),  # a pull's start: after its active bits are set
    (ROUND_END, "        GG_FINISH(r, 1)\n" + ROUND_END.replace("qsize", "GG_STAMP(r, 3)\n        qsize", 1)),
]


def stamped_kernels(kernels: Path, into: Path) -> Path:
    """A copy of `kernels` whose persistent.cuh carries the stamps."""
    shutil.copytree(kernels, into)
    path = into / "persistent.cuh"
    text = path.read_text()
    for anchor, stamped in EDITS:
        if text.count(anchor) != 1:
            raise SystemExit(f"persistent.cuh: the anchor {anchor!r} is found {text.count(anchor)} times, not once")
        text = text.replace(anchor, stamped)
    path.write_text(text)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    import cupy as cp

    import graphgear as gg
    from graphgear.backends import get_backend
    from graphgear.backends.cuda import runtime as rt
    from graphgear.backends.cuda import sources

    g = gg.load("kron:21")
    be = get_backend("cuda")
    module_source = sources.persistent_module
    sources.persistent_module = lambda *a: "// stamped (benchmarks/bfs_round_phases.py)\n" + module_source(*a)
    rt.KERNEL_DIR = stamped_kernels(rt.KERNEL_DIR, Path(tempfile.mkdtemp()) / "kernels")
    for s in (SOURCE, 5, SOURCE):  # compile, warm up
        _ = gg.bfs(g, s, backend="cuda").distances
    (module,) = [m.module for k, m in be._modules.items() if isinstance(k, tuple) and len(k) == 9 and k[-2]]
    stamp = cp.ndarray((64, 4), cp.int64, module.get_global("gg_stamp"))
    finish = cp.ndarray((8, 1024, 2), cp.int64, module.get_global("gg_finish"))
    for run in range(args.runs):
        stamp.fill(0)
        finish.fill(0)
        result = gg.bfs(g, SOURCE, backend="cuda")
        _ = result.distances
        rows = result.trace.rows
        S, F = stamp.get(), finish.get()
        blocks = int((F[0, :, 0] > 0).sum())
        print(f"run {run}: {blocks} blocks, us")
        for r in range(min(len(rows), 8)):
            start, computed, bits, done = S[r]
            pull = computed < bits < done
            began = bits if pull else computed
            a_end = (F[r, :blocks, 0] - start) / 1e3
            p_end = (F[r, :blocks, 1] - began) / 1e3
            print(f"  round {r} {'pull' if pull else 'push'} |Q| {rows[r].frontier_vertices:>9,}: "
                  f"A {(computed - start) / 1e3:6.1f} (blocks {a_end.min():5.1f} {np.median(a_end):5.1f} "
                  f"{a_end.max():5.1f})" + (f"  bits {(bits - computed) / 1e3:5.1f}" if pull else " " * 12)
                  + f"  {'pull' if pull else 'push'} {(done - began) / 1e3:6.1f} (blocks {p_end.min():5.1f} "
                  f"{np.median(p_end):5.1f} {p_end.max():5.1f})")


if __name__ == "__main__":
    main()

"""Tuning experiment on the device: BFS time by persistent-kernel blocks per SM and pull group size.

    PYTHONPATH=src python3 benchmarks/gpu_experiment.py
"""
import statistics

import numpy as np

import graphgear as gg
from graphgear.backends import get_backend


def main() -> None:
    import cupy as cp

    be = get_backend("cuda")
    rng = np.random.default_rng(0)
    for spec, knobs in [("kron:21", [(b, p) for b in (None, 2) for p in (1, 4, 16)]),
                        ("grid:2048:2048", [(b, None) for b in (1, 2, 4)])]:
        g = gg.load(spec)
        cand = np.flatnonzero(g.out_degree() > 0)
        for blocks, group in knobs:
            be.persistent_blocks_per_sm, be.persistent_pull_group = blocks, group
            gg.bfs(g, int(cand[0]), backend="cuda")
            ts = []
            for _ in range(7):
                s = int(rng.choice(cand))
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                r = gg.bfs(g, s, backend="cuda")
                b.record()
                b.synchronize()
                ts.append(cp.cuda.get_elapsed_time(a, b))
            print(f"{spec} blocks/SM {blocks} pull group {group}: median {statistics.median(ts):.3f} ms "
                  f"(min {min(ts):.3f}), {len(r.trace)} rows", flush=True)
        print(r.trace)
    be.persistent_blocks_per_sm = be.persistent_pull_group = None


if __name__ == "__main__":
    main()

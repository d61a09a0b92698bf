"""Device experiments: the bucket width of the GPU's persistent near-far SSSP, checked against the CPU.

    PYTHONPATH=src python3 benchmarks/gpu_experiment.py
"""
import statistics

import numpy as np

import graphgear as gg
from graphgear.algorithms.sssp import check_weights


def main() -> None:
    import cupy as cp

    rng = np.random.default_rng(0)
    for spec in ("kron:21:w", "grid:2048:2048:w"):
        g = gg.load(spec)
        mean = check_weights(g)[0]
        src = np.flatnonzero(g.out_degree() > 0)
        s0 = int(src[0])
        cpu = gg.sssp(g, s0, backend="cpu").distances
        for scale in (1, 4, 8, 32, 128):
            delta = scale * mean
            gpu = gg.sssp(g, s0, delta=delta, backend="cuda")
            ok = np.array_equal(gpu.distances, cpu)
            ts = []
            for _ in range(5):
                s = int(rng.choice(src))
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                r = gg.sssp(g, s, delta=delta, backend="cuda")
                b.record()
                b.synchronize()
                ts.append(cp.cuda.get_elapsed_time(a, b))
            print(f"{spec:18} Delta {scale:4d} x mean ({delta:9.1f}): median {statistics.median(ts):9.3f} ms  "
                  f"equal to CPU: {ok}  {r.trace.rows[0].reason[:60]}", flush=True)


if __name__ == "__main__":
    main()

"""Time of one grid barrier on this GPU: graphgear's (kernels/grid.cuh gg_grid_sync: cooperative_groups' one-word
algorithm with an abort), the two-word generation barrier with fences it replaced (kept here as the baseline), and
cooperative_groups' own grid.sync() in a cooperative launch; at 1, 2 and 4 blocks of 256 threads an SM, each the median
of 7 launches of 2,000 barriers. Why the persistent kernels' barrier is written as it is
(docs/performance.md#grid-barrier).

    python3 benchmarks/grid_barrier.py      (on a GPU machine, from the repo root with PYTHONPATH=src)
"""
import statistics

import cupy as cp
import numpy as np

from graphgear.backends.cuda import runtime as rt
from graphgear.bench.gpu import event_seconds

BARRIERS = 2000
SOURCE = r"""
#include "grid.cuh"
#include <cooperative_groups.h>
// the barrier before session 25: arrivals in bar[0], a generation in bar[1], fences around the arrival
__device__ __forceinline__ bool two_word_sync(u32* bar, volatile int* status) {
    __syncthreads();
    if (threadIdx.x == 0) {
        const u32 g = gg_load_acquire(bar + 1);
        __threadfence();
        if (atomicAdd(bar, 1u) == gridDim.x - 1) {
            atomicExch(bar, 0u);
            __threadfence();
            atomicAdd(bar + 1, 1u);
        } else {
            const u64 start = gg_globaltimer();
            u32 spins = 0;
            while (gg_load_acquire(bar + 1) == g) {
                if ((++spins & 1023u) == 0 && (status[0] != 0 || gg_globaltimer() - start > GG_BARRIER_TIMEOUT_NS)) {
                    atomicExch((int*)status, 1);
                    break;
                }
            }
        }
        __threadfence();
    }
    __syncthreads();
    return status[0] == 0;
}
extern "C" __global__ void __launch_bounds__(256, 2) graphgear(u32* bar, int* status, int k) {
    for (int i = 0; i < k; ++i) if (!gg_grid_sync(bar, status)) return;
}
extern "C" __global__ void __launch_bounds__(256, 2) two_word(u32* bar, int* status, int k) {
    for (int i = 0; i < k; ++i) if (!two_word_sync(bar, status)) return;
}
extern "C" __global__ void __launch_bounds__(256, 2) cooperative(int k) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    for (int i = 0; i < k; ++i) grid.sync();
}
"""


def per_barrier_us(launch) -> float:
    launch()
    cp.cuda.Device().synchronize()
    return statistics.median(event_seconds(cp, launch) for _ in range(7)) * 1e6 / BARRIERS


def main() -> None:
    options = ("-std=c++17", f"-I{rt.KERNEL_DIR}")
    plain = cp.RawModule(code=SOURCE, options=options)
    cooperative = cp.RawModule(code=SOURCE, options=options, enable_cooperative_groups=True).get_function("cooperative")
    ours_bar, before_bar = cp.zeros(2, dtype=cp.uint32), cp.zeros(2, dtype=cp.uint32)  # each barrier its own words
    status = cp.zeros(4, dtype=cp.int32)
    sms = rt.multiprocessors()
    print(f"one grid barrier on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, us (median of 7 launches of "
          f"{BARRIERS:,} barriers)")
    print("| blocks of 256 | graphgear (one word) | two words with fences (before) | cooperative_groups grid.sync |")
    print("|---|---|---|---|")
    for per_sm in (1, 2, 4):
        blocks = per_sm * sms
        k = np.int32(BARRIERS)
        ours = per_barrier_us(lambda: plain.get_function("graphgear")((blocks,), (256,), (ours_bar, status, k)))
        before = per_barrier_us(lambda: plain.get_function("two_word")((blocks,), (256,), (before_bar, status, k)))
        cg = per_barrier_us(lambda: cooperative((blocks,), (256,), (k,)))
        print(f"| {blocks} ({per_sm} an SM) | {ours:.2f} | {before:.2f} | {cg:.2f} |")
    if int(status[0].get()):
        raise SystemExit("a barrier timed out")


if __name__ == "__main__":
    main()

// The grid-wide barrier every persistent kernel (persistent.cuh, brandes.cuh) separates its steps with: one launch
// whose blocks are all resident at once (the host launches at most blocks-per-SM x SMs), so the steps of a whole
// loop run without returning to the host. The barrier gives up after GG_BARRIER_TIMEOUT_NS and raises the abort flag
// (status[0]), so a launch that cannot be co-resident fails instead of hanging; the host reads the flag back.
#pragma once
#include "common.cuh"

#define GG_BARRIER_TIMEOUT_NS 4000000000ull

__device__ __forceinline__ u64 gg_globaltimer() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Grid-wide barrier (sense by generation count): bar[0] arrivals, bar[1] generation. Returns false after an abort.
// One arrival per block; waiters poll the generation with acquire loads (no sleep: a wake-up costs more, docs/performance.md#kernel-comments).
__device__ __forceinline__ u32 gg_load_acquire(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ bool gg_grid_sync(u32* bar, volatile int* status) {
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

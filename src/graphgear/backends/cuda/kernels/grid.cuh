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

// Grid-wide barrier, cooperative_groups' algorithm (cooperative_groups/details/sync.h) with an abort: one arrival word,
// bar[0]. Each block adds 1 with release semantics, block 0 adds 0x80000000 - (blocks - 1) instead, so the last
// arrival flips the word's top bit and leaves its low bits 0 for the next barrier; waiters poll it with acquire loads
// (no fence, no sleep: a wake-up costs more, docs/performance.md#kernel-comments). Only thread 0 reads the abort flag
// and hands it to its block through shared memory. Faster than the two-word generation barrier with fences it
// replaced (benchmarks/grid_barrier.py, docs/performance.md#grid-barrier). bar[1] is unused. Returns false after an
// abort.
__device__ __forceinline__ u32 gg_load_acquire(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ bool gg_grid_sync(u32* bar, volatile int* status) {
    __shared__ int s_running;
    __syncthreads();
    if (threadIdx.x == 0) {
        const u32 add = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
        u32 old;
        asm volatile("atom.add.release.gpu.global.u32 %0, [%1], %2;" : "=r"(old) : "l"(bar), "r"(add) : "memory");
        const u64 start = gg_globaltimer();
        u32 spins = 0;
        while (((old ^ gg_load_acquire(bar)) & 0x80000000u) == 0) {
            if ((++spins & 1023u) == 0 && (status[0] != 0 || gg_globaltimer() - start > GG_BARRIER_TIMEOUT_NS)) {
                atomicExch((int*)status, 1);
                break;
            }
        }
        s_running = status[0] == 0;
    }
    __syncthreads();
    return s_running;
}

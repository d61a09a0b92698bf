// pull: every candidate vertex scans its in-edges (CSC) from active sources; the functor may stop the scan early
// (bottom-up BFS). Active sources are looked up in a bitmap (one bit per vertex, L2-resident) or a bool map.
//
//   pull_vertex_group<G>   G lanes per vertex; after each step of G in-edges the group ballots whether anyone hit
//                          GG_STOP, so early exit costs at most G-1 extra edges.
//
// The activated vertices go to `out`: a bool map (mode 2) or a vertex queue with warp-aggregated appends (mode 0).
//
// C: __device__ bool operator()(int v) const            -- which vertices pull
// F: __device__ int operator()(int v, int u, float w) const -- GG_ACTIVATE | GG_STOP bits
#pragma once
#include "common.cuh"

template <int G, class C, class F>
__device__ void gg_pull_vertex_group(const i64* t_offsets, const int* t_indices, const float* t_weights, int weighted,
                                     const u32* active_bits, int all_active, int n, C candidate, F f, GGOut out) {
    const int lane_in_group = threadIdx.x % G;
    const int groups = gridDim.x * blockDim.x / G;
    const int group = (blockIdx.x * blockDim.x + threadIdx.x) / G;
    const u32 group_mask = G == 32 ? GG_FULL_MASK : (((1u << G) - 1u) << ((threadIdx.x & 31) / G * G));
    for (int v = group; v < n; v += groups) {  // v is the same for the G lanes of a group: uniform branches
        // the group's first lane asks the candidate predicate (it may read state that changes meanwhile, or write)
        // and broadcasts the answer, so the group's lanes never disagree
        int is_candidate = 0;
        if (lane_in_group == 0) is_candidate = candidate(v) ? 1 : 0;
        if (G > 1) is_candidate = __shfl_sync(group_mask, is_candidate, (threadIdx.x & 31) / G * G);
        if (!is_candidate) continue;
        bool activated = false;
        const i64 start = t_offsets[v];
        const i64 end = t_offsets[v + 1];
        for (i64 base = start; base < end; base += G) {
            const i64 k = base + lane_in_group;
            int r = 0;
            if (k < end) {
                const int u = t_indices[k];
                if (all_active || gg_test_bit(active_bits, u)) r = f(v, u, gg_weight(t_weights, weighted, k));
            }
            activated |= (r & GG_ACTIVATE) != 0;
            if (G == 1) {
                if (r & GG_STOP) break;
            } else if (__any_sync(group_mask, (r & GG_STOP) != 0)) {
                break;
            }
        }
        if (G > 1) activated = __any_sync(group_mask, activated);
        if (lane_in_group == 0) gg_emit(out, activated, v);
    }
}

// Convert a bool map to a bitmap (one bit per vertex), warp-cooperatively: lane i of a warp holds vertex base + i.
__device__ void gg_mask_to_bits(const unsigned char* mask, int n, u32* bits) {
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x; base < n; base += stride) {
        const int v = base + threadIdx.x;
        const u32 word = __ballot_sync(GG_FULL_MASK, v < n && mask[v]);
        if (gg_lane() == 0 && v < n) bits[v >> 5] = word;
    }
}

// Bitmap/bool map to a vertex queue with warp-aggregated appends (BitmapToQueue).
__device__ void gg_mask_to_queue(const unsigned char* mask, int n, int* queue, u32* counter) {
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x; base < n; base += stride) {
        const int v = base + threadIdx.x;
        gg_warp_append(v < n && mask[v], v, queue, counter);
    }
}

// Queue to bool map (QueueToBitmap).
__device__ void gg_queue_to_mask(const int* queue, int qsize, unsigned char* mask) {
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < qsize; i += stride) mask[queue[i]] = 1;
}

// neighbor_reduce: out[v] = reduction over v's row of map(v, u, w); a warp per row (shuffle reduction) when
// per_warp, else a thread per row. monoid 0 = min, 1 = max, 2 = sum.
template <class M>
__device__ void gg_neighbor_reduce(const i64* offsets, const int* indices, const float* weights, int weighted, int n,
                                   M map, int monoid, double identity, int per_warp, double* out) {
    if (per_warp) {
        const int warps = gridDim.x * blockDim.x / GG_WARP;
        for (int v = (blockIdx.x * blockDim.x + threadIdx.x) / GG_WARP; v < n; v += warps) {
            double acc = identity;
            for (i64 k = offsets[v] + gg_lane(); k < offsets[v + 1]; k += GG_WARP) {
                const double x = map(v, indices[k], gg_weight(weights, weighted, k));
                acc = monoid == 2 ? acc + x : monoid == 0 ? fmin(acc, x) : fmax(acc, x);
            }
            #pragma unroll
            for (int d = 16; d > 0; d >>= 1) {
                const double y = __shfl_xor_sync(GG_FULL_MASK, acc, d);
                acc = monoid == 2 ? acc + y : monoid == 0 ? fmin(acc, y) : fmax(acc, y);
            }
            if (gg_lane() == 0) out[v] = acc;
        }
        return;
    }
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        double acc = identity;
        for (i64 k = offsets[v]; k < offsets[v + 1]; ++k) {
            const double x = map(v, indices[k], gg_weight(weights, weighted, k));
            acc = monoid == 2 ? acc + x : monoid == 0 ? fmin(acc, x) : fmax(acc, x);
        }
        out[v] = acc;
    }
}

// MultiGraph's dense mode (MultiGraphD; Hong et al., PACT'17, section 4) over graph/tiles.py's layout: y[v] = the sum
// over arcs u -> v of x[u] (times the arc's weight), in two phases.
//   gg_dense_heavy   phase 1, a heavy tile per block (blockDim.x = the layout's columns): the tile's column panel of x
//                    in shared memory; each thread walks its column of the element matrix, a register sum per
//                    destination run (a negated destination starts one), added into the tile's destination sums in
//                    shared memory (atomics: a run split over two columns meets itself); the sums go to the stream.
//   gg_dense_light   phase 1, a column panel's light arcs per block: each arc writes its contribution to its own
//                    stream slot (no atomics, no combining).
//   gg_dense_reduce  phase 2, a row panel per block: its heavy tiles' sums added in order (no atomics), then its
//                    light slots added into their destinations with shared-memory atomics; the panel's y written.
// Dynamic shared memory: 2 x block doubles for the heavy phase, block doubles for the others (the host raises each
// kernel's limit).
#pragma once
#include "common.cuh"

extern "C" __global__ void gg_dense_heavy(const int* heavy_column, const int* heavy_rows, const i64* heavy_start,
                                          const i64* heavy_out, const int* elements, const float* element_weights,
                                          int weighted, int block, int n, const double* x, double* stream) {
    extern __shared__ double gg_dense_smem[];
    double* xs = gg_dense_smem;
    double* sums = gg_dense_smem + block;
    const int t = blockIdx.x;
    const i64 first = (i64)heavy_column[t] * block;
    for (int i = threadIdx.x; i < block; i += blockDim.x) {
        xs[i] = first + i < n ? x[first + i] : 0.0;
        sums[i] = 0.0;
    }
    __syncthreads();
    const int rows = heavy_rows[t];
    const int columns = blockDim.x;
    const int* m = elements + heavy_start[t];
    const float* mw = weighted ? element_weights + heavy_start[t] : nullptr;
    int d = -1;
    double acc = 0.0;
    for (int r = 0; r < rows; ++r) {
        const i64 at = (i64)r * columns + threadIdx.x;
        const int e = m[at];
        if (e < 0) {
            if (d >= 0 && d < block && acc != 0.0) atomicAdd(sums + d, acc);
            d = -e - 1;
            acc = 0.0;
        } else {
            acc += weighted ? xs[e] * (double)mw[at] : xs[e];
        }
    }
    if (d >= 0 && d < block && acc != 0.0) atomicAdd(sums + d, acc);
    __syncthreads();
    double* out = stream + heavy_out[t];
    for (int i = threadIdx.x; i < block; i += blockDim.x) out[i] = sums[i];
}

extern "C" __global__ void gg_dense_light(const i64* light_start, const int* light_source, const float* light_weight,
                                          int weighted, const i64* light_slot, int block, int n, const double* x,
                                          double* stream) {
    extern __shared__ double gg_dense_smem[];
    const int p = blockIdx.x;
    const i64 first = (i64)p * block;
    for (int i = threadIdx.x; i < block; i += blockDim.x) gg_dense_smem[i] = first + i < n ? x[first + i] : 0.0;
    __syncthreads();
    for (i64 a = light_start[p] + threadIdx.x; a < light_start[p + 1]; a += blockDim.x) {
        const double v = gg_dense_smem[light_source[a]];
        stream[light_slot[a]] = weighted ? v * (double)light_weight[a] : v;
    }
}

extern "C" __global__ void gg_dense_reduce(const i64* stream_start, const int* stream_heavy,
                                           const int* stream_destination, int block, int n, const double* stream,
                                           double* y) {
    extern __shared__ double gg_dense_smem[];
    const int p = blockIdx.x;
    const i64 base = stream_start[p];
    const int tiles = stream_heavy[p + 1] - stream_heavy[p];
    for (int j = threadIdx.x; j < block; j += blockDim.x) {
        double s = 0.0;
        for (int k = 0; k < tiles; ++k) s += stream[base + (i64)k * block + j];
        gg_dense_smem[j] = s;
    }
    __syncthreads();
    for (i64 i = base + (i64)tiles * block + threadIdx.x; i < stream_start[p + 1]; i += blockDim.x)
        atomicAdd(gg_dense_smem + stream_destination[i], stream[i]);
    __syncthreads();
    const i64 first = (i64)p * block;
    for (int j = threadIdx.x; j < block && first + j < n; j += blockDim.x) y[first + j] = gg_dense_smem[j];
}

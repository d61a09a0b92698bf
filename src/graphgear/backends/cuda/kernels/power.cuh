// Power iteration in one persistent kernel: PageRank's topology-driven pull (MultiGraph's dense pass over the CSC,
// SEP-Graph's sync-pull-td path), every iteration inside ONE launch with single-kernel synchronisation (Busato &
// Bombieri): the gather, the update, the dangling mass and the L1 change of an iteration end at grid barriers instead
// of four launches and a host read. The iterates are the launch-per-iteration loop's (and networkx's) up to rounding:
// Jacobi steps over double-buffered contributions (a row's sum may be added up in another order: other bins).
//
// The host compiles this module with GG_BLOCK 1024 and launches one block of 1024 threads per SM: the block's shared
// memory holds MultiGraph's heavy source block, the contributions of the first `hubs` sources (GGContributionTable;
// on the degree-renumbered graph the most-read ones: on kron:21 the first 20,480 sources send half the arcs). A
// smaller GG_BLOCK (check.cu's compile check) makes a 1024-thread launch fail, not overflow the block's arrays.
//
// Step 0: x_0 (the uniform value, or as given), c_0 = x_0 inv, mass_0, the hubs' sums cleared; a grid barrier.
// Iteration t (contributions c_t[u] = x_t[u] / outweight(u); mass_t = sum of x_t over the dangling vertices):
//   A  the first `hubs` contributions copied to shared memory; the gather s_t[v] = sum of c_t[u] * w over v's
//      in-edges: rows of degree < huge in three degree bins, G lanes per row (GG_POWER_G0..2; a bin is a range of rows
//      where the ids are degree-ordered, else a row list), hub rows (degree >= huge) by warps, a REDUCE_CHUNK-edge
//      chunk each, one atomic per chunk
//   -- grid barrier
//   B  every vertex in order (coalesced): x[v] = alpha s_t[v] + teleport[v] + (alpha mass_t) d[v], c_{t+1}[v] =
//      x[v] inv[v], the L1 change and mass_{t+1}, summed per block into slots (one atomic each). teleport and d are
//      GGVectors: one value when uniform (networkx's default), so B streams s, inv, x and c only. The sums are
//      double-buffered (s_t is s0 or s1 by t's parity): B clears the hub rows of s_{t+1}, listed in hub_rows, which
//      nobody reads or adds to until the next barrier (a row's own clear would race its reader; the degree test that
//      found the hub rows read 16 MB of offsets an iteration on kron:21). A separate streaming pass: done inside the
//      gather, the update's loads lengthened every row's chain of dependent loads (kron:21: more than twice the
//      time an iteration, docs/performance.md#kernel-comments)
//   -- grid barrier; every thread reads the change: stop below `threshold`, else go on with c_{t+1} and mass_{t+1}
// Three slots each for the change and the mass: slot (t + 2) % 3 is cleared in B of iteration t, when every block
// has read it (iteration t - 1) and before anyone adds to it (iteration t + 1 for the mass, t + 2 for the change).
// Block 0 stamps %globaltimer per iteration and logs the change, the host's trace. On a renumbered graph the kernel
// ends by writing the ranks in the original ids. Everything in one launch: a launch and a host read-back cost more
// than a grid barrier (a 10-iteration call on kron:21 spent much of its time outside its iterations with a start kernel,
// a gather launch for the original ids and four read-back copies: docs/performance.md#kernel-comments).
#pragma once
#include "persistent.cuh"

// lanes per row of the three degree bins (the host's POWER_BINS)
#ifndef GG_POWER_G0
#define GG_POWER_G0 1
#define GG_POWER_G1 8
#define GG_POWER_G2 32
#endif

// One block of GG_BLOCK threads per SM, its shared memory the heavy source block (dynamic: 8 * hubs bytes). The
// launch bounds say 1 block an SM: without it ptxas capped the registers at 32 and spilled (48 with it).
// The log: row t is (stamp t, change t) at log[2t], log[2t + 1] (stamp t + 1 ends iteration t), right after the control
// words, so the host reads status, slots and the first rows with one copy.
__device__ __forceinline__ void gg_power_iterate(
    const i64* offsets, const int* indices, const float* weights, int weighted, int n,
    const int* rows0, int first0, int n0, const int* rows1, int first1, int n1, const int* rows2, int first2, int n2,
    i64 huge, const int* chunk_rows, const i64* chunk_first, const i64* chunk_last, int chunks, const int* hub_rows,
    int hub_count, int hubs, double alpha, const double* teleport, double teleport_value, const double* d,
    double d_value, const double* inv, double* x, int fill_x, double x0, double* contrib0, double* contrib1, double* s0,
    double* s1, double* sums, int max_iter, double threshold, u32* barrier, int* status, u64* log, int log_rows,
    const int* order, double* original) {
    extern __shared__ double gg_heavy_sources[];
    const bool logger = blockIdx.x == 0 && threadIdx.x == 0;
    const GGVector teleport_of{teleport, teleport_value}, d_of{d, d_value};
    // 0: x_0 (where fill_x: x0 at every vertex), c_0 = x_0 inv, mass_0 into slot 3, the hub rows of s_0 cleared
    double dangling = 0.0;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        const double share = inv[v];
        const double rank = fill_x ? x0 : x[v];
        if (fill_x) x[v] = x0;
        contrib0[v] = rank * share;
        if (share == 0.0) dangling += rank;
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < hub_count; i += gridDim.x * blockDim.x)
        s0[hub_rows[i]] = 0.0;
    gg_block_combine(GG_SUM, dangling, sums + 3);
    if (!gg_grid_sync(barrier, status)) return;
    if (logger && log_rows > 0) log[0] = gg_globaltimer();
    double* contrib = contrib0;
    double* contrib_next = contrib1;
    int t = 0;
    for (; t < max_iter; ++t) {
        double* s = t % 2 ? s1 : s0;
        // A: the heavy source block into shared memory, the hub chunks (a warp each), then the rows of every
        // bin (the hubs' left to the chunks)
        for (int u = threadIdx.x; u < hubs; u += blockDim.x) gg_heavy_sources[u] = contrib[u];
        __syncthreads();
        const GGContributionTable map{contrib, gg_heavy_sources, hubs};
        gg_neighbor_reduce_chunks_by_warp(indices, weights, weighted, chunk_rows, chunk_first, chunk_last, chunks, map,
                                          GG_SUM, 0.0, s);
        gg_neighbor_reduce<GG_POWER_G0>(offsets, indices, weights, weighted, n0, rows0, first0, map, GG_SUM, 0.0, huge,
                                        true, s);
        gg_neighbor_reduce<GG_POWER_G1>(offsets, indices, weights, weighted, n1, rows1, first1, map, GG_SUM, 0.0, huge,
                                        true, s);
        gg_neighbor_reduce<GG_POWER_G2>(offsets, indices, weights, weighted, n2, rows2, first2, map, GG_SUM, 0.0, huge,
                                        true, s);
        if (!gg_grid_sync(barrier, status)) return;
        // B: the update of every vertex, the slots' sums; the hub rows of the next iteration's sums cleared
        const double mass = alpha * __ldcg(sums + 3 + t % 3);
        double change = 0.0;
        dangling = 0.0;
        for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
            const double gathered = __ldcg(s + v);  // a hub's came from other blocks' atomics (L2)
            const double share = inv[v];
            double next;
            change += gg_power_update(v, alpha, mass, gathered, teleport_of, d_of, share, x, contrib_next, next);
            if (share == 0.0) dangling += next;
        }
        double* s_next = t % 2 ? s0 : s1;
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < hub_count; i += gridDim.x * blockDim.x)
            s_next[hub_rows[i]] = 0.0;
        if (logger) {
            sums[(t + 2) % 3] = 0.0;
            sums[3 + (t + 2) % 3] = 0.0;
        }
        gg_block_combine(GG_SUM, change, sums + t % 3);
        gg_block_combine(GG_SUM, dangling, sums + 3 + (t + 1) % 3);
        if (!gg_grid_sync(barrier, status)) return;
        const double total = __ldcg(sums + t % 3);
        if (logger && t < log_rows) {
            log[2 * t + 1] = (u64)__double_as_longlong(total);
            log[2 * t + 2] = gg_globaltimer();
        }
        double* swap = contrib;
        contrib = contrib_next;
        contrib_next = swap;
        if (total < threshold) {
            ++t;
            break;
        }
    }
    if (logger) status[1] = t;
    // on a renumbered graph, the ranks in the original ids (original[order[v]] = x[v]; every x is final since the
    // last barrier): here, instead of a gather launch after the host's read
    if (order)
        for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x)
            original[order[v]] = x[v];
}

// The kernel's arguments as ONE struct passed by value (as the persistent traversal kernel's GGPersistentArgs): the
// 44 separate ones cost a PageRank call host time before the kernel (docs/performance.md#kernel-comments). One 8-byte field a
// line, in gg_power_iterate's order; the host reads the struct from this file (sources.struct_fields) and packs it.
struct GGPowerArgs {
    const i64* offsets;
    const int* indices;
    const float* weights;
    i64 weighted;
    i64 n;
    const int* rows0;
    i64 first0;
    i64 n0;
    const int* rows1;
    i64 first1;
    i64 n1;
    const int* rows2;
    i64 first2;
    i64 n2;
    i64 huge;
    const int* chunk_rows;
    const i64* chunk_first;
    const i64* chunk_last;
    i64 chunks;
    const int* hub_rows;
    i64 hub_count;
    i64 hubs;
    double alpha;
    const double* teleport;
    double teleport_value;
    const double* d;
    double d_value;
    const double* inv;
    double* x;
    i64 fill_x;
    double x0;
    double* contrib0;
    double* contrib1;
    double* s0;
    double* s1;
    double* sums;
    i64 max_iter;
    double threshold;
    u32* barrier;
    int* status;
    u64* log;
    i64 log_rows;
    const int* order;
    double* original;
};

extern "C" __global__ void __launch_bounds__(GG_BLOCK, 1) gg_power_iteration(const __grid_constant__ GGPowerArgs a) {
    gg_power_iterate(a.offsets, a.indices, a.weights, (int)a.weighted, (int)a.n, a.rows0, (int)a.first0, (int)a.n0,
                     a.rows1, (int)a.first1, (int)a.n1, a.rows2, (int)a.first2, (int)a.n2, a.huge, a.chunk_rows,
                     a.chunk_first, a.chunk_last, (int)a.chunks, a.hub_rows, (int)a.hub_count, (int)a.hubs, a.alpha,
                     a.teleport, a.teleport_value, a.d, a.d_value, a.inv, a.x, (int)a.fill_x, a.x0, a.contrib0,
                     a.contrib1, a.s0, a.s1, a.sums, (int)a.max_iter, a.threshold, a.barrier, a.status, a.log,
                     (int)a.log_rows, a.order, a.original);
}

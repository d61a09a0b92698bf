// Power iteration in one persistent kernel: PageRank's topology-driven pull (MultiGraph's dense pass over the CSC,
// SEP-Graph's sync-pull-td path), every iteration inside ONE launch with single-kernel synchronisation (Busato &
// Bombieri): the gather, the update, the dangling mass and the L1 change of an iteration end at grid barriers instead
// of four launches and a host read. The iterates are the launch-per-iteration loop's (and networkx's) up to rounding:
// Jacobi steps over double-buffered contributions (a row's sum may be added up in another order: other bins).
//
// Before it (gg_power_start): c_0 = x_0 inv and mass_0.
// Iteration t (contributions c_t[u] = x_t[u] / outweight(u); mass_t = sum of x_t over the dangling vertices):
//   A  the gather s[v] = sum of c_t[u] * w over v's in-edges: rows of degree < huge in three degree bins, G lanes
//      per row (GG_POWER_G0..2; a bin is a range of rows where the ids are degree-ordered, else a row list), hub
//      rows (degree >= huge) by blocks, a REDUCE_CHUNK-edge chunk each, one atomic per chunk
//   -- grid barrier
//   B  every vertex in order (coalesced): x[v] = alpha s[v] + teleport[v] + (alpha mass_t) d[v], c_{t+1}[v] =
//      x[v] inv[v], the L1 change and mass_{t+1}, summed per block into slots (one atomic each); a hub's s[v] reset
//      to 0 for the next iteration's atomics. A separate streaming pass: done inside the gather, the update's four
//      loads lengthened every row's chain of dependent loads (kron:21 on an H200: 0.88 ms an iteration, 0.40 so)
//   -- grid barrier; every thread reads the change: stop below `threshold`, else go on with c_{t+1} and mass_{t+1}
// Three slots each for the change and the mass: slot (t + 2) % 3 is cleared in B of iteration t, when every block
// has read it (iteration t - 1) and before anyone adds to it (iteration t + 1 for the mass, t + 2 for the change).
// Block 0 stamps %globaltimer per iteration and logs the change, the host's trace.
#pragma once
#include "persistent.cuh"

// lanes per row of the three degree bins (the host's POWER_BINS)
#ifndef GG_POWER_G0
#define GG_POWER_G0 1
#define GG_POWER_G1 8
#define GG_POWER_G2 32
#endif

// Before the first iteration (its own launch, so the iteration kernel's registers stay the loop's): c_0 = x_0 inv
// and mass_0 into slot 3.
extern "C" __global__ void __launch_bounds__(GG_BLOCK) gg_power_start(int n, const double* x, const double* inv,
                                                                      double* contrib, double* sums) {
    double dangling = 0.0;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
        const double share = inv[v];
        contrib[v] = x[v] * share;
        if (share == 0.0) dangling += x[v];
    }
    gg_block_combine(GG_SUM, dangling, sums + 3);
}

// No minimum of resident blocks in the launch bounds: capping the registers (40 for 6 blocks an SM) kept fewer loads in
// flight and measured slower (0.50 against 0.40 ms an iteration with 48 registers and 5 blocks, kron:21, H200).
extern "C" __global__ void __launch_bounds__(GG_BLOCK) gg_power_iteration(
    const i64* offsets, const int* indices, const float* weights, int weighted, int n,
    const int* rows0, int first0, int n0, const int* rows1, int first1, int n1, const int* rows2, int first2, int n2,
    i64 huge, const int* chunk_rows, const i64* chunk_first, const i64* chunk_last, int chunks,
    double alpha, const double* teleport, const double* d, const double* inv, double* x, double* contrib0,
    double* contrib1, double* s, double* sums, int max_iter, double threshold,
    u32* barrier, int* status, double* changes, u64* stamps, int log_rows) {
    const bool logger = blockIdx.x == 0 && threadIdx.x == 0;
    if (logger && log_rows > 0) stamps[0] = gg_globaltimer();
    double* contrib = contrib0;
    double* contrib_next = contrib1;
    int t = 0;
    for (; t < max_iter; ++t) {
        // A: the hub chunks (a block each, in turn), then the rows of every bin (the hubs' left to the chunks)
        const GGContribution map{contrib};
        gg_neighbor_reduce_chunks(indices, weights, weighted, chunk_rows, chunk_first, chunk_last, chunks, nullptr, map,
                                  GG_SUM, 0.0, s);
        gg_neighbor_reduce<GG_POWER_G0>(offsets, indices, weights, weighted, n0, rows0, first0, map, GG_SUM, 0.0, huge,
                                        true, s);
        gg_neighbor_reduce<GG_POWER_G1>(offsets, indices, weights, weighted, n1, rows1, first1, map, GG_SUM, 0.0, huge,
                                        true, s);
        gg_neighbor_reduce<GG_POWER_G2>(offsets, indices, weights, weighted, n2, rows2, first2, map, GG_SUM, 0.0, huge,
                                        true, s);
        if (!gg_grid_sync(barrier, status)) return;
        // B: the update of every vertex, the slots' sums
        const double mass = alpha * __ldcg(sums + 3 + t % 3);
        double change = 0.0, dangling = 0.0;
        for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += gridDim.x * blockDim.x) {
            const double gathered = __ldcg(s + v);  // a hub's came from other blocks' atomics (L2)
            if (offsets[v + 1] - offsets[v] >= huge) s[v] = 0.0;
            const double share = inv[v];
            double next;
            change += gg_power_update(v, alpha, mass, gathered, teleport, d, share, x, contrib_next, next);
            if (share == 0.0) dangling += next;
        }
        if (logger) {
            sums[(t + 2) % 3] = 0.0;
            sums[3 + (t + 2) % 3] = 0.0;
        }
        gg_block_combine(GG_SUM, change, sums + t % 3);
        gg_block_combine(GG_SUM, dangling, sums + 3 + (t + 1) % 3);
        if (!gg_grid_sync(barrier, status)) return;
        const double total = __ldcg(sums + t % 3);
        if (logger && t < log_rows) {
            changes[t] = total;
            stamps[t + 1] = gg_globaltimer();
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
}

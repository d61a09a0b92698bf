// Brandes' betweenness from one source (U. Brandes, J. Math. Sociol. 25(2), 2001), the whole of it in ONE persistent
// launch, grid.cuh's barrier between levels and no host read between them (algorithms/betweenness.py, which runs the
// same phases level by level through the operators):
//   ForwardPhase   level by level from the source: each vertex u of level d pushes over its out-arcs; an unvisited v
//                  is claimed for level d + 1 (atomicCAS on level) and appended to `order`, Brandes' stack S: the
//                  levels lie one after the other, level d + 1's entries right past level d's, count[d + 1] of them;
//                  a v on level d + 1 adds sigma[u] (its shortest-path count).
//   BackwardPhase  deepest level first (LevelGather): each vertex u of level d sums coef[v] = (1 + delta[v]) / sigma[v]
//                  over its out-neighbours v on level d + 1, then delta[u] = sigma[u] * sum, coef[u] and
//                  bc[u] += delta[u] + endpoint; race-free, each vertex writes only its own entries.
// One thread per vertex of a level: the kernel serves high-diameter graphs (SEP-Graph's delta test), whose levels are
// many and small and whose degrees are low; a graph with hubs runs the host's per-level operators (load-balanced
// advance and neighbor_reduce) over its few levels.
// The log (int64): [0] rows so far (every launch of one call appends), [1] the abort flag (int) and, in its high half,
// the overflow flag (a dependency came out inf or NaN: path counts past float64's range), [2] the barrier's
// two words, then GG_BRANDES_FIELDS per row: phase (0 forward, 1 backward, 2 a source's start), level (the source,
// for a start), |level|, outDegree(level) (forward), %globaltimer. Rows past log_rows are counted, not written.
#pragma once
#include "grid.cuh"

#define GG_BRANDES_FIELDS 5
#define GG_BRANDES_HEADER 3

__device__ __forceinline__ void gg_brandes_log(i64* log, i64 log_rows, i64 phase, i64 level, i64 vertices, i64 edges) {
    const i64 row = log[0]++;  // one thread writes the log
    if (row >= log_rows) return;
    i64* r = log + GG_BRANDES_HEADER + row * GG_BRANDES_FIELDS;
    r[0] = phase;
    r[1] = level;
    r[2] = vertices;
    r[3] = edges;
    r[4] = (i64)gg_globaltimer();
}

// Values that other blocks wrote since this one last looked are read from L2 (__ldcg): the SMs' L1 caches are not
// coherent, and a grid barrier orders memory but does not clear them.
extern "C" __global__ void __launch_bounds__(256, 2)
brandes(const i64* offsets, const int* indices, int n, int source, int* level, double* sigma, double* coef,
        double* bc, double endpoint, int* order, int* count, u64* edges, i64* log, i64 log_rows) {
    int* status = (int*)(log + 1);
    u32* barrier = (u32*)(log + 2);
    const int tid = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const bool logger = tid == 0;
    if (*(volatile int*)status) return;  // an earlier launch of this call gave up
    for (int v = tid; v < n; v += stride) {
        level[v] = v == source ? 0 : -1;
        sigma[v] = v == source ? 1.0 : 0.0;
    }
    for (int v = tid; v < n + 2; v += stride) count[v] = v == 0 ? 1 : 0;
    if (logger) {
        order[0] = source;
        edges[0] = (u64)(offsets[source + 1] - offsets[source]);
        edges[1] = 0;
        edges[2] = 0;
        gg_brandes_log(log, log_rows, 2, source, 0, 0);
    }
    if (!gg_grid_sync(barrier, status)) return;

    // ForwardPhase: level d is order[lo, hi); its outDegree sums into edges[d % 3] while level d - 1 claims it
    int lo = 0, hi = 1, d = 0;
    while (true) {
        u64 claimed_edges = 0;
        for (int i = lo + tid; i < hi; i += stride) {
            const int u = __ldcg(order + i);
            const double su = __ldcg(sigma + u);
            const i64 end = offsets[u + 1];
            for (i64 e = offsets[u]; e < end; ++e) {
                const int v = indices[e];
                int lv = __ldcg(level + v);
                if (lv == -1) {
                    lv = atomicCAS(level + v, -1, d + 1);
                    if (lv == -1) {
                        lv = d + 1;
                        order[hi + atomicAdd(count + d + 1, 1)] = v;
                        claimed_edges += (u64)(offsets[v + 1] - offsets[v]);
                    }
                }
                if (lv == d + 1) atomicAdd(sigma + v, su);
            }
        }
        if (claimed_edges) atomicAdd(edges + (d + 1) % 3, claimed_edges);
        if (logger) edges[(d + 2) % 3] = 0;  // level d + 2's slot (level d - 1's, read last round by this thread)
        if (!gg_grid_sync(barrier, status)) return;
        const int size = __ldcg(count + d + 1);
        if (logger) gg_brandes_log(log, log_rows, 0, d, hi - lo, (i64)__ldcg(edges + d % 3));
        lo = hi;
        hi += size;
        ++d;
        if (size == 0) break;
    }

    // BackwardPhase: levels d - 1 .. 1 (the source's level 0 gets no dependency), lo == hi == the vertices reached
    const int reached = hi;
    for (int k = d - 1; k >= 1; --k) {
        const int size = __ldcg(count + k);
        hi = lo;
        lo = hi - size;
        for (int i = lo + tid; i < hi; i += stride) {
            const int u = __ldcg(order + i);
            double acc = 0.0;
            const i64 end = offsets[u + 1];
            for (i64 e = offsets[u]; e < end; ++e) {
                const int v = indices[e];
                if (__ldcg(level + v) == k + 1) acc += __ldcg(coef + v);
            }
            const double su = __ldcg(sigma + u);
            const double dependency = su * acc;
            // a path count past float64's range leaves inf or NaN here (inf * acc): flagged for the host's recount
            if (!isfinite(dependency)) ((volatile int*)status)[1] = 1;
            __stcg(coef + u, (1.0 + dependency) / su);
            bc[u] += dependency + endpoint;
        }
        if (!gg_grid_sync(barrier, status)) return;
        if (logger) gg_brandes_log(log, log_rows, 1, k, size, 0);
    }
    if (logger && endpoint != 0.0) bc[source] += (double)(reached - 1);
}

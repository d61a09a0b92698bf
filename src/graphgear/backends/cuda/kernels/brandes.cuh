// Brandes' betweenness from one source (U. Brandes, J. Math. Sociol. 25(2), 2001), the whole of it in ONE persistent
// launch, grid.cuh's barrier between levels and no host read between them (algorithms/betweenness.py, which runs the
// same phases level by level through the operators):
//   ForwardPhase   level by level from the source: each vertex u of level d pushes over its out-arcs; an unvisited v
//                  is claimed for level d + 1 (atomicCAS on level) and appended to `order`, Brandes' stack S: the
//                  levels lie one after the other, level d + 1's entries right past level d's, count[d + 1] of them;
//                  a v on level d + 1 adds sigma[u] (its shortest-path count).
//   BackwardPhase  deepest level first (LevelGather): each vertex u of level d sums coef[v] = (1 + delta[v]) / sigma[v]
//                  over its out-neighbours v on level d + 1, then delta[u] = sigma[u] * sum, coef[u] and
//                  bc[u] += delta[u] + endpoint; race-free, each vertex's entries are written by one thread.
// The kernel serves high-diameter graphs (SEP-Graph's delta test), whose levels are many and small. gg_brandes is its
// body, one per expansion of a level's rows (the per-arc work, GGBrandesForward and GGBrandesBackward, is the same):
//   brandes               one thread per vertex (GGThreadExpansion): the cheapest where degrees are low.
//   brandes_hierarchical  Slota's hierarchical expansion (GGHierarchicalExpansion): a level's hubs are expanded by a
//                         whole block (team queue) or a warp (warp queue), their backward sums a block or warp
//                         reduction, so a hub's row is not one thread's walk while the grid waits at the barrier.
// backends/cuda/brandes.py picks by the graph's largest out-degree.
// The log (int64): [0] rows so far (every launch of one call appends), [1] the abort flag (int) and, in its high half,
// the overflow flag (a dependency came out inf or NaN: path counts past float64's range), [2] the barrier's
// two words, then GG_BRANDES_FIELDS per row: phase (0 forward, 1 backward, 2 a source's start), level (the source,
// for a start), |level|, outDegree(level) (forward), %globaltimer. Rows past log_rows are counted, not written.
#pragma once
#include "advance.cuh"
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

// ForwardPhase's edge u -> v, u on level d: an unvisited v is claimed for level d + 1 (`next`) and appended to `order`
// (level d + 1 starts at `end`, count[d + 1] is its size so far), its outDegree summed in `claimed`; a v on level
// d + 1 adds sigma[u]. `row(u)` reads sigma[u] once per row and thread.
struct GGBrandesForward {
    const i64* offsets;
    int* level;
    double* sigma;
    int* order;
    int* size;  // count + d + 1
    int end;
    int next;
    u64 claimed;
    static constexpr bool sums = false;
    __device__ __forceinline__ double row(int u) const { return __ldcg(sigma + u); }
    __device__ __forceinline__ void edge(double su, int v, double&) {
        int lv = __ldcg(level + v);
        if (lv == -1) {
            lv = atomicCAS(level + v, -1, next);
            if (lv == -1) {
                lv = next;
                order[end + atomicAdd(size, 1)] = v;
                claimed += (u64)(offsets[v + 1] - offsets[v]);
            }
        }
        if (lv == next) atomicAdd(sigma + v, su);
    }
    __device__ __forceinline__ void done(int, double) const {}
};

// BackwardPhase's edge u -> v, u on level k: acc += coef[v] where v lies on level k + 1 (`next`); once the row is
// summed, ONE thread writes u's entries (`done`): delta[u] = sigma[u] * acc, coef[u] = (1 + delta[u]) / sigma[u],
// bc[u] += delta[u] + endpoint, and the overflow flag where delta[u] is inf or NaN.
struct GGBrandesBackward {
    const int* level;
    const double* sigma;
    double* coef;
    double* bc;
    double endpoint;
    int* status;
    int next;
    static constexpr bool sums = true;
    __device__ __forceinline__ int row(int) const { return 0; }
    __device__ __forceinline__ void edge(int, int v, double& acc) const {
        if (__ldcg(level + v) == next) acc += __ldcg(coef + v);
    }
    __device__ __forceinline__ void done(int u, double acc) const {
        const double su = __ldcg(sigma + u);
        const double dependency = su * acc;
        // a path count past float64's range leaves inf or NaN here (inf * acc): flagged for the host's recount
        if (!isfinite(dependency)) ((volatile int*)status)[1] = 1;
        __stcg(coef + u, (1.0 + dependency) / su);
        bc[u] += dependency + endpoint;
    }
};

// The expansions of a level order[lo, hi): F's edge() for every out-arc of each of its vertices, then, where F sums
// (F::sums), done(u, the row's sum) by one thread per row. Every thread of the grid calls them.
// One thread per vertex: each thread walks its vertices' rows alone (a hub's row is one thread's).
struct GGThreadExpansion {
    template <class F>
    __device__ static __forceinline__ void level(const i64* offsets, const int* indices, const int* order, int lo,
                                                 int hi, F& f) {
        const int stride = gridDim.x * blockDim.x;
        for (int i = lo + blockIdx.x * blockDim.x + threadIdx.x; i < hi; i += stride) {
            const int u = __ldcg(order + i);
            const auto r = f.row(u);
            double acc = 0.0;
            const i64 end = offsets[u + 1];
            for (i64 e = offsets[u]; e < end; ++e) f.edge(r, indices[e], acc);
            f.done(u, acc);
        }
    }
};

// Slota's hierarchical expansion (Slota, Rajamanickam, Madduri, "High-performance Graph Analytics on Manycore
// Processors", IPDPS'15, Algorithm 3): each block takes blockDim vertices of the level at a time through advance.cuh's
// gg_hierarchical_step, which sorts them by degree into block-local queues: degree >= blockDim to the TEAM queue (the
// whole block on each row, the row's sum a block reduction), degree >= 32 to the WARP queue (a warp on each row, a
// warp reduction); the rest each thread expands at once. The loop over the level goes in block-sized steps, the same
// number for every thread of a block (block barriers inside).
struct GGHierarchicalExpansion {
    __device__ static __forceinline__ double* parts() {  // a team row's warp sums; one copy for every F (a static of
        __shared__ double part[GG_BLOCK / GG_WARP];      // a non-template)
        return part;
    }

    __device__ static __forceinline__ double warp_sum(double acc) {
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1) acc += __shfl_down_sync(GG_FULL_MASK, acc, d);
        return acc;  // lane 0's is the warp's
    }

    // F's rows in gg_hierarchical_step: edge() for each arc, then done(row, its sum) by one thread where F sums
    template <class F>
    struct Rows {
        const i64* offsets;
        const int* indices;
        F& f;
        __device__ __forceinline__ double sum(int u, i64 first, i64 end, int step) {
            const auto r = f.row(u);
            double acc = 0.0;
            for (i64 e = first; e < end; e += step) f.edge(r, indices[e], acc);
            return acc;
        }
        __device__ __forceinline__ void thread(int u, i64 start, i64 end) { f.done(u, sum(u, start, end, 1)); }
        __device__ __forceinline__ void team(int w) {
            double acc = sum(w, offsets[w] + threadIdx.x, offsets[w + 1], blockDim.x);
            if constexpr (F::sums) {
                double* part = parts();
                acc = warp_sum(acc);
                if (gg_lane() == 0) part[threadIdx.x >> 5] = acc;
                __syncthreads();
                if (threadIdx.x == 0) {
                    for (int k = 1; k < (int)(blockDim.x >> 5); ++k) acc += part[k];
                    f.done(w, acc);
                }
                __syncthreads();  // part is the next row's
            }
        }
        __device__ __forceinline__ void warp(int w) {
            double acc = sum(w, offsets[w] + gg_lane(), offsets[w + 1], GG_WARP);
            if constexpr (F::sums) {
                acc = warp_sum(acc);
                if (gg_lane() == 0) f.done(w, acc);
            }
        }
    };

    template <class F>
    __device__ static void level(const i64* offsets, const int* indices, const int* order, int lo, int hi, F& f) {
        Rows<F> rows{offsets, indices, f};
        const int stride = gridDim.x * blockDim.x;
        for (int base = lo + blockIdx.x * blockDim.x; base < hi; base += stride) {  // uniform trip count in a block
            const int i = base + threadIdx.x;
            const int u = i < hi ? __ldcg(order + i) : -1;
            gg_hierarchical_step(u, u >= 0 ? offsets[u] : 0, u >= 0 ? offsets[u + 1] : 0, rows);
        }
    }
};

template <class Expand>
__device__ __forceinline__ void gg_brandes(const i64* offsets, const int* indices, int n, int source, int* level,
                                           double* sigma, double* coef, double* bc, double endpoint, int* order,
                                           int* count, u64* edges, i64* log, i64 log_rows) {
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
        GGBrandesForward forward{offsets, level, sigma, order, count + d + 1, hi, d + 1, 0};
        Expand::level(offsets, indices, order, lo, hi, forward);
        if (forward.claimed) atomicAdd(edges + (d + 1) % 3, forward.claimed);
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
        GGBrandesBackward backward{level, sigma, coef, bc, endpoint, status, k + 1};
        Expand::level(offsets, indices, order, lo, hi, backward);
        if (!gg_grid_sync(barrier, status)) return;
        if (logger) gg_brandes_log(log, log_rows, 1, k, size, 0);
    }
    if (logger && endpoint != 0.0) bc[source] += (double)(reached - 1);
}

extern "C" __global__ void __launch_bounds__(256, 2)
brandes(const i64* offsets, const int* indices, int n, int source, int* level, double* sigma, double* coef,
        double* bc, double endpoint, int* order, int* count, u64* edges, i64* log, i64 log_rows) {
    gg_brandes<GGThreadExpansion>(offsets, indices, n, source, level, sigma, coef, bc, endpoint, order, count,
                                  edges, log, log_rows);
}

extern "C" __global__ void __launch_bounds__(256, 2)
brandes_hierarchical(const i64* offsets, const int* indices, int n, int source, int* level, double* sigma,
                     double* coef, double* bc, double endpoint, int* order, int* count, u64* edges, i64* log,
                     i64 log_rows) {
    gg_brandes<GGHierarchicalExpansion>(offsets, indices, n, source, level, sigma, coef, bc, endpoint, order, count,
                                        edges, log, log_rows);
}

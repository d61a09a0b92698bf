// pull: every candidate vertex scans its in-edges (CSC) from active sources; the functor may stop the scan early
// (bottom-up BFS). Active sources are looked up in a bitmap (one bit per vertex, L2-resident) or a bool map.
//
//   pull_vertex_group<G>   G lanes per vertex; after each step of G in-edges the group ballots whether anyone hit
//                          GG_STOP, so early exit costs at most G-1 extra edges.
//                          G = 1 adds warp gathering (Busato & Bombieri's support, applied to the pull): a candidate
//                          of in-degree >= 32 is scanned by its whole warp, 32 in-edges a step, early exit by ballot
//                          (not for a first-wins program, whose scans stop early); a thread scans the other rows.
//
// The activated vertices go to `out`: a bool map (mode 2) or a vertex queue with warp-aggregated appends (mode 0).
//
// C: __device__ bool operator()(int v) const            -- which vertices pull
// F: __device__ int operator()(int v, int u, float w) const -- GG_ACTIVATE | GG_STOP bits
#pragma once
#include "common.cuh"

// pull_vertex_group<1>: rows of at least this in-degree are scanned by the whole warp (warp gathering) -- for a pull
// that scans whole rows (a sum, a min without early exit). A first-wins program's pull does not come here
// (gg_program_pull, program.cuh): its scans stop at the first parent, and a warp walking its rows one after another
// wasted the steps it saved (the first bottom-up round of a kron:21 BFS was slower with it:
// docs/performance.md#kernel-comments); gg_program_pull_first_wins hands a row to its warp only after the thread's first GG_PULL_THREAD_EDGES.
#ifndef GG_PULL_GATHER_DEGREE
#define GG_PULL_GATHER_DEGREE 32
#endif
// ... and a thread scans the smaller rows this many in-edges a step
#ifndef GG_PULL_ILP
#define GG_PULL_ILP 4
#endif

// One row [start, end) of candidate v scanned by a group of G lanes, G in-edges a step, stopping at the step where
// any lane's functor says GG_STOP; returns whether any lane's functor activated v. Every lane of the group calls it
// with the same v, start and end (group_mask: the group's lanes).
template <int G, class F>
__device__ __forceinline__ bool gg_pull_row(const int* t_indices, const float* t_weights, int weighted,
                                            const u32* active_bits, int all_active, F f, int v, i64 start, i64 end,
                                            int lane_in_group, u32 group_mask) {
    bool activated = false;
    for (i64 step = start; step < end; step += G) {
        const i64 k = step + lane_in_group;
        int r = 0;
        if (k < end) {
            const int u = t_indices[k];
            if (all_active || gg_test_bit(active_bits, u)) r = f(v, u, gg_weight(t_weights, weighted, k));
        }
        activated |= (r & GG_ACTIVATE) != 0;
        if (__any_sync(group_mask, (r & GG_STOP) != 0)) break;
    }
    return __any_sync(group_mask, activated);
}

// Warp gathering of a pull: the rows [start, end) of GG_PULL_GATHER_DEGREE in-edges and more among the warp's lanes,
// in turn; row(leader, start, end) runs on every lane for each (the caller keeps the leader's answer). Every lane of
// the warp calls it.
template <class Row>
__device__ __forceinline__ void gg_gather_rows(i64 start, i64 end, Row row) {
    u32 big = __ballot_sync(GG_FULL_MASK, end - start >= GG_PULL_GATHER_DEGREE);
    while (big) {
        const int leader = __ffs(big) - 1;
        big &= big - 1;
        row(leader, __shfl_sync(GG_FULL_MASK, start, leader), __shfl_sync(GG_FULL_MASK, end, leader));
    }
}

// Thread per candidate with warp gathering: the warp's rows of in-degree >= GG_PULL_GATHER_DEGREE are scanned one
// after another by all its lanes (coalesced index loads, early exit by ballot), the rest by their own thread. Without
// it a warp waited for its longest row, read one load after another: BC's forward pulls (no early exit) made a
// kron:21 single-source BC take twice as long (docs/performance.md#kernel-comments).
template <class C, class F>
__device__ void gg_pull_warp_gathered(const i64* t_offsets, const int* t_indices, const float* t_weights, int weighted,
                                      const u32* active_bits, int all_active, int n, C candidate, F f, GGOut out) {
    const int lane = gg_lane();
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x; base < n; base += stride) {  // the same trip count for a whole warp
        const int v = base + threadIdx.x;
        const bool is_candidate = v < n && candidate(v);
        i64 start = is_candidate ? t_offsets[v] : 0;
        const i64 end = is_candidate ? t_offsets[v + 1] : 0;
        bool activated = false;
        gg_gather_rows(start, end, [&](int leader, i64 bs, i64 be) {  // the lanes' big rows, each by the whole warp
            const int bv = __shfl_sync(GG_FULL_MASK, v, leader);
            const bool hit = gg_pull_row<GG_WARP>(t_indices, t_weights, weighted, active_bits, all_active, f, bv, bs, be,
                                                  lane, GG_FULL_MASK);
            if (lane == leader) {
                activated = hit;
                start = end;
            }
        });
        // a small row: its own thread, GG_PULL_ILP in-edges a step -- their index loads and bitmap lookups issued
        // together (independent loads in flight), the functor then called on the active ones in row order, so an
        // early exit stops exactly where a one-edge-at-a-time scan would
        bool stopped = false;
        for (i64 step = start; step < end && !stopped; step += GG_PULL_ILP) {
            int u[GG_PULL_ILP];
            bool on[GG_PULL_ILP];
            #pragma unroll
            for (int j = 0; j < GG_PULL_ILP; ++j) u[j] = step + j < end ? t_indices[step + j] : -1;
            #pragma unroll
            for (int j = 0; j < GG_PULL_ILP; ++j) on[j] = u[j] >= 0 && (all_active || gg_test_bit(active_bits, u[j]));
            #pragma unroll
            for (int j = 0; j < GG_PULL_ILP; ++j) {
                if (!on[j] || stopped) continue;
                const int r = f(v, u[j], gg_weight(t_weights, weighted, step + j));
                activated |= (r & GG_ACTIVATE) != 0;
                stopped = (r & GG_STOP) != 0;
            }
        }
        gg_emit(out, is_candidate && activated, v);
    }
}

// The candidates walked by groups of G lanes (G > 1): v is the same for a group's lanes (uniform branches); the
// group's first lane asks the candidate predicate (it may read state that changes meanwhile, or write) and broadcasts
// the answer, so the group's lanes never disagree. body(v, lane_in_group, group_mask) scans a candidate's row.
template <int G, class C, class B>
__device__ __forceinline__ void gg_group_candidates(int n, C candidate, B body) {
    const int lane_in_group = threadIdx.x % G;
    const int groups = gridDim.x * blockDim.x / G;
    const int group = (blockIdx.x * blockDim.x + threadIdx.x) / G;
    const u32 group_mask = G == 32 ? GG_FULL_MASK : (((1u << G) - 1u) << ((threadIdx.x & 31) / G * G));
    for (int v = group; v < n; v += groups) {
        int is_candidate = 0;
        if (lane_in_group == 0) is_candidate = candidate(v) ? 1 : 0;
        is_candidate = __shfl_sync(group_mask, is_candidate, (threadIdx.x & 31) / G * G);
        if (is_candidate) body(v, lane_in_group, group_mask);
    }
}

template <int G, class C, class F>
__device__ void gg_pull_vertex_group(const i64* t_offsets, const int* t_indices, const float* t_weights, int weighted,
                                     const u32* active_bits, int all_active, int n, C candidate, F f, GGOut out) {
    if (G == 1) {
        gg_pull_warp_gathered(t_offsets, t_indices, t_weights, weighted, active_bits, all_active, n, candidate, f, out);
        return;
    }
    gg_group_candidates<G>(n, candidate, [&](int v, int lane_in_group, u32 group_mask) {
        const bool activated = gg_pull_row<G>(t_indices, t_weights, weighted, active_bits, all_active, f, v, t_offsets[v],
                                              t_offsets[v + 1], lane_in_group, group_mask);
        if (lane_in_group == 0) gg_emit(out, activated, v);
    });
}

// Reducing pull (a min or max without early exit: near-far's heavy rows, label-correcting pulls): a row's best
// candidate is found first and committed ONCE per row (or chunk), where the per-edge functor above reads the target's
// buffer and may update it atomically at every in-edge. The per-edge form serialises each in-edge's message load
// behind the previous edge's atomic (the compiler cannot move a load across it); here GG_PULL_ILP in-edges of a lane
// have their index, bit and message loads in flight together.
// R: __device__ double identity() const                  -- the monoid's identity (nothing found)
//    __device__ double candidate(int u, float w) const     -- what in-edge (u, w) offers
//    __device__ double better(double a, double b) const
//    __device__ bool commit(int v, double best) const      -- keep best in v's buffer; whether v is activated

// One row [start, end) reduced by a group of G lanes (every lane returns the group's best); every lane of the group
// calls it with the same start and end.
template <int G, class R>
__device__ __forceinline__ double gg_reduce_row(const int* t_indices, const float* t_weights, int weighted,
                                                const u32* active_bits, int all_active, R r, i64 start, i64 end,
                                                int lane_in_group, u32 group_mask) {
    double best = r.identity();
    for (i64 step = start + lane_in_group; step < end; step += (i64)G * GG_PULL_ILP) {
        int u[GG_PULL_ILP];
        #pragma unroll
        for (int j = 0; j < GG_PULL_ILP; ++j) u[j] = step + (i64)j * G < end ? t_indices[step + (i64)j * G] : -1;
        #pragma unroll
        for (int j = 0; j < GG_PULL_ILP; ++j)
            if (u[j] >= 0 && !all_active && !gg_test_bit(active_bits, u[j])) u[j] = -1;
        #pragma unroll
        for (int j = 0; j < GG_PULL_ILP; ++j)
            if (u[j] >= 0) best = r.better(best, r.candidate(u[j], gg_weight(t_weights, weighted, step + (i64)j * G)));
    }
    #pragma unroll
    for (int d = G / 2; d > 0; d >>= 1) best = r.better(best, __shfl_xor_sync(group_mask, best, d, G));
    return best;
}

// gg_pull_warp_gathered's reducing form: rows of GG_PULL_GATHER_DEGREE in-edges and more by the whole warp, the
// others by their own thread; every lane commits its row's best after the warp's rows are reduced (a commit per
// gathered row inside the loop put its buffer load and atomic on the warp's path from row to row).
template <class C, class R>
__device__ void gg_reduce_warp_gathered(const i64* t_offsets, const int* t_indices, const float* t_weights,
                                        int weighted, const u32* active_bits, int all_active, int n, C candidate, R r,
                                        GGOut out) {
    const int lane = gg_lane();
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x; base < n; base += stride) {  // the same trip count for a whole warp
        const int v = base + threadIdx.x;
        const bool is_candidate = v < n && candidate(v);
        const i64 start = is_candidate ? t_offsets[v] : 0;
        const i64 end = is_candidate ? t_offsets[v + 1] : 0;
        const bool gathered = end - start >= GG_PULL_GATHER_DEGREE;
        double mine = r.identity();
        gg_gather_rows(start, end, [&](int leader, i64 bs, i64 be) {
            const double best = gg_reduce_row<GG_WARP>(t_indices, t_weights, weighted, active_bits, all_active, r, bs,
                                                       be, lane, GG_FULL_MASK);
            if (lane == leader) mine = best;
        });
        if (!gathered) mine = gg_reduce_row<1>(t_indices, t_weights, weighted, active_bits, all_active, r, start, end, 0, 0u);
        gg_emit(out, is_candidate && r.commit(v, mine), v);
    }
}

// gg_pull_vertex_group's reducing form: G lanes a candidate (G == 1: gg_reduce_warp_gathered).
template <int G, class C, class R>
__device__ void gg_reduce_vertex_group(const i64* t_offsets, const int* t_indices, const float* t_weights,
                                       int weighted, const u32* active_bits, int all_active, int n, C candidate, R r,
                                       GGOut out) {
    if (G == 1) {
        gg_reduce_warp_gathered(t_offsets, t_indices, t_weights, weighted, active_bits, all_active, n, candidate, r,
                                out);
        return;
    }
    gg_group_candidates<G>(n, candidate, [&](int v, int lane_in_group, u32 group_mask) {
        const double best = gg_reduce_row<G>(t_indices, t_weights, weighted, active_bits, all_active, r,
                                             t_offsets[v], t_offsets[v + 1], lane_in_group, group_mask);
        if (lane_in_group == 0) gg_emit(out, r.commit(v, best), v);
    });
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

__device__ __forceinline__ double gg_combine(int monoid, double a, double b) {
    return monoid == 2 ? a + b : monoid == 0 ? fmin(a, b) : fmax(a, b);
}

// *out = combine(*out, value) atomically (monoid 0 = min, 1 = max, 2 = sum).
__device__ __forceinline__ void gg_atomic_combine(int monoid, double* out, double value) {
    if (monoid == 2) atomicAdd(out, value);
    else if (monoid == 0) gg_atomic_min(out, value);
    else gg_atomic_max(out, value);
}

// Combine every thread's `acc` over the block, then into *out with one atomic (monoid 0 = min, 1 = max, 2 = sum):
// a block's share of a hub's row (neighbor_reduce chunks) or of a vertex_reduce. Every thread of the block calls it.
__device__ void gg_block_combine(int monoid, double acc, double* out) {
    __shared__ double s_part[GG_BLOCK / GG_WARP];
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1) acc = gg_combine(monoid, acc, __shfl_down_sync(GG_FULL_MASK, acc, d));
    if (gg_lane() == 0) s_part[threadIdx.x / GG_WARP] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < (int)(blockDim.x / GG_WARP); ++w) acc = gg_combine(monoid, acc, s_part[w]);
        gg_atomic_combine(monoid, out, acc);
    }
    __syncthreads();  // s_part is reused by the caller's next call
}

// neighbor_reduce: out[v] = reduction over v's row of map(v, u, w) (monoid 0 = min, 1 = max, 2 = sum) for the n
// rows first..first+n-1, or for the n rows listed in `vertices`, G lanes per row (a thread, a virtual warp of 4 or 8
// lanes, or a warp) with a shuffle reduction inside the group. The host bins the rows by degree (TWC's thread/warp/CTA
// bins for a gather), one launch (or, in the persistent power iteration, one pass) per bin with its G, so a warp's
// groups do about the same work. Rows of degree >= huge are gg_neighbor_reduce_chunks' (whole blocks, several per row,
// one atomic per chunk, so a hub's row does not hold up the pass): here they get the identity, or with leave_hubs
// nothing (the chunks of the same kernel add into them; the identity would race their atomics).
template <int G, class M>
__device__ void gg_neighbor_reduce(const i64* offsets, const int* indices, const float* weights, int weighted, int n,
                                   const int* vertices, int first, M map, int monoid, double identity, i64 huge,
                                   bool leave_hubs, double* out) {
    const int lane_in_group = threadIdx.x % G;
    const int groups = gridDim.x * blockDim.x / G;
    const int group = (blockIdx.x * blockDim.x + threadIdx.x) / G;
    const u32 group_mask = G == 32 ? GG_FULL_MASK : (((1u << G) - 1u) << ((threadIdx.x & 31) / G * G));
    for (int i = group; i < n; i += groups) {
        const int v = vertices ? vertices[i] : first + i;
        const i64 start = offsets[v];
        const i64 end = offsets[v + 1];
        double acc = identity;
        if (end - start >= huge) {
            if (leave_hubs) continue;  // the same row for the whole group: a uniform branch
        } else {
            #pragma unroll 4
            for (i64 k = start + lane_in_group; k < end; k += G)
                acc = gg_combine(monoid, acc, map(v, indices[k], gg_weight(weights, weighted, k)));
        }
        #pragma unroll
        for (int d = G / 2; d > 0; d >>= 1) acc = gg_combine(monoid, acc, __shfl_down_sync(group_mask, acc, d, G));
        if (lane_in_group == 0) out[v] = acc;
    }
}

// The rows of degree >= huge, cut into chunks of edges [first[c], last[c]) of row rows[c]: a block reduces each
// chunk and combines it into out[row] atomically. With a `member` map (a data-driven reduce), only the chunks of
// member rows run: the others are skipped whole by their block, so the host need not compact the chunk list.
template <class M>
__device__ void gg_neighbor_reduce_chunks(const int* indices, const float* weights, int weighted, const int* rows,
                                          const i64* first, const i64* last, int chunks, const unsigned char* member,
                                          M map, int monoid, double identity, double* out) {
    for (int c = blockIdx.x; c < chunks; c += gridDim.x) {
        const int v = rows[c];
        if (member && !member[v]) continue;  // the same v for the whole block: a uniform branch
        double acc = identity;
        #pragma unroll 4
        for (i64 k = first[c] + threadIdx.x; k < last[c]; k += blockDim.x)
            acc = gg_combine(monoid, acc, map(v, indices[k], gg_weight(weights, weighted, k)));
        gg_block_combine(monoid, acc, out + v);
    }
}

// The same chunks, a warp each instead of a block: for a kernel of few, large blocks (the power iteration's 1024
// threads), where a block per 2048-edge chunk left 2 loads a thread between two block barriers.
template <class M>
__device__ void gg_neighbor_reduce_chunks_by_warp(const int* indices, const float* weights, int weighted,
                                                  const int* rows, const i64* first, const i64* last, int chunks, M map,
                                                  int monoid, double identity, double* out) {
    const int warps = gridDim.x * (blockDim.x / GG_WARP);
    for (int c = (blockIdx.x * blockDim.x + threadIdx.x) / GG_WARP; c < chunks; c += warps) {
        const int v = rows[c];
        double acc = identity;
        #pragma unroll 4
        for (i64 k = first[c] + gg_lane(); k < last[c]; k += GG_WARP)
            acc = gg_combine(monoid, acc, map(v, indices[k], gg_weight(weights, weighted, k)));
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1) acc = gg_combine(monoid, acc, __shfl_down_sync(GG_FULL_MASK, acc, d));
        if (gg_lane() == 0) gg_atomic_combine(monoid, out + v, acc);
    }
}

// PageRank's gather map (neighbor_reduce over the CSC): the source's contribution x[u] / outweight(u), times the arc's
// weight.
struct GGContribution {
    const double* contrib;
    __device__ __forceinline__ double operator()(int, int u, float w) const { return contrib[u] * (double)w; }
};

// The same map with MultiGraph's heavy source block kept on chip: the contributions of the first `hubs` sources (the
// most-read ones on the degree-renumbered graph) copied into shared memory once an iteration, the others read from
// global memory. One generic load either way (no branch around two load kinds). The gather is faster so
// than with every read from global memory (benchmarks/pagerank_gather.py, docs/performance.md#kernel-comments): a random 8-byte read costs a
// 32-byte L2 sector, and the hubs' reads were half of them.
struct GGContributionTable {
    const double* contrib;
    const double* table;  // shared memory: contrib[0 .. hubs)
    int hubs;
    __device__ __forceinline__ double operator()(int, int u, float w) const {
        const double* from = u < hubs ? table + u : contrib + u;
        return *from * (double)w;
    }
};

// A per-vertex vector that is either an array or one value for every vertex (PageRank's uniform teleport and dangling
// distributions: a scalar instead of a V-long array saves a 8V-byte read an iteration).
struct GGVector {
    const double* values;  // null: `value` everywhere
    double value;
    __device__ __forceinline__ double operator[](int v) const { return values ? values[v] : value; }
};

// PageRank's power-iteration update of v from its gathered sum: x[v] = alpha s + teleport[v] + (alpha mass) d[v] and
// its next contribution x[v] share (share = inv[v], 1 / outweight(v) or 0 where dangling); returns |change| and leaves
// the new rank in `next`. The launch-per-iteration loop (the POWER_APPLY functor: arrays) and the persistent power
// iteration (power.cuh: GGVector) both update with it.
template <class T, class D>
__device__ __forceinline__ double gg_power_update(int v, double alpha, double alpha_mass, double gathered,
                                                  T teleport, D d, double share, double* x, double* contrib,
                                                  double& next) {
    next = alpha * gathered + teleport[v];
    next += alpha_mass * d[v];
    const double change = fabs(next - x[v]);
    x[v] = next;
    contrib[v] = next * share;
    return change;
}

// vertex_reduce (Ligra's vertexMap with a reduction): f(v) for every vertex (or the `count` listed), which may update
// v's state, its results combined into out[0] (set to the identity beforehand): one atomic per block.
template <class F>
__device__ void gg_vertex_reduce(const int* vertices, int count, F f, int monoid, double identity, double* out) {
    double acc = identity;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        acc = gg_combine(monoid, acc, f(vertices ? vertices[i] : i));
    gg_block_combine(monoid, acc, out);
}

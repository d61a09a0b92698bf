// advance (push): expand the out-edges of a vertex queue, one load-balancing technique per function.
//
//   vertex_group<G>   node-based mapping: G lanes per vertex (1, 4, 16, 32); a warp loads 32 queue entries with one
//                     coalesced load and broadcasts each vertex's row by warp shuffle (Busato & Bombieri, Euro-Par).
//                     Supports: warp gathering (degree >= 32: the whole warp), block gathering (degree >= block size:
//                     the whole block).
//   twc               thread / warp / CTA bins by degree: Merrill's TWC = Slota's hierarchical expansion = SEP-Graph's
//                     CTA scheduling.
//   warp_scan         warp-level prefix sum of the 32 degrees, rows staged in shared memory, each lane takes every
//                     32nd edge and finds its row by binary search (Slota's local Manhattan loop collapse). Takes
//                     the gathering supports too: without them one warp would expand a hub's whole row.
//   merge_path        device-wide binary search: a prefix sum of frontier degrees (written with the queue by kernel C,
//                     or computed before the launch) partitions the frontier's edges into equal chunks per block; the
//                     block stages its chunk's rows in shared memory and each thread searches its edges' rows there
//                     (global Manhattan loop collapse; Busato & Bombieri kernels A-B).
//   three_stage       MultiGraphS: 64 vertices per 256-thread CTA; the last deg % 32 edges by virtual warps of 4
//                     lanes, the next (deg - deg%32) % 256 by warps (8 vertices each), the rest by the whole CTA.
//   segmented         MultiGraphS whole, for a vertex program (kernels/program.cuh gg_program_push_segmented): the
//                     targets of in-degree groups 1-4 accumulate in shared memory by segments, the rest three_stage.
//   block_scan        warp_scan one level up: a block-wide prefix sum of its vertices' degrees, each thread takes every
//                     blockDim-th edge of the block's rows and finds its row by binary search (Busato & Bombieri's
//                     scan-based and binary-search block mapping; Slota's local Manhattan collapse over a team).
//   hierarchical      Slota's hierarchical expansion: a block's vertices sorted into a team queue (degree >= blockDim:
//                     the whole block expands each), a warp queue (degree >= 32: a warp each) and the thread level
//                     (each thread its own row), block-local queues in shared memory, not twc's election loops.
//
// F is the functor: __device__ bool operator()(int u, int v, float w) const -- true when v is activated.
// L (vertex_group, twc, warp_scan, three_stage) prepares each loaded queue entry: __device__ int operator()(int u)
// returns u to expand it or -1 to skip it; the persistent kernel's fused rounds run compute() there. Every lane of a
// warp calls it (u = -1 past the end of the queue), so it may use warp-wide intrinsics.
// Every kernel body uses a grid-stride loop whose trip count is uniform within a block (block-wide barriers inside).
// T (vertex_group, twc, warp_scan, three_stage) names who shares that loop: GGGrid, or GGBlockTeam for one block
// working alone on a block-local queue (common.cuh).
#pragma once
#include "common.cuh"

#define GG_LAUNCHED_ROW_BLOCKS 1024  // dynamic parallelism: blocks of a launched row at most (a grid-stride loop)

#ifdef GG_DEVICE_LAUNCH
// Dynamic parallelism's child (Busato & Bombieri): one row's arcs [start, end) of vertex u, a thread an arc. It joins
// its parent: a grid is complete only when the grids it launched are, so the level's next launch sees its emissions.
template <class F>
__global__ void __launch_bounds__(GG_BLOCK) gg_launched_row(const int* indices, const float* weights, int weighted,
                                                             int u, i64 start, i64 end, F f, GGOut out) {
    for (i64 k = start + (i64)blockIdx.x * blockDim.x + threadIdx.x; k < end; k += (i64)gridDim.x * blockDim.x) {
        const int v = indices[k];
        gg_emit(out, f(u, v, gg_weight(weights, weighted, k)), v);
    }
}
#endif

// Supports (Busato & Bombieri): dynamic parallelism -- the thread holding a vertex of degree >= out.launch_degree
// launches a kernel that expands its row (a module compiled with GG_DEVICE_LAUNCH, -rdc=true; elsewhere a launch
// degree traps rather than run another technique); block gathering -- the whole block expands each vertex of degree
// >= blockDim, one at a time, the owner elected through shared memory; warp gathering -- the warp expands each vertex
// of degree >= 32, elected by ballot. Afterwards the caller's rows hold only the vertices of smaller degree (start ==
// end for the rest). Every thread of the block must call it (block-wide barriers inside).
template <class F>
__device__ __forceinline__ void gg_gather(const i64* offsets, const int* indices, const float* weights, int weighted,
                                          int u, i64& start, i64& end, F f, GGOut out, int supports) {
    __shared__ int s_owner;
    __shared__ int s_u;
    __shared__ i64 s_start, s_end;
    const int lane = gg_lane();
    if (out.launch_degree) {
#ifdef GG_DEVICE_LAUNCH
        if (end - start >= out.launch_degree) {
            const i64 blocks = min((end - start + GG_BLOCK - 1) / GG_BLOCK, (i64)GG_LAUNCHED_ROW_BLOCKS);
            // the block's implicit stream: the children of one block run one after another, and all of them end
            // before the parent grid does (its completion waits for them). A launch refused (the device runtime's
            // pending launches full: the host sizes them, runtime.pending_launches) leaves the row to the thread
            gg_launched_row<<<(unsigned)blocks, GG_BLOCK>>>(indices, weights, weighted, u, start, end, f, out);
            if (cudaGetLastError() == cudaSuccess) start = end;
        }
#else
        __trap();
#endif
    }
    if (supports & GG_BLOCK_GATHER) {  // block gathering: the block expands each vertex of degree >= blockDim
        while (true) {
            if (threadIdx.x == 0) s_owner = -1;
            __syncthreads();
            if (end - start >= (i64)blockDim.x) atomicCAS(&s_owner, -1, (int)threadIdx.x);
            __syncthreads();
            const int owner = s_owner;
            if (owner < 0) break;
            if ((int)threadIdx.x == owner) {
                s_u = u; s_start = start; s_end = end;
                start = end;
            }
            __syncthreads();
            const int bu = s_u;
            for (i64 k = s_start + threadIdx.x; k < s_end; k += blockDim.x) {
                const int v = indices[k];
                gg_emit(out, f(bu, v, gg_weight(weights, weighted, k)), v);
            }
            __syncthreads();
        }
    }
    if (supports & GG_WARP_GATHER) {  // warp gathering: the warp expands each vertex of degree >= 32
        u32 big;
        while ((big = __ballot_sync(GG_FULL_MASK, end - start >= GG_WARP)) != 0) {
            const int leader = __ffs(big) - 1;
            const int bu = __shfl_sync(GG_FULL_MASK, u, leader);
            const i64 bs = __shfl_sync(GG_FULL_MASK, start, leader);
            const i64 be = __shfl_sync(GG_FULL_MASK, end, leader);
            if (lane == leader) start = end;
            for (i64 k = bs + lane; k < be; k += GG_WARP) {
                const int v = indices[k];
                gg_emit(out, f(bu, v, gg_weight(weights, weighted, k)), v);
            }
        }
    }
}

// Duplicate removal after frontier load: each thread holds one queue entry u (-1: none) and drops it when another
// thread holding the same id wins. Warp level: __match_any_sync groups the lanes with equal ids, the lowest keeps it
// (exact within a warp). Block level: a shared hash table of 2 x blockDim slots; every thread writes its index at
// hash(u), reads the winner back and drops u when the winner holds the same id (collisions only let duplicates
// through, never drop a unique id). Every thread of the block must call it (barriers inside).
__device__ __forceinline__ int gg_dedup_loaded(int u, int supports) {
    if (supports & GG_DEDUP_WARP) {
        const u32 same = __match_any_sync(GG_FULL_MASK, u);
        if (u >= 0 && (__ffs(same) - 1) != gg_lane()) u = -1;
    }
    if (supports & GG_DEDUP_BLOCK) {
        __shared__ int s_slot[2 * GG_BLOCK];
        __shared__ int s_id[GG_BLOCK];
        const int h = u >= 0 ? (int)(((u32)u * 2654435761u) % (2u * blockDim.x)) : 0;
        s_id[threadIdx.x] = u;
        __syncthreads();
        if (u >= 0) s_slot[h] = threadIdx.x;
        __syncthreads();
        if (u >= 0) {
            const int winner = s_slot[h];
            if (winner != (int)threadIdx.x && s_id[winner] == u) u = -1;
        }
        __syncthreads();
    }
    return u;
}

struct GGKeep {  // the default preparation: expand every queue entry
    __device__ __forceinline__ int operator()(int u) const { return u; }
};

// Load queue entry idx (-1 past the end) for expansion: prepare it, drop it when the dedup technique finds it a
// duplicate, and read its row [start, end) (empty when there is no vertex). A hub (degree >= out.huge, when out has a
// hub queue) goes to the hub queue instead and is not expanded here. Every thread of the block calls it.
template <class L>
__device__ __forceinline__ int gg_load_entry(const i64* offsets, const int* queue, int qsize, int idx, int supports,
                                             L prepare, const GGOut& out, i64& start, i64& end) {
    int u = prepare(idx < qsize ? queue[idx] : -1);
    if (supports & (GG_DEDUP_WARP | GG_DEDUP_BLOCK)) u = gg_dedup_loaded(u, supports);
    start = u >= 0 ? offsets[u] : 0;
    end = u >= 0 ? offsets[u + 1] : 0;
    if (out.hubs) {
        const bool hub = end - start >= out.huge;
        gg_warp_append(hub, u, out.hubs, out.hub_count);
        if (hub) { u = -1; start = end = 0; }
    }
    return u;
}

template <int G, class F, class L = GGKeep, class T = GGGrid>
__device__ void gg_advance_vertex_group(const i64* offsets, const int* indices, const float* weights, int weighted,
                                        const int* queue, int qsize, F f, GGOut out, int supports, L prepare = L(),
                                        T team = T()) {
    const int lane = gg_lane();
    const int stride = T::blocks() * blockDim.x;
    for (int base = T::rank() * blockDim.x; base < qsize; base += stride) {
        i64 start, end;
        const int u = gg_load_entry(offsets, queue, qsize, base + T::slot(threadIdx.x), supports, prepare, out, start, end);
        gg_gather(offsets, indices, weights, weighted, u, start, end, f, out, supports);
        // G lanes per vertex: 32 / G vertices per round, G rounds cover the warp's 32 vertices
        #pragma unroll 1
        for (int r = 0; r < G; ++r) {
            const int src = r * (GG_WARP / G) + lane / G;
            const int bu = __shfl_sync(GG_FULL_MASK, u, src);
            const i64 bs = __shfl_sync(GG_FULL_MASK, start, src);
            const i64 be = __shfl_sync(GG_FULL_MASK, end, src);
            for (i64 k = bs + lane % G; k < be; k += G) {
                const int v = indices[k];
                gg_emit(out, f(bu, v, gg_weight(weights, weighted, k)), v);
            }
        }
    }
}

template <class F, class L = GGKeep, class T = GGGrid>
__device__ void gg_advance_twc(const i64* offsets, const int* indices, const float* weights, int weighted,
                               const int* queue, int qsize, F f, GGOut out, int dedup, L prepare = L(), T team = T()) {
    // CTA bin, warp bin, thread bin: the vertex_group<1> kernel with both gathering supports is exactly TWC.
    gg_advance_vertex_group<1, F, L, T>(offsets, indices, weights, weighted, queue, qsize, f, out,
                                        GG_WARP_GATHER | GG_BLOCK_GATHER | dedup, prepare, team);
}

// The scan-based balancers' first step (warp_scan, block_scan): load queue entry idx, expand it at once where a
// gathering support takes it (its row is then empty), and return the warp-inclusive prefix sum of the degrees left
// (Kogge-Stone by shuffles); u and degree are the thread's own.
template <class F, class L>
__device__ __forceinline__ i64 gg_scan_entry(const i64* offsets, const int* indices, const float* weights, int weighted,
                                             const int* queue, int qsize, int idx, F f, const GGOut& out, int supports,
                                             L prepare, int& u, i64& start, i64& degree) {
    i64 end;
    u = gg_load_entry(offsets, queue, qsize, idx, supports, prepare, out, start, end);
    if ((supports & (GG_WARP_GATHER | GG_BLOCK_GATHER)) || out.launch_degree)
        gg_gather(offsets, indices, weights, weighted, u, start, end, f, out, supports);
    degree = end - start;
    return gg_warp_inclusive_sum(degree);
}

// The row holding edge e of a scanned stretch: the last of its `rows` rows whose exclusive edge offset (s_excl, in
// shared memory) is <= e (a binary search; rows of degree 0 share their offset with the next row and are passed over).
__device__ __forceinline__ int gg_row_of_edge(const i64* s_excl, int rows, i64 e) {
    int lo = 0, hi = rows - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (s_excl[mid] <= e) lo = mid; else hi = mid - 1;
    }
    return lo;
}

template <class F, class L = GGKeep, class T = GGGrid>
__device__ void gg_advance_warp_scan(const i64* offsets, const int* indices, const float* weights, int weighted,
                                     const int* queue, int qsize, F f, GGOut out, int supports, L prepare = L(),
                                     T team = T()) {
    __shared__ int s_u[GG_BLOCK];
    __shared__ i64 s_start[GG_BLOCK];
    __shared__ i64 s_excl[GG_BLOCK];
    const int lane = gg_lane();
    const int wbase = threadIdx.x & ~31;
    const int stride = T::blocks() * blockDim.x;
    for (int base = T::rank() * blockDim.x; base < qsize; base += stride) {
        int u;
        i64 start, degree;
        const i64 incl = gg_scan_entry(offsets, indices, weights, weighted, queue, qsize, base + T::slot(threadIdx.x), f,
                                       out, supports, prepare, u, start, degree);
        const i64 total = __shfl_sync(GG_FULL_MASK, incl, 31);
        s_u[threadIdx.x] = u;
        s_start[threadIdx.x] = start;
        s_excl[threadIdx.x] = incl - degree;
        __syncwarp();
        for (i64 e = lane; e < total; e += GG_WARP) {
            const int lo = gg_row_of_edge(s_excl + wbase, GG_WARP, e);
            const i64 k = s_start[wbase + lo] + (e - s_excl[wbase + lo]);
            const int v = indices[k];
            gg_emit(out, f(s_u[wbase + lo], v, gg_weight(weights, weighted, k)), v);
        }
        __syncwarp();
    }
}

// merge_path (Busato & Bombieri's device-wide binary search): `scan` is the inclusive prefix sum of the queue's degrees
// (scan[qsize-1] = total edges; in the queue's own order where kernel C wrote it, common.cuh gg_emit_scanned). Block b
// takes edges [b * chunk, (b + 1) * chunk) of the frontier. Kernel A, the partition: the rows holding the block's
// first and last edge, by binary search in global memory. Kernel B, the expansion: the block stages those rows (vertex,
// where its edges start in `indices`, its exclusive prefix sum) in shared memory, and each thread finds the row of
// each of its edges there by binary search. The host sizes `chunk` by the paper's rule (operators.merge_path_chunk):
// the level's edges over the device's resident threads in whole blocks, at most GG_MERGE_PATH_ROWS, so that a chunk's
// rows fit in shared memory -- every row but a degree-0 one holds an edge of the chunk. A chunk whose degree-0 rows
// take it past GG_MERGE_PATH_ROWS rows searches the global prefix sum instead.
#define GG_MERGE_PATH_ROWS 1024
// The chunk by the same rule inside one launch (the persistent kernel: the level's edges known only on the device):
// over the grid's threads, which are its resident threads.
__device__ __forceinline__ i64 gg_merge_path_chunk(u64 edges) {
    const u64 threads = (u64)gridDim.x * blockDim.x;
    const u64 per_thread = edges > threads ? (edges + threads - 1) / threads : 1;
    return (i64)min(per_thread * blockDim.x, (u64)GG_MERGE_PATH_ROWS);
}
template <class F>
__device__ void gg_advance_merge_path(const i64* offsets, const int* indices, const float* weights, int weighted,
                                      const int* queue, int qsize, const i64* scan, i64 chunk, F f, GGOut out) {
    __shared__ int s_lo, s_hi;
    __shared__ int s_u[GG_MERGE_PATH_ROWS];
    __shared__ i64 s_excl[GG_MERGE_PATH_ROWS];  // the row's first edge among the frontier's
    __shared__ i64 s_base[GG_MERGE_PATH_ROWS];  // offsets[u] - s_excl: frontier edge e of the row is indices[s_base + e]
    if (qsize == 0) return;
    const i64 total = scan[qsize - 1];
    for (i64 first = (i64)blockIdx.x * chunk; first < total; first += (i64)gridDim.x * chunk) {
        const i64 last = first + chunk < total ? first + chunk : total;
        if (threadIdx.x == 0) {  // kernel A: partition -- the rows holding the block's first and last edge
            int lo = 0, hi = qsize - 1;
            while (lo < hi) { const int mid = (lo + hi) >> 1; if (scan[mid] > first) hi = mid; else lo = mid + 1; }
            s_lo = lo;
            int lo2 = lo, hi2 = qsize - 1;
            while (lo2 < hi2) { const int mid = (lo2 + hi2) >> 1; if (scan[mid] > last - 1) hi2 = mid; else lo2 = mid + 1; }
            s_hi = lo2;
        }
        __syncthreads();
        const int row_lo = s_lo, row_hi = s_hi;
        const int rows = row_hi - row_lo + 1;
        if (rows <= GG_MERGE_PATH_ROWS) {  // kernel B from shared memory
            for (int r = threadIdx.x; r < rows; r += blockDim.x) {
                const int row = row_lo + r;
                const int u = queue[row];
                const i64 excl = row > 0 ? scan[row - 1] : 0;
                s_u[r] = u;
                s_excl[r] = excl;
                s_base[r] = offsets[u] - excl;
            }
            __syncthreads();
            for (i64 e = first + threadIdx.x; e < last; e += blockDim.x) {
                const int r = gg_row_of_edge(s_excl, rows, e);
                const i64 k = s_base[r] + e;
                const int v = indices[k];
                gg_emit(out, f(s_u[r], v, gg_weight(weights, weighted, k)), v);
            }
        } else {  // more degree-0 rows than shared memory holds: the global prefix sum
            for (i64 e = first + threadIdx.x; e < last; e += blockDim.x) {
                int lo = row_lo, hi = row_hi;
                while (lo < hi) { const int mid = (lo + hi) >> 1; if (scan[mid] > e) hi = mid; else lo = mid + 1; }
                const int u = queue[lo];
                const i64 row_first = lo > 0 ? scan[lo - 1] : 0;
                const i64 k = offsets[u] + (e - row_first);
                const int v = indices[k];
                gg_emit(out, f(u, v, gg_weight(weights, weighted, k)), v);
            }
        }
        __syncthreads();
    }
}

// Which arcs of row u (from `start`) three_stage expands: all (GGWholeRow), or those past the targets of in-degree
// groups 1-4, where MultiGraphS's segment table says they begin (GGRowPastSegments: groups 5-6, once groups 1-4 went
// through shared memory; kernels/program.cuh gg_program_push_segmented).
struct GGWholeRow {
    __device__ __forceinline__ i64 operator()(int u, i64 start) const { return start; }
};
struct GGRowPastSegments {
    const int* starts;  // int32[V, segments + 1] (graph/layout.py shared_group_segments), null: no segments
    int segments;
    __device__ __forceinline__ i64 operator()(int u, i64 start) const {
        return starts && u >= 0 ? start + starts[(i64)u * (segments + 1) + segments] : start;
    }
};

template <class F, class L = GGKeep, class T = GGGrid, class R = GGWholeRow>
__device__ void gg_advance_three_stage(const i64* offsets, const int* indices, const float* weights, int weighted,
                                       const int* queue, int qsize, F f, GGOut out, L prepare = L(), T team = T(),
                                       R row = R()) {
    __shared__ int s_u[64];
    __shared__ i64 s_start[64];
    __shared__ i64 s_deg[64];
    const int lane = gg_lane();
    const int warp = threadIdx.x >> 5;
    for (int base = T::rank() * 64; base < qsize; base += T::blocks() * 64) {
        if (threadIdx.x < 64) {
            i64 start, end;  // no dedup here (its block barriers need every thread)
            s_u[threadIdx.x] = gg_load_entry(offsets, queue, qsize, base + threadIdx.x, 0, prepare, out, start, end);
            start = row(s_u[threadIdx.x], start);
            s_start[threadIdx.x] = start;
            s_deg[threadIdx.x] = end - start;
        }
        __syncthreads();
        {  // stage 1: the last deg % 32 edges of vertex j by the j-th virtual warp of 4 lanes
            const int j = threadIdx.x >> 2;
            const i64 tail = s_deg[j] % 32;
            const i64 from = s_start[j] + s_deg[j] - tail;
            for (i64 k = from + (threadIdx.x & 3); k < from + tail; k += 4) {
                const int v = indices[k];
                gg_emit(out, f(s_u[j], v, gg_weight(weights, weighted, k)), v);
            }
        }
        for (int j = warp * 8; j < warp * 8 + 8; ++j) {  // stage 2: (deg - deg%32) % 256 edges by warps
            const i64 head = s_deg[j] - s_deg[j] % 32;
            const i64 mid = head % 256;
            const i64 from = s_start[j] + head - mid;
            for (i64 k = from + lane; k < from + mid; k += GG_WARP) {
                const int v = indices[k];
                gg_emit(out, f(s_u[j], v, gg_weight(weights, weighted, k)), v);
            }
        }
        for (int j = 0; j < 64; ++j) {  // stage 3: the rest, a multiple of 256 edges, by the whole CTA
            const i64 head = s_deg[j] - s_deg[j] % 32;
            const i64 bulk = head - head % 256;
            const i64 from = s_start[j];
            for (i64 k = from + threadIdx.x; k < from + bulk; k += blockDim.x) {
                const int v = indices[k];
                gg_emit(out, f(s_u[j], v, gg_weight(weights, weighted, k)), v);
            }
        }
        __syncthreads();
    }
}

// block_scan (header notes). The block's vertices and their exclusive prefix sums sit in shared memory (a row's start
// is read again from the offsets: the persistent kernel instantiates each balancer at several call sites, each with
// its own shared arrays); the scan is a warp scan by shuffles, then a scan of the warps' totals by the first warp.
template <class F, class L = GGKeep, class T = GGGrid>
__device__ void gg_advance_block_scan(const i64* offsets, const int* indices, const float* weights, int weighted,
                                      const int* queue, int qsize, F f, GGOut out, int supports, L prepare = L(),
                                      T team = T()) {
    __shared__ int s_u[GG_BLOCK];
    __shared__ i64 s_excl[GG_BLOCK];
    __shared__ i64 s_warps[GG_BLOCK / GG_WARP];  // each warp's inclusive total, then their inclusive scan
    const int lane = gg_lane();
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    const int stride = T::blocks() * blockDim.x;
    for (int base = T::rank() * blockDim.x; base < qsize; base += stride) {
        int u;
        i64 start, degree;
        const i64 incl = gg_scan_entry(offsets, indices, weights, weighted, queue, qsize, base + T::slot(threadIdx.x), f,
                                       out, supports, prepare, u, start, degree);
        if (lane == GG_WARP - 1) s_warps[warp] = incl;
        __syncthreads();
        if (warp == 0) {
            const i64 t = gg_warp_inclusive_sum(lane < warps ? s_warps[lane] : 0);
            if (lane < warps) s_warps[lane] = t;
        }
        __syncthreads();
        s_u[threadIdx.x] = u;
        s_excl[threadIdx.x] = (warp > 0 ? s_warps[warp - 1] : 0) + incl - degree;
        const i64 total = s_warps[warps - 1];
        __syncthreads();
        for (i64 e = threadIdx.x; e < total; e += blockDim.x) {
            const int lo = gg_row_of_edge(s_excl, blockDim.x, e);
            const int w = s_u[lo];  // a row of positive degree: the last row whose offset <= e holds edge e
            const i64 k = offsets[w] + (e - s_excl[lo]);
            const int v = indices[k];
            gg_emit(out, f(w, v, gg_weight(weights, weighted, k)), v);
        }
        __syncthreads();
    }
}

// Slota's hierarchical expansion, one block-sized step: every thread of the block brings one vertex u (-1: none) and
// its row [start, end). A row of blockDim arcs or more goes to the block's TEAM queue, one of 32 or more to its WARP
// queue, both in shared memory holding vertex ids (their rows are read again from the offsets), and the thread expands
// a shorter row itself at once: row.thread(u, start, end). Then the whole block takes each team row in turn
// (row.team(w): every thread of the block calls it) and the warps share the warp rows (row.warp(w): every lane of
// the warp calls it). R says what a row's arcs do: an advance emits them (gg_advance_hierarchical), Brandes' device
// loop sums them (brandes.cuh GGHierarchicalExpansion). Every thread of the block calls it (block barriers inside).
struct GGHierarchicalQueues {
    int team[GG_BLOCK];
    int warp[GG_BLOCK];
    int sizes[2];  // team queue, warp queue
};
__device__ __forceinline__ GGHierarchicalQueues& gg_hierarchical_queues() {  // one copy for every R (a static of a
    __shared__ GGHierarchicalQueues q;                                        // non-template): no step nests in another
    return q;
}

template <class R>
__device__ __forceinline__ void gg_hierarchical_step(int u, i64 start, i64 end, R& row) {
    GGHierarchicalQueues& q = gg_hierarchical_queues();
    if (threadIdx.x < 2) q.sizes[threadIdx.x] = 0;
    __syncthreads();
    const i64 degree = end - start;
    if (u >= 0 && degree >= (i64)blockDim.x) {
        q.team[atomicAdd(&q.sizes[0], 1)] = u;
    } else if (u >= 0 && degree >= GG_WARP) {
        q.warp[atomicAdd(&q.sizes[1], 1)] = u;
    } else if (u >= 0) {
        row.thread(u, start, end);
    }
    __syncthreads();
    const int teams = q.sizes[0], warp_rows = q.sizes[1];
    for (int j = 0; j < teams; ++j) row.team(q.team[j]);
    for (int j = threadIdx.x >> 5; j < warp_rows; j += blockDim.x >> 5) row.warp(q.warp[j]);
    __syncthreads();  // the queues are the next step's
}

// An advance's rows in gg_hierarchical_step: each arc through f, emitted into out.
template <class F>
struct GGEmitRows {
    const i64* offsets;
    const int* indices;
    const float* weights;
    int weighted;
    F f;
    GGOut out;
    __device__ __forceinline__ void arcs(int u, i64 first, i64 end, int step) {
        for (i64 k = first; k < end; k += step) {
            const int v = indices[k];
            gg_emit(out, f(u, v, gg_weight(weights, weighted, k)), v);
        }
    }
    __device__ __forceinline__ void thread(int u, i64 start, i64 end) { arcs(u, start, end, 1); }
    __device__ __forceinline__ void team(int w) { arcs(w, offsets[w] + threadIdx.x, offsets[w + 1], blockDim.x); }
    __device__ __forceinline__ void warp(int w) { arcs(w, offsets[w] + gg_lane(), offsets[w + 1], GG_WARP); }
};

// hierarchical (header notes). `supports`: only the duplicate removal bits are used; the team and warp queues are
// the gathering.
template <class F, class L = GGKeep, class T = GGGrid>
__device__ void gg_advance_hierarchical(const i64* offsets, const int* indices, const float* weights, int weighted,
                                        const int* queue, int qsize, F f, GGOut out, int supports, L prepare = L(),
                                        T team = T()) {
    GGEmitRows<F> rows{offsets, indices, weights, weighted, f, out};
    const int stride = T::blocks() * blockDim.x;
    for (int base = T::rank() * blockDim.x; base < qsize; base += stride) {
        i64 start, end;
        const int u = gg_load_entry(offsets, queue, qsize, base + T::slot(threadIdx.x), supports & (GG_DEDUP_WARP | GG_DEDUP_BLOCK),
                                    prepare, out, start, end);
        gg_hierarchical_step(u, start, end, rows);
    }
}

// topology-driven push: every vertex whose mask bit is set expands (thread per vertex, warp gathering for big rows)
template <class F>
__device__ void gg_advance_mask(const i64* offsets, const int* indices, const float* weights, int weighted,
                                const unsigned char* active, int n, F f, GGOut out) {
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x; base < n; base += stride) {
        const int u = base + threadIdx.x;
        const bool on = u < n && active[u];
        i64 start = on ? offsets[u] : 0;
        i64 end = on ? offsets[u + 1] : 0;
        gg_gather(offsets, indices, weights, weighted, u, start, end, f, out, GG_WARP_GATHER);
        for (i64 k = start; k < end; ++k) {
            const int v = indices[k];
            gg_emit(out, f(u, v, gg_weight(weights, weighted, k)), v);
        }
    }
}

// Busato & Bombieri's two-phase queue, the contract phase: the expand phase (any balancer, with a functor that only
// records) wrote the frontier's edges as three arrays, sources[i] -> targets[i] of weight weights[i]; here one thread
// per edge looks its target up (the functor) and emits it, so every lookup thread has exactly one edge of work.
template <class F>
__device__ void gg_advance_edges(const int* targets, const float* weights, int weighted, const int* sources, int count,
                                 F f, GGOut out) {
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        const int v = targets[i];
        gg_emit(out, f(sources[i], v, gg_weight(weights, weighted, i)), v);
    }
}

// graphgear CUDA kernels: common types and warp-level building blocks.
// Compiled at run time by NVRTC (through cupy.RawModule) and by nvcc in CI; no standard headers, so both accept it.
#pragma once

typedef long long i64;
typedef unsigned long long u64;
typedef unsigned int u32;

#define GG_FULL_MASK 0xffffffffu
#define GG_WARP 32
#ifndef GG_BLOCK  // threads per block; a module may set its own (the power iteration's: 1024, kernels/power.cuh)
#define GG_BLOCK 256
#endif

// pull functor result bits (graphgear/operators.py)
#define GG_ACTIVATE 1
#define GG_STOP 2

#define GG_INF __longlong_as_double(0x7ff0000000000000LL)

// supports (Busato & Bombieri): cooperative expansion of high-degree vertices
#define GG_WARP_GATHER 1
#define GG_BLOCK_GATHER 2
// duplicate removal after frontier load (Busato & Bombieri): warp level or block level
#define GG_DEDUP_WARP 4
#define GG_DEDUP_BLOCK 8
// duplicate removal during lookup (Busato & Bombieri): the lanes of a warp that emit the same vertex emit it once
#define GG_DEDUP_LOOKUP 16

__device__ __forceinline__ int gg_lane() { return threadIdx.x & 31; }

// Warp-wide inclusive prefix sum (Kogge-Stone by shuffles); every lane of the warp calls it.
__device__ __forceinline__ i64 gg_warp_inclusive_sum(i64 x) {
    const int lane = gg_lane();
    #pragma unroll
    for (int d = 1; d < GG_WARP; d <<= 1) {
        const i64 y = __shfl_up_sync(GG_FULL_MASK, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// Who shares a load balancer's grid-stride loops: the whole grid (every launch), or one block alone (the persistent
// kernel's block-local hops, kernels/persistent.cuh). The balancers take it as a trailing argument. slot(t) is the
// queue entry (within a stretch of blockDim) that thread t loads: in order for the grid (coalesced loads); dealt
// round-robin to the warps for a block, whose queues are short (a few dozen entries): then every warp gets some, and a
// group of G lanes expands each, in one step where G covers the degree, instead of one warp taking them all in turns.
struct GGGrid {
    __device__ static __forceinline__ int blocks() { return gridDim.x; }
    __device__ static __forceinline__ int rank() { return blockIdx.x; }
    __device__ static __forceinline__ int slot(int t) { return t; }
};
struct GGBlockTeam {
    __device__ static __forceinline__ int blocks() { return 1; }
    __device__ static __forceinline__ int rank() { return 0; }
    __device__ static __forceinline__ int slot(int t) { return (t & 31) * (int)(blockDim.x >> 5) + (t >> 5); }
};

// Warp-aggregated append (SEP-Graph "warp appending", Busato "warp gathering" of outputs): the lanes that have an
// item ballot, the first of them reserves room for all with one atomicAdd, and each writes at its rank.
// gg_warp_slot is the reservation: the slot of each taking lane (meaningless for the others).
__device__ __forceinline__ u32 gg_warp_slot(bool take, u32* counter) {
    const u32 mask = __activemask();
    const u32 ballot = __ballot_sync(mask, take);
    if (ballot == 0) return 0;
    const int leader = __ffs(ballot) - 1;
    u32 base = 0;
    if (gg_lane() == leader) base = atomicAdd(counter, (u32)__popc(ballot));
    return __shfl_sync(mask, base, leader) + __popc(ballot & ((1u << gg_lane()) - 1u));
}

__device__ __forceinline__ void gg_warp_append(bool take, int value, int* queue, u32* counter) {
    const u32 slot = gg_warp_slot(take, counter);
    if (take) queue[slot] = value;
}

// The block-aggregated appends' shared step (gg_block_append_add, gg_block_append_scanned), thread 0's: each warp's
// takers and sum (count[w], sum[w], written by its lanes) become those of the warps before it; returns the block's.
__device__ __forceinline__ void gg_block_warp_offsets(u32* count, u64* sum, u32& taken, u64& total) {
    taken = 0;
    total = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        const u32 c = count[w];
        const u64 e = sum[w];
        count[w] = taken;
        sum[w] = total;
        taken += c;
        total += e;
    }
}

// Block-aggregated append and sum: one atomic per block on the queue's counter and one on *total, instead of one per
// warp, for a pass over a large queue whose body is short, where the atomics on those two words were the bound
// (the persistent kernel's compute phase). Every thread of the block calls it, with full warps.
__device__ __forceinline__ void gg_block_append_add(bool take, int value, int* queue, u32* counter, u64 count,
                                                    u64* total) {
    __shared__ u32 s_offset[GG_BLOCK / GG_WARP];
    __shared__ u64 s_sum[GG_BLOCK / GG_WARP];
    __shared__ u32 s_base;
    const u32 ballot = __ballot_sync(GG_FULL_MASK, take);
    const u32 low = __reduce_add_sync(GG_FULL_MASK, (u32)(count & 0xffff));
    const u32 high = __reduce_add_sync(GG_FULL_MASK, (u32)(count >> 16));
    const int warp = threadIdx.x >> 5;
    if (gg_lane() == 0) {
        s_offset[warp] = __popc(ballot);
        s_sum[warp] = (u64)low + ((u64)high << 16);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 taken;
        u64 sum;
        gg_block_warp_offsets(s_offset, s_sum, taken, sum);
        s_base = taken ? atomicAdd(counter, taken) : 0;
        if (sum) atomicAdd(total, sum);
    }
    __syncthreads();
    if (take) queue[s_base + s_offset[warp] + __popc(ballot & ((1u << gg_lane()) - 1u))] = value;
    __syncthreads();  // the shared words are reused by the next call
}

// Add every active lane's count (< 2^32, e.g. an out-degree) to *total with one atomic per warp. The 16-bit halves
// summed over 32 lanes fit in u32, so the warp sums with __reduce_add_sync instead of five shuffles.
__device__ __forceinline__ void gg_warp_add(u64 count, u64* total) {
    const u32 mask = __activemask();
    const u32 low = __reduce_add_sync(mask, (u32)(count & 0xffff));
    const u32 high = __reduce_add_sync(mask, (u32)(count >> 16));
    if (gg_lane() == __ffs(mask) - 1 && (low | high)) atomicAdd(total, (u64)low + ((u64)high << 16));
}

// Exact duplicate removal by test-and-set on a bitmap: true for the first thread that claims v.
__device__ __forceinline__ bool gg_claim_bit(u32* bits, int v) {
    u32 bit = 1u << (v & 31);
    if (bits[v >> 5] & bit) return false;
    return (atomicOr(&bits[v >> 5], bit) & bit) == 0;
}

__device__ __forceinline__ bool gg_test_bit(const u32* bits, int v) { return (bits[v >> 5] >> (v & 31)) & 1u; }

// Clear bit u (u < 0: none) with its own atomic. Where a warp's vertices rarely share a word (a push's unsorted
// worklist) this beats gg_warp_bit below, whose match only adds latency there (grid:2048:2048 BFS and colour
// propagation: docs/performance.md#kernel-comments).
__device__ __forceinline__ void gg_clear_bit(u32* bits, int u) {
    if (u >= 0) atomicAnd(&bits[u >> 5], ~(1u << (u & 31)));
}

// Set (or clear) bit u of `bits` with one atomic per distinct word in the warp: the lanes whose vertices share a word
// combine their bits first (__match_any_sync). A queue that a pull or a near-far refill wrote is nearly sorted, so a
// warp's 32 vertices fall in a few words: setting a bottom-up round's 968K sources one atomic each was a visible share of a
// kron:21 BFS (docs/performance.md#kernel-comments). u < 0: no bit. Every active lane of the warp calls it.
__device__ __forceinline__ void gg_warp_bit(int u, u32* bits, bool set) {
    const u32 mask = __activemask();
    const int word = u >= 0 ? u >> 5 : -1;
    const u32 peers = __match_any_sync(mask, word);
    const u32 all = __reduce_or_sync(peers, u >= 0 ? 1u << (u & 31) : 0u);
    if (word >= 0 && gg_lane() == __ffs(peers) - 1) {
        if (set) atomicOr(&bits[word], all);
        else atomicAnd(&bits[word], ~all);
    }
}

// Set / clear the bits of the `count` vertices listed (a queue into a bitmap and back; the same trip count for a
// whole block, so the warps stay full for gg_warp_bit).
__device__ __forceinline__ void gg_list_bits(const int* list, u32 count, u32* bits, bool set) {
    for (int base = blockIdx.x * blockDim.x; base < (int)count; base += gridDim.x * blockDim.x) {
        const int i = base + threadIdx.x;
        gg_warp_bit(i < (int)count ? list[i] : -1, bits, set);
    }
}

__device__ __forceinline__ void gg_set_bits(const int* list, u32 count, u32* bits) { gg_list_bits(list, count, bits, true); }
__device__ __forceinline__ void gg_clear_bits(const int* list, u32 count, u32* bits) { gg_list_bits(list, count, bits, false); }

// Double-precision atomic min/max; return true when the value changed. For value >= 0 (+inf included) one signed
// 64-bit atomicMin/atomicMax on the bit pattern is exact: non-negative doubles order like their bits, and every
// negative double's bits are negative as an int64, so they compare below. A hub receiving thousands of relaxations
// at once then costs one hardware atomic each instead of a compare-and-swap retry loop. Negative values take the loop.
__device__ __forceinline__ bool gg_atomic_min(double* address, double value) {
    if (value >= 0.0) {
        const i64 bits = __double_as_longlong(value);
        return bits < atomicMin((i64*)address, bits);
    }
    u64* p = (u64*)address;
    u64 old = *p;
    while (value < __longlong_as_double((i64)old)) {
        u64 prev = atomicCAS(p, old, (u64)__double_as_longlong(value));
        if (prev == old) return true;
        old = prev;
    }
    return false;
}

__device__ __forceinline__ bool gg_atomic_max(double* address, double value) {
    if (value >= 0.0) {
        const i64 bits = __double_as_longlong(value);
        return bits > atomicMax((i64*)address, bits);
    }
    u64* p = (u64*)address;
    u64 old = *p;
    while (value > __longlong_as_double((i64)old)) {
        u64 prev = atomicCAS(p, old, (u64)__double_as_longlong(value));
        if (prev == old) return true;
        old = prev;
    }
    return false;
}

// Where an advance puts the vertices its functor activates, and (sync advance with block gathering) the hubs it leaves
// to grid gathering.
struct GGOut {
    int* queue;       // next vertex queue (mode 0/1)
    u32* counter;     // its length
    u32* dedup_bits;  // claimed bits (mode 1: exact duplicate removal)
    unsigned char* mask;  // next frontier as a bool map (mode 2)
    int mode;         // 0: queue, 1: queue with atomic test-and-set dedup, 2: bool map
    int* hubs = nullptr;     // null, or the hub queue: loaded entries of degree >= huge go here, unexpanded, for a
    u32* hub_count = nullptr;  // second launch that expands them with teams of blocks (gg_grid_gather)
    i64 huge = 0;
    const i64* out_offsets = nullptr;  // null, or the CSR offsets: the out-degrees of the queued vertices are summed
    u64* edge_sum = nullptr;           // here (the next push's work, read with the queue's length: no second read)
    i64* scan = nullptr;       // null, or Busato & Bombieri's kernel C (gg_emit_scanned): the queue's degree prefix
                               // sum, written with it; *edge_sum then packs the queue's length and its out-edges
    int* spill = nullptr;      // mode 3: a block's local queue (queue, counter in shared memory) of `capacity`
    u32* spill_count = nullptr;  // entries; what does not fit goes to the global queue spill, claimed in dedup_bits
    u32 capacity = 0;
    int unique_in_warp = 0;    // mode 0: duplicate removal during lookup (GG_DEDUP_LOOKUP, gg_emit)
    i64 launch_degree = 0;     // > 0: Busato & Bombieri's dynamic parallelism, a row of at least this many arcs is
                               // expanded by a kernel its thread launches (advance.cuh gg_gather; a module compiled
                               // with GG_DEVICE_LAUNCH only)
};

// Busato & Bombieri's kernel C, the online unordered prefix sum: the emitting lanes of a warp claim their queue slots
// and their range of the next frontier's edges with ONE 64-bit atomicAdd on *out.edge_sum, which packs the queue's
// length (the bits from GG_SCAN_EDGE_BITS up) and its out-edge sum (the bits below). Each taker writes its vertex and
// the inclusive sum of the degrees up to it, so out.scan is the prefix sum of the queue's degrees in the queue's own
// (unordered) order: the next level's merge_path searches it as it is, with no scan and no host read of its total.
// The sum over the takers runs on the active lanes alone (a balancer's tail may call with part of a warp). The host
// uses this only where the graph's vertices and arcs fit the two fields (structs.fits_scan_counter).
#define GG_SCAN_EDGE_BITS 37
__device__ __forceinline__ void gg_emit_scanned(const GGOut& out, bool take, int v) {
    const u32 mask = __activemask();
    const u32 ballot = __ballot_sync(mask, take);
    if (ballot == 0) return;
    const int lane = gg_lane();
    const u64 degree = take ? (u64)(out.out_offsets[v + 1] - out.out_offsets[v]) : 0;
    u64 inclusive = 0, total = 0;
    for (u32 rest = ballot; rest; rest &= rest - 1) {  // the takers in lane order: popc(ballot) uniform shuffles
        const int from = __ffs(rest) - 1;
        const u64 d = __shfl_sync(mask, degree, from);
        total += d;
        if (from <= lane) inclusive += d;
    }
    const int leader = __ffs(ballot) - 1;
    u64 old = 0;
    if (lane == leader)
        old = atomicAdd((unsigned long long*)out.edge_sum, ((u64)__popc(ballot) << GG_SCAN_EDGE_BITS) | total);
    old = __shfl_sync(mask, old, leader);
    if (take) {
        const u64 slot = (old >> GG_SCAN_EDGE_BITS) + __popc(ballot & ((1u << lane) - 1u));
        out.queue[slot] = v;
        out.scan[slot] = (i64)((old & ((1ull << GG_SCAN_EDGE_BITS) - 1ull)) + inclusive);
    }
}

// gg_block_append_add for a queue that carries its degree prefix sum (merge_path's sender queue in the persistent
// kernel): ONE 64-bit atomicAdd a block on *packed claims the block's slots and its range of the queue's edges at once
// (kernel C's packing, as gg_emit_scanned's: the length from GG_SCAN_EDGE_BITS up, the edges below), and each taker
// writes its vertex and the inclusive sum of the queue's degrees up to it, in the queue's own (unordered) order.
// Every thread of the block calls it, with full warps.
__device__ __forceinline__ void gg_block_append_scanned(bool take, int value, u64 degree, int* queue, i64* scan,
                                                        u64* packed) {
    __shared__ u32 s_count[GG_BLOCK / GG_WARP];  // a warp's takers, then the takers of the warps before it
    __shared__ u64 s_edges[GG_BLOCK / GG_WARP];  // a warp's degrees, then the degrees of the warps before it
    __shared__ u64 s_base;
    const int lane = gg_lane();
    const int warp = threadIdx.x >> 5;
    const u32 ballot = __ballot_sync(GG_FULL_MASK, take);
    const u64 inclusive = (u64)gg_warp_inclusive_sum(take ? (i64)degree : 0);
    if (lane == GG_WARP - 1) {
        s_count[warp] = __popc(ballot);
        s_edges[warp] = inclusive;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 taken;
        u64 edges;
        gg_block_warp_offsets(s_count, s_edges, taken, edges);
        s_base = taken ? atomicAdd((unsigned long long*)packed, ((u64)taken << GG_SCAN_EDGE_BITS) | edges) : 0;
    }
    __syncthreads();
    if (take) {
        const u64 base = s_base;
        const u64 slot = (base >> GG_SCAN_EDGE_BITS) + s_count[warp] + __popc(ballot & ((1u << lane) - 1u));
        queue[slot] = value;
        scan[slot] = (i64)((base & ((1ull << GG_SCAN_EDGE_BITS) - 1ull)) + s_edges[warp] + inclusive);
    }
    __syncthreads();  // the shared words are reused by the next call
}

__device__ __forceinline__ void gg_emit(const GGOut& out, bool active, int v) {
    if (out.mode == 2) {
        if (active) out.mask[v] = 1;
        return;
    }
    if (out.mode == 3) {  // block-local queue (no duplicate removal: a vertex is queued once per improvement)
        const u32 slot = gg_warp_slot(active, out.counter);
        if (active && slot < out.capacity) out.queue[slot] = v;
        const bool spill = active && slot >= out.capacity;
        gg_warp_append(spill && gg_claim_bit(out.dedup_bits, v), v, out.spill, out.spill_count);
        return;
    }
    if (out.mode == 0 && out.unique_in_warp) {
        // Busato & Bombieri's duplicate removal during lookup, warp level: the emitting lanes that found the same
        // vertex in this step are grouped by __match_any_sync and the lowest emits it (an edge queue otherwise holds
        // it once per activating edge; exact within the step, no atomics, no bitmap to clear)
        const u32 same = __match_any_sync(__activemask(), active ? v : -1);
        if (active && (__ffs(same) - 1) != gg_lane()) active = false;
    }
    bool take = active && (out.mode == 0 || gg_claim_bit(out.dedup_bits, v));
    if (out.scan) {
        gg_emit_scanned(out, take, v);
        return;
    }
    gg_warp_append(take, v, out.queue, out.counter);
    if (out.edge_sum) gg_warp_add(take ? (u64)(out.out_offsets[v + 1] - out.out_offsets[v]) : 0, out.edge_sum);
}

__device__ __forceinline__ float gg_weight(const float* weights, int weighted, i64 k) { return weighted ? weights[k] : 1.0f; }

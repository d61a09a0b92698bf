// Persistent traversal kernel: a vertex program's rounds inside ONE launch, separated by grid barriers (far cheaper
// than a launch or a host read-back: docs/performance.md#kernel-comments). This is graphgear's sync="async" on the
// GPU and the device half of SEP-Graph's Algorithm 2: the push/pull switch is decided on the device each round from
// counters every block reads after the barrier, with the same rules as engine/controller.py TraversalController
// (including its "stay pull while the active set grows").
//
// Round r (worklist Q of qsize vertices):
//   A  compute() on Q; the vertices that send go to the sender queue S (block-aggregated appends) and their out-degrees
//      are summed (outDegree(A)); the claim bits of Q's entries are cleared for this round's output (when a push, a
//      bucket refill or heavy rows wrote Q; a pull's output holds none). A sender of
//      degree >= huge goes to the supplementary queue H instead, which teams of blocks expand, several rows at once (gg_grid_gather)
//      (grid gathering: block gathering one level up; Busato & Bombieri's supplementary queue).
//   -- grid barrier; every thread reads |S| and outDegree(S) and takes the same push/pull decision
//   B  push: S's out-edges through the chosen advance load balancer, exact duplicate removal by claim bits -> Q'
//      pull: S into the active-source bitmap, -- barrier --, every unsettled vertex scans its in-edges (early exit
//            for first-wins programs) -> Q'
//   -- grid barrier; Q <- Q'
// A fixed push of a min/max/or program fuses A into B (gg_fused_rounds below): one barrier per round.
// Topology drive (SEP-Graph's async TD, `topology`): A computes every vertex, not Q; the rounds go on while a round
// changes a vertex (Q' non-empty), all in the launch (the host drove TD as sync rounds, one launch and read each).
//
// Near-far (Davidson et al., IPDPS'14; SEP-Graph's priority scheduling for SSSP), when delta > 0: a worklist vertex
// whose buffer is at or beyond the threshold T is not computed but deferred to the far pile (once: a far bit per
// vertex). When the worklist runs dry, T moves to the bucket of the smallest live far buffer (a grid-wide min) and
// the far pile splits into the new worklist and the rest; stale entries (computed since) are dropped. Every bucket
// runs in the same launch: two grid barriers per bucket change.
// With the light/heavy split (Meyer & Sanders; the non-fused rounds only) the rounds push the light arcs (< delta)
// of their senders, which are also listed for the bucket; when the worklist runs dry, the listed senders' heavy arcs
// (>= delta, so their targets land at or beyond the threshold) are expanded once, before the bucket changes. A vertex
// improved several times inside a bucket sends its heavy arcs once, not at every improvement.
// Block 0 logs each round (|Q|, |S|, outDegree(S), direction, %globaltimer) for the host's trace.
//
// Co-residency: the host launches at most (blocks resident per SM) x (SMs) blocks; grid.cuh's barrier gives up after
// GG_BARRIER_TIMEOUT_NS and raises the abort flag, so a launch that cannot be co-resident fails instead of hanging.
#pragma once
#include "advance.cuh"
#include "pull.cuh"
#include "program.cuh"
#include "grid.cuh"
#define GG_LOG_FIELDS 5
// the int64 control words (backend.CONTROL_WORDS): where the barrier's two words and the status's first two sit
#define GG_CONTROL_WORDS 19
#define GG_BARRIER_WORD 8
#define GG_STATUS_WORD 9
#define GG_DIR_PUSH 0
#define GG_DIR_PULL 1
#define GG_DIR_LIGHT_PULL 2  // the light/heavy split's pull of every light arc (the log's edges: the light arcs)

__device__ __forceinline__ u32 gg_load(const u32* p) { return *(volatile const u32*)p; }
__device__ __forceinline__ u64 gg_load(const u64* p) { return *(volatile const u64*)p; }

// Everything the persistent kernel keeps besides the program's arrays (allocated once per graph by the backend).
// Part of the kernel's one argument (GGPersistentArgs.st), so every field is 8 bytes (a pointer, i64, u64 or
// double; arrays of pointers), one to a line: the host packs it as read from this file (sources.struct_fields).
struct GGPersistentState {
    int* queue[2];      // Q and Q', swapped each round
    int* senders[2];    // S by round parity (the previous round's S clears its active bits)
    int* huge[2];       // H by round parity
    u32* counters;      // 3 slots x 3: |S|, |Q'|, |H|   (slot r % 3; slot (r + 1) % 3 is reset in round r)
    u64* edges;         // 3 slots: outDegree(S)
    u32* claim_bits;    // exact duplicate removal of Q' (fused rounds: two bitmaps of `words` words, by parity)
    i64 words;          // words of a bitmap over the vertices: (n + 31) / 32 + 1
    u32* active_bits;   // S as a bitmap for pull
    u32* barrier;       // 2 words
    int* status;        // [0] abort, [1] rounds run, [2] final |Q|, [3] index of the queue holding Q
    i64* log;           // GG_LOG_FIELDS per round, log_rows rounds at most (later rounds are counted, not logged)
    i64 log_rows;
    double delta;       // near-far bucket width (0: off)
    int* far[2];        // the far pile and the next one
    u32* far_bits;      // in the far pile already
    u32* far_n;         // [2] pile sizes
    u32* refill_n;      // [2] worklist refills, by bucket-change parity
    u64* min_key;       // ~bits of the smallest live far buffer (atomicMax; 0: none)
    u32* visited;       // bitmask lookup of first-wins programs (null: status lookup)
    i64 supplementary;  // H's vertices of this degree and more go to the supplementary queues' bins (0: none)
    // Meyer & Sanders' light/heavy split (null heavy_offsets: off). The rounds push over the light CSR (the arrays
    // the kernel gets as offsets/indices/weights: arcs lighter than delta); the bucket's senders are listed, and
    // when the bucket is done their heavy rows (arcs of at least delta) are expanded once, with final values
    const i64* heavy_offsets;
    const int* heavy_indices;
    const float* heavy_weights;
    int* bucket[2];     // the bucket's senders by heavy degree: [0] below huge, [1] from huge (grid gathering)
    u32* bucket_bits;   // listed in bucket[] already
    u32* bucket_n;      // [2 * part + 0/1] the lists' sizes, by part (flips at each heavy expansion); [4 + part] its output's size
    u64* heavy_edges;   // [0] heavy arcs listed (pushed) or pulled in all, [1] arcs of the rows a pull skipped: the
                        // trace's count is [0] - [1], the pull and tail rules count [0]
    // the heavy arcs as an in-arc CSC, and from how many heavy arcs of its senders a bucket's heavy rows are pulled
    // over it instead of pushed (gg_heavy_rows; null heavy_t_offsets: always pushed)
    const i64* heavy_t_offsets;
    const int* heavy_t_indices;
    const float* heavy_t_weights;
    u64 heavy_pull;
    const int* heavy_chunk_rows;   // the CSC's rows of >= GG_HEAVY_CHUNK arcs in chunks of that many: row, first, end
    const i64* heavy_chunk_first;
    const i64* heavy_chunk_last;
    u64 heavy_chunks;
    i64 widen_max;      // near-far: bucket widths up to delta * 2^widen_max (gg_next_bucket; 0: always delta)
    // the light arcs as an in-arc CSC, and from how many light arcs of its senders a round pulls them over it instead
    // of pushing them (SEP-Graph's direction choice for the light rounds; null light_t_offsets: always pushed)
    const i64* light_t_offsets;
    const int* light_t_indices;
    const float* light_t_weights;
    u64 light_pull;
    const int* light_chunk_rows;   // as heavy_chunk_*, for the light CSC
    const i64* light_chunk_first;
    const i64* light_chunk_last;
    u64 light_chunks;
    // merge_path's sender queue carries its degree prefix sum, written as phase A appends (gg_block_append_scanned;
    // its length and edges packed in the round's edge word), which the push searches (gg_advance_merge_path); null
    // for the other balancers
    i64* scan;
    // kernel C's second optimisation (merge_path): senders of out-degree <= leaf_degree are left out of S, they never
    // add to the next frontier: 0 drops the vertices without out-arcs; 1 (an undirected graph and a program whose
    // message sent back over the arc it came by cannot improve the sender: VertexProgram.silent_leaves) also the
    // leaves, after a launch's first round (its first worklist may hold sources, whose value came by no arc); -1 none
    i64 leaf_degree;
    // two bitmaps of `words` words by round parity: the next round's senders as a first-wins pull computed them
    // (GGComputeInPull), each word stored whole by one warp, never cleared (last: the advance kernels' positional
    // initializers stop before it)
    u32* pulled_bits;
};

// The persistent traversal kernel's arguments, passed by value as ONE struct: CuPy's host time on a launch of 64
// separate arguments is many times one struct's (docs/performance.md#kernel-comments), time the GPU idles before a BFS starts.
// Every field is 8 bytes (GGPersistentState's too), one to a line: the host reads this struct from this file
// (sources.struct_fields) and packs the fields in this order; tests/cuda/test_cuda_sources.py checks each field's offset
// with nvcc. `const __grid_constant__` keeps it in the parameter space, never copied per thread.
struct GGPersistentArgs {
    // the graph: the push CSR (light arcs only under the light/heavy split) and the pull CSC
    const i64* offsets;
    const int* indices;
    const float* weights;
    i64 weighted;
    const i64* t_offsets;
    const int* t_indices;
    const float* t_weights;
    const int* t_first;  // the CSC's first column, a first-wins pull's first test (hubs_first_column; null: none)
    i64 n;
    i64 pulled;  // a pull round's candidates: vertices 0..pulled-1 (past the last vertex with in-arcs none can pull)
    // the program state (its visited bitmap: st.visited)
    double* value;
    double* buffer;
    double* message;
    const double* params;
    i64 monoid;
    i64 first_wins;
    i64 skip_settled;
    // the start, done by the prologue (gg_persistent_prologue)
    const void* vertices;  // the first worklist (null: [source])
    i64 wide;              // its ids are int64 (else int32)
    i64 qsize;
    i64 source;            // >= 0: values inf, buffers inf but 0 at the source (a single-source start); -1: as they are
    i64 fill_message;      // fill the messages with message_fill
    double message_fill;
    i64 clear_words;       // words of st.visited to clear (a bitmap newly taken by this state)
    // the rounds
    i64 supports;
    i64 huge;
    i64 max_rounds;
    i64 mode;
    double alpha;
    double beta;
    double unexplored;
    i64 fused;
    i64 hops;
    i64 topology;  // SEP-Graph's topology drive: every vertex computes each round, not only the worklist's
    double threshold;
    // the buffers of the graph (backend.PersistentBuffers): the control words, then the state the rounds keep
    i64* control;
    GGPersistentState st;
};

// The launch's start, before its first grid barrier: what two launches did before it (a single-source start's
// values and buffers; the first worklist, the cleared control words and the message fill), host time before a BFS's
// kernel (docs/performance.md#kernel-comments). The control words are cleared but the barrier's (GG_BARRIER_WORD: every
// launch that does not abort leaves 0 arrivals, and one that aborts drops the buffers) and the abort flag's
// (GG_STATUS_WORD), which the blocks already waiting at the barrier read. Returns false after an abort.
__device__ __forceinline__ bool gg_persistent_prologue(const GGPersistentArgs& a) {
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const i64 first = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    for (i64 i = first; i < GG_CONTROL_WORDS; i += stride)
        if (i != GG_BARRIER_WORD && i != GG_STATUS_WORD) a.control[i] = 0;
    for (i64 i = first; i < a.qsize; i += stride)
        a.st.queue[0][i] = !a.vertices ? (int)a.source
                       : a.wide ? (int)((const i64*)a.vertices)[i] : ((const int*)a.vertices)[i];
    for (i64 i = first; i < a.clear_words; i += stride) a.st.visited[i] = 0;
    if (a.fill_message)
        for (i64 i = first; i < a.n; i += stride) a.message[i] = a.message_fill;
    if (a.source >= 0)
        for (i64 i = first; i < a.n; i += stride) {
            a.value[i] = GG_INF;
            a.buffer[i] = i == a.source ? 0.0 : GG_INF;
        }
    return gg_grid_sync(a.st.barrier, a.st.status);
}

// The end of a persistent launch: unclaim the worklist that max_rounds left (its claim bits in `claimed`), report
// the rounds run, its size and which queue holds it, and stamp the end time after the last logged round.
__device__ void gg_end_launch(const GGPersistentState& st, u32* claimed, int r, int qsize, int in) {
    if (claimed) gg_clear_bits(st.queue[in], (u32)qsize, claimed);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        volatile int* status = st.status;
        status[1] = r;
        status[2] = qsize;
        status[3] = in;
        st.log[(i64)(r < st.log_rows ? r : st.log_rows) * GG_LOG_FIELDS + 4] = (i64)gg_globaltimer();
    }
}

// Round r's prologue: block 0 clears the counters and edge sum of slot (r + 1) % 3 for the next round. No block reads
// that slot in round r: slot r % 3 is this round's, and slot (r - 1) % 3 may still be read by a block leaving round
// r - 1 (three slots, so nobody clears a slot that is being read).
__device__ __forceinline__ void gg_reset_next_slot(const GGPersistentState& st, int r) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const int next = (r + 1) % 3;
        st.counters[3 * next] = 0;
        st.counters[3 * next + 1] = 0;
        st.counters[3 * next + 2] = 0;
        st.edges[next] = 0;
    }
}

// Defer u to the far pile when its buffer is at or beyond the threshold; every lane of the warp calls it.
__device__ __forceinline__ bool gg_defer(const GGPersistentState& st, int pile, double threshold, int u,
                                         const double* buffer) {
    const bool deferred = st.delta > 0.0 && u >= 0 && buffer[u] >= threshold;
    const bool append = deferred && gg_claim_bit(st.far_bits, u);
    gg_warp_append(append, u, st.far[pile], &st.far_n[pile]);
    return deferred;
}

// The worklist ran dry: move T to the smallest live far buffer's bucket and split the pile into the worklist Q
// (claimed in `claim`) and the next pile. Returns false when the pile is empty (the traversal is done).
// Bucket widths adapt (widen_max > 0; the host allows it on low-diameter graphs): the new bucket runs from the
// smallest live buffer's Delta-boundary for delta * 2^widen, and widen grows by one after a refill too small to fill
// the grid (fewer entries than threads) and shrinks after one four times the threads. Past its big bucket a kron
// graph's near-far has dozens of buckets of a few thousand vertices, each a pass over a far pile of up to a million
// entries plus grid barriers (most of kron:21:w's rounds: docs/performance.md#kernel-comments); wider buckets take
// them a few at a time, and past half the heavy arcs (`tail`, the caller's rule) the widest width at once. Any
// increasing threshold gives the same distances (label-correcting: a vertex improved after its bucket is queued
// again), only the work differs.
__device__ bool gg_next_bucket(GGPersistentState& st, int& pile, int& changes, double& threshold, double& low,
                               const double* value, const double* buffer, int* Q, u32* claim, int& qsize,
                               volatile int* status, int& widen, bool tail = false) {
    const u32 nf = gg_load(&st.far_n[pile]);
    if (st.delta <= 0.0 || nf == 0) return false;
    const int* F = st.far[pile];
    const int stride = gridDim.x * blockDim.x;
    u64 smallest = 0;  // ~bits of the smallest live buffer this thread saw; one atomic per warp (a pile of a
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (int)nf; i += stride) {  // million made a million on one word)
        const int u = F[i];
        const double b = buffer[u];
        if (b < value[u]) smallest = max(smallest, ~(u64)__double_as_longlong(b));
    }
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1) smallest = max(smallest, (u64)__shfl_xor_sync(GG_FULL_MASK, smallest, d));
    if (gg_lane() == 0 && smallest) atomicMax((unsigned long long*)st.min_key, (unsigned long long)smallest);
    if (!gg_grid_sync(st.barrier, status)) return false;
    const u64 key = gg_load(st.min_key);
    if (tail) widen = (int)st.widen_max;
    double t = threshold;
    if (key) {
        low = __longlong_as_double((i64)~key);  // the smallest live buffer: every vertex left to relax holds at least it
        t = floor(low / st.delta) * st.delta + ldexp(st.delta, widen);
        if (!(t > low)) t = low + ldexp(st.delta, widen);  // rounding put the bound on low: it must move (host: near_far)
    }
    const int other = pile ^ 1;
    u32* refill = &st.refill_n[changes & 1];
    for (int base = blockIdx.x * blockDim.x; base < (int)nf; base += stride) {
        const int i = base + threadIdx.x;
        const int u = i < (int)nf ? F[i] : -1;
        bool live = false, now = false;
        if (u >= 0) {
            const double b = buffer[u];
            live = b < value[u];
            now = live && b < t;
        }
        gg_warp_bit(!live || now ? u : -1, st.far_bits, false);
        gg_warp_bit(now ? u : -1, claim, true);
        gg_warp_append(now, u, Q, refill);
        gg_warp_append(live && !now, u, st.far[other], &st.far_n[other]);
    }
    if (!gg_grid_sync(st.barrier, status)) return false;
    qsize = (int)gg_load(refill);
    const int threads = gridDim.x * blockDim.x;  // every thread reads the same qsize: the same width everywhere
    if (qsize < threads && widen < st.widen_max) ++widen;
    else if (qsize > 4 * threads && widen > 0) --widen;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        st.far_n[pile] = 0;
        *st.min_key = 0;
        st.refill_n[(changes + 1) & 1] = 0;
    }
    pile = other;
    ++changes;
    threshold = t;
    return true;
}

// Grid gathering of the huge senders H: the grid splits into teams of gridDim / |H| blocks (at least one), each team
// expands one huge row at a time with all its threads, and the teams work on different rows at once. (Walking the
// rows one after another with the whole grid left most threads idle and paid a row's latency |H| times.) Rows of
// `below` arcs and more are left to the supplementary queues (gg_supplementary_bins).
template <class F>
__device__ void gg_grid_gather(const i64* offsets, const int* indices, const float* weights, int weighted,
                               const int* H, u32 nh, F f, GGOut out, i64 below = 0) {
    if (nh == 0) return;
    const int per_team = gridDim.x > nh ? (int)(gridDim.x / nh) : 1;
    const int teams = gridDim.x / per_team;
    const int team = blockIdx.x / per_team;
    if (team >= teams) return;  // the blocks left over when |H| does not divide the grid
    const int team_threads = per_team * blockDim.x;
    const int rank = (blockIdx.x % per_team) * blockDim.x + threadIdx.x;
    for (u32 h = team; h < nh; h += teams) {
        const int u = H[h];
        const i64 end = offsets[u + 1];
        if (below > 0 && end - offsets[u] >= below) continue;  // the same for the whole team
        for (i64 k = offsets[u] + rank; k < end; k += team_threads) {
            const int v = indices[k];
            gg_emit(out, f(u, v, gg_weight(weights, weighted, k)), v);
        }
    }
}

// Busato & Bombieri's supplementary queues: a vertex of H with at least `from` arcs falls in the bin [2^b, 2^(b+1))
// of its degree and gets the bin's lower bound of threads, 2^b (at most the grid's: the last bin's bound), so each
// thread reads at most two of its arcs, one thread apart; the bins share one launch (the paper's single kernel,
// each bin with its own threads per element). Every block walks H in the same chunks of blockDim entries: their
// threads' prefix sum in shared memory, then a grid-stride over the chunk's threads, each finding its vertex by
// binary search. No host read: |H| is read on the device.
template <class F>
__device__ void gg_supplementary_bins(const i64* offsets, const int* indices, const float* weights, int weighted,
                                      const int* H, u32 nh, i64 from, F f, GGOut out) {
    __shared__ i64 s_first[GG_BLOCK + 1];  // the chunk's entries' first thread (exclusive prefix sum), then the total
    __shared__ i64 s_warp[GG_BLOCK / GG_WARP];
    const int lane = gg_lane();
    const int warp = threadIdx.x >> 5;
    const i64 grid = (i64)gridDim.x * blockDim.x;
    const i64 rank = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    for (u32 base = 0; base < nh; base += blockDim.x) {  // the same trip count in every block
        const u32 i = base + threadIdx.x;
        const int u = i < nh ? H[i] : -1;
        const i64 d = u >= 0 ? offsets[u + 1] - offsets[u] : 0;
        const i64 threads = d >= from && d > 0 ? min((i64)1 << (63 - __clzll((unsigned long long)d)), grid) : 0;
        i64 incl = gg_warp_inclusive_sum(threads);  // block-wide inclusive scan: the warp's, then the warps' totals
        if (lane == GG_WARP - 1) s_warp[warp] = incl;
        __syncthreads();
        if (threadIdx.x == 0)
            for (int w = 1; w < (int)(blockDim.x >> 5); ++w) s_warp[w] += s_warp[w - 1];
        __syncthreads();
        if (warp > 0) incl += s_warp[warp - 1];
        s_first[threadIdx.x] = incl - threads;
        if (threadIdx.x == blockDim.x - 1) s_first[blockDim.x] = incl;
        __syncthreads();
        const i64 total = s_first[blockDim.x];
        const int last = min((int)blockDim.x, (int)(nh - base)) - 1;
        for (i64 t = rank; t < total; t += grid) {
            int lo = 0, hi = last;  // the last entry whose first thread is at or before t (zero-thread entries skipped)
            while (lo < hi) {
                const int mid = (lo + hi + 1) >> 1;
                if (s_first[mid] <= t) lo = mid; else hi = mid - 1;
            }
            const int x = H[base + lo];
            const i64 width = s_first[lo + 1] - s_first[lo];
            const i64 end = offsets[x + 1];
            for (i64 k = offsets[x] + (t - s_first[lo]); k < end; k += width) {
                const int v = indices[k];
                gg_emit(out, f(x, v, gg_weight(weights, weighted, k)), v);
            }
        }
        __syncthreads();  // s_first and s_warp are written again for the next chunk
    }
}

// The hub queue H of a push: its vertices of `supplementary` arcs and more in the supplementary queues' bins (0:
// none), the others by grid gathering.
template <class F>
__device__ __forceinline__ void gg_expand_hubs(const i64* offsets, const int* indices, const float* weights,
                                               int weighted, const int* H, u32 nh, i64 supplementary, F f, GGOut out) {
    if (supplementary > 0) gg_supplementary_bins(offsets, indices, weights, weighted, H, nh, supplementary, f, out);
    gg_grid_gather(offsets, indices, weights, weighted, H, nh, f, out, supplementary);
}

// Expand a worklist with the whole grid: a big one grid-stride (coalesced loads), a small one (fewer entries than the
// grid has threads) in even shares, one per block. A grid-stride share gave a small worklist, and every heavy row in
// it, to the first few blocks: near-far on kron:21:w lost time that way (docs/performance.md#kernel-comments).
template <class Expand, class F, class L>
__device__ __forceinline__ void gg_expand_shares(const i64* offsets, const int* indices, const float* weights,
                                                 int weighted, const int* queue, int qsize, F f, GGOut out,
                                                 int supports, L prepare) {
    if (qsize >= (int)(gridDim.x * blockDim.x)) {
        Expand::run(offsets, indices, weights, weighted, queue, qsize, f, out, supports, prepare, GGGrid{});
        return;
    }
    const int share = (qsize + gridDim.x - 1) / gridDim.x;
    const int first = min(qsize, (int)blockIdx.x * share);
    Expand::run(offsets, indices, weights, weighted, queue + first, min(share, qsize - first), f, out, supports, prepare,
                GGBlockTeam{});
}

// A round's push: the senders' out-arcs through f into out, the huge senders H by grid gathering or the supplementary
// queues (gg_expand_hubs), the others S with the chosen load balancer (gg_expand_shares).
template <class Expand, class F>
__device__ __forceinline__ void gg_push_senders(const i64* offsets, const int* indices, const float* weights,
                                                int weighted, const int* S, u32 ns, const int* H, u32 nh, F f,
                                                GGOut out, int supports, i64 supplementary) {
    gg_expand_hubs(offsets, indices, weights, weighted, H, nh, supplementary, f, out);
    gg_expand_shares<Expand>(offsets, indices, weights, weighted, S, (int)ns, f, out, supports, GGKeep{});
}

// List a sender of the bucket for its heavy rows (once: a bucket bit per vertex); every lane of the warp calls it.
__device__ __forceinline__ void gg_bucket_append(const GGPersistentState& st, int part, bool send, int u, i64 huge) {
    const i64 heavy = send ? st.heavy_offsets[u + 1] - st.heavy_offsets[u] : 0;
    const bool take = heavy > 0 && gg_claim_bit(st.bucket_bits, u);
    const bool big = take && heavy >= huge;
    gg_warp_append(take && !big, u, st.bucket[0], &st.bucket_n[2 * part]);
    gg_warp_append(big, u, st.bucket[1], &st.bucket_n[2 * part + 1]);
    gg_warp_add(take ? (u64)heavy : 0, st.heavy_edges);
}

// A pull of one half of the light/heavy split (the heavy rows of a bucket, or a light round): every vertex's in-arcs
// of that half reduced through r (pull.cuh gg_reduce_row: the best candidate kept in the vertex's buffer once per row
// or chunk); a vertex that improved goes to `out`. Every source is read, not only the round's or the bucket's
// senders: a message is inf (the launch fills them) or a distance its vertex computed, so every in-arc offers the
// length of a real path, and a label-correcting pass may take it early; testing the sources' bucket bits made the
// heavy pull half as long again (docs/performance.md#near-far-sssp). Rows shorter than GG_SPLIT_CHUNK_FROM arcs: a
// thread each, or their warp for rows of 32 and more (gg_reduce_warp_gathered); the longer rows in chunks of
// GG_HEAVY_CHUNK arcs, a warp each (the host's hub_chunks), so that no warp is left with a run of long rows while the
// others idle.
// The destination test (`settled`): a row whose vertex's buffer is at or below `settled` is not read, since no
// candidate of this half can be below it (the heavy rows: every source not yet relaxed holds at least the bucket's
// low, and a heavy arc weighs at least delta). Kron's big bucket is the first: after its light rounds the vertices
// within delta of the source are exact, and they hold most heavy in-arcs (kron:21:w: 55M of 59M heavy arcs lead
// into them; docs/performance.md#near-far-sssp). A warp tests 32 of its chunks at once, then reads the live ones.
// The arcs of the rows skipped are added to *skipped (null: no test).
#ifndef GG_HEAVY_CHUNK  // the host's sources.HEAVY_CHUNK and SPLIT_CHUNK_FROM, which cut the chunks
#define GG_HEAVY_CHUNK 128
#endif
#ifndef GG_SPLIT_CHUNK_FROM
#define GG_SPLIT_CHUNK_FROM 32
#endif
struct GGShortRow {  // a row left to its thread or warp, unless its vertex is settled (the arcs skipped counted)
    const i64* offsets;
    const double* buffer;
    double settled;
    u64* skipped;
    __device__ __forceinline__ bool operator()(int v) const {
        const i64 d = offsets[v + 1] - offsets[v];
        if (d >= GG_SPLIT_CHUNK_FROM) return false;
        if (!skipped || buffer[v] > settled) return true;
        *skipped += (u64)d;
        return false;
    }
};

template <class R>
__device__ void gg_split_pull(const i64* t_offsets, const int* t_indices, const float* t_weights,
                              const int* chunk_rows, const i64* chunk_first, const i64* chunk_last, u64 chunks, int n,
                              int weighted, R r, GGOut out, const double* buffer, double settled, u64* skipped_arcs) {
    const int lane = gg_lane();
    const u64 warps = gridDim.x * blockDim.x / GG_WARP;
    const u64 warp = (blockIdx.x * blockDim.x + threadIdx.x) / GG_WARP;
    u64 skipped = 0;
    // the warp's chunks are warp, warp + warps, ...: lane i tests the i-th of the next 32
    for (u64 first = warp; first < chunks; first += GG_WARP * warps) {
        const u64 mine = first + lane * warps;
        const int v = mine < chunks ? chunk_rows[mine] : -1;
        const bool live = v >= 0 && (!skipped_arcs || buffer[v] > settled);
        if (v >= 0 && !live) skipped += (u64)(chunk_last[mine] - chunk_first[mine]);
        for (u32 todo = __ballot_sync(GG_FULL_MASK, live); todo; todo &= todo - 1) {
            const int j = __ffs(todo) - 1;
            const u64 c = first + j * warps;
            const int row = __shfl_sync(GG_FULL_MASK, v, j);
            const double best = gg_reduce_row<GG_WARP>(t_indices, t_weights, weighted, nullptr, 1, r, chunk_first[c],
                                                       chunk_last[c], lane, GG_FULL_MASK);
            gg_emit(out, lane == 0 && r.commit(row, best), row);
        }
    }
    gg_reduce_warp_gathered(t_offsets, t_indices, t_weights, weighted, nullptr, 1, n,
                            GGShortRow{t_offsets, buffer, settled, skipped_arcs ? &skipped : nullptr}, r, out);
    if (skipped_arcs) gg_warp_add(skipped, skipped_arcs);
}

// The bucket is done (its worklist ran dry): expand its senders' heavy rows once, with their final values, into the
// worklist Q (claimed; a target lands at or beyond the threshold unless the bucket is wider than delta, and the next
// round defers those to the far pile). Returns false when no sender is listed. The lists' part flips: the next round
// lists into the other part, whose sizes were cleared here (read at the previous expansion, before its barrier); the
// bucket bits are cleared here. `listed`: heavy arcs listed before this bucket (st.heavy_edges then).
// Direction (SEP-Graph's push/pull choice, for the heavy arcs): a bucket whose senders hold at least heavy_pull heavy
// arcs pulls them instead -- every vertex scans its heavy in-arcs (heavy_t_*, gg_split_pull) and keeps the best, no
// atomics on contended targets. Kron's big bucket lists most of the graph: pushing its
// 54M heavy arcs took a third of an SSSP (docs/performance.md#kernel-comments).
template <class P, class Expand>
__device__ bool gg_heavy_rows(const GGPersistentState& st, int& part, int n, int weighted, double* buffer,
                              const double* message, int monoid, int supports, P p, int* Q, int& qsize, u64& listed,
                              double low, volatile int* status) {
    const u32 small = gg_load(&st.bucket_n[2 * part]);
    const u32 big = gg_load(&st.bucket_n[2 * part + 1]);
    if (small + big == 0) return false;
    const u64 total = gg_load(st.heavy_edges);
    const bool pull = st.heavy_t_offsets && total - listed >= st.heavy_pull;
    const GGOut out{Q, &st.bucket_n[4 + part], st.claim_bits, nullptr, 1};
    if (pull) {
        gg_split_pull(st.heavy_t_offsets, st.heavy_t_indices, st.heavy_t_weights, st.heavy_chunk_rows,
                      st.heavy_chunk_first, st.heavy_chunk_last, st.heavy_chunks, n, weighted,
                      GGProgramReduce<P>{message, buffer, monoid, p}, out, buffer, low + st.delta, st.heavy_edges + 1);
        // every thread has read heavy_edges (and the pull's queue count is complete): a pull covers every heavy arc,
        // so the rules' count ([0]) becomes all of them instead of the listed senders' (the same `listed` in every
        // thread: the count after this add); the arcs of the rows it skipped are in [1], which the trace takes off
        if (!gg_grid_sync(st.barrier, status)) return false;
        const u64 all = (u64)st.heavy_t_offsets[n];
        if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd((unsigned long long*)st.heavy_edges, all - (total - listed));
        listed += all;
    } else {
        listed = total;
        gg_push_senders<Expand>(st.heavy_offsets, st.heavy_indices, st.heavy_weights, weighted, st.bucket[0], small,
                                st.bucket[1], big, GGProgramPush<P>{message, buffer, monoid, p, st.visited}, out,
                                supports, st.supplementary);
    }
    gg_clear_bits(st.bucket[0], small, st.bucket_bits);
    gg_clear_bits(st.bucket[1], big, st.bucket_bits);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        st.bucket_n[2 * (part ^ 1)] = 0;
        st.bucket_n[2 * (part ^ 1) + 1] = 0;
        st.bucket_n[4 + (part ^ 1)] = 0;
    }
    if (!gg_grid_sync(st.barrier, status)) return false;
    qsize = (int)gg_load(&st.bucket_n[4 + part]);
    part ^= 1;
    return true;
}

// The device rules: mode 0 push only, 1 pull only, 2 SEP-Graph Algorithm 2 (alpha, beta, E' = gamma |E|).
struct GGRules {
    int mode;
    double alpha;
    double beta;
    double unexplored;
};

// Fused rounds (fixed push, min/max/or programs): compute() runs where the load balancer loads each worklist entry
// (the advance's prepare hook), so a round is one expansion and ONE grid barrier. A contribution that lands on a
// vertex while it computes is not lost: the vertex is claimed for the next round (claims alternate between two
// bitmaps by round parity, so clearing this round's entries never erases a new claim), and a buffer the compute
// changed is written back only if no contribution came in between (compare-and-swap).
// With block-local hops (coherent) a vertex may be computed by two blocks at once, so its state is read from L2 and
// its value and message only ever move the monoid's way (atomic min/max): the last writer cannot undo a better result.
template <class P>
struct GGFusedCompute {
    const i64* offsets;
    double* value;
    double* buffer;
    double* message;
    u32* unclaim;   // the bitmap that claimed this round's worklist
    u32* senders;   // |S| of the round
    u64* edges;     // outDegree(S) of the round
    P p;
    const GGPersistentState* st;  // near-far: the far pile
    int pile;
    double threshold;
    int monoid;
    int coherent;
    __device__ __forceinline__ int operator()(int u) const {
        bool send = false;
        u64 degree = 0;
        gg_clear_bit(unclaim, u);  // a push's worklist: unsorted
        if (gg_defer(*st, pile, threshold, u, buffer)) u = -1;
        if (u >= 0) {
            const i64 d = offsets[u + 1] - offsets[u];
            const double before = coherent ? __ldcg(buffer + u) : buffer[u];
            double val = coherent ? __ldcg(value + u) : value[u], buf = before, msg;
            p.compute(val, buf, d, msg, send);
            if (coherent) gg_keep_better(monoid, value + u, val);
            else value[u] = val;
            if (__double_as_longlong(buf) != __double_as_longlong(before))
                atomicCAS((unsigned long long*)(buffer + u), (unsigned long long)__double_as_longlong(before),
                          (unsigned long long)__double_as_longlong(buf));
            if (coherent) gg_keep_better(monoid, message + u, msg);
            else message[u] = msg;
            if (send) degree = (u64)d;
        }
        const u32 mask = __activemask();
        const u32 ballot = __ballot_sync(mask, send);
        if (ballot && gg_lane() == __ffs(mask) - 1) atomicAdd(senders, (u32)__popc(ballot));
        gg_warp_add(degree, edges);
        return send ? u : -1;
    }
};

// Block-local hops (SEP-Graph's async: updates visible at once, no barrier between them), for monotone programs on
// high-diameter graphs where a round is a few thousand vertices and its cost the chain of dependent memory accesses
// plus the grid barrier: each block keeps what its share of the worklist activates in a shared-memory queue of
// GG_LOCAL_QUEUE entries and expands it again, `hops` levels in all, with only block barriers between them; the
// grid barrier then comes once per `hops` levels. What does not fit, and what is left after the last hop, goes to the
// global worklist (claimed: exact). Label-correcting: a vertex reached first by a longer path is improved later and
// sent again, so the result is the same, the work a little more.
#define GG_LOCAL_QUEUE 2048

template <class P, class Expand>
__device__ void gg_fused_rounds(const i64* offsets, const int* indices, const float* weights, int weighted,
                                double* value, double* buffer, double* message, int monoid, int supports, int qsize,
                                int max_rounds, double threshold, int hops, GGPersistentState st, P p) {
    __shared__ int s_local[2][GG_LOCAL_QUEUE];
    __shared__ u32 s_count[2];
    volatile int* status = st.status;
    const int coherent = hops > 1;
    int in = 0;
    int r = 0;
    int pile = 0, changes = 0, widen = 0;
    for (;;) {
    for (; r < max_rounds && qsize > 0; ++r) {
        const int slot = r % 3;
        u32* counters = st.counters + 3 * slot;
        gg_reset_next_slot(st, r);
        if (blockIdx.x == 0 && threadIdx.x == 0 && r < st.log_rows) st.log[(i64)r * GG_LOG_FIELDS + 4] = (i64)gg_globaltimer();
        GGFusedCompute<P> prepare{offsets, value, buffer, message, st.claim_bits + ((r + 1) & 1) * st.words,
                                  &counters[0], &st.edges[slot], p, &st, pile, threshold, monoid, coherent};
        GGProgramPush<P> f{message, buffer, monoid, p, st.visited, coherent};
        u32* claim = st.claim_bits + (r & 1) * st.words;
        GGOut out{st.queue[in ^ 1], &counters[1], claim, nullptr, 1};  // the next worklist, exact
        if (hops <= 1) {
            gg_expand_shares<Expand>(offsets, indices, weights, weighted, st.queue[in], qsize, f, out, supports, prepare);
        } else {
            if (threadIdx.x < 2) s_count[threadIdx.x] = 0;
            __syncthreads();
            int cur = 0;
            for (int h = 0; h < hops; ++h) {  // hop 0 expands the block's share of the worklist, later hops its own finds
                GGOut local{s_local[cur ^ (h > 0)], &s_count[cur ^ (h > 0)], claim, nullptr, 3};
                local.spill = out.queue;
                local.spill_count = out.counter;
                local.capacity = GG_LOCAL_QUEUE;
                if (h == 0) {
                    gg_expand_shares<Expand>(offsets, indices, weights, weighted, st.queue[in], qsize, f, local, supports,
                                             prepare);
                } else {
                    const int size = min(s_count[cur], (u32)GG_LOCAL_QUEUE);
                    if (size == 0) break;  // the same for every thread of the block
                    Expand::run(offsets, indices, weights, weighted, s_local[cur], size, f, local, supports, prepare,
                                GGBlockTeam{});
                    cur ^= 1;
                }
                __syncthreads();  // the hop's finds and their count are complete
                if (h + 1 < hops && threadIdx.x == 0) s_count[cur ^ 1] = 0;  // the next hop's output
                __syncthreads();
            }
            const int left = min(s_count[cur], (u32)GG_LOCAL_QUEUE);
            for (int base = 0; base < left; base += blockDim.x) {  // the last hop's finds join the global worklist
                const int i = base + threadIdx.x;
                gg_emit(out, i < left, i < left ? s_local[cur][i] : 0);
            }
        }
        if (!gg_grid_sync(st.barrier, status)) return;
        if (blockIdx.x == 0 && threadIdx.x == 0 && r < st.log_rows) {
            i64* row = st.log + (i64)r * GG_LOG_FIELDS;
            row[0] = qsize;
            row[1] = gg_load(&counters[0]);
            row[2] = (i64)gg_load(&st.edges[slot]);
            row[3] = GG_DIR_PUSH;
        }
        qsize = (int)gg_load(&counters[1]);
        in ^= 1;
    }
    double low = 0.0;  // the fused rounds have no heavy pull to test with it
    if (r >= max_rounds || !gg_next_bucket(st, pile, changes, threshold, low, value, buffer, st.queue[in],
                                           st.claim_bits + ((r + 1) & 1) * st.words, qsize, status, widen)) break;
    }
    if (status[0]) return;
    gg_end_launch(st, st.claim_bits + ((r + 1) & 1) * st.words, r, qsize, in);
}

// An advance functor's async form (graphgear's operator-level sync="async"): level after level inside one launch,
// one grid barrier per level, each level's output an exact vertex queue (claims alternate by parity, cleared as the
// next level loads them). Level-synchronous, so a functor may rely on the previous level being complete (BC's
// path counts do). Block 0 logs |Q| and the time of each level.
struct GGUnclaim {
    u32* bits;
    __device__ __forceinline__ int operator()(int u) const {
        gg_clear_bit(bits, u);
        return u;
    }
};

template <class F, class Expand>
__device__ void gg_advance_rounds(const i64* offsets, const int* indices, const float* weights, int weighted, F f,
                                  int supports, int qsize, int max_rounds, GGPersistentState st) {
    volatile int* status = st.status;
    int in = 0;
    int r = 0;
    for (; r < max_rounds && qsize > 0; ++r) {
        const int slot = r % 3;
        u32* counters = st.counters + 3 * slot;
        gg_reset_next_slot(st, r);
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            if (r < st.log_rows) {
                i64* row = st.log + (i64)r * GG_LOG_FIELDS;
                row[0] = qsize;
                row[1] = qsize;
                row[2] = 0;
                row[3] = GG_DIR_PUSH;
                row[4] = (i64)gg_globaltimer();
            }
        }
        GGOut out{st.queue[in ^ 1], &counters[1], st.claim_bits + (r & 1) * st.words, nullptr, 1};
        gg_expand_shares<Expand>(offsets, indices, weights, weighted, st.queue[in], qsize, f, out, supports,
                                 GGUnclaim{st.claim_bits + ((r + 1) & 1) * st.words});
        if (!gg_grid_sync(st.barrier, status)) return;
        qsize = (int)gg_load(&counters[1]);
        in ^= 1;
    }
    gg_end_launch(st, st.claim_bits + ((r + 1) & 1) * st.words, r, qsize, in);
}

// Clear the active bits of a pull round's senders (S and H of that round's parity): by list, or, when they outnumber
// the bitmap's words, the whole bitmap with one store a word (a bottom-up round of a kron:21 BFS has 968K senders).
__device__ __forceinline__ void gg_clear_active(const GGPersistentState& st, int parity, u32 count, u32 huge_count) {
    if (count + huge_count > (u32)st.words) {
        for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < st.words; w += gridDim.x * blockDim.x) st.active_bits[w] = 0;
        return;
    }
    gg_clear_bits(st.senders[parity], count, st.active_bits);
    gg_clear_bits(st.huge[parity], huge_count, st.active_bits);
}

// SEP-Graph's compute on vertex u, given its value and buffer as read (val, buf) and its out-degree: the program's
// new value, buffer and message stored; whether u sends. The compute phase's step and GGComputeInPull's.
template <class P>
__device__ __forceinline__ bool gg_compute_vertex(P p, double* value, double* buffer, double* message, int u,
                                                  double val, double buf, i64 degree) {
    double msg;
    bool send;
    p.compute(val, buf, degree, msg, send);
    value[u] = val;
    buffer[u] = buf;
    message[u] = msg;
    return send;
}

// The next round's compute phase run by a first-wins pull (gg_program_pull_first_wins), on each vertex as the pull
// activates it: first wins, so the thread that activates v alone writes v's state this round, and computes v at once
// -- v's value, buffer and message, and v listed as a sender of the next round (S', or H' from `huge` arcs) with its
// out-degree summed into the next round's edge word -- instead of queueing v for the next round's compute phase to
// read its value, buffer and row back. After a bottom-up round of a kron:21 BFS that phase computed a million
// vertices, a fifth of the kernel (docs/performance.md#kernel-comments). The activated vertices are counted into the
// round's queue counter (the next round's |Q|), not queued: the next round computes nothing. Sums are added once a
// warp, at the end (finish).
template <class P>
struct GGComputeInPull {
    static constexpr bool computes = true;
    const i64* offsets;
    double* value;
    double* buffer;
    double* message;
    P p;
    int* S;            // the next round's senders and hubs, their counters (slot (r + 1) % 3: cleared in round r)
    int* H;
    u32* counters;
    u64* edges;
    u32* activated;    // this round's queue counter: |Q| of the next round
    u32* bits;         // the next round's senders as a bitmap (st.pulled_bits of its parity)
    int n;             // the candidates (the pull's n): the words of `bits` this pull writes
    i64 huge;
    u64 edge_sum = 0;  // this thread's senders' out-degrees and activated vertices
    u32 count = 0;
    __device__ __forceinline__ i64 degree(int v) const { return offsets[v + 1] - offsets[v]; }
    __device__ __forceinline__ void operator()(bool active, int v, double val, double buf, i64 d) {
        bool send = false;
        if (active) {
            send = gg_compute_vertex(p, value, buffer, message, v, val, buf, d);
            ++count;
            if (send) edge_sum += (u64)d;
        }
        const bool is_huge = send && d >= huge;
        gg_warp_append(send && !is_huge, v, S, &counters[0]);
        gg_warp_append(is_huge, v, H, &counters[2]);
        // a warp's 32 candidates are consecutive from a multiple of 32 (the pull's grid-stride over blocks of
        // 256): their sends are the word of the next round's active bitmap, stored whole, so no pass over S' sets
        // it and none clears it (every word below n's is stored by every such pull)
        const u32 word = __ballot_sync(GG_FULL_MASK, send);
        if (gg_lane() == 0 && v < n) bits[v >> 5] = word;
    }
    __device__ __forceinline__ void finish() {  // every lane of every warp, after the pull's last candidate
        u64 sum = edge_sum;
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1) sum += __shfl_xor_sync(GG_FULL_MASK, sum, d);
        const u32 total = __reduce_add_sync(GG_FULL_MASK, count);
        if (gg_lane() == 0) {
            if (sum) atomicAdd((unsigned long long*)edges, (unsigned long long)sum);
            if (total) atomicAdd(activated, total);
        }
    }
};

template <int PULL_GROUP, class P, class Expand>
__device__ void gg_program_persistent(const i64* offsets, const int* indices, const float* weights, int weighted,
                                      const i64* t_offsets, const int* t_indices, const float* t_weights,
                                      const int* t_first, int n,
                                      int pulled,
                                      double* value, double* buffer, double* message, int monoid, int first_wins,
                                      int skip_settled, int supports, i64 huge, int qsize, int max_rounds,
                                      double threshold, GGRules rules, GGPersistentState st, P p, int topology = 0) {
    const int stride = gridDim.x * blockDim.x;
    volatile int* status = st.status;
    int in = 0;
    int policy = rules.mode == 1 ? GG_DIR_PULL : GG_DIR_PUSH;
    double unexplored = rules.unexplored;
    u32 previous_active = 0;  // |A| of the previous pull round (pull stays while the active set grows)
    int previous_pull_senders = -1;  // parity of the sender queues whose active bits are still set
    u32 previous_count = 0, previous_huge = 0;
    int r = 0;
    int pile = 0, changes = 0, widen = 0;
    int part = 0;  // the light/heavy split's list part
    u64 listed = 0;  // heavy arcs listed before this bucket
    // the bucket's low: no vertex left to relax holds less (the host starts near-far's first bucket at
    // [threshold - delta, threshold): near_far_on_device's source at 0, threshold delta); the heavy pull's test
    double low = threshold - st.delta;
    bool claimed = false;  // Q's entries hold claim bits (a push, a bucket refill or heavy rows wrote it; a pull did not)
    // a first-wins pull computes what it activates (GGComputeInPull) where the next round is a plain one: no topology
    // drive, near-far buckets or light/heavy split, and a sender queue without merge_path's prefix sum
    const bool compute_in_pull = gg_pulls_first_wins(PULL_GROUP, first_wins, monoid, 0) && !topology &&
                                 st.delta <= 0.0 && !st.heavy_offsets && !Expand::scanned;
    bool computed = false;  // the previous round's pull computed this round's worklist (Q was counted, not queued)
    for (;;) {
    for (; r < max_rounds && qsize > 0; ++r) {
        const int slot = r % 3;
        int* Q = st.queue[in];
        int* S = st.senders[r & 1];
        int* H = st.huge[r & 1];
        u32* counters = st.counters + 3 * slot;
        gg_reset_next_slot(st, r);
        // A: compute, compact the senders, clear claim bits (and the previous pull round's active bits). The senders
        // are appended and their degrees summed once per block: a round of a million senders made 30K warp atomics on
        // each of the two words (docs/performance.md#kernel-comments)
        if (previous_pull_senders >= 0) {
            gg_clear_active(st, previous_pull_senders, previous_count, previous_huge);
            previous_pull_senders = -1;
        }
        // topology drive: every vertex computes (the worklist only says whether anything changed), and the claim
        // bits of the worklist are cleared a word at a time over the whole bitmap (no walk of Q)
        if (topology && claimed)
            for (int w = blockIdx.x * blockDim.x + threadIdx.x; w < st.words; w += stride) st.claim_bits[w] = 0;
        const int listed = topology ? n : qsize;
        const bool from_pull = computed;  // this round's worklist, its senders and their bitmap made by that pull
        const int to_compute = from_pull ? 0 : listed;
        computed = false;
        for (int base = blockIdx.x * blockDim.x; base < to_compute; base += stride) {
            const int i = base + threadIdx.x;
            bool send = false;
            int u = i < to_compute ? (topology ? i : Q[i]) : -1;
            u64 degree = 0;
            if (claimed && !topology) gg_warp_bit(u, st.claim_bits, false);
            if (gg_defer(st, pile, threshold, u, buffer)) u = -1;
            if (u >= 0) {
                const i64 d = offsets[u + 1] - offsets[u];
                send = gg_compute_vertex(p, value, buffer, message, u, value[u], buffer[u], d);
                if (send) degree = (u64)d;
            }
            const bool is_huge = send && (i64)degree >= huge;
            if constexpr (Expand::scanned)  // merge_path: S with its degree prefix sum (no hubs: huge is out of reach)
                gg_block_append_scanned(send && (i64)degree > (r ? st.leaf_degree : min(st.leaf_degree, (i64)0)), u,
                                        degree, S, st.scan, &st.edges[slot]);
            else
                gg_block_append_add(send && !is_huge, u, S, &counters[0], degree, &st.edges[slot]);
            gg_warp_append(is_huge, u, H, &counters[2]);
            if (st.heavy_offsets) gg_bucket_append(st, part, send, u, huge);
        }
        if (!gg_grid_sync(st.barrier, status)) return;
        const u32 nh = gg_load(&counters[2]);
        const u64 edge_word = gg_load(&st.edges[slot]);
        const u32 ns_small = Expand::scanned ? (u32)(edge_word >> GG_SCAN_EDGE_BITS) : gg_load(&counters[0]);
        const u32 ns = ns_small + nh;
        const u64 ne = Expand::scanned ? edge_word & ((1ull << GG_SCAN_EDGE_BITS) - 1ull) : edge_word;
        // SEP-Graph Algorithm 2, replicated in every thread (every thread reads the same counters)
        if (rules.mode == 2 && r > 0) {
            if (policy == GG_DIR_PUSH) {
                unexplored -= (double)ne;
                if ((double)ne > unexplored / rules.alpha) policy = GG_DIR_PULL;
            } else if (ns <= previous_active && (double)ns < (double)n / rules.beta) {  // shrinking and small
                policy = GG_DIR_PUSH;
            }
        }
        if (policy == GG_DIR_PULL) previous_active = ns;
        // the light/heavy split's light rounds: senders holding at least light_pull light arcs pull every light arc
        // instead (gg_split_pull from every source, as the heavy rows' pull: a label-correcting pass), no atomics
        // on the hubs' contended targets (kron's big bucket: docs/performance.md#near-far-sssp)
        const bool light_pull = policy == GG_DIR_PUSH && st.light_t_offsets && ne >= st.light_pull;
        if (blockIdx.x == 0 && threadIdx.x == 0 && r < st.log_rows) {
            i64* row = st.log + (i64)r * GG_LOG_FIELDS;
            row[0] = listed;
            row[1] = ns;
            row[2] = light_pull ? st.light_t_offsets[n] : (i64)ne;
            row[3] = light_pull ? GG_DIR_LIGHT_PULL : policy;
            row[4] = (i64)gg_globaltimer();
        }
        int* Qn = st.queue[in ^ 1];
        u32* out_count = &counters[1];
        if (ns > 0) {
            if (light_pull) {
                gg_split_pull(st.light_t_offsets, st.light_t_indices, st.light_t_weights, st.light_chunk_rows,
                              st.light_chunk_first, st.light_chunk_last, st.light_chunks, n, weighted,
                              GGProgramReduce<P>{message, buffer, monoid, p},
                              GGOut{Qn, out_count, st.claim_bits, nullptr, 1}, buffer, 0.0, nullptr);
            } else if (policy == GG_DIR_PUSH) {
                if constexpr (Expand::scanned)  // Busato & Bombieri's device-wide binary search over S's prefix sum
                    gg_advance_merge_path(offsets, indices, weights, weighted, S, (int)ns_small, st.scan,
                                          gg_merge_path_chunk(ne), GGProgramPush<P>{message, buffer, monoid, p, st.visited},
                                          GGOut{Qn, out_count, st.claim_bits, nullptr, 1});
                else
                    gg_push_senders<Expand>(offsets, indices, weights, weighted, S, ns_small, H, nh,
                                            GGProgramPush<P>{message, buffer, monoid, p, st.visited},
                                            GGOut{Qn, out_count, st.claim_bits, nullptr, 1}, supports, st.supplementary);
            } else {
                // the active bitmap: the one the previous round's pull stored with this round's senders, else S and
                // H set in st.active_bits (cleared by list, or whole, at the next round's start)
                const u32* active = st.pulled_bits + (r & 1) * st.words;
                if (!from_pull) {
                    gg_set_bits(S, ns_small, st.active_bits);
                    gg_set_bits(H, nh, st.active_bits);
                    if (!gg_grid_sync(st.barrier, status)) return;
                    active = st.active_bits;
                    previous_pull_senders = r & 1;
                    previous_count = ns_small;
                    previous_huge = nh;
                }
                if (compute_in_pull && r + 1 < max_rounds) {  // the next round runs here: it need not compute
                    const int next = (r + 1) % 3;
                    gg_program_pull_first_wins(t_offsets, t_indices, t_weights, t_first, weighted, active, pulled,
                                               value, buffer, message, monoid, skip_settled, p, GGOut{},
                                               ns_small ? S : H,
                                               GGComputeInPull<P>{offsets, value, buffer, message, p,
                                                                  st.senders[(r + 1) & 1], st.huge[(r + 1) & 1],
                                                                  st.counters + 3 * next, &st.edges[next], out_count,
                                                                  st.pulled_bits + ((r + 1) & 1) * st.words, pulled,
                                                                  huge});
                    computed = true;
                } else {
                    gg_program_pull<PULL_GROUP>(t_offsets, t_indices, t_weights, weighted, active, 0, pulled, value,
                                                buffer, message, monoid, first_wins, skip_settled, p,
                                                GGOut{Qn, out_count, nullptr, nullptr, 0}, ns_small ? S : H, t_first);
                }
            }
        }
        if (!gg_grid_sync(st.barrier, status)) return;
        qsize = ns > 0 ? (int)gg_load(out_count) : 0;
        claimed = policy == GG_DIR_PUSH;  // a light pull claims too: its chunks may find a row twice
        in ^= 1;
    }
    if (r < max_rounds && st.heavy_offsets && gg_heavy_rows<P, Expand>(st, part, n, weighted, buffer, message, monoid,
                                                                         supports, p, st.queue[in], qsize, listed,
                                                                         low, status)) {
        claimed = true;  // the heavy rows claim what they queue, and so does the bucket refill
        continue;
    }
    // the tail: once the buckets' senders have listed (or pulled) half the heavy arcs, the rest of the far pile goes
    // in buckets of the widest width at once -- its vertices have few arcs left to relax again, and each narrow bucket
    // cost two passes over the pile and its grid barriers (docs/performance.md#near-far-sssp)
    const bool tail = st.heavy_offsets && 2 * listed >= (u64)st.heavy_offsets[n];
    if (r >= max_rounds || !gg_next_bucket(st, pile, changes, threshold, low, value, buffer, st.queue[in],
                                           st.claim_bits, qsize, status, widen, tail)) break;
    claimed = true;
    }
    if (status[0]) return;
    if (previous_pull_senders >= 0)  // leave the active bitmap clear for the next launch
        gg_clear_active(st, previous_pull_senders, previous_count, previous_huge);
    gg_end_launch(st, claimed ? st.claim_bits : nullptr, r, qsize, in);
}

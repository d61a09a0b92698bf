// Vertex programs (SEP-Graph, Table 1) on the GPU: compute per vertex, then push (through every advance load
// balancer, accumulating atomically) or pull (through the pull kernel). P is the program:
//   __device__ void compute(double& value, double& buffer, i64 degree, double& message, bool& send) const;
//   __device__ double edge(double message, float weight) const;
//   __device__ bool settled(double value) const;
#pragma once
#include "advance.cuh"
#include "common.cuh"
#include "pull.cuh"

#define GG_MIN 0
#define GG_MAX 1
#define GG_SUM 2
#define GG_OR 3

// The monoid's identity: what an accumulation starts from and what "nothing reached" reads as (GG_OR's values are 0
// and 1, so 0 as GG_SUM's)
__device__ __forceinline__ double gg_identity(int monoid) {
    return monoid == GG_MIN ? GG_INF : monoid == GG_MAX ? -GG_INF : 0.0;
}

__device__ __forceinline__ bool gg_improves(int monoid, double old, double c) {
    return monoid == GG_MIN ? c < old : monoid == GG_SUM ? c != 0.0 : c > old;
}

// Keep the better of *address and c under a min or max monoid (or counts as max), atomically.
__device__ __forceinline__ void gg_keep_better(int monoid, double* address, double c) {
    if (monoid == GG_MIN) gg_atomic_min(address, c);
    else gg_atomic_max(address, c);
}

__device__ __forceinline__ bool gg_accumulate(int monoid, double* buffer, double c) {
    if (monoid == GG_SUM) {
        if (c == 0.0) return false;
        atomicAdd(buffer, c);
        return true;
    }
    return monoid == GG_MIN ? gg_atomic_min(buffer, c) : gg_atomic_max(buffer, c);
}

// compute() on the listed vertices (vertices == 0: all n vertices); send[v] = 1 where v sends this round (the caller
// cleared send). A list that holds v twice (an edge queue without duplicate removal, a min/max/or program) computes v
// twice, the second time after the first or beside it: only a sending compute writes send and the message, so the
// second (which finds nothing new) cannot clear the first's send or overwrite its message.
template <class P>
__device__ void gg_program_compute(const int* vertices, int count, const i64* offsets, double* value, double* buffer,
                                   double* message, unsigned char* send, P p) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        const int v = vertices ? vertices[i] : i;
        double val = value[v], buf = buffer[v], msg;
        bool s;
        p.compute(val, buf, offsets[v + 1] - offsets[v], msg, s);
        value[v] = val;
        buffer[v] = buf;
        if (s) {
            message[v] = msg;
            send[v] = 1;
        }
    }
}

// push: an advance functor that accumulates edge(message[u], w) into buffer[v]; v is activated when it changed.
// Bitmask lookup (Busato & Bombieri; a first-wins traversal such as BFS, whose first value is final): `visited` holds
// one bit per vertex set when its buffer is first set, and is tested before the 8-byte status read -- 64x less data
// to keep in cache on a randomly labelled graph. Null: status lookup (the buffer itself).
// coherent: read message[u] from L2 (block-local hops, where another block may have improved it since this SM cached
// it; kernels/persistent.cuh).
template <class P>
struct GGProgramPush {
    const double* message;
    double* buffer;
    int monoid;
    P p;
    u32* visited = nullptr;
    int coherent = 0;
    __device__ __forceinline__ bool operator()(int u, int v, float w) const {
        if (visited && gg_test_bit(visited, v)) return false;  // before the message's read
        return take(v, contribution(u, w));
    }
    // what the arc u -> v of weight w carries
    __device__ __forceinline__ double contribution(int u, float w) const {
        return p.edge(coherent ? __ldcg(message + u) : message[u], w);
    }
    // c (the contributions of several arcs, combined: MultiGraphS's segments) into v's buffer; true when v is activated
    __device__ __forceinline__ bool commit(int v, double c) const {
        return !(visited && gg_test_bit(visited, v)) && take(v, c);
    }
    __device__ __forceinline__ bool take(int v, double c) const {  // past the visited test
        if (!gg_improves(monoid, buffer[v], c)) return false;
        if (!gg_accumulate(monoid, buffer + v, c)) return false;
        if (visited) atomicOr(&visited[v >> 5], 1u << (v & 31));
        return true;
    }
    __device__ __forceinline__ double identity() const { return gg_identity(monoid); }
};

// MultiGraphS (Hong et al., PACT'17, Sec. 4.2 and Fig. 7) whole: a push of a vertex program on a graph whose vertices
// are numbered by in-degree group (Table 1), so that the targets of groups 1-4 (in-degree >= 256) are 0..high-1, cut
// into segments of GG_SEGMENT ids, with the frontier cut into sub-segments of GG_SUB_SEGMENT active inputs. A block per
// (segment, sub-segment) accumulates its inputs' arcs into the segment in shared memory (shared-memory atomics: many
// arcs of a sub-segment meet at one hub), then writes each target it reached once into the buffer (one global update
// per target and block, not per arc). Where a row's arcs into a segment begin and end comes from the segment table
// `starts` (int32[V, segments + 1], graph/layout.py shared_group_segments: the paper keeps a CSC per segment), two
// loads, no search. The targets of groups 5-6 go by three_stage with global atomics, each row from its first arc past
// groups 1-4. The paper's blocks are 1024 threads over 1024 inputs; here 256 threads take the 1024 inputs in four
// passes, and a segment is 4,096 doubles (32 KB, two blocks an SM). Every thread of the block calls it.
#define GG_SEGMENT 4096
#define GG_SUB_SEGMENT 1024
template <class P>
__device__ void gg_program_push_segmented(const i64* offsets, const int* indices, const float* weights, int weighted,
                                          const int* queue, int qsize, int high, const int* starts,
                                          GGProgramPush<P> f, GGOut out) {
    __shared__ double s_acc[GG_SEGMENT];
    const int segments = starts ? (high + GG_SEGMENT - 1) / GG_SEGMENT : 0;
    const i64 subs = ((i64)qsize + GG_SUB_SEGMENT - 1) / GG_SUB_SEGMENT;
    const double identity = f.identity();
    const int lane = gg_lane();
    const int warps = blockDim.x >> 5;
    for (i64 item = blockIdx.x; item < segments * subs; item += gridDim.x) {
        const int segment = (int)(item % segments);  // neighbouring blocks: the same inputs, other segments
        const int lo = segment * GG_SEGMENT;
        const int hi = min(high, lo + GG_SEGMENT);
        const int first = (int)((item / segments) * GG_SUB_SEGMENT);
        const int last = min(qsize, first + GG_SUB_SEGMENT);
        for (int i = threadIdx.x; i < hi - lo; i += blockDim.x) s_acc[i] = identity;
        __syncthreads();
        for (int base = first + (int)(threadIdx.x >> 5) * GG_WARP; base < last; base += warps * GG_WARP) {
            int u = -1;
            i64 from = 0, to = 0;
            if (base + lane < last) {
                u = queue[base + lane];
                const int* row = starts + (i64)u * (segments + 1) + segment;
                from = offsets[u] + row[0];
                to = offsets[u] + row[1];
            }
            for (int j = 0; j < GG_WARP; ++j) {  // the warp walks its 32 inputs' stretches one after another
                const int uj = __shfl_sync(GG_FULL_MASK, u, j);
                const i64 fj = __shfl_sync(GG_FULL_MASK, from, j), tj = __shfl_sync(GG_FULL_MASK, to, j);
                for (i64 k = fj + lane; k < tj; k += GG_WARP)
                    gg_accumulate(f.monoid, &s_acc[indices[k] - lo], f.contribution(uj, gg_weight(weights, weighted, k)));
            }
        }
        __syncthreads();
        for (int base = 0; base < hi - lo; base += blockDim.x) {  // write out what the block reached
            const int i = base + threadIdx.x;
            const double c = i < hi - lo ? s_acc[i] : identity;
            gg_emit(out, c != identity && f.commit(lo + i, c), lo + i);
        }
        __syncthreads();
    }
    gg_advance_three_stage(offsets, indices, weights, weighted, queue, qsize, f, out, GGKeep(), GGGrid(),
                           GGRowPastSegments{starts, segments});
}

// pull: candidates are the vertices that are not settled (data-driven) or all of them (topology-driven)
template <class P>
struct GGProgramCandidate {
    const double* value;
    int skip_settled;
    P p;
    __device__ __forceinline__ bool operator()(int v) const { return !(skip_settled && p.settled(value[v])); }
};

template <class P>
struct GGProgramPull {
    const double* message;
    double* buffer;
    int monoid;
    int first_wins;
    P p;
    __device__ __forceinline__ int operator()(int v, int u, float w) const {
        const double c = p.edge(message[u], w);
        if (!gg_improves(monoid, buffer[v], c)) return 0;
        if (!gg_accumulate(monoid, buffer + v, c)) return 0;
        return first_wins ? (GG_ACTIVATE | GG_STOP) : GG_ACTIVATE;
    }
};

// pull, reducing (gg_reduce_vertex_group): a min or max program without early exit offers edge(message[u], w) per
// in-edge; the row's best is kept in v's buffer once, and v is activated when it improved.
template <class P>
struct GGProgramReduce {
    const double* message;
    double* buffer;
    int monoid;
    P p;
    __device__ __forceinline__ double identity() const { return gg_identity(monoid); }
    __device__ __forceinline__ double candidate(int u, float w) const { return p.edge(message[u], w); }
    __device__ __forceinline__ double better(double a, double b) const { return gg_combine(monoid, a, b); }
    __device__ __forceinline__ bool commit(int v, double best) const {
        return gg_improves(monoid, buffer[v], best) && gg_accumulate(monoid, buffer + v, best);
    }
};

// Bottom-up step of a first-wins program (Beamer et al.'s bottom-up BFS, with Busato & Bombieri's bitmask lookup of the
// active sources): a thread per candidate, which stops at its first improving in-edge. A thread walks many candidates
// one after another, each a chain of dependent loads, so the pass is written to shorten the chain: the candidate's
// value, buffer and row bounds are loaded together; then GG_PULL_ILP in-edges; then their sources' active bits and
// messages together (the message loads are speculative, and the CSC lists hub sources first, so the first in-edges
// are the likely parents). A thread scans at most GG_PULL_THREAD_EDGES in-edges of a row; the rows left then are
// scanned by the whole warp one after another, 32 in-edges a step (warp gathering, after the thread's try: most rows
// find their parent among the first hubs, and gathering every long row from the start wasted the warp's steps).
// The thread (or its warp) alone scans v, so v's buffer is stored, not updated atomically. The result equals
// gg_pull_vertex_group<1> with GGProgramCandidate and GGProgramPull: the first improving active in-edge in row order
// wins. Needs a min or max accumulate. t_first (null: none) is the CSC's first column, each row's first in-edge's
// source in vertex order: tested first, with a coalesced read instead of the row's (CudaGraph.hubs_first_column).
#ifndef GG_PULL_THREAD_EDGES
#define GG_PULL_THREAD_EDGES 32
#endif

// What gg_program_pull_first_wins does with a candidate it activated: by default keep the offer in its buffer and
// queue it (`out`) for the next round's compute phase. The persistent kernel's GGComputeInPull (persistent.cuh)
// computes it there instead (computes: degree(v) is asked of each unsettled candidate, the candidate handed over
// after its scan, finish() called once at the end by every thread).
struct GGQueueActivated {
    static constexpr bool computes = false;
    __device__ __forceinline__ i64 degree(int) const { return 0; }
    __device__ __forceinline__ void operator()(bool, int, double, double, i64) {}
    __device__ __forceinline__ void finish() {}
};

template <class P, class After = GGQueueActivated>
__device__ void gg_program_pull_first_wins(const i64* t_offsets, const int* t_indices, const float* t_weights,
                                           const int* t_first, int weighted, const u32* active_bits, int n,
                                           const double* value,
                                           double* buffer, const double* message, int monoid, int skip_settled, P p,
                                           GGOut out, const int* sender = nullptr, After after = After{}) {
    // every sender of a first-wins round carries the same message (program.py): read it once, from one sender,
    // instead of a message per in-edge (sender null: per in-edge, speculatively)
    const bool uniform = sender != nullptr;
    const double round_message = uniform ? message[*sender] : 0.0;
    const int lane = gg_lane();
    const int stride = gridDim.x * blockDim.x;
    for (int base = blockIdx.x * blockDim.x; base < n; base += stride) {  // the same trip count for a whole warp
        const int v = base + threadIdx.x;
        bool activated = false;
        double val = 0.0, buf = 0.0;
        i64 step = 0, end = 0, degree = 0;
        int first = -1;
        if (v < n) {
            val = value[v];
            buf = buffer[v];
            end = t_offsets[v + 1];
            step = t_offsets[v];
            if (t_first) first = t_first[v];
            if (skip_settled && p.settled(val)) step = end;
            else if (After::computes) degree = after.degree(v);
        }
        // the row's first in-edge from the CSC's first column (t_first: read with the row's bounds, in vertex order),
        // where a bottom-up round finds most parents, so most candidates never read their row
        if (t_first && step < end) {
            if (gg_test_bit(active_bits, first)) {
                const double c = p.edge(uniform ? round_message : message[first], gg_weight(t_weights, weighted, step));
                if (gg_improves(monoid, buf, c)) {
                    buf = c;
                    activated = true;
                }
            }
            ++step;
        }
        const i64 limit = min(end, step + GG_PULL_THREAD_EDGES);
        for (; step < limit && !activated; step += GG_PULL_ILP) {
            int u[GG_PULL_ILP];
            #pragma unroll
            for (int j = 0; j < GG_PULL_ILP; ++j) u[j] = step + j < end ? t_indices[step + j] : -1;
            bool on[GG_PULL_ILP];
            double m[GG_PULL_ILP];
            #pragma unroll
            for (int j = 0; j < GG_PULL_ILP; ++j) {
                on[j] = u[j] >= 0 && gg_test_bit(active_bits, u[j]);
                m[j] = uniform ? round_message : u[j] >= 0 ? message[u[j]] : 0.0;
            }
            #pragma unroll
            for (int j = 0; j < GG_PULL_ILP; ++j) {
                if (!on[j] || activated) continue;
                const double c = p.edge(m[j], gg_weight(t_weights, weighted, step + j));
                if (gg_improves(monoid, buf, c)) {
                    buf = c;
                    activated = true;
                }
            }
        }
        // the rows left (in-edges [step, end) unscanned, no parent yet), each by the whole warp in turn
        u32 left = __ballot_sync(GG_FULL_MASK, step < end && !activated);
        while (left) {
            const int leader = __ffs(left) - 1;
            left &= left - 1;
            const i64 first = __shfl_sync(GG_FULL_MASK, step, leader);
            const i64 last = __shfl_sync(GG_FULL_MASK, end, leader);
            const double old = __shfl_sync(GG_FULL_MASK, buf, leader);
            for (i64 k0 = first; k0 < last; k0 += GG_WARP) {
                const i64 k = k0 + lane;
                double c = 0.0;
                bool hit = false;
                if (k < last) {
                    const int u = t_indices[k];
                    if (gg_test_bit(active_bits, u)) {
                        c = p.edge(uniform ? round_message : message[u], gg_weight(t_weights, weighted, k));
                        hit = gg_improves(monoid, old, c);
                    }
                }
                const u32 hits = __ballot_sync(GG_FULL_MASK, hit);
                if (hits) {  // the first hit in row order wins
                    c = __shfl_sync(GG_FULL_MASK, c, __ffs(hits) - 1);
                    if (lane == leader) {
                        buf = c;
                        activated = true;
                    }
                    break;
                }
            }
        }
        if constexpr (After::computes) {
            after(activated, v, val, buf, degree);
        } else {
            if (activated) buffer[v] = buf;
            gg_emit(out, activated, v);
        }
    }
    after.finish();
}

// A program's pull round, G lanes a candidate, and the one place that decides how it runs: a first-wins program with
// an idempotent accumulate (every sender carries the same message; min/max/or) pulls a thread per candidate through
// gg_program_pull_first_wins, which stops at the first parent and hands a long row to its warp late; any other
// program (sums, groups of 4-32 lanes, every source active) through gg_pull_vertex_group, which warp-gathers rows
// of GG_PULL_GATHER_DEGREE in-edges and more when G == 1. `sender` (persistent kernel): a sender of this round;
// `t_first`: the CSC's first column (the first-wins pull's).
// Whether a pull round runs gg_program_pull_first_wins (a thread a candidate, stopping at the first parent): a
// first-wins program with an idempotent accumulate, one lane a candidate, and not every source active. The rule
// gg_program_pull dispatches on, and the persistent kernel's test for computing in such a pull (GGComputeInPull).
__device__ __forceinline__ bool gg_pulls_first_wins(int group, int first_wins, int monoid, int all_active) {
    return group == 1 && first_wins && monoid != GG_SUM && !all_active;
}

template <int G, class P>
__device__ void gg_program_pull(const i64* t_offsets, const int* t_indices, const float* t_weights, int weighted,
                                const u32* active_bits, int all_active, int n, const double* value, double* buffer,
                                const double* message, int monoid, int first_wins, int skip_settled, P p, GGOut out,
                                const int* sender = nullptr, const int* t_first = nullptr) {
    if (gg_pulls_first_wins(G, first_wins, monoid, all_active)) {
        gg_program_pull_first_wins(t_offsets, t_indices, t_weights, t_first, weighted, active_bits, n, value, buffer,
                                   message, monoid, skip_settled, p, out, sender);
        return;
    }
    GGProgramCandidate<P> c{value, skip_settled, p};
    if (!first_wins && monoid != GG_SUM) {
        gg_reduce_vertex_group<G>(t_offsets, t_indices, t_weights, weighted, active_bits, all_active, n, c,
                                  GGProgramReduce<P>{message, buffer, monoid, p}, out);
        return;
    }
    GGProgramPull<P> f{message, buffer, monoid, first_wins, p};
    gg_pull_vertex_group<G>(t_offsets, t_indices, t_weights, weighted, active_bits, all_active, n, c, f, out);
}

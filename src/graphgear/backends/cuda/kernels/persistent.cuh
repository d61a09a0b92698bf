// Persistent traversal kernel: a vertex program's rounds inside ONE launch, separated by grid barriers (about 1 us
// each on Hopper, against ~8 us per launch and 10-17 us per host read-back). This is graphgear's sync="async" on the
// GPU and the device half of SEP-Graph's Algorithm 2: the push/pull switch is decided on the device each round from
// counters every block reads after the barrier, with the same rules as engine/controller.py TraversalController.
//
// Round r (worklist Q of qsize vertices):
//   A  compute() on Q; the vertices that send go to the sender queue S (warp-aggregated appends) and their out-degrees
//      are summed (outDegree(A)); the claim bits of Q's entries are cleared for this round's output.
//   -- grid barrier; every thread reads |S| and outDegree(S) and takes the same push/pull decision
//   B  push: S's out-edges through the chosen advance load balancer, exact duplicate removal by claim bits -> Q'
//      pull: S into the active-source bitmap, -- barrier --, every unsettled vertex scans its in-edges (early exit
//            for first-wins programs) -> Q'
//   -- grid barrier; Q <- Q'
// Block 0 logs each round (|Q|, |S|, outDegree(S), direction, %globaltimer) for the host's trace.
//
// Co-residency: the host launches at most (blocks resident per SM) x (SMs) blocks. The barrier gives up after
// GG_BARRIER_TIMEOUT_NS and raises the abort flag, so a launch that cannot be co-resident fails instead of hanging.
#pragma once
#include "advance.cuh"
#include "pull.cuh"
#include "program.cuh"

#define GG_BARRIER_TIMEOUT_NS 4000000000ull
#define GG_LOG_FIELDS 5
#define GG_DIR_PUSH 0
#define GG_DIR_PULL 1

__device__ __forceinline__ u64 gg_globaltimer() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Grid-wide barrier (sense by generation count): bar[0] arrivals, bar[1] generation. Returns false after an abort.
__device__ __forceinline__ bool gg_grid_sync(u32* bar, volatile int* status) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile u32* generation = bar + 1;
        const u32 g = *generation;
        __threadfence();
        if (atomicAdd(bar, 1u) == gridDim.x - 1) {
            atomicExch(bar, 0u);
            __threadfence();
            atomicAdd(bar + 1, 1u);
        } else {
            const u64 start = gg_globaltimer();
            while (*generation == g && status[0] == 0) {
                __nanosleep(64);
                if (gg_globaltimer() - start > GG_BARRIER_TIMEOUT_NS) atomicExch((int*)status, 1);
            }
        }
        __threadfence();
    }
    __syncthreads();
    return status[0] == 0;
}

__device__ __forceinline__ u32 gg_load(const u32* p) { return *(volatile const u32*)p; }
__device__ __forceinline__ u64 gg_load(const u64* p) { return *(volatile const u64*)p; }

// Everything the persistent kernel keeps besides the program's arrays (allocated once per graph by the backend).
struct GGPersistentState {
    int* queue[2];      // Q and Q', swapped each round
    int* senders[2];    // S by round parity (the previous round's S clears its active bits)
    u32* counters;      // 3 slots x 2: |S|, |Q'|   (slot r % 3; slot (r + 1) % 3 is reset in round r)
    u64* edges;         // 3 slots: outDegree(S)
    u32* claim_bits;    // exact duplicate removal of Q'
    u32* active_bits;   // S as a bitmap for pull
    u32* barrier;       // 2 words
    int* status;        // [0] abort, [1] rounds run, [2] final |Q|, [3] index of the queue holding Q
    i64* log;           // GG_LOG_FIELDS per round, log_rows rounds at most (later rounds are counted, not logged)
    int log_rows;
};

// The device rules: mode 0 push only, 1 pull only, 2 SEP-Graph Algorithm 2 (alpha, beta, E' = gamma |E|).
struct GGRules {
    int mode;
    double alpha;
    double beta;
    double unexplored;
};

template <int PULL_GROUP, class P, class Expand>
__device__ void gg_program_persistent(const i64* offsets, const int* indices, const float* weights, int weighted,
                                      const i64* t_offsets, const int* t_indices, const float* t_weights, int n,
                                      double* value, double* buffer, double* message, int monoid, int first_wins,
                                      int skip_settled, int supports, int qsize, int max_rounds, GGRules rules,
                                      GGPersistentState st, P p) {
    const int stride = gridDim.x * blockDim.x;
    const int lane = gg_lane();
    volatile int* status = st.status;
    int in = 0;
    int policy = rules.mode == 1 ? GG_DIR_PULL : GG_DIR_PUSH;
    double unexplored = rules.unexplored;
    int previous_pull_senders = -1;  // parity of the sender queue whose active bits are still set
    u32 previous_count = 0;
    int r = 0;
    for (; r < max_rounds && qsize > 0; ++r) {
        const int slot = r % 3;
        const int next = (r + 1) % 3;
        int* Q = st.queue[in];
        int* S = st.senders[r & 1];
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            st.counters[2 * next] = 0;
            st.counters[2 * next + 1] = 0;
            st.edges[next] = 0;
        }
        // A: compute, compact the senders, clear claim bits (and the previous pull round's active bits)
        if (previous_pull_senders >= 0) {
            const int* old = st.senders[previous_pull_senders];
            for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (int)previous_count; i += stride) {
                const int u = old[i];
                atomicAnd(&st.active_bits[u >> 5], ~(1u << (u & 31)));
            }
            previous_pull_senders = -1;
        }
        for (int base = blockIdx.x * blockDim.x; base < qsize; base += stride) {
            const int i = base + threadIdx.x;
            bool send = false;
            int u = -1;
            u64 degree = 0;
            if (i < qsize) {
                u = Q[i];
                atomicAnd(&st.claim_bits[u >> 5], ~(1u << (u & 31)));
                const i64 d = offsets[u + 1] - offsets[u];
                double val = value[u], buf = buffer[u], msg;
                p.compute(val, buf, d, msg, send);
                value[u] = val;
                buffer[u] = buf;
                message[u] = msg;
                if (send) degree = (u64)d;
            }
            gg_warp_append(send, u, S, &st.counters[2 * slot]);
            #pragma unroll
            for (int k = 16; k > 0; k >>= 1) degree += __shfl_xor_sync(GG_FULL_MASK, degree, k);
            if (lane == 0 && degree) atomicAdd((unsigned long long*)&st.edges[slot], (unsigned long long)degree);
        }
        if (!gg_grid_sync(st.barrier, status)) return;
        const u32 ns = gg_load(&st.counters[2 * slot]);
        const u64 ne = gg_load(&st.edges[slot]);
        // SEP-Graph Algorithm 2, replicated in every thread (every thread reads the same counters)
        if (rules.mode == 2 && r > 0) {
            if (policy == GG_DIR_PUSH) {
                unexplored -= (double)ne;
                if ((double)ne > unexplored / rules.alpha) policy = GG_DIR_PULL;
            } else if ((double)ns < (double)n / rules.beta) {
                policy = GG_DIR_PUSH;
            }
        }
        if (blockIdx.x == 0 && threadIdx.x == 0 && r < st.log_rows) {
            i64* row = st.log + (i64)r * GG_LOG_FIELDS;
            row[0] = qsize;
            row[1] = ns;
            row[2] = (i64)ne;
            row[3] = policy;
            row[4] = (i64)gg_globaltimer();
        }
        int* Qn = st.queue[in ^ 1];
        u32* out_count = &st.counters[2 * slot + 1];
        if (ns > 0) {
            if (policy == GG_DIR_PUSH) {
                GGProgramPush<P> f{message, buffer, monoid, p};
                GGOut out{Qn, out_count, st.claim_bits, nullptr, 1};
                Expand::run(offsets, indices, weights, weighted, S, (int)ns, f, out, supports);
            } else {
                for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (int)ns; i += stride) {
                    const int u = S[i];
                    atomicOr(&st.active_bits[u >> 5], 1u << (u & 31));
                }
                if (!gg_grid_sync(st.barrier, status)) return;
                GGProgramCandidate<P> c{value, skip_settled, p};
                GGProgramPull<P> f{message, buffer, monoid, first_wins, p};
                GGOut out{Qn, out_count, nullptr, nullptr, 0};
                gg_pull_vertex_group<PULL_GROUP>(t_offsets, t_indices, t_weights, weighted, st.active_bits, 0, n, c, f,
                                                 out);
                previous_pull_senders = r & 1;
                previous_count = ns;
            }
        }
        if (!gg_grid_sync(st.barrier, status)) return;
        qsize = ns > 0 ? (int)gg_load(out_count) : 0;
        in ^= 1;
    }
    if (previous_pull_senders >= 0) {  // leave the active bitmap clear for the next launch
        const int* old = st.senders[previous_pull_senders];
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (int)previous_count; i += stride) {
            const int u = old[i];
            atomicAnd(&st.active_bits[u >> 5], ~(1u << (u & 31)));
        }
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < qsize; i += stride) {  // rounds left: unclaim Q
        const int u = st.queue[in][i];
        atomicAnd(&st.claim_bits[u >> 5], ~(1u << (u & 31)));
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        status[1] = r;
        status[2] = qsize;
        status[3] = in;
        st.log[(i64)(r < st.log_rows ? r : st.log_rows) * GG_LOG_FIELDS + 4] = (i64)gg_globaltimer();
    }
}

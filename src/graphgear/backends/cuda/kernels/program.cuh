// Vertex programs (SEP-Graph, Table 1) on the GPU: compute per vertex, then push (through every advance load
// balancer, accumulating atomically) or pull (through the pull kernel). P is the program:
//   __device__ void compute(double& value, double& buffer, i64 degree, double& message, bool& send) const;
//   __device__ double edge(double message, float weight) const;
//   __device__ bool settled(double value) const;
#pragma once
#include "common.cuh"

#define GG_MIN 0
#define GG_MAX 1
#define GG_SUM 2
#define GG_OR 3

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

// compute() on the listed vertices (vertices == 0: all n vertices); send[v] = whether v sends this round
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
        message[v] = msg;
        send[v] = s ? 1 : 0;
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
        if (visited && gg_test_bit(visited, v)) return false;
        const double c = p.edge(coherent ? __ldcg(message + u) : message[u], w);
        if (!gg_improves(monoid, buffer[v], c)) return false;
        if (!gg_accumulate(monoid, buffer + v, c)) return false;
        if (visited) atomicOr(&visited[v >> 5], 1u << (v & 31));
        return true;
    }
};

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

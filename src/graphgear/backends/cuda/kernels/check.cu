// Compile check for CI (nvcc -arch=sm_90): instantiates every kernel template with small example functors, the way
// runtime.py instantiates them with generated functors at run time.
#include "advance.cuh"
#include "pull.cuh"
#include "program.cuh"
#include "power.cuh"  // its extern "C" gg_power_iteration compiles with this file
#include "dense.cuh"  // its extern "C" kernels (MultiGraphD) too

struct ExampleVisit {  // BFS-style claim of unvisited vertices
    int* level;
    int depth;
    __device__ bool operator()(int u, int v, float w) const { return level[v] < 0 && atomicCAS(level + v, -1, depth) == -1; }
};

struct ExampleParent {
    const int* level;
    int depth;
    __device__ int operator()(int v, int u, float w) const { return level[u] == depth - 1 ? (GG_ACTIVATE | GG_STOP) : 0; }
};

struct ExampleUnvisited {
    const int* level;
    __device__ bool operator()(int v) const { return level[v] < 0; }
};

struct ExampleDegree {
    __device__ double operator()(int v, int u, float w) const { return w; }
};

struct ExampleProgram {  // BFS as a vertex program
    const double* params;
    __device__ void compute(double& value, double& buffer, i64 degree, double& message, bool& send) const {
        message = value; send = false;
        if (buffer < value) { value = buffer; message = value; send = true; }
    }
    __device__ double edge(double message, float weight) const { return message + 1.0; }
    __device__ bool settled(double value) const { return value < 1e300; }
};

extern "C" __global__ void check_advance(const i64* offsets, const int* indices, const float* weights, const int* queue,
                                         int qsize, const i64* scan, GGOut out, int* level, int depth) {
    ExampleVisit f{level, depth};
    gg_advance_vertex_group<1>(offsets, indices, weights, 1, queue, qsize, f, out, GG_WARP_GATHER | GG_BLOCK_GATHER);
    gg_advance_vertex_group<4>(offsets, indices, weights, 1, queue, qsize, f, out, 0);
    gg_advance_vertex_group<16>(offsets, indices, weights, 1, queue, qsize, f, out, 0);
    gg_advance_vertex_group<32>(offsets, indices, weights, 1, queue, qsize, f, out, 0);
    gg_advance_twc(offsets, indices, weights, 1, queue, qsize, f, out, GG_DEDUP_WARP);
    gg_advance_vertex_group<4>(offsets, indices, weights, 1, queue, qsize, f, out, GG_DEDUP_BLOCK);
    gg_advance_warp_scan(offsets, indices, weights, 1, queue, qsize, f, out, GG_WARP_GATHER | GG_BLOCK_GATHER);
    gg_advance_merge_path(offsets, indices, weights, 1, queue, qsize, scan, 1024, f, out);
    gg_advance_three_stage(offsets, indices, weights, 1, queue, qsize, f, out);
    gg_advance_block_scan(offsets, indices, weights, 1, queue, qsize, f, out, GG_WARP_GATHER);
    gg_advance_hierarchical(offsets, indices, weights, 1, queue, qsize, f, out, GG_DEDUP_WARP);
    gg_advance_edges(indices, weights, 1, queue, qsize, f, out);  // the two-phase queue's contract
}

extern "C" __global__ void check_pull(const i64* t_offsets, const int* t_indices, const float* t_weights,
                                      const u32* bits, int n, int* level, int depth, unsigned char* next) {
    ExampleParent f{level, depth};
    ExampleUnvisited c{level};
    gg_pull_vertex_group<1>(t_offsets, t_indices, t_weights, 0, bits, 0, n, c, f, GGOut{nullptr, nullptr, nullptr, next, 2});
    gg_pull_vertex_group<8>(t_offsets, t_indices, t_weights, 0, bits, 0, n, c, f, GGOut{nullptr, nullptr, nullptr, next, 2});
    gg_pull_vertex_group<32>(t_offsets, t_indices, t_weights, 0, bits, 0, n, c, f, GGOut{nullptr, nullptr, nullptr, next, 2});
}

extern "C" __global__ void check_program(const i64* offsets, const int* indices, const float* weights, const int* queue,
                                         int qsize, GGOut out, double* value, double* buffer, double* message,
                                         unsigned char* send, const double* params, const u32* bits, unsigned char* next,
                                         double* reduced) {
    ExampleProgram p{params};
    gg_program_compute(queue, qsize, offsets, value, buffer, message, send, p);
    GGProgramPush<ExampleProgram> push{message, buffer, GG_MIN, p};
    gg_advance_twc(offsets, indices, weights, 0, queue, qsize, push, out, 0);
    gg_program_push_segmented(offsets, indices, weights, 1, queue, qsize, 8192, (const int*)bits, push, out);  // MultiGraphS whole
    GGProgramCandidate<ExampleProgram> cand{value, 1, p};
    GGProgramPull<ExampleProgram> pull{message, buffer, GG_MIN, 1, p};
    gg_pull_vertex_group<1>(offsets, indices, weights, 0, bits, 0, qsize, cand, pull, GGOut{nullptr, nullptr, nullptr, next, 2});
    GGProgramReduce<ExampleProgram> reduce{message, buffer, GG_MIN, p};
    gg_reduce_vertex_group<1>(offsets, indices, weights, 1, bits, 0, qsize, cand, reduce, GGOut{nullptr, nullptr, nullptr, next, 2});
    gg_reduce_vertex_group<8>(offsets, indices, weights, 1, bits, 1, qsize, cand, reduce, GGOut{nullptr, nullptr, nullptr, next, 2});
    gg_neighbor_reduce<8>(offsets, indices, weights, 1, qsize, queue, 0, ExampleDegree{}, GG_SUM, 0.0, 4096, false, reduced);
    gg_neighbor_reduce_chunks(indices, weights, 1, queue, offsets, offsets + 1, qsize, next, ExampleDegree{}, GG_MIN,
                              1e300, reduced);
    gg_mask_to_bits(next, qsize, (u32*)bits);
    gg_mask_to_queue(next, qsize, (int*)queue, out.counter);
    gg_queue_to_mask(queue, qsize, next);
}

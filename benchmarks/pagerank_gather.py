"""Where PageRank's gather spends its time, and the hubs' contributions staged in shared memory (MultiGraph's heavy
source block kept on chip) against plain loads: one stand-alone kernel per variant over the degree-renumbered CSC,
CUDA events, median of 30 (the measurements behind backends/cuda/power.py's POWER_BLOCK).

    PYTHONPATH=src python3 benchmarks/pagerank_gather.py [spec]

Variants: plain (double or float contributions), stream (the indices only: no contribution read), l1 (every read
hits one 32 KB span), smem (the first K sources' contributions in shared memory), na (indices loaded without L1
allocation); K and blocks x threads per SM in each row.
"""
import sys
import numpy as np
import scipy.sparse as sp
import cupy as cp
import graphgear as gg
from graphgear.graph.layout import degree_renumbering

SRC = r'''
typedef long long i64;
__device__ __forceinline__ int ld_na(const int* p) {
    int v;
    asm volatile("ld.global.nc.L1::no_allocate.b32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
template <int MODE>
__device__ __forceinline__ int load_i(const int* idx, i64 k) { return MODE >= 4 ? ld_na(idx + k) : idx[k]; }
template <typename T, int MODE>
__device__ __forceinline__ double load_c(const T* c, const T* tab, int K, int u) {
    if (MODE == 1) return (double)u;                // stream only: no contribution read
    if (MODE == 2) return (double)c[u & 4095];      // every read an L1 hit
    if (MODE == 3 || MODE == 5) { const T* p = u < K ? tab + u : c + u; return (double)*p; }  // hubs from shared memory
    return (double)c[u];
}
template <typename T, int MODE, int G>
__device__ void rows(const i64* off, const int* idx, const T* c, const T* tab, int K, double* s, int r0, int r1, i64 huge) {
    const int lane = threadIdx.x % G;
    const int groups = gridDim.x * blockDim.x / G;
    const unsigned mask = G == 32 ? 0xffffffffu : (((1u << G) - 1u) << ((threadIdx.x & 31) / G * G));
    for (int v = r0 + (blockIdx.x * blockDim.x + threadIdx.x) / G; v < r1; v += groups) {
        const i64 a = off[v], b = off[v + 1];
        if (b - a >= huge) continue;
        double acc = 0.0;
        #pragma unroll 4
        for (i64 k = a + lane; k < b; k += G) acc += load_c<T, MODE>(c, tab, K, load_i<MODE>(idx, k));
        for (int d = G / 2; d > 0; d >>= 1) acc += __shfl_down_sync(mask, acc, d, G);
        if (lane == 0) s[v] = acc;
    }
}
template <typename T, int MODE>
__device__ void gather(const int* crow, const i64* ck0, const i64* ck1, int nchunks, const i64* off, const int* idx,
                       const T* c, int K, double* s, int a1, int b1, int n, i64 huge) {
    extern __shared__ unsigned char raw[];
    T* tab = reinterpret_cast<T*>(raw);
    if (MODE == 3 || MODE == 5) {
        for (int i = threadIdx.x; i < K; i += blockDim.x) tab[i] = c[i];
        __syncthreads();
    }
    const int warps = blockDim.x / 32, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int ch = blockIdx.x * warps + warp; ch < nchunks; ch += gridDim.x * warps) {
        double acc = 0.0;
        for (i64 k = ck0[ch] + lane; k < ck1[ch]; k += 32) acc += load_c<T, MODE>(c, tab, K, load_i<MODE>(idx, k));
        for (int d = 16; d > 0; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
        if (lane == 0) atomicAdd(s + crow[ch], acc);
    }
    rows<T, MODE, 32>(off, idx, c, tab, K, s, 0, a1, huge);
    rows<T, MODE, 8>(off, idx, c, tab, K, s, a1, b1, huge);
    rows<T, MODE, 1>(off, idx, c, tab, K, s, b1, n, huge);
}
#define DEF(NAME, T, MODE) extern "C" __global__ void __launch_bounds__(1024) NAME(const int* crow, const i64* ck0, \
    const i64* ck1, int nchunks, const i64* off, const int* idx, const T* c, int K, double* s, int a1, int b1, int n, \
    i64 huge) { gather<T, MODE>(crow, ck0, ck1, nchunks, off, idx, c, K, s, a1, b1, n, huge); }
DEF(plain_d, double, 0)
DEF(plain_f, float, 0)
DEF(stream_d, double, 1)
DEF(l1_d, double, 2)
DEF(smem_d, double, 3)
DEF(smem_f, float, 3)
DEF(na_d, double, 4)
DEF(na_f, float, 4)
DEF(smemna_d, double, 5)
DEF(smemna_f, float, 5)
'''
mod = cp.RawModule(code=SRC, options=("-std=c++17",))
SMS = cp.cuda.Device().attributes["MultiProcessorCount"]

spec = sys.argv[1] if len(sys.argv) > 1 else "kron:21"
g = degree_renumbering(gg.load(spec)).graph
n = g.num_vertices
csr = sp.csr_matrix((np.ones(g.num_arcs), g.indices, g.offsets), shape=(n, n))
csc = csr.T.tocsr()
csc.sort_indices()
indeg = np.diff(csc.indptr)
outdeg = np.diff(csr.indptr)
rng = np.random.default_rng(0)
x = rng.random(n)
inv = np.where(outdeg > 0, 1.0 / np.maximum(outdeg, 1), 0.0)
c_host = x * inv
s_ref = csc @ c_host
cd = cp.asarray(c_host)
cf = cp.asarray(c_host.astype(np.float32))
off = cp.asarray(csc.indptr.astype(np.int64))
idx = cp.asarray(csc.indices.astype(np.int32))
HUGE = 4096
hub = np.flatnonzero(indeg >= HUGE)
r, a, b = [], [], []
for v in hub:
    for k in range(int(csc.indptr[v]), int(csc.indptr[v + 1]), HUGE):
        r.append(v); a.append(k); b.append(min(k + HUGE, int(csc.indptr[v + 1])))
ch = (cp.asarray(np.array(r, np.int32)), cp.asarray(np.array(a, np.int64)), cp.asarray(np.array(b, np.int64)))
# rows are degree-ordered: bins by degree
a1 = int(np.searchsorted(-indeg, -128, side="right"))
b1 = int(np.searchsorted(-indeg, -8, side="right"))


def timed(name, K, block, per_sm, reps=30):
    f = mod.get_function(name)
    T = 4 if name.endswith("_f") else 8
    smem = K * T if name.startswith("smem") else 0
    if smem > 48 * 1024:
        f.max_dynamic_shared_size_bytes = smem
    c = cf if T == 4 else cd
    s = cp.zeros(n)
    args = (ch[0], ch[1], ch[2], np.int32(ch[0].size), off, idx, c, np.int32(K), s, np.int32(a1), np.int32(b1),
            np.int32(n), np.int64(HUGE))
    grid = (SMS * per_sm,)
    f(grid, (block,), args, shared_mem=smem)
    cp.cuda.Device().synchronize()
    out = cp.asnumpy(s)
    ts = []
    for _ in range(reps):
        s.fill(0)
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record(); f(grid, (block,), args, shared_mem=smem); e1.record(); e1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(e0, e1))
    err = np.max(np.abs(out - s_ref) / np.maximum(np.abs(s_ref), 1e-300))
    cov = float(outdeg[:K].sum()) / g.num_arcs if smem else 0
    print(f"{name:>9} K {K:>6} {per_sm}x{block:<5} {np.median(ts)*1e3:7.1f} us  hub-arc share {cov:.2f}  rel err {err:.1e}", flush=True)


print(f"{spec}: n {n:,} arcs {g.num_arcs:,} on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
for name, K, block, per_sm in [("na_d", 0, 256, 5), ("na_d", 0, 256, 8), ("na_d", 0, 1024, 1), ("na_d", 0, 1024, 2), ("na_f", 0, 256, 5),
                               ("smemna_d", 24576, 1024, 1), ("smemna_f", 49152, 1024, 1), ("smemna_f", 24576, 512, 2),
                               ("plain_d", 0, 256, 5), ("plain_d", 0, 256, 8), ("plain_d", 0, 1024, 1), ("plain_d", 0, 1024, 2),
                               ("plain_f", 0, 256, 5), ("plain_f", 0, 256, 8), ("stream_d", 0, 256, 8), ("l1_d", 0, 256, 8),
                               ("smem_d", 24576, 1024, 1), ("smem_d", 12288, 1024, 1), ("smem_d", 12288, 512, 2),
                               ("smem_d", 6144, 256, 4), ("smem_f", 49152, 1024, 1), ("smem_f", 24576, 1024, 2),
                               ("smem_f", 24576, 512, 2), ("smem_f", 12288, 256, 4), ("plain_d", 0, 256, 5)]:
    timed(name, K, block, per_sm)

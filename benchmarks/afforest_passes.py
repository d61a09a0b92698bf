"""Afforest's Link and Compress variants timed pass by pass on the GPU (docs/performance.md#connected-components).

    PYTHONPATH=src python3 benchmarks/afforest_passes.py      (on a GPU machine)

For kron:21:w and grid:2048:2048:w: each sampling round's link and compress timed alone (CuPy RawKernels written
beside the functors of algorithms/connected_components.py; CUDA events, median of 11, the pass's input restored before
each run and the restoring copy's time subtracted), the two rounds together, and a whole Afforest run checked against
SciPy's components. Variants: GAP's Link with volatile loads (the code before session 19), GAP's Link with a plain-load
Compress, ECL-CC's pointer-jumping find with the CAS at once, and the same reading the root before its CAS (the
code's).
"""

from __future__ import annotations

import statistics

import cupy as cp
import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

import graphgear as gg
from graphgear.algorithms._common import canonical_labels
from graphgear.backends import get_backend
from graphgear.bench.gpu import event_seconds

SRC = r'''
__device__ __forceinline__ int rep(int* c, int v) {          // ECL-CC representative: intermediate pointer jumping
  int curr = c[v];
  if (curr != v) {
    int next, prev = v;
    while (curr > (next = c[curr])) { c[prev] = next; prev = curr; curr = next; }
  }
  return curr;
}
__device__ __forceinline__ void ecl_hook(int* c, int a, int b) {
  a = rep(c, a); b = rep(c, b);
  while (a != b) {
    if (a < b) { int r = atomicCAS(c + b, b, a); if (r == b) break; b = r; }
    else       { int r = atomicCAS(c + a, a, b); if (r == a) break; a = r; }
  }
}
__device__ __forceinline__ void ecl_hook2(int* c, int a, int b) {   // read before the CAS
  a = rep(c, a); b = rep(c, b);
  while (a != b) {
    const int high = a > b ? a : b, low = a + b - high;
    int p = c[high];
    if (p == high) { p = atomicCAS(c + high, high, low); if (p == high) break; }
    if (a == high) a = rep(c, p); else b = rep(c, p);
  }
}
__device__ __forceinline__ void gap_hook(int* comp, int a, int b) {
  volatile int* c = comp; int p1 = c[a]; int p2 = c[b];
  while (p1 != p2) {
    const int high = p1 > p2 ? p1 : p2; const int low = p1 + (p2 - high);
    const int p_high = c[high];
    if (p_high == low) break;
    if (p_high == high && atomicCAS(comp + high, high, low) == high) break;
    p1 = c[c[high]]; p2 = c[low];
  }
}
extern "C" __global__ void link_gap(const long long* off, const int* idx, int* comp, int r, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x; if (v >= n) return;
  long long k = off[v] + r; if (k < off[v + 1]) gap_hook(comp, v, idx[k]);
}
extern "C" __global__ void link_ecl(const long long* off, const int* idx, int* comp, int r, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x; if (v >= n) return;
  long long k = off[v] + r; if (k < off[v + 1]) ecl_hook(comp, v, idx[k]);
}
extern "C" __global__ void link_ecl2(const long long* off, const int* idx, int* comp, int r, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x; if (v >= n) return;
  long long k = off[v] + r; if (k < off[v + 1]) ecl_hook2(comp, v, idx[k]);
}
extern "C" __global__ void link_rest_ecl(const long long* off, const int* idx, int* comp, int r, int giant, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x; if (v >= n) return;
  if (comp[v] == giant) return;
  for (long long k = off[v] + r; k < off[v + 1]; ++k) ecl_hook(comp, v, idx[k]);
}
extern "C" __global__ void compress_volatile(int* comp, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x; if (v >= n) return;
  volatile int* c = comp; while (c[v] != c[c[v]]) c[v] = c[c[v]];
}
extern "C" __global__ void compress_plain(int* c, int n) {
  int v = blockIdx.x * blockDim.x + threadIdx.x; if (v >= n) return;
  while (c[v] != c[c[v]]) c[v] = c[c[v]];
}
extern "C" __global__ void flatten_ecl(int* c, int n) {        // read-only walk to the root, one write
  int v = blockIdx.x * blockDim.x + threadIdx.x; if (v >= n) return;
  int old = c[v], s = old, next;
  while (s > (next = c[s])) s = next;
  if (old != s) c[v] = s;
}
'''
VARIANTS = (("link_gap", "compress_volatile"), ("link_gap", "compress_plain"), ("link_ecl", "compress_plain"),
            ("link_ecl2", "compress_plain"))


def etime(fn, repeat: int = 11) -> float:
    """Median milliseconds of fn() between CUDA events, after two warm-up calls."""
    fn()
    fn()
    cp.cuda.runtime.deviceSynchronize()
    return statistics.median(event_seconds(cp, fn) for _ in range(repeat)) * 1e3


def main() -> None:
    module = cp.RawModule(code=SRC, options=("-std=c++17",))

    def launch(name: str, n: int, *args) -> None:
        module.get_function(name)(((n + 255) // 256,), (256,), args)

    for spec in ("kron:21:w", "grid:2048:2048:w"):
        g = gg.load(spec)
        n, n32 = g.num_vertices, np.int32(g.num_vertices)
        G = get_backend("cuda").graph(g)
        off, idx = G.offsets, G.indices
        _, ref = csg.connected_components(sp.csr_matrix((np.ones(g.num_arcs), g.indices, g.offsets), shape=(n, n)),
                                          directed=False)
        pivot = int(np.argmax(g.out_degree()))
        comp = cp.arange(n, dtype=cp.int32)

        def restore(snapshot) -> None:
            comp[:] = snapshot

        def rounds(link: str, compress: str, upto: int = 2) -> None:
            comp[:] = cp.arange(n, dtype=cp.int32)
            for r in range(upto):
                launch(link, n, off, idx, comp, np.int32(r), n32)
                launch(compress, n, comp, n32)

        def whole(link: str, compress: str) -> None:  # both rounds, the final link outside the pivot's tree, compress
            rounds(link, compress)
            giant = np.int32(int(comp[pivot]))
            launch("link_rest_ecl", n, off, idx, comp, np.int32(2), giant, n32)
            launch("flatten_ecl", n, comp, n32)

        def alone(snapshot, fn) -> float:  # fn() from the snapshot, less the restoring copy
            return etime(lambda: (restore(snapshot), fn())) - etime(lambda: restore(snapshot))

        print(f"== {spec}: {n:,} vertices, {g.num_arcs:,} arcs (us)")
        for link, compress in VARIANTS:
            parts = []
            for r in range(2):
                rounds(link, compress, upto=r)
                before_link = comp.copy()
                t_link = alone(before_link, lambda: launch(link, n, off, idx, comp, np.int32(r), n32))
                launch(link, n, off, idx, comp, np.int32(r), n32)
                t_compress = alone(comp.copy(), lambda: launch(compress, n, comp, n32))
                parts.append(f"round {r}: link {t_link * 1e3:6.1f} compress {t_compress * 1e3:6.1f}")
            both = etime(lambda: rounds(link, compress))
            whole(link, compress)
            same = np.array_equal(cp.asnumpy(canonical_labels(comp, roots=True)), ref)
            print(f"  {link:9s} {compress:18s} {'; '.join(parts)}; both rounds {both * 1e3:6.1f}; "
                  f"components equal SciPy's: {same}")


if __name__ == "__main__":
    main()

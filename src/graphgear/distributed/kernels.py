"""The per-rank kernels of the distributed algorithms, one template on both sides (Slota et al.'s portability): numba
for CPU ranks, CUDA C++ compiled by NVRTC through CuPy for GPU ranks, same names, same arguments.

A rank's rows are its own vertices [lo, hi); the ids its arcs name are global. The kernels:

    TDStep          top-down step (Beamer): every arc of the rank's frontier sets its target's bit in a bitmap cut
                    into one block per owner (comm.alltoall hands each owner its blocks)
    Settle          after it: the own vertices whose bit any rank set, not yet visited, join the next level
                    (distance, bit, list)
    BUStep          bottom-up step: every unvisited own vertex scans its in-edges until it meets the (all-gathered)
                    frontier bitmap, and joins the next level
                    Both sum Beamer's counts (n_f, m_f, m_u) in the same pass over the rank's vertices
    Relax           SSSP: every arc of the rank's frontier lowers its target's tentative distance in a global array
    Hook            CC: each own vertex takes the least label over itself and its neighbours (Shiloach-Vishkin's
                    hooking by min label; the shortcut is a gather, done by the caller)
    LevelParents    BFS's predecessors: the smallest in-neighbour one level closer
    TightParents    SSSP's predecessors: the smallest in-neighbour u with dist[u] + w = dist[v]

On the GPU the frontier's arcs are spread over threads by a binary search of each thread's arc in the frontier's
degree prefix sum (Busato & Bombieri's merge-path mapping, device-wide), so a hub's row costs no more than its arcs;
the vertex kernels take one thread per vertex.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

__all__ = ["HostKernels", "DeviceKernels", "kernels_for"]


# ------------------------------------------------------------------------------------------------------------ CPU
@numba.njit(cache=True, nogil=True)
def _begin_level(counts, prev, state):  # pragma: no cover - numba
    prev[0], prev[1] = counts[0], counts[1]
    counts[:4] = 0
    state[0] += 1


@numba.njit(cache=True, nogil=True)
def _td_step(offsets, indices, queue, prev, bounds, mark, stride):  # pragma: no cover - numba
    for i in queue[:prev[0]]:
        for a in range(offsets[i], offsets[i + 1]):
            u = indices[a]
            p = np.searchsorted(bounds, u, side="right") - 1
            v = u - bounds[p]
            mark[p * stride + (v >> 3)] |= np.uint8(128 >> (v & 7))


@numba.njit(cache=True, nogil=True)
def _join(v, joined, level, dist, out_degree, bits, queue, queue_end, n_f, m_f, m_u):  # pragma: no cover - numba
    """An unvisited vertex v's part in the level, returned as the new (n_f, m_f, m_u). If it `joined` the next
    frontier: its distance, its bit (np.packbits' order: the first vertex in the high bit) and slot n_f of the list,
    with the inclusive prefix sum of the list's out-degrees beside it; else its out-arcs count as unvisited."""
    if not joined:
        return n_f, m_f, m_u + out_degree[v]
    dist[v] = level + 1
    bits[v >> 3] |= np.uint8(128 >> (v & 7))
    queue[n_f] = v
    m_f += out_degree[v]
    queue_end[n_f] = m_f
    return n_f + 1, m_f, m_u


@numba.njit(cache=True, nogil=True)
def _bu_step(offsets, indices, dist, frontier, state, out_degree, bits, queue, queue_end, counts):  # pragma: no cover
    n_f, m_f, m_u, level = counts[0], counts[1], counts[2], state[0]
    bits[:] = 0
    for v in range(dist.shape[0]):
        if dist[v] < 0:
            found = False
            for a in range(offsets[v], offsets[v + 1]):
                u = indices[a]
                if frontier[u >> 3] & (128 >> (u & 7)):
                    found = True
                    break
            n_f, m_f, m_u = _join(v, found, level, dist, out_degree, bits, queue, queue_end, n_f, m_f, m_u)
    counts[0], counts[1], counts[2] = n_f, m_f, m_u


@numba.njit(cache=True, nogil=True)
def _settle(reached, ranks, stride, dist, state, out_degree, bits, queue, queue_end, counts):  # pragma: no cover
    n_f, m_f, m_u, level = counts[0], counts[1], counts[2], state[0]
    bits[:] = 0
    for v in range(dist.shape[0]):
        if dist[v] < 0:
            hit = False
            for p in range(ranks):
                if reached[p * stride + (v >> 3)] & (128 >> (v & 7)):
                    hit = True
                    break
            n_f, m_f, m_u = _join(v, hit, level, dist, out_degree, bits, queue, queue_end, n_f, m_f, m_u)
    counts[0], counts[1], counts[2] = n_f, m_f, m_u


@numba.njit(cache=True, nogil=True)
def _relax(offsets, indices, weights, queue, dist, cand):  # pragma: no cover - numba
    for i in queue:
        d = dist[i]
        for a in range(offsets[i], offsets[i + 1]):
            nd = d + np.float64(weights[a]) if weights.shape[0] else d + 1.0
            v = indices[a]
            if nd < cand[v]:
                cand[v] = nd


@numba.njit(cache=True, nogil=True)
def _hook(offsets, indices, labels, lo, out):  # pragma: no cover - numba
    for i in range(out.shape[0]):
        best = labels[lo + i]
        for a in range(offsets[i], offsets[i + 1]):
            x = labels[indices[a]]
            if x < best:
                best = x
        if best < out[i]:
            out[i] = best


@numba.njit(cache=True, nogil=True)
def _level_parents(offsets, indices, dist, lo, out):  # pragma: no cover - numba
    for i in range(out.shape[0]):
        d = dist[lo + i]
        out[i] = -1
        if d > 0:
            best = -1
            for a in range(offsets[i], offsets[i + 1]):
                u = indices[a]
                if dist[u] == d - 1 and (best < 0 or u < best):
                    best = u
            out[i] = best


@numba.njit(cache=True, nogil=True)
def _tight_parents(offsets, indices, weights, dist, lo, source, out):  # pragma: no cover - numba
    for i in range(out.shape[0]):
        v = lo + i
        d = dist[v]
        out[i] = -1
        if v != source and d < np.inf:
            best = -1
            for a in range(offsets[i], offsets[i + 1]):
                u = indices[a]
                w = np.float64(weights[a]) if weights.shape[0] else 1.0
                if dist[u] + w == d and u != v and (best < 0 or u < best):
                    best = u
            out[i] = best


_EMPTY32 = np.zeros(0, dtype=np.float32)


class HostKernels:
    """The kernels on NumPy arrays (numba, compiled once and cached on disk)."""

    xp = np
    max_rank_vertices = max_rank_arcs = 1 << 62  # what a rank's BFS frontier list can hold
    level_graphs = False  # BFS's levels run eagerly (distributed/bfs.py)

    @staticmethod
    def begin_level(counts: Any, prev: Any, state: Any) -> None:
        _begin_level(counts, prev, state)

    @staticmethod
    def td_step(offsets: Any, indices: Any, queue: Any, queue_end: Any, prev: Any, bounds: Any, mark: Any,
                stride: int) -> None:
        _td_step(offsets, indices, queue, prev, bounds, mark, stride)

    @staticmethod
    def bu_step(offsets: Any, indices: Any, dist: Any, frontier: Any, state: Any, out_degree: Any, bits: Any,
                queue: Any, queue_end: Any, counts: Any) -> None:
        _bu_step(offsets, indices, dist, frontier, state, out_degree, bits, queue, queue_end, counts)

    @staticmethod
    def settle(reached: Any, ranks: int, stride: int, dist: Any, state: Any, out_degree: Any, bits: Any, queue: Any,
               queue_end: Any, counts: Any) -> None:
        _settle(reached, ranks, stride, dist, state, out_degree, bits, queue, queue_end, counts)

    @staticmethod
    def relax(offsets: Any, indices: Any, weights: Any, queue: Any, dist: Any, cand: Any) -> None:
        _relax(offsets, indices, _EMPTY32 if weights is None else weights, queue, dist, cand)

    @staticmethod
    def hook(offsets: Any, indices: Any, labels: Any, lo: int, out: Any) -> None:
        _hook(offsets, indices, labels, lo, out)

    @staticmethod
    def level_parents(offsets: Any, indices: Any, dist: Any, lo: int, size: int) -> Any:
        out = np.empty(size, dtype=np.int64)
        _level_parents(offsets, indices, dist, lo, out)
        return out

    @staticmethod
    def tight_parents(offsets: Any, indices: Any, weights: Any, dist: Any, lo: int, source: int, size: int) -> Any:
        out = np.empty(size, dtype=np.int64)
        _tight_parents(offsets, indices, _EMPTY32 if weights is None else weights, dist, lo, source, out)
        return out


# ------------------------------------------------------------------------------------------------------------ GPU
CUDA_SOURCE = r"""
// The frontier's arcs, one thread each: arc t of the frontier belongs to queue[k] for the last k with start[k] <= t
// (start: the exclusive prefix sum of the frontier's degrees), found by binary search.
__device__ __forceinline__ long long frontier_row(const long long* start, long long count, long long t) {
  long long lo = 0, hi = count - 1;
  while (lo < hi) {
    const long long mid = (lo + hi + 1) >> 1;
    if (start[mid] <= t) lo = mid; else hi = mid - 1;
  }
  return lo;
}

template <typename I, typename W>
__global__ void relax(const long long* offsets, const I* indices, const W* weights, const long long* queue,
                      const long long* start, long long count, long long arcs, const double* dist, double* cand) {
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < arcs; t += (long long)gridDim.x * blockDim.x) {
    const long long k = frontier_row(start, count, t);
    const long long u = queue[k];
    const long long a = offsets[u] + (t - start[k]);
    const double nd = dist[u] + (weights ? (double)weights[a] : 1.0);
    // non-negative doubles order as their bit patterns: an integer atomic min is a float min
    atomicMin((unsigned long long*)&cand[indices[a]], (unsigned long long)__double_as_longlong(nd));
  }
}

// A vertex joins the next frontier. The vertex loops below give a warp 32 consecutive vertices starting on a multiple of
// 32, so their bits are one whole word of the next frontier's bitmap (np.packbits' order: the first vertex in the high
// bit of the first byte), which lane 0 writes from the warp's ballot: no atomics, and no clearing beforehand. The list
// takes the vertices that joined with Busato & Bombieri's online prefix sum: one 64-bit atomicAdd a warp on `fill`
// (list length << 34 | their out-degrees' sum) gives the warp its slots and its degrees' place at once, so end[] holds
// the inclusive prefix sum of the degrees in list order (the next top-down step's merge-path) with no scan.
__device__ __forceinline__ void join(unsigned int* words, long long* queue, long long* end, unsigned long long* fill,
                                     long long v, long long degree, bool joined) {
  const unsigned active = __activemask();  // lanes 0..k-1: the vertices below size
  const unsigned ballot = __ballot_sync(active, joined);
  const int lane = threadIdx.x & 31;
  if (lane == 0) words[v >> 5] = __byte_perm(__brev(ballot), 0, 0x0123);
  if (!ballot) return;
  long long sum = joined ? degree : 0;  // inclusive scan of the joined degrees over the warp
  for (int o = 1; o < 32; o <<= 1) {
    const long long y = __shfl_up_sync(active, sum, o);
    if (lane >= o) sum += y;
  }
  const long long total = __shfl_sync(active, sum, 31 - __clz(active));
  unsigned long long base = 0;
  if (lane == 0) base = atomicAdd(fill, ((unsigned long long)__popc(ballot) << 34) | (unsigned long long)total);
  base = __shfl_sync(active, base, 0);
  if (joined) {
    const unsigned long long slot = (base >> 34) + __popc(ballot & ((1u << lane) - 1));
    queue[slot] = v;
    end[slot] = (long long)(base & ((1ull << 34) - 1)) + sum;
  }
}

// The level's n_f (vertices that joined), m_f (their out-arcs) and m_u (out-arcs of those still unvisited): a warp's
// sums, one atomic each a warp.
__device__ __forceinline__ void add_counts(unsigned long long* counts, long long n_f, long long m_f, long long m_u) {
  for (int o = 16; o; o >>= 1) {
    n_f += __shfl_down_sync(0xffffffffu, n_f, o);
    m_f += __shfl_down_sync(0xffffffffu, m_f, o);
    m_u += __shfl_down_sync(0xffffffffu, m_u, o);
  }
  if ((threadIdx.x & 31) == 0) {
    if (n_f) atomicAdd(counts, (unsigned long long)n_f);
    if (m_f) atomicAdd(counts + 1, (unsigned long long)m_f);
    if (m_u) atomicAdd(counts + 2, (unsigned long long)m_u);
  }
}

// Top-down: the frontier's out-arcs, one thread each (merge-path over `end`, the inclusive prefix sum of the
// frontier's degrees: arc t belongs to queue[k] for the first k with end[k] > t), each setting its target's bit in its
// owner's block of the bitmap (`stride` bytes, whole words, a block; bounds: the ranks' first vertices, then n). The
// blocks go to their owners (comm.alltoall). A bit already set is not set again: a hub's many in-arcs cost reads.
__device__ __forceinline__ long long frontier_row_incl(const long long* end, long long count, long long t) {
  long long lo = 0, hi = count - 1;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (end[mid] > t) hi = mid; else lo = mid + 1;
  }
  return lo;
}

// A level's first step: the last level's list length and arcs kept for the top-down step (prev), the counts cleared,
// the level advanced. The level and the list's size live on the device, so a level's launches never change and run as
// one CUDA graph (distributed/bfs.py).
__global__ void begin_level(unsigned long long* counts, long long* prev, long long* state) {
  prev[0] = counts[0];
  prev[1] = counts[1];
  counts[0] = counts[1] = counts[2] = counts[3] = 0;
  ++state[0];
}

template <typename I>
__global__ void td_step(const long long* offsets, const I* indices, const long long* queue, const long long* end,
                        const long long* prev, const long long* bounds, int ranks, long long stride,
                        unsigned char* mark) {
  const long long count = prev[0], arcs = prev[1];
  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < arcs; t += (long long)gridDim.x * blockDim.x) {
    const long long k = frontier_row_incl(end, count, t);
    const long long u = indices[offsets[queue[k]] + (t - (k ? end[k - 1] : 0))];
    int lo = 0, hi = ranks - 1;  // the owner: the last rank whose first vertex is <= u
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (bounds[mid] <= u) lo = mid; else hi = mid - 1;
    }
    const long long v = u - bounds[lo], b = lo * stride + (v >> 3);
    unsigned int* word = (unsigned int*)mark + (b >> 2);
    const unsigned int bit = (128u >> (v & 7)) << ((b & 3) * 8);
    if (!(*word & bit)) atomicOr(word, bit);
  }
}

// counts: n_f, m_f, m_u, then `fill` (join's packed list tail), all zero on entry. The vertex loops keep every lane of
// a warp on consecutive vertices (blockDim a multiple of 32), as join() needs.
template <typename I>
__global__ void bu_step(const long long* offsets, const I* indices, long long* dist, const unsigned char* frontier,
                        const long long* state, const long long* out_degree, unsigned int* words, long long* queue,
                        long long* end, unsigned long long* counts, long long size) {
  const long long level = state[0];
  long long n_f = 0, m_f = 0, m_u = 0;
  for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < size; v += (long long)gridDim.x * blockDim.x) {
    bool joined = false;
    long long degree = 0;
    if (dist[v] < 0) {
      degree = out_degree[v];
      for (long long a = offsets[v], e = offsets[v + 1]; a < e; ++a) {
        const long long u = indices[a];
        if (frontier[u >> 3] & (128u >> (u & 7))) { joined = true; break; }
      }
      if (joined) { dist[v] = level + 1; ++n_f; m_f += degree; } else m_u += degree;
    }
    join(words, queue, end, counts + 3, v, degree, joined);
  }
  add_counts(counts, n_f, m_f, m_u);
}

// After a top-down step: the own vertices whose bit any rank set (in the blocks received, `stride` bytes each), not yet
// visited, join the next level.
__global__ void settle(const unsigned char* reached, int ranks, long long stride, long long* dist,
                       const long long* state, const long long* out_degree, unsigned int* words, long long* queue,
                       long long* end, unsigned long long* counts, long long size) {
  const long long level = state[0];
  long long n_f = 0, m_f = 0, m_u = 0;
  for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < size; v += (long long)gridDim.x * blockDim.x) {
    bool joined = false;
    long long degree = 0;
    if (dist[v] < 0) {
      degree = out_degree[v];
      const unsigned int bit = 128u >> (v & 7);
      for (int p = 0; p < ranks && !joined; ++p) joined = reached[p * stride + (v >> 3)] & bit;
      if (joined) { dist[v] = level + 1; ++n_f; m_f += degree; } else m_u += degree;
    }
    join(words, queue, end, counts + 3, v, degree, joined);
  }
  add_counts(counts, n_f, m_f, m_u);
}

template <typename I, typename L>
__global__ void hook(const long long* offsets, const I* indices, const L* labels, long long lo, L* out, long long size) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < size; i += (long long)gridDim.x * blockDim.x) {
    L best = labels[lo + i];
    for (long long a = offsets[i]; a < offsets[i + 1]; ++a) { const L x = labels[indices[a]]; if (x < best) best = x; }
    if (best < out[i]) out[i] = best;
  }
}

template <typename I>
__global__ void level_parents(const long long* offsets, const I* indices, const long long* dist, long long lo,
                              long long* out, long long size) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < size; i += (long long)gridDim.x * blockDim.x) {
    const long long d = dist[lo + i];
    long long best = -1;
    if (d > 0)
      for (long long a = offsets[i]; a < offsets[i + 1]; ++a) {
        const long long u = indices[a];
        if (dist[u] == d - 1 && (best < 0 || u < best)) best = u;
      }
    out[i] = best;
  }
}

template <typename I, typename W>
__global__ void tight_parents(const long long* offsets, const I* indices, const W* weights, const double* dist,
                              long long lo, long long source, long long* out, long long size) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < size; i += (long long)gridDim.x * blockDim.x) {
    const long long v = lo + i;
    const double d = dist[v];
    long long best = -1;
    if (v != source && d < __longlong_as_double(0x7ff0000000000000LL))
      for (long long a = offsets[i]; a < offsets[i + 1]; ++a) {
        const long long u = indices[a];
        const double w = weights ? (double)weights[a] : 1.0;
        if (dist[u] + w == d && u != v && (best < 0 || u < best)) best = u;
      }
    out[i] = best;
  }
}
"""

_TYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long", np.dtype(np.float32): "float",
          np.dtype(np.float64): "double"}
_BLOCK = 256


class DeviceKernels:
    """The kernels on CuPy arrays (CUDA_SOURCE, one NVRTC module compiled per process and cached by CuPy)."""

    max_rank_vertices, max_rank_arcs = (1 << 30) - 1, (1 << 34) - 1  # join()'s packed tail: 30 and 34 bits
    level_graphs = True  # BFS's levels as CUDA graphs (distributed/bfs.py)

    def __init__(self) -> None:
        import cupy

        self.xp = cupy
        names = ["settle", "begin_level"]
        for i in ("int", "long long"):
            names += [f"td_step<{i}>", f"bu_step<{i}>", f"level_parents<{i}>"]
            for w in ("float", "double"):
                names += [f"relax<{i}, {w}>", f"tight_parents<{i}, {w}>"]
            for label in ("int", "long long"):
                names.append(f"hook<{i}, {label}>")
        self.module = cupy.RawModule(code=CUDA_SOURCE, options=("-std=c++17",), name_expressions=names)
        self.sm = cupy.cuda.Device().attributes["MultiProcessorCount"]

    def _fn(self, name: str, *arrays: Any) -> Any:
        types = ", ".join(_TYPES[a.dtype] for a in arrays)
        return self.module.get_function(f"{name}<{types}>")

    def _grid(self, work: int) -> tuple[int]:
        return (max(1, min((work + _BLOCK - 1) // _BLOCK, self.sm * 32)),)

    def _starts(self, offsets: Any, queue: Any) -> tuple[Any, int]:
        cp = self.xp
        degrees = offsets[queue + 1] - offsets[queue]
        start = cp.cumsum(degrees) - degrees
        arcs = int(start[-1] + degrees[-1]) if queue.size else 0
        return start, arcs

    def begin_level(self, counts: Any, prev: Any, state: Any) -> None:
        self.module.get_function("begin_level")((1,), (1,), (counts, prev, state))

    def td_step(self, offsets: Any, indices: Any, queue: Any, queue_end: Any, prev: Any, bounds: Any, mark: Any,
                stride: int) -> None:
        """The list (`queue`, and `queue_end`: the inclusive prefix sum of its out-degrees, written by bu_step and
        settle) holds prev[0] vertices with prev[1] arcs, read on the device: the launch is the same every level.
        `bounds`: the ranks' first vertices and n, on the device; `mark`: one block of `stride` bytes a rank."""
        self._fn("td_step", indices)((self.sm * 32,), (_BLOCK,),
                                     (offsets, indices, queue, queue_end, prev, bounds, np.int32(bounds.size - 1),
                                      np.int64(stride), mark))

    def bu_step(self, offsets: Any, indices: Any, dist: Any, frontier: Any, state: Any, out_degree: Any, bits: Any,
                queue: Any, queue_end: Any, counts: Any) -> None:
        size = dist.shape[0]
        if size:
            self._fn("bu_step", indices)(self._grid(size), (_BLOCK,),
                                         (offsets, indices, dist, frontier, state, out_degree, bits, queue,
                                          queue_end, counts, np.int64(size)))

    def settle(self, reached: Any, ranks: int, stride: int, dist: Any, state: Any, out_degree: Any, bits: Any,
               queue: Any, queue_end: Any, counts: Any) -> None:
        size = dist.shape[0]
        if size:
            self.module.get_function("settle")(self._grid(size), (_BLOCK,),
                                               (reached, np.int32(ranks), np.int64(stride), dist, state, out_degree,
                                                bits, queue, queue_end, counts, np.int64(size)))

    def relax(self, offsets: Any, indices: Any, weights: Any, queue: Any, dist: Any, cand: Any) -> None:
        start, arcs = self._starts(offsets, queue)
        if arcs:
            w = weights if weights is not None else self.xp.zeros(0, dtype=np.float32)
            self._fn("relax", indices, w)(self._grid(arcs), (_BLOCK,),
                                          (offsets, indices, w if weights is not None else np.uint64(0), queue, start,
                                           np.int64(queue.size), np.int64(arcs), dist, cand))

    def hook(self, offsets: Any, indices: Any, labels: Any, lo: int, out: Any) -> None:
        if out.size:
            self._fn("hook", indices, labels)(self._grid(out.size), (_BLOCK,),
                                              (offsets, indices, labels, np.int64(lo), out, np.int64(out.size)))

    def level_parents(self, offsets: Any, indices: Any, dist: Any, lo: int, size: int) -> Any:
        out = self.xp.empty(size, dtype=np.int64)
        if size:
            self._fn("level_parents", indices)(self._grid(size), (_BLOCK,),
                                               (offsets, indices, dist, np.int64(lo), out, np.int64(size)))
        return out

    def tight_parents(self, offsets: Any, indices: Any, weights: Any, dist: Any, lo: int, source: int,
                      size: int) -> Any:
        out = self.xp.empty(size, dtype=np.int64)
        if size:
            w = weights if weights is not None else self.xp.zeros(0, dtype=np.float32)
            self._fn("tight_parents", indices, w)(self._grid(size), (_BLOCK,),
                                                  (offsets, indices, w if weights is not None else np.uint64(0), dist,
                                                   np.int64(lo), np.int64(source), out, np.int64(size)))
        return out


_DEVICE: list[DeviceKernels] = []


def kernels_for(backend: str) -> Any:
    """The kernels of a rank's backend (the GPU module built once per worker process)."""
    if backend != "cuda":
        return HostKernels
    if not _DEVICE:
        _DEVICE.append(DeviceKernels())
    return _DEVICE[0]

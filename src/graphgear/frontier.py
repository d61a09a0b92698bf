"""Frontier: the active vertices of an iteration, sparse (a vertex queue) or dense (a bool map / bitmap).

A sparse frontier costs O(|frontier|) to walk and suits push over few vertices; a dense one costs O(V) to walk but
answers "is u active?" in O(1), which pull needs (bottom-up BFS looks up every in-neighbour). MultiGraph switches
between the two per iteration; `to_dense` / `to_sparse` are the QueueToBitmap / BitmapToQueue conversions.

The arrays belong to the backend that made them (NumPy on the CPU, CuPy on the GPU); a Frontier never copies them to
another device. On the CPU the bool map stands for both dense kinds; the GPU backend packs the bitmap into 32-bit words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Frontier", "one_vertex"]


def _array_module(array: Any) -> Any:
    module = type(array).__module__.split(".")[0]
    if module == "cupy":  # pragma: no cover - GPU only
        import cupy

        return cupy
    return np


class Frontier:
    """Active vertices of a graph with ``num_vertices`` vertices, as a queue of ids or a dense bool map."""

    __slots__ = ("num_vertices", "queue", "mask", "_size", "_out_edges", "_degree_scan")

    def __init__(self, num_vertices: int, queue: Any = None, mask: Any = None) -> None:
        if (queue is None) == (mask is None):
            raise ValueError("a Frontier holds either a queue or a mask")
        self.num_vertices = int(num_vertices)
        self.queue = queue
        self.mask = mask
        self._size: int | None = None if queue is None else int(queue.shape[0])
        self._out_edges: tuple[Any, int] | None = None  # (the out-degree array, the sum) when the producer knew it
        self._degree_scan: tuple[Any, Any] | None = None  # (the out-degree array, the queue's inclusive degree sums)

    # ---------------------------------------------------------------------------------------------- constructors
    @classmethod
    def from_vertices(cls, vertices: Any, num_vertices: int, dtype: Any = np.int64) -> Frontier:
        """A sparse frontier of the given vertex ids (kept in the given order)."""
        xp = _array_module(vertices)
        return cls(num_vertices, queue=xp.ascontiguousarray(xp.asarray(vertices, dtype=dtype)))

    @classmethod
    def from_mask(cls, mask: Any) -> Frontier:
        """A dense frontier from a bool map of length V."""
        return cls(int(mask.shape[0]), mask=mask)

    @classmethod
    def all_vertices(cls, num_vertices: int, xp: Any = np) -> Frontier:
        """Every vertex active (the start of a topology-driven algorithm); its size is known, so neither it nor its
        queue (0..V-1) needs a count on the device."""
        frontier = cls(num_vertices, mask=xp.ones(num_vertices, dtype=bool))
        frontier._size = int(num_vertices)
        return frontier

    @classmethod
    def empty(cls, num_vertices: int, xp: Any = np) -> Frontier:
        return cls(num_vertices, queue=xp.empty(0, dtype=np.int64))

    # ---------------------------------------------------------------------------------------------- queries
    @property
    def is_dense(self) -> bool:
        return self.mask is not None

    @property
    def size(self) -> int:
        """Number of active vertices (a host read on the GPU for a dense frontier; cached)."""
        if self._size is None:
            self._size = int(self.mask.sum())
        return self._size

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        return self.size > 0

    def out_edges(self, out_degree: Any) -> int:
        """Sum of the out-degrees of the active vertices: the work of a push over this frontier. One host read on the
        GPU (a boolean index would first count the mask's entries: a second read); none when the operator that made
        the frontier counted it (known_out_edges)."""
        if self._out_edges is not None and self._out_edges[0] is out_degree:
            return self._out_edges[1]
        if self.mask is not None:
            return int((out_degree * self.mask).sum())
        return int(out_degree[self.queue].sum()) if self.size else 0

    def known_out_edges(self, out_degree: Any, edges: int) -> Frontier:
        """Record the out-edge count of this frontier over `out_degree` (an operator counted it on the way): later
        out_edges(out_degree) calls return it without touching the device. Returns self."""
        self._out_edges = (out_degree, int(edges))
        return self

    def known_degree_scan(self, out_degree: Any, scan: Any) -> Frontier:
        """Record the inclusive prefix sum of the queue's out-degrees over `out_degree`, in queue order, as the operator
        that made the queue wrote it (Busato & Bombieri's unordered prefix sum, kernel C); with its total recorded by
        known_out_edges, a merge_path push searches it as it is. Returns self."""
        self._degree_scan = (out_degree, scan)
        return self

    def degree_scan(self, out_degree: Any) -> Any:
        """The queue's degree prefix sum over `out_degree` where its producer wrote one and its total is known, else
        None (the consumer scans the queue itself)."""
        if (self._degree_scan is None or self._degree_scan[0] is not out_degree or self._out_edges is None
                or self._out_edges[0] is not out_degree):
            return None
        return self._degree_scan[1]

    # ---------------------------------------------------------------------------------------------- conversions
    def to_dense(self) -> Frontier:
        """QueueToBitmap: the same vertices as a bool map."""
        if self.mask is not None:
            return self
        xp = _array_module(self.queue)
        mask = xp.zeros(self.num_vertices, dtype=bool)
        mask[self.queue] = True
        out = Frontier(self.num_vertices, mask=mask)
        return out

    def to_sparse(self) -> Frontier:
        """BitmapToQueue: the active vertices as an ascending queue of ids."""
        if self.queue is not None:
            return self
        xp = _array_module(self.mask)
        # int64 on the host; int32 on the GPU, the dtype of the device CSR's indices that every kernel takes
        dtype = np.int64 if xp is np else np.int32
        if self._size == self.num_vertices:  # every vertex: no compaction (on the GPU, no count read back)
            ids = xp.arange(self.num_vertices, dtype=dtype)
        else:
            ids = xp.flatnonzero(self.mask).astype(dtype, copy=False)
        return Frontier(self.num_vertices, queue=ids)

    def sample(self, k: int, rng: np.random.Generator) -> Frontier:
        """k of the active vertices drawn at random without replacement (this frontier itself where k covers it):
        MultiGraph's sample of the frontier, run sparse to estimate the whole frontier's sparse cost."""
        if k >= self.size:
            return self
        vertices = self.vertices()
        xp = _array_module(vertices)
        picks = rng.choice(self.size, size=int(k), replace=False)
        return Frontier.from_vertices(vertices[xp.asarray(picks)], self.num_vertices, dtype=vertices.dtype)

    def joined(self, other: Frontier) -> Frontier:
        """The vertices active in this frontier or in `other`, as a dense frontier."""
        return Frontier.from_mask(self.to_dense().mask | other.to_dense().mask)

    def vertices(self) -> Any:
        """The active vertex ids (ascending for a dense frontier, queue order for a sparse one)."""
        return self.to_sparse().queue

    def __repr__(self) -> str:
        kind = "dense" if self.is_dense else "sparse"
        return f"<Frontier {kind}: {self.size:,} of {self.num_vertices:,} vertices>"


def one_vertex(xp: Any, v: int, dtype: Any = np.int64) -> Any:
    """[v] as a one-element array of the backend's module (a first worklist, a kernel's scalar argument), made by a
    fill: xp.asarray([v]) on the GPU is a host-to-device copy, a round trip of its own (tens of microseconds on a BFS
    that takes one millisecond)."""
    return xp.full(1, v, dtype=dtype)

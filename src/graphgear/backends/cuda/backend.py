"""CudaBackend: the operator contract of DESIGN.md on an NVIDIA GPU (CuPy memory, NVRTC-compiled kernels).

Every Strategy field takes effect here: direction/sync/drive pick the kernels and the loop, `balance` (+ group_size)
picks the advance load balancer, `supports` adds warp/block gathering and supplementary queues, `dedup` the duplicate
removal of the output queue, `frontier` whether the next frontier is a queue or a bool map. Counters come back through
pinned memory, one small read per iteration.

It is composed of one part per concern, each a module of its own: operators.py (advance, pull, filter, for_each_vertex,
neighbor_reduce, vertex_reduce), programs.py (a vertex program's state and host-driven rounds), persistent.py (the
persistent driver: a whole traversal in one launch), power.py (PageRank's power iteration) and brandes.py (Brandes'
betweenness); graph.py holds a graph's device copies and structs.py what the host and the kernels agree on. This module
keeps the state those parts share (made in __init__: the module cache, scratch buffers, pinned readers and the knobs),
the graph's upload and the host copies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import Capabilities
from . import runtime as rt
from . import sources, warmup
from .brandes import BrandesLoop, loop_arcs
from .dense import DenseProduct
from .graph import CudaGraph
from .operators import GRID_GATHER_DEGREE, REDUCE_HUGE, Operators
from .persistent import (BARRIER_WORD, BUCKET_WIDEN_MAX, CONTROL_WORDS, HEAVY_PULL_RATIO, LIGHT_PULL_RATIO, LOG_FIELDS,
                         LOG_PREFETCH, STATUS_WORD, PendingRun, PersistentDriver, PersistentRun)
from .power import PowerIteration
from .programs import Programs
from .steps import StepDriver
from .runtime import cupy
from .structs import KernelStruct

# what other modules and the tests import from here, beside CudaBackend
__all__ = ["CudaBackend", "CudaGraph", "KernelStruct", "PersistentRun", "BARRIER_WORD", "CONTROL_WORDS", "LOG_PREFETCH",
           "REDUCE_HUGE", "STATUS_WORD"]


class CudaBackend(Operators, Programs, PersistentDriver, StepDriver, PowerIteration, BrandesLoop, DenseProduct):
    """The GPU backend (one per process)."""

    name = "cuda"

    def __init__(self) -> None:
        self.xp = cupy()
        # async advance runs level by level in parallel (not one FIFO worklist: BC gathers per level after it); a
        # GPU queue may repeat a vertex; fused_power and light_heavy are switches (False: a launch per step, no split)
        self.capabilities = Capabilities(async_order="levels", device_traversal=True, device_programs=True,
                                         brandes_loop=True, brandes_loop_arcs=loop_arcs(), fused_power=True,
                                         light_heavy=True, exact_queues=False, degree_layout=True)
        warmup.start()  # a machine's first process: the built-in kernels compile ahead, in parallel (warmup.py)
        self._utility = rt.KernelTable(sources.UTILITY_SOURCE)
        self._counter = rt.PinnedCounter()
        self._scratch: dict[tuple[str, int], Any] = {}
        self._modules: dict[tuple, rt.KernelTable] = {}  # functor modules by (functor, role, state types, extra roles)
        self._occupancy: dict[int, int] = {}  # resident blocks per SM, by kernel
        self._power: Any = None  # the persistent power iteration's kernel (kernels/power.cuh), compiled on first use
        self._power_capacity: int | None = None  # its heavy source block's capacity (_heavy_sources)
        self._params: dict[bytes, Any] = {}  # program parameters on the device, by value (read-only in every kernel)
        # a persistent launch's report (the control words from the status on, the log's first rows)
        self._report = rt.PinnedReader(8 * (CONTROL_WORDS + LOG_FIELDS * (LOG_PREFETCH + 1)))
        self._pending: PendingRun | None = None  # a persistent launch not read back yet (program_persistent, lazy)
        self._chained = False  # inside chained(): launches detach the one before (persistent.py)
        self._handoff: PendingRun | None = None  # the detached launch the next one runs behind
        self.supplementary_threshold: int | None = None  # degree from which supplementary queues take a vertex
        self.grid_gather_degree = GRID_GATHER_DEGREE  # degree from which teams of blocks expand a pushed vertex
        self.persistent_pull_group: int | None = None  # lanes per vertex of the persistent kernel's pull (None: strategy)
        self.persistent_blocks_per_sm: int | None = None  # persistent kernel blocks per SM (None: by graph density)
        self.persistent_blocks: int | None = None  # at most this many persistent blocks in all (None: no cap)
        # the power iteration's heavy source block: the first this many sources' contributions in shared memory (None:
        # as many as it holds where the caller says the ids are degree-ordered, or the graph fits; 0: none)
        self.power_heavy_sources: int | None = None
        # a bucket's heavy rows are pulled when its senders hold at least 1/heavy_pull_ratio of the heavy arcs, a
        # round's light arcs when its senders hold 1/light_pull_ratio of the light ones (None: always pushed);
        # near-far bucket widths up to delta * 2^bucket_widen_max on low-diameter graphs (0: fixed)
        self.heavy_pull_ratio: int | None = HEAVY_PULL_RATIO
        self.light_pull_ratio: int | None = LIGHT_PULL_RATIO
        self.bucket_widen_max = BUCKET_WIDEN_MAX

    # --------------------------------------------------------------------------------------------------- memory
    def graph(self, g: Any) -> CudaGraph:
        cached = g.device_cache.get("cuda")
        if cached is None:
            cp = self.xp
            need = g.offsets.nbytes + g.indices.nbytes + (0 if g.weights is None else g.weights.nbytes) + g.offsets.nbytes
            rt.check_free_memory(need, f"graph {g.name or ''} ({g.num_vertices:,} vertices, {g.num_arcs:,} arcs)")
            weights = cp.asarray(g.weights) if g.weights is not None else cp.ones(1, dtype=cp.float32)
            offsets = cp.asarray(g.offsets)
            indices = cp.asarray(g.indices.astype(np.int32, copy=False))
            cached = CudaGraph(g, offsets, indices, weights, g.weights is not None, cp.diff(offsets), g.num_vertices, g.num_arcs)
            g.device_cache["cuda"] = cached
        return cached

    def to_host(self, array: Any) -> np.ndarray:
        """A host copy; large arrays go through pinned memory (several times a pageable copy's bandwidth)."""
        if not isinstance(array, self.xp.ndarray):
            return np.asarray(array)
        if array.nbytes < (1 << 20):
            return self.xp.asnumpy(array)
        import cupyx

        out = cupyx.empty_pinned(array.shape, dtype=array.dtype)
        array.get(out=out)
        return out

    def asarray(self, array: Any, dtype: Any = None) -> Any:
        return self.xp.asarray(array, dtype=dtype)

    def timeline(self) -> rt.EventTimeline:
        """CUDA events on the stream: launches timed on the device, the host waiting once (when first read)."""
        return rt.EventTimeline()

    def hop_counts(self, values: Any, index: Any = None) -> Any:
        """int64 hop counts from a BFS's float64 values (values[index] where an index is given), -1 where unreachable
        (inf): one RawKernel launch (CuPy's nan_to_num copies each of its scalar arguments to the device first, a
        synchronous round trip apiece; a separate gather by the index was another launch of host time)."""
        size = values.size if index is None else index.size
        if index is not None and index.dtype != self.xp.int32:  # the kernels' vertex ids are int32
            index = index.astype(self.xp.int32)
        hops = self.xp.empty(size, dtype=self.xp.int64)
        rt.launch(self._utility.get_function("hop_counts"), size,
                  (values, np.uint64(0) if index is None else index, hops, np.int32(size)))
        return hops

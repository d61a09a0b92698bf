"""PageRank's power iteration in one persistent kernel (kernels/power.cuh): the in-edge CSC's rows in degree bins
(POWER_BINS) and hub chunks, MultiGraph's heavy source block in shared memory, the L1 change tested on the device, and
the log read back once. CudaBackend takes this part from here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import BackendError
from . import runtime as rt
from .graph import CudaGraph
from .operators import REDUCE_HUGE, ReducePlan
from .persistent import LOG_PREFETCH, LOG_ROWS
from .structs import KernelStruct, _barrier_timed_out

# the power iteration's degree bins (degree bound, lanes per row), kernels/power.cuh compiled with these lanes: a
# thread per row below degree 8 (its loads in flight together; faster than 4 lanes, the neighbor_reduce bins:
# docs/performance.md#figures-from-the-cuda-backends-comments)
POWER_BINS = ((8, 1), (128, 8), (None, 32))
# the power iteration: one block of 1024 threads per SM (kernels/power.cuh), whose shared memory holds the heavy
# source block (benchmarks/pagerank_gather.py: faster than every read from global memory, and than 5 blocks of 256
# an SM; docs/performance.md#the-heavy-source-block)
POWER_BLOCK = 1024
# the heavy source block's shared memory: at most 160 KiB of the SM's 256 KiB, so L1 keeps ~90 KiB for the rest of the
# gather (the sweep of block sizes: benchmarks/pagerank_heavy.py, docs/performance.md#the-heavy-source-block)
HEAVY_SOURCE_BYTES = 160 * 1024

POWER_ARGS = KernelStruct("power.cuh", "GGPowerArgs")


def _uniform_or_array(vector: Any) -> tuple[Any, float]:
    """A GGVector's two struct fields (kernels/pull.cuh): (array, 0) or (null, the value at every vertex)."""
    if isinstance(vector, (int, float, np.floating)):
        return None, float(vector)
    return vector, 0.0


class PowerLog:
    """The power iteration's log as read back: (stamp t, change t) words per row, then the last row's end stamp
    (kernels/power.cuh). Parsed when the trace is read, not inside the timed call (the slices and views cost host
    time: docs/performance.md#figures-from-the-cuda-backends-comments)."""

    def __init__(self, words: np.ndarray) -> None:
        self.words = words

    def changes(self) -> np.ndarray:
        """The L1 change of each logged iteration."""
        return self.words[1::2].view(np.float64)

    def seconds(self) -> np.ndarray:
        """The seconds of each logged iteration (%globaltimer stamps)."""
        return np.diff(self.words[0::2]) * 1e-9


@dataclass
class PowerRun:
    """What one persistent power iteration did: the iterations run, the last L1 change, the ranks (x, the array made
    for a uniform start, or in the original ids given `order`) and the log of the first LOG_ROWS iterations."""

    iterations: int
    last_change: float
    ranks: Any
    log: PowerLog


@dataclass
class PowerPlan:
    """The power iteration on one graph: its kernel argument (GGPowerArgs) with every field that does not change
    between calls packed once (a launch's host time counts in every call): the in-edge CSC, (rows or null, first
    row, count) per POWER_BINS bin, the hub chunks and the hub rows (degree >= REDUCE_HUGE, summed by chunks with
    atomics; their sums are cleared a step ahead), and the work arrays' addresses. The work arrays: scratch, five
    V-long rows (the contributions and the sums, both double-buffered, and x where it starts uniform and the ranks
    come back in the original ids; `spare` the fifth's address); control, int64 words zeroed before each launch and
    read back from its start in one copy: barrier and status (2 words each), then, 128 bytes on (the barrier's pollers
    keep their line busy), the slots (6 doubles), then at word 32 the log, (stamp t, change t) per row. `keep` holds
    the arrays whose addresses it packs."""

    args: np.ndarray
    keep: tuple
    scratch: Any
    spare: int
    control: Any = None
    head: Any = None  # control's first words and LOG_PREFETCH log rows, read back with one copy


class PowerIteration:
    """CudaBackend's power iteration (capabilities.fused_power)."""

    # what this part uses of CudaBackend's state (made in its __init__) and of its other parts
    xp: Any
    _power: Any
    _power_capacity: int | None
    _report: rt.PinnedReader
    persistent_blocks: int | None
    power_heavy_sources: int | None
    _capture_pending: Callable[[], None]  # persistent.py
    _reduce_plan: Callable[..., ReducePlan]  # operators.py
    _degree_bins: Callable[..., list]  # operators.py

    def power_iteration(self, G: CudaGraph, alpha: float, threshold: float, max_iter: int, x: Any, teleport: Any,
                        d: Any, inv: Any, degree_ordered: bool = False, order: Any = None) -> PowerRun:
        """PageRank's power iteration, every iteration in one persistent kernel (kernels/power.cuh): x <- alpha
        (P^T x + mass(x) d) + teleport over the in-edge CSC, in place, until the L1 change falls below `threshold` or
        max_iter iterations ran. The iterates are the launch-per-iteration loop's up to rounding (its own degree bins,
        POWER_BINS); one host read at the end instead of one per iteration. inv: 1 / out-weight, 0 where dangling.
        x, teleport and d are float64 device arrays or one float for every vertex (networkx's uniform defaults: no
        V-long array to read each iteration; a uniform x starts a new array, PowerRun.ranks). degree_ordered: the ids
        are by decreasing out-degree, so the first ones are the most-read sources and shared memory holds as many of
        their contributions as it can (MultiGraph's heavy source block; power_heavy_sources overrides). order (int32,
        renumbered id -> original id): the kernel also writes the ranks in the original ids, PowerRun.ranks."""
        cp = self.xp
        n = G.num_vertices
        logged = min(max_iter, LOG_ROWS)
        power = self._power_plan(G, logged)
        kernel = self._power.get_function("gg_power_iteration")
        hubs = self._heavy_sources(kernel, n, degree_ordered)
        fill_x = not isinstance(x, cp.ndarray)
        ranks = x if not fill_x else (power.spare if order is not None else cp.empty(n, dtype=cp.float64))
        original = cp.empty(n, dtype=cp.float64) if order is not None else None
        control = power.control
        control.data.memset_async(0, 8 * (32 + 2 * logged + 1))
        self._capture_pending()  # it reads back through the same pinned report
        (teleport, teleport_value), (d, d_value) = _uniform_or_array(teleport), _uniform_or_array(d)
        args = POWER_ARGS.pack(dict(
            hubs=hubs, fill_x=fill_x, max_iter=max_iter, log_rows=logged, teleport=teleport, d=d, inv=inv, x=ranks,
            order=order, original=original, alpha=alpha, teleport_value=teleport_value, d_value=d_value,
            x0=x if fill_x else 0.0, threshold=threshold), into=power.args.copy())
        # a block per SM (the launch bounds say 1024 threads and 1 block an SM), at most persistent_blocks
        blocks = min(rt.multiprocessors(), self.persistent_blocks or rt.multiprocessors())
        kernel((blocks,), (POWER_BLOCK,), (args,), shared_mem=8 * hubs)
        (report,) = self._report.read(power.head)  # the status and the first rows of the log, in one read
        if min(int(report[1:2].view(np.int32)[1]), logged) > LOG_PREFETCH:  # a longer log: all of it
            report = control.get()
        status = report[1:2].view(np.int32)
        if status[0]:
            raise _barrier_timed_out("the power iteration")
        iterations = int(status[1])
        last = float(report[16:19].view(np.float64)[(iterations - 1) % 3]) if iterations else float("inf")
        return PowerRun(iterations, last, ranks if order is None else original,
                        PowerLog(report[32: 33 + 2 * min(iterations, logged)]))

    def _power_plan(self, G: CudaGraph, logged: int) -> PowerPlan:
        """The power iteration's plan on G (cached with G's other device arrays), its control words with room for
        `logged` log rows; its module compiled on first use. Per call, the free-memory check and the allocations
        cost host time with the GPU idle (docs/performance.md#pagerank-power-iteration)."""
        cp = self.xp
        n = G.num_vertices
        if self._power is None:
            lanes = "".join(f"#define GG_POWER_G{i} {group}\n" for i, (_, group) in enumerate(POWER_BINS))
            source = f"#define GG_BLOCK {POWER_BLOCK}\n{lanes}#include \"power.cuh\"\n"
            self._power = rt.KernelTable(source)
            self._power_capacity = None  # the heavy source block's, set with the kernel's attribute
        power = G.reduce_plans.get("power")
        if power is None:  # (rows or null, first row, count) per bin: a range where the bin's rows are contiguous
            offsets, indices, weights = G.csc()
            plan = self._reduce_plan(G, "in", offsets)  # its hub chunks
            bins = []
            for _, rows in self._degree_bins(G, "in", offsets, POWER_BINS):
                if rows is None:
                    bins.append((np.uint64(0), np.int32(0), np.int32(n)))
                    continue
                first, last = (int(v) for v in rows[cp.asarray([0, -1])].get()) if rows.size else (0, -1)
                contiguous = last - first + 1 == rows.size
                bins.append((np.uint64(0) if contiguous else rows, np.int32(first if contiguous else 0),
                             np.int32(rows.size)))
            hub_rows = (cp.unique(plan.rows) if plan.rows.size else cp.zeros(1, dtype=cp.int32)[:0]).astype(cp.int32)
            fields = dict(offsets=offsets, indices=indices, weights=weights, weighted=G.weighted, n=n,
                          huge=REDUCE_HUGE, chunk_rows=plan.rows, chunk_first=plan.first, chunk_last=plan.last,
                          chunks=plan.rows.size, hub_rows=hub_rows, hub_count=hub_rows.size)
            for i, (rows, first, count) in enumerate(bins):
                fields.update({f"rows{i}": rows, f"first{i}": first, f"n{i}": count})
            rt.check_free_memory(8 * 5 * n, "the power iteration's contributions, sums and ranks")
            scratch = cp.empty(5 * n, dtype=cp.float64)
            row = [scratch.data.ptr + 8 * n * i for i in range(5)]  # addresses: a CuPy view costs host time
            fields.update(contrib0=row[0], contrib1=row[1], s0=row[2], s1=row[3])
            power = G.reduce_plans["power"] = PowerPlan(POWER_ARGS.pack(fields), tuple(fields.values()), scratch,
                                                        row[4])
        if power.control is None or power.control.size < 32 + 2 * logged + 1:
            power.control = cp.empty(32 + 2 * max(logged, LOG_PREFETCH) + 1, dtype=cp.int64)
            power.head = power.control[: 32 + 2 * LOG_PREFETCH + 1]
            base = power.control.data.ptr
            POWER_ARGS.pack(dict(barrier=base, status=base + 8, sums=base + 128, log=base + 256), into=power.args)
        return power

    def _heavy_sources(self, kernel: Any, n: int, degree_ordered: bool) -> int:
        """How many sources' contributions the power iteration keeps in shared memory: as many as HEAVY_SOURCE_BYTES
        (or the block's shared memory, if less) holds where the ids are degree-ordered or all fit, else 0;
        power_heavy_sources overrides, up to that capacity and n. The first call raises the kernel's attribute to the
        capacity and checks that a block of POWER_BLOCK threads with that much fits on an SM (the grid barrier needs
        every block resident; a smaller block fits then too): once, not per call."""
        capacity = self._power_capacity
        if capacity is None:
            cp = self.xp
            optin = int(cp.cuda.Device().attributes["MaxSharedMemoryPerBlockOptin"])
            room = min(optin - int(kernel.attributes["shared_size_bytes"]), HEAVY_SOURCE_BYTES)
            capacity = max(0, room // 8 // 32 * 32)
            kernel.max_dynamic_shared_size_bytes = 8 * capacity
            function = getattr(getattr(kernel, "kernel", None), "ptr", None)
            if function is not None:
                try:
                    per_sm = int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function, POWER_BLOCK,
                                                                                          8 * capacity))
                except Exception:  # pragma: no cover - a CuPy without the binding: the launch bounds' guarantee
                    per_sm = 1
                if per_sm < 1:
                    raise BackendError(f"the power iteration's blocks ({POWER_BLOCK} threads, {8 * capacity} bytes of "
                                       "shared memory) do not fit on a multiprocessor")
            self._power_capacity = capacity
        wanted = self.power_heavy_sources
        if wanted is None:
            wanted = capacity if degree_ordered or n <= capacity else 0
        return max(0, min(int(wanted), capacity, n))

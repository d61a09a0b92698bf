"""Brandes' betweenness on the device: each source's forward and backward phases in one persistent launch
(kernels/brandes.cuh), every source of a call one after the other on the stream, and one host read per call: the log,
copied back when the result or the trace is first read (BrandesRun.log). CudaBackend takes this part from here.

The kernel suits high-diameter graphs (SEP-Graph's delta test), where a host-driven Brandes pays a launch and a read
per level: grid:2048:2048 has about 4,000 levels each way. algorithms/betweenness.py asks for it
(capabilities.brandes_loop) where the traversal controller's first decision is one async push-dd pass. Two kernels of
one body, picked by the graph's largest out-degree (kernel_name): `brandes` expands a level one thread per vertex,
`brandes_hierarchical` by Slota's hierarchical expansion (a block on each row of degree >= the block size, a warp on
each row of degree >= 32, a thread on the rest), for a sparse graph with hubs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import BackendError
from . import runtime as rt

SOURCE = '#include "brandes.cuh"\n'
FIELDS, HEADER = 5, 3  # kernels/brandes.cuh GG_BRANDES_FIELDS, GG_BRANDES_HEADER
START = 2  # a source's start row; 0 and 1 are the forward and backward levels (kernels/brandes.cuh)
PHASES = ("forward", "backward", "start")
MAX_ROWS = 1 << 16  # log rows of one call (later levels are counted, not logged)
# A graph with a row of at least this many arcs runs brandes_hierarchical: there one thread per vertex serialises, a
# hub's thread walking its whole row while the rest of the grid waits at the level's barrier; the block size the loop
# launches with, which is the team queue's threshold (blockDim in kernels/brandes.cuh)
HIERARCHICAL_DEGREE = rt.BLOCK


# A graph of at most this many arcs per thread of the loop's grid (one block per multiprocessor) runs the device loop
# whatever its depth: the loop beat the host-driven levels up to about this size and lost past twice it
# (benchmarks/bc_loop_sizes.py; docs/performance.md#bcs-device-loop-by-size)
LOOP_ARCS_PER_THREAD = 128


def loop_arcs() -> int:
    """The most arcs of a graph that runs Brandes' device loop whatever its depth, on this GPU (capabilities)."""
    return rt.multiprocessors() * rt.BLOCK * LOOP_ARCS_PER_THREAD


def kernel_name(max_degree: int) -> str:
    """The kernel of a graph whose largest out-degree is `max_degree` (kernels/brandes.cuh)."""
    return "brandes_hierarchical" if max_degree >= HIERARCHICAL_DEGREE else "brandes"


@dataclass
class BrandesRun:
    """The launches of one call: `log()` copies the log back once (raises if a grid barrier gave up) and returns its
    rows as an int64 array (phase, level or source, |level|, outDegree(level), %globaltimer ns) and the rows run."""

    _log: Any
    expansion: str = "thread"  # how the kernel expanded a level's rows: "thread" (per vertex) or "hierarchical"

    @functools.cached_property
    def _read(self) -> tuple[np.ndarray, int, bool]:
        words = self._log.get()
        abort, overflow = words[1:2].view(np.int32).tolist()
        if abort:
            raise BackendError("Brandes' persistent kernel: a grid barrier gave up waiting (the blocks were not all "
                               "resident); kernels/grid.cuh")
        rows = int(words[0])
        logged = min(rows, (words.size - HEADER) // FIELDS)
        return words[HEADER:HEADER + logged * FIELDS].reshape(logged, FIELDS), rows, bool(overflow)

    def check(self) -> None:
        """Read the log back (once) and raise if the run failed."""
        self._read

    def levels(self) -> list[tuple[str, int, int, int, float]]:
        """The logged rows as (phase, level, |level|, outDegree(level), seconds since the row before): phase
        "start" (level: the source; seconds 0), "forward" or "backward"."""
        out, start = [], 0
        for phase, level, vertices, edges, stamp in self._read[0].tolist():
            out.append((PHASES[phase], level, vertices, edges, 0.0 if phase == START else (stamp - start) * 1e-9))
            start = stamp
        return out

    def overflowed(self) -> bool:
        """Whether a dependency came out inf or NaN (path counts past float64's range; the caller recounts), read
        with the log: no read of its own."""
        return self._read[2]

    def unlogged(self) -> int:
        """Rows run past the log's capacity (counted, not written)."""
        return self._read[1] - len(self._read[0])

    def seconds(self) -> float:
        """The device time of every source: from each start row to that source's last row."""
        return sum(row[4] for row in self.levels())


class BrandesLoop:
    """CudaBackend's part that runs Brandes' whole single-source loop on the device."""

    xp: Any
    _modules: dict
    _coresident_blocks: Callable[..., int]  # persistent.py's: the blocks a grid barrier can wait for

    def brandes(self, G: Any, sources: list[int], bc: Any, endpoint: bool) -> BrandesRun:
        """Add every source's dependencies to `bc` (float64 on the device; + the endpoint terms where `endpoint`), one
        persistent launch per source (the kernel by G's largest out-degree), no host read; the run's log is read back
        when first asked for."""
        cp = self.xp
        n = G.num_vertices
        table = self._modules.get("brandes")
        if table is None:
            table = self._modules["brandes"] = rt.KernelTable(SOURCE)
        name = kernel_name(G.graph.degree_stats()["max_degree"])  # cached on the host graph
        kernel = table.get_function(name)
        rt.check_free_memory(28 * n + 8 * FIELDS * MAX_ROWS, "Brandes' level arrays and log")
        level = cp.empty(n, dtype=cp.int32)
        sigma = cp.empty(n, dtype=cp.float64)
        coef = cp.empty(n, dtype=cp.float64)
        order = cp.empty(n, dtype=cp.int32)
        count = cp.empty(n + 2, dtype=cp.int32)
        edges = cp.empty(3, dtype=cp.uint64)
        rows = min(MAX_ROWS, len(sources) * (2 * n + 1))
        log = cp.zeros(HEADER + rows * FIELDS, dtype=cp.int64)  # the row count, the abort flag, the barrier: clear
        blocks = self._coresident_blocks(kernel, True)
        for s in sources:
            kernel((blocks,), (rt.BLOCK,), (G.offsets, G.indices, np.int32(n), np.int32(s), level, sigma, coef, bc,
                                             np.float64(1.0 if endpoint else 0.0), order, count, edges, log,
                                             np.int64(rows)))
        return BrandesRun(log, "hierarchical" if name == "brandes_hierarchical" else "thread")


"""MultiGraph's dense mode on the GPU (kernels/dense.cuh): the two phases over graph/tiles.py's layout, y[v] = the sum
over arcs u -> v of x[u] (times the weight). Three launches: the heavy tiles (a block of `columns` threads each), the
light arcs (a block per column panel), the reduction (a block per row panel). The backend's `dense_product`
(PageRank's method="dense"); on kron:21 its product took 13x cuSPARSE's SpMV over the same CSC
(docs/performance.md#multigraphds-kernels-measured), so the pull over the CSC stays the power iteration's gather and
no automatic choice picks this one."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...graph.tiles import TileLayout, graph_tiles
from . import runtime as rt
from .runtime import cupy

SOURCE = '#include "dense.cuh"\n'


class DenseTiles:
    """A TileLayout's arrays on the device, and its product."""

    def __init__(self, layout: TileLayout) -> None:
        cp = cupy()
        self.layout = layout
        self.block, self.columns, self.panels, self.n = layout.block, layout.columns, layout.panels, layout.num_vertices
        self.weighted = layout.weighted
        heavy_out = (layout.stream_start[layout.heavy_row]
                     + (np.arange(layout.heavy_row.size) - layout.stream_heavy[layout.heavy_row]) * layout.block)
        up = cp.asarray
        no_weights = np.zeros(1, dtype=np.float32)
        self.heavy = (up(layout.heavy_column), up(layout.heavy_rows), up(layout.heavy_start),
                      up(heavy_out.astype(np.int64)), up(layout.elements),
                      up(layout.element_weights if self.weighted else no_weights))
        self.light = (up(layout.light_start), up(layout.light_source),
                      up(layout.light_weight if self.weighted else no_weights), up(layout.light_slot))
        self.reduce = (up(layout.stream_start), up(layout.stream_heavy), up(layout.stream_destination))
        self.stream = cp.empty(max(layout.stream_size, 1), dtype=cp.float64)
        table = rt.KernelTable(SOURCE)
        # each kernel's dynamic shared memory: two column panels of doubles for a heavy tile, one for the others
        self.shared = {"gg_dense_heavy": 16 * self.block, "gg_dense_light": 8 * self.block,
                       "gg_dense_reduce": 8 * self.block}
        self.kernels = {name: table.get_function(name) for name in self.shared}
        for name, size in self.shared.items():
            self.kernels[name].max_dynamic_shared_size_bytes = size

    def product(self, x: Any, y: Any = None, phases: tuple[str, ...] = ("heavy", "light", "reduce")) -> Any:
        """y = the two-phase product of x (device float64 arrays; y made when not given). `phases` leaves phases
        out, for timing one at a time."""
        cp = cupy()
        y = cp.empty(self.n, dtype=cp.float64) if y is None else y
        block, n, weighted = np.int32(self.block), np.int32(self.n), np.int32(self.weighted)
        tiles = self.layout.heavy_row.size
        launches = {
            "heavy": ("gg_dense_heavy", tiles, (*self.heavy, weighted, block, n, x, self.stream)),
            "light": ("gg_dense_light", self.panels, (*self.light[:3], weighted, self.light[3], block, n, x,
                                                      self.stream)),
            "reduce": ("gg_dense_reduce", self.panels, (*self.reduce, block, n, self.stream, y)),
        }
        for phase in phases:
            name, blocks, args = launches[phase]
            if blocks:
                self.kernels[name]((blocks,), (self.columns,), args, shared_mem=self.shared[name])
        return y


class DenseProduct:
    """CudaBackend's dense_product: MultiGraphD's product over a graph's tiles, the layout copied to the device once
    per graph (cached beside the graph's own arrays)."""

    def dense_product(self, G: Any, x: Any, out: Any = None) -> Any:
        """out[v] = the sum over arcs u -> v of x[u] (times the weight): the two phases over G's tiles
        (graph.tiles.graph_tiles), three launches, nothing read back."""
        tiles = G.graph.device_cache.get("cuda:tiles")
        if tiles is None:
            layout = graph_tiles(G.graph)
            need = sum(a.nbytes for a in vars(layout).values() if isinstance(a, np.ndarray)) + 8 * layout.stream_size
            rt.check_free_memory(need, f"MultiGraphD's tiles of graph {G.graph.name or ''}")
            tiles = G.graph.device_cache["cuda:tiles"] = DenseTiles(layout)
        return tiles.product(x, out)

"""MultiGraph's dense-mode layout (MultiGraphD; Hong et al., PACT'17, section 4): the edge matrix in square tiles.

The edge matrix has a row per destination and a column per source. It is cut into `block` x `block` tiles (the paper's
6 x 1024: a column panel's source values fit in one CTA's shared memory, and so do a row panel's destination sums).
A tile holding more than `heavy` arcs (the paper's 18K) is *heavy*; the others are *light*.

Heavy tile: one CTA of `columns` threads (the paper's 1024). Its arcs, grouped by destination, are laid out as a
`rows` x `columns` matrix filled column by column, each thread walking its own column: a destination's run starts
with its negated local id, -(d + 1), followed by its arcs' local source ids; a column that starts inside a run starts
with the run's negated destination again. The matrix is stored row by row, so that the threads of a CTA read
consecutive words at every step (coalesced). Padding entries are -(block + 1): a destination no tile has. Each heavy
tile's output is its `block` destination sums, written to the stream buffer.

Light tiles: all light arcs of one column panel go to one CTA, which streams each arc's contribution to its own slot
of the stream buffer (no atomics, no local combining).

Phase 2 reads the stream buffer per row panel: the heavy tiles' sums (dense, `block` each) and then the light slots,
each with its destination, and adds them into the row panel's destinations.

    stream buffer of row panel p: [heavy outputs of p, `block` each][light slots of p]

`tile_layout(graph)` builds the arrays (host NumPy, int32 ids local to a tile or panel); `TileLayout.product(x)` is the
reference two-phase product y[v] = sum over arcs u -> v of x[u] (times the arc's weight where weighted), phase by
phase as the GPU kernels are to run it, and what they are tested against. benchmarks/multigraphd_bytes.py counts the
bytes one pass moves; docs/performance.md#multigraphds-two-phases-counted what that means for PageRank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numba
import numpy as np

from .build import first_unsorted_row

if TYPE_CHECKING:  # pragma: no cover
    from .graph import Graph

__all__ = ["BLOCK", "COLUMNS", "HEAVY", "TileLayout", "graph_tiles", "tile_layout"]

BLOCK = 6 * 1024  # the paper's tile side
COLUMNS = 1024  # the paper's CTA for a heavy tile
HEAVY = 18 * 1024  # the paper's heavy-tile threshold (arcs)


@dataclass(frozen=True)
class TileLayout:
    """The arrays of MultiGraphD's two phases over one graph (module notes)."""

    num_vertices: int
    block: int
    columns: int
    panels: int
    # heavy tiles, ordered by row panel then column panel
    heavy_row: np.ndarray  # int32[T]: each heavy tile's row panel
    heavy_column: np.ndarray  # int32[T]: its column panel
    heavy_rows: np.ndarray  # int32[T]: the rows of its element matrix
    heavy_start: np.ndarray  # int64[T + 1]: where its matrix starts in `elements` (rows x columns words each)
    elements: np.ndarray  # int32: sources >= 0, negated destinations -(d + 1), padding -(block + 1)
    element_weights: np.ndarray  # float32, beside `elements` (0 at separators and padding); empty if unweighted
    # light arcs, grouped by column panel
    light_start: np.ndarray  # int64[panels + 1]: each column panel's light arcs
    light_source: np.ndarray  # int32: the arc's source, local to its column panel
    light_weight: np.ndarray  # float32: its weight; empty if unweighted
    light_slot: np.ndarray  # int64: its slot in the stream buffer
    # the stream buffer, by row panel
    stream_start: np.ndarray  # int64[panels + 1]: each row panel's part (its heavy outputs, then its light slots)
    stream_heavy: np.ndarray  # int32[panels + 1]: the heavy tiles of each row panel (heavy_row is sorted)
    stream_destination: np.ndarray  # int32[len(stream)]: a light slot's destination, local to its row panel

    @property
    def weighted(self) -> bool:
        return self.light_weight.size > 0 or self.element_weights.size > 0

    @property
    def stream_size(self) -> int:
        return int(self.stream_start[-1])

    def product(self, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """y[v] = sum over arcs u -> v of x[u] (times the weight), by the two phases (float64); into `out` where
        given."""
        x = np.ascontiguousarray(x, dtype=np.float64)
        stream = np.zeros(self.stream_size, dtype=np.float64)
        _heavy_phase(self.heavy_row, self.heavy_column, self.heavy_rows, self.heavy_start, self.elements,
                     self.element_weights, self.element_weights.size > 0, self.stream_start, self.stream_heavy,
                     self.block, self.columns, x, stream)
        _light_phase(self.light_start, self.light_source, self.light_weight, self.light_weight.size > 0,
                     self.light_slot, self.block, x, stream)
        if out is None:
            y = np.zeros(self.num_vertices, dtype=np.float64)
        else:
            y = out
            y.fill(0.0)
        _reduce_phase(self.stream_start, self.stream_heavy, self.stream_destination, self.block, stream, y)
        return y


def graph_tiles(graph: Graph) -> TileLayout:
    """`graph`'s layout with the paper's sizes, as a backend's dense product reads it (built on first use, then cached
    on the graph, as its renumberings are)."""
    cached = graph.layouts.get("tiles")
    if cached is None:
        cached = graph.layouts["tiles"] = tile_layout(graph)
    return cached


def tile_layout(graph: Graph, block: int = BLOCK, columns: int = COLUMNS, heavy: int = HEAVY) -> TileLayout:
    """MultiGraphD's layout of `graph`'s edge matrix as it is numbered (renumber first: graph/layout.py)."""
    n = graph.num_vertices
    panels = max(1, (n + block - 1) // block)
    weighted = graph.weights is not None
    src = np.repeat(np.arange(n, dtype=np.int64), graph.out_degree())
    dst = graph.indices.astype(np.int64)
    tile = (dst // block) * panels + src // block
    arcs = np.bincount(tile, minlength=panels * panels)
    is_heavy = arcs > heavy
    on_heavy = is_heavy[tile]
    weights = graph.weights if weighted else None

    # every arc by (destination, source): the CSR's arcs are in source order, so a stable counting sort by destination
    # gives it (the CSC's order); the orders below are counting sorts too, linear in the arcs (comparison sorts of
    # every arc were most of the layout's time on the host)
    by_destination = _stable_order(dst, n, np.arange(graph.num_arcs, dtype=np.int64))
    # heavy tiles: arcs by (tile, destination, source); tile ids are ordered by row panel, then column panel
    heavy_in_order = on_heavy[by_destination]
    h = _stable_order(tile, panels * panels, by_destination[heavy_in_order])
    tiles = np.flatnonzero(is_heavy)
    per_tile = arcs[tiles]
    h_dst, h_src = dst[h], src[h]
    first_of_run = np.ones(h.size, dtype=bool)  # an arc that starts its destination's run within its tile
    first_of_run[1:] = (tile[h][1:] != tile[h][:-1]) | (h_dst[1:] != h_dst[:-1])
    runs = np.add.reduceat(first_of_run.astype(np.int64), np.concatenate(([0], np.cumsum(per_tile)[:-1]))) \
        if tiles.size else np.zeros(0, dtype=np.int64)
    # the paper's rows, ceil((arcs + runs + columns) / columns), and one slot more per column: a run is not started
    # in a column's last slot (its destination and first arc go to the next column)
    heavy_rows = ((per_tile + runs + 2 * columns + columns - 1) // columns).astype(np.int32)
    heavy_start = np.zeros(tiles.size + 1, dtype=np.int64)
    np.cumsum(heavy_rows.astype(np.int64) * columns, out=heavy_start[1:])
    elements = np.full(int(heavy_start[-1]), -(block + 1), dtype=np.int32)
    element_weights = np.zeros(int(heavy_start[-1]) if weighted else 0, dtype=np.float32)
    arc_start = np.zeros(tiles.size + 1, dtype=np.int64)
    np.cumsum(per_tile, out=arc_start[1:])
    _fill_heavy(arc_start, (h_dst % block).astype(np.int32), (h_src % block).astype(np.int32),
                weights[h] if weighted else np.zeros(0, dtype=np.float32), weighted, heavy_rows, heavy_start, columns,
                elements, element_weights)

    # the stream buffer: per row panel, its heavy tiles' outputs, then its light arcs' slots (by destination)
    heavy_row = (tiles // panels).astype(np.int32)
    stream_heavy = np.zeros(panels + 1, dtype=np.int32)
    np.cumsum(np.bincount(heavy_row, minlength=panels), out=stream_heavy[1:])
    light = np.flatnonzero(~on_heavy)  # in the CSR's order
    light_row = dst[light] // block
    light_per_row = np.bincount(light_row, minlength=panels)
    stream_start = np.zeros(panels + 1, dtype=np.int64)
    np.cumsum(np.diff(stream_heavy).astype(np.int64) * block + light_per_row, out=stream_start[1:])
    by_row = by_destination[~heavy_in_order]  # the slots' order: row panel, destination (then source)
    slot = np.empty(light.size, dtype=np.int64)  # slot of by_row[i]
    row_of = dst[by_row] // block
    light_first = np.zeros(panels + 1, dtype=np.int64)
    np.cumsum(light_per_row, out=light_first[1:])
    slot[:] = stream_start[row_of] + np.diff(stream_heavy)[row_of].astype(np.int64) * block \
        + (np.arange(light.size) - light_first[row_of])
    stream_destination = np.full(int(stream_start[-1]), -1, dtype=np.int32)
    stream_destination[slot] = (dst[by_row] % block).astype(np.int32)

    # the light arcs as phase 1 reads them: by column panel (then source), each with its slot
    slot_of_arc = np.empty(graph.num_arcs, dtype=np.int64)
    slot_of_arc[by_row] = slot
    rows_sorted = first_unsorted_row(graph.offsets, graph.indices) < 0
    # by source, then destination: the CSR's own order where each row's targets are sorted (Graph.from_edges')
    by_column = light if rows_sorted else _stable_order(src, n, by_row)
    light_start = np.zeros(panels + 1, dtype=np.int64)
    np.cumsum(np.bincount(src[light] // block, minlength=panels), out=light_start[1:])
    return TileLayout(
        num_vertices=n, block=block, columns=columns, panels=panels,
        heavy_row=heavy_row, heavy_column=(tiles % panels).astype(np.int32), heavy_rows=heavy_rows,
        heavy_start=heavy_start, elements=elements, element_weights=element_weights,
        light_start=light_start, light_source=(src[by_column] % block).astype(np.int32),
        light_weight=weights[by_column].astype(np.float32) if weighted else np.zeros(0, dtype=np.float32),
        light_slot=slot_of_arc[by_column], stream_start=stream_start, stream_heavy=stream_heavy,
        stream_destination=stream_destination,
    )


@numba.njit(nogil=True, cache=True)
def _stable_order(key, num_keys, items):  # pragma: no cover - numba
    """`items` (arc ids) reordered by key[item] in 0..num_keys-1, stably: a counting sort."""
    start = np.zeros(num_keys + 1, dtype=np.int64)
    for i in items:
        start[key[i] + 1] += 1
    for k in range(num_keys):
        start[k + 1] += start[k]
    out = np.empty_like(items)
    for i in items:
        out[start[key[i]]] = i
        start[key[i]] += 1
    return out


@numba.njit(nogil=True, cache=True)
def _fill_heavy(arc_start, local_dst, local_src, weights, weighted, heavy_rows, heavy_start, columns, elements,
                element_weights):  # pragma: no cover - numba
    """Each heavy tile's arcs into its element matrix, column by column (module notes)."""
    for t in range(heavy_rows.shape[0]):
        rows = heavy_rows[t]
        base = heavy_start[t]
        column, row = 0, 0
        previous = -1
        for a in range(arc_start[t], arc_start[t + 1]):
            d = local_dst[a]
            # a new run, or the column's first entry inside a run: the destination first (room for it and one arc)
            if d != previous or row == 0:
                if row + 1 >= rows:
                    column += 1
                    row = 0
                if column >= columns:
                    raise ValueError("a heavy tile's arcs overflow its element matrix")
                elements[base + row * columns + column] = -(d + 1)
                row += 1
                previous = d
            elements[base + row * columns + column] = local_src[a]
            if weighted:
                element_weights[base + row * columns + column] = weights[a]
            row += 1
            if row == rows:
                column += 1
                row = 0


@numba.njit(nogil=True, cache=True)
def _heavy_phase(heavy_row, heavy_column, heavy_rows, heavy_start, elements, element_weights, weighted, stream_start,
                 stream_heavy, block, columns, x, stream):  # pragma: no cover - numba
    """Phase 1, heavy tiles: per thread (column), a register sum per run, added into the tile's destination sums."""
    for t in range(heavy_row.shape[0]):
        p = heavy_row[t]
        out = stream_start[p] + (t - stream_heavy[p]) * block  # this tile's `block` sums
        first_source = heavy_column[t] * block
        base = heavy_start[t]
        for c in range(columns):
            d = -1
            acc = 0.0
            for r in range(heavy_rows[t]):
                e = elements[base + r * columns + c]
                if e < 0:
                    if 0 <= d < block:
                        stream[out + d] += acc
                    d = -e - 1
                    acc = 0.0
                else:
                    w = element_weights[base + r * columns + c] if weighted else 1.0
                    acc += x[first_source + e] * w
            if 0 <= d < block:
                stream[out + d] += acc


@numba.njit(nogil=True, cache=True)
def _light_phase(light_start, light_source, light_weight, weighted, light_slot, block, x,
                 stream):  # pragma: no cover - numba
    """Phase 1, light arcs: each column panel's arcs stream their contributions to their own slots."""
    for p in range(light_start.shape[0] - 1):
        first_source = p * block
        for a in range(light_start[p], light_start[p + 1]):
            w = light_weight[a] if weighted else 1.0
            stream[light_slot[a]] = x[first_source + light_source[a]] * w


@numba.njit(nogil=True, cache=True)
def _reduce_phase(stream_start, stream_heavy, stream_destination, block, stream, y):  # pragma: no cover - numba
    """Phase 2: per row panel, its heavy tiles' sums and its light slots added into its destinations."""
    n = y.shape[0]
    for p in range(stream_start.shape[0] - 1):
        first = p * block
        base = stream_start[p]
        heavy_end = base + (stream_heavy[p + 1] - stream_heavy[p]) * block
        for i in range(base, heavy_end):
            v = first + (i - base) % block
            if v < n:
                y[v] += stream[i]
        for i in range(heavy_end, stream_start[p + 1]):
            y[first + stream_destination[i]] += stream[i]

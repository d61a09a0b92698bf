"""MultiGraphD's tile layout (graph/tiles.py): the element matrices as the paper lays them out, and the reference
two-phase product equal to SciPy's on random and generated graphs, with heavy and light tiles both present."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphgear as gg
from graphgear.graph.tiles import tile_layout


def reference(g: gg.Graph, x: np.ndarray) -> np.ndarray:
    w = g.weights.astype(np.float64) if g.weighted else np.ones(g.num_arcs)
    a = sp.csr_array((w, g.indices, g.offsets), shape=(g.num_vertices, g.num_vertices))
    return a.T @ x


@st.composite
def cases(draw):
    n = draw(st.integers(0, 80))
    m = draw(st.integers(0, 8 * n)) if n else 0
    ids = st.integers(0, max(n - 1, 0))
    src = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    dst = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    weights = (np.array(draw(st.lists(st.integers(1, 9), min_size=m, max_size=m)), dtype=np.float64)
               if draw(st.booleans()) else None)
    g = gg.Graph.from_edges(src, dst, weights, num_vertices=n, directed=draw(st.booleans()), duplicates="keep")
    return g, draw(st.integers(1, 24)), draw(st.sampled_from([1, 2, 4, 8])), draw(st.integers(0, 30))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_product_equals_scipy(case):
    g, block, columns, heavy = case
    layout = tile_layout(g, block, columns, heavy)
    x = np.random.default_rng(g.num_arcs).random(g.num_vertices)
    np.testing.assert_allclose(layout.product(x), reference(g, x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("spec,block,columns,heavy",
                         [("kron:11:w", 128, 32, 200), ("rmat:10:8", 100, 16, 50), ("grid:30:30:0.8:w", 64, 8, 40)])
def test_generated_graphs_have_heavy_and_light_tiles(spec, block, columns, heavy):
    g = gg.load(spec)
    layout = tile_layout(g, block, columns, heavy)
    assert layout.heavy_row.size and layout.light_source.size
    x = np.random.default_rng(1).random(g.num_vertices)
    np.testing.assert_allclose(layout.product(x), reference(g, x), rtol=1e-12)


def test_rows_out_of_order_give_the_same_layout():
    """A Graph built from its arrays may hold a row's targets in any order (Graph.from_edges sorts them): the layout
    is the one of the sorted rows (its light arcs then go through a counting sort by source)."""
    g = gg.load("rmat:11:8:w")
    rng = np.random.default_rng(4)
    indices, weights = g.indices.copy(), g.weights.copy()
    for u in range(g.num_vertices):
        a, b = g.offsets[u], g.offsets[u + 1]
        shuffled = rng.permutation(b - a)
        indices[a:b], weights[a:b] = indices[a:b][shuffled], weights[a:b][shuffled]
    shuffled_graph = gg.Graph(g.offsets, indices, weights, directed=True)
    assert not np.array_equal(shuffled_graph.indices, g.indices)
    for x, y in zip(vars(tile_layout(g, 100, 4, 30)).values(), vars(tile_layout(shuffled_graph, 100, 4, 30)).values()):
        assert np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y


def test_heavy_tiles_are_the_papers_column_major_runs():
    """Every column of a heavy tile's matrix starts with a negated destination (or is padding), its sources lie in
    the tile's column panel, and the tile's arcs are all there: each (destination, source) pair once per arc."""
    g = gg.load("kron:10")
    block, columns, heavy = 128, 8, 60
    layout = tile_layout(g, block, columns, heavy)
    src = np.repeat(np.arange(g.num_vertices), g.out_degree())
    for t in range(layout.heavy_row.size):
        rows = int(layout.heavy_rows[t])
        matrix = layout.elements[layout.heavy_start[t]:layout.heavy_start[t + 1]].reshape(rows, columns)
        assert np.all(matrix[0] < 0)
        found = []
        for c in range(columns):
            d = None
            for e in matrix[:, c]:
                if e < 0:
                    d = -int(e) - 1
                elif d is not None and d < block:
                    found.append((d, int(e)))
        rp, cp = layout.heavy_row[t], layout.heavy_column[t]
        in_tile = (g.indices // block == rp) & (src // block == cp)
        expected = sorted(zip((g.indices[in_tile] % block).tolist(), (src[in_tile] % block).tolist()))
        assert sorted(found) == expected and len(expected) > heavy


def test_the_stream_buffer_is_laid_out_by_row_panel():
    g = gg.load("er:400:6:w")
    layout = tile_layout(g, 50, 4, 30)
    heavy_per_row = np.diff(layout.stream_heavy)
    light_per_row = np.diff(layout.stream_start) - heavy_per_row * layout.block
    assert np.all(light_per_row >= 0) and light_per_row.sum() == layout.light_source.size
    assert np.array_equal(np.bincount(layout.heavy_row, minlength=layout.panels), heavy_per_row)
    assert sorted(layout.light_slot.tolist()) == np.flatnonzero(layout.stream_destination >= 0).tolist()

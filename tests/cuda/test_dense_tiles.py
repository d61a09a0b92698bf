"""MultiGraphD on the GPU (backends/cuda/dense.py, kernels/dense.cuh): the two-phase product equals the layout's CPU
reference (graph/tiles.py) and SciPy's, with heavy and light tiles, weighted and not."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import graphgear as gg
from graphgear.graph.tiles import tile_layout

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("spec,block,columns,heavy", [
    ("kron:12:w", 256, 64, 300), ("kron:12", 256, 32, 100), ("rmat:11:8:w", 500, 128, 400),
    ("grid:40:40:0.8:w", 128, 32, 50), ("er:3000:6", 1024, 256, 2000), ("kron:14", 6144, 1024, 18432),
])
def test_product_equals_the_reference(spec, block, columns, heavy):
    cp = pytest.importorskip("cupy")
    from graphgear.backends.cuda.dense import DenseTiles

    g = gg.load(spec)
    layout = tile_layout(g, block, columns, heavy)
    x = np.random.default_rng(3).random(g.num_vertices)
    y = cp.asnumpy(DenseTiles(layout).product(cp.asarray(x)))
    w = g.weights.astype(np.float64) if g.weighted else np.ones(g.num_arcs)
    ref = sp.csr_array((w, g.indices, g.offsets), shape=(g.num_vertices,) * 2).T @ x
    np.testing.assert_allclose(y, layout.product(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)

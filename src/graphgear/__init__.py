"""graphgear: graph analytics on NVIDIA GPUs, with a portable CPU backend, that picks the execution path each iteration.

    import graphgear as gg
    g = gg.load("kron:16")            # a generator spec or a file: .mtx, .txt/.el/.wel/.csv, .gr, .graph, .npz (gzip too)
    g.stats()                         # sizes, degrees, Gini, components, pseudo-diameter
    gg.bfs(g, 0).distances            # every algorithm takes backend= and strategy=, and returns .trace
"""

from __future__ import annotations

import os

# numba's OpenMP threads wait passively between parallel loops. With the default spin-then-sleep policy a loop on a
# small frontier cost far more (a spinning worker held the core the next loop needed):
# docs/performance.md#openmp-wait-policy. Set before numba starts its thread pool; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

# numba picks its cache folder as each @njit(cache=True) kernel is decorated: give it a writable one first (a read-only
# install with a read-only home would fail the import).
from ._numba_cache import ensure_writable_cache  # noqa: E402

ensure_writable_cache()

from . import errors  # noqa: E402
from .api import (  # noqa: E402
    betweenness_centrality,
    bfs,
    color_propagation,
    connected_components,
    pagerank,
    sssp,
    strongly_connected_components,
)
from .engine.strategy import Strategy  # noqa: E402
from .errors import GraphError, GraphFormatError, GraphgearError, GraphSpecError  # noqa: E402
from .frontier import Frontier  # noqa: E402
from .functor import Functor  # noqa: E402
from .graph import Graph  # noqa: E402
from .graph.io import load, save  # noqa: E402
from .program import VertexProgram, run_program  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Graph",
    "load",
    "save",
    "bfs",
    "sssp",
    "pagerank",
    "connected_components",
    "strongly_connected_components",
    "betweenness_centrality",
    "color_propagation",
    "Strategy",
    "Frontier",
    "Functor",
    "VertexProgram",
    "run_program",
    "errors",
    "GraphgearError",
    "GraphError",
    "GraphFormatError",
    "GraphSpecError",
]

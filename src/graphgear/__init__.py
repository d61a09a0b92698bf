"""graphgear: graph analytics on NVIDIA GPUs, with a portable CPU backend, that picks the execution path each iteration.

    import graphgear as gg
    g = gg.load("kron:16")            # a generator spec or a file: .mtx, .txt/.el/.wel/.csv, .gr, .graph, .npz (gzip too)
    g.stats()                         # sizes, degrees, Gini, components, pseudo-diameter
    gg.bfs(g, 0).distances            # every algorithm takes backend= and strategy=, and returns .trace
"""

from __future__ import annotations

from . import errors
from .api import (
    betweenness_centrality,
    bfs,
    color_propagation,
    connected_components,
    pagerank,
    sssp,
    strongly_connected_components,
)
from .engine.strategy import Strategy
from .errors import GraphError, GraphFormatError, GraphgearError, GraphSpecError
from .frontier import Frontier
from .functor import Functor
from .graph import Graph
from .graph.io import load, save
from .program import VertexProgram, run_program

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

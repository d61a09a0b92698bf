"""graphgear: graph analytics on NVIDIA GPUs, with a portable CPU backend, that picks the execution path each iteration.

    import graphgear as gg
    g = gg.load("kron:16")            # a generator spec or a file: .mtx, .txt/.el/.wel/.csv, .gr, .graph, .npz (gzip too)
    g.stats()                         # sizes, degrees, Gini, components, pseudo-diameter
"""

from __future__ import annotations

from . import errors
from .errors import GraphError, GraphFormatError, GraphgearError, GraphSpecError
from .graph import Graph
from .graph.io import load, save

__version__ = "0.1.0"

__all__ = ["Graph", "load", "save", "errors", "GraphgearError", "GraphError", "GraphFormatError", "GraphSpecError"]

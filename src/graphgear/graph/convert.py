"""Anything a user holds as a graph, as a graphgear Graph: `as_graph` is what every public function calls first."""

from __future__ import annotations

import os
from typing import Any

from ..errors import GraphError
from .graph import Graph

__all__ = ["as_graph"]


def as_graph(obj: Any, *, weight: str | None = "weight") -> Graph:
    """A Graph from a Graph (as it is), a file path or generator spec (`graphgear.load`). `weight` names the edge
    attribute or column of a weighted input; None reads it unweighted."""
    if isinstance(obj, Graph):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        from .io import load

        return load(obj)
    raise GraphError(f"expected a graphgear Graph, a file path or a generator spec, got {type(obj).__name__} {obj!r:.80}")

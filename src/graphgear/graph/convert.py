"""Anything a user holds as a graph, as a graphgear Graph: `as_graph` is what every public function calls first.

So ``gg.pagerank(G)`` takes the NetworkX graph, SciPy matrix or edge table the user already has, as cuGraph's and
NetworkX's functions do, and the results come back keyed by the user's own vertex labels (`graphgear.results`). The
input kinds are told apart by the modules already imported (`sys.modules`): an object cannot be a pandas DataFrame
unless pandas is loaded, so asking costs no import of an optional package.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from ..errors import GraphError
from .build import gapless_or_renumbered, table_column, table_column_names, table_columns
from .graph import Graph, described

__all__ = ["as_graph"]


def as_graph(obj: Any, *, weight: str | None = "weight") -> Graph:
    """A Graph from what the user holds; `weight` names the edge attribute or column of the weights (None: unweighted).

    - a `Graph`: as it is;
    - a file path or generator spec: `graphgear.load` (the file says whether it is weighted);
    - a NetworkX Graph or DiGraph: `Graph.from_networkx` with ``weight`` (node labels kept; unweighted when some edge
      lacks the attribute). A MultiGraph or MultiDiGraph is refused: its parallel edges would be merged silently;
    - a SciPy sparse matrix or array: `Graph.from_scipy`, entry (i, j) the arc i -> j weighted by its value (undirected
      when the matrix is symmetric); ``weight=None`` keeps the pattern only. Its size is the vertex count;
    - a pandas DataFrame or pyarrow Table of edges, one row per arc (directed): the source and target columns are found
      by name (``source``/``target`` as NetworkX's ``to_pandas_edgelist`` writes them, ``source``/``destination`` as
      cuGraph's, ``src``/``dst`` as graphgear's), the weights are the column named ``weight`` when the table has one.
      The ids are kept as vertex ids when they are exactly 0..max; otherwise (strings, gaps, negative numbers) they
      are labels, renumbered in sorted order, so no vertex comes of an id no row names.

    Anything else is a GraphError naming its type.
    """
    if isinstance(obj, Graph):
        return obj
    if weight is not None and not isinstance(weight, str):
        raise GraphError(f"weight must be the name of an edge attribute or column (a string) or None, got "
                         f"{described(weight)}")
    if isinstance(obj, (str, os.PathLike)):
        from .io import load

        return load(obj)
    if _is_networkx(obj):
        return Graph.from_networkx(obj, weight=weight)
    if _is_scipy_sparse(obj):
        return _from_scipy(obj, weight)
    if _is_table(obj):
        return _from_table(obj, weight)
    raise GraphError(f"expected a graphgear Graph, a file path or generator spec, a NetworkX graph, a SciPy sparse "
                     f"matrix or a pandas/pyarrow edge table, got {described(obj)}")


def _is_networkx(obj: Any) -> bool:
    nx = sys.modules.get("networkx")
    return nx is not None and isinstance(obj, nx.Graph)  # DiGraph and the multigraphs derive from Graph


def _is_scipy_sparse(obj: Any) -> bool:
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(obj)


def _is_table(obj: Any) -> bool:
    pd, pa = sys.modules.get("pandas"), sys.modules.get("pyarrow")
    return (pd is not None and isinstance(obj, pd.DataFrame)) or (pa is not None and isinstance(obj, pa.Table))


def _from_scipy(matrix: Any, weight: str | None) -> Graph:
    """`Graph.from_scipy`; without weights its pattern (stored entries, explicit zeros too) as a boolean matrix."""
    if weight is None:
        matrix = matrix.astype(bool)
    return Graph.from_scipy(matrix)


def _from_table(table: Any, weight: str | None) -> Graph:
    """What `Graph.from_table` builds, with the source/target columns found by name and the weight column when
    present; integer ids with gaps are renumbered (see `as_graph`). Columns are read once, as NumPy arrays (no Python
    loop over the rows)."""
    columns = table_column_names(table)
    source, target = table_columns(columns)
    src, dst = table_column(table, source), table_column(table, target)
    weights = table_column(table, weight) if weight is not None and weight in columns else None
    if src.dtype.kind not in "iu" or dst.dtype.kind not in "iu":  # labels (strings, ...): Graph.from_edges' rule
        return Graph.from_edges(src, dst, weights, directed=True)
    if any(ids.dtype == np.uint64 and ids.size and ids.max() >= 2**63 for ids in (src, dst)):
        return Graph.from_edges(src, dst, weights, directed=True, renumber=True)  # past int64: labels like any other
    src, dst, labels = gapless_or_renumbered(src, dst)
    g = Graph.from_edges(src, dst, weights, num_vertices=None if labels is None else labels.size, directed=True,
                         renumber=False)
    g.vertex_ids = labels
    return g

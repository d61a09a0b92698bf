"""Result objects of the algorithms: host arrays, the per-iteration trace, and the results in the user's labels.

Arrays are indexed by internal vertex index (0..V-1), and arrays whose values are vertices (BFS/SSSP predecessors,
colour propagation's colours) hold internal indices too: the kernels' own numbers, with no copy or lookup after a run.
A graph built from labels (strings, sparse ids, a NetworkX graph's nodes, a file whose ids have gaps) keeps them in
``graph.vertex_ids``, and the exports speak them:

- ``to_dict()``: {label: value} for the one array that answers the algorithm's question (`Result.reported`, per type
  below), as NetworkX's functions return them, so ``gg.pagerank(G).to_dict()`` stands where ``nx.pagerank(G)`` did;
- ``to_pandas()`` / ``to_arrow()``: a ``vertex`` column of labels and one column per array, vertex-valued arrays as
  labels (where there is no vertex, such as the source's predecessor, the value is missing: pandas' NA or None,
  pyarrow's null).

| result            | to_dict reports                                                     | arrays of vertices |
|-------------------|---------------------------------------------------------------------|--------------------|
| BFSResult         | distances of the vertices reached (nx.single_source_shortest_path_length) | predecessors |
| SSSPResult        | distances of the vertices reached (nx.single_source_dijkstra_path_length) | predecessors |
| PageRankResult    | ranks (nx.pagerank)                                                 |                    |
| ComponentsResult  | labels: component numbers 0..C-1, numbers and not vertices          |                    |
| BetweennessResult | centrality (nx.betweenness_centrality)                              |                    |
| ColorResult       | colors, as labels                                                   | colors             |

On a graph without labels the labels are the indices: the exports report the arrays as they are (a missing
predecessor stays -1). pandas and pyarrow are optional: without one, its export raises `MissingExtraError` naming what
to install.

A GPU run leaves its arrays on the device: the first read of ``result.distances`` (say) copies that array to the host
(through pinned memory) and keeps the copy, so an algorithm's time does not include copies nobody asked for;
``result.device("distances")`` hands out the device array itself (a CuPy array) without copying.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

import numpy as np

from .engine.trace import Trace
from .errors import GraphgearError, MissingExtraError, optional_module

__all__ = [
    "Deferred",
    "MissingExtraError",
    "Result",
    "BFSResult",
    "SSSPResult",
    "PageRankResult",
    "ComponentsResult",
    "BetweennessResult",
    "ColorResult",
]


class Deferred:
    """A per-vertex array computed on its first read: ``compute()`` returns it (on the algorithm's device)."""

    __slots__ = ("compute",)

    def __init__(self, compute: Any) -> None:
        self.compute = compute


def _to_host(array: Any) -> np.ndarray:
    from .backends import get_backend

    return np.asarray(get_backend("cuda").to_host(array))


@dataclass
class Result:
    """Base of every result: per-vertex arrays (the dataclass fields before `trace`), the trace, and the graph."""

    trace: Trace = field(default_factory=Trace, repr=False, kw_only=True)
    graph: Any = field(default=None, repr=False, kw_only=True)
    seconds: float = field(default=0.0, kw_only=True)

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if isinstance(value, Deferred):
            value = value.compute()
            object.__setattr__(self, name, value)
        if type(value).__module__.startswith("cupy"):  # a device array: copy it to the host once, on first read
            value = _to_host(value)
            object.__setattr__(self, name, value)
        return value

    def device(self, name: str) -> Any:
        """The array `name` where the algorithm left it: a CuPy array after a GPU run (no copy), else NumPy."""
        value = object.__getattribute__(self, name)
        if isinstance(value, Deferred):
            value = value.compute()
            object.__setattr__(self, name, value)
        return value

    def arrays(self) -> dict[str, np.ndarray]:
        """The per-vertex arrays by name (internal indices, as the algorithm left them, on the host)."""
        skip = {"trace", "graph", "seconds"}
        out = {}
        for f in fields(self):
            if f.name not in skip:
                value = getattr(self, f.name)
                if isinstance(value, np.ndarray):
                    out[f.name] = value
        return out

    # ------------------------------------------------------------------------------------------- in the user's labels
    # the array to_dict reports, and the arrays whose values are vertex indices (reported as labels); set per type
    reported: ClassVar[str] = ""
    vertex_valued: ClassVar[tuple[str, ...]] = ()

    def _labelled(self) -> bool:
        return self.graph is not None and getattr(self.graph, "vertex_ids", None) is not None

    def _vertex_labels(self, n: int) -> np.ndarray:
        """The label of every vertex 0..n-1 (the indices on a graph without labels)."""
        return self.graph.vertex_labels(np.arange(n)) if self._labelled() else np.arange(n)

    def _as_labels(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(labels, missing): the labels of vertex indices, and where an index is negative (no vertex: None / null), or
        None when every value is a vertex. Vectorised: one gather from ``vertex_ids``."""
        values = np.asarray(values)
        missing = values < 0
        if not missing.any():
            return self.graph.vertex_ids[values], None
        return self.graph.vertex_ids[np.where(missing, 0, values)], missing

    def _kept(self, values: np.ndarray) -> np.ndarray:
        """Which vertices `to_dict` reports: all of them (a traversal's result reports the vertices it reached)."""
        return np.ones(values.shape[0], dtype=bool)

    def to_dict(self) -> dict[Any, Any]:
        """{vertex label: value} of the array that answers the algorithm's question (`reported`; the table in the
        module notes), with Python numbers; values that are vertices are labels too. The labels are the indices
        0..V-1 on a graph without labels."""
        values = getattr(self, self.reported)
        keys = self._vertex_labels(values.shape[0])
        kept = self._kept(values)
        if not kept.all():
            keys, values = keys[kept], values[kept]
        if self.reported in self.vertex_valued and self._labelled():
            labels, missing = self._as_labels(values)
            shown = labels.tolist()
            if missing is not None:
                for i in np.flatnonzero(missing).tolist():
                    shown[i] = None
            return dict(zip(keys.tolist(), shown))
        return dict(zip(keys.tolist(), values.tolist()))

    def to_pandas(self) -> Any:
        """A pandas DataFrame: a ``vertex`` column of labels and one column per array, vertex-valued arrays as labels,
        missing (``isna()``) where there is no vertex: a nullable integer column (``Int64``, NA) for integer labels,
        NaN for float labels, None or NaN as pandas stores strings and other objects. Needs pandas (``pip install
        graphgear[pandas]``)."""
        pd = optional_module("pandas", "Result.to_pandas", "pip install graphgear[pandas]")
        arrays = self.arrays()
        n = len(next(iter(arrays.values()))) if arrays else 0
        data: dict[str, Any] = {"vertex": self._vertex_labels(n)}
        for name, values in arrays.items():
            if name in self.vertex_valued and self._labelled():
                labels, missing = self._as_labels(values)
                values = labels if missing is None else _pandas_missing(pd, labels, missing)
            data[name] = values
        return pd.DataFrame(data)

    def to_arrow(self) -> Any:
        """A pyarrow Table: a ``vertex`` column of labels and one column per array, vertex-valued arrays as labels
        (null where there is no vertex). Needs pyarrow (``pip install graphgear[arrow]``)."""
        pa = optional_module("pyarrow", "Result.to_arrow", "pip install graphgear[arrow]")
        arrays = self.arrays()
        n = len(next(iter(arrays.values()))) if arrays else 0
        columns = {"vertex": _arrow_array(pa, self._vertex_labels(n), None, "vertex")}
        for name, values in arrays.items():
            missing = None
            if name in self.vertex_valued and self._labelled():
                values, missing = self._as_labels(values)
            columns[name] = _arrow_array(pa, values, missing, name)
        return pa.table(columns)


def _pandas_missing(pd: Any, labels: np.ndarray, missing: np.ndarray) -> Any:
    """Labels with missing entries as pandas holds them: integers as a nullable integer array (no float rounding of
    large ids), floats with NaN, other labels as objects with None."""
    if labels.dtype.kind in "iu":
        return pd.arrays.IntegerArray(labels, missing)
    if labels.dtype.kind == "f":
        return np.where(missing, np.nan, labels)
    out = labels.astype(object)
    out[missing] = None
    return out


def _arrow_array(pa: Any, values: np.ndarray, missing: np.ndarray | None, name: str) -> Any:
    """A pyarrow array of `values` (null where `missing`): numbers straight from NumPy, labels of other kinds
    (strings, objects) through pyarrow's inference; a GraphgearError when pyarrow has no type for them (tuples of
    mixed kinds, arbitrary objects)."""
    try:
        if values.dtype.kind in "biuf" and missing is not None:
            return pa.array(values, mask=missing)
        if missing is not None:  # strings and objects: None is pyarrow's null
            values = values.astype(object)
            values[missing] = None
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise GraphgearError(f"column {name!r} holds labels pyarrow cannot store ({exc}); use to_pandas()") from None


def _reached(values: np.ndarray) -> np.ndarray:
    """The vertices a traversal reached: distance >= 0 (BFS: -1 is unreachable) and finite (SSSP: inf)."""
    return (values >= 0) & np.isfinite(values) if values.dtype.kind == "f" else values >= 0


@dataclass
class BFSResult(Result):
    """Breadth-first search from one source. ``to_dict()``: {label: hops} of the vertices reached, as NetworkX's
    ``single_source_shortest_path_length``; ``predecessors`` are internal indices, reported as labels by the
    exports."""

    distances: np.ndarray  # int64, -1 = unreachable
    predecessors: np.ndarray  # int64 internal indices, -1 = none (the source, unreachable vertices)

    reported: ClassVar[str] = "distances"
    vertex_valued: ClassVar[tuple[str, ...]] = ("predecessors",)

    def _kept(self, values: np.ndarray) -> np.ndarray:
        return _reached(values)


@dataclass
class SSSPResult(Result):
    """Single-source shortest paths. ``to_dict()``: {label: distance} of the vertices reached, as NetworkX's
    ``single_source_dijkstra_path_length``; ``predecessors`` are internal indices, reported as labels by the
    exports."""

    distances: np.ndarray  # float64, inf = unreachable
    predecessors: np.ndarray  # int64 internal indices, -1 = none

    reported: ClassVar[str] = "distances"
    vertex_valued: ClassVar[tuple[str, ...]] = ("predecessors",)

    def _kept(self, values: np.ndarray) -> np.ndarray:
        return _reached(values)


@dataclass
class PageRankResult(Result):
    """PageRank. ``to_dict()``: {label: rank}, as ``nx.pagerank``."""

    ranks: np.ndarray  # float64, sums to 1
    iterations: int = 0

    reported: ClassVar[str] = "ranks"


@dataclass
class ComponentsResult(Result):
    """Connected or strongly connected components. ``labels`` are component numbers 0..C-1 (in order of each
    component's smallest vertex), not vertices, so every export reports them as numbers: ``to_dict()`` is
    {vertex label: component number}."""

    labels: np.ndarray  # int64, components numbered 0..C-1

    reported: ClassVar[str] = "labels"

    @property
    def num_components(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size else 0


@dataclass
class BetweennessResult(Result):
    """Betweenness centrality. ``to_dict()``: {label: centrality}, as ``nx.betweenness_centrality``."""

    centrality: np.ndarray

    reported: ClassVar[str] = "centrality"


@dataclass
class ColorResult(Result):
    """Colour propagation. ``colors`` holds internal indices: colors[v] is the largest internal index 0..V-1 that
    reaches v, whatever the graph's labels (the kernels compare indices). The exports report labels: ``to_dict()`` is
    {vertex label: colour's label} and ``to_pandas()``/``to_arrow()``'s ``colors`` column holds labels. On a graph
    renumbered from sorted labels (files, `Graph.from_edges`) the largest index is the largest label; on a NetworkX
    graph the node order decides."""

    colors: np.ndarray  # int64 internal indices: the largest index that reaches each vertex along edges

    reported: ClassVar[str] = "colors"
    vertex_valued: ClassVar[tuple[str, ...]] = ("colors",)

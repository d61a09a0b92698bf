"""Result objects of the algorithms: host arrays, the per-iteration trace, and `to_pandas`.

Arrays are indexed by internal vertex id (0..V-1); `to_pandas` reports the user's vertex labels when the graph was
renumbered. A GPU run leaves its arrays on the device: the first read of ``result.distances`` (say) copies that array
to the host (through pinned memory) and keeps the copy, so an algorithm's time does not include copies nobody asked
for; ``result.device("distances")`` hands out the device array itself (a CuPy array) without copying.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .engine.trace import Trace

__all__ = [
    "Deferred",
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
        """The per-vertex arrays by name."""
        skip = {"trace", "graph", "seconds"}
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip and isinstance(getattr(self, f.name), np.ndarray)}

    def to_pandas(self) -> Any:
        """A pandas DataFrame with a ``vertex`` column (user labels) and one column per array."""
        import pandas as pd

        arrays = self.arrays()
        n = len(next(iter(arrays.values()))) if arrays else 0
        vertex = np.arange(n) if self.graph is None else self.graph.vertex_labels(np.arange(n))
        data = {"vertex": vertex}
        for name, values in arrays.items():
            if name == "predecessors" and self.graph is not None and self.graph.vertex_ids is not None:
                labels = np.empty(n, dtype=object)
                has = values >= 0
                labels[has] = self.graph.vertex_labels(values[has])
                labels[~has] = None
                values = labels
            data[name] = values
        return pd.DataFrame(data)


@dataclass
class BFSResult(Result):
    distances: np.ndarray  # int64, -1 = unreachable
    predecessors: np.ndarray  # int64, -1 = none (the source, unreachable vertices)


@dataclass
class SSSPResult(Result):
    distances: np.ndarray  # float64, inf = unreachable
    predecessors: np.ndarray


@dataclass
class PageRankResult(Result):
    ranks: np.ndarray  # float64, sums to 1
    iterations: int = 0


@dataclass
class ComponentsResult(Result):
    labels: np.ndarray  # int64, components numbered 0..C-1

    @property
    def num_components(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size else 0


@dataclass
class BetweennessResult(Result):
    centrality: np.ndarray


@dataclass
class ColorResult(Result):
    colors: np.ndarray  # int64: the largest vertex id that reaches each vertex along edges

"""The dispatch table: which NetworkX functions graphgear implements, and when it declines a call.

A backend function is registered with `implements(check)`: its name is the NetworkX function's, its parameters are
NetworkX's in NetworkX's order (NetworkX calls it with every argument bound), plus graphgear's keyword-only
``device``. `check(G, arguments)` is that function's part of `can_run`: True, or a string saying why graphgear
declines the call (NetworkX then runs it itself, when ``nx.config.fallback_to_nx`` or ``backend_priority`` allow).
It sees the caller's graph (a NetworkX graph, not yet converted); the checks that need the weights read them from a
converted graph in NetworkX's cache when there is one, else in one pass over the edge data. The function checks the
weights again on the converted graph and raises NotImplementedError (which NetworkX treats as a decline) where they
do not hold.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .graph import GearGraph, WeightColumn, _column

__all__ = ["FUNCTIONS", "can_run", "device", "gg_accepts", "implements", "is_real", "weight_column", "weight_refusal"]

FUNCTIONS: dict[str, Callable[..., Any]] = {}
CHECKS: dict[str, Callable[[Any, dict[str, Any]], bool | str]] = {}
DEVICES = ("auto", "cpu", "cuda")


def implements(check: Callable[[Any, dict[str, Any]], bool | str] | None = None) -> Callable:
    """Register the decorated function as graphgear's implementation of the NetworkX function of the same name, with
    `check` as its part of `can_run`."""

    def register(func: Callable) -> Callable:
        FUNCTIONS[func.__name__] = func
        if check is not None:
            CHECKS[func.__name__] = check
        return func

    return register


@functools.cache
def _signature(func: Callable) -> inspect.Signature:
    return inspect.signature(func)


def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """NetworkX's ``can_run``: whether graphgear runs `name` with these arguments (a string says why not)."""
    func = FUNCTIONS.get(name)
    if func is None:
        return False
    try:
        bound = _signature(func).bind(*args, **kwargs)
    except TypeError:  # wrong arguments: let the call raise NetworkX's own TypeError
        return True
    bound.apply_defaults()
    arguments = bound.arguments
    G = arguments["G"]
    if not isinstance(G, GearGraph):
        import networkx as nx

        if not isinstance(G, nx.Graph):
            return f"graphgear converts NetworkX graphs, not {type(G).__name__}"
        if G.is_multigraph():
            return "graphgear does not run multigraphs (parallel edges' attributes)"
    if arguments.get("device") not in (None, *DEVICES):
        return True  # the call raises the ValueError that names the device
    check = CHECKS.get(name)
    return True if check is None else check(G, arguments)


def device(requested: Any = None) -> str:
    """The graphgear backend for a call: ``device=`` when given, else ``nx.config.backends.graphgear.device``
    ("auto": the GPU when CuPy sees one, else the CPU)."""
    if requested is None:
        import networkx as nx

        config = nx.config.backends.get("graphgear")
        requested = "auto" if config is None else config.get("device", "auto")
    if requested not in DEVICES:
        raise ValueError(f"device must be one of {', '.join(map(repr, DEVICES))}, got {requested!r}")
    return requested


def weight_column(G: Any, weight: Any) -> WeightColumn:
    """The weight column NetworkX's functions read (attribute `weight`, default 1) of a converted graph, or of a
    NetworkX graph: from a converted graph in its cache when NetworkX caches conversions, else by one pass over the
    edge data (not stored: NetworkX's cache is the one that is cleared when the graph changes)."""
    if isinstance(G, GearGraph):
        return G.column(weight)
    import networkx as nx

    cache = getattr(G, "__networkx_cache__", None)
    if cache and nx.config.cache_converted_graphs:
        for converted in list(cache.get("backends", {}).get("graphgear", {}).values()):
            if isinstance(converted, GearGraph) and converted.has_column(weight):
                return converted.column(weight)
    return _column(_edge_data(G), weight, 1)


def _edge_data(G: Any) -> Any:
    from itertools import chain
    from operator import methodcaller

    return chain.from_iterable(map(methodcaller("values"), G._adj.values()))


def weight_refusal(G: Any, weight: Any, *, negative: bool = False, types: bool = True) -> str | None:
    """Why graphgear declines `weight` on G (see `WeightColumn.refusal`), or None; a callable weight is always
    declined (graphgear has no per-edge Python call)."""
    if weight is None:
        return None
    if callable(weight):
        return "weight is a function (graphgear reads weights from an edge attribute)"
    try:
        hash(weight)
    except TypeError:
        return None  # not graphgear's to decline: the conversion raises NetworkX's TypeError
    if isinstance(G, GearGraph) and not G.has_column(weight):
        return f"this converted graph was converted without the edge attribute {weight!r}"
    return weight_column(G, weight).refusal(negative=negative, types=types)


def require(refusal: str | None) -> None:
    """Raise NotImplementedError (NetworkX's decline, taken after conversion) for a refusal."""
    if refusal is not None:
        raise NotImplementedError(refusal)


def is_real(value: Any) -> bool:
    """A real number that is not a bool (NetworkX compares cutoffs and limits with the levels and distances)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


@functools.cache
def gg_accepts(function: str, parameter: str) -> bool:
    """Whether graphgear's public `function` takes `parameter` (arguments other engineers add as they land)."""
    import graphgear

    return parameter in inspect.signature(getattr(graphgear, function)).parameters

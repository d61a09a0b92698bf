"""Metrics as the papers report them.

MTEPS (millions of traversed edges per second) = |E| / t, with |E| the graph's edge count (unordered pairs for an
undirected graph, arcs for a directed one) and t the time of one run; betweenness centrality counts 2|E| per source
(forward and backward phase), as MultiGraph and SEP-Graph do. GTEPS = MTEPS / 1000.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

__all__ = ["teps", "mteps", "time_runs"]


def teps(algorithm: str, num_edges: int, seconds: float, sources: int = 1) -> float:
    """Traversed edges per second of one run."""
    if seconds <= 0:
        return float("inf")
    factor = 2 * max(1, sources) if algorithm == "bc" else 1
    return factor * num_edges / seconds


def mteps(algorithm: str, num_edges: int, seconds: float, sources: int = 1) -> float:
    return teps(algorithm, num_edges, seconds, sources) / 1e6


def time_runs(fn: Callable[[], Any], repeat: int = 3, warmup: int = 1) -> tuple[float, Any, list[float]]:
    """(median seconds, last result, all times) of `repeat` runs after `warmup` untimed runs (JIT compilation)."""
    result = None
    for _ in range(warmup):
        result = fn()
    times = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result, times

"""Graph statistics that drive the configuration table (Busato & Bombieri, Table 1) and the controllers.

Degrees are out-degrees (for an undirected graph, the degree). The Gini coefficient measures how unevenly the degree is
spread: 0 when every vertex has the same degree, near 1 when a few hubs hold the edges (power-law graphs). The
pseudo-diameter is found by repeated double-sweep BFS over the undirected view: BFS from a maximum-degree vertex, then
from the farthest vertex reached, while the eccentricity grows; it is a lower bound on the diameter of that component and
tells high-diameter graphs (roads, meshes) from small-world ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numba
import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .graph import Graph

__all__ = ["compute_stats", "degree_stats", "gini", "pseudo_diameter", "weak_components"]

STAT_KEYS = (
    "num_vertices",
    "num_edges",
    "directed",
    "min_degree",
    "avg_degree",
    "max_degree",
    "degree_std",
    "gini",
    "isolated",
    "self_loops_dropped",
    "duplicates_dropped",
    "wcc",
    "pseudo_diameter",
)
_MAX_SWEEPS = 4


DEGREE_KEYS = ("min_degree", "avg_degree", "max_degree", "degree_std", "gini")


def degree_stats(g: Graph) -> dict[str, Any]:
    """The degree statistics alone (one O(V log V) pass): what the configuration table needs, without the
    component count and BFS sweeps of `compute_stats`."""
    degree = g.out_degree()
    n = g.num_vertices
    return {
        "min_degree": int(degree.min()) if n else 0,
        "avg_degree": float(degree.mean()) if n else 0.0,
        "max_degree": int(degree.max()) if n else 0,
        "degree_std": float(degree.std()) if n else 0.0,
        "gini": gini(degree),
    }


def compute_stats(g: Graph) -> dict[str, Any]:
    """All statistics of `Graph.stats` (see STAT_KEYS), computed in a few O(V + E) passes."""
    degree = g.out_degree()
    n = g.num_vertices
    touched = degree > 0
    if g.directed:
        touched |= np.bincount(g.indices, minlength=n) > 0
    return {
        "num_vertices": n,
        "num_edges": g.num_edges,
        "directed": g.directed,
        **g.degree_stats(),
        "isolated": int(n - np.count_nonzero(touched)),
        "self_loops_dropped": g.counts.self_loops_dropped,
        "duplicates_dropped": g.counts.duplicates_dropped,
        "wcc": weak_components(g),
        "pseudo_diameter": pseudo_diameter(g),
    }


def gini(values: np.ndarray) -> float:
    """Gini coefficient of non-negative values: sum_i (2i - n - 1) x_(i) / (n sum x), x sorted ascending, i = 1..n."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    n, total = x.size, x.sum()
    if n == 0 or total == 0:
        return 0.0
    rank = np.arange(1, n + 1, dtype=np.float64)
    return float(np.dot(2 * rank - n - 1, x) / (n * total))


def weak_components(g: Graph) -> int:
    """Number of weakly connected components (isolated vertices count one each)."""
    from scipy.sparse.csgraph import connected_components

    if g.num_vertices == 0:
        return 0
    pattern = g.to_scipy()
    return int(connected_components(pattern, directed=g.directed, connection="weak", return_labels=False))


def pseudo_diameter(g: Graph) -> int:
    """Largest eccentricity found by repeated double-sweep BFS on the undirected view (0 for an edgeless graph)."""
    if g.num_arcs == 0:
        return 0
    t_offsets, t_indices, _ = g.csc()
    start = int(np.argmax(g.out_degree()))
    best = 0
    for _ in range(_MAX_SWEEPS):
        far, ecc = _farthest(g.offsets, g.indices, t_offsets, t_indices, g.directed, start)
        if ecc <= best:
            break
        best, start = ecc, far
    return best


@numba.njit(cache=True, nogil=True)
def _farthest(offsets, indices, t_offsets, t_indices, both, source):  # pragma: no cover - numba
    """BFS over out-edges (and in-edges when `both`): (a farthest vertex of least degree, its distance)."""
    n = offsets.shape[0] - 1
    dist = np.full(n, -1, dtype=np.int32)
    queue = np.empty(n, dtype=np.int64)
    dist[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        for k in range(offsets[u], offsets[u + 1]):
            v = indices[k]
            if dist[v] < 0:
                dist[v] = du
                queue[tail] = v
                tail += 1
        if both:
            for k in range(t_offsets[u], t_offsets[u + 1]):
                v = t_indices[k]
                if dist[v] < 0:
                    dist[v] = du
                    queue[tail] = v
                    tail += 1
    last = dist[queue[tail - 1]]
    far = queue[tail - 1]
    best_degree = offsets[far + 1] - offsets[far]
    for i in range(tail - 1, -1, -1):
        v = queue[i]
        if dist[v] < last:
            break
        d = offsets[v + 1] - offsets[v]
        if d < best_degree:
            far, best_degree = v, d
    return far, last

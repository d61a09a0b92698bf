"""Brandes' dependency accumulation by levels (LevelGather), shared by unweighted and weighted betweenness.

Going back from the deepest level, each vertex u of level d gathers the coefficients of its successors one level
deeper, acc[u] = sum over successors v of (1 + delta[v]) / sigma[v] (a data-driven neighbor_reduce over the level's
out-rows, load-balanced by degree), then sets delta[u] = sigma[u] * acc[u], its own coefficient (1 + delta[u]) /
sigma[u] and its share of the centrality. betweenness.py runs it over BFS levels, betweenness_weighted.py over the
levels of the shortest-path DAG.
"""

from __future__ import annotations

import numba

from ..engine.strategy import Strategy
from ..functor import Functor

__all__ = ["COEFFICIENT", "LEVEL_UPDATE", "GATHER"]

U_ACC, U_SIGMA, HERE, BC, U_ENDPOINT = 0, 1, 2, 3, 4  # LevelUpdate's state


@numba.njit(nogil=True)
def _coefficient(v, u, w, state):  # pragma: no cover - numba
    """LevelGather's map: the coefficient of out-neighbour u (coef_below holds level d + 1's coefficients and zeros
    on every other level a level-d vertex can reach)."""
    return state[0][u]


@numba.njit(nogil=True)
def _level_update(u, state):  # pragma: no cover - numba
    """LevelGather's update for u on level d, after acc[u] = sum of its successors' coefficients: delta[u] =
    sigma[u] * acc[u]; then u's own coefficient (1 + delta) / sigma and bc."""
    delta = state[U_SIGMA][u] * state[U_ACC][u]
    state[HERE][u] = (1.0 + delta) / state[U_SIGMA][u]
    state[BC][u] += delta + state[U_ENDPOINT][0]


# LevelGather = a data-driven neighbor_reduce over the level's out-rows (load-balanced: lanes per row by degree,
# hub rows in block chunks) + a per-vertex update; one functor looping over a hub's row serially had been over half of
# a kron:21 single-source BC (benchmarks/gpu_profile.py; docs/performance.md#betweenness-centrality).
COEFFICIENT = Functor("bc_coefficient", _coefficient, "return coef_below[u];", state=("coef_below",))
LEVEL_UPDATE = Functor(
    "bc_level_update", _level_update,
    "const double dep = sigma[v] * acc[v]; coef_here[v] = (1.0 + dep) / sigma[v]; bc[v] += dep + endpoint[0];",
    state=("acc", "sigma", "coef_here", "bc", "endpoint"),
)
GATHER = Strategy(direction="pull")  # what LevelGather runs: a data-driven gather over one level

"""PageRank: topology-driven pull power iteration, and delta-based PageRank as a vertex program.

Semantics are networkx.pagerank's: damping ``alpha`` in (0, 1]; ``personalization`` p (teleport distribution),
``nstart`` (start vector) and ``dangling`` d (where a vertex without out-edges sends its rank; default p) are dicts
keyed by vertex label or arrays of length V; missing keys count 0; each is normalised to sum 1. Unlike networkx, an
unknown key, a negative or non-finite value, or an all-zero vector raises GraphError (networkx ignores unknown keys and
divides by zero). An undirected graph is read as both arcs of every edge (its CSR stores them). A weighted graph splits
a vertex's rank over its out-edges in proportion to the edge weights (networkx's default ``weight="weight"``); parallel
arcs add up (networkx's multigraphs); a vertex whose out-weight is 0 is dangling, as in networkx; negative weights are
refused. ``weight=None`` ignores the weights (every out-edge an equal share, networkx's weight=None; the run takes
`unweighted_view`); a weight name means the graph's weights (a Graph holds one weight array; the name picks the
attribute when a NetworkX graph is converted). An empty graph gives an empty array.

    x  <-  alpha * (P^T x + D(x) d) + (1 - alpha) p,        D(x) = sum of x over the dangling vertices

Methods
-------
power   MultiGraph's topology-driven PageRank = SEP-Graph's sync-pull-td path (Hong et al., PACT'17; Wang et al.,
        PPoPP'19): each iteration every vertex pulls contrib[u] = x[u] / outweight[u] over its in-edges
        (`neighbor_reduce`, no write conflicts). Convergence test as networkx: L1 change < N * tol; GraphError
        (networkx: PowerIterationFailedConvergence) after max_iter iterations. The iterates are networkx's. On the
        GPU every iteration runs inside one persistent kernel (backends/cuda/kernels/power.cuh: grid barriers, one
        host read in all) instead of a launch sequence and a host read per iteration; on the degree layout each
        block keeps the first sources' contributions (the hubs', read by most arcs) in shared memory, MultiGraph's
        heavy source block, and networkx's uniform defaults for p, d and nstart go to it as one value each.
delta   delta-based PageRank (SEP-Graph section 4.2) run by `run_program`: value = rank, buffer = residual; compute
        applies the buffer to the value and sends alpha * buffer / out-degree while |buffer| > eps; accumulate "sum";
        SEP-Graph Algorithm 1 picks sync-pull-td, async-push-td or async-push-dd each round. A weighted graph runs on a
        copy whose arc weights are the shares w / outweight(u) (the compute step sees the out-degree, not the
        out-weight); their float32 rounding is removed by the residual check below.
        DanglingCombination (exact, no between-round step): solve y = alpha P^T y + (1 - alpha) p with the mass that
        reaches dangling vertices kept there; with d = p the PageRank is y / sum(y); otherwise also solve
        z = alpha P^T z + d and take y + c z, c = alpha D(y) / (1 - alpha D(z)), normalised. After each solve the
        exact residual is recomputed by one pull pass and bounds the error (||(I - alpha P^T)^-1||_1 <= 1/(1 - alpha));
        the solves go on from that residual with a smaller eps until the normalised ranks provably lie within N * tol
        (L1) of the exact PageRank: networkx's threshold applied to the distance from the fixed point instead of the
        last step, so at equal tol the answer is at least as accurate as networkx's. nstart warm-starts y. max_iter
        bounds the total rounds (GraphError past it); alpha must be < 1.
priority  delta with SEP-Graph's priority scheduling (section 4.4.3): before every round, the residuals of 1000
        vertices drawn at random are sorted and the 200th largest becomes the round's threshold (never below eps), so
        a round applies and sends only the larger residuals (a residual shrinks by alpha with every hop, so sending the
        large ones first wastes fewer messages on vertices about to receive more); the rest wait in the worklist for a
        later round. The rounds (max_iter counts them) are more and lighter; each row of the trace names its threshold.
dense   MultiGraph's dense mode (MultiGraphD, Hong et al., PACT'17, section 4): the power iteration, iterate for
        iterate, with its gather as the backend's `dense_product`: the edge matrix cut into 6K x 6K tiles
        (graph/tiles.py), a heavy tile (more than 18K arcs) summed by one CTA with its destinations' partial sums in
        shared memory, the light arcs of a column panel streamed to a buffer, phase 2 adding the buffer up per row
        panel. A launch sequence and a host read an iteration on every backend (no fused form); its layout is built on
        the host once per graph. Slower than power wherever measured (docs/performance.md#multigraphds-kernels-
        measured), so auto never picks it; it is the paper's dense mode, to run and compare.
auto    power, unless ``strategy`` fixes an execution path other than sync-pull-td: then delta (it runs on every path).

Layout (the power iteration)
----------------------------
degree  the iteration runs on the graph renumbered by decreasing out-degree (MultiGraph's degree-group renumbering,
        graph/layout.py; built once per Graph and cached): the contributions read most often share cache lines. The
        ranks are mapped back to the original ids, so only the summation order differs.
in_degree_groups  renumbered by MultiGraph's six in-degree groups (Table 1; graph/layout.py), each group in id order.
given   the vertex ids as they are.
auto    degree on a power-law graph too large for the caches (graph.layout.skewed), given otherwise, and given where the
        device has no room for the renumbered copy (DeviceMemoryError; an explicit layout raises it).
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Mapping
from typing import Any
from weakref import WeakKeyDictionary

import numba
import numpy as np

from ..backends import get_backend
from ..engine.controller import FixedController, StaticController, as_pull, check_strategy, make_controller
from ..engine.strategy import Strategy
from ..engine.trace import Trace
from ..errors import GraphError, StrategyError
from ..frontier import Frontier
from ..functor import Functor
from ..graph.graph import Graph, described, shown
from ..graph.layout import LAYOUTS, device_layout
from ..program import VertexProgram, run_program
from ..results import PageRankResult
from ._common import append_trace, check_choice, check_non_negative_weights, check_weight, unweighted_view

__all__ = ["METHODS", "PAGERANK_DELTA", "pagerank"]

METHODS = ("auto", "power", "delta", "priority", "dense")
PRIORITY_SAMPLE, PRIORITY_RANK = 1000, 200  # SEP-Graph 4.4.3: 1000 residuals sampled, the 200th largest the threshold
POWER_PATH = "sync-pull-td"
SLACK = 0.5  # the delta run aims at SLACK * N * tol, so one solve usually suffices


# ------------------------------------------------------------------------------------------------------ functors
@numba.njit(nogil=True)
def _pull_contribution(v, u, w, state):  # pragma: no cover - numba
    """One in-edge u -> v of the power iteration: u's rank per unit of out-weight, times the edge's weight."""
    return state[0][u] * w


# reduce role, state (contrib,): float64[V] (u's rank per unit of out-weight; ones for the out-weight reduction)
PULL_CONTRIBUTION = Functor("pagerank_pull", _pull_contribution, "return contrib[u] * (double)w;", state=("contrib",))


@numba.njit(nogil=True)
def _power_apply(v, state):  # pragma: no cover - numba
    """The power iteration's update of v, fused after the gather: the new rank, v's contribution for the next
    gather, and v's share of the L1 change (summed by vertex_reduce)."""
    x, gathered, teleport, d, inv, contrib, params, mass = state
    new = params[0] * gathered[v] + teleport[v]
    new += (params[0] * mass[0]) * d[v]
    change = abs(new - x[v])
    x[v] = new
    contrib[v] = new * inv[v]
    return change


# vertex_reduce role, state: x, gathered, teleport, d, inv, contrib, params = [alpha], mass = [dangling mass of x]
POWER_APPLY = Functor(
    "pagerank_power_apply", _power_apply,
    "double next; return gg_power_update(v, params[0], params[0] * mass[0], gathered[v], teleport, d, inv[v], x,"
    " contrib, next);",
    state=("x", "gathered", "teleport", "d", "inv", "contrib", "params", "mass"),
)


@numba.njit(nogil=True)
def _rank_of(v, state):  # pragma: no cover - numba
    return state[0][v]


# vertex_reduce role, state (x,): summed over the dangling vertices, their rank mass
RANK_OF = Functor("pagerank_rank_of", _rank_of, "return x[v];", state=("x",))


@numba.njit(nogil=True)
def _delta_compute(value, buffer, degree, params):  # pragma: no cover - numba
    """Apply the residual to the rank and send alpha * residual (per out-edge: / out-degree when params[2] != 0)."""
    if degree == 0:  # a dangling vertex keeps what it receives (its mass is combined afterwards)
        return value + buffer, 0.0, 0.0, False
    if abs(buffer) > params[1]:
        message = params[0] * buffer
        if params[2] != 0.0:
            message /= degree
        return value + buffer, 0.0, message, True
    return value, buffer, 0.0, False


@numba.njit(nogil=True)
def _delta_edge(message, weight, params):  # pragma: no cover - numba
    return message * weight


@numba.njit(nogil=True)
def _never_settled(value, params):  # pragma: no cover - numba
    return False


PAGERANK_DELTA = VertexProgram(
    name="pagerank-delta",
    kind="iterative",
    accumulate="sum",
    # params (host order): [0] alpha, [1] eps, [2] 1 to divide the message by the out-degree (0: weighted shares)
    compute=Functor(
        "pagerank_delta_compute",
        _delta_compute,
        "if (degree == 0) { value += buffer; buffer = 0.0; message = 0.0; send = false; }"
        " else if (fabs(buffer) > params[1]) { value += buffer; message = params[0] * buffer;"
        " if (params[2] != 0.0) message /= (double)degree; buffer = 0.0; send = true; }"
        " else { message = 0.0; send = false; }",
    ),
    edge=Functor("pagerank_delta_edge", _delta_edge, "return message * (double)weight;"),
    settled=Functor("pagerank_never_settled", _never_settled, "return false;"),
)

# what the GPU backend compiles (tests/cuda/test_cuda_sources.py compiles each with nvcc): (functor, role, state dtypes as
# the calls pass them on the GPU, extra roles)
CUDA_FUNCTORS = [(PULL_CONTRIBUTION, "reduce", (np.float64,), ()),
                 (POWER_APPLY, "vertex_reduce", (np.float64,) * 8, ()), (RANK_OF, "vertex_reduce", (np.float64,), ())]
CUDA_PROGRAMS = [PAGERANK_DELTA]


# ------------------------------------------------------------------------------------------------------ arguments
def _number(name: str, value: Any, wanted: str) -> float:
    """A real-number argument as a float; GraphError for a string ("0.85"), a bool or None (float() would take the
    first two)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise GraphError(f"{name} must be {wanted}, got {described(value)}")
    return float(value)


def _check_scalars(alpha: Any, tol: Any, max_iter: Any, method: Any) -> tuple[float, float, int]:
    a = _number("alpha", alpha, "a number in (0, 1]")
    if not 0.0 < a <= 1.0:  # also refuses NaN
        raise GraphError(f"alpha must be in (0, 1], got {alpha!r}")
    t = _number("tol", tol, "a positive, finite number")
    if not 0.0 < t < math.inf:
        raise GraphError(f"tol must be a positive, finite number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise GraphError(f"max_iter must be an integer >= 0, got {shown(max_iter)}")
    check_choice("method", method, METHODS)
    return a, t, int(max_iter)


def _distribution(graph: Graph, given: Any, name: str) -> np.ndarray | None:
    """A dict {label: weight} or an array of length V as a float64 host vector summing to 1 (None stays None); a
    GraphError names the key or position and the value at fault."""
    if given is None:
        return None
    n = graph.num_vertices
    if isinstance(given, Mapping):
        keys = list(given.keys())
        values = list(given.values())
        for key, value in zip(keys, values):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
                raise GraphError(f"{name}[{key!r}] = {shown(value)} is not a number")
        raw = np.asarray(values, dtype=np.float64)
        try:
            # the keys as a list: an array of tuple labels ((0, 1), a grid's) would be 2-D
            index = np.atleast_1d(graph.vertex_index(keys if keys else np.empty(0, np.int64)))
        except GraphError:
            bad = [k for k in keys if not _is_vertex(graph, k)]
            raise GraphError(f"{name} key {shown(bad[0] if bad else keys)} is not a vertex of the graph") from None
        vector = np.zeros(n, dtype=np.float64)
        np.add.at(vector, index, raw)
        label = lambda i: repr(keys[i])  # noqa: E731
    else:
        if isinstance(given, (str, bytes)) or np.ndim(given) == 0:
            raise GraphError(f"{name} must be a dict keyed by vertex or an array of {n} numbers, got "
                             f"{described(given)}")
        try:
            raw = np.asarray(given, dtype=np.float64)
        except (TypeError, ValueError):
            raise GraphError(f"{name} must be a dict keyed by vertex or an array of {n} numbers, got "
                             f"{shown(given)}") from None
        if raw.shape != (n,):
            raise GraphError(f"{name} must be a dict keyed by vertex or an array of length {n}, got shape {raw.shape}: "
                             f"{shown(given)}")
        if np.asarray(given).dtype.kind == "b":
            raise GraphError(f"{name} must hold numbers, not bools: {shown(given)}")
        vector = raw.copy()
        label = str  # noqa: E731
    if raw.size and not np.all(np.isfinite(raw)):
        i = int(np.argmin(np.isfinite(raw)))
        raise GraphError(f"{name}[{label(i)}] = {float(raw[i])!r} is not a finite number: {name} values must be "
                         "finite")
    if raw.size and raw.min() < 0:
        i = int(np.argmin(raw))
        raise GraphError(f"{name} values must be >= 0, got {name}[{label(i)}] = {float(raw[i])!r}")
    total = float(vector.sum())
    if not total > 0:
        raise GraphError(f"{name} must have a positive sum (at least one vertex with a value > 0), got {shown(given)}")
    return vector / total


def _is_vertex(graph: Graph, key: Any) -> bool:
    try:
        graph.vertex_index(key)
        return True
    except (GraphError, TypeError, ValueError):
        return False


_POWER_STRATEGIES: WeakKeyDictionary = WeakKeyDictionary()  # graph -> {controller name: _power_strategy's answer}


def _power_strategy(strategy: Any, graph: Graph) -> tuple[Strategy, str, str] | None:
    """The Strategy the power iteration records, its controller's name and why; None when `strategy` fixes another
    path (method="auto" then runs delta). Cached per graph for a controller named by a string ("auto", ...): making
    the controller cost host time on every call, with the GPU idle meanwhile (benchmarks/pagerank_heavy.py;
    docs/performance.md#smaller-host-costs)."""
    if not isinstance(strategy, str):
        return _make_power_strategy(strategy, graph)
    known = _POWER_STRATEGIES.setdefault(graph, {})
    if strategy not in known:
        known[strategy] = _make_power_strategy(strategy, graph)
    return known[strategy]


def _make_power_strategy(strategy: Any, graph: Graph) -> tuple[Strategy, str, str] | None:
    controller = make_controller(strategy, graph, "iterative")
    if isinstance(controller, StaticController):  # the table's push strategy: keep its GPU fields, pull over all
        s = as_pull(controller.strategy).with_(sync="sync", drive="topology")
        return s, controller.name, "power iteration = SEP-Graph's sync-pull-td path"
    if isinstance(controller, FixedController):
        if controller.strategy.path != POWER_PATH:
            return None
        return controller.strategy, controller.name, controller.reason
    candidates = getattr(controller, "candidates", ())
    fallback = Strategy(direction="pull", drive="topology", frontier="bitmap")
    s = next((c for c in candidates if c.path == POWER_PATH), fallback)
    return s, controller.name, "power iteration = SEP-Graph's sync-pull-td path"


# ------------------------------------------------------------------------------------------------------ pagerank
def pagerank(
    graph: Graph,
    *,
    alpha: float = 0.85,
    personalization: Any = None,
    max_iter: int = 100,
    tol: float = 1e-6,
    nstart: Any = None,
    weight: str | None = "weight",
    dangling: Any = None,
    method: str = "auto",
    backend: Any = "auto",
    strategy: Any = "auto",
    layout: str = "auto",
) -> PageRankResult:
    """PageRank of every vertex (float64, sums to 1), as networkx.pagerank computes it; see the module notes."""
    start = time.perf_counter()
    alpha, tol, max_iter = _check_scalars(alpha, tol, max_iter, method)
    check_weight(weight)
    check_choice("layout", layout, LAYOUTS)
    check_strategy(strategy)
    be = get_backend(backend)
    given = graph  # the result names the caller's graph (the unweighted view shares its labels)
    n = graph.num_vertices
    if n == 0:
        trace = Trace(algorithm="pagerank", backend=be.name)
        return PageRankResult(np.zeros(0, dtype=np.float64), iterations=0, trace=trace, graph=given,
                              seconds=time.perf_counter() - start)
    if weight is None:
        graph = unweighted_view(graph)
    check_non_negative_weights(graph, "PageRank")
    p = _distribution(graph, personalization, "personalization")
    x0 = _distribution(graph, nstart, "nstart")
    d = _distribution(graph, dangling, "dangling")
    power = None if method in ("delta", "priority") else _power_strategy(strategy, graph)
    if method in ("power", "dense") and power is None:
        raise StrategyError(f"method={method!r} runs the sync-pull-td path only, not strategy {strategy!s}; "
                            "use method='delta'")
    if power is None and alpha >= 1.0:
        raise GraphError(f"method={method!r} needs alpha < 1 (the residual must shrink); use method='power' for "
                         "alpha = 1")
    G, renumbering = None, None
    if power is not None:  # the power iteration's gather is what the layout serves
        renumbering, G, note = device_layout(be, graph, layout, auto=True)
        power = (power[0], power[1], power[2] + note)
    if renumbering is not None:
        p, d, x0 = (None if a is None else renumbering.to_renumbered(a) for a in (p, d, x0))
    G = G if G is not None else be.graph(graph)
    inv, is_dangling = _shares(be, G)
    if power is not None:
        ranks, iterations, trace = _power_iteration(be, G, graph, power, alpha, tol, max_iter, p, d, x0, inv,
                                                    is_dangling, renumbering, dense=method == "dense")
    else:
        p, d_is_p = _vector(be, n, p), d is None
        d, x0 = (p if d_is_p else _vector(be, n, d)), _vector(be, n, x0)
        ranks, iterations, trace = _delta_pagerank(be, G, graph, strategy, alpha, tol, max_iter, p, d, d_is_p, x0, inv,
                                                   is_dangling, priority=method == "priority")
    # a GPU run's ranks stay on the device until read (the result copies them on first access)
    return PageRankResult(ranks, iterations=iterations, trace=trace, graph=given, seconds=time.perf_counter() - start)


def _vector(be: Any, n: int, values: Any) -> Any:
    """A distribution as a backend array: the given one, or the uniform 1/V where None."""
    return be.xp.full(n, 1.0 / n) if values is None else be.asarray(values)


def _shares(be: Any, G: Any) -> tuple[Any, Any]:
    """(inv, is_dangling) of G: 1 / out-weight (0 where the out-weight is 0) and where it is 0. Cached on the graph
    G runs (one per backend): every PageRank call on it needs them, and on the GPU their few launches and
    temporaries were a sizeable part of a 10-iteration run (docs/performance.md#smaller-host-costs)."""
    key = f"{be.name}:pagerank-shares"
    cached = G.graph.device_cache.get(key)
    if cached is None:
        xp = be.xp
        out_weight = _out_weight(be, G)
        inv = xp.where(out_weight > 0, 1.0 / xp.where(out_weight > 0, out_weight, 1.0), 0.0)
        cached = G.graph.device_cache[key] = (inv, out_weight == 0)
    return cached


def _out_weight(be: Any, G: Any) -> Any:
    """float64[V]: each vertex's out-degree, or its summed out-weight on a weighted graph (a push-side reduction)."""
    xp = be.xp
    if not G.weighted:
        return G.out_degree.astype(np.float64)
    ones = xp.ones(G.num_vertices, dtype=np.float64)
    return be.neighbor_reduce(G, PULL_CONTRIBUTION, (ones,), "sum", "out")


# ------------------------------------------------------------------------------------------------------ power
def _power_iteration(be, G, graph, power, alpha, tol, max_iter, p, d, x, inv, is_dangling, renumbering=None,
                     dense=False):
    """Topology-driven pull power iteration, step for step networkx's _pagerank_scipy: per iteration one gather
    (neighbor_reduce of the contributions) and one fused update (vertex_reduce of POWER_APPLY: new ranks, next
    contributions, L1 change), the dangling mass summed on the device; one host read (the change) per iteration.
    A backend with `fused_power` set (the GPU) runs every iteration inside one persistent kernel instead, with one
    host read in all and the same iterates up to rounding (its degree bins may add a row up in another order); there
    p, d and x left None (uniform) stay one value, not V-long arrays. renumbering: G's ids are by decreasing
    out-degree (the fused kernel then keeps the first sources' contributions in shared memory and writes the ranks
    in the original ids itself); the ranks returned are in the original ids. dense: the gather is MultiGraphD's
    two-phase product (be.dense_product), a launch sequence an iteration on every backend."""
    xp = be.xp
    strategy, controller, why = power
    n = G.num_vertices
    trace = Trace(algorithm="pagerank-power", backend=be.name, controller=controller)

    def traced(err: float, seconds: float, how: str) -> None:
        trace.add(strategy=str(strategy), path=strategy.path, frontier_vertices=n, frontier_edges=G.num_arcs,
                  edges_processed=G.num_arcs, seconds=seconds, decision=POWER_PATH,
                  reason=f"{why}{how}; L1 change {err:.3g} vs N*tol {n * tol:.3g}")

    if dense:
        why = f"{why}; gather: MultiGraphD's two phases over 6K x 6K tiles (dense_product)"
    if be.capabilities.fused_power and max_iter > 0 and not dense:
        uniform = 1.0 / n
        p = uniform if p is None else be.asarray(p)
        teleport = (1.0 - alpha) * p
        d = p if d is None else be.asarray(d)
        x = uniform if x is None else xp.array(x, dtype=np.float64)  # updated in place
        order = None if renumbering is None else renumbering.device_index("order")
        run = be.power_iteration(G, alpha, n * tol, max_iter, x, teleport, d, inv,
                                 degree_ordered=renumbering is not None, order=order)

        log = run.log  # not `run`: the trace and `rows` reference each other, so what they hold waits for the cyclic
        # garbage collector; holding the ranks cost a cudaMalloc a call (docs/performance.md#smaller-host-costs)

        def rows() -> None:  # built when the trace is first read: not inside a timed call
            for err, seconds in zip(log.changes(), log.seconds()):
                traced(float(err), float(seconds), "; one persistent kernel")

        trace.defer(rows, lambda: float(log.seconds().sum()))
        if run.last_change < n * tol:
            return run.ranks, run.iterations, trace
        raise _not_converged(max_iter, run.last_change, n * tol)
    p, x = _vector(be, n, p), _vector(be, n, x)
    d = p if d is None else be.asarray(d)
    x = xp.array(x, dtype=np.float64)  # updated in place
    teleport = (1.0 - alpha) * p
    dangling = Frontier.from_vertices(xp.flatnonzero(is_dangling).astype(np.int32), n, dtype=np.int32)
    contrib = x * inv
    gathered = xp.empty(n, dtype=np.float64)
    params = xp.asarray([alpha], dtype=np.float64)
    no_mass = xp.zeros(1, dtype=np.float64)
    err = math.inf
    for iteration in range(max_iter):
        t0 = time.perf_counter()
        mass = be.vertex_reduce(dangling, RANK_OF, (x,)) if dangling.size else no_mass
        if dense:
            be.dense_product(G, contrib, out=gathered)
        else:
            be.neighbor_reduce(G, PULL_CONTRIBUTION, (contrib,), "sum", "in", out=gathered)
        change = be.vertex_reduce(None, POWER_APPLY, (x, gathered, teleport, d, inv, contrib, params, mass),
                                  num_vertices=n)
        err = float(change[0])
        traced(err, time.perf_counter() - t0, "")
        if err < n * tol:
            return (x if renumbering is None else renumbering.to_original(x)), iteration + 1, trace
    raise _not_converged(max_iter, err, n * tol)


def _not_converged(max_iter: int, err: float, threshold: float) -> GraphError:
    return GraphError(f"PageRank (power iteration) did not converge in {max_iter} iterations: the last L1 change was "
                      f"{err:.6g}, not below N*tol = {threshold:.6g} (raise max_iter or tol)")


# ------------------------------------------------------------------------------------------------------ delta
class _Solve:
    """One delta-PR linear solve  s = alpha P^T s + b  (dangling mass absorbed): the program's values and buffers."""

    def __init__(self, name: str, value: Any, b: Any) -> None:
        self.name = name
        self.b = b
        self.value = value
        self.buffer = None  # set from the exact residual
        self.residual = math.inf  # L1 norm of the exact residual


def _exact_residual(be, G, alpha, s: _Solve, inv) -> None:
    """buffer = b + alpha P^T value - value with the exact transition (float64 weights), and its L1 norm."""
    xp = be.xp
    gathered = be.neighbor_reduce(G, PULL_CONTRIBUTION, (s.value * inv,), "sum", "in")
    s.buffer = s.b + alpha * gathered - s.value
    s.residual = float(xp.abs(s.buffer).sum())


def _dangling_combination(xp, alpha, y: _Solve, z: _Solve | None, is_dangling):
    """DanglingCombination: the PageRank from the solves, and a bound on its L1 distance to the exact PageRank."""
    ey = y.residual / (1.0 - alpha)  # ||y - y~||_1 <= ||(I - alpha P^T)^-1||_1 ||r||_1 <= ||r||_1 / (1 - alpha)
    if z is None:
        total = float(y.value.sum())
        bound = 2.0 * ey / total if total > ey else math.inf
        return y.value / total if total else y.value, bound
    ez = z.residual / (1.0 - alpha)
    dy = float(y.value[is_dangling].sum())
    dz = float(z.value[is_dangling].sum())
    den = 1.0 - alpha * dz  # = (1 - alpha) sum(z) > 0 exactly
    c = alpha * dy / den
    x = y.value + c * z.value
    total = float(x.sum())
    low = den - alpha * ez
    if low <= 0 or total <= 0:
        return (x / total if total > 0 else x), math.inf
    dc = alpha * (ey / low + (dy + ey) * alpha * ez / (low * den))
    err = ey + c * ez + dc * (float(xp.abs(z.value).sum()) + ez)
    bound = 2.0 * err / total if total > err else math.inf
    return x / total, bound


class _PrioritySchedule:
    """SEP-Graph's priority scheduling (4.4.3) for one solve: `threshold(buffer)` is a round's sending threshold (the
    PRIORITY_RANK-th largest of PRIORITY_SAMPLE residuals drawn at random, just below it so that the vertex it came
    from sends, and never below eps), and the instance, as run_program's between-round step, sets the next round's
    and puts every vertex still owing more than eps back in the worklist (those below the threshold waited)."""

    def __init__(self, be: Any, alpha: float, eps: float, flag: float, seed: int = 0) -> None:
        self.be, self.alpha, self.eps, self.flag = be, alpha, eps, flag
        self.rng = np.random.default_rng(seed)
        self.thresholds: list[float] = []  # each round's, for its trace row

    def threshold(self, buffer: Any) -> float:
        xp = self.be.xp
        drawn = self.be.asarray(self.rng.integers(0, buffer.shape[0], PRIORITY_SAMPLE))
        x = float(xp.sort(xp.abs(buffer[drawn]))[-PRIORITY_RANK])  # a host read a round, as the worklist's size is
        t = max(self.eps, float(np.nextafter(x, 0.0)))
        self.thresholds.append(t)
        return t

    def params(self, buffer: Any) -> np.ndarray:
        """The program's params for the next round: [alpha, threshold, divide by the out-degree]."""
        return np.asarray([self.alpha, self.threshold(buffer), self.flag], dtype=np.float64)

    def __call__(self, be: Any, state: Any) -> Frontier:
        state.params = be.program_params(self.params(state.buffer))
        return Frontier.from_mask(be.xp.abs(state.buffer) > self.eps)


def _delta_pagerank(be, G, graph, strategy, alpha, tol, max_iter, p, d, d_is_p, x0, inv, is_dangling, *,
                    priority=False):
    """Delta-based PageRank (SEP-Graph 4.2) through run_program, with its priority scheduling (4.4.3) where asked;
    see the module notes."""
    xp = be.xp
    n = G.num_vertices
    target = n * tol
    weighted = G.weighted
    program_graph = graph
    if weighted:  # per-arc shares w / outweight(u), so the edge functor carries the weight-proportional split
        host_inv = be.to_host(inv)
        rows = np.repeat(host_inv, np.diff(graph.offsets))
        shares = (graph.weights.astype(np.float64) * rows).astype(np.float32)
        program_graph = Graph(graph.offsets, graph.indices, shares, directed=True, name=graph.name)
    controller = make_controller(strategy, graph, "iterative")
    fixed = getattr(controller, "strategy", None)
    if fixed is not None and fixed.sync == "async" and fixed.direction == "pull":  # refused up front, whatever the data
        raise StrategyError(f"delta PageRank accumulates with sum, and async pull re-reads messages: strategy {fixed} "
                            "cannot run it (use sync pull or a push path)")
    trace = Trace(algorithm="pagerank-delta", backend=be.name, controller=controller.name)
    has_dangling = bool(is_dangling.any())
    d_is_p = d_is_p or bool(xp.array_equal(d, p))
    # warm start: nstart scaled to the dangling-absorbed system (exact when nstart is the PageRank and d = p)
    dx0 = float(x0[is_dangling].sum())
    y = _Solve("personalization", x0 * ((1.0 - alpha) / (1.0 - alpha + alpha * dx0)), (1.0 - alpha) * p)
    solves = [y]
    if has_dangling and not d_is_p:
        solves.append(_Solve("dangling", xp.zeros(n, dtype=np.float64), xp.asarray(d, dtype=np.float64)))
    for s in solves:
        _exact_residual(be, G, alpha, s, inv)
    eps = tol * (1.0 - alpha) * SLACK / 4.0
    rounds = 0
    while True:
        ranks, bound = _dangling_combination(xp, alpha, y, solves[1] if len(solves) > 1 else None, is_dangling)
        if bound < target:
            return ranks, rounds, trace
        if rounds >= max_iter:
            raise GraphError(f"PageRank (delta) did not converge in {max_iter} rounds: the ranks are within "
                             f"{bound:.6g} (L1) of the exact PageRank, not below N*tol = {target:.6g} "
                             "(raise max_iter or tol)")
        if rounds and bound < math.inf:  # a later pass: aim below the target with what the last pass achieved
            eps = min(eps, eps * SLACK * target / bound)
        ran = False
        for s in solves:
            # run_program takes the first worklist and the params as host arrays (it copies them to the backend)
            active = be.to_host(xp.flatnonzero(s.buffer != 0))
            if active.size == 0 or rounds >= max_iter:
                continue
            ran = True
            params = np.asarray([alpha, eps, 0.0 if weighted else 1.0], dtype=np.float64)
            schedule = None
            if priority:
                schedule = _PrioritySchedule(be, alpha, eps, params[2], seed=rounds)
                params = schedule.params(s.buffer)
            run = run_program(PAGERANK_DELTA, program_graph, s.value, s.buffer, active, params=params, backend=be,
                              strategy=controller, max_rounds=max_iter - rounds, after_round=schedule)
            append_trace(trace, run.trace, s.name, None if schedule is None else  # each row: what its round sent
                         [f"; priority: residuals above {t:.3g} sent, the rest wait" for t in schedule.thresholds])
            rounds += len(run.trace)
            s.value = xp.asarray(run.state.value)
            _exact_residual(be, G, alpha, s, inv)
        if not ran:  # every residual is exactly 0, so the bound can only be infinite through a zero rank sum
            raise GraphError(f"PageRank (delta) cannot bound its error ({bound:.6g}); use method='power'")

"""Controllers: each iteration, choose the Strategy the operators run with, and say why.

fixed     one Strategy throughout.
static    Busato & Bombieri's configuration table (Table 1) from average degree, Gini coefficient and maximum degree:
          load balancing, supports, frontier queue, single vs multiple kernel calls, duplicate removal, bitmask.
adaptive  SEP-Graph. Traversals (BFS, SSSP, BC), Algorithm 2: start with push; E' = gamma |E|, minus outDegree(A)
          after every push round; switch to pull when outDegree(A) > E' / alpha, back to push when |A| < |V| / beta;
          never switch when |E| / |V| < delta (a high-diameter graph runs one async push-dd pass; a monotone
          program's pass expands LOCAL_HOPS levels per grid barrier on the GPU, Strategy.hops). One addition from
          Beamer et al. (SC'12): pull stays while the active set is still growing. With the paper's beta = 2 alone,
          a Kronecker graph (40% isolated vertices) went back to push at its peak level, a push round many times
          slower than the pull it replaced (docs/performance.md#bfs-on-power-law-graphs). Iterative
          algorithms (delta-PageRank, label propagation), Algorithm 1: run each candidate path once, normalise its
          time by its work, then each round predict every candidate's time from the current active set and run the
          fastest, updating the normalised time after each round.
auto      static + adaptive (the default): the table fixes the GPU fields, the adaptive rules steer direction,
          synchronisation and drive.
hybrid    MultiGraph (Hong et al., PACT'17, Algorithm 3), traversals: each iteration runs sparse (push over the active
          vertices' out-edges, MultiGraphS's three-stage balancing) or dense (a bitmap frontier, every unsettled
          vertex scanning its in-edges), whichever is estimated cheaper. EDP, the dense cost, is measured by a dense
          run (the first iteration's) and ESP, the sparse cost, by running a random sample of the active vertices
          sparse before each iteration, its time scaled by out-edges (HybridController).
"""

from __future__ import annotations

import copy
import functools
import math
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import StrategyError
from ..graph.graph import described
from .strategy import Strategy, parse_strategy

__all__ = [
    "HIGH_DIAMETER_RATIO",
    "high_diameter",
    "DEEP_LEVELS",
    "note_depth",
    "learned_depth",
    "check_strategy",
    "controller_name",
    "parsed_once",
    "IterationInfo",
    "Decision",
    "Controller",
    "FixedController",
    "StaticController",
    "TraversalController",
    "IterativeController",
    "HybridController",
    "HYBRID",
    "NAMED_CONTROLLERS",
    "configuration_table",
    "label_correcting",
    "hop_friendly",
    "make_controller",
    "controller_prototype",
    "run_controller",
    "LOCAL_HOPS",
    "near_far_hops",
    "fifo_pass",
    "CONTROLLERS",
]

# SEP-Graph's delta: a graph with |E| / |V| below it is high-diameter (Algorithm 2 then never switches direction; the
# GPU runs its persistent kernel with one block per multiprocessor, since thousands of small rounds follow)
HIGH_DIAMETER_RATIO = 5.0


def high_diameter(num_arcs: int, num_vertices: int) -> bool:
    """Whether |E| / |V| < HIGH_DIAMETER_RATIO (SEP-Graph's delta test)."""
    return num_vertices > 0 and num_arcs / num_vertices < HIGH_DIAMETER_RATIO

CONTROLLERS = ("auto", "static", "adaptive")
HYBRID = "hybrid"  # MultiGraph's sampling controller (HybridController), for traversals
# every name a strategy argument may give a controller by; any other string is a Strategy's short form
NAMED_CONTROLLERS = CONTROLLERS + (HYBRID,)
ALPHA, BETA, GAMMA, DELTA = 15.0, 2.0, 1.0, HIGH_DIAMETER_RATIO  # SEP-Graph Algorithm 2, the paper's values
WARP_SIZE, BLOCK_SIZE = 32, 256
RESIDENT_THREADS = 132 * 2048  # a 132-SM GPU at 2048 resident threads an SM (supplementary queues at half of it)
SYNTHETIC_GENERATORS = ("kron:", "rmat:", "er:")  # randomly labelled graphs: bitmask status lookup pays off
# Strategy.hops of a high-diameter graph's async push (monotone programs): 32 was fastest on the big grid and the road
# graphs, and no rule by graph size did better (a small mesh preferred 8, a grid of the same size 32): the hop-count
# runs in docs/performance.md#block-local-hops; graphgear bench --suite gpu times the default
LOCAL_HOPS = 32
# ... but only on a graph without hubs: a sparse power-law graph has a small diameter, few rounds to save and much
# label-correcting to waste (BFS on as-caida slows with every hop: docs/performance.md#block-local-hops)
HOPS_MAX_DEGREE = 32


# Learned depth: SEP-Graph's delta test misses a high-diameter graph of higher average degree (a random geometric
# graph: |E|/|V| 14, some 900 BFS levels), where Algorithm 2 never switches and each of the hundreds of levels pays a
# grid barrier, which one async pass does not (graphgear bench --suite adaptive; the figures in
# docs/performance.md#learned-depth). The device's level-synchronous traversals record the levels
# they ran per graph (`note_depth`: program.py, and BC's host-driven levels in betweenness.py), and auto treats a graph
# that took at least DEEP_LEVELS levels, and has no hubs (Gini below DEEP_MAX_GINI: an async pass over hubs re-relaxes
# much), as high-diameter from then on on such a backend (make_controller), saying so in the trace. A low-diameter
# graph runs some log2(V) levels.
DEEP_LEVELS = 100
DEEP_MAX_GINI = 0.3
_DEPTHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def note_depth(graph: Any, levels: int) -> None:
    """Record that a level-synchronous traversal of `graph` ran `levels` levels (the deepest is kept)."""
    try:
        if levels > _DEPTHS.get(graph, 0):
            _DEPTHS[graph] = int(levels)
    except TypeError:  # pragma: no cover - a graph object that cannot be weakly referenced is not remembered
        pass


def learned_depth(graph: Any) -> str:
    """Why `graph` counts as high-diameter from an earlier traversal (DEEP_LEVELS levels or more, no hubs), or "" when
    it does not."""
    try:
        levels = _DEPTHS.get(graph, 0)
    except TypeError:  # pragma: no cover
        return ""
    if levels < DEEP_LEVELS:
        return ""
    gini = graph.degree_stats()["gini"]
    if gini >= DEEP_MAX_GINI:
        return ""
    return (f"an earlier traversal of this graph ran {levels:,} levels (>= {DEEP_LEVELS}) and its degrees are even "
            f"(Gini {gini:.2f} < {DEEP_MAX_GINI})")


def hop_friendly(graph: Any) -> bool:
    """Whether a graph is high-diameter as block-local hops see it: sparse (|E| / |V| < delta, SEP-Graph's rule) and
    without hubs (maximum degree at most HOPS_MAX_DEGREE): a road network, a mesh, a grid."""
    return (high_diameter(graph.num_arcs, graph.num_vertices)
            and graph.degree_stats()["max_degree"] <= HOPS_MAX_DEGREE)


# Near-far SSSP on the GPU takes the hops on every graph without hubs, dense or sparse, high or low diameter: inside a
# bucket, label-correcting hops beat level-synchronous rounds with Meyer & Sanders' light/heavy split (rgg and ER
# graphs up to maximum degree 125), and lose to them on graphs with hubs (rmat, kron): split against hops in
# docs/performance.md#hops-instead-of-the-split-on-graphs-without-hubs. The bound is a block's width (a row one block
# expands in a step), between the two groups.
NEAR_FAR_HOPS_MAX_DEGREE = BLOCK_SIZE


def near_far_hops(graph: Any) -> bool:
    """Whether near-far SSSP on the GPU expands with block-local hops (label-correcting inside each bucket) rather than
    level by level with the light/heavy split: no vertex of degree above NEAR_FAR_HOPS_MAX_DEGREE."""
    return graph.degree_stats()["max_degree"] <= NEAR_FAR_HOPS_MAX_DEGREE


def label_correcting(strategy: Strategy, hops: int | None = None) -> Strategy:
    """An async push-dd strategy with block-local hops: `hops` (LOCAL_HOPS) levels per grid barrier, status lookup (a visited bit
    assumes the first value is final, which label correcting does not). For monotone programs on high-diameter
    graphs; unchanged where the strategy's balancer has no block-local form (merge_path)."""
    if strategy.balance == "merge_path":
        return strategy
    return strategy.with_(sync="async", direction="push", drive="data", lookup="status",
                          hops=LOCAL_HOPS if hops is None else hops)


@dataclass(frozen=True)
class IterationInfo:
    """What a controller knows before an iteration: the active set and the graph's size."""

    iteration: int
    frontier_vertices: int
    frontier_edges: int  # outDegree(A): the out-edges of the active vertices
    num_vertices: int
    num_edges: int  # stored arcs


@dataclass(frozen=True)
class Decision:
    strategy: Strategy
    decision: str  # a short label for the trace: "push", "pull", "sync-pull-td", ...
    reason: str


class Controller:
    """Base class: `choose` before each iteration, `observe` after it with the time it took."""

    name = "controller"

    def choose(self, info: IterationInfo) -> Decision:  # pragma: no cover - abstract
        raise NotImplementedError

    def observe(self, decision: Decision, info: IterationInfo, seconds: float) -> None:
        """Learn from the iteration just run (adaptive controllers); the default ignores it."""

    def sample_plan(self, info: IterationInfo) -> tuple[int, Strategy, np.random.Generator] | None:
        """(k, strategy, rng): before `choose`, run k of the active vertices, drawn at random by rng, under `strategy`
        and report the run to `observe_sample` (MultiGraph's sampled sparse cost); None, the default: no sample. The
        loop joins what the sample reached to the iteration's output; the sampled vertices have sent, so the
        iteration's own round finds nothing new at them."""
        return None

    def observe_sample(self, vertices: int, edges: int, seconds: float) -> None:
        """The sample asked for by sample_plan ran: its vertices, their out-edges and the time it took."""


class FixedController(Controller):
    """The same Strategy every iteration."""

    name = "fixed"

    def __init__(self, strategy: Strategy, reason: str = "fixed by the caller") -> None:
        self.strategy = strategy
        self.reason = reason

    def choose(self, info: IterationInfo) -> Decision:
        return Decision(self.strategy, self.strategy.path, self.reason)


# ------------------------------------------------------------------------------------------ configuration table


def configuration_table(stats: dict[str, Any], name: str = "", resident_threads: int = RESIDENT_THREADS) -> tuple[Strategy, str]:
    """Busato & Bombieri, Table 1: a push Strategy and the rules that produced it, from avg/max degree and Gini.
    Looked up once per distinct input (every traversal asks it before its first round)."""
    return _configuration_table(stats["avg_degree"], stats["gini"], stats["max_degree"],
                                name.startswith(SYNTHETIC_GENERATORS), resident_threads)


@functools.lru_cache(maxsize=256)
def _configuration_table(avg: float, gini: float, max_degree: int, synthetic: bool,
                         resident_threads: int) -> tuple[Strategy, str]:
    why = []
    frontier, group = "vertex_queue", 32
    if avg < 5 and gini >= 0.2:
        balance, group, frontier = "vertex_group", 1, "edge_queue"
        why.append(f"avg degree {avg:.1f} < 5, Gini {gini:.2f} >= 0.2: node-based-1 + edge queue")
    elif avg < 5:
        balance, group = "vertex_group", 4
        why.append(f"avg degree {avg:.1f} < 5, Gini {gini:.2f} < 0.2: node-based-4")
    elif avg > 2 * WARP_SIZE and gini < 0.3:
        balance, group = "vertex_group", 32
        why.append(f"avg degree {avg:.1f} > 64, Gini {gini:.2f} < 0.3: node-based-32 with shuffle")
    elif avg > WARP_SIZE and gini < 0.3:
        balance, group = "vertex_group", 16
        why.append(f"avg degree {avg:.1f} > 32, Gini {gini:.2f} < 0.3: node-based-16 with shuffle")
    else:
        balance = "warp_scan"
        why.append(f"avg degree {avg:.1f}, Gini {gini:.2f}: warp-level scan")
    supports = set()
    if max_degree > WARP_SIZE:
        supports.add("warp_gather")
    if max_degree > BLOCK_SIZE:
        supports.add("block_gather")
    if max_degree > resident_threads // 2:
        supports.add("supplementary_queues")
    if supports:
        why.append(f"max degree {max_degree:,}: {'+'.join(sorted(supports))}")
    multiple = avg > 20 or gini >= 0.6
    sync = "sync" if multiple else "async"
    why.append("multiple kernel calls (avg degree > 20 or Gini >= 0.6)" if multiple else "single kernel call (likely high diameter)")
    dedup = "warp_hash" if balance == "warp_scan" else "block"
    lookup = "bitmask" if synthetic else "status"
    if lookup == "bitmask":
        why.append("bitmask lookup (synthetic, randomly labelled)")
    strategy = Strategy(
        sync=sync, frontier=frontier, balance=balance, group_size=group if balance == "vertex_group" else 32,
        supports=frozenset(supports), dedup=dedup, lookup=lookup,
    )
    return strategy, "; ".join(why)


class StaticController(FixedController):
    """The configuration table's Strategy, fixed for the whole run."""

    name = "static"

    def __init__(self, graph: Any) -> None:
        strategy, why = configuration_table(graph.degree_stats(), graph.name)
        super().__init__(strategy, f"configuration table: {why}")


# ------------------------------------------------------------------------------------------ SEP-Graph Algorithm 2


def as_pull(strategy: Strategy) -> Strategy:
    """The pull form of a push strategy: dense frontier, no push-only supports or duplicate removal."""
    frontier = strategy.frontier if strategy.frontier in ("bitmap", "boolmap") else "bitmap"
    return strategy.with_(direction="pull", frontier=frontier, supports=frozenset(), dedup="none")


def as_push(strategy: Strategy, base: Strategy) -> Strategy:
    """Back to push with the base strategy's push-side fields."""
    return base.with_(sync=strategy.sync, drive=strategy.drive)


class TraversalController(Controller):
    """SEP-Graph Algorithm 2 (push/pull switching for BFS, SSSP, BC) on top of a base strategy."""

    name = "adaptive"

    def __init__(self, base: Strategy, num_vertices: int, num_edges: int, *, alpha: float = ALPHA, beta: float = BETA,
                 gamma: float = GAMMA, delta: float = DELTA, prefix: str = "", hops: int = 1, deep: str = "") -> None:
        self.base = base.with_(direction="push", drive="data", sync="sync", hops=1)
        self.alpha, self.beta, self.gamma, self.delta = alpha, beta, gamma, delta
        self.unexplored = gamma * num_edges  # E'
        self.policy = "push"
        self.previous_active = 0  # |A| of the previous pull round
        self.prefix = prefix
        # high-diameter: SEP-Graph's delta test, or `deep` (learned_depth's reason: an earlier traversal was deep)
        below_delta = num_vertices > 0 and num_edges / num_vertices < delta
        self.deep = "" if below_delta else deep
        self.sparse = below_delta or (num_vertices > 0 and bool(deep))
        # the sparse graph's one async pass, `hops` levels per grid barrier (a monotone program on a hop-friendly graph)
        self.sparse_pass = label_correcting(self.base, hops) if hops > 1 else self.base.with_(sync="async")

    def __copy__(self) -> TraversalController:
        """A run's own controller from its prototype (program.run_program): the same plain attributes, the
        prototype untouched. copy.copy's generic path (__reduce_ex__, then a rebuild) took about five times as long,
        host time in front of a GPU traversal's launch."""
        replica = object.__new__(type(self))
        replica.__dict__.update(self.__dict__)
        return replica

    def device_rules(self) -> tuple[Strategy, tuple[float, float, float]] | None:
        """(base strategy, (alpha, beta, E')) for a backend that evaluates these rules itself each round (the GPU's
        persistent kernel); None on a sparse graph, where the rules never switch. Replaying `choose` on the rounds the
        device logged gives the same decisions and reasons for the trace."""
        if self.sparse:
            return None
        return self.base, (self.alpha, self.beta, self.unexplored)

    def single_pass(self, num_vertices: int, num_edges: int) -> Decision | None:
        """The decision of every round where the rules never switch (a sparse graph: SEP-Graph's one async push-dd
        pass), known before any round runs, so a backend may run the whole traversal unread; None otherwise."""
        if not self.sparse:
            return None
        return self.choose(IterationInfo(0, 0, 0, num_vertices, num_edges))

    def choose(self, info: IterationInfo) -> Decision:
        if self.sparse:
            ratio = info.num_edges / max(info.num_vertices, 1)
            why = self.deep or f"|E|/|V| = {ratio:.2f} < delta {self.delta:g}"
            return Decision(self.sparse_pass, "push", f"{self.prefix}{why}: one async push-dd pass"
                            f"{_hops_note(self.sparse_pass)}")
        if info.iteration == 0:
            return Decision(self.base, "push", f"{self.prefix}start with push: {info.frontier_vertices:,} active")
        out_a = info.frontier_edges
        if self.policy == "push":
            self.unexplored -= out_a
            limit = self.unexplored / self.alpha
            if out_a > limit:
                self.policy = "pull"
                self.previous_active = info.frontier_vertices
                return Decision(as_pull(self.base), "pull",
                                f"{self.prefix}outDegree(A) {out_a:,} > E'/alpha {limit:,.0f}: switch to pull")
            return Decision(self.base, "push", f"{self.prefix}outDegree(A) {out_a:,} <= E'/alpha {limit:,.0f}: stay push")
        limit = info.num_vertices / self.beta
        previous, self.previous_active = self.previous_active, info.frontier_vertices
        if info.frontier_vertices > previous:
            return Decision(as_pull(self.base), "pull",
                            f"{self.prefix}|A| {info.frontier_vertices:,} > {previous:,} last round: still growing, stay pull")
        if info.frontier_vertices < limit:
            self.policy = "push"
            return Decision(self.base, "push",
                            f"{self.prefix}|A| {info.frontier_vertices:,} < |V|/beta {limit:,.0f}: switch to push")
        return Decision(as_pull(self.base), "pull",
                        f"{self.prefix}|A| {info.frontier_vertices:,} >= |V|/beta {limit:,.0f}: stay pull")


def _hops_note(strategy: Strategy) -> str:
    return f", {strategy.hops} levels per grid barrier" if strategy.hops > 1 else ""


def fifo_pass(decision: Decision, async_order: str) -> Decision | None:
    """SEP-Graph's async push-dd path as a backend runs it whose async advance drains one FIFO worklist on one thread
    (capabilities.async_order "fifo": the CPU backend): the decision as it runs there (FIFO order from one source
    is BFS order, so hops=1: no block-local hops to take), or None for any other decision or backend. On such a
    backend a traversal can finish its whole work inside that one serial pass: BFS records its tree as it goes, and
    SCC runs one depth-first search (Tarjan) instead of Multistep's trim and forward-backward traversals."""
    s = decision.strategy
    if async_order != "fifo" or (s.sync, s.direction, s.drive) != ("async", "push", "data"):
        return None
    reason = decision.reason.removesuffix(_hops_note(s))
    return Decision(s.with_(hops=1), decision.decision,
                    f"{reason}: one FIFO worklist on one thread (this backend's async order)")


# ------------------------------------------------------------------------------------------ SEP-Graph Algorithm 1


ITERATIVE_CANDIDATES = (("sync", "pull", "topology"), ("async", "push", "topology"), ("async", "push", "data"))


class IterativeController(Controller):
    """SEP-Graph Algorithm 1: try each candidate path once, then run the one predicted fastest each round."""

    name = "adaptive"

    def __init__(self, base: Strategy, candidates: tuple[tuple[str, str, str], ...] = ITERATIVE_CANDIDATES,
                 prefix: str = "") -> None:
        self.candidates = [self._strategy(base, c) for c in candidates]
        self.normalised: list[float | None] = [None] * len(self.candidates)
        self.prefix = prefix

    @staticmethod
    def _strategy(base: Strategy, candidate: tuple[str, str, str]) -> Strategy:
        sync, direction, drive = candidate
        s = base.with_(sync=sync, drive=drive, direction="push", frontier="vertex_queue" if drive == "data" else "bitmap",
                       dedup="none")
        return as_pull(s) if direction == "pull" else s

    @staticmethod
    def _work(strategy: Strategy, info: IterationInfo) -> float:
        """The work a path does on the active set: outDegree(A) data-driven, every edge topology-driven."""
        return float(max(1, info.frontier_edges if strategy.drive == "data" else info.num_edges))

    def choose(self, info: IterationInfo) -> Decision:
        for i, t in enumerate(self.normalised):
            if t is None:
                s = self.candidates[i]
                return Decision(s, s.path, f"{self.prefix}inspect candidate {i + 1}/{len(self.candidates)}")
        predicted = [t * self._work(s, info) for t, s in zip(self.normalised, self.candidates)]
        best = min(range(len(predicted)), key=predicted.__getitem__)
        shown = ", ".join(f"{s.path} {p * 1e3:.3g} ms" for s, p in zip(self.candidates, predicted))
        return Decision(self.candidates[best], self.candidates[best].path, f"{self.prefix}predicted {shown}: fastest")

    def observe(self, decision: Decision, info: IterationInfo, seconds: float) -> None:
        for i, s in enumerate(self.candidates):
            if s == decision.strategy:
                self.normalised[i] = seconds / self._work(s, info)


# ------------------------------------------------------------------------------------------ MultiGraph's hybrid


# the share of the active vertices run sparse as the sample, and the fewest sampled (below twice that many active
# vertices the iteration runs sparse without a sample): MultiGraph's "small fraction", not tuned yet
SAMPLE_FRACTION = 0.01
SAMPLE_MIN = 32
# below twice this many out-edges of the active vertices an iteration runs sparse without a sample: a round this small
# costs its launches and host work, not its edges (a GPU's resident threads take that many in a fraction of one
# wave), so a sample of it would time that fixed cost and the scaling would multiply it; such rounds are what the
# fixed cost is read from (docs/performance.md#the-hybrids-fixed-cost)
SAMPLE_MIN_EDGES = 65_536


class HybridController(Controller):
    """MultiGraph's hybrid (Hong et al., PACT'17, Algorithm 3) for a traversal: each iteration runs in sparse mode
    (MultiGraphS: push over the active vertices' out-edges, three-stage load balancing, a vertex queue) or in dense
    mode (a bitmap frontier, every unsettled vertex scanning its in-edges for active sources), whichever costs less
    by estimate. graphgear's dense mode is that pull over the CSC, not MultiGraphD's 2D edge blocks.

    EDP, the dense cost, hardly depends on the active set (Table 2), so the paper samples it once before the first
    iteration; here the first iteration runs dense and its time is EDP (the work is the first iteration's own), and
    each later dense iteration measures it again. ESP, the sparse cost, is sampled every iteration: sample_plan asks
    the loop to run a random SAMPLE_FRACTION of the active vertices sparse first; their time, scaled by the active
    set's out-edges over the sample's, is ESP. A loop that runs no samples (BC's, near-far's) gets ESP from the last
    sparse time per out-edge, and runs sparse until it has one.

    A round also costs a fixed part, its launches and its host work, which the paper's kernel-timed sample did not
    carry and which does not grow with the edges: on the GPU a host-driven round of a few vertices takes about as long
    as one of a few thousand, and scaled by out-edges a sample's fixed part sent a lattice's every level dense
    (docs/performance.md#the-hybrids-fixed-cost). So an iteration with fewer than 2 x `minimum_edges` out-edges runs
    sparse without a sample (its work is below what a sample could measure), the fastest such round of the run is
    the fixed part, and a sample scales only its time above it: ESP = fixed + (sample - fixed) x edges / sample's.

    A controller object keeps its measurements between iterations; a run that starts again (iteration 0) starts them
    again, so one instance may be passed to several calls."""

    name = HYBRID

    def __init__(self, base: Strategy | None = None, fraction: float = SAMPLE_FRACTION, minimum: int = SAMPLE_MIN,
                 seed: int = 0, minimum_edges: int = SAMPLE_MIN_EDGES) -> None:
        base = Strategy(balance="three_stage") if base is None else base
        self.sparse = base.with_(direction="push", sync="sync", drive="data", frontier="vertex_queue", hops=1)
        self.dense = as_pull(self.sparse)
        if not 0.0 < fraction <= 1.0:
            raise StrategyError(f"the hybrid controller's sample fraction must be in (0, 1], got {fraction!r}")
        self.fraction, self.minimum = float(fraction), max(1, int(minimum))
        self.minimum_edges = max(0, int(minimum_edges))
        self.rng = np.random.default_rng(seed)
        self.edp: float | None = None  # seconds of a dense iteration
        self.per_edge: float | None = None  # seconds per out-edge of the last sparse run (sample or iteration)
        self.fixed: float | None = None  # seconds of the fastest sparse round too small to sample: its fixed part
        self._sample: tuple[int, int, float] | None = None  # this iteration's sample: vertices, edges, seconds

    def _small(self, info: IterationInfo) -> bool:
        """Too little work to sample: fewer than 2 x minimum_edges out-edges."""
        return info.frontier_edges < 2 * self.minimum_edges

    def sample_plan(self, info: IterationInfo) -> tuple[int, Strategy, np.random.Generator] | None:
        if (info.iteration == 0 or self.edp is None or info.frontier_vertices < 2 * self.minimum
                or self._small(info)):
            return None
        return max(self.minimum, math.ceil(self.fraction * info.frontier_vertices)), self.sparse, self.rng

    def observe_sample(self, vertices: int, edges: int, seconds: float) -> None:
        self._sample = (int(vertices), int(edges), float(seconds))
        self.per_edge = seconds / max(int(edges), 1)

    def choose(self, info: IterationInfo) -> Decision:
        if info.iteration == 0:
            self.edp, self.per_edge, self.fixed, self._sample = None, None, None, None
            return Decision(self.dense, "dense", "sample EDP: the first iteration runs dense and is timed (MultiGraph "
                            "samples the dense cost once, before the first iteration)")
        sample, self._sample = self._sample, None
        if self._small(info):
            return Decision(self.sparse, "sparse", f"{info.frontier_edges:,} out-edges, under 2 x "
                            f"{self.minimum_edges:,}: too little work to sample (a round this small costs its fixed "
                            "part); sparse")
        if sample is not None:
            vertices, edges, seconds = sample
            fixed = min(self.fixed or 0.0, seconds)
            esp = fixed + (seconds - fixed) * info.frontier_edges / max(edges, 1)
            above = f"{fixed * 1e3:.3g} ms fixed + the rest" if fixed else "no fixed part known yet: all of it"
            how = (f"ESP {esp * 1e3:.3g} ms (the sample: {vertices:,} of {info.frontier_vertices:,} active vertices "
                   f"run sparse in {seconds * 1e3:.3g} ms, {above} scaled by out-edges {edges:,} -> "
                   f"{info.frontier_edges:,})")
        elif self.per_edge is not None:
            esp = self.per_edge * info.frontier_edges
            how = f"ESP {esp * 1e3:.3g} ms (the last sparse time per out-edge x {info.frontier_edges:,})"
        else:
            return Decision(self.sparse, "sparse", f"{info.frontier_vertices:,} active vertices, no sparse time yet: "
                            "sparse")
        if self.edp is None:
            return Decision(self.sparse, "sparse", f"{how}; no dense time yet: sparse")
        if esp < self.edp:
            return Decision(self.sparse, "sparse", f"{how} < EDP {self.edp * 1e3:.3g} ms: sparse")
        return Decision(self.dense, "dense", f"{how} >= EDP {self.edp * 1e3:.3g} ms: dense")

    def observe(self, decision: Decision, info: IterationInfo, seconds: float) -> None:
        if decision.strategy == self.dense:
            self.edp = seconds
        elif decision.strategy == self.sparse:
            if info.iteration and self._small(info):
                self.fixed = seconds if self.fixed is None else min(self.fixed, seconds)
            if info.frontier_edges:
                self.per_edge = seconds / info.frontier_edges


# ------------------------------------------------------------------------------------------ factory


def make_controller(strategy: Any, graph: Any, kind: str, monotone: bool = False,
                    async_order: str = "levels") -> Controller:
    """The controller for ``strategy`` ("auto", "static", "adaptive", a Strategy or its string form) for an
    algorithm of `kind` "traversal" or "iterative"; `monotone` (a VertexProgram's) lets a traversal on a
    hop-friendly graph run label-correcting, LOCAL_HOPS levels per grid barrier (Strategy.hops). A traversal takes
    a learned depth (learned_depth) as high-diameter only on a backend whose async pass runs level by level in
    parallel (`async_order` "levels": the GPU); where it is one FIFO worklist on one thread (the CPU) a deep graph
    of this kind ran slower so (rgg:18, docs/performance.md#learned-depth).
    "hybrid" steers traversals, and a monotone iterative program (max-colour propagation), which is the traversal
    from many vertices that it runs as; any other iterative algorithm refuses it."""
    if isinstance(strategy, Controller):
        return strategy
    if isinstance(strategy, Strategy):
        return FixedController(strategy)
    if not isinstance(strategy, str):
        raise StrategyError(f"strategy must be 'auto', 'static', 'adaptive', 'hybrid', a Strategy or its string form, "
                            f"not {strategy!r}")
    if kind not in ("traversal", "iterative"):
        raise StrategyError(f"unknown algorithm kind {kind!r}")
    if strategy == HYBRID:
        if kind != "traversal" and not monotone:
            raise StrategyError("strategy 'hybrid' (MultiGraph's sampled choice of sparse or dense iterations) steers "
                                "traversals (BFS, SSSP, betweenness); this algorithm's iterations take 'auto', "
                                "'static', 'adaptive' or a Strategy")
        return HybridController()
    if strategy not in CONTROLLERS:
        return FixedController(parse_strategy(strategy))
    if strategy == "static":
        return StaticController(graph)
    if strategy == "adaptive":
        base, prefix = Strategy(), ""
    else:
        base, _ = configuration_table(graph.degree_stats(), graph.name)
        prefix = ""
    if kind == "traversal":
        hops = LOCAL_HOPS if monotone and hop_friendly(graph) else 1
        controller: Controller = TraversalController(base, graph.num_vertices, graph.num_arcs, prefix=prefix, hops=hops,
                                                     deep=learned_depth(graph) if async_order == "levels" else "")
    else:
        controller = IterativeController(base, prefix=prefix)
    controller.name = strategy
    return controller


_PROTOTYPES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def controller_prototype(strategy: Any, graph: Any, kind: str, monotone: bool = False,
                         async_order: str = "levels") -> Controller:
    """The controller make_controller would build for these arguments, built once per graph, arguments and learned
    depth, and never run: a run takes a copy of it where it is SEP-Graph Algorithm 2's TraversalController (whose
    state is plain values; run_controller), make_controller's own otherwise. Building one per call (the
    configuration table, the graph's statistics) was host time in front of every launch
    (docs/performance.md#host-time-of-a-call). A Strategy or a controller of the caller's passes to make_controller."""
    if not isinstance(strategy, str):
        return make_controller(strategy, graph, kind, monotone, async_order)
    deep = learned_depth(graph) if kind == "traversal" and async_order == "levels" else ""
    key = (strategy, kind, monotone, async_order, deep, graph.name)
    try:
        known = _PROTOTYPES.get(graph)
        if known is None:
            known = _PROTOTYPES[graph] = {}
    except TypeError:  # pragma: no cover - a graph object that cannot be weakly referenced: built each time
        return make_controller(strategy, graph, kind, monotone, async_order)
    prototype = known.get(key)
    if prototype is None:
        prototype = known[key] = make_controller(strategy, graph, kind, monotone, async_order)
    return prototype


def run_controller(strategy: Any, graph: Any, kind: str, monotone: bool = False,
                   async_order: str = "levels") -> Controller:
    """The controller one run uses: a copy of the cached prototype (controller_prototype) where that is SEP-Graph
    Algorithm 2's TraversalController, whose state is plain values that the run's rounds change; make_controller's,
    built once, otherwise (a caller's Strategy or controller, or an automatic controller that learns while it runs)."""
    if isinstance(strategy, str):
        prototype = controller_prototype(strategy, graph, kind, monotone, async_order)
        if isinstance(prototype, TraversalController):
            return copy.copy(prototype)
    return make_controller(strategy, graph, kind, monotone, async_order)


def controller_name(strategy: Any) -> str:
    """The name the controller make_controller builds for `strategy` would carry, without building it (the automatic
    controllers read the graph's degree statistics and learned depth): for a trace whose levels another loop runs."""
    if isinstance(strategy, Controller):
        return strategy.name
    if isinstance(strategy, str) and strategy in NAMED_CONTROLLERS:
        return strategy
    return FixedController.name


def parsed_once(strategy: Any) -> Any:
    """`strategy` with a short form ("direction=pull") parsed into its Strategy, for an algorithm that makes a
    controller many times (per source, per phase) and would parse it each time; a named controller, a Strategy or a
    controller as given."""
    if isinstance(strategy, str) and strategy not in NAMED_CONTROLLERS:
        return parse_strategy(strategy)
    return strategy


def check_strategy(strategy: Any) -> Any:
    """StrategyError, before any work, for a `strategy` argument that is none of "auto" / "static" / "adaptive" /
    "hybrid", a Strategy, its short form or a controller (42, None, "direction=sideways"); the argument as it was
    otherwise (a string stays a string: callers cache by it)."""
    if isinstance(strategy, str):
        if strategy not in NAMED_CONTROLLERS:
            parse_strategy(strategy)  # names the text on any fault
        return strategy
    if not isinstance(strategy, (Strategy, Controller)):
        raise StrategyError(f"strategy must be 'auto', 'static', 'adaptive', 'hybrid', a Strategy or its short form "
                            f"(such as 'direction=pull'), got {described(strategy)}")
    return strategy

"""Strategy: one execution path of an operator — the whole strategy space of DESIGN.md as one frozen, validated value.

A Strategy answers, for one iteration: which direction (push over out-edges or pull over in-edges), which
synchronisation (a barrier per iteration or updates visible at once), which drive (the frontier only or every vertex),
how the frontier is kept, and — on the GPU — how edges are spread over threads. Field by field:

direction   push   atomics on destinations; cost ~ out-degree of the frontier                (SEP-Graph; Beamer)
            pull   each candidate gathers from in-neighbours, no write conflicts, early exit possible
sync        sync   one barrier (CPU) / one launch (GPU) per iteration; iteration i reads iteration i-1's values
            async  updates visible at once; the worklist is drained in one persistent pass (SEP-Graph; Busato
                   "single kernel call" with a grid barrier)
drive       data   only the frontier's vertices work (DD)
            topology  every vertex works every iteration (TD; MultiGraph's dense mode); with sync=async on the GPU
                      every vertex computes each round inside the one persistent launch, until a round changes none
frontier    vertex_queue  ids of active vertices, 2V memory accesses                              (Busato 3.3)
            edge_queue    the frontier's edges, 2E accesses; best with node-based-1 on low, skewed degree
            two_phase     Busato's two-phase queue, 2V + 2E accesses: the balancer writes the frontier's edges
                          (expand, no status lookup), then one thread per edge looks the target up and claims it
                          into the next vertex queue (contract): every lookup thread busy, twice the traffic
            bitmap        one bit per vertex (dense; MultiGraphD, bottom-up BFS)
            boolmap       one byte per vertex (dense, no bit twiddling)
balance     vertex_group  node-based mapping: a group of 1/4/16/32 lanes per vertex, ids broadcast by warp shuffle
            twc           thread/warp/CTA bins by degree: Slota's hierarchical expansion = SEP-Graph CTA scheduling
            warp_scan     warp-level prefix sum of degrees, edges staged in shared memory (local Manhattan collapse)
            merge_path    device-wide binary search over an unordered prefix sum (global Manhattan collapse;
                          Busato & Bombieri kernels A-B-C: a level's emissions write the next queue's degree
                          prefix sum, slots and edge range claimed by one packed 64-bit atomic a warp; a block's
                          chunk of ceil(edges / resident threads) x block edges, at most what its rows in shared
                          memory allow; in the persistent rounds senders of out-degree 0, and on an undirected graph
                          the leaves of BFS / SSSP / label programs, are left out: VertexProgram.silent_leaves)
            three_stage   MultiGraphS: deg % 32 by virtual warps of 4, the next % 256 by warps, the rest by the CTA
            segmented     MultiGraphS whole (Hong et al. Sec. 4.2, Fig. 7): a vertex program's sync push in which the
                          targets of in-degree groups 1-4 (in-degree >= 256) accumulate in shared memory, a block per
                          segment of 4,096 of them and sub-segment of 1,024 frontier vertices (shared-memory atomics,
                          then one global update per target reached), the rest three_stage with global atomics. Cost:
                          a segment table, 4 bytes per vertex and segment (+1); needs layout="in_degree_groups"
            block_scan    block-wide prefix sum of degrees, each thread's edges found by binary search (Busato's
                          scan-based / binary-search block mapping; Slota's local Manhattan collapse per team)
            hierarchical  Slota's hierarchical expansion: team / warp / thread queues by degree in shared memory
supports    warp_gather, block_gather, supplementary_queues  (Busato: thresholds warp size, block size, half the
            device's resident threads; the supplementary queues' vertices are expanded in bins by degree, each
            with its bin's lower bound of threads, all bins in one launch; on the GPU block gathering goes one level
            up too, hubs from GRID_GATHER_DEGREE by teams of blocks. merge_path spreads every edge evenly already);
            dynamic_parallelism (Busato: the thread holding a vertex of GRID_GATHER_DEGREE arcs or more launches a
            kernel for its row, from a module compiled with -rdc=true; sync, and a balancer whose threads hold rows:
            vertex_group, warp_scan, block_scan; the paper found it never better than the supplementary queues)
dedup       none, warp_hash (after frontier load, warp level: __match_any_sync), block (after frontier load,
            block level: a shared hash table; both need a balancer that loads one vertex per thread), lookup
            (during lookup, warp level: the lanes emitting one vertex in a step emit it once; any balancer, an
            edge queue: a vertex queue is exact already), atomic (test-and-set on emission: exact, costly)
            (Busato & Bombieri: duplicate removal during lookup or after frontier load, warp or block level).
            A vertex program runs the one named where its accumulate is idempotent (min/max/or); a sum program's
            queue claims on emission (a vertex computed twice would add its buffer twice)
lookup      status   plain status array
            bitmask  one visited bit per vertex (L2-resident; good with random vertex labels)
hops        1        level-synchronous: a barrier (or a grid barrier inside the persistent kernel) after every level
            h > 1    sync=async push of a monotone vertex program: each GPU block expands what it found itself for h
                     levels, with only block barriers between them, before the grid barrier (SEP-Graph's async:
                     updates visible at once; label-correcting, so the result is the same). For high-diameter graphs,
                     where a level is a few thousand vertices and costs its chain of memory accesses plus a barrier

On the CPU backend direction, sync and drive take effect; the GPU-only fields are validated and recorded in the trace.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from numbers import Integral
from typing import Any

from ..errors import StrategyError

__all__ = ["Strategy", "CHOICES", "MAX_HOPS", "parse_strategy", "require_level_synchronous", "require_monotone"]

CHOICES: dict[str, tuple[Any, ...]] = {
    "direction": ("push", "pull"),
    "sync": ("sync", "async"),
    "drive": ("data", "topology"),
    "frontier": ("vertex_queue", "edge_queue", "two_phase", "bitmap", "boolmap"),
    "balance": ("vertex_group", "twc", "warp_scan", "merge_path", "three_stage", "block_scan", "hierarchical",
                "segmented"),
    "group_size": (1, 4, 16, 32),
    "dedup": ("none", "warp_hash", "block", "lookup", "atomic"),
    "lookup": ("status", "bitmask"),
}
SUPPORTS = ("warp_gather", "block_gather", "supplementary_queues", "dynamic_parallelism")
GATHERING_BALANCERS = ("vertex_group", "warp_scan", "block_scan")  # those whose threads hold a row to hand over
MAX_HOPS = 1024  # levels per grid barrier (Strategy.hops)
DENSE_FRONTIERS = ("bitmap", "boolmap")
QUEUE_FRONTIERS = ("vertex_queue", "edge_queue")


def _whole(value: Any) -> bool:
    """An integer that is not a bool (NumPy's too): what group_size and hops take."""
    return isinstance(value, Integral) and not isinstance(value, bool) and type(value).__name__ != "bool_"


@dataclass(frozen=True)
class Strategy:
    """One execution path. Construct with keywords, `Strategy.parse("direction=pull,drive=topology")` or `with_`.

    Impossible combinations raise StrategyError at construction, so a Strategy that exists can run.
    """

    direction: str = "push"
    sync: str = "sync"
    drive: str = "data"
    frontier: str = "vertex_queue"
    balance: str = "twc"
    group_size: int = 32
    supports: frozenset[str] = field(default_factory=frozenset)
    dedup: str = "none"
    lookup: str = "status"
    hops: int = 1

    def __post_init__(self) -> None:
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            # the type first: True == 1 and 4.0 == 4 would pass the membership test
            if not (_whole(value) if name == "group_size" else isinstance(value, str)) or value not in allowed:
                raise StrategyError(f"{name}={value!r} is not one of {', '.join(map(str, allowed))}")
        object.__setattr__(self, "group_size", int(self.group_size))
        raw = self.supports
        if isinstance(raw, str):
            raw = raw.split("+")
        elif not isinstance(raw, (set, frozenset, list, tuple)) or not all(isinstance(x, str) for x in raw):
            raise StrategyError(f"supports must be a set of names among {', '.join(SUPPORTS)} (or their '+' form), got "
                                f"{raw!r}")
        supports = frozenset(raw)
        supports -= {"", "none"}
        unknown = supports - set(SUPPORTS)
        if unknown:
            raise StrategyError(f"supports={'+'.join(sorted(unknown))} is not among {', '.join(SUPPORTS)}")
        object.__setattr__(self, "supports", supports)
        if not _whole(self.hops) or not 1 <= self.hops <= MAX_HOPS:
            raise StrategyError(f"hops must be a whole number from 1 to {MAX_HOPS}, got {self.hops!r}")
        object.__setattr__(self, "hops", int(self.hops))
        self._check_combination()

    def _check_combination(self) -> None:
        if self.direction == "pull" and self.frontier == "edge_queue":
            raise StrategyError("pull gathers per destination vertex: it cannot read an edge queue (use bitmap/boolmap)")
        if self.drive == "topology" and self.frontier == "edge_queue":
            raise StrategyError("topology drive visits every vertex: an edge queue has nothing to hold")
        if self.frontier == "two_phase" and (self.sync, self.direction, self.drive) != ("sync", "push", "data"):
            raise StrategyError("frontier=two_phase expands a queue's edges and contracts them between two launches: it "
                                f"needs sync=sync, direction=push, drive=data (got {self.path})")
        if self.direction == "pull" and self.supports:
            raise StrategyError("warp/block gathering and supplementary queues balance push expansion, not pull")
        if self.dedup != "none" and (self.frontier not in QUEUE_FRONTIERS or self.drive == "topology"):
            raise StrategyError("duplicate removal applies to a data-driven queue frontier (vertex_queue/edge_queue)")
        if self.dedup == "lookup" and self.frontier != "edge_queue":
            raise StrategyError("dedup=lookup removes the duplicates an edge queue would hold (frontier=edge_queue); a "
                                "vertex queue is exact on emission already")
        if self.dedup in ("warp_hash", "block") and self.balance not in ("vertex_group", "twc", "warp_scan"):
            raise StrategyError(f"dedup={self.dedup} removes duplicates as each thread loads one frontier vertex: it needs "
                                "balance=vertex_group, twc or warp_scan")
        if self.balance != "vertex_group" and self.group_size != 32:
            raise StrategyError(f"group_size applies to balance=vertex_group only, not balance={self.balance}")
        if self.hops > 1 and (self.sync, self.direction, self.drive) != ("async", "push", "data"):
            raise StrategyError(f"hops={self.hops} runs several levels between grid barriers of an async data-driven push: "
                                f"it needs sync=async, direction=push, drive=data (got {self.path})")
        if self.hops > 1 and self.lookup == "bitmask":
            raise StrategyError(f"hops={self.hops} is label-correcting: a vertex may improve after its first visit, "
                                "which bitmask lookup (a visited bit, final at first) cannot express; use lookup=status")
        if "dynamic_parallelism" in self.supports and (self.sync != "sync" or self.balance not in GATHERING_BALANCERS):
            raise StrategyError("supports=dynamic_parallelism launches a kernel per long row from a level's launch, which "
                                "the launched kernels join at its end: it needs sync=sync and balance="
                                f"{', '.join(GATHERING_BALANCERS)} (got {self})")
        if self.balance == "segmented" and ((self.sync, self.direction, self.drive) != ("sync", "push", "data")
                                            or self.frontier not in QUEUE_FRONTIERS or self.supports):
            raise StrategyError("balance=segmented (MultiGraphS's shared-memory segments) is a vertex program's "
                                "host-driven push from a queue: it needs sync=sync, direction=push, drive=data, "
                                f"frontier=vertex_queue or edge_queue and no supports (got {self})")
        if self.hops > 1 and self.balance == "merge_path":
            raise StrategyError(f"hops={self.hops} expands block-local queues, and merge_path spreads a level's edges "
                                "over the whole grid by its prefix sum: it has no block-local form")

    # ------------------------------------------------------------------------------------------------------ forms
    @classmethod
    def parse(cls, text: str) -> Strategy:
        """Strategy from its short string form, e.g. ``direction=pull,drive=topology`` or ``balance=vertex_group,
        group_size=4,supports=warp_gather+block_gather``. Unnamed fields keep their defaults."""
        return parse_strategy(text)

    def with_(self, **changes: Any) -> Strategy:
        """A copy with some fields changed (validated again). Strategies are immutable, so equal requests share one
        result: controllers ask for the same few strategies every round, and building one costs microseconds."""
        key = (self, tuple(sorted(changes.items())))
        try:
            cached = _WITH_CACHE.get(key)
        except TypeError:  # an unhashable value (a set of supports): built every time
            key, cached = None, None
        if cached is not None:
            return cached
        unknown = set(changes) - {f.name for f in fields(self)}
        if unknown:
            raise StrategyError(f"unknown Strategy field(s) {', '.join(sorted(unknown))}; fields: {', '.join(_names())}")
        result = replace(self, **changes)
        if key is not None:
            if len(_WITH_CACHE) >= _WITH_CACHE_SIZE:
                _WITH_CACHE.clear()
            _WITH_CACHE[key] = result
        return result

    @property
    def path(self) -> str:
        """SEP-Graph's name of the execution path, e.g. ``sync-push-dd``."""
        return f"{self.sync}-{self.direction}-{'dd' if self.drive == 'data' else 'td'}"

    def __str__(self) -> str:
        """The short form, naming only the fields that differ from the defaults (`parse` reads it back); computed
        once per value, since every trace row asks for it."""
        cached = self.__dict__.get("_short")
        if cached is not None:
            return cached
        default = _DEFAULT
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value != getattr(default, f.name):
                parts.append(f"{f.name}={'+'.join(sorted(value)) if f.name == 'supports' else value}")
        short = ",".join(parts) or "default"
        object.__setattr__(self, "_short", short)
        return short

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (supports as a sorted list)."""
        return {f.name: sorted(getattr(self, f.name)) if f.name == "supports" else getattr(self, f.name) for f in fields(self)}


def require_level_synchronous(strategy: Strategy, operator: str) -> None:
    """StrategyError when a strategy asks for block-local hops where they cannot run: a functor advance expands
    level by level (BC's path counts rely on it); hops are for monotone vertex programs (run_program)."""
    if strategy.hops > 1:
        raise StrategyError(f"{operator} runs level by level: hops={strategy.hops} applies to monotone vertex programs "
                            "(run_program), not here; use hops=1")


def require_monotone(strategy: Strategy, program: Any) -> None:
    """StrategyError when block-local hops (label-correcting) are asked of a vertex program that does not declare
    its value and message monotone (VertexProgram.monotone): its result could depend on the order of updates."""
    name = getattr(program, "name", program)
    if strategy.hops > 1 and not getattr(program, "monotone", False):
        raise StrategyError(f"hops={strategy.hops} runs label-correcting, which needs a monotone vertex program (value and "
                            f"message moving one way); {name!r} does not declare monotone=True")
    if strategy.hops > 1 and getattr(program, "accumulate", None) == "sum":
        raise StrategyError(f"hops={strategy.hops} runs label-correcting, which needs an idempotent accumulate (min, max "
                            f"or or); {name!r} accumulates with sum")


_DEFAULT = Strategy()
_WITH_CACHE: dict[tuple, Strategy] = {}  # with_ results by (strategy, changes)
_WITH_CACHE_SIZE = 4096


def _names() -> list[str]:
    return [f.name for f in fields(Strategy)]


def parse_strategy(text: str) -> Strategy:
    """Parse ``key=value`` pairs separated by commas (see `Strategy.parse`); ``default`` or empty gives Strategy().
    Every StrategyError names the whole text."""
    if not isinstance(text, str):
        raise StrategyError(f"a strategy's short form is a string such as 'direction=pull,drive=topology', got "
                            f"{type(text).__name__} {text!r}")
    text = text.strip()
    if text in ("", "default"):
        return Strategy()
    values: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise StrategyError(f"strategy {text!r}: expected key=value pairs separated by commas, got {part!r}")
        if key not in _names():
            raise StrategyError(f"strategy {text!r}: unknown field {key!r}; fields: {', '.join(_names())}")
        if key in values:
            raise StrategyError(f"strategy {text!r}: {key} given twice")
        if key in ("group_size", "hops"):
            if not (value.isascii() and value.isdigit()):
                wanted = "one of 1, 4, 16, 32" if key == "group_size" else f"a whole number from 1 to {MAX_HOPS}"
                raise StrategyError(f"strategy {text!r}: {key} must be {wanted}, got {value!r}")
            values[key] = int(value)
        elif key == "supports":
            values[key] = frozenset(value.split("+"))
        else:
            values[key] = value
    try:
        return Strategy(**values)
    except StrategyError as exc:
        raise StrategyError(f"strategy {text!r}: {exc}") from None

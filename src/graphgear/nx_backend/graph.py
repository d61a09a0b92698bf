"""The graph NetworkX hands to graphgear's functions: a NetworkX graph read once, and graphgear Graphs built from it.

`convert_from_nx` reads a NetworkX graph in one pass over its adjacency (C-level iteration, no Python statement per
edge): the node labels in node order, the arcs in NetworkX's adjacency order (both arcs of an undirected edge, a
self-loop once, exactly as ``G._adj`` holds them), and one column per edge attribute asked for (``edge_attrs``: the
weight name and its default, 1). NetworkX's dispatcher caches the result on the graph (``G.__networkx_cache__``),
keyed by those attributes, so a second call on the same graph converts nothing.

The adjacency order is kept because NetworkX defines some outputs by it (which BFS parent discovers a vertex); the
graphgear `Graph` an algorithm runs on is built from the same arcs with its rows sorted by target (graphgear's CSR
invariant), once per weight column, on first use, and kept here too.

Weights: graphgear stores float32 weights and sums them in float64. A column records what NetworkX would compute with
(`WeightColumn`): the type of its values (NetworkX returns int distances for int weights), whether float32 holds every
value exactly, the smallest value; the dispatched functions decline (NetworkX runs) what graphgear cannot answer
exactly.
"""

from __future__ import annotations

from functools import cached_property
from itertools import chain, repeat
from operator import is_, methodcaller
from typing import Any

import numpy as np

__all__ = ["GearGraph", "WeightColumn", "from_networkx", "to_networkx"]

_MISSING = object()  # an attribute an edge does not carry
_INT_EXACT = 2**24  # float32 holds every integer of magnitude up to 2^24


class WeightColumn:
    """One edge attribute of a converted graph, per arc in NetworkX's adjacency order.

    ``values``: float64 (NaN where a value is not a real number); ``python``: the values as NetworkX holds them
    (the attribute's default where an edge lacks it); ``present``: bool per arc, None when every edge has it.
    """

    def __init__(self, python: list[Any], present: np.ndarray | None) -> None:
        self.python = python
        self.present = present

    @cached_property
    def kind(self) -> str:
        """"int" (ints only: NetworkX's sums stay ints), "float", "mixed" (both) or "other" (bools, strings,
        Decimals, ...: graphgear does not compute with them)."""
        kinds = {_kind_of(t) for t in set(map(type, self.python))}
        if not kinds or kinds == {"int"}:
            return "int"
        if kinds == {"float"}:
            return "float"
        if kinds == {"int", "float"}:
            return "mixed"
        return "other"

    @cached_property
    def values(self) -> np.ndarray:
        """float64 values (NaN for values that are not numbers, or ints too large for a float)."""
        if self.kind == "other":
            return np.array([float(v) if _kind_of(type(v)) != "other" else np.nan for v in self.python], np.float64)
        try:
            return np.array(self.python, dtype=np.float64)
        except OverflowError:  # an int beyond float64
            return np.array([float(v) if abs(v) < 2**1023 else np.nan for v in self.python], np.float64)

    @cached_property
    def exact(self) -> bool:
        """Whether graphgear's float32 weights hold every value exactly (and every value is a finite number). Ints
        must lie within +-2^24 (beyond it float64 may round them before the float32 test could tell)."""
        v = self.values
        if not v.size:
            return True
        if not np.isfinite(v).all():
            return False
        if self.kind in ("int", "mixed") and np.abs(v).max() > _INT_EXACT:
            return False
        with np.errstate(over="ignore"):
            return bool(np.array_equal(v.astype(np.float32).astype(np.float64), v))

    @cached_property
    def minimum(self) -> float:
        """The smallest value (inf without edges)."""
        return float(self.values.min()) if self.values.size else float("inf")

    @cached_property
    def all_one(self) -> bool:
        """Whether every value is 1: the weighted answers are then the unweighted ones."""
        v = self.values
        return bool(v.size == 0 or (v == 1.0).all())

    def refusal(self, *, negative: bool = False, types: bool = True) -> str | None:
        """Why graphgear cannot compute exactly what NetworkX does with these weights, or None. ``negative``: negative
        values are fine; ``types``: NetworkX's result types follow the weights' (int sums stay ints), so a mix of
        ints and floats is refused."""
        if self.kind == "other":
            return "an edge weight is not an int or float number (a bool, a string, a Decimal, ...)"
        if not self.exact:
            return ("an edge weight is not a finite number that float32 holds exactly (graphgear stores float32 "
                    "weights; NetworkX would sum the float64 values)")
        if not negative and self.minimum < 0:
            return "an edge weight is negative"
        if types and self.kind == "mixed":
            return ("the edge weights mix ints and floats (NetworkX's distances are then ints or floats depending on "
                    "the path it finds)")
        return None


def _kind_of(t: type) -> str:
    if issubclass(t, (bool, np.bool_)):
        return "other"
    if issubclass(t, (int, np.integer)):
        return "int"
    if issubclass(t, float):  # float and np.float64: NetworkX then sums in float64, as graphgear does
        return "float"
    return "other"  # np.float32 and the like sum in their own precision


class GearGraph:
    """A NetworkX graph converted for graphgear (``__networkx_backend__ = "graphgear"``).

    Holds the node labels (``nodes``, in the graph's order), the arcs in NetworkX's adjacency order (``offsets``,
    ``targets``: int64), the weight columns asked for, and whatever attributes the conversion preserved, so that
    `to_networkx` gives the graph back (``graph``: the graph attributes, when preserved). `graph_for` builds the
    graphgear `Graph` an algorithm runs on. It answers the few questions NetworkX's decorators and dispatcher ask of
    a graph (is_directed, is_multigraph, len, in, iteration over the nodes).
    """

    __networkx_backend__ = "graphgear"

    def __init__(self, nodes: list[Any], offsets: np.ndarray, targets: np.ndarray, directed: bool, *,
                 weights: dict[tuple[Any, Any], WeightColumn] | None = None, edge_data: list[dict] | None = None,
                 node_data: list[dict] | None = None, node_columns: dict[Any, list[Any]] | None = None,
                 graph: dict | None = None) -> None:
        self.nodes = nodes
        self.offsets = offsets
        self.targets = targets
        self.directed = directed
        self.weights = dict(weights or {})
        self.edge_data = edge_data
        self.node_data = node_data
        self.node_columns = dict(node_columns or {})
        self.graph = dict(graph or {})
        self.index = dict(zip(nodes, range(len(nodes))))
        # integer labels 0..V-1 in order (the usual NetworkX graph): positions are the labels, no lookups needed
        self.plain = len(self.index) == len(nodes) and set(map(type, nodes)) <= {int} and nodes == list(
            range(len(nodes)))
        self._labels: np.ndarray | None = None
        self._graphs: dict[Any, Any] = {}

    # -------------------------------------------------------------------------------- what NetworkX asks of a graph
    def is_directed(self) -> bool:
        """Whether the converted graph was a DiGraph (NetworkX's not_implemented_for decorators ask)."""
        return self.directed

    def is_multigraph(self) -> bool:
        """Always False: multigraphs are not converted."""
        return False

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self) -> Any:
        return iter(self.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:  # unhashable, as networkx.Graph.__contains__
            return False

    def number_of_nodes(self) -> int:
        """Number of nodes, as networkx.Graph.number_of_nodes."""
        return len(self.nodes)

    def number_of_edges(self) -> int:
        """Edges as NetworkX counts them: arcs of a directed graph, unordered pairs (a self-loop once) otherwise."""
        arcs = int(self.offsets[-1])
        if self.directed:
            return arcs
        loops = int(np.count_nonzero(self.targets == np.repeat(np.arange(len(self.nodes)), np.diff(self.offsets))))
        return (arcs - loops) // 2 + loops

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        return f"<graphgear GearGraph: {len(self.nodes):,} nodes, {self.number_of_edges():,} edges, {kind}>"

    # -------------------------------------------------------------------------------- labels
    @property
    def labels(self) -> np.ndarray:
        """The node labels as an object array (positions -> labels by fancy indexing); built on first use."""
        if self._labels is None:
            self._labels = np.fromiter(self.nodes, dtype=object, count=len(self.nodes))
        return self._labels

    def label_list(self, positions: np.ndarray) -> list[Any]:
        """The labels of node positions, as a list of the graph's own objects."""
        return positions.tolist() if self.plain else self.labels[positions].tolist()

    # -------------------------------------------------------------------------------- weights and graphgear graphs
    def column(self, name: Any, default: Any = 1) -> WeightColumn:
        """The edge attribute `name` (edges without it: `default`); computed from the preserved edge data when the
        conversion did not ask for it. NotImplementedError when neither has it (a graph converted for other
        attributes)."""
        key = (name, default)
        if key not in self.weights:
            if self.edge_data is None:
                raise NotImplementedError(f"this graph was converted without the edge attribute {name!r}")
            self.weights[key] = _column(self.edge_data, name, default)
        return self.weights[key]

    def has_column(self, name: Any, default: Any = 1) -> bool:
        """Whether `column` can answer without raising."""
        return (name, default) in self.weights or self.edge_data is not None

    def graph_for(self, weight: Any = None, *, reverse: bool = False) -> Any:
        """The graphgear `Graph` (rows sorted by target, self-loops kept) of this graph: unweighted for weight=None,
        else weighted by that attribute (default 1); ``reverse`` the reversed arcs (the same graph when undirected).
        Built once per (weight, reverse) and kept."""
        key = (weight, reverse and self.directed)
        if key not in self._graphs:
            if key[1]:
                from ..graph.graph import Graph

                offsets, indices, weights = self.graph_for(weight).csc()
                self._graphs[key] = Graph(offsets, indices, weights, directed=True)
            else:
                self._graphs[key] = self._build(None if weight is None else self.column(weight).values)
        return self._graphs[key]

    def _build(self, weights: np.ndarray | None) -> Any:
        from ..graph.graph import Graph

        n = len(self.nodes)
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.offsets))
        # every arc as it is (an undirected graph's adjacency already holds both arcs): built as directed records,
        # then wrapped with the graph's own direction
        built = Graph.from_edges(rows, self.targets, weights, num_vertices=n, directed=True, self_loops="keep",
                                 duplicates="keep", renumber=False)
        if self.directed:
            return built
        return Graph(built.offsets, built.indices, built.weights, directed=False)


def _column(edge_data: Any, name: Any, default: Any) -> WeightColumn:
    """A WeightColumn from the edges' attribute dicts (in arc order), without a Python statement per edge unless some
    edge lacks the attribute."""
    python = list(map(methodcaller("get", name, _MISSING), edge_data))
    present = None
    if any(map(is_, python, repeat(_MISSING))):  # by identity: a value's own == may not return a bool
        present = np.fromiter((v is not _MISSING for v in python), dtype=bool, count=len(python))
        python = [default if v is _MISSING else v for v in python]
    return WeightColumn(python, present)


def from_networkx(G: Any, edge_attrs: dict | None = None, node_attrs: dict | None = None,
                  preserve_edge_attrs: bool = False, preserve_node_attrs: bool = False,
                  preserve_graph_attrs: bool = False) -> GearGraph:
    """Convert a NetworkX Graph or DiGraph (NetworkX's ``convert_from_nx`` arguments): ``edge_attrs`` {name: default}
    become weight columns; ``preserve_edge_attrs`` / ``preserve_node_attrs`` True keep every edge / node attribute
    (for `to_networkx`); ``node_attrs`` {name: default} keeps those node attributes. Multigraphs are refused
    (NotImplementedError, so NetworkX runs the call itself)."""
    if isinstance(G, GearGraph):
        return G
    if G.is_multigraph():
        raise NotImplementedError("graphgear does not convert multigraphs")
    adj = G._adj
    nodes = list(adj)
    n = len(nodes)
    index = dict(zip(nodes, range(n)))
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, adj.values()), dtype=np.int64, count=n), out=offsets[1:])
    arcs = int(offsets[-1])
    targets = np.fromiter(map(index.__getitem__, chain.from_iterable(adj.values())), dtype=np.int64, count=arcs)
    edge_data = None
    weights: dict[tuple[Any, Any], WeightColumn] = {}
    if preserve_edge_attrs or edge_attrs:
        data = list(chain.from_iterable(map(methodcaller("values"), adj.values())))
        if preserve_edge_attrs:
            edge_data = data
        for name, default in (edge_attrs or {}).items():
            weights[(name, default)] = _column(data, name, default)
    node_data = node_columns = None
    if preserve_node_attrs or node_attrs:
        attrs = list(G._node.values()) if list(G._node) == nodes else [G._node[v] for v in nodes]
        if preserve_node_attrs:
            node_data = attrs
        else:
            node_columns = {name: list(map(methodcaller("get", name, _MISSING if default is None else default),
                                           attrs)) for name, default in node_attrs.items()}
    return GearGraph(nodes, offsets, targets, G.is_directed(), weights=weights, edge_data=edge_data,
                     node_data=node_data, node_columns=node_columns,
                     graph=G.graph if preserve_graph_attrs else None)


def to_networkx(g: GearGraph) -> Any:
    """The NetworkX Graph or DiGraph of a converted graph: its nodes in order with the node attributes kept, its edges
    (each adjacency row in NetworkX's order) with the edge attributes kept (every one when the conversion preserved
    them all, else the weight columns, set only on the edges that carried them), and the graph attributes."""
    import networkx as nx

    H = nx.DiGraph() if g.directed else nx.Graph()
    H.graph.update(g.graph)
    if g.node_data is not None:
        H.add_nodes_from(zip(g.nodes, map(dict, g.node_data)))
    elif g.node_columns:
        attrs: list[dict] = [{} for _ in g.nodes]
        for name, values in g.node_columns.items():
            for d, value in zip(attrs, values):
                if value is not _MISSING:
                    d[name] = value
        H.add_nodes_from(zip(g.nodes, attrs))
    else:
        H.add_nodes_from(g.nodes)
    n = len(g.nodes)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(g.offsets))
    keep = slice(None) if g.directed else np.flatnonzero(rows <= g.targets)  # an undirected edge once
    src = g.label_list(rows[keep])
    dst = g.label_list(g.targets[keep])
    if g.edge_data is not None:
        data = g.edge_data if g.directed else [g.edge_data[i] for i in keep.tolist()]
        H.add_edges_from(zip(src, dst, map(dict, data)))
        return H
    attrs = [{} for _ in src]
    for (name, _default), column in g.weights.items():
        values = column.python if g.directed else [column.python[i] for i in keep.tolist()]
        present = None if column.present is None else (column.present if g.directed else column.present[keep])
        for i, (d, value) in enumerate(zip(attrs, values)):
            if present is None or present[i]:
                d[name] = value
    H.add_edges_from(zip(src, dst, attrs))
    return H

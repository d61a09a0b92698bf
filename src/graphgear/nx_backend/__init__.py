"""graphgear as a NetworkX backend: ``nx.pagerank(G, backend="graphgear")``, or every call through
``nx.config.backend_priority = ["graphgear"]``.

NetworkX finds the backend by the entry point ``networkx.backends: graphgear = graphgear.nx_backend:BackendInterface``
and reads what it implements from ``_graphgear_nx.get_info`` (a module of plain data: NetworkX reads it on every
import). The backend is thin: `convert_from_nx` reads the graph once (graph.py; NetworkX caches the result on the
graph), each function maps NetworkX's arguments onto a graphgear public function (gg.bfs, gg.sssp, gg.pagerank,
gg.betweenness_centrality, gg.connected_components, gg.strongly_connected_components) and turns its arrays into
NetworkX's return types, with NetworkX's errors. Where NetworkX defines an output by the order of its adjacency
dicts (which parent discovers a vertex in bfs_edges, bfs_tree, bfs_layers and single_source_shortest_path; the order
strongly_connected_components yields its components in), one compiled pass over the arcs in that order reproduces
it (traversal.discovery, components._dfs_times): graphgear's algorithms break those ties another way. `can_run`
declines what graphgear cannot answer exactly (NetworkX then runs the call itself where fallback is allowed);
_graphgear_nx lists every difference.

The device: ``nx.config.backends.graphgear.device`` ("auto": CUDA when CuPy sees a GPU, else the CPU; "cpu";
"cuda"), or ``device=`` on one call.
"""

from __future__ import annotations

from typing import Any

from . import centrality, components, link_analysis, shortest_paths, traversal  # noqa: F401  (they register)
from .dispatch import FUNCTIONS, can_run
from .graph import GearGraph, from_networkx, to_networkx

__all__ = ["FUNCTIONS", "BackendInterface", "GearGraph"]


def _convert_from_nx(graph: Any, edge_attrs: dict | None = None, node_attrs: dict | None = None,
                     preserve_edge_attrs: bool = False, preserve_node_attrs: bool = False,
                     preserve_graph_attrs: bool = False, name: str | None = None,
                     graph_name: str | None = None) -> GearGraph:
    """NetworkX's ``convert_from_nx``: a GearGraph of `graph` with the attributes asked for (see graph.py)."""
    return from_networkx(graph, edge_attrs, node_attrs, preserve_edge_attrs, preserve_node_attrs,
                         preserve_graph_attrs)


def _convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
    """NetworkX's ``convert_to_nx``: a GearGraph back as a NetworkX graph; anything else (a result) as it is."""
    return to_networkx(obj) if isinstance(obj, GearGraph) else obj


def _should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """NetworkX's ``should_run``: graphgear runs whatever it can run (NetworkX's automatic dispatch then always picks
    it when it is in ``backend_priority``)."""
    return True


class BackendInterface:
    """The object NetworkX loads: one attribute per implemented function, and the dispatch protocol's hooks."""

    convert_from_nx = staticmethod(_convert_from_nx)
    convert_to_nx = staticmethod(_convert_to_nx)
    can_run = staticmethod(can_run)
    should_run = staticmethod(_should_run)
    # no on_start_tests: NetworkX's tests of the implemented functions pass as they are (no skip or xfail needed)


for _name, _function in FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_function))
del _name, _function

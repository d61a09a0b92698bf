"""What NetworkX reads about the graphgear backend when it is imported (entry point ``networkx.backend_info``).

Kept apart from the graphgear package so that ``import networkx`` does not import graphgear (numba, its kernels): it
only says which functions the backend implements and how each differs from NetworkX, as plain data.
graphgear.nx_backend holds the backend itself; tests/test_nx_backend.py checks that FUNCTIONS here names exactly the
functions graphgear.nx_backend implements.

Common to every function (stated once here, and in each function's notes where it bites): multigraphs and callable
weights are declined (NetworkX runs the call); graphgear stores float32 weights and sums them in float64, so weights
that float32 does not hold exactly (0.1, ints beyond 2^24), that are not finite, or are bools, strings, Decimals,
NumPy float32 values, are declined; numbers come back as Python ints and floats (NetworkX returns NumPy scalars where
the weights were NumPy scalars).
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["FUNCTIONS", "get_info"]

_DEVICE = {"device : str, optional": 'Where graphgear runs this call: "cpu", "cuda" or "auto" (the GPU when CuPy sees '
                                     'one). Default: nx.config.backends.graphgear.device.'}

_WEIGHTS = ("Weights: declined when an edge's weight is not an int or a float that float32 holds exactly (graphgear "
            "stores float32 weights, summed in float64), or is negative.")
_DIJKSTRA_TYPES = ("Distances keep NetworkX's types: ints for int weights, floats for float weights, the source's "
                   "int 0; weights mixing ints and floats (an edge without the attribute counts the int 1) are "
                   "declined, since NetworkX's type then depends on the path it finds.")
_DICT_ORDER = ("The dict lists nodes by increasing distance, ties in the graph's node order (NetworkX: ties in the "
               "order its search meets them); the dicts compare equal.")
_BFS_ORDER = ("The edges, parents and orders are NetworkX's exactly: one first-in-first-out pass over the arcs in "
              "NetworkX's adjacency order (compiled, on the CPU). Declined: sort_neighbors (a Python callable), and "
              "reverse=True on a directed graph (NetworkX orders predecessors by when the edges were added, which the "
              "conversion does not read).")
_BELLMAN_FORD = ("Runs graphgear's SSSP, so negative weights (and NetworkX's negative-cycle detection) are declined; "
                 "with non-negative weights Bellman-Ford's lengths are Dijkstra's.")
_COMPONENTS = "Components come in the order of their first node in the graph's node order, as NetworkX yields them."
_POINTLESS = "NetworkXPointlessConcept for the null graph, as NetworkX."

# name -> additional_docs (extra_parameters: device, for all)
_DOCS: dict[str, str] = {
    # traversal
    "bfs_edges": _BFS_ORDER,
    "bfs_tree": _BFS_ORDER,
    "bfs_predecessors": _BFS_ORDER,
    "bfs_successors": _BFS_ORDER,
    "bfs_layers": "Layers in NetworkX's order (the first-in-first-out pass over NetworkX's adjacency order).",
    "descendants_at_distance": "graphgear's BFS (hop distances).",
    "descendants": "graphgear's BFS (hop distances).",
    "ancestors": "graphgear's BFS over the reversed arcs.",
    # unweighted shortest paths
    "single_source_shortest_path_length": f"graphgear's BFS. {_DICT_ORDER}",
    "single_target_shortest_path_length": f"graphgear's BFS over the reversed arcs. {_DICT_ORDER}",
    "all_pairs_shortest_path_length": f"graphgear's BFS from every node, one at a time. {_DICT_ORDER}",
    "single_source_shortest_path": ("NetworkX's paths exactly (BFS parents in NetworkX's adjacency order, by the "
                                    "first-in-first-out pass), in NetworkX's order."),
    "shortest_path": ("Unweighted paths from a source (or to a target in an undirected graph), NetworkX's exactly. "
                      "Declined: weighted paths (Dijkstra's heap order picks among equal paths), a source-target "
                      "path (NetworkX's bidirectional search picks among equal paths), all pairs, paths to a target "
                      "in a directed graph."),
    "shortest_path_length": (f"Every form (from a source, to a target, between two nodes, all pairs), by graphgear's "
                             f"BFS or SSSP; method='bellman-ford' runs graphgear's SSSP. {_WEIGHTS} "
                             f"{_DIJKSTRA_TYPES} {_DICT_ORDER}"),
    "has_path": "graphgear's BFS from the source (NetworkX: a bidirectional search).",
    # weighted shortest paths
    "dijkstra_path_length": f"graphgear's SSSP (near-far delta-stepping). {_WEIGHTS} {_DIJKSTRA_TYPES}",
    "single_source_dijkstra_path_length": (f"graphgear's SSSP (near-far delta-stepping). {_WEIGHTS} "
                                           f"{_DIJKSTRA_TYPES} {_DICT_ORDER}"),
    "all_pairs_dijkstra_path_length": (f"graphgear's SSSP from every node, one at a time. {_WEIGHTS} "
                                       f"{_DIJKSTRA_TYPES} {_DICT_ORDER}"),
    "bellman_ford_path_length": f"{_BELLMAN_FORD} {_WEIGHTS} {_DIJKSTRA_TYPES}",
    "single_source_bellman_ford_path_length": f"{_BELLMAN_FORD} {_WEIGHTS} {_DIJKSTRA_TYPES} {_DICT_ORDER}",
    "all_pairs_bellman_ford_path_length": f"{_BELLMAN_FORD} {_WEIGHTS} {_DIJKSTRA_TYPES} {_DICT_ORDER}",
    # link analysis
    "pagerank": ("graphgear's power iteration, NetworkX's _pagerank_scipy step for step in float64 (the ranks agree "
                 "to rounding). Declined: weights that are negative or that float32 does not hold exactly (graphgear "
                 "stores float32 weights: the ranks would move by about 1e-8); personalization, nstart or dangling "
                 "values that are negative or not finite numbers; nstart or dangling summing to 0 over the nodes; "
                 "alpha outside (0, 1]; tol not positive and finite; max_iter not an int."),
    # centrality
    "betweenness_centrality": ("graphgear's Brandes: the same sources as NetworkX (k samples NetworkX's "
                               "seed.sample(list(G), k) from the same random state), the same endpoints and "
                               "rescaling; values agree to rounding. weight: hop counts when every weight is 1, "
                               "weighted shortest paths (Brandes over graphgear's float64 Dijkstra distances) for "
                               "positive weights float32 holds exactly; declined otherwise, zero weights included "
                               "(NetworkX counts the paths through zero-weight arcs in its heap order). Declined: k "
                               "not an int in 1..len(G)."),
    # components
    "connected_components": f"graphgear's connected components (Afforest / label propagation). {_COMPONENTS}",
    "number_connected_components": "graphgear's connected components.",
    "is_connected": f"graphgear's connected components. {_POINTLESS}",
    "node_connected_component": "graphgear's BFS from the node (KeyError for a missing node, as NetworkX).",
    "weakly_connected_components": f"graphgear's connected components of the directed graph. {_COMPONENTS}",
    "number_weakly_connected_components": "graphgear's connected components of the directed graph.",
    "is_weakly_connected": f"graphgear's connected components of the directed graph. {_POINTLESS}",
    "strongly_connected_components": ("graphgear's Multistep (trim, forward-backward, coloring). The components "
                                      "come in the order of their first node in the graph's node order; NetworkX "
                                      "yields them in the order its depth-first search completes them (a reverse "
                                      "topological order of the condensation). The sets are the same."),
    "number_strongly_connected_components": "graphgear's Multistep.",
    "is_strongly_connected": f"graphgear's Multistep. {_POINTLESS}",
}

FUNCTIONS: tuple[str, ...] = tuple(sorted(_DOCS))
"""The NetworkX functions graphgear implements (graphgear.nx_backend.FUNCTIONS has exactly these)."""


def _default_config() -> Any:
    """The backend's config, ``nx.config.backends.graphgear``: ``device`` ("auto", "cpu" or "cuda"; the environment
    variable GRAPHGEAR_NX_DEVICE sets its starting value). A NetworkX Config that refuses other values."""
    start = os.environ.get("GRAPHGEAR_NX_DEVICE", "auto")
    try:
        from networkx.utils.configs import Config
    except ImportError:  # pragma: no cover - NetworkX before 3.3
        return {"device": start}

    class GraphgearConfig(Config):
        """graphgear's NetworkX backend configuration.

        device : str
            Where graphgear runs: "auto" (CUDA when CuPy sees a GPU, else the CPU), "cpu" or "cuda".
        """

        device: str

        def _on_setattr(self, key: str, value: Any) -> Any:
            if key == "device" and value not in ("auto", "cpu", "cuda"):
                raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {value!r}")
            return value

    return GraphgearConfig(device=start)  # a bad GRAPHGEAR_NX_DEVICE raises: NetworkX warns that the info failed


def get_info() -> dict[str, Any]:
    """The backend's description for NetworkX: the functions it implements, each with its differences from
    NetworkX and its extra parameter, and its default configuration."""
    return {
        "backend_name": "graphgear",
        "project": "graphgear",
        "package": "graphgear",
        "url": "https://github.com/graphgear/graphgear",
        "short_summary": "GPU (CUDA) and CPU graph analytics that pick the execution path every iteration.",
        "functions": {name: {"additional_docs": _DOCS[name], "extra_parameters": dict(_DEVICE)} for name in FUNCTIONS},
        "default_config": _default_config(),
    }

"""`partition`: a graph cut over the workers of a Dask client (graph.py's model), from a single-process Graph (its
rows scattered from the client) or built by the workers from a file or generator spec (readers.py)."""

from __future__ import annotations

import os
from typing import Any

from ..errors import BackendError, GraphError, MissingExtraError
from ..graph.graph import Graph, described
from . import readers, runtime
from .graph import BACKENDS, DistributedGraph, arcs_per_vertex, balanced_bounds, parts_of

__all__ = ["partition", "scatter"]


def _workers(client: Any, workers: Any) -> list[str]:
    known = sorted(client.nthreads())  # every worker the scheduler knows, asked of it now
    if workers is None:
        if not known:
            raise BackendError("the Dask cluster has no workers")
        return known
    chosen = list(workers)
    missing = [w for w in chosen if w not in known]
    if missing or not chosen:
        raise GraphError(f"workers must be addresses of the client's workers ({', '.join(known)}), got "
                         f"{described(workers)}")
    return chosen


def _backend(client: Any, workers: list[str], backend: str) -> tuple[str, list[int]]:
    """(the workers' backend, how many GPUs each sees: [] unasked for "cpu")."""
    if backend not in BACKENDS:
        raise GraphError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "cpu":
        return "cpu", []
    kinds = client.run(runtime.worker_kind, workers=workers)
    gpus = [kinds[w]["gpus"] for w in workers]
    if backend == "cuda" and min(gpus) == 0:
        bare = [w for w, g in zip(workers, gpus) if g == 0]
        raise BackendError(f"backend='cuda' but these workers see no GPU (CuPy and a driver): {', '.join(bare)}")
    return ("cuda" if min(gpus) > 0 else "cpu"), gpus


def partition(graph_or_path: Any, client: Any, *, backend: str = "auto", workers: Any = None,
              directed: bool | None = None) -> DistributedGraph:
    """A graph partitioned over the client's workers (one part each; see the module notes).

    ``graph_or_path``: a Graph (or anything ``gg.load`` / the algorithms take: a NetworkX graph, a SciPy matrix, an
    edge table) is scattered from this process; a path is read by the workers in parallel where its format allows
    (an edge list: each worker its byte range; graphgear's .npz: each worker its rows; a ``kron:``/``rmat:`` spec:
    each worker its share of the records), else loaded here and scattered. ``client``: a dask.distributed Client.
    ``backend``: "cuda" keeps each part on its worker's GPU (NCCL between them), "cpu" in host memory (TCP), "auto"
    the GPU where every worker has one. ``workers``: which workers (addresses), all by default, one rank each in
    that order. ``directed`` as for ``gg.load``."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise MissingExtraError("graphgear.distributed needs dask.distributed, which is not installed: "
                                "pip install 'graphgear[distributed]'") from None
    if not hasattr(client, "submit") or not hasattr(client, "nthreads"):
        raise GraphError(f"client must be a dask.distributed.Client, got {described(client)}")
    chosen = _workers(client, workers)
    kind, gpus = _backend(client, chosen, backend)
    dg = DistributedGraph(client, chosen, kind, gpus)
    try:
        if isinstance(graph_or_path, (str, os.PathLike)) and readers.read_in_parallel(dg, graph_or_path, directed):
            return dg
        from ..graph.convert import as_graph

        g = as_graph(graph_or_path)
        if directed is not None and bool(directed) != g.directed:
            from ..graph.io import _with_direction

            g = _with_direction(g, directed)
        scatter(dg, g)
    except BaseException:
        dg.close()
        raise
    return dg


def scatter(dg: DistributedGraph, g: Graph) -> None:
    """Parts of a single-process Graph sent from the client, one to each worker."""
    dg.bounds = balanced_bounds(arcs_per_vertex(g), dg.size)
    parts = parts_of(g, dg.bounds)
    dg.parts = [dg.client.scatter(p, workers=[w], broadcast=False, direct=None, hash=False)
                for p, w in zip(parts, dg.workers)]
    dg.num_vertices, dg.num_arcs, dg.directed = g.num_vertices, g.num_arcs, g.directed
    dg.weighted, dg.vertex_ids, dg.name = g.weighted, g.vertex_ids, g.name

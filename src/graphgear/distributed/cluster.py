"""A Dask cluster on this machine for a distributed run (the CLI's ``--workers N``, benchmarks, tests)."""

from __future__ import annotations

from typing import Any

from ..errors import GraphError, MissingExtraError

__all__ = ["local_cluster"]


def local_cluster(workers: int, backend: str = "cpu", *, processes: bool = True) -> Any:
    """A dask.distributed Client of `workers` local workers, one thread each (a rank's kernels are parallel
    themselves). ``backend="cuda"``: one worker per GPU, by dask-cuda's LocalCUDACluster where it is installed
    (each worker sees only its GPU), else a LocalCluster whose rank r takes GPU r. ``processes=False`` runs the
    workers as threads of this process (quick to start: tests)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise GraphError(f"workers must be a whole number >= 1, got {workers!r}")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MissingExtraError("a distributed run needs dask.distributed, which is not installed: "
                                "pip install 'graphgear[distributed]'") from None
    if backend == "cuda" and processes:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            LocalCUDACluster = None
        if LocalCUDACluster is not None:
            cluster = LocalCUDACluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0")
            return Client(cluster)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=":0")
    return Client(cluster)

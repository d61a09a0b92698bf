"""graphgear past one GPU: graphs partitioned over Dask workers, NCCL between GPUs (issue "Past one GPU").

    from dask.distributed import Client
    import graphgear as gg
    client = Client(...)                          # dask_cuda.LocalCUDACluster(): one worker per GPU
    dg = gg.distributed.partition("kron:25", client)
    gg.bfs(dg, 0).distances                       # the same calls, the same results as on one Graph
    gg.pagerank(dg).ranks; gg.connected_components(dg).labels; gg.sssp(dg, 0).distances

`partition` cuts the graph into one part per worker (partition.py: a 1D partition by source-vertex ranges balanced
by arcs), built by the workers themselves where the input allows (readers.py) or scattered from this process. Each
algorithm runs SPMD, one task per worker (runtime.py), exchanging vertex arrays by collectives (comm.py: NCCL on GPU
workers, TCP on CPU ones). docs/distributed.md has the design, its communication volumes and how it scales.
Needs the ``[distributed]`` extra (dask.distributed; dask-cuda for one worker per GPU).
"""

from __future__ import annotations

from .cluster import local_cluster
from .graph import DistributedGraph, is_distributed
from .partition import partition

__all__ = ["partition", "DistributedGraph", "is_distributed", "local_cluster"]

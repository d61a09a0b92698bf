"""The worker side of a distributed run: one `Rank` per worker, kept between calls, and the SPMD launch.

A distributed graph is bound to P Dask workers, rank r to the r-th. Its first call opens the ranks' collectives in two
rounds of tasks, one task per worker each: `listen` opens a TCP listener (and, on GPUs, rank 0 draws NCCL's unique
id); `connect` joins the TCP mesh and the NCCL communicator (every rank at once, as NCCL requires). The `Rank` stays
in the worker's process (`_RANKS`, keyed by the graph and the rank) with the device copies of its part, so later
calls pay for neither. `spmd` then runs one function on every rank at once (one task each, pinned to its worker) and
returns the ranks' results in rank order: the Single Program, Multiple Data style that NCCL and MPI programs follow,
with Dask as the launcher rather than as a task graph.
"""

from __future__ import annotations

import os
import socket
import threading
from dataclasses import dataclass, field
from typing import Any, Callable
from urllib.parse import urlparse

import numba
import numpy as np

from ..errors import BackendError
from .comm import HostCollectives, NcclCollectives, open_listener

__all__ = ["Rank", "listen", "connect", "run_on_rank", "release", "worker_kind"]

_RANKS: dict[tuple[str, int], Rank] = {}
_LISTENERS: dict[tuple[str, int], Any] = {}
_LOCK = threading.Lock()


@dataclass
class Rank:
    """One rank of a distributed graph inside its worker: its collectives, array module and cached device arrays."""

    rank: int
    size: int
    backend: str  # "cpu" or "cuda"
    host: HostCollectives  # TCP, NumPy arrays: building parts, small host exchanges
    comm: Any  # the collectives of the run's arrays: NcclCollectives on GPUs, the host mesh on CPUs
    device: int = 0
    cache: dict[str, Any] = field(default_factory=dict)
    neighbours: int = 1  # ranks on this rank's host, itself included: they share its cores

    @property
    def threads(self) -> int:
        """This rank's share of its host's cores (at least 1): the ranks of one host run their parallel loops at
        the same moments (a build's phases, an algorithm's rounds), and each taking every core would oversubscribe
        them P times over."""
        return max(1, (os.cpu_count() or 1) // max(self.neighbours, 1))

    @property
    def xp(self) -> Any:
        if self.backend == "cuda":
            import cupy

            return cupy
        return np

    def close(self) -> None:
        self.cache.clear()
        if self.comm is not self.host:
            self.comm.close()
        self.host.close()


def _worker_host() -> str:
    """The address this worker's peers reach it at: its Dask address's host (127.0.0.1 on a LocalCluster)."""
    try:
        from distributed import get_worker

        host = urlparse(get_worker().address).hostname
    except (ImportError, ValueError):
        host = None
    return host or socket.gethostbyname(socket.gethostname())


def worker_kind() -> dict[str, Any]:
    """What a worker can run: how many GPUs it sees (0 without CuPy or a driver). Never imports numba.cuda."""
    try:
        import cupy

        gpus = int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no CuPy, no driver, no device: a CPU worker
        gpus = 0
    return {"gpus": gpus, "pid": os.getpid(), "host": _worker_host()}


def listen(key: str, rank: int, backend: str, authkey: bytes) -> tuple[tuple[str, int], Any, str]:
    """Round one: open this rank's listener; rank 0 of a GPU run also draws NCCL's unique id. Also says which GPU
    this worker's device 0 is (its PCI bus id), so the client can tell one-GPU-per-worker clusters from others."""
    listener, address = open_listener(_worker_host(), authkey)
    with _LOCK:
        _LISTENERS[(key, rank)] = listener
    unique_id, first_gpu = None, ""
    if backend == "cuda":
        import cupy
        from cupy.cuda import nccl

        first_gpu = f"{_worker_host()}/{cupy.cuda.Device(0).pci_bus_id}"
        if rank == 0:
            if not nccl.available:
                raise BackendError("CuPy was built without NCCL (cupy.cuda.nccl.available is False): GPU workers "
                                   "need it")
            unique_id = nccl.get_unique_id()
    return address, unique_id, first_gpu


def devices(first_gpus: list[str], counts: list[int]) -> list[int]:
    """The device each rank takes: device 0 where every worker's device 0 is another GPU (dask-cuda puts each
    worker's own GPU first in its CUDA_VISIBLE_DEVICES), else device rank % visible GPUs (workers that see the same
    GPUs in the same order, one host's LocalCluster)."""
    if len(set(first_gpus)) == len(first_gpus):
        return [0] * len(first_gpus)
    return [r % max(c, 1) for r, c in enumerate(counts)]


def connect(key: str, rank: int, size: int, backend: str, addresses: list[tuple[str, int]], authkey: bytes,
            unique_id: Any, device: int) -> bool:
    """Round two: join the TCP mesh and, on GPUs, the NCCL communicator on `device` (see `devices`)."""
    with _LOCK:
        listener = _LISTENERS.pop((key, rank), None)
    host = HostCollectives(rank, size, listener, addresses, authkey)
    comm: Any = host
    if backend == "cuda":
        import cupy

        with cupy.cuda.Device(device):
            comm = NcclCollectives(rank, size, unique_id)
    neighbours = sum(h == addresses[rank][0] for h, _ in addresses)
    with _LOCK:
        _RANKS[(key, rank)] = Rank(rank, size, backend, host, comm, device, neighbours=neighbours)
    return True


def run_on_rank(key: str, rank: int, fn: Callable[..., Any], part: Any, *args: Any) -> Any:
    """Run `fn(ctx, part, *args)` on this worker's rank of graph `key` (on its GPU for a GPU run)."""
    ctx = _RANKS.get((key, rank))
    if ctx is None:
        raise BackendError(f"rank {rank} of distributed graph {key} is not open on this worker (was it closed, or the "
                           "worker restarted?)")
    numba.set_num_threads(min(ctx.threads, numba.config.NUMBA_NUM_THREADS))  # for this thread's parallel loops only
    if ctx.backend == "cuda":
        import cupy

        with cupy.cuda.Device(ctx.device):
            out = fn(ctx, part, *args)
            cupy.cuda.get_current_stream().synchronize()
            return out
    return fn(ctx, part, *args)


def release(key: str, rank: int) -> bool:
    """Close this rank's collectives and drop its device arrays."""
    with _LOCK:
        ctx = _RANKS.pop((key, rank), None)
        listener = _LISTENERS.pop((key, rank), None)
    if listener is not None:
        listener.close()
    if ctx is not None:
        ctx.close()
    return ctx is not None


@dataclass
class Local:
    """A rank's part on its device (NumPy or CuPy arrays), with what every algorithm reads: out-degrees and the
    ranks' vertex counts. Made once per rank and kept in its cache."""

    lo: int
    hi: int
    n: int
    counts: np.ndarray  # vertices per rank (host)
    offsets: Any
    indices: Any
    weights: Any
    in_offsets: Any
    in_indices: Any
    in_weights: Any
    out_degree: Any  # int64[size]
    arcs: int = 0  # the rank's out-arcs

    @property
    def size(self) -> int:
        return self.hi - self.lo


def local(ctx: Rank, part: Any) -> Local:
    """`part`'s arrays on the rank's device, copied there on the first call and kept."""
    cached = ctx.cache.get("local")
    if cached is not None:
        return cached
    xp = ctx.xp

    def put(a: Any) -> Any:
        return None if a is None else xp.asarray(a)

    in_offsets, in_indices, in_weights = part.csc()
    offsets = put(part.offsets)
    in_same = not part.directed
    made = Local(part.lo, part.hi, part.n, np.diff(np.asarray(part.bounds)), offsets, put(part.indices),
                 put(part.weights), offsets if in_same else put(in_offsets),
                 None if in_same else put(in_indices), None if in_same else put(in_weights),
                 xp.diff(offsets).astype(np.int64), int(part.offsets[-1]) if len(part.offsets) else 0)
    if in_same:
        made.in_indices, made.in_weights = made.indices, made.weights
    ctx.cache["local"] = made
    return made


def to_host(ctx: Rank, array: Any) -> np.ndarray:
    """A rank's array on the host (what a rank returns to the client)."""
    if ctx.backend == "cuda":
        import cupy

        return cupy.asnumpy(array)
    return np.asarray(array)

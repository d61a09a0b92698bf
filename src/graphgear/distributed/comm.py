"""Collectives between the ranks of a distributed run: NCCL on GPUs, a TCP mesh on CPUs.

Every rank of a run holds one part of the graph (partition.py) and runs the same loop; between the steps of that loop
the ranks exchange vertex arrays with the collectives below, named as NCCL and MPI name them:

    allgatherv      each rank contributes its slice of a vertex array, every rank receives the whole array
                    (BFS's frontier bitmap, PageRank's contributions, CC's labels)
    allreduce       an elementwise sum / min / max over the ranks (counts, a convergence test, a global min)
    reduce_scatter  every rank contributes a whole vertex array, each receives the reduction of its own slice
                    (SSSP's tentative distances)
    alltoall        every rank sends block p of an array of equal blocks to rank p and receives one block from each
                    (BFS's top-down discoveries, as bits: the owner ORs the blocks it receives)
    alltoallv       each rank sends a list of arrays, one to every rank (edge records to the owner of their source,
                    when a part is built on the workers); host memory only

`NcclCollectives` runs them on the GPU through CuPy's NCCL bindings (cupy.cuda.nccl), as NCCL's own allgather and
reduce-scatter. The ranks' slices may differ in size, so each travels padded to the largest: on equal ranges, which
graph.balanced_bounds prefers, the padded layout is the array's own and nothing is copied; otherwise the slices are
copied into place. cuGraph's raft comms send one broadcast or reduce per rank in a group instead, as this module did
first, which moved PageRank's allgather more slowly (docs/distributed.md has both measurements).

`HostCollectives` runs them on NumPy arrays over a full mesh of TCP connections made with the standard library's
multiprocessing.connection (authenticated with a key the client draws), so that every distributed algorithm runs, and
is tested, on CPU workers, and a GPU run builds its parts on the host first.
"""

from __future__ import annotations

import os
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Client, Connection, Listener
from typing import Any

import numpy as np

from ..errors import BackendError

__all__ = ["HostCollectives", "NcclCollectives", "open_listener"]

_NUMPY_REDUCE = {"sum": np.add, "min": np.minimum, "max": np.maximum}
WAIT_SECONDS = 3600.0  # a peer silent this long is taken for dead (a rank that failed outside a collective)


def open_listener(host: str, authkey: bytes) -> tuple[Listener, tuple[str, int]]:
    """A listening socket on `host` (any free port) for the mesh, and its address for the other ranks."""
    listener = Listener((host, 0), authkey=authkey)
    return listener, listener.address


def _no_delay(conn: Connection) -> None:
    """Send small messages at once (TCP_NODELAY): a collective's header and data are two writes, and Nagle's wait
    for the first one's acknowledgement (delayed by the peer) would cost tens of milliseconds each round."""
    sock = socket.socket(fileno=os.dup(conn.fileno()))
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    finally:
        sock.close()


def _in_place(counts: list[int]) -> bool:
    """Whether every rank but the last holds the most elements: the ranks' slices, each padded to the most, then lie
    where the whole array has them (the padding only after the last), as NCCL's equal-count collectives lay them."""
    most = max(counts)
    return all(c == most for c in counts[:-1])


def _into(out: np.ndarray | None, whole: np.ndarray) -> np.ndarray:
    """`whole`, or its copy at the front of `out` (the caller's buffer) when given."""
    if out is None:
        return whole
    out[:whole.size] = whole
    return out[:whole.size]


class HostCollectives:
    """The collectives on NumPy arrays over TCP: every pair of ranks holds one connection. Rank r connects to every
    lower rank (each has finished its own connections by then and is accepting) and accepts every higher one, so the
    mesh forms without a coordinator."""

    def __init__(self, rank: int, size: int, listener: Listener | None, addresses: list[tuple[str, int]],
                 authkey: bytes) -> None:
        self.rank, self.size = rank, size
        self.peers: dict[int, Connection] = {}
        for p in range(rank):
            conn = Client(tuple(addresses[p]), authkey=authkey)
            conn.send(rank)
            self.peers[p] = conn
        for _ in range(rank + 1, size):
            assert listener is not None
            conn = listener.accept()
            self.peers[int(conn.recv())] = conn
        if listener is not None:
            listener.close()
        for conn in self.peers.values():
            _no_delay(conn)
        self._pool = ThreadPoolExecutor(max_workers=2 * (size - 1)) if size > 1 else None  # sends and receives
        self._lock = threading.Lock()

    # ------------------------------------------------------------------------------------------------ point to point
    @staticmethod
    def _send(conn: Connection, array: np.ndarray) -> None:
        array = np.ascontiguousarray(array)
        conn.send((array.dtype.str, array.shape))
        if array.size:
            conn.send_bytes(array.reshape(-1).view(np.uint8))

    def _recv(self, p: int, into: np.ndarray | None = None) -> np.ndarray:
        """The next array rank p sent (into the front of the 1-D `into` when given)."""
        conn = self.peers[p]
        if not conn.poll(WAIT_SECONDS):
            raise BackendError(f"rank {self.rank}: rank {p} sent nothing for {WAIT_SECONDS:.0f} s (did it fail?)")
        dtype, shape = conn.recv()
        if into is None:
            out = np.empty(shape, dtype=np.dtype(dtype))
        else:
            size = int(np.prod(shape))
            if np.dtype(dtype) != into.dtype or size > into.size:
                raise BackendError(f"rank {self.rank}: rank {p} sent {size:,} of {dtype}, expected at most "
                                   f"{into.size:,} of {into.dtype}")
            out = into[:size]
        if out.size:
            conn.recv_bytes_into(out.reshape(-1).view(np.uint8))
        return out

    def alltoallv(self, pieces: list[np.ndarray], out: np.ndarray | None = None,
                  sizes: Any = None) -> list[np.ndarray]:
        """pieces[p] goes to rank p; returns what every rank sent to this one (its own piece as it is). With `out`
        and `sizes` (how many elements each rank sends here), every peer's piece is received at once, on its own
        thread, straight into its place in the 1-D `out`, one after another in rank order, and the pieces are
        returned as its slices: nothing else is allocated for them. The sends run on threads while the pieces are
        received, so large pieces cannot fill both sockets' buffers and stall."""
        if len(pieces) != self.size:
            raise ValueError(f"alltoallv needs {self.size} pieces, got {len(pieces)}")
        if (out is None) != (sizes is None):
            raise ValueError("alltoallv takes `out` and `sizes` together")
        if out is not None:
            return self._alltoallv_placed(pieces, out, [int(x) for x in sizes])
        with self._lock:
            sends = [self._pool.submit(self._send, self.peers[p], pieces[p]) for p in self.peers] if self._pool else []
            got = [pieces[p] if p == self.rank else self._recv(p) for p in range(self.size)]
            for s in sends:
                s.result()
        return got

    def _alltoallv_placed(self, pieces: list[np.ndarray], out: np.ndarray, sizes: list[int]) -> list[np.ndarray]:
        edges = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        if int(edges[-1]) > out.size or pieces[self.rank].size != sizes[self.rank]:
            raise ValueError(f"rank {self.rank}: {int(edges[-1]):,} elements to receive into {out.size:,}")
        places = [out[edges[p]:edges[p + 1]] for p in range(self.size)]

        def receive(p: int) -> None:
            got = self._recv(p, places[p])
            if got.size != sizes[p]:
                raise BackendError(f"rank {self.rank}: rank {p} sent {got.size:,} elements, expected {sizes[p]:,}")

        with self._lock:
            work = [self._pool.submit(self._send, self.peers[p], pieces[p]) for p in self.peers] if self._pool else []
            work += [self._pool.submit(receive, p) for p in self.peers] if self._pool else []
            places[self.rank][...] = pieces[self.rank].reshape(-1)
            for w in work:
                w.result()
        return places

    # ---------------------------------------------------------------------------------------------------- collectives
    def allgatherv(self, local: np.ndarray, counts: Any = None, out: np.ndarray | None = None) -> np.ndarray:
        """Every rank's `local` (its first counts[rank] elements, where counts are given) concatenated in rank order,
        into `out` when given."""
        if counts is not None:
            local = local[:int(counts[self.rank])]
        return _into(out, np.concatenate(self.alltoallv([local] * self.size)))

    def allreduce(self, array: np.ndarray, op: str = "sum", out: np.ndarray | None = None) -> np.ndarray:
        """The elementwise reduction over the ranks (into `out` when given). Every rank folds the pieces in rank order
        (so floating-point sums agree to the bit on every rank), each piece as it arrives: the memory is the result
        and one piece, not P pieces (a build's per-vertex counts are n of them)."""
        array = np.ascontiguousarray(array)
        reduce = _NUMPY_REDUCE[op]
        with self._lock:
            sends = [self._pool.submit(self._send, self.peers[p], array) for p in self.peers] if self._pool else []
            result = None
            for p in range(self.size):
                piece = array if p == self.rank else self._recv(p)
                if result is None:
                    result = np.array(piece)
                else:
                    reduce(result, piece, out=result)
                del piece
            for s in sends:
                s.result()
        if out is None:
            return result
        out[...] = result
        return out

    def reduce_scatter(self, array: np.ndarray, counts: np.ndarray, op: str = "sum") -> np.ndarray:
        """The reduction over the ranks of this rank's slice of `array` (slices by `counts`, in rank order)."""
        edges = np.concatenate(([0], np.cumsum(counts)))
        parts = self.alltoallv([array[edges[p]:edges[p + 1]] for p in range(self.size)])
        return _NUMPY_REDUCE[op].reduce(np.stack(parts), axis=0)

    def alltoall(self, array: np.ndarray, block: int, out: np.ndarray | None = None) -> np.ndarray:
        """Block p (of `block` elements) of `array` to rank p; returns the blocks received, in rank order (in `out`
        when given)."""
        return _into(out, np.concatenate(self.alltoallv([array[p * block:(p + 1) * block] for p in range(self.size)])))

    def close(self) -> None:
        for conn in self.peers.values():
            conn.close()
        if self._pool is not None:
            self._pool.shutdown(wait=False)


class NcclCollectives:
    """The collectives on CuPy arrays through NCCL (one communicator per run, made by every rank at once from the
    unique id rank 0 drew). Each call is queued on the current stream; NCCL orders them."""

    def __init__(self, rank: int, size: int, unique_id: Any) -> None:
        from cupy.cuda import nccl

        self.rank, self.size = rank, size
        self.nccl = nccl
        self.comm = nccl.NcclCommunicator(size, unique_id, rank)
        self._buffers: dict[str, Any] = {}
        self.ops = {"sum": nccl.NCCL_SUM, "min": nccl.NCCL_MIN, "max": nccl.NCCL_MAX}
        self.types = {"b": nccl.NCCL_INT8, "B": nccl.NCCL_UINT8, "i": nccl.NCCL_INT32, "I": nccl.NCCL_UINT32,
                      "l": nccl.NCCL_INT64, "q": nccl.NCCL_INT64, "L": nccl.NCCL_UINT64, "Q": nccl.NCCL_UINT64,
                      "f": nccl.NCCL_FLOAT32, "d": nccl.NCCL_FLOAT64, "?": nccl.NCCL_UINT8}

    def _type(self, array: Any) -> int:
        try:
            return self.types[array.dtype.char]
        except KeyError:
            raise BackendError(f"NCCL has no type for {array.dtype}") from None

    @staticmethod
    def _stream() -> int:
        import cupy

        return cupy.cuda.get_current_stream().ptr

    def allgatherv(self, local: Any, counts: np.ndarray, out: Any = None) -> Any:
        """Every rank's first counts[rank] elements of `local`, concatenated in rank order. A `local` of the most
        elements or more is sent as it is (its tail is padding); with `out` (of the most elements times the ranks, or
        more) nothing is allocated, so the call can be captured in a CUDA graph."""
        import cupy

        counts = [int(c) for c in counts]
        most, t, s = max(counts), self._type(local), self._stream()
        if local.size >= most and local.flags.c_contiguous:
            send = local[:most]
        else:
            send = cupy.empty(most, dtype=local.dtype)
            send[:counts[self.rank]] = local[:counts[self.rank]]
        in_place = _in_place(counts)
        if out is None:
            padded = cupy.empty(most * self.size, dtype=local.dtype)
        else:
            padded = out if in_place else self._scratch("allgatherv", most * self.size, local.dtype)
        self.comm.allGather(send.data.ptr, padded.data.ptr, most, t, s)
        if in_place:
            return padded[:sum(counts)]
        if out is None:
            return cupy.concatenate([padded[r * most:r * most + c] for r, c in enumerate(counts)])
        at = 0
        for r, c in enumerate(counts):
            out[at:at + c] = padded[r * most:r * most + c]
            at += c
        return out[:at]

    def _scratch(self, name: str, size: int, dtype: Any) -> Any:
        """A buffer kept between calls (allocated once, so a captured call finds it in place)."""
        import cupy

        have = self._buffers.get(name)
        if have is None or have.size < size or have.dtype != dtype:
            have = self._buffers[name] = cupy.empty(size, dtype=dtype)
        return have[:size]

    def allreduce(self, array: Any, op: str = "sum", out: Any = None) -> Any:
        """The elementwise reduction over the ranks (into `out` when given, which may be a slice of a larger array)."""
        import cupy

        array = cupy.ascontiguousarray(array)
        out = cupy.empty_like(array) if out is None else out
        self.comm.allReduce(array.data.ptr, out.data.ptr, array.size, self._type(array), self.ops[op], self._stream())
        return out

    def reduce_scatter(self, array: Any, counts: np.ndarray, op: str = "sum") -> Any:
        """This rank's slice of the reduction. An `array` of max(counts) elements a rank or more, on equal ranges, is
        sent as it is (its tail past the vertices is reduced too, and dropped)."""
        import cupy

        counts = [int(c) for c in counts]
        most, t, s = max(counts), self._type(array), self._stream()
        if _in_place(counts) and array.size >= most * self.size and array.flags.c_contiguous:
            send = array
        else:
            send = cupy.empty(most * self.size, dtype=array.dtype)
            edges = np.concatenate(([0], np.cumsum(counts)))
            for r, c in enumerate(counts):
                send[r * most:r * most + c] = array[edges[r]:edges[r + 1]]
        out = cupy.empty(most, dtype=array.dtype)
        self.comm.reduceScatter(send.data.ptr, out.data.ptr, most, t, self.ops[op], s)
        return out[:counts[self.rank]]

    def alltoall(self, array: Any, block: int, out: Any = None) -> Any:
        """Block p (of `block` elements) of `array` to rank p; returns the blocks received, in rank order: NCCL's
        all-to-all, a send and a receive per peer in one group (its own block copied on the device). On one rank,
        `array` itself."""
        import cupy

        if self.size == 1:
            return array
        array = cupy.ascontiguousarray(array)
        out = cupy.empty(block * self.size, dtype=array.dtype) if out is None else out
        t, s, step = self._type(array), self._stream(), block * array.itemsize
        mine = slice(self.rank * block, (self.rank + 1) * block)
        out[mine] = array[mine]
        self.nccl.groupStart()
        try:
            for p in range(self.size):
                if p != self.rank:
                    self.comm.send(array.data.ptr + p * step, block, t, p, s)
                    self.comm.recv(out.data.ptr + p * step, block, t, p, s)
        finally:
            self.nccl.groupEnd()
        return out

    def close(self) -> None:
        self.comm.destroy()

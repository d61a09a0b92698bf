"""CUDA runtime: NVRTC compilation of the templated kernels around generated functors, module cache, launches,
pinned counter reads and the free-memory check.

A functor's CUDA body is a C++ statement list that reads its state arrays as ``s0, s1, ...`` (typed pointers of the
state tuple's dtypes). For each (functor, state signature) one module is generated: a struct with the state pointers
and the functor's call operator, plus ``extern "C"`` wrappers that instantiate every kernel template of kernels/*.cuh
with that struct. CuPy compiles it with NVRTC and caches the binary on disk, so a module is compiled once per machine.
CuPy's disk cache is keyed by the source text and options, not by the headers it includes, so every module starts with
a comment naming the hash of kernels/*.cuh: a changed header (a graphgear upgrade, an edit) compiles anew instead of
loading a stale binary.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ...errors import BackendError, DeviceMemoryError

KERNEL_DIR = Path(__file__).with_name("kernels")
BLOCK = 256

_CTYPES = {
    np.dtype(np.int64): "long long",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.bool_): "bool",
    np.dtype(np.float64): "double",
    np.dtype(np.float32): "float",
}

# call operator signature of each functor role
SIGNATURES = {
    "advance": "bool operator()(int u, int v, float w) const",
    "pull": "int operator()(int v, int u, float w) const",
    "vertex_predicate": "bool operator()(int v) const",
    "vertex": "void operator()(int v) const",
    "reduce": "double operator()(int v, int u, float w) const",
    "vertex_reduce": "double operator()(int v) const",
}

_modules: dict[str, Any] = {}


def modules_loaded() -> int:
    """How many modules this process has compiled or loaded from CuPy's disk cache so far: a call that leaves it
    unchanged paid no compilation (bench.adaptive times a slow path's first call alone when it compiled nothing)."""
    return len(_modules)


def cupy() -> Any:
    try:
        import cupy as cp
    except ImportError as exc:  # pragma: no cover - only without CuPy
        raise BackendError("the CUDA backend needs CuPy: pip install graphgear[cuda13] (or [cuda12])") from exc
    return cp


def ctype(dtype: Any) -> str:
    dtype = np.dtype(dtype)
    if dtype not in _CTYPES:
        raise BackendError(f"no CUDA type for state arrays of dtype {dtype}")
    return _CTYPES[dtype]


def state_signature(state: tuple) -> tuple[str, ...]:
    return tuple(ctype(a.dtype) for a in state)


def functor_struct(struct: str, role: str, body: str, types: tuple[str, ...], names: tuple[str, ...] | None = None) -> str:
    """C++ source of a functor struct holding the state pointers (named `names`, else s0..sN) and a call operator with
    the given body. Members are initialised by position, so every functor of a module shares the state tuple."""
    if names is not None and len(names) != len(types):
        raise BackendError(f"functor names {len(names)} state arrays ({', '.join(names)}) but is called with {len(types)}")
    names = names or tuple(f"s{i}" for i in range(len(types)))
    members = "".join(f"    {t}* {name};\n" for t, name in zip(types, names))
    return f"struct {struct} {{\n{members}    __device__ __forceinline__ {SIGNATURES[role]} {{\n{body}\n    }}\n}};\n"


def state_params(types: tuple[str, ...]) -> str:
    return "".join(f", {t}* s{i}" for i, t in enumerate(types))


def state_init(types: tuple[str, ...]) -> str:
    return ", ".join(f"s{i}" for i in range(len(types)))


_headers_hash: str | None = None


def headers_hash() -> str:
    """SHA-1 of kernels/*.cuh (names and contents), computed once per process."""
    global _headers_hash
    if _headers_hash is None:
        digest = hashlib.sha1()
        for path in sorted(KERNEL_DIR.glob("*.cuh")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        _headers_hash = digest.hexdigest()
    return _headers_hash


HEADERS_LINE = "// graphgear kernels/*.cuh "  # compile_module's first line: the headers' hash follows
DEVICE_LAUNCH_LINE = "#define GG_DEVICE_LAUNCH 1\n"


def compile_module(source: str, device_launch: bool = False) -> Any:
    """A cupy.RawModule for `source` (cached per source text); kernels/*.cuh are on the include path, and their hash
    heads the source CuPy compiles, so its disk cache never serves a binary built from other headers. device_launch:
    compiled with -rdc=true and GG_DEVICE_LAUNCH defined, its kernels may launch kernels (CuPy links the CUDA device
    runtime; Busato & Bombieri's dynamic parallelism, kernels/advance.cuh gg_gather)."""
    if device_launch:
        source = f"{DEVICE_LAUNCH_LINE}{source}"
    key = hashlib.sha1(source.encode()).hexdigest()
    module = _modules.get(key)
    if module is None:
        cp = cupy()
        source = f"{HEADERS_LINE}{headers_hash()}\n{source}"
        options = ("-std=c++17", f"-I{KERNEL_DIR}") + (("-rdc=true",) if device_launch else ())
        try:
            module = cp.RawModule(code=source, options=options, name_expressions=None)
            module.compile()
        except Exception as exc:
            raise BackendError(f"CUDA kernel compilation failed: {exc}\n--- source ---\n{source}") from exc
        _modules[key] = module
    return module


_pending_launches = 0


def pending_launches(count: int) -> None:
    """Room for `count` kernel launches from the device at once (the device runtime's pending-launch limit, 2048 by
    default): dynamic parallelism launches one per long row of a level, and a launch beyond the limit is refused
    (kernels/advance.cuh gg_gather then expands that row in its thread; so too where the driver refuses the new
    limit). Only raised, never lowered."""
    global _pending_launches
    if count > _pending_launches:
        cp = cupy()
        limit = getattr(cp.cuda.runtime, "cudaLimitDevRuntimePendingLaunchCount", 0x04)
        try:
            cp.cuda.runtime.deviceSetLimit(limit, max(count, 2048))
        except cp.cuda.runtime.CUDARuntimeError:  # the limit kept: launches past it fall back, as said above
            pass
        _pending_launches = count


def bitmap_words(n: int) -> int:
    """32-bit words of a bitmap over n vertices, with one spare (the kernels' (n + 31) / 32 + 1)."""
    return (n + 31) // 32 + 1


class KernelTable:
    """The module compiled from `source` (compile_module), its kernels looked up once (CuPy's get_function asks the
    driver on every call). device_launch: compiled for device launches (Busato & Bombieri's dynamic parallelism)."""

    def __init__(self, source: str, device_launch: bool = False) -> None:
        self.source = source
        self.module = compile_module(source, device_launch)
        self._functions: dict[str, Any] = {}
        self._device_launch: KernelTable | None = self if device_launch else None

    def with_device_launch(self) -> KernelTable:
        """The same source compiled for device launches, built on first use: the kernels of a strategy with dynamic
        parallelism."""
        if self._device_launch is None:
            self._device_launch = KernelTable(self.source, device_launch=True)
        return self._device_launch

    def get_function(self, name: str) -> Any:
        function = self._functions.get(name)
        if function is None:
            function = self._functions[name] = self.module.get_function(name)
        return function


def launch(kernel: Any, work: int, args: tuple, block: int = BLOCK, max_blocks: int | None = None) -> None:
    """Launch with enough blocks for `work` threads, capped at a few waves (grid-stride loops cover the rest)."""
    blocks = max(1, (int(work) + block - 1) // block)
    cap = max_blocks if max_blocks is not None else device_blocks_cap()
    kernel((min(blocks, cap),), (block,), args)


class StructLaunch:
    """A kernel whose one argument is a struct (structs.KernelStruct), launched through the driver API from a buffer
    whose address is taken once: RawKernel's call converts and boxes its arguments on every launch, about twice the
    host time of this for the persistent kernel's struct, host time in front of a BFS's kernel
    (docs/performance.md#launch-arguments-as-one-struct). `args` is the buffer: fill it, then launch; the driver
    copies it at the launch, so the next launch may refill it at once."""

    def __init__(self, kernel: Any, args: np.ndarray) -> None:
        self.kernel = kernel  # the RawKernel (its module stays loaded while this holds it)
        self.function = kernel.kernel.ptr  # its CUfunction
        self.args = args.copy()
        self._params = np.array([self.args.ctypes.data], dtype=np.uint64)  # void*[1]: the struct's address
        self._params_address = self._params.ctypes.data

    def __call__(self, blocks: int, threads: int = BLOCK) -> None:
        cp = cupy()
        cp.cuda.driver.launchKernel(self.function, blocks, 1, 1, threads, 1, 1, 0, cp.cuda.get_current_stream().ptr,
                                    self._params_address, 0)


_blocks_cap: int | None = None


def device_blocks_cap() -> int:
    """Blocks of a full launch: 8 blocks of 256 threads per multiprocessor (2048 resident threads each)."""
    global _blocks_cap
    if _blocks_cap is None:
        _blocks_cap = multiprocessors() * 8
    return _blocks_cap


_multiprocessors: int | None = None


def multiprocessors() -> int:
    """The device's multiprocessor count, asked once (CuPy's Device().attributes queries every attribute)."""
    global _multiprocessors
    if _multiprocessors is None:
        _multiprocessors = int(cupy().cuda.Device().attributes["MultiProcessorCount"])
    return _multiprocessors


def resident_threads() -> int:
    return device_blocks_cap() * BLOCK


def hub_degrees(supports: Any, grid_gather: bool, grid_gather_degree: int,
                supplementary_threshold: int | None) -> tuple[int, int]:
    """A push's hub queue: (the degree from which a vertex goes there instead of its block's expansion, the degree
    from which it goes on to the supplementary queues' bins; 0: none). Busato & Bombieri's supplementary queues take
    the vertices of degree above half the device's resident threads (`supplementary_threshold` overrides it); grid
    gathering (block gathering one level up) those from `grid_gather_degree`."""
    supplementary = ((supplementary_threshold or resident_threads() // 2) + 1
                     if "supplementary_queues" in supports else 0)
    return min(grid_gather_degree if grid_gather else 1 << 62, supplementary or 1 << 62), supplementary


def check_free_memory(nbytes: int, what: str) -> None:
    """Raise DeviceMemoryError naming the bytes needed when the device has not that much free memory."""
    cp = cupy()
    free, total = cp.cuda.runtime.memGetInfo()
    if nbytes > free:
        raise DeviceMemoryError(
            f"{what} needs {nbytes / 2**30:.2f} GiB of device memory; {free / 2**30:.2f} GiB of {total / 2**30:.2f} GiB is free"
        )


class PinnedCounter:
    """An advance's device counters and their pinned host copy, read back together in one small copy per iteration:
    word 0 the output queue's length, word 1 the hub queue's (grid gathering), words 2-3 the out-edges of the output
    queue (uint64)."""

    def __init__(self) -> None:
        cp = cupy()
        words = cp.zeros(4, dtype=cp.uint32)  # reset together
        self.device, self.hubs, self.edges = words[:1], words[1:2], words[2:4].view(cp.uint64)
        self._words = words
        self.host = cp.cuda.alloc_pinned_memory(16)
        self.view = np.frombuffer(self.host, dtype=np.uint32, count=4)

    def reset(self) -> None:
        self._words.fill(0)

    def read(self) -> int:
        """The output queue's length."""
        return self.read_with_edges()[0]

    def read_with_edges(self) -> tuple[int, int]:
        """(the output queue's length, the sum of its vertices' out-degrees) in one copy."""
        cp = cupy()
        cp.cuda.runtime.memcpy(self.view.ctypes.data, self._words.data.ptr, 16, cp.cuda.runtime.memcpyDeviceToHost)
        return int(self.view[0]), int(self.view[2:4].view(np.uint64)[0])


class PinnedReader:
    """Several small device arrays read back with ONE synchronisation: asynchronous copies into pinned memory on the
    current stream, then one wait (each blocking read costs a round trip: docs/performance.md#smaller-host-costs).
    `enqueue` queues the copies
    and returns what waits for them and hands the arrays out, so a caller can queue a read behind its kernel and
    collect it later (one read in flight: the next enqueue reuses the buffer)."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes
        self.host = cupy().cuda.alloc_pinned_memory(nbytes)
        self._done = cupy().cuda.Event(disable_timing=True)

    def read(self, *arrays: Any) -> list[np.ndarray]:
        return self.enqueue(*arrays)()

    def enqueue(self, *arrays: Any) -> Callable[[], list[np.ndarray]]:
        cp = cupy()
        stream = cp.cuda.get_current_stream()
        views, offset = [], 0
        for array in arrays:
            if offset + array.nbytes > self.nbytes:
                raise BackendError(f"PinnedReader: {offset + array.nbytes} bytes asked of a {self.nbytes}-byte buffer")
            view = np.frombuffer(self.host, dtype=array.dtype, count=array.size, offset=offset).reshape(array.shape)
            cp.cuda.runtime.memcpyAsync(view.ctypes.data, array.data.ptr, array.nbytes,
                                        cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
            views.append(view)
            offset += (array.nbytes + 7) // 8 * 8
        done = self._done
        done.record(stream)

        def collect() -> list[np.ndarray]:
            done.synchronize()
            return [view.copy() for view in views]

        return collect


class EventTimeline:
    """A backend timeline on the current stream: each mark records a CUDA event, so a sequence of launches is timed
    on the device without the host waiting between them; `seconds()` waits once, for the last mark."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def mark(self) -> None:
        event = cupy().cuda.Event()
        event.record()
        self.events.append(event)

    def seconds(self) -> list[float]:
        """The device time between consecutive marks."""
        if not self.events:
            return []
        self.events[-1].synchronize()
        return [cupy().cuda.get_elapsed_time(a, b) / 1e3 for a, b in zip(self.events, self.events[1:])]

    def check(self) -> None:
        """Nothing to check, as HostTimeline: the launches timed have no failure flag of their own (a launch's error
        is CuPy's, raised at the next synchronisation), so a timeline can stand in a run's place."""

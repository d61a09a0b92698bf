"""Compiling ahead, in parallel, on a machine that has compiled nothing yet (a fresh GPU machine's first process).

A process compiles each kernel on its first use, one after another: graphgear's modules (NVRTC, seconds each) and
CuPy's own elementwise and reduction kernels (a fraction of a second each, dozens of them). The compiled binaries go to
CuPy's disk cache, so only a machine's first process waits; on a new machine the seven algorithms waited about a
minute (benchmarks/gpu_first_process.py prints it). NVRTC runs without the GIL, so compilations overlap on the host's
cores. `start` replays, on a thread pool, the compilations the built-in algorithms make (warmup.json.gz, recorded on a GPU
machine by benchmarks/gpu_warmup_manifest.py: each call's source and options), so the disk cache holds them by the
time the algorithms ask. A compilation asked for while the pool is on it waits for that one instead of compiling it
twice. A marker in CuPy's cache folder records that the manifest was replayed there; later processes skip it.

The manifest is tied to the CuPy version that recorded it (CuPy's kernel sources change between versions): with
another version nothing is replayed, and each kernel compiles on first use as before. Paths and graphgear's header
hash are stored as placeholders and filled in here, so the manifest holds wherever graphgear is installed.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from . import runtime as rt

__all__ = ["start", "install", "MANIFEST", "record", "placeholders"]

MANIFEST = Path(__file__).with_name("warmup.json.gz")
# compilations at once (at most the host's cores less one): they slow one another, yet more of them finish the replay
# sooner (benchmarks/gpu_first_process.py prints its statistics; GRAPHGEAR_CUDA_WARMUP_WORKERS overrides)
WORKERS = 16
_HASH_LINE = "// graphgear kernels/*.cuh "

_lock = threading.Lock()
_inflight: dict[tuple, Future] = {}
_original: Any = None
_started = False
# what became of the replay: calls that found their kernel compiling in the pool (waited), queued (taken off the
# queue), or not in the manifest; pool compilations that failed (the first few errors kept)
stats: dict[str, Any] = {"waited": 0, "taken": 0, "unlisted": 0, "failed": 0, "errors": [], "wait_s": 0.0,
                         "after_s": 0.0, "pool_s": 0.0, "pool_end_s": 0.0}
_t0 = 0.0


def placeholders() -> dict[str, str]:
    """Install-specific strings of compile options and sources, and the placeholders the manifest keeps instead:
    graphgear's kernel folder, CuPy's package folder and the CUDA headers' folder of NVIDIA's wheels (``nvidia``)."""
    import cupy

    values = {"{KERNEL_DIR}": str(rt.KERNEL_DIR), "{CUPY_DIR}": str(Path(cupy.__file__).parent)}
    try:
        import nvidia  # the namespace package of NVIDIA's CUDA wheels, where CuPy finds the CUDA headers

        values["{NVIDIA_DIR}"] = str(Path(list(nvidia.__path__)[0]))
    except (ImportError, IndexError, AttributeError):
        pass
    return values


def _key(source: str, options: Any, kwargs: dict[str, Any]) -> tuple:
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in kwargs.items()))
    return source, tuple(options or ()), frozen


def _compile(source: str, options: Any = (), **kwargs: Any) -> Any:
    """CuPy's compile-with-cache. A kernel the pool is compiling now is waited for (then loaded from the disk cache); one
    still queued is taken off the queue and compiled here at once, not after the queue ahead of it."""
    import time

    with _lock:
        pending = _inflight.get(_key(source, options, kwargs))
    start = time.perf_counter()
    if pending is None:
        stats["unlisted"] += 1
    elif pending.cancel():
        stats["taken"] += 1
    else:
        stats["waited"] += 1
        try:
            pending.result()
        except Exception:  # the pool's try failed: this call compiles (and reports) it itself
            pass
    middle = time.perf_counter()
    try:
        return _original(source, options, **kwargs)
    finally:
        stats["wait_s"] += middle - start
        stats["after_s"] += time.perf_counter() - middle


def install() -> None:
    """Route CuPy's compilations through `_compile` (once per process)."""
    global _original
    from cupy.cuda import compiler

    with _lock:
        if _original is None:
            _original = compiler._compile_module_with_cache
            compiler._compile_module_with_cache = _compile


def _manifest() -> dict[str, Any] | None:
    import gzip

    import cupy

    try:
        manifest = json.loads(gzip.decompress(MANIFEST.read_bytes()))
    except (OSError, ValueError, EOFError):
        return None
    if manifest.get("cupy") != cupy.__version__ or not manifest.get("entries"):
        return None
    return manifest


def _materialise(entry: dict[str, Any], blobs: list[str]) -> tuple[str, tuple, dict[str, Any]]:
    values = placeholders()

    def fill(text: str) -> str:
        for mark, value in values.items():
            text = text.replace(mark, value)
        return text

    source = fill(entry["source"])
    if entry.get("graphgear"):
        source = f"{_HASH_LINE}{rt.headers_hash()}\n{source}"
    options = tuple(fill(o) for o in entry["options"])
    kwargs = {k: (tuple(v) if isinstance(v, list) else v) for k, v in entry["kwargs"].items()}
    if isinstance(kwargs.get("extra_source"), int):  # an index into the manifest's shared texts (CuPy's headers)
        kwargs["extra_source"] = blobs[kwargs["extra_source"]]
    return source, options, kwargs


def _marker(entries: list[dict[str, Any]]) -> Path:
    folder = Path(os.environ.get("CUPY_CACHE_DIR") or Path.home() / ".cupy" / "kernel_cache")
    digest = hashlib.sha1((json.dumps(entries, sort_keys=True) + rt.headers_hash()).encode()).hexdigest()[:16]
    return folder / f"graphgear-warmup-{digest}"


def _timed(source: str, options: tuple, kwargs: dict[str, Any]) -> Any:
    import time

    start = time.perf_counter()
    try:
        return _original(source, options, **kwargs)
    finally:
        stats["pool_s"] += time.perf_counter() - start
        stats["pool_end_s"] = max(stats["pool_end_s"], time.perf_counter() - _t0)


def start(workers: int | None = None) -> bool:
    """Replay the manifest's compilations on a thread pool, once per machine (per CuPy cache folder). Returns whether
    it started. Called when the CUDA backend is made; GRAPHGEAR_CUDA_WARMUP=0 turns it off."""
    global _started
    if _started or os.environ.get("GRAPHGEAR_CUDA_WARMUP", "1") == "0":
        return False
    manifest = _manifest()
    if manifest is None:
        return False
    entries, blobs = manifest["entries"], manifest.get("blobs", [])
    marker = _marker(entries)
    if marker.exists():
        return False
    _started = True
    global _t0
    import time

    _t0 = time.perf_counter()
    install()
    workers = workers or int(os.environ.get("GRAPHGEAR_CUDA_WARMUP_WORKERS", 0)) or WORKERS
    pool = ThreadPoolExecutor(max_workers=max(1, min(workers, (os.cpu_count() or 2) - 1)),
                              thread_name_prefix="graphgear-warmup")
    futures = []
    with _lock:
        for entry in entries:
            source, options, kwargs = _materialise(entry, blobs)
            key = _key(source, options, kwargs)
            if key not in _inflight:
                _inflight[key] = pool.submit(_timed, source, options, kwargs)
                futures.append(_inflight[key])

    def done(future: Future) -> None:
        if not future.cancelled() and future.exception() is not None:
            stats["failed"] += 1
            if len(stats["errors"]) < 3:
                stats["errors"].append(f"{type(future.exception()).__name__}: {future.exception()}"[:300])
        if all(f.done() for f in futures) and not any(not f.cancelled() and f.exception() for f in futures):
            try:
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text(f"{len(futures)} kernels compiled ahead by graphgear\n")
            except OSError:
                pass

    for f in futures:
        f.add_done_callback(done)
    pool.shutdown(wait=False)
    return True


# ---------------------------------------------------------------------------------------------------------- record


class record:
    """Context manager that records every CuPy compilation made inside it (benchmarks/gpu_warmup_manifest.py):
    ``with record() as entries: ...`` gives the list of manifest entries, in first-use order, with the seconds each
    took (cache hits included: a recording should run with an empty CUPY_CACHE_DIR so the seconds mean something)."""

    def __init__(self, label: str = "") -> None:
        self.label = label
        self.entries: list[dict[str, Any]] = []
        self._seen: set[tuple] = set()

    def __enter__(self) -> list[dict[str, Any]]:
        import time

        from cupy.cuda import compiler

        self._saved = compiler._compile_module_with_cache
        inner = self._saved
        values = placeholders()

        def recording(source: str, options: Any = (), **kwargs: Any) -> Any:
            start = time.perf_counter()
            out = inner(source, options, **kwargs)
            key = _key(source, options, kwargs)
            if key not in self._seen:
                self._seen.add(key)
                ours = source.startswith(_HASH_LINE)
                text = source.split("\n", 1)[1] if ours else source
                opts = list(options or ())
                for mark, value in values.items():
                    text = text.replace(value, mark)
                    opts = [o.replace(value, mark) for o in opts]
                self.entries.append({"label": self.label, "graphgear": ours, "source": text, "options": opts,
                                     "kwargs": {k: (list(v) if isinstance(v, tuple) else v) for k, v in kwargs.items()},
                                     "seconds": time.perf_counter() - start})
            return out

        compiler._compile_module_with_cache = recording
        return self.entries

    def __exit__(self, *exc: Any) -> None:
        from cupy.cuda import compiler

        compiler._compile_module_with_cache = self._saved

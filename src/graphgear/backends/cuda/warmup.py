"""Compiling ahead: a fresh GPU machine's first process waits for no compiler where it can help it.

A process compiles each kernel on its first use, one after another: graphgear's modules (NVRTC, seconds each) and
CuPy's own elementwise and reduction kernels (dozens of them, CuPy's CUB reductions the slowest). The compiled binaries
go to CuPy's disk cache, so only a machine's first process waits, and on a new machine the seven algorithms waited long
for it (benchmarks/gpu_first_process.py measures it; docs/performance.md#a-fresh-machines-first-process). Two
remedies, in order:

1. Shipped binaries. benchmarks/gpu_warmup_manifest.py records, on a GPU machine with an empty CuPy cache, every
   compilation the built-in algorithms make (warmup.json.gz: each call's source and options) and the binary NVRTC made
   of it (warmup-sm<arch>.zip, one member per binary). A process whose GPU has that compute capability, with the CuPy
   version that recorded them, loads a listed kernel's binary instead of compiling it (`_compile`, CuPy's
   compile-with-cache routed through here); graphgear's modules only while kernels/*.cuh hash as when recorded. A
   binary the driver refuses is compiled as before.
2. Replay. What no binary serves is compiled on a thread pool from the start of the CUDA backend, once per machine (a
   marker in CuPy's cache folder), so the disk cache holds it by the time the algorithms ask. NVRTC runs without the
   GIL, so compilations overlap on the host's cores. A compilation asked for while the pool is on it waits for that
   one; one still queued is taken off the queue and compiled by its caller at once.

The manifest is tied to the CuPy version that recorded it (CuPy's kernel sources change between versions): with
another version nothing is loaded or replayed, and each kernel compiles on first use as before. Paths and graphgear's
header hash are stored as placeholders and filled in here, so the manifest holds wherever graphgear is installed.
GRAPHGEAR_CUDA_WARMUP=0 turns both off, GRAPHGEAR_CUDA_BINARIES=0 the binaries alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from . import runtime as rt

__all__ = ["start", "install", "MANIFEST", "record", "placeholders", "binary_archive"]

MANIFEST = Path(__file__).with_name("warmup.json.gz")
# compilations at once (at most the host's cores less one): they slow one another, yet more of them finish the replay
# sooner (benchmarks/gpu_first_process.py prints its statistics, docs/performance.md#a-fresh-machines-first-process;
# GRAPHGEAR_CUDA_WARMUP_WORKERS overrides)
WORKERS = 16
_HASH_LINE = rt.HEADERS_LINE  # compile_module's first line

_lock = threading.Lock()
_inflight: dict[tuple, Future] = {}
_shipped: dict[tuple, str] = {}  # compilation key -> member of the binary archive that serves it
_archive: zipfile.ZipFile | None = None
_original: Any = None
_started = False
# what became of the replay: calls that found their kernel compiling in the pool (waited), queued (taken off the
# queue), or not in the manifest; pool compilations that failed (the first few errors kept); compilations queued for
# the pool, binaries listed for this GPU (shipped), loaded instead of compiled, or refused by the driver (compiled)
stats: dict[str, Any] = {"waited": 0, "taken": 0, "unlisted": 0, "failed": 0, "errors": [], "wait_s": 0.0,
                         "after_s": 0.0, "pool_s": 0.0, "pool_end_s": 0.0, "queued": 0, "shipped": 0, "loaded": 0,
                         "load_s": 0.0, "refused": 0}
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
    """CuPy's compile-with-cache. A kernel with a shipped binary is loaded from it. A kernel the pool is compiling now is
    waited for (then loaded from the disk cache); one still queued is taken off the queue and compiled here at once,
    not after the queue ahead of it."""
    import time

    key = _key(source, options, kwargs)
    member = _shipped.get(key)
    if member is not None:
        module = _load(member)
        if module is not None:
            return module
    with _lock:
        pending = _inflight.get(key)
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


def _load(member: str) -> Any:
    """A CuPy module loaded from a shipped binary, or None where the driver refuses it (it is compiled instead)."""
    import time

    from cupy.cuda import function

    start = time.perf_counter()
    try:
        with _lock:
            data = _archive.read(member) if _archive is not None else None
        if data is None:
            return None
        module = function.Module()
        module.load(data)
    except Exception as exc:  # a driver too old for the binary, a damaged archive: compile as without it
        stats["refused"] += 1
        if len(stats["errors"]) < 3:
            stats["errors"].append(f"{member}: {type(exc).__name__}: {exc}"[:300])
        return None
    stats["loaded"] += 1
    stats["load_s"] += time.perf_counter() - start
    return module


def binary_archive(manifest: dict[str, Any]) -> Path | None:
    """The shipped binaries' archive that serves this process's GPU, or None: another compute capability, no archive,
    or GRAPHGEAR_CUDA_BINARIES=0."""
    info = manifest.get("binaries")
    if not info or os.environ.get("GRAPHGEAR_CUDA_BINARIES", "1") == "0":
        return None
    import cupy

    if str(cupy.cuda.Device().compute_capability) != str(info.get("arch")):
        return None
    path = MANIFEST.with_name(info["file"])
    return path if path.is_file() else None


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


def _materialise(entry: dict[str, Any], blobs: list[str],
                 values: dict[str, str] | None = None) -> tuple[str, tuple, dict[str, Any]]:
    """The (source, options, kwargs) of CuPy's compile-with-cache call an entry recorded, in this install's paths."""
    values = values or placeholders()

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


def _cache_folder() -> Path:
    """CuPy's kernel cache folder (CuPy's own default unless CUPY_CACHE_DIR names another)."""
    return Path(os.environ.get("CUPY_CACHE_DIR") or Path.home() / ".cupy" / "kernel_cache")


def _marker(entries: list[dict[str, Any]]) -> Path:
    folder = _cache_folder()
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
    """Serve the manifest's kernels from the shipped binaries where they fit this GPU, and replay the rest on a thread
    pool once per machine (per CuPy cache folder). Returns whether anything was set up. Called when the CUDA backend
    is made; GRAPHGEAR_CUDA_WARMUP=0 turns it off."""
    global _started, _archive, _t0
    if _started or os.environ.get("GRAPHGEAR_CUDA_WARMUP", "1") == "0":
        return False
    manifest = _manifest()
    if manifest is None:
        return False
    _started = True
    import time

    _t0 = time.perf_counter()
    entries, blobs = manifest["entries"], manifest.get("blobs", [])
    archive = binary_archive(manifest)
    if archive is not None:
        try:
            _archive = zipfile.ZipFile(archive)
        except (OSError, zipfile.BadZipFile):  # damaged: every kernel compiles as without it
            _archive = None
    ours_current = manifest.get("binaries", {}).get("headers") == rt.headers_hash()
    values = placeholders()
    queue: list[tuple[tuple, str, tuple, dict[str, Any]]] = []
    queued_entries = []
    for entry in entries:
        source, options, kwargs = _materialise(entry, blobs, values)
        key = _key(source, options, kwargs)
        if _archive is not None and entry.get("binary") and (ours_current or not entry["graphgear"]):
            _shipped[key] = entry["binary"]
        else:
            queue.append((key, source, options, kwargs))
            queued_entries.append(entry)
    stats["shipped"], stats["queued"] = len(_shipped), len(queue)
    install()
    if not queue:
        return True
    marker = _marker(queued_entries)
    if marker.exists():
        return True
    workers = workers or int(os.environ.get("GRAPHGEAR_CUDA_WARMUP_WORKERS", 0)) or WORKERS
    pool = ThreadPoolExecutor(max_workers=max(1, min(workers, (os.cpu_count() or 2) - 1)),
                              thread_name_prefix="graphgear-warmup")
    futures = []
    with _lock:
        for key, source, options, kwargs in queue:
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
    took (cache hits included: a recording should run with an empty CUPY_CACHE_DIR so the seconds mean something).
    With `binaries`, a folder, each compilation's binary is kept there, named by its SHA-1, and the entry names it: the
    file the compilation added to CuPy's cache folder, headed by the hex digest of the rest (SHA-1 in CuPy 14, MD5
    before: CuPy's guard against a torn write); a compilation whose file is not found so is recorded without one."""

    def __init__(self, label: str = "", binaries: Path | None = None) -> None:
        self.label = label
        self.binaries = binaries
        self.entries: list[dict[str, Any]] = []
        self._seen: set[tuple] = set()

    def __enter__(self) -> list[dict[str, Any]]:
        import time

        from cupy.cuda import compiler

        self._saved = compiler._compile_module_with_cache
        inner = self._saved
        values = placeholders()

        def recording(source: str, options: Any = (), **kwargs: Any) -> Any:
            folder = _cache_folder()
            before = set(os.listdir(folder)) if folder.is_dir() else set()
            start = time.perf_counter()
            out = inner(source, options, **kwargs)
            seconds = time.perf_counter() - start
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
                                     "seconds": seconds})
                if self.binaries is not None:
                    self.entries[-1]["binary"] = self._keep(folder, before)
            return out

        compiler._compile_module_with_cache = recording
        return self.entries

    def _keep(self, folder: Path, before: set[str]) -> str | None:
        added = sorted(set(os.listdir(folder)) - before) if folder.is_dir() else []
        if len(added) != 1:
            return None
        data = (folder / added[0]).read_bytes()
        for digest in (hashlib.sha1, hashlib.md5):  # CuPy 14 heads the file with the binary's SHA-1, older ones MD5
            width = digest().digest_size * 2
            binary = data[width:]
            if len(data) > width and data[:width] == digest(binary).hexdigest().encode():
                break
        else:
            return None
        name = hashlib.sha1(binary).hexdigest() + ".bin"
        self.binaries.mkdir(parents=True, exist_ok=True)
        (self.binaries / name).write_bytes(binary)
        return name

    def __exit__(self, *exc: Any) -> None:
        from cupy.cuda import compiler

        compiler._compile_module_with_cache = self._saved

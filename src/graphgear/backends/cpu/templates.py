"""Kernel templates: a CPU kernel written once around named functor slots, specialised per functor, cached on disk.

Why. numba's on-disk cache (``cache=True``) finds a compiled kernel by its argument types. A functor passed as an
argument is typed by its dispatcher object, which is a new object in every process, so a kernel that takes a functor
never hits the cache: every process compiled every kernel again (seconds on an algorithm's first call:
``benchmarks/first_call.py``, docs/performance.md#first-call-in-a-new-process), and wrote one more cache file each
time.

How. The GPU backend compiles each functor into its templated kernels (NVRTC, ``name_expressions``); the CPU backend
does the same. A template's body calls its functors by name (its *slots*: ``functor``, ``candidate``, ``compute``, ...)
as globals of its module. ``template[f]`` (``template[c, f]`` for two slots, in the order the decorator names them)
is a numba kernel made from the template's code with those globals bound to the functors: it takes no function
argument, so its cache key is stable and a later process loads it from the cache instead of compiling it. A helper
template the body calls (a non-inlined loop over one vertex's edges) is bound to its own specialisation for the same
functors: a functor passed on as an argument would be compiled in as the address of a Python object, which numba
does not cache.

Each specialisation is a cache entry of its own, named ``<template>__<functors>_<digest>``. numba checks only the
template's own source file before it loads an entry; the digest covers the rest: the qualified names of the
functors, numba's options (parallel, _nrt, ...: its cache key holds none of them), the sources of every file the
template and the functors reach (their modules, and those of the numba functions and intrinsics they call, followed
recursively), and the values of the constants they read (numba freezes global constants into the code). An edited
functor thus compiles anew, and a stale entry is never loaded.

A functor that cannot be named from a source file (a closure, whose cells the digest would miss, or one made in an
interactive session) gets an in-process specialisation that numba does not cache, as before; so does every
functor where numba finds no writable cache folder (graphgear/_numba_cache.py gives it one at import).
A kernel without slots (``@template()``) is a cached kernel made on first call, which also keeps numba's dispatcher
construction out of ``import graphgear``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import types
from collections.abc import Callable
from typing import Any

__all__ = ["KernelTemplate", "template", "is_cached"]


class KernelTemplate:
    """A CPU kernel with functor slots; ``self[f, ...]`` is its numba kernel for those functors (made once)."""

    def __init__(self, py_func: Callable[..., Any], slots: tuple[str, ...], options: dict[str, Any]) -> None:
        self.py_func = py_func
        self.slots = slots
        self.options = options
        self.kernels: dict[tuple[Any, ...], Any] = {}
        functools.update_wrapper(self, py_func)

    def __getitem__(self, functors: Any) -> Any:
        key = functors if isinstance(functors, tuple) else (functors,)
        kernel = self.kernels.get(key)
        if kernel is None:
            kernel = self.kernels[key] = self._specialise(key)
        return kernel

    def __call__(self, *args: Any) -> Any:
        """Run a template without slots (a plain cached kernel)."""
        return self[()](*args)

    @functools.cached_property
    def serial(self) -> KernelTemplate:
        """The same template compiled without parallel loops (its prange runs as a range on the calling thread): for
        work too small to pay for waking the thread team (docs/performance.md#small-rounds-on-one-thread)."""
        if not self.options.get("parallel"):
            return self
        return KernelTemplate(self.py_func, self.slots, {**self.options, "parallel": False})

    def __repr__(self) -> str:
        return f"<kernel template {self.py_func.__module__}.{self.py_func.__qualname__}[{', '.join(self.slots)}]>"

    def _specialise(self, key: tuple[Any, ...]) -> Any:
        import numba

        if len(key) != len(self.slots):
            raise TypeError(f"{self!r} takes {len(self.slots)} functors, got {len(key)}")
        functors = tuple(getattr(f, "cpu", f) for f in key)  # a Functor's numba function
        bound = dict(self.py_func.__globals__)
        bound.update(zip(self.slots, functors))
        by_slot = dict(zip(self.slots, key))
        for name in _names(self.py_func.__code__):  # helper templates it calls, specialised around the same functors
            helper = bound.get(name)
            if isinstance(helper, KernelTemplate):
                bound[name] = helper[tuple(by_slot[s] for s in helper.slots)]
        digest = _digest(self.py_func, functors, self.options)
        names = "__".join(getattr(f, "__name__", "f") for f in functors)[:120]
        code = self.py_func
        fn = types.FunctionType(code.__code__, bound, code.__name__, code.__defaults__, code.__closure__)
        fn.__qualname__ = f"{code.__name__}__{names}_{digest[:16]}" if digest else f"{code.__name__}__{names}"
        fn.__doc__ = code.__doc__
        cached = bool(digest)
        try:
            return numba.njit(cache=cached, **self.options)(fn)
        except RuntimeError:  # numba found no writable cache folder for this file: compile in this process
            return numba.njit(**self.options)(fn)


def template(*slots: str, **options: Any) -> Callable[[Callable[..., Any]], KernelTemplate]:
    """Decorator: a kernel template whose body calls the functors named `slots`; `options` are numba.njit's
    (parallel, nogil, ...). ``@template()`` with no slots: a kernel cached on disk, made on first call.

    Kernels are compiled without reference counting (``_nrt=False``) unless `options` say otherwise: a kernel hands
    its state tuple to a functor on every edge, and with reference counting each hand-over increments and decrements
    every array's counter (atomically, from every thread). Such a kernel may not allocate, so its callers pass it its
    scratch arrays (a FIFO ring, flags) and it has no parallel reductions (numba allocates their partial results)."""
    options.setdefault("_nrt", False)

    def wrap(py_func: Callable[..., Any]) -> KernelTemplate:
        names = _names(py_func.__code__)
        helpers = [py_func.__globals__.get(n) for n in names]
        used = names.union(*(h.slots for h in helpers if isinstance(h, KernelTemplate)))
        missing = [s for s in slots if s not in used]
        if missing:
            raise TypeError(f"kernel template {py_func.__qualname__} never calls its slot(s) {', '.join(missing)}")
        return KernelTemplate(py_func, slots, options)

    return wrap


def is_cached(kernel: Any) -> bool:
    """Whether a specialisation (``template[f]``) is cached on disk by numba."""
    return getattr(kernel, "_cache", None) is not None and type(kernel._cache).__name__ != "NullCache"


# ------------------------------------------------------------------------------------------------------- digest


def _digest(template_func: Callable[..., Any], functors: tuple[Any, ...], options: dict[str, Any]) -> str:
    """What a specialisation's cache entry depends on beyond the template's file (see the module notes), numba's
    options included (its cache key holds none of them); "" when a functor cannot be named from source files (the
    specialisation is then not cached)."""
    h = hashlib.sha256(repr(sorted(options.items())).encode())
    files: set[str] = set()
    seen: set[int] = set()
    _reach(template_func, files, h, seen)
    for f in functors:
        if not _is_dispatcher(f):
            return ""
        py = f.py_func
        if py.__closure__ or not _source_file(py):
            return ""
        h.update(f"{py.__module__}.{py.__qualname__};{sorted(f.targetoptions.items())!r}".encode())
        if not _reach(py, files, h, seen):
            return ""
    for path in sorted(files):
        h.update(path.encode())
        h.update(_file_digest(path))
    return h.hexdigest()


def _source_file(fn: Any) -> str | None:
    path = getattr(getattr(fn, "__code__", None), "co_filename", None)
    return path if path and os.path.isfile(path) else None


def _reach(fn: Any, files: set[str], h: Any, seen: set[int]) -> bool:
    """Add fn's source file, and recursively those of the numba functions and intrinsics it calls, to `files`; hash
    the constants it reads. False when some function it reaches has no source file or is a closure."""
    if id(fn) in seen:
        return True
    seen.add(id(fn))
    path = _source_file(fn)
    if path is None or fn.__closure__:
        return False
    files.add(path)
    g = fn.__globals__
    for name in sorted(_names(fn.__code__)):
        if name not in g:
            continue
        value = g[name]
        if _is_intrinsic(value):  # its code generator: the module that made it (closures of a factory there)
            intrinsic_file = _source_file(value._defn)
            if intrinsic_file is None:
                return False
            files.add(intrinsic_file)
        elif _is_dispatcher(value) or isinstance(value, KernelTemplate):
            if not _reach(value.py_func, files, h, seen):
                return False
        elif isinstance(value, (bool, int, float, str, bytes, type(None))) or (
            isinstance(value, tuple) and all(isinstance(x, (bool, int, float, str)) for x in value)
        ):
            h.update(f"{name}={value!r};".encode())
    return True


def _is_dispatcher(value: Any) -> bool:
    from numba.core.dispatcher import Dispatcher

    return isinstance(value, Dispatcher)


def _is_intrinsic(value: Any) -> bool:
    from numba.core.extending import _Intrinsic

    return isinstance(value, _Intrinsic)


def _names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


@functools.lru_cache(maxsize=None)
def _file_digest(path: str) -> bytes:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()

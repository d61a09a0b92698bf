"""A writable cache folder for numba, found before graphgear's kernels are decorated.

numba's ``@njit(cache=True)`` picks the folder of a kernel's cache when the kernel is decorated, that is at import
(``numba.core.caching``): ``numba.config.CACHE_DIR`` ($NUMBA_CACHE_DIR) when set, else the ``__pycache__`` beside the
source file, else the user-wide folder (``~/.cache/numba``, or under $XDG_CACHE_HOME), each probed by creating it and a
temporary file in it. When none passes -- a read-only install with a read-only or missing home, as in a container or
on a shared cluster -- numba raises ``RuntimeError("cannot cache function ...: no locator available")`` and ``import
graphgear`` fails.

`ensure_writable_cache` runs first in ``graphgear/__init__.py``. When ``numba.config.CACHE_DIR`` is not set and, for a
folder holding cached kernels, neither its ``__pycache__`` nor its user-wide folder passes numba's own probe, it points
``numba.config.CACHE_DIR`` (and $NUMBA_CACHE_DIR, for child processes and numba's config reloads) at a per-user folder
under the temporary directory, ``graphgear-numba-<uid>``, created private (0700). numba loads pickled code from its
cache, so a folder of that name that is not a directory owned by this user and closed to others (another user could
have made it first) is not used: a fresh private folder from ``tempfile.mkdtemp`` is, cached for this process only.
The common case, a writable ``__pycache__``, costs one probe per folder (see docs/memory.md for the measured time).
"""

from __future__ import annotations

import os
import stat
import tempfile

__all__ = ["KERNEL_FOLDERS", "ensure_writable_cache", "fallback_folder"]

# The package folders (relative to graphgear/) whose modules hold @njit(cache=True) kernels; tests/test_numba_cache.py
# checks that the list is complete.
KERNEL_FOLDERS: tuple[str, ...] = ("graph", os.path.join("graph", "io"), os.path.join("backends", "cpu"), "nx_backend",
                                   "distributed", "algorithms")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _writable(path: str) -> bool:
    """numba's probe of a cache folder (``_CacheLocator.ensure_cache_path``): create it, then a temporary file in it."""
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError:
        return False
    return True


def _user_wide(folder: str) -> str:
    """The user-wide cache folder numba would use for the kernels of ``folder`` (``UserWideCacheLocator``)."""
    from numba.core.caching import _CacheLocator
    from numba.misc.appdirs import AppDirs

    root = AppDirs(appname="numba", appauthor=False).user_cache_dir
    return os.path.join(root, _CacheLocator.get_suitable_cache_subpath(os.path.join(folder, "__init__.py")))


def _uid() -> str:
    try:
        return str(os.getuid())
    except AttributeError:  # Windows
        import getpass

        return getpass.getuser()


def _private(path: str) -> bool:
    """Whether ``path`` is a real directory owned by this user that no one else can write or read."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    if not hasattr(os, "getuid"):
        return True
    return info.st_uid == os.getuid() and not info.st_mode & 0o077


def fallback_folder() -> str:
    """The per-user cache folder under the temporary directory, created private; a fresh private one from mkdtemp when
    that name is taken by something this user cannot trust."""
    path = os.path.join(tempfile.gettempdir(), f"graphgear-numba-{_uid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return tempfile.mkdtemp(prefix="graphgear-numba-")
    return path if _private(path) else tempfile.mkdtemp(prefix="graphgear-numba-")


def ensure_writable_cache() -> str | None:
    """Give numba a writable cache folder when it would find none for graphgear's kernels; returns the folder set, or
    None when numba's own choice works (or $NUMBA_CACHE_DIR / numba.config.CACHE_DIR was set by the user)."""
    import numba

    if numba.config.CACHE_DIR:
        return None
    for relative in KERNEL_FOLDERS:
        folder = os.path.join(_PACKAGE, relative)
        if _writable(os.path.join(folder, "__pycache__")) or _writable(_user_wide(folder)):
            continue
        path = fallback_folder()
        numba.config.CACHE_DIR = path
        os.environ["NUMBA_CACHE_DIR"] = path
        return path
    return None

"""The graphgear exception hierarchy.

Every error graphgear raises on purpose derives from :class:`GraphgearError`, so a caller can catch one class. Messages
name what is at fault: for a file, the path, the line number and the offending text.

    GraphgearError
      GraphError            a graph that cannot be built as asked (ids out of range, bad arrays, bad options)
        GraphFormatError    a malformed file (path, line, text)
        GraphSpecError      an unknown or malformed generator spec ("kron:abc")
        FileError           a file that cannot be read or written (missing, special, no permission, disk full);
                            also an OSError
        HostMemoryError     more host memory needed than this machine has available (names the bytes); also a
                            MemoryError
          SpecMemoryError   ... for a generator spec (also a GraphSpecError)
      MissingExtraError     an optional package a feature needs is not installed (names the extra); also ImportError
      StrategyError         an impossible or unknown execution strategy
      BackendError          a backend that is not available or cannot do what was asked
        DeviceMemoryError   not enough free device memory (names the bytes needed)
      VerificationError     a result its reference verifier (graphgear.algorithms.verify) finds wrong: names the first
                            wrong vertex, the value found and expected, and how many vertices disagree; graphgear's
                            fault, not the caller's (`graphgear run --verify` exits 1 on it, not 2)

Warnings (the load goes on): GraphgearWarning, with CacheWarning (a cache entry that did not verify or could not be
written) and FormatWarning (a file read under an assumption, such as a Matrix Market file without its banner).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "GraphgearError",
    "GraphError",
    "GraphFormatError",
    "GraphSpecError",
    "StrategyError",
    "BackendError",
    "DeviceMemoryError",
    "VerificationError",
    "FileError",
    "HostMemoryError",
    "SpecMemoryError",
    "MissingExtraError",
    "optional_module",
    "GraphgearWarning",
    "CacheWarning",
    "FormatWarning",
]


class GraphgearError(Exception):
    """Base class of every error graphgear raises on purpose."""


class GraphError(GraphgearError, ValueError):
    """A graph cannot be built from the given input (ids out of range, arrays of different lengths, bad options)."""


class GraphFormatError(GraphError):
    """A graph file is malformed.

    ``path``, ``line`` (1-based, or None when the fault is not on one line) and ``text`` (the offending text) are kept as
    attributes so tools can point at the fault; the message says all three.
    """

    def __init__(self, path: object, line: int | None, message: str, text: str | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.text = text
        super().__init__(located(path, line, message, text))


class GraphSpecError(GraphError):
    """A generator spec string (``kron:20``, ``grid:64:64:0.8``, ...) is unknown or malformed."""


class FileError(GraphError, OSError):
    """A file cannot be read or written as asked: missing, a folder or another special file (FIFO, device), no
    permission, a full disk. ``path`` is kept; the message names it and the reason."""

    def __init__(self, path: object, message: str) -> None:
        self.path = str(path)
        super().__init__(f"{self.path}: {message}")

    def __str__(self) -> str:  # OSError's own __str__ would show its errno fields, which are not set
        return str(self.args[0])


class HostMemoryError(GraphError, MemoryError):
    """Building what was asked needs more host memory than this machine has available. Raised before anything large
    is allocated; the message names the bytes needed and available, and for a file where the need comes from (path,
    line and text, kept as attributes as in GraphFormatError; None when not from a file)."""

    def __init__(self, message: str, path: object = None, line: int | None = None, text: str | None = None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.text = text
        super().__init__(message if path is None else located(path, line, message, text))


class SpecMemoryError(HostMemoryError, GraphSpecError):
    """A generator spec whose graph needs more host memory than this machine has available: a `HostMemoryError`
    (a MemoryError) that is also a `GraphSpecError`, so code catching either refuses it."""


class MissingExtraError(GraphgearError, ImportError):
    """An optional package a feature needs is not installed (pandas, pyarrow, matplotlib, networkx); the message names
    the package and the extra to install (`optional_module`)."""


def optional_module(module: str, purpose: str, install: str) -> Any:
    """Import `module` (``"matplotlib.pyplot"``), or raise MissingExtraError: "`purpose` needs matplotlib, which is not
    installed: `install`"."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise MissingExtraError(f"{purpose} needs {top}, which is not installed: {install}") from None


class StrategyError(GraphgearError, ValueError):
    """An execution strategy is unknown, malformed or impossible (e.g. pull with an edge queue)."""


class BackendError(GraphgearError, RuntimeError):
    """A backend is unavailable (no CuPy, no GPU) or cannot run what was asked."""


class DeviceMemoryError(BackendError, MemoryError):
    """Not enough free device memory for an allocation; the message names the bytes needed and free."""


class VerificationError(GraphgearError):
    """A result disagrees with the independent reference of its verifier (`graphgear.algorithms.verify`): a wrong
    answer, graphgear's fault and not the caller's. The message names the first wrong vertex, the value found, the value
    expected and how many vertices disagree; ``vertex``, ``found``, ``expected`` (None where the message describes it)
    and ``count`` are kept as attributes."""

    def __init__(self, message: str, *, vertex: int | None = None, found: Any = None, expected: Any = None,
                 count: int = 0) -> None:
        self.vertex = vertex
        self.found = found
        self.expected = expected
        self.count = count
        super().__init__(message)


class GraphgearWarning(UserWarning):
    """Base class of graphgear's warnings: something was done differently from what was asked, and the call goes on."""


class CacheWarning(GraphgearWarning):
    """A binary cache entry did not verify (it is parsed again and rewritten) or could not be written (the load
    succeeds uncached)."""


class FormatWarning(GraphgearWarning):
    """A file was read under an assumption its content does not state (the message says which)."""


def warn(message: str, category: type[Warning] = GraphgearWarning) -> None:
    """Issue a warning attributed to the first caller outside graphgear (the user's line, not a module of ours)."""
    import sys
    import warnings

    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("graphgear"):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def located(path: object, line: int | None, message: str, text: str | None = None) -> str:
    """``path, line N: message: 'text'``: how every error about a place in a file reads."""
    where = str(path) if line is None else f"{path}, line {line}"
    shown = "" if text is None else f": {_clip(text)!r}"
    return f"{where}: {message}{shown}"


def _clip(text: str, limit: int = 120) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."

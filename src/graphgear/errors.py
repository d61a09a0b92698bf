"""The graphgear exception hierarchy.

Every error graphgear raises on purpose derives from :class:`GraphgearError`, so a caller can catch one class. Messages
name what is at fault: for a file, the path, the line number and the offending text.

    GraphgearError
      GraphError            a graph that cannot be built as asked (ids out of range, bad arrays, bad options)
        GraphFormatError    a malformed file (path, line, text)
        GraphSpecError      an unknown or malformed generator spec ("kron:abc")
      StrategyError         an impossible or unknown execution strategy
      BackendError          a backend that is not available or cannot do what was asked
        DeviceMemoryError   not enough free device memory (names the bytes needed)
"""

from __future__ import annotations

__all__ = [
    "GraphgearError",
    "GraphError",
    "GraphFormatError",
    "GraphSpecError",
    "StrategyError",
    "BackendError",
    "DeviceMemoryError",
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
        where = self.path if line is None else f"{self.path}, line {line}"
        shown = "" if text is None else f": {_clip(text)!r}"
        super().__init__(f"{where}: {message}{shown}")


class GraphSpecError(GraphError):
    """A generator spec string (``kron:20``, ``grid:64:64:0.8``, ...) is unknown or malformed."""


class StrategyError(GraphgearError, ValueError):
    """An execution strategy is unknown, malformed or impossible (e.g. pull with an edge queue)."""


class BackendError(GraphgearError, RuntimeError):
    """A backend is unavailable (no CuPy, no GPU) or cannot run what was asked."""


class DeviceMemoryError(BackendError, MemoryError):
    """Not enough free device memory for an allocation; the message names the bytes needed and free."""


def _clip(text: str, limit: int = 120) -> str:
    text = text.rstrip("\r\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."

"""What the text readers share: the records they return, lines and their text for messages, the checks every format
makes on ids, weights and memory, and the comment lines at the top of a file (direction and count hints)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ... import memory
from ...errors import GraphFormatError
from ..build import csr_build_bytes
from . import scan

__all__ = ["Records", "line_text", "line_at", "next_line", "first_line", "header_line", "top_comments", "is_real",
           "is_count", "check_ids", "check_weights", "require_csr", "scan_message", "HINT_BYTES", "FLOAT32_MAX"]

HINT_BYTES = 1 << 16  # the bytes read to tell a file's format from its content
FLOAT32_MAX = float(np.finfo(np.float32).max)
_REAL = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_COUNT = re.compile(rb"[0-9]{1,18}")
_DIRECTED = re.compile(rb"\b(un)?directed\b", re.IGNORECASE)
_SPACE = re.compile(rb"[ \t\r]+")


@dataclass
class Records:
    """A parsed file: edge records (0-based int64 ids, float32 weights or None), the vertex count, the direction."""

    src: np.ndarray
    dst: np.ndarray
    weights: np.ndarray | None
    num_vertices: int
    directed: bool


Locate = Callable[[int], scan.ScanError]


def line_text(raw: bytes | bytearray, offset: int) -> str:
    """The text of the line that starts at `offset`."""
    end = raw.find(b"\n", offset)
    return _text(bytes(raw[offset : end if end >= 0 else len(raw)]))


def _text(line: bytes) -> str:
    return line.removesuffix(b"\r").decode("utf-8", "replace")


def line_at(raw: bytes | bytearray, line: int) -> str:
    """Text of 1-based line `line`."""
    pos = 0
    for _ in range(line - 1):
        pos = raw.find(b"\n", pos) + 1
        if pos == 0:
            return ""
    return line_text(raw, pos)


def split_fields(text: bytes, comma: bool) -> list[bytes]:
    """The fields of a line's data part: between commas (stripped), or between runs of space, tab and CR."""
    if comma:
        return [f.strip(b" \t\r") for f in text.split(b",")]
    stripped = text.strip(b" \t\r")
    return _SPACE.split(stripped) if stripped else []


@dataclass(frozen=True)
class Line:
    """A line of the text: its start offset, 1-based number, its content (comment removed where asked) and the whole
    line as text, for messages."""

    offset: int
    number: int
    content: bytes
    text: str


def next_line(raw: bytes | bytearray, offset: int) -> int:
    """Offset of the line after the one holding `offset` (the text's length after the last line)."""
    end = raw.find(b"\n", offset)
    return len(raw) if end < 0 else end + 1


def first_line(raw: bytes | bytearray, is_comment: Callable[[bytes], bool], pos: int = 0, number: int = 1,
               cut: bytes = b"") -> Line | None:
    """The first line from `pos` (numbered `number`) that is neither blank nor a comment line; with `cut`, a comment
    that starts at any byte of `cut` is removed first (edge lists: ``#`` and ``%``)."""
    while pos < len(raw):
        end = raw.find(b"\n", pos)
        end = len(raw) if end < 0 else end
        whole = bytes(raw[pos:end])
        content = whole
        starts = [i for i in (content.find(bytes([c])) for c in cut) if i >= 0]
        if starts:
            content = content[: min(starts)]
        stripped = content.strip(b" \t\r")
        if stripped and not is_comment(stripped):
            return Line(pos, number, content, _text(whole))
        pos, number = end + 1, number + 1
    return None


def header_line(path: Path, raw: bytes | bytearray, is_comment: Callable[[bytes], bool],
                missing: str) -> tuple[Line, str, list[bytes]]:
    """A format's header: the first line that is neither blank nor a comment, its text for messages and its fields;
    a GraphFormatError saying what is `missing` when there is none."""
    line = first_line(raw, is_comment)
    if line is None:
        raise GraphFormatError(path, None, missing)
    return line, line.text, split_fields(line.content, False)


def top_comments(raw: bytes | bytearray, is_comment: Callable[[bytes], bool], stop: int) -> list[Line]:
    """The comment lines above offset `stop` (the first data line)."""
    out = []
    pos, number = 0, 1
    limit = min(stop, len(raw))
    while pos < limit:
        end = raw.find(b"\n", pos)
        end = len(raw) if end < 0 else end
        whole = bytes(raw[pos:end])
        content = whole.strip(b" \t\r")
        if content and is_comment(content):
            out.append(Line(pos, number, content, _text(whole)))
        pos, number = end + 1, number + 1
    return out


def direction_hint(lines: list[Line]) -> bool | None:
    """True/False when one of these comment lines names a directed/undirected graph (the first that does)."""
    for line in lines:
        match = _DIRECTED.search(line.content)
        if match:
            return match.group(1) is None
    return None


def is_real(token: bytes) -> bool:
    """Whether a token is a number (REAL in docs/formats.md)."""
    return _REAL.fullmatch(token) is not None


def is_count(token: bytes) -> bool:
    """Whether a token is an unsigned ID-grammar integer (header counts)."""
    return _COUNT.fullmatch(token) is not None


def scan_message(err: scan.ScanError, columns: tuple[str, ...]) -> str:
    """What a scan status means, naming the column (1-based) and its role."""
    col = err.column
    name = f"column {col + 1} ({columns[col]})" if 0 <= col < len(columns) else f"column {col + 1}"
    if err.status == scan.BAD_NUMBER:
        return f"not a number in {name}"
    if err.status == scan.ID_TOO_LARGE:
        return f"vertex id too large in {name} (more than 18 digits)"
    if err.status == scan.EMPTY_FIELD:
        return f"an empty field in {name}"
    if err.status == scan.TWO_VALUES:
        return f"two values in one comma-separated field ({name})"
    if err.status == scan.BAD_COLUMNS:
        return f"expected {len(columns)} columns ({' '.join(columns)}) on every data line"
    return "cannot parse line"


def check_ids(path: Path, raw: bytes | bytearray, ids: np.ndarray, n: int, base: int, locate: Locate) -> None:
    """Every id in 0..n-1 (as written: base..n-1+base); else a GraphFormatError on the first bad record's line."""
    if ids.size == 0:
        return
    bad = (ids < 0) | (ids >= n)
    if bad.any():
        i = int(np.argmax(bad))
        err = locate(i)
        value = int(ids[i]) + base
        allowed = f"{base}..{n - 1 + base}" if n else "none: the graph has no vertices"
        raise GraphFormatError(path, err.line, f"vertex id {value} out of range (allowed {allowed})",
                               line_text(raw, err.offset))


def check_weights(path: Path, raw: bytes | bytearray, weights: np.ndarray | None, locate: Locate) -> np.ndarray | None:
    """The weights as float32; a value whose float32 rounding is infinite is a GraphFormatError on its line."""
    if weights is None:
        return None
    with np.errstate(over="ignore"):  # an overflow is reported below, on its line
        out = weights.astype(np.float32)
    finite = np.isfinite(out)
    if not finite.all():
        i = int(np.argmin(finite))
        err = locate(i)
        raise GraphFormatError(path, err.line, f"weight {float(weights[i]):.6g} overflows float32 (largest "
                               f"{FLOAT32_MAX:.8g})", line_text(raw, err.offset))
    return out


def require_csr(path: Path, raw: bytes | bytearray, n: int, records: int, directed: bool, weighted: bool,
                where: Callable[[], tuple[int | None, int | None]] | tuple[int | None, int | None], why: str) -> None:
    """Refuse (HostMemoryError naming the file and line) a graph whose CSR would not fit in the memory available.
    `where` is the (line, offset) the need comes from, or a function that finds it (called only on refusal)."""
    need = csr_build_bytes(n, records, directed, weighted)
    room = memory.available_bytes()
    if room is None or need <= room:
        return
    line, offset = where() if callable(where) else where
    memory.require(need, f"{why}: the CSR of {n:,} vertices", path=path, line=line,
                   text=None if offset is None else line_text(raw, offset))

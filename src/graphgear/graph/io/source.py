"""Opening a graph file safely and reading its text under the memory bound.

- Only regular files are read: the path is opened without blocking (O_NONBLOCK, so a FIFO or a device cannot hang the
  call) and refused unless fstat says it is a regular file; a folder, FIFO, socket or device raises FileError, as does a
  file this process may not read.
- gzip content (magic bytes, whatever the name) is decompressed as a stream, one chunk at a time; before each chunk is
  kept, the text so far plus the record arrays its lines imply (24 bytes a line, `scan.record_bytes`) is checked against
  the memory available (`graphgear.memory`), so a gzip bomb is refused after a bounded amount of work.
- A plain file is read into one buffer of its size (no second copy), after the same check.
- A UTF-8 byte order mark at the start is dropped.
"""

from __future__ import annotations

import errno
import os
import stat
import zlib
from pathlib import Path
from typing import Any

from ... import memory
from ...errors import FileError, GraphFormatError
from . import scan
from .output import describe_mode

__all__ = ["open_regular", "read_text", "read_head", "os_error", "GZIP_MAGIC", "BOM"]

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
_CHUNK = 32 << 20


def os_error(path: Any, exc: OSError, doing: str = "cannot read it") -> FileError:
    """An OSError as a FileError naming the path and the reason."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return FileError(path, f"{doing}: permission denied")
    return FileError(path, f"{doing}: {exc.strerror or exc}")


def open_regular(path: Path) -> int:
    """A file descriptor of `path` open for reading, refused unless it is a regular file (never blocks on a FIFO)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        st = os.stat(path)  # a first look, so that nothing special is even opened where the platform can tell
        if not stat.S_ISREG(st.st_mode):
            raise FileError(path, f"is {describe_mode(st.st_mode)}, not a graph file")
        fd = os.open(path, flags)
    except FileError:
        raise
    except FileNotFoundError:
        raise FileError(path, "no such file") from None
    except OSError as exc:
        raise os_error(path, exc) from None
    try:
        st = os.fstat(fd)  # the file actually opened (it may have been swapped since the first look)
        if not stat.S_ISREG(st.st_mode):
            raise FileError(path, f"is {describe_mode(st.st_mode)}, not a graph file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_head(path: Path, size: int) -> bytes:
    """The first `size` bytes of the (decompressed) content: enough to tell the format."""
    with os.fdopen(open_regular(path), "rb") as f:
        try:
            head = f.read(size)
        except OSError as exc:
            raise os_error(path, exc) from None
    if head.startswith(GZIP_MAGIC):
        try:
            head = zlib.decompressobj(wbits=31).decompress(head, size)
        except zlib.error:
            return b""
    return head


def read_text(path: Path, bar: Any = None) -> bytearray:
    """The whole (decompressed) text of a regular file, its BOM dropped. Raises FileError (cannot read),
    GraphFormatError (a corrupt or truncated gzip stream, an empty file) or HostMemoryError (over the memory
    available: the text and the record arrays its lines need)."""
    with os.fdopen(open_regular(path), "rb") as f:
        try:
            size = os.fstat(f.fileno()).st_size
            if bar is not None:
                bar.total = size
            gzipped = f.read(2) == GZIP_MAGIC
            f.seek(0)
            text = _read_gzip(path, f, bar) if gzipped else _read_plain(path, f, size, bar)
        except OSError as exc:
            raise os_error(path, exc) from None
    if text.startswith(BOM):
        del text[: len(BOM)]  # bytearray drops a prefix in place
    if not text.strip():
        raise GraphFormatError(path, None, "empty file")
    return text


def _require(path: Path, text_bytes: int, newlines: int, note: str = "") -> None:
    memory.require(text_bytes + scan.record_bytes(newlines),
                   f"reading {text_bytes:,} bytes of text{note} with {newlines:,} lines (and their edge records)",
                   path=path)


def _read_plain(path: Path, f: Any, size: int, bar: Any) -> bytearray:
    memory.require(size, f"reading {size:,} bytes of text", path=path)
    text = bytearray(size)
    view = memoryview(text)
    got = 0
    newlines = 0
    while got < size:
        n = f.readinto(view[got : min(size, got + _CHUNK)])
        if not n:
            break  # the file shrank while being read: parse what is there
        newlines += text.count(b"\n", got, got + n)
        got += n
        if bar is not None:
            bar.update(got)
    view.release()
    if got < size:
        del text[got:]
    _require(path, 0, newlines)  # the text is held already: what remains is its records
    return text


def _read_gzip(path: Path, f: Any, bar: Any) -> bytearray:
    """Decompress member after member, as Python's gzip module reads them (zero padding after a member is allowed,
    other bytes after it are not), checking the memory bound before each chunk is kept."""
    text = bytearray()
    newlines = 0
    data = f.read(_CHUNK)
    first = True
    while True:
        if not first:  # after a member: zero padding, then the end or another member
            data = data.lstrip(b"\x00")
            while len(data) < len(GZIP_MAGIC):
                more = f.read(_CHUNK)
                if not more:
                    break
                data = (data + more).lstrip(b"\x00")
            if not data:
                return text
            if not data.startswith(GZIP_MAGIC):
                raise GraphFormatError(path, None, "corrupt gzip data: bytes after the compressed stream are not gzip")
        first = False
        d = zlib.decompressobj(wbits=31)
        while not d.eof:
            if not data:
                data = f.read(_CHUNK)
            try:
                out = d.decompress(data, _CHUNK) if data else d.flush()
            except zlib.error as exc:
                raise GraphFormatError(path, None, f"corrupt or truncated gzip data ({exc})") from None
            if not data and not out and not d.eof:
                raise GraphFormatError(path, None, "corrupt or truncated gzip data (the stream ends early)")
            data = d.unconsumed_tail
            if out:
                newlines += out.count(b"\n")
                _require(path, len(text) + len(out), newlines, " (decompressed)")
                text += out
            if bar is not None:
                bar.update(f.tell())
        data = d.unused_data + data

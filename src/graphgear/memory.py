"""Host memory: how much this machine has available now, and refusing work that needs more before it allocates.

Every place that is about to allocate in proportion to something a user handed in (a vertex id in a file, a header's
counts, an .npz array header, a generator spec, the size of a gzip stream) estimates the bytes first and calls
`require`. The limit is what the machine can give now, not a fixed number:

- Linux: ``MemAvailable`` of /proc/meminfo, lowered to what the process's cgroup still allows (v2 ``memory.max`` minus
  ``memory.current``, v1 ``memory.limit_in_bytes`` minus ``memory.usage_in_bytes``) and to the address-space limit
  (``ulimit -v``);
- elsewhere: the free physical pages (sysconf), or nothing known (no refusal).

``$GRAPHGEAR_MEMORY_LIMIT`` (bytes, or with a K/M/G/T suffix: ``8G``) caps it further: for tests, and for a user who
shares a machine.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .errors import HostMemoryError

__all__ = ["available_bytes", "require", "format_bytes", "parse_size", "LIMIT_ENV"]

LIMIT_ENV = "GRAPHGEAR_MEMORY_LIMIT"
_SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """Bytes of a size such as ``123``, ``512M``, ``8G``, ``1.5GiB``; ValueError when it is not one."""
    match = _SIZE.match(text)
    if not match:
        raise ValueError(f"not a size: {text!r} (expected bytes, or a number with K, M, G or T)")
    return int(float(match.group(1)) * _SUFFIX[match.group(2).upper()])


def _read_int(path: str) -> int | None:
    try:
        text = Path(path).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max" (no limit) and anything odd: none


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room() -> int | None:
    """What the process's cgroup still allows, or None without a limit."""
    limit, usage = _read_int("/sys/fs/cgroup/memory.max"), _read_int("/sys/fs/cgroup/memory.current")
    if limit is None:
        limit, usage = (_read_int("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                        _read_int("/sys/fs/cgroup/memory/memory.usage_in_bytes"))
        if limit is not None and limit >= 1 << 60:  # v1 says "no limit" with a huge number
            limit = None
    if limit is None:
        return None
    return max(0, limit - (usage or 0))


def _address_space_room() -> int | None:
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError, AttributeError):
        return None
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    try:
        with open("/proc/self/statm", "rb") as f:
            used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        used = 0
    return max(0, soft - used)


def _sysconf_available() -> int | None:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def available_bytes() -> int | None:
    """Bytes of host memory this process can still take, or None when the platform does not say (no refusal then)."""
    found = [v for v in (_meminfo_available(), _cgroup_room(), _address_space_room()) if v is not None]
    if not found:
        fallback = _sysconf_available()
        if fallback is not None:
            found.append(fallback)
    cap = os.environ.get(LIMIT_ENV)
    if cap:
        try:
            found.append(parse_size(cap))
        except ValueError:
            raise HostMemoryError(f"${LIMIT_ENV} is {cap!r}, not a size (bytes, or a number with K, M, G or "
                                  "T)") from None
    return min(found) if found else None


def format_bytes(n: float) -> str:
    """``19,327,352,832 bytes (18.0 GiB)``: exact for the record, readable for the eye."""
    n = int(n)
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n:,} bytes ({n / size:,.1f} {unit})"
    return f"{n:,} bytes"


def require(need: float, what: str, *, path: object = None, line: int | None = None, text: str | None = None) -> None:
    """Raise HostMemoryError when `need` bytes exceed what is available. `what` says what would take them ("the CSR
    of 2^40 vertices"); `path`/`line`/`text` place it in a file."""
    room = available_bytes()
    if room is None or need <= room:
        return
    raise HostMemoryError(
        f"{what} needs an estimated {format_bytes(need)}, more than the {format_bytes(room)} of memory available",
        path, line, text,
    )

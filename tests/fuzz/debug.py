"""One fuzz case in this process, shown in full: what was done to the seed, the bytes, both answers, the verdict."""

from __future__ import annotations

import gzip
import tempfile
import zlib
from pathlib import Path

import reference_formats as ref

from .cases import make_case, parse_id
from .judge import judge


def preview(data: bytes, limit: int = 600) -> str:
    """The text (escaped) when it is mostly printable, else a hexdump; gzip content is shown decompressed too."""
    lines = []
    if data[:2] == b"\x1f\x8b":
        lines.append(f"gzip, {len(data)} bytes: {data[:48].hex(' ')}{' ...' if len(data) > 48 else ''}")
        try:
            data = gzip.decompress(data)
            lines.append("decompressed:")
        except (OSError, EOFError, zlib.error) as exc:
            lines.append(f"(does not decompress: {exc})")
            return "\n".join(lines)
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in data[:limit])
    if data and printable < 0.9 * min(len(data), limit):
        for k in range(0, min(len(data), limit), 16):
            chunk = data[k : k + 16]
            lines.append(f"{k:06x}  {chunk.hex(' '):<48}  {''.join(chr(b) if 32 <= b < 127 else '.' for b in chunk)}")
    else:
        for number, line in enumerate(data[:limit].split(b"\n"), 1):
            lines.append(f"{number:4}| {str(line)[2:-1]}")
    if len(data) > limit:
        lines.append(f"... ({len(data)} bytes in all)")
    return "\n".join(lines)


def glimpse(case_id: str, lines: int = 6, width: int = 100) -> str:
    """A few lines of the case's file (decompressed when gzip), or a short hexdump: for a report."""
    fmt, seed = parse_id(case_id)
    with tempfile.TemporaryDirectory(prefix="graphgear-fuzz-case-") as scratch:
        case = make_case(fmt, seed, Path(scratch))
    shown = preview(case.data, limit=400).splitlines()
    head = f"{case.name}, {len(case.data)} bytes; " + "; ".join(case.notes)
    return "\n".join([head[:width * 2]] + [line[:width] for line in shown[: lines + 2]])


def show(case_id: str, keep: str | None = None) -> str:
    """Build, print and judge the case `case_id` ("el.gz:17"); returns its outcome. With `keep`, the file is written
    to that folder and left there."""
    fmt, seed = parse_id(case_id)
    with tempfile.TemporaryDirectory(prefix="graphgear-fuzz-case-") as scratch:
        case = make_case(fmt, seed, Path(scratch))
        print(f"case {case.id}: file {case.name}, {len(case.data)} bytes, chunk {case.chunk_bytes}")
        for note in case.notes:
            print(f"  - {note}")
        print(preview(case.data))
        try:
            r = ref.read(case.data, case.name)
            print(f"reference: V={r.num_vertices} directed={r.directed} records={r.num_records} "
                  f"weighted={r.weights is not None}")
        except ref.ReferenceFormatError as exc:
            print(f"reference refuses: {exc}")
        verdict = judge(case, Path(scratch))
        print(f"verdict: {verdict.outcome} {verdict.reason}")
        if keep:
            folder = Path(keep)
            folder.mkdir(parents=True, exist_ok=True)
            (folder / case.name).write_bytes(case.data)
            print(f"kept: {folder / case.name}")
    return verdict.outcome

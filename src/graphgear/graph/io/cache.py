"""The binary cache of parsed text files: verified on every load, never trusted.

One entry per source path and load options (``<file name>.<hash of path, format, options>.npz`` in `cache_dir`). An
entry records inside itself the identity of the source it was parsed from (`SourceIdentity`: path, size, mtime_ns,
inode, ctime_ns and a hash of sampled blocks of the content) and the CRC-32 of each of its arrays (npz.py's manifest).
A load uses an entry only when the source's identity now is the recorded one and every member's CRC-32 is the recorded
one (zipfile checks each member's data against its CRC-32 as it is read). ctime cannot be set by a user (utime sets
mtime and atime only) and changes with every write, rename or chmod, so a source rewritten with the same size and mtime
does not match; the inode catches a file replaced by another; the sampled hash catches a copy that kept all of them.

Whatever does not verify (stale, swapped for another graph's entry, truncated, bit-flipped, unreadable) is parsed
again and rewritten, with a CacheWarning saying why; it is never returned and never raises. A write that fails (a
read-only folder, a full disk) warns and the load succeeds uncached. Entries are written through
`output.write_atomically`, so they respect the umask; temporaries of writers that died are removed.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ...errors import CacheWarning, GraphgearError, warn
from ..graph import Graph
from . import npz
from .source import open_regular
from .output import clean_stale, write_atomically

__all__ = ["cache_dir", "CacheEntry", "SourceIdentity", "SCHEME", "MIN_BYTES"]

SCHEME = 2  # the entry layout and key; part of the file name, so entries of another scheme are never opened
MIN_BYTES = 16 << 20  # files at least this large are cached by default
STALE_SECONDS = 24 * 3600  # a temporary this old in the cache folder is a dead writer's, wherever it ran
_SAMPLE_BLOCK = 64 << 10
_SAMPLE_BLOCKS = 64
_SAMPLE_ENDS = 1 << 20


def cache_dir() -> Path:
    """Folder of cached parsed files: $GRAPHGEAR_CACHE_DIR, else ~/.cache/graphgear."""
    return Path(os.environ.get("GRAPHGEAR_CACHE_DIR") or Path.home() / ".cache" / "graphgear")


@dataclass(frozen=True)
class SourceIdentity:
    """What identifies a source file's content without reading all of it."""

    path: str
    size: int
    mtime_ns: int
    inode: int
    ctime_ns: int
    sample: str  # blake2b of the first and last MiB and 64 blocks of 64 KiB spread between (the whole of a small file)

    @classmethod
    def of(cls, path: Path) -> SourceIdentity:
        with os.fdopen(open_regular(path), "rb") as f:
            st = os.fstat(f.fileno())
            digest = hashlib.blake2b(digest_size=16)
            digest.update(str(st.st_size).encode())
            if st.st_size <= 2 * _SAMPLE_ENDS + _SAMPLE_BLOCKS * _SAMPLE_BLOCK:
                digest.update(f.read())
            else:
                digest.update(f.read(_SAMPLE_ENDS))
                span = st.st_size - 2 * _SAMPLE_ENDS - _SAMPLE_BLOCK
                for k in range(_SAMPLE_BLOCKS):
                    f.seek(_SAMPLE_ENDS + span * k // (_SAMPLE_BLOCKS - 1))
                    digest.update(f.read(_SAMPLE_BLOCK))
                f.seek(st.st_size - _SAMPLE_ENDS)
                digest.update(f.read(_SAMPLE_ENDS))
        return cls(str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, digest.hexdigest())


class CacheEntry:
    """The cache entry of one source file read with one set of options."""

    def __init__(self, source: Path, fmt: str, options: dict[str, Any]) -> None:
        self.source = source
        self.key = {"format": fmt, "options": {k: options[k] for k in sorted(options)}, "scheme": SCHEME}
        resolved = str(source.resolve())
        digest = hashlib.sha1(json.dumps([resolved, self.key], sort_keys=True).encode()).hexdigest()[:16]
        self.path = cache_dir() / f"{source.name}.{digest}.v{SCHEME}.npz"
        self.identity = SourceIdentity.of(source)  # taken before the parse: a change during it makes the entry stale

    def load(self) -> Graph | None:
        """The cached graph if the entry exists and verifies; else None (with a CacheWarning unless it is absent)."""
        if not self.path.exists():
            return None
        try:
            return self._verified()
        except (GraphgearError, OSError, ValueError, KeyError, TypeError) as exc:
            warn(f"cache entry {self.path} for {self.source} does not verify ({exc}); parsing the file again and "
                 "rewriting it", CacheWarning)
            return None

    def _verified(self) -> Graph:
        with npz.NpzMembers(self.path) as members:
            if npz.MANIFEST not in members.infos:
                raise ValueError("it has no manifest")
            record = json.loads(str(members.scalar(npz.MANIFEST)))
            if not isinstance(record, dict):
                raise ValueError("its manifest is not a record")
            if record.get("key") != self.key:
                raise ValueError("it was written for another format or other options")
            if record.get("source") != asdict(self.identity):
                raise ValueError(f"the source changed since ({_difference(record.get('source'), self.identity)})")
            crcs = record.get("members")
            listed = set(members.infos) - {npz.MANIFEST}
            if not isinstance(crcs, dict) or set(crcs) != listed:
                raise ValueError("its members are not the ones its manifest lists")
            for name, crc in crcs.items():
                if members.crc(name) != crc:
                    raise ValueError(f"member {name!r} is not the one its manifest lists (CRC-32)")
            return npz.read_npz(self.path, members, validate=False)

    def store(self, graph: Graph) -> None:
        """Write the entry; on failure warn and carry on (the load has its graph)."""
        try:
            if SourceIdentity.of(self.source) != self.identity:
                return  # the file changed while it was parsed: an entry for either version would be wrong
            folder = self.path.parent
            folder.mkdir(parents=True, exist_ok=True)
            clean_stale(folder, older_than=STALE_SECONDS)
            manifest = {"key": self.key, "source": asdict(self.identity)}
            write_atomically(self.path, lambda f: npz.write_npz(graph, f, manifest), what="cache entry")
        except (GraphgearError, OSError) as exc:
            warn(f"could not write the cache entry {self.path} for {self.source} ({exc}); the graph is loaded, not "
                 "cached", CacheWarning)


def _difference(recorded: Any, now: SourceIdentity) -> str:
    if not isinstance(recorded, dict):
        return "no record of it"
    changed = [k for k, v in asdict(now).items() if recorded.get(k) != v]
    return ", ".join(changed) + " differ" if changed else "its record differs"


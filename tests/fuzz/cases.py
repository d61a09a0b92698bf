"""One fuzz case from (format, seed): a seed file, its mutations, the file name and the parse-chunk size to use.

Everything is drawn from ``random.Random(f"graphgear-fuzz:{format}:{seed}")``, so a case is the same bytes every time
(as long as this code and gg.save's output stay the same: gg.save writes a share of the seeds).
"""

from __future__ import annotations

import io
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import mutate, seeds
from .seeds import FORMATS

CHUNKED_SHARE = 0.35  # share of text cases parsed with a tiny chunk size (8-64 bytes), when graphgear has the knob
UNMUTATED_SHARE = 0.12  # share of cases left as their valid seed


@dataclass
class Case:
    """A file to load: its name (the extension selects the format), its bytes, the chunk size and what was done."""

    fmt: str
    seed: int
    name: str
    data: bytes
    chunk_bytes: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.fmt}:{self.seed}"


def parse_id(case_id: str) -> tuple[str, int]:
    """("el.gz", 17) from "el.gz:17"."""
    fmt, _, seed = case_id.rpartition(":")
    if fmt not in FORMATS:
        raise ValueError(f"unknown fuzz format {fmt!r} (one of {', '.join(FORMATS)})")
    return fmt, int(seed)


def _mutation_count(rng: random.Random) -> int:
    r = rng.random()
    if r < UNMUTATED_SHARE:
        return 0
    return 1 if r < 0.55 else 2 if r < 0.8 else rng.randint(3, 6)


def make_case(fmt: str, seed: int, workdir: Path) -> Case:
    """The case (fmt, seed); `workdir` is scratch space for gg.save's seed files."""
    rng = random.Random(f"graphgear-fuzz:{fmt}:{seed}")
    base, gz = fmt.removesuffix(".gz"), fmt.endswith(".gz")
    if base == "npz":
        return _npz_case(fmt, seed, rng, workdir)
    text, name, notes = seeds.seed_file(base, rng, workdir)
    chunk = rng.randint(8, 64) if rng.random() < CHUNKED_SHARE else None
    if chunk:
        notes.append(f"CHUNK_BYTES={chunk}")
    count = _mutation_count(rng)
    gzip_mutated = gz and count > 0 and rng.random() < 0.35
    if gzip_mutated:
        count -= 1
    data, more = mutate.mutate_bytes(text, rng, count, chunk)
    notes += more
    if gz:
        data, more = mutate.gzip_text(data, rng, chunk)
        notes += more
        if gzip_mutated:
            data, more = mutate.mutate_gzip(data, rng)
            notes += more
        if rng.random() < 0.75:
            name += ".gz"
        else:
            notes.append("gzip content without .gz in the name")
    return Case(fmt, seed, name, data, chunk, notes)


def _npz_case(fmt: str, seed: int, rng: random.Random, workdir: Path) -> Case:
    data, name, notes = seeds.seed_file("npz", rng, workdir)
    r = rng.random()
    if r < UNMUTATED_SHARE:
        return Case(fmt, seed, name, data, None, notes)
    if r < 0.4:  # bytes of the whole archive
        data, more = mutate.mutate_bytes(data, rng, rng.randint(1, 3), table=mutate.ZIP_MUTATIONS)
        return Case(fmt, seed, name, data, None, notes + more)
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    if r < 0.9:  # one or two semantic mutations
        functions, weights = zip(*mutate.NPZ_SEMANTIC)
        for _ in range(1 if rng.random() < 0.75 else 2):
            mutation = rng.choices(functions, weights)[0]
            trial = dict(arrays)  # mutations replace arrays, never write into them
            try:
                notes.append(mutation(trial, rng))
                arrays = trial
            except (KeyError, ValueError, IndexError, TypeError) as exc:  # a member an earlier mutation removed, ...
                notes.append(f"{mutation.__name__.lstrip('_')}: not applicable ({type(exc).__name__})")
    data, more = mutate.npz_from_arrays(arrays, rng)
    return Case(fmt, seed, name, data, None, notes + more)

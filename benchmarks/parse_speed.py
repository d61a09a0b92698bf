"""Edge-list parse throughput of one file, min and median of several runs: for before/after comparisons.

    python benchmarks/parse_speed.py FILE.el [--repeat 7]

The parse alone (the text already in memory -> edge arrays, with every check the reader makes), no CSR build. It runs
the reader of the graphgear it imports, so the same command run with PYTHONPATH pointing at an older checkout's src/
measures that one (io._read_edgelist before the io package of session 15, io.edgelist.read_edgelist after). On a shared
machine alternate the two a few times and compare the minima.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    try:
        from graphgear.graph.io.edgelist import read_edgelist

        raw = bytearray(args.file.read_bytes())
        label = "io.edgelist.read_edgelist"
        count = lambda r: r.src.size  # noqa: E731
    except ImportError:  # a checkout from before the io package
        from graphgear.graph import io as gio

        read_edgelist = gio._read_edgelist
        raw = args.file.read_bytes()
        label = "io._read_edgelist"
        count = lambda r: r[0].size  # noqa: E731
    read_edgelist(args.file, raw)  # warm-up (numba's cache)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = read_edgelist(args.file, raw)
        times.append(time.perf_counter() - start)
    m = count(result)
    best, middle = min(times), statistics.median(times)
    print(f"{label}: {m:,} edges; min {best:.3f} s ({m / best / 1e6:.1f} M edges/s), "
          f"median {middle:.3f} s ({m / middle / 1e6:.1f} M edges/s)")


if __name__ == "__main__":
    main()

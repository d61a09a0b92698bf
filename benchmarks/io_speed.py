"""Text parsing speed and binary-cache speed on a large edge list (issue 2's acceptance measurement).

    python benchmarks/io_speed.py [--edges 30000000] [--dir /tmp]

Writes a directed edge list of random edges (R-MAT-like skew is irrelevant to parsing), then times, median of 3 runs:
parsing only (text -> edge arrays), a full text load (parse + CSR build, no cache), and a load from the binary cache.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import graphgear as gg
from graphgear.graph.io.edgelist import read_edgelist


def median_time(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edges", type=int, default=30_000_000)
    parser.add_argument("--vertices", type=int, default=1 << 22)
    parser.add_argument("--dir", default=tempfile.gettempdir())
    args = parser.parse_args()

    folder = Path(args.dir)
    rng = np.random.default_rng(0)
    text = folder / f"random_{args.edges}.el"
    g = gg.Graph.from_edges(rng.integers(0, args.vertices, args.edges), rng.integers(0, args.vertices, args.edges),
                            num_vertices=args.vertices)
    start = time.perf_counter()
    gg.save(g, text)
    write_s = time.perf_counter() - start
    size_mb = text.stat().st_size / 1e6
    records = g.num_edges

    raw = bytearray(text.read_bytes())
    parse_s = median_time(lambda: read_edgelist(text, raw))
    load_s = median_time(lambda: gg.load(text, cache=False))
    gg.load(text, cache=True)  # writes the cache entry
    cache_s = median_time(lambda: gg.load(text, cache=True))

    print(f"edge list: {records:,} edges, {size_mb:,.0f} MB, written in {write_s:.2f} s")
    print(f"parse only (text -> arrays):   {parse_s:6.2f} s  {records / parse_s / 1e6:6.1f} M edges/s  {size_mb / parse_s:6.0f} MB/s")
    print(f"text load (parse + CSR build): {load_s:6.2f} s  {records / load_s / 1e6:6.1f} M edges/s")
    print(f"binary cache load:             {cache_s:6.2f} s  {load_s / cache_s:6.1f}x faster than the text load")
    text.unlink()


if __name__ == "__main__":
    main()

"""The bytes one PageRank iteration would move under MultiGraph's dense mode (MultiGraphD, Hong et al. PACT'17 section
4), counted on the host from a graph's edge matrix: the figure behind issue 24's question whether the two-phase pass
can beat the pull over the CSC (docs/performance.md, "MultiGraphD's two phases, counted"). Nothing runs on a GPU.

    python3 benchmarks/multigraphd_bytes.py [--graph kron:21] [--block 6144] [--heavy 18432] [--bandwidth 4.2e12]

The edge matrix (rows: destinations, columns: sources) of the graph renumbered by each layout is cut into --block x
--block tiles (the paper's 6 x 1024). A tile of more than --heavy arcs (the paper's 18K) is heavy: one CTA reads its
arcs as 4-byte elements in the paper's column-major layout (the sources, a negated destination before each
destination's run, a repeated one at the top of each of the 1024 columns) and writes the tile's --block destination
sums (8 bytes each), which phase 2 reads again. The light arcs of a column panel are streamed: per arc its source
(4 bytes) and stream-buffer slot (4) are read and its contribution written (8); phase 2 reads it back with its
destination (8 + 4). Each vertex's contribution is read once into shared memory and each rank written once (8 + 8
bytes). The plain pull reads the CSC's 4-byte sources and, per arc, a random 8-byte contribution: a 32-byte L2 sector.
The time printed is the bytes at --bandwidth (a device-to-device copy's rate on an H200, docs/performance.md): a bound
no kernel reaches, not a measurement.
"""

from __future__ import annotations

import argparse

import numpy as np

COLUMNS = 1024  # the heavy tile's CTA: one column of the layout per thread


def count(graph, block: int, heavy: int) -> dict:
    """The tiles, the heavy ones and their arcs, and the bytes of both phases for one renumbered graph."""
    n, m = graph.num_vertices, graph.num_arcs
    src = np.repeat(np.arange(n, dtype=np.int64), graph.out_degree())
    dst = graph.indices.astype(np.int64)
    panels = (n + block - 1) // block
    tile = (dst // block) * panels + src // block
    arcs = np.bincount(tile, minlength=panels * panels)
    is_heavy = arcs > heavy
    on_heavy = is_heavy[tile]
    heavy_arcs = int(arcs[is_heavy].sum())
    separators = np.unique(tile[on_heavy] * n + dst[on_heavy]).size  # one per (heavy tile, destination)
    tiles = int(is_heavy.sum())
    heavy_bytes = 4 * (heavy_arcs + separators + COLUMNS * tiles) + 2 * 8 * block * tiles
    light_bytes = (m - heavy_arcs) * (4 + 4 + 8 + 8 + 4)
    total = heavy_bytes + light_bytes + 2 * 8 * n
    return {"panels": panels, "heavy_tiles": tiles, "heavy_arcs": heavy_arcs, "arcs": m, "separators": separators,
            "heavy_bytes": heavy_bytes, "light_bytes": light_bytes, "total": total}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", default="kron:21")
    ap.add_argument("--block", type=int, default=6 * 1024)
    ap.add_argument("--heavy", type=int, default=18 * 1024)
    ap.add_argument("--bandwidth", type=float, default=4.2e12)
    args = ap.parse_args()

    import graphgear as gg
    from graphgear.graph.layout import degree_renumbering, in_degree_groups

    g = gg.load(args.graph)
    m = g.num_arcs
    print(f"{args.graph}: {g.num_vertices:,} vertices, {m:,} arcs; tiles of {args.block} x {args.block}, heavy above "
          f"{args.heavy:,} arcs; times at {args.bandwidth / 1e12:.2f} TB/s")
    print("| layout | tiles | heavy tiles | arcs in heavy tiles | heavy MB | light MB | total MB | ms at the bandwidth |")
    print("|---|---|---|---|---|---|---|---|")
    for name, layout in (("in_degree_groups", in_degree_groups), ("degree", degree_renumbering)):
        c = count(layout(g).graph, args.block, args.heavy)
        print(f"| {name} | {c['panels']}^2 | {c['heavy_tiles']:,} | {c['heavy_arcs']:,} ({c['heavy_arcs'] / m:.1%}) | "
              f"{c['heavy_bytes'] / 1e6:,.0f} | {c['light_bytes'] / 1e6:,.0f} | {c['total'] / 1e6:,.0f} | "
              f"{c['total'] / args.bandwidth * 1e3:.3f} |")
    pull = 4 * m + 32 * m + 2 * 8 * g.num_vertices
    print(f"the pull over the CSC: {4 * m / 1e6:,.0f} MB of sources, {32 * m / 1e9:.2f} GB of 32-byte L2 sectors for "
          f"the contributions; {pull / 1e6:,.0f} MB in all")


if __name__ == "__main__":
    main()

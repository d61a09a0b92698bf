"""The bytes one PageRank iteration would move under MultiGraph's dense mode (MultiGraphD, Hong et al. PACT'17 section
4), counted on the host from the layout graphgear builds for it (graph/tiles.py): the figure behind issue 24's
question whether the two-phase pass can beat the pull over the CSC (docs/performance.md, "MultiGraphD's two phases,
counted"). Nothing runs on a GPU.

    python3 benchmarks/multigraphd_bytes.py [--graph kron:21] [--block 6144] [--heavy 18432] [--bandwidth 4.2e12]

For the graph renumbered by each layout, tile_layout's arrays as the kernels would read and write them: phase 1 reads
every heavy tile's element matrix (4-byte words: sources, negated destinations, padding) and writes its `block`
destination sums (8 bytes each); it reads every light arc's source (4) and stream slot (8) and writes its
contribution (8); phase 2 reads the whole stream buffer (8 a slot) and each light slot's destination (4). Each
vertex's contribution is read once into shared memory and each rank written once (8 + 8 bytes). The pull over the
CSC reads its 4-byte sources and, per arc, a random 8-byte contribution: a 32-byte L2 sector. The time printed is the
bytes at --bandwidth (a device-to-device copy's rate on an H200, docs/performance.md): a floor no kernel reaches, not
a measurement.
"""

from __future__ import annotations

import argparse


def count(layout) -> dict:
    """The heavy tiles, their arcs, and the bytes of both phases of one tile layout (module notes)."""
    light = layout.light_source.size
    tiles = layout.heavy_row.size
    heavy_bytes = layout.elements.nbytes + layout.element_weights.nbytes + 8 * layout.block * tiles
    light_bytes = (layout.light_source.nbytes + layout.light_weight.nbytes + layout.light_slot.nbytes + 8 * light
                   + 4 * light)
    stream_bytes = 8 * layout.stream_size
    total = heavy_bytes + light_bytes + stream_bytes + 2 * 8 * layout.num_vertices
    return {"tiles": tiles, "light": light, "heavy_bytes": heavy_bytes, "light_bytes": light_bytes,
            "stream_bytes": stream_bytes, "total": total}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", default="kron:21")
    ap.add_argument("--block", type=int, default=6 * 1024)
    ap.add_argument("--heavy", type=int, default=18 * 1024)
    ap.add_argument("--bandwidth", type=float, default=4.2e12)
    args = ap.parse_args()

    import graphgear as gg
    from graphgear.graph.layout import degree_renumbering, in_degree_groups
    from graphgear.graph.tiles import COLUMNS, tile_layout

    g = gg.load(args.graph)
    m = g.num_arcs
    print(f"{args.graph}: {g.num_vertices:,} vertices, {m:,} arcs; tiles of {args.block} x {args.block}, heavy above "
          f"{args.heavy:,} arcs; times at {args.bandwidth / 1e12:.2f} TB/s")
    print("| layout | heavy tiles | arcs in heavy tiles | heavy MB | light MB | stream MB | total MB | ms at the "
          "bandwidth |")
    print("|---|---|---|---|---|---|---|---|")
    for name, renumbering in (("in_degree_groups", in_degree_groups), ("degree", degree_renumbering)):
        c = count(tile_layout(renumbering(g).graph, args.block, COLUMNS, args.heavy))
        heavy_arcs = m - c["light"]
        print(f"| {name} | {c['tiles']:,} | {heavy_arcs:,} ({heavy_arcs / m:.1%}) | {c['heavy_bytes'] / 1e6:,.0f} | "
              f"{c['light_bytes'] / 1e6:,.0f} | {c['stream_bytes'] / 1e6:,.0f} | {c['total'] / 1e6:,.0f} | "
              f"{c['total'] / args.bandwidth * 1e3:.3f} |")
    pull = 4 * m + 32 * m + 2 * 8 * g.num_vertices
    print(f"the pull over the CSC: {4 * m / 1e6:,.0f} MB of sources, {32 * m / 1e9:.2f} GB of 32-byte L2 sectors for "
          f"the contributions; {pull / 1e6:,.0f} MB in all")


if __name__ == "__main__":
    main()

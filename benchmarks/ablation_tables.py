"""The GPU suite's ablation tables (`graphgear bench --suite gpu`'s, bench/gpu.py), one graph at a time, printed as
markdown rows as each is done: a table per argument, so that a device call of at most 10 minutes can run a part of
them on one tree and the next call the rest.

    python3 benchmarks/ablation_tables.py balance dedup paths pagerank [--graphs kron:21 ...]

balance: BFS by load-balancing technique and support (sync / async), then the table, the hybrid and auto; dedup:
Bellman-Ford by duplicate removal on an edge queue (ms / entries computed); paths: BFS by SEP-Graph's eight paths and
the controllers; pagerank: PageRank by method and layout (ms / iterations). Every cell's result is checked against the
CPU backend's (bench/gpu.py _ablation_rows): a cell marked WRONG is not a technique's time."""

from __future__ import annotations

import argparse

from graphgear.bench import gpu

GRAPHS = ["kron:21", "grid:2048:2048", ".data/graphs/social/email-Enron.txt.gz", ".data/graphs/social/wiki-Vote.txt"]
TABLES = {  # name: (the ablation, repeat, its columns, a cell)
    "balance": (gpu.ablation, 5, lambda: [c for c, _ in gpu.ablation_columns()], lambda row, c: f"{row[c]:.3f}"),
    "dedup": (gpu.dedup_ablation, 5, lambda: list(gpu.DEDUP_TECHNIQUES),
              lambda row, c: f"{row[c]:.2f} / {row[c + ' listed']:,}"),
    "paths": (gpu.path_ablation, 5, lambda: [c for c, _ in gpu.path_columns()], lambda row, c: f"{row[c]:.3f}"),
    "pagerank": (gpu.pagerank_ablation, 3, lambda: [c for c, _ in gpu.PAGERANK_COLUMNS],
                 lambda row, c: f"{row[c]:.3f} / {row[c + ' iterations']}"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+", choices=sorted(TABLES))
    parser.add_argument("--graphs", nargs="+", default=GRAPHS)
    args = parser.parse_args()
    for name in args.tables:
        run, repeat, columns, cell = TABLES[name]
        print(f"\n{name}\n| graph | " + " | ".join(columns()) + " |", flush=True)
        rows = []
        for spec in args.graphs:
            (row,) = run([spec], repeat, progress=lambda m: None)
            rows.append(row)
            print(f"| {str(row['graph']).split('/')[-1]} | "
                  + " | ".join(gpu.ablation_cell(row, c, cell(row, c)) for c in columns()) + " |", flush=True)
        for row in rows:
            if "reach" in row:
                print(gpu.reach_line(row))


if __name__ == "__main__":
    main()

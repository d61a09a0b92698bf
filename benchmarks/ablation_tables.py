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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="+", choices=sorted(gpu.ABLATION_TABLES))
    parser.add_argument("--graphs", nargs="+", default=GRAPHS)
    args = parser.parse_args(argv)
    for name in args.tables:
        table = gpu.ABLATION_TABLES[name]
        columns = table.columns()
        print(f"\n{name}\n| graph | " + " | ".join(columns) + " |", flush=True)
        rows = []
        for spec in args.graphs:
            (row,) = table.run([spec], table.repeat, progress=lambda m: None)
            rows.append(row)
            print(f"| {str(row['graph']).split('/')[-1]} | " + " | ".join(table.marked(row, c) for c in columns) + " |",
                  flush=True)
        for line in table.notes(rows):
            print(line)


if __name__ == "__main__":
    main()

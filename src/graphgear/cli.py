"""The `graphgear` command: info, generate and convert graphs (run and bench come with the engine)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from . import __version__, progress
from .errors import GraphgearError

GRAPH_HELP = """\
graphs:
  A GRAPH is a file or a generator spec.

  files (gzipped too, e.g. .txt.gz; the format comes from the extension, else the content):
    .mtx                            Matrix Market coordinate (pattern/integer/real; 'symmetric' = undirected)
    .txt .el .wel .csv .tsv .edges  edge list "source target [weight]", 0-based ids, '#'/'%' comments
    .gr                             DIMACS shortest-path "p sp N M" / "a u v w", 1-based
    .graph .metis .chaco            METIS/Chaco (DIMACS10), undirected
    .npz                            graphgear's binary CSR (fast to load; large text files are cached so)
  Direction comes from the file (symmetric Matrix Market, METIS, a "# Undirected graph" comment);
  --directed / --undirected override it.

  generator specs (seeded and deterministic; add ':w' for integer weights 1..255 and 'seed=N'):
    kron:SCALE[:EF]        Graph500 Kronecker, 2^SCALE vertices, EF*2^SCALE edges (EF 16), undirected
    rmat:SCALE:EF          R-MAT, directed
    er:N:AVGDEG            Erdos-Renyi, undirected
    rgg:SCALE              random geometric graph (DIMACS10), 2^SCALE points, undirected
    grid:ROWS:COLS[:KEEP]  road-like 4-neighbour lattice, keeping a random fraction KEEP of edges
  e.g.  kron:20   rmat:18:16:w   grid:512:512:0.8:seed=3
"""


def _direction(args: argparse.Namespace) -> bool | None:
    return True if args.directed else False if args.undirected else None


def _add_graph_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--directed", action="store_true", help="treat the graph as directed")
    group.add_argument("--undirected", action="store_true", help="treat the graph as undirected (merge u->v, v->u)")
    parser.add_argument("--format", help="input format when the name does not tell (mtx, edgelist, dimacs, metis, npz)")
    parser.add_argument("--keep-self-loops", action="store_true", help="keep self-loops (dropped by default)")
    parser.add_argument("--keep-duplicates", action="store_true", help="keep duplicate edges (dropped by default)")
    parser.add_argument("--renumber", action="store_true", help="renumber sparse vertex ids to 0..V-1")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the binary cache")


def _load(args: argparse.Namespace, source: str):
    from .graph.io import load

    return load(
        source,
        directed=_direction(args),
        format=args.format,
        self_loops="keep" if args.keep_self_loops else "drop",
        duplicates="keep" if args.keep_duplicates else "drop",
        renumber=args.renumber,
        cache=False if args.no_cache else None,
    )


def _cmd_info(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    start = time.perf_counter()
    g = _load(args, args.graph)
    loaded = time.perf_counter() - start
    stats = g.stats()
    elapsed = time.perf_counter() - start - loaded
    if args.json:
        print(json.dumps({"graph": args.graph, **stats, "weighted": g.weighted, "load_seconds": loaded}, indent=2))
        return 0
    table = Table(show_header=True, header_style="bold")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for key, value in stats.items():
        shown = f"{value:,.4f}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
        table.add_row(key, shown)
    table.add_row("weighted", str(g.weighted))
    console = Console()
    console.print(f"[bold]{args.graph}[/bold]  {g!r}", soft_wrap=True)
    console.print(table)
    console.print(f"loaded in {loaded:.2f} s, statistics in {elapsed:.2f} s")
    return 0


def _cmd_generate(args: argparse.Namespace) -> int:
    from .graph.generate import generate, is_spec
    from .graph.io import save

    if not is_spec(args.spec):
        from .errors import GraphSpecError

        raise GraphSpecError(f"{args.spec!r} is not a generator spec; see 'graphgear generate --help'")
    start = time.perf_counter()
    g = generate(args.spec)
    made = time.perf_counter() - start
    save(g, args.output)
    print(f"{g!r} generated in {made:.2f} s, written to {args.output} in {time.perf_counter() - start - made:.2f} s")
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    from .graph.io import save

    start = time.perf_counter()
    g = _load(args, args.input)
    save(g, args.output, format=args.output_format)
    print(f"{g!r} written to {args.output} in {time.perf_counter() - start:.2f} s")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `graphgear` command."""
    parser = argparse.ArgumentParser(
        prog="graphgear",
        description="Graph analytics on NVIDIA GPUs with a portable CPU backend.",
        epilog=GRAPH_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"graphgear {__version__}")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    info = sub.add_parser(
        "info", help="print a graph's statistics", epilog=GRAPH_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    info.add_argument("graph", metavar="GRAPH", help="a graph file or generator spec")
    info.add_argument("--json", action="store_true", help="print the statistics as JSON")
    _add_graph_options(info)
    info.set_defaults(run=_cmd_info)

    gen = sub.add_parser(
        "generate", help="generate a graph and write it to a file", epilog=GRAPH_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    gen.add_argument("spec", metavar="SPEC", help="generator spec, e.g. kron:20 or grid:512:512:0.8:w")
    gen.add_argument("-o", "--output", required=True, metavar="FILE", help="output file; the format comes from its name")
    gen.set_defaults(run=_cmd_generate)

    conv = sub.add_parser(
        "convert", help="convert a graph between formats", epilog=GRAPH_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    conv.add_argument("input", metavar="IN", help="a graph file or generator spec")
    conv.add_argument("output", metavar="OUT", help="output file; the format comes from its name (.gz compresses)")
    conv.add_argument("--output-format", help="output format when the name does not tell")
    _add_graph_options(conv)
    conv.set_defaults(run=_cmd_convert)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `graphgear` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    progress.enable(not args.no_progress)
    try:
        return args.run(args)
    except GraphgearError as exc:
        print(f"graphgear: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("graphgear: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The `graphgear` command: run algorithms, benchmark them, and inspect, generate and convert graphs."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from . import __version__, progress
from .errors import GraphgearError, GraphgearWarning

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
    ids = parser.add_mutually_exclusive_group()
    ids.add_argument("--renumber", dest="renumber", action="store_const", const=True, default=None,
                     help="renumber every file's vertex ids to 0..V-1, keeping them as labels (default: only an edge "
                     "list whose ids leave gaps that nothing in the file declares)")
    ids.add_argument("--no-renumber", dest="renumber", action="store_const", const=False,
                     help="keep every file's vertex ids as they are (ids never used become isolated vertices)")
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
    from rich.table import Table

    if args.plot:
        from .plot import check_plot_path

        check_plot_path(args.plot)
    start = time.perf_counter()
    g = _load(args, args.graph)
    loaded = time.perf_counter() - start
    stats = g.stats()
    elapsed = time.perf_counter() - start - loaded
    if args.plot:
        from .plot import plot_graph, save_figure

        kind = "directed" if g.directed else "undirected"
        save_figure(plot_graph(g, title=f"{args.graph}: {g.num_vertices:,} vertices, {g.num_edges:,} edges, {kind}"),
                    args.plot)
    if args.quiet:
        return 0
    if args.json:
        print(json.dumps({"graph": args.graph, **stats, "weighted": g.weighted, "load_seconds": loaded}, indent=2))
        return 0
    table = Table(show_header=True, header_style="bold")
    table.add_column("statistic")
    table.add_column("value", justify="right")
    for key, value in stats.items():
        if isinstance(value, float):
            shown = f"{value:,.4f}"
        else:
            shown = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
        table.add_row(key, shown)
    table.add_row("weighted", str(g.weighted))
    console = _console()
    console.print(f"[bold]{args.graph}[/bold]  {g!r}", soft_wrap=True)
    console.print(table)
    console.print(f"loaded in {loaded:.2f} s, statistics in {elapsed:.2f} s")
    if args.plot:
        console.print(f"degree and component size distributions drawn in {args.plot}", soft_wrap=True)
    return 0


def _cmd_generate(args: argparse.Namespace) -> int:
    from .graph.generate import generate, is_spec
    from .graph.io import save

    if not is_spec(args.spec):
        from .errors import GraphSpecError

        raise GraphSpecError(f"{args.spec!r} is not a generator spec; see 'graphgear generate --help'")
    _check_output(args.output, "graph")
    start = time.perf_counter()
    g = generate(args.spec)
    made = time.perf_counter() - start
    save(g, args.output)
    print(f"{g!r} generated in {made:.2f} s, written to {args.output} in {time.perf_counter() - start - made:.2f} s")
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    from .graph.io import save

    _check_output(args.output, "graph")
    start = time.perf_counter()
    g = _load(args, args.input)
    save(g, args.output, format=args.output_format)
    print(f"{g!r} written to {args.output} in {time.perf_counter() - start:.2f} s")
    return 0


ALGORITHM_NAMES = ("bfs", "sssp", "pagerank", "cc", "scc", "bc", "color")
SOURCE_ALGORITHMS = ("bfs", "sssp", "bc")


def _summary(algorithm: str, result, graph) -> list[tuple[str, str]]:
    """A few lines that say what the result is."""
    def top(values) -> str:
        order = np.argsort(-values, kind="stable")[:5]
        labels = graph.vertex_labels(order)
        return ", ".join(f"{label}: {values[i]:.4g}" for label, i in zip(labels.tolist(), order))

    if algorithm == "bfs":
        reached = result.distances >= 0
        return [("reached vertices", f"{int(reached.sum()):,} of {graph.num_vertices:,}"),
                ("depth", f"{int(result.distances.max()) if reached.any() else 0}")]
    if algorithm == "sssp":
        finite = np.isfinite(result.distances)
        return [("reached vertices", f"{int(finite.sum()):,} of {graph.num_vertices:,}"),
                ("largest distance", f"{result.distances[finite].max():.6g}" if finite.any() else "-")]
    if algorithm == "pagerank":
        return [("iterations", str(result.iterations)), ("top ranks", top(result.ranks))]
    if algorithm in ("cc", "scc"):
        sizes = np.bincount(result.labels) if result.labels.size else np.zeros(0, int)
        return [("components", f"{sizes.size:,}"), ("largest", f"{int(sizes.max()) if sizes.size else 0:,} vertices")]
    if algorithm == "bc":
        return [("top centrality", top(result.centrality))]
    if algorithm == "color":
        return [("distinct colors", f"{np.unique(result.colors).size:,}")]
    return []


def _console():
    """A rich console; wide when the output is not a terminal, so tables do not wrap in files and pipes."""
    from rich.console import Console

    return Console() if sys.stdout.isatty() else Console(width=160)


def _cmd_run(args: argparse.Namespace) -> int:
    problem = _misplaced_option(args)
    if problem:
        return _refuse(problem)
    _check_outputs(args)
    if args.workers is not None and args.algorithm not in DISTRIBUTED_ALGORITHMS:
        return _refuse(f"--workers runs {', '.join(DISTRIBUTED_ALGORITHMS)}, not {args.algorithm}")
    if args.workers is None:
        return _run_on(args, _load(args, args.graph))
    client, g = _partitioned(args)
    try:
        return _run_on(args, g)
    finally:
        g.close()
        client.close()


DISTRIBUTED_ALGORITHMS = ("bfs", "sssp", "pagerank", "cc")


def _partitioned(args: argparse.Namespace) -> tuple[Any, Any]:
    """(client, DistributedGraph) for --workers N: N local Dask workers (one per GPU with --backend cuda), the graph
    read by them in parallel where its format allows, else loaded here and scattered (also whenever a loading option
    asks for what only gg.load does)."""
    from .distributed import local_cluster, partition

    backend = "cuda" if args.backend == "cuda" else "cpu"
    client = local_cluster(args.workers, backend)
    try:
        plain = not (args.keep_self_loops or args.keep_duplicates or args.renumber is not None or args.format)
        g = partition(args.graph if plain else _load(args, args.graph), client, backend=backend,
                      directed=_direction(args))
    except BaseException:
        client.close()
        raise
    args.backend = "auto"  # the DistributedGraph's own
    return client, g


def _run_on(args: argparse.Namespace, g: Any) -> int:
    """`graphgear run` on the loaded (or partitioned) graph `g`."""
    from rich.table import Table

    from .bench.metrics import mteps

    run, source_row, sources = _algorithm_call(args, g)
    if args.warmup:
        run()  # compiles the kernels this run needs (numba JIT / NVRTC), so the timed run measures the algorithm
    times = []
    for _ in range(max(1, args.repeat)):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    seconds = sorted(times)[len(times) // 2]
    if args.output:
        _write_results(args.output, args.algorithm, result, g)
    if args.trace:
        result.trace.to_json(args.trace)
    if args.plot:
        _write_trace_plot(args, result, g)
    if args.verify:
        from .errors import VerificationError

        reference, check = _verifier(args, g.to_graph() if args.workers is not None else g)
        try:
            check(result)
        except VerificationError as exc:  # a wrong result is graphgear's fault, not the user's: exit 1, not 2
            print(f"graphgear: error: wrong result, not verified against {reference}: {_one_line(exc)}",
                  file=sys.stderr)
            return 1
    if args.quiet:
        return 0
    console = _console()
    table = Table(show_header=False, box=None)
    table.add_row("algorithm", args.algorithm)
    table.add_row("graph", f"{args.graph}  {g!r}")
    if source_row:
        table.add_row("source", source_row)
    for key, value in _parameters(args):
        table.add_row(key, value)
    table.add_row("backend", result.trace.backend or args.backend)
    for key, value in _summary(args.algorithm, result, g):
        table.add_row(key, value)
    runs = f"median of {len(times)}" if len(times) > 1 else "one run"
    table.add_row("time", f"{seconds * 1e3:,.2f} ms ({runs}{', after a warm-up run' if args.warmup else ''})")
    table.add_row("MTEPS", f"{mteps(args.algorithm, g.num_edges, seconds, sources):,.1f}"
                  + ("  (2|E|/t per source)" if args.algorithm == "bc" else "  (|E|/t)"))
    console.print(table)
    console.print(result.trace.table())
    for path, what in ((args.output, "results"), (args.trace, "trace"), (args.plot, "trace plot")):
        if path:
            console.print(f"{what} written to {path}", soft_wrap=True)
    if args.verify:
        console.print(f"verified against {reference}: ok", soft_wrap=True, markup=False)
    return 0


WEIGHTED_ALGORITHMS = ("sssp", "pagerank", "bc")
# the options of `graphgear run` that only some algorithms take: argparse dest -> (option, those algorithms)
ALGORITHM_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "source": ("--source", SOURCE_ALGORITHMS),
    "alpha": ("--alpha", ("pagerank",)),
    "tol": ("--tol", ("pagerank",)),
    "max_iter": ("--max-iter", ("pagerank",)),
    "k": ("--k", ("bc",)),
    "seed": ("--seed", ("bc",)),
    "weight": ("--weight", WEIGHTED_ALGORITHMS),
    "unweighted": ("--unweighted", WEIGHTED_ALGORITHMS),
    "depth_limit": ("--depth-limit", ("bfs",)),
    "cutoff": ("--cutoff", ("sssp",)),
}


def _misplaced_option(args: argparse.Namespace) -> str | None:
    """Why the options given do not go with the algorithm (one line), or None: each algorithm parameter belongs to
    the algorithms that take it, and BC either samples sources (--k, --seed) or starts from --source."""
    for dest, (option, algorithms) in ALGORITHM_OPTIONS.items():
        if getattr(args, dest) not in (None, False) and args.algorithm not in algorithms:
            names = algorithms[0] if len(algorithms) == 1 else f"{', '.join(algorithms[:-1])} and {algorithms[-1]}"
            return f"{option} applies to {names}, not {args.algorithm}"
    if args.algorithm == "bc" and args.source is not None and (args.k is not None or args.seed is not None):
        option = "--k" if args.k is not None else "--seed"
        return f"{option} samples BC's sources and --source gives one: use one or the other"
    return None


def _refuse(message: str) -> int:
    print(f"graphgear: error: {message}", file=sys.stderr)
    return 2


def _algorithm_call(args: argparse.Namespace, g: Any) -> tuple[Callable[[], Any], str, int]:
    """(the call that runs args.algorithm on `g` with the options given, the "source" row of the summary or "", the
    number of sources for MTEPS). Options not given are left to the public functions' defaults (BC samples
    BC_SAMPLES sources with seed 0 unless told otherwise); sources are passed as the graph's labels."""
    from . import api

    kwargs: dict[str, Any] = {"backend": args.backend, "strategy": args.strategy}
    if args.weight is not None or args.unweighted:
        kwargs["weight"] = None if args.unweighted else args.weight
    for dest in ("alpha", "tol", "max_iter", "depth_limit", "cutoff"):
        if getattr(args, dest) is not None:
            kwargs[dest] = getattr(args, dest)
    algorithm = args.algorithm
    if algorithm in ("bfs", "sssp") or algorithm == "bc" and args.source is not None:
        index = _source_index(args, g)
        label = g.vertex_labels(index).item() if g.num_vertices else index
        if algorithm == "bc":
            return lambda: api.betweenness_centrality(g, sources=[label], **kwargs), str(label), 1
        function = api.bfs if algorithm == "bfs" else api.sssp
        return lambda: function(g, label, **kwargs), str(label), 1
    if algorithm == "bc":
        k, seed = _bc_sample(args, g)
        shown = (f"all {g.num_vertices:,} vertices (exact)" if k is None
                 else f"{k:,} sampled source{'s' if k != 1 else ''} (seed {seed})")
        return lambda: api.betweenness_centrality(g, k=k, seed=seed, **kwargs), shown, g.num_vertices if k is None \
            else k
    functions = {"pagerank": api.pagerank, "cc": api.connected_components, "scc": api.strongly_connected_components,
                 "color": api.color_propagation}
    return lambda: functions[algorithm](g, **kwargs), "", 1


def _source_index(args: argparse.Namespace, g: Any) -> int:
    """The internal index of the run's source: --source (a label), else the vertex of largest out-degree."""
    from .bench.suites import default_source

    return default_source(g) if args.source is None else g.vertex_index(_source_value(args.source))


def _bc_sample(args: argparse.Namespace, g: Any) -> tuple[int | None, int]:
    """(k, seed) of BC's sampled sources: BC_SAMPLES (or all vertices when fewer) with seed 0 unless --k / --seed
    say otherwise; k None for --k all (the exact computation)."""
    from .bench.suites import BC_SAMPLES

    k = min(BC_SAMPLES, g.num_vertices) if args.k is None else None if args.k == "all" else args.k
    return k, 0 if args.seed is None else args.seed


def _verifier(args: argparse.Namespace, g: Any) -> tuple[str, Callable[[Any], None]]:
    """(what the result is checked against, the check): the reference verifier of args.algorithm
    (graphgear.algorithms.verify, independent of the kernels) with the run's parameters, the defaults of the public
    functions where an option is not given. The check raises VerificationError on a wrong result."""
    import inspect

    from . import api
    from .algorithms import verify

    algorithm = args.algorithm
    function = api.ALGORITHMS[algorithm]

    def default(name: str) -> Any:
        value = getattr(args, name, None)
        return inspect.signature(function).parameters[name].default if value is None else value

    weighted = algorithm in WEIGHTED_ALGORITHMS and not args.unweighted and default("weight") is not None
    if algorithm == "bfs":
        index = _source_index(args, g)
        return "a serial BFS and GAP's predecessor checks", lambda r: verify.verify_bfs(
            g, index, r.distances, args.depth_limit, r.predecessors)
    if algorithm == "sssp":
        index = _source_index(args, g)
        return "scipy.sparse.csgraph.dijkstra (exact)", lambda r: verify.verify_sssp(
            g, index, r.distances, args.cutoff, weighted)
    if algorithm == "pagerank":
        alpha, tol = default("alpha"), default("tol")
        return "networkx.pagerank's power iteration (L1 within N*tol/(1-alpha))", lambda r: verify.verify_pagerank(
            g, r.ranks, alpha, tol, weighted)
    if algorithm in ("cc", "scc"):
        kind, check = ("weak", verify.verify_connected_components) if algorithm == "cc" else ("strong", verify.verify_scc)
        return f"scipy.sparse.csgraph.connected_components ({kind})", lambda r: check(g, r.labels)
    if algorithm == "bc":
        if args.source is not None:
            sources, k, seed = [_source_index(args, g)], None, None
        else:
            sources, (k, seed) = None, _bc_sample(args, g)
        return "a serial Brandes (rtol 1e-9)", lambda r: verify.verify_betweenness(
            g, r.centrality, sources, k=k, seed=seed, weighted=weighted)
    return "a serial search from each vertex, largest first", lambda r: verify.verify_color_propagation(g, r.colors)


def _parameters(args: argparse.Namespace) -> list[tuple[str, str]]:
    """Summary rows of the algorithm parameters given on the command line."""
    rows = [(option.lstrip("-"), str(getattr(args, dest))) for dest, (option, _) in ALGORITHM_OPTIONS.items()
            if dest not in ("source", "k", "seed", "unweighted", "weight") and getattr(args, dest) is not None]
    if args.unweighted or args.weight is not None:
        rows.append(("weights", "ignored (--unweighted)" if args.unweighted else f"--weight {args.weight}"))
    return rows


# ------------------------------------------------------------------------------------------------ output files

RESULT_FORMATS = (".csv", ".parquet", ".npy")
# the per-vertex columns each algorithm writes with -o, after `vertex`: (column, result attribute)
RESULT_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "bfs": (("distance", "distances"), ("predecessor", "predecessors")),
    "sssp": (("distance", "distances"), ("predecessor", "predecessors")),
    "pagerank": (("rank", "ranks"),),
    "cc": (("component", "labels"),),
    "scc": (("component", "labels"),),
    "bc": (("centrality", "centrality"),),
    "color": (("color", "colors"),),
}
PARQUET_INSTALL = "pip install graphgear[arrow]"


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before the graph is loaded, every output `run` would fail to write: a target write_atomically refuses,
    an -o name that is not .csv/.parquet/.npy, a --plot name that is not .png/.svg, a missing pyarrow or matplotlib,
    and two outputs on one file."""
    targets = {}
    if args.trace:
        targets[_writable(args.trace, "trace")] = "--trace"
    if args.output:
        suffix = Path(args.output).suffix.lower()
        if suffix not in RESULT_FORMATS:
            from .errors import FileError

            raise FileError(args.output, f"results are written as {', '.join(RESULT_FORMATS)}, not "
                            f"{suffix or 'a name without an extension'}")
        if suffix == ".parquet":
            from .errors import optional_module

            optional_module("pyarrow.parquet", "writing .parquet", PARQUET_INSTALL)
        target = _writable(args.output, "results")
        if target in targets:
            _same_file(args.output, targets[target], "-o")
        targets[target] = "-o"
    if args.plot:
        from .plot import check_plot_path

        check_plot_path(args.plot)
        target = _writable(args.plot, "picture")
        if target in targets:
            _same_file(args.plot, targets[target], "--plot")


def _writable(path: str, what: str) -> Path:
    """The file write_atomically would write for `path` (FileError if it would refuse it)."""
    from .graph.io.output import check_writable

    return check_writable(path, what=what)


def _same_file(path: str, first: str, second: str) -> None:
    from .errors import FileError

    raise FileError(path, f"{first} and {second} name the same file; give each its own")


VERTEX_COLUMNS = ("predecessor", "color")  # columns whose values are vertices: written as labels


def result_columns(algorithm: str, result: Any, graph: Any) -> dict[str, np.ndarray]:
    """The columns `graphgear run -o` writes: ``vertex`` (the graph's labels), then the algorithm's per-vertex arrays
    (RESULT_COLUMNS). A vertex-valued column (a predecessor, a colour: the largest vertex that reaches this one) holds
    labels; with integer labels -1 where there is no vertex (the source's predecessor, an unreached vertex's), as in
    the result, so the column stays integer; with text labels None (an empty CSV field, a Parquet null, '' in .npy)."""
    n = graph.num_vertices
    labels = np.asarray(graph.vertex_labels(np.arange(n)))
    columns = {"vertex": labels}
    for column, attribute in RESULT_COLUMNS[algorithm]:
        values = np.asarray(getattr(result, attribute))
        if column in VERTEX_COLUMNS and graph.vertex_ids is not None:
            has = values >= 0
            if labels.dtype.kind in "iu":
                mapped = np.full(n, -1, dtype=np.int64)
            else:
                mapped = np.full(n, None, dtype=object)
            mapped[has] = labels[values[has]]
            values = mapped
        columns[column] = values
    return columns


def _write_results(path: str, algorithm: str, result: Any, graph: Any) -> None:
    """Write the per-vertex results to `path` as .csv, .parquet or .npy (by its extension), whole or not at all."""
    from .graph.io.output import write_atomically

    columns = result_columns(algorithm, result, graph)
    writers = {".csv": _write_csv, ".parquet": _write_parquet, ".npy": _write_npy}
    write = writers[Path(path).suffix.lower()]
    write_atomically(path, lambda f: write(f, columns), what="results")


_CSV_CHUNK = 1 << 16  # rows formatted at a time: the text of a large graph is never held whole


def _write_csv(f: Any, columns: dict[str, np.ndarray]) -> None:
    """CSV with a header row; numbers as NumPy writes them (the shortest text that reads back to the same value:
    0.1, 1e-07, inf), text labels quoted where they need it, a missing predecessor an empty field."""
    import csv
    import io

    text = io.TextIOWrapper(f, encoding="utf-8", newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(list(columns))
    n = len(columns["vertex"])
    for start in range(0, n, _CSV_CHUNK):
        chunk = [_csv_cells(values[start:start + _CSV_CHUNK]) for values in columns.values()]
        writer.writerows(zip(*chunk))
    text.flush()
    text.detach()  # f stays open for write_atomically to sync


def _csv_cells(values: np.ndarray) -> list[Any]:
    if values.dtype.kind in "iufb":
        return values.astype(str).tolist()
    return ["" if v is None else str(v) for v in values.tolist()]


def _write_parquet(f: Any, columns: dict[str, np.ndarray]) -> None:
    """Parquet through pyarrow: a column per array, text labels as strings, a missing predecessor null."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = {name: pa.array(values.tolist() if values.dtype == object else values) for name, values in columns.items()}
    pq.write_table(pa.table(arrays), f)


def _write_npy(f: Any, columns: dict[str, np.ndarray]) -> None:
    """One structured array (``np.load(FILE)["rank"]``): a field per column, text as fixed-width unicode, a missing
    predecessor ''. Saved without pickles, so np.load needs no allow_pickle."""
    plain = {name: values if values.dtype != object else np.array(_csv_cells(values), dtype=str)
             for name, values in columns.items()}
    table = np.empty(len(plain["vertex"]), dtype=[(name, values.dtype) for name, values in plain.items()])
    for name, values in plain.items():
        table[name] = values
    np.save(f, table, allow_pickle=False)


def _write_trace_plot(args: argparse.Namespace, result: Any, graph: Any) -> None:
    from .plot import plot_trace, save_figure

    trace = result.trace
    title = (f"{args.algorithm} on {args.graph} ({graph.num_vertices:,} vertices, {graph.num_edges:,} edges): "
             f"{trace.summary()} on {trace.backend or args.backend}")
    ax = plot_trace(trace, title=title, pyplot=False)
    save_figure(ax.figure, args.plot)


def _source_value(text: str):
    return int(text) if text.lstrip("-").isdigit() else text


def _cmd_bench(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .bench.suites import SUITES, find_real_graphs, run_case

    _check_output(args.json, "benchmark results")
    if args.merge and args.suite != "adaptive":
        raise GraphgearError(f"--merge reads the adaptive suite's reports (--suite adaptive), not --suite {args.suite}'s")
    if args.suite == "gpu":
        return _cmd_bench_gpu(args)
    if args.suite == "adaptive":
        return _cmd_bench_adaptive(args)
    console = _console()
    folder = find_real_graphs(args.graphs)
    if folder is None:
        console.print("[yellow]no real graphs found (shared/graphs, --graphs or $GRAPHGEAR_GRAPHS): generated graphs only")
    cases = SUITES[args.suite](folder)
    if args.algorithms:
        wanted = set(args.algorithms.split(","))
        cases = [c for c in cases if c.algorithm in wanted]
    table = Table(title=f"graphgear bench --suite {args.suite} (backend {args.backend}, median of {args.repeat} after warm-up)")
    for name, justify in (("algorithm", "left"), ("graph", "left"), ("V", "right"), ("E", "right"), ("graphgear ms", "right"),
                          ("MTEPS", "right"), ("reference ms", "right"), ("speedup", "right"), ("agrees", "left")):
        table.add_column(name, justify=justify)
    graphs: dict = {}
    failures = 0
    rows = []
    for case in cases:
        r = run_case(case, graphs, backend=args.backend, strategy=args.strategy, repeat=args.repeat)
        name = case.graph if ":" in case.graph and "/" not in case.graph else Path(case.graph).name
        if r.error:
            failures += 1
            table.add_row(case.algorithm, name, f"{r.num_vertices:,}", f"{r.num_edges:,}", "-", "-", "-", "-", f"[red]{r.error}")
            continue
        refs = "\n".join(f"{k} {v * 1e3:,.1f}" for k, v in r.reference_times.items())
        speed = "\n".join(f"{v / r.seconds:,.1f}x" for v in r.reference_times.values())
        agrees = "\n".join(f"{'yes' if ok else '[red]NO'} ({detail})" for ok, detail in r.agreement.values())
        failures += sum(not ok for ok, _ in r.agreement.values())
        table.add_row(case.algorithm, name, f"{r.num_vertices:,}", f"{r.num_edges:,}", f"{r.seconds * 1e3:,.2f}",
                      f"{r.mteps:,.1f}", refs, speed, agrees)
        rows.append(r)
    console.print(table)
    if args.json:
        _write_json(args.json, [{"algorithm": r.case.algorithm, "graph": r.case.graph, "V": r.num_vertices,
                                 "E": r.num_edges, "seconds": r.seconds, "mteps": r.mteps,
                                 "references": r.reference_times,
                                 "agreement": {k: v[0] for k, v in r.agreement.items()}} for r in rows])
    console.print(f"{len(cases)} cases, {failures} disagreements or errors")
    return 1 if failures else 0


def _cmd_bench_adaptive(args: argparse.Namespace) -> int:
    """graphgear bench --suite adaptive: auto against every fixed strategy that applies (bench/adaptive.py), one row
    per algorithm and graph shape, and the issue's target over the rows; with --json the report is written again as
    each row ends (complete: false until the run does), so a run stopped part-way keeps what it measured. --merge
    reads the reports of a suite run in parts and prints the table and the target over all their rows. Exit 1 where a
    fixed strategy failed or its result was not auto's."""
    from .backends import get_backend
    from .bench import adaptive
    from .bench.suites import find_real_graphs

    console = _console()
    if args.merge:
        given = [name for name, value in (("--shapes", args.shapes), ("--algorithms", args.algorithms),
                                          ("--scale", args.scale)) if value is not None]
        if given:
            raise GraphgearError(f"--merge reads reports and runs nothing; {', '.join(given)} would choose what to run")
        backend, rows, notes = adaptive.merge_reports(args.merge)
        for note in notes:
            console.print(f"[yellow]{note}")
        failures = _adaptive_table(console, rows, f"graphgear bench --suite adaptive: {len(args.merge)} reports "
                                   f"merged (backend {backend}): auto against every fixed strategy, ms")
        if args.json:
            _write_json(args.json, {**adaptive.report(rows, backend=backend, scale=None, repeat=None, complete=True),
                                    "parts": [str(path) for path in args.merge]})
        return 1 if failures else 0
    backend = get_backend(args.backend).name
    algorithms = tuple(args.algorithms.split(",")) if args.algorithms else adaptive.ADAPTIVE_ALGORITHMS
    unknown = sorted(set(algorithms) - set(adaptive.ADAPTIVE_ALGORITHMS))
    if unknown:
        raise GraphgearError(f"--suite adaptive times {', '.join(adaptive.ADAPTIVE_ALGORITHMS)}; got {', '.join(unknown)}")
    scale = args.scale if args.scale is not None else adaptive.DEFAULT_SCALE[backend]
    folder = find_real_graphs(args.graphs)
    if folder is None:
        console.print("[yellow]no real graphs found (shared/graphs, --graphs or $GRAPHGEAR_GRAPHS): generated shapes only")
    graphs = adaptive.adaptive_graphs(scale, folder)
    if args.shapes:
        graphs = adaptive.select_shapes(graphs, args.shapes)

    def write(rows: list, complete: bool) -> None:
        if args.json:
            _write_json(args.json, adaptive.report(rows, backend=backend, scale=scale, repeat=args.repeat,
                                                   complete=complete))

    rows = adaptive.adaptive_suite(graphs, algorithms, backend=backend, repeat=args.repeat,
                                   progress=lambda m: console.log(m), on_row=lambda so_far: write(so_far, False))
    failures = _adaptive_table(console, rows, f"graphgear bench --suite adaptive (backend {backend}, median of "
                               f"{args.repeat} after warm-up; a fixed strategy {adaptive.SLOW_FACTOR:g}x slower than auto "
                               f"timed once; then auto and the {adaptive.FINALISTS} fastest side by side, median of "
                               f"{adaptive.FINAL_ROUNDS}): auto against every fixed strategy, ms")
    write(rows, True)
    return 1 if failures else 0


def _adaptive_table(console: Any, rows: list, title: str) -> int:
    """Print the adaptive suite's rows as a table and the issue's target over them; returns the failed strategies."""
    from rich.table import Table

    from .bench import adaptive

    table = Table(title=title)
    for name in ("algorithm", "shape", "graph", "auto", "best fixed", "its ms", "auto / best", "first pass", "ran",
                 "timed once", "refused", "failed"):
        table.add_column(name, justify="left" if name in ("algorithm", "shape", "graph", "best fixed") else "right")
    failures = 0
    for r in rows:
        best, best_ms = r.best
        failures += len(r.failed)
        ratio = f"{r.ratio:.2f}" if r.fixed_ms else "-"
        table.add_row(r.algorithm, r.shape, Path(r.graph).name, f"{r.auto_ms:,.3f}", best or "-",
                      f"{best_ms:,.3f}" if r.fixed_ms else "-",
                      ratio if not r.fixed_ms or r.ratio <= adaptive.WORST else f"[red]{ratio}",
                      f"{r.first_ratio:.2f}" if r.fixed_ms else "-", str(len(r.fixed_ms)), str(len(r.once)),
                      str(len(r.refused)),
                      "\n".join(f"[red]{k}: {v}" for k, v in r.failed.items()) or "0")
    console.print(table)
    s = adaptive.summary(rows)
    if s["rows"]:
        console.print(f"auto within {adaptive.WITHIN - 1:.0%} of the best fixed strategy on {s['within']:.0%} of "
                      f"{s['rows']} rows (target {adaptive.SHARE_WITHIN:.0%}); worst auto / best {s['worst']:.2f} (target "
                      f"<= {adaptive.WORST}); best single fixed strategy on every row: {s['single'] or 'none ran on every row'}"
                      + (f", its geometric mean / auto's {s['gain']:.2f} (target >= {adaptive.GEOMEAN_GAIN})"
                         if s["single"] else "") + f": target {'met' if s['met'] else 'not met'}")
    return failures


def _ablation_table(title: str, rows: list[dict], columns: list[str], cell: Callable[[dict, str], str]) -> Any:
    """A rich Table of an ablation: a row per graph (a file's name, a spec as it is), a column per technique."""
    from rich.table import Table

    t = Table(title=title)
    t.add_column("graph")
    for c in columns:
        t.add_column(c.replace("vertex_group-", "vg"), justify="right")
    for row in rows:
        t.add_row(Path(row["graph"]).name, *[cell(row, c) for c in columns])
    return t


def _cmd_bench_gpu(args: argparse.Namespace) -> int:
    """graphgear bench --suite gpu: every algorithm on kron:21 and grid:2048:2048, SCC against SciPy, and the
    ablations on the generated and the real graphs: BFS by load-balancing technique, SSSP by duplicate removal, BFS
    by execution path and controller, PageRank by method and layout."""
    from rich.table import Table

    from .backends import cuda_available
    from .bench import gpu
    from .bench.suites import SMOKE_REAL, find_real_graphs

    console = _console()
    if not cuda_available():
        console.print("[red]--suite gpu needs CuPy and an NVIDIA GPU")
        return 2
    import cupy as cp

    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    algorithms = tuple(args.algorithms.split(",")) if args.algorithms else ("bfs", "sssp", "pagerank", "cc", "bc", "color", "scc")
    graphs = tuple(args.gpu_graphs.split(",")) if args.gpu_graphs else gpu.GPU_GRAPHS
    repeat = max(gpu.SUITE_REPEAT, args.repeat)
    rows, bandwidth = gpu.gpu_suite(algorithms, graphs, repeat, progress=lambda m: console.log(m))
    table = Table(title=f"graphgear bench --suite gpu on {device}: median of {repeat} after warm-up (CUDA events); "
                        f"copy bandwidth {bandwidth / 1e12:.2f} TB/s")
    for name in ("algorithm", "graph", "V", "E", "ms", "iterations", "GTEPS", "bytes/iteration", "GB/s", "target ms"):
        table.add_column(name, justify="left" if name in ("algorithm", "graph") else "right")
    for r in rows:
        table.add_row(r.algorithm + (" (per iteration)" if r.algorithm == "pagerank" else ""), r.graph,
                      f"{r.num_vertices:,}", f"{r.num_edges:,}", f"{r.ms:,.3f}", str(r.iterations), f"{r.gteps:.2f}",
                      f"{r.bytes_per_iteration / 1e6:,.0f} MB" if r.bytes_per_iteration else "-",
                      f"{r.gbps:,.0f} ({r.gbps * 1e9 / bandwidth:.0%})" if r.gbps else "-",
                      f"{r.target_ms:g}" if r.target_ms else "-")
    console.print(table)
    report: dict = {"device": device, "copy_bandwidth": bandwidth, "repeat": repeat, "rows": [vars(r) for r in rows]}
    if "scc" in algorithms:
        scc = gpu.scc_vs_scipy(repeat)
        console.print(f"SCC {scc['graph']} ({scc['V']:,} vertices, {scc['E']:,} edges): GPU {scc['gpu_ms']:,.2f} ms, "
                      f"scipy {scc['scipy_ms']:,.1f} ms on the host CPU: {scc['scipy_ms'] / scc['gpu_ms']:,.1f}x; "
                      f"{scc['components']:,} components, {'same partition' if scc['agree'] else '[red]DIFFERENT partition'}")
        report["scc"] = scc
    wrong = 0  # ablation cells whose result was not the reference's
    if not args.no_ablation:
        folder = find_real_graphs(args.graphs)
        real = [str(folder / name) for name in SMOKE_REAL if folder is not None and (folder / name).exists()]
        ablation_repeat = max(5, args.repeat)  # a column per technique and sync: fewer runs each than the suite's rows
        report["ablation_repeat"] = ablation_repeat

        for table in gpu.ABLATION_TABLES.values():
            found = table.run(list(graphs) + real, ablation_repeat, progress=lambda m: console.log(m))
            console.print(_ablation_table(table.title.format(n=ablation_repeat), found, table.columns(), table.marked))
            for line in table.notes(found):
                console.print(line)
            report[table.key] = found
            wrong += sum(len(row["wrong"]) for row in found)
    if args.json:
        _write_json(args.json, report, default=float)
    if wrong:
        console.print(f"[red]{wrong} ablation cells whose result was not the CPU backend's (marked WRONG)")
    return 1 if wrong else 0


def _check_output(path: str | None, what: str) -> None:
    """Refuse a bad output name (a folder, a device, a read-only file, a missing folder) before the work, not after."""
    if path is not None:
        from .graph.io.output import check_writable

        check_writable(path, what=what)


def _write_json(path: str, value: object, default: Callable[[Any], Any] | None = None) -> None:
    """Write `value` as indented JSON, whole or not at all (write_atomically)."""
    from .graph.io.output import write_atomically

    data = (json.dumps(value, indent=2, default=default) + "\n").encode("utf-8")
    write_atomically(path, lambda f: f.write(data), what="benchmark results")


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its usage errors one line on stderr and exit status 2 like every other refusal of the
    command ("graphgear: error: argument --alpha: ... (see 'graphgear run --help')")."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"graphgear: error: {message} (see '{self.prog} --help')\n")


def _number(kind: type, wanted: str, ok: Callable[[Any], bool]) -> Callable[[str], Any]:
    """An argparse type: `kind` (int or float) of the text, refused unless `ok` holds ("must be `wanted`")."""

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}") from None
        if math.isnan(value) or not ok(value):  # NaN is never a parameter
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
        return value

    return convert


def _sources(text: str) -> int | str:
    """--k: a number of sampled sources >= 1, or 'all'."""
    if text.strip().lower() == "all":
        return "all"
    return _number(int, "a number of sources >= 1 or 'all'", lambda x: x >= 1)(text)


def _weight_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("must name the weights, got an empty name")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the `graphgear` command."""
    parser = _Parser(
        prog="graphgear",
        description="Graph analytics on NVIDIA GPUs with a portable CPU backend.",
        epilog=GRAPH_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"graphgear {__version__}")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser(
        "run", help="run an algorithm and print its result, time, MTEPS and per-iteration trace", epilog=GRAPH_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("algorithm", choices=ALGORITHM_NAMES, metavar="ALGO", help=f"one of {', '.join(ALGORITHM_NAMES)}")
    run.add_argument("graph", metavar="GRAPH", help="a graph file or generator spec")
    run.add_argument("--source", metavar="N", help="source vertex for bfs/sssp/bc, by its label (default: the vertex "
                     "of largest out-degree; bc samples 8 sources without it)")
    run.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    run.add_argument("--strategy", default="auto", help="auto, static, adaptive, hybrid (traversals), or a fixed "
                     "strategy such as "
                     "'direction=pull,drive=topology' (fields: direction sync drive frontier balance group_size "
                     "supports dedup lookup hops)")
    params = run.add_argument_group("algorithm parameters (each refused with the algorithms that do not take it)")
    params.add_argument("--alpha", metavar="A", type=_number(float, "a damping factor in (0, 1]", lambda x: 0 < x <= 1),
                        help="pagerank: damping factor (default 0.85)")
    params.add_argument("--tol", metavar="T",
                        type=_number(float, "a positive, finite tolerance", lambda x: 0 < x < math.inf),
                        help="pagerank: convergence tolerance, N*tol bounds the L1 change (default 1e-06)")
    params.add_argument("--max-iter", metavar="N", type=_number(int, "a whole number >= 0", lambda x: x >= 0),
                        help="pagerank: most power iterations (default 100)")
    params.add_argument("--k", metavar="N|all", type=_sources,
                        help="bc: sampled sources, or 'all' for the exact computation (default 8 sampled)")
    params.add_argument("--seed", metavar="S", type=_number(int, "a whole number", lambda x: True),
                        help="bc: seed of the source sample (default 0)")
    weights = params.add_mutually_exclusive_group()
    weights.add_argument("--weight", metavar="NAME", type=_weight_name,
                         help="sssp, pagerank, bc: use the edge weights (a graph file has one set of weights, which "
                         "any NAME means; default: sssp and pagerank use them, bc does not)")
    weights.add_argument("--unweighted", action="store_true", help="sssp, pagerank, bc: every edge counts 1")
    params.add_argument("--depth-limit", metavar="N", type=_number(int, "a whole number >= 0", lambda x: x >= 0),
                        help="bfs: stop after this many levels (vertices farther away count as unreached)")
    params.add_argument("--cutoff", metavar="D", type=_number(float, "a distance >= 0", lambda x: x >= 0),
                        help="sssp: leave vertices farther than this unreached")
    out = run.add_argument_group("output")
    out.add_argument("-o", "--output", metavar="FILE", help="write the per-vertex results: .csv, .parquet (needs "
                     "pyarrow) or .npy (one structured array); columns vertex (the graph's labels), then distance and "
                     "predecessor (bfs, sssp), rank (pagerank), component (cc, scc), centrality (bc) or color")
    out.add_argument("--trace", metavar="FILE.json", help="write the per-iteration trace as JSON")
    out.add_argument("--plot", metavar="FILE.png|.svg", help="draw the per-iteration trace: frontier size and time "
                     "per iteration, the execution path of each, the switches with their reasons (needs matplotlib)")
    out.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors (the files are written)")
    run.add_argument("--verify", action="store_true", help="check the result against an independent serial reference "
                     "(graphgear.algorithms.verify: one verifier per algorithm, as GAP keeps one per kernel) and print "
                     "'verified against ...: ok'; a wrong result prints one line naming the first wrong vertex and "
                     "exits 1: it is graphgear's fault, not the user's, whose mistakes exit 2")
    run.add_argument("--workers", metavar="N", type=_number(int, "a whole number >= 1", lambda x: x >= 1),
                     help=f"run on a graph partitioned over N local Dask workers ({', '.join(DISTRIBUTED_ALGORITHMS)}; "
                     "with --backend cuda one worker per GPU; needs graphgear[distributed])")
    run.add_argument("--repeat", type=int, default=1, help="timed runs; the median is reported (default 1)")
    run.add_argument("--no-warmup", dest="warmup", action="store_false",
                     help="time the first run (includes JIT compilation)")
    _add_graph_options(run)
    run.set_defaults(run=_cmd_run)

    bench = sub.add_parser("bench", help="benchmark every algorithm against SciPy/NetworkX and check agreement")
    bench.add_argument("--suite", default="smoke", choices=("smoke", "gpu", "adaptive"),
                       help="smoke: every algorithm against SciPy/NetworkX; gpu: GPU times, GTEPS, bandwidth and the "
                       "load-balancing ablation; adaptive: auto against every fixed strategy (default smoke)")
    bench.add_argument("--gpu-graphs", help="gpu suite: comma-separated generator specs (default kron:21,grid:2048:2048)")
    bench.add_argument("--no-ablation", action="store_true", help="gpu suite: skip the ablations")
    bench.add_argument("--scale", type=int, help="adaptive suite: 2^SCALE vertices a generated shape (default 16 on "
                       "the CPU, 21 on the GPU)")
    bench.add_argument("--shapes", help="adaptive suite: comma-separated subset of the graph shapes, e.g. \"road-like "
                       "lattice,random geometric\" (a long suite run in parts)")
    bench.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    bench.add_argument("--strategy", default="auto")
    bench.add_argument("--repeat", type=int, default=3, help="timed runs per case after a warm-up (median)")
    bench.add_argument("--algorithms", help="comma-separated subset, e.g. bfs,cc")
    bench.add_argument("--graphs", help="folder of real graphs (default: shared/graphs or $GRAPHGEAR_GRAPHS)")
    bench.add_argument("--json", metavar="FILE", help="also write the results as JSON (the adaptive suite: again as "
                       "each row ends)")
    bench.add_argument("--merge", nargs="+", metavar="REPORT", help="adaptive suite: run nothing; merge the --json "
                       "reports of a suite run in parts and print the table and the target over all their rows")
    bench.set_defaults(run=_cmd_bench)

    info = sub.add_parser(
        "info", help="print a graph's statistics", epilog=GRAPH_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    info.add_argument("graph", metavar="GRAPH", help="a graph file or generator spec")
    info.add_argument("--json", action="store_true", help="print the statistics as JSON")
    info.add_argument("--plot", metavar="FILE.png|.svg", help="draw the degree distribution (out and in for a directed "
                      "graph) and the component size distribution, log-log (needs matplotlib)")
    info.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors (--plot is written)")
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
    quiet = getattr(args, "quiet", False)
    progress.enable(not args.no_progress and not quiet)
    try:
        with warnings.catch_warnings():
            if quiet:  # only errors: graphgear's warnings (a cache not written, a format assumed) are not
                warnings.simplefilter("ignore", GraphgearWarning)
            return args.run(args)
    except KeyboardInterrupt:
        print("graphgear: interrupted", file=sys.stderr)
        return 130
    except (GraphgearError, OSError, MemoryError) as exc:  # a user's mistake or the machine's limit: one line, no trace
        print(f"graphgear: error: {_one_line(exc)}", file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    """The error as one line: an OSError as "path: reason" (not "[Errno 28] ..."), a bare MemoryError as "out of
    memory", line breaks inside a message folded."""
    if isinstance(exc, OSError) and not isinstance(exc, GraphgearError) and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}" if exc.filename is not None else exc.strerror
    elif isinstance(exc, MemoryError) and not isinstance(exc, GraphgearError):
        text = f"out of memory{': ' + str(exc) if str(exc) else ''}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split("\n"))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""Pictures: a run's per-iteration trace, and a graph's degree and component-size distributions.

matplotlib is optional (the ``[plot]`` extra) and imported only here, only when a picture is asked for; without it the
functions raise `MissingExtraError`, one line that names ``pip install graphgear[plot]``. Figures are made without
pyplot (a bare ``matplotlib.figure.Figure``, drawn by Agg when written), so drawing needs no display and leaves a
program's own pyplot state alone, except that `plot_trace` without an Axes uses pyplot when the program has already
imported it (a notebook, a script calling ``plt.show()``), so the figure shows where the user expects it.

Files are written by `save_figure` through `write_atomically` (whole or not at all); the format comes from the name
(.png or .svg, `check_plot_path`).

The trace picture (`plot_trace`, also ``result.trace.plot()``) has two panels on the same iterations: the frontier
(vertices, filled markers on a solid line; edges, open markers on a dashed line; a symmetric-log scale so an empty
frontier still shows) and the time of each iteration (bars, log scale: a first iteration that includes JIT
compilation does not flatten the rest). Colour and marker name the execution path of every iteration; each switch of
path is a dotted line numbered at the top, and the numbers are listed under the picture with the controller's reason.
Phases (BC's forward and backward sweeps, SCC's trim and forward-backward) are shaded and named.

The graph picture (`plot_graph`, ``graphgear info GRAPH --plot FILE``) shows how many vertices have each degree
(log-log; out- and in-degree for a directed graph; vertices of degree 0 are counted in the legend, since a log axis has
no 0) and how many components have each size (weakly connected components, and strongly connected ones for a directed
graph; the largest is marked with its share of the vertices).
"""

from __future__ import annotations

import os
import sys
import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import FileError
from .errors import MissingExtraError, optional_module

if TYPE_CHECKING:  # pragma: no cover
    from .graph.graph import Graph

Trace = Any  # an engine.trace.Trace: Trace.plot() calls in here, so this module reads it without importing it

__all__ = [
    "PLOT_FORMATS",
    "MissingExtraError",
    "check_plot_path",
    "plot_graph",
    "plot_trace",
    "save_figure",
]

PLOT_FORMATS = {".png": "png", ".svg": "svg"}
PLOT_EXTRA = "pip install graphgear[plot]"
# a colour-blind-safe palette (Okabe & Ito) and markers that differ in shape too, so paths tell apart in grey prints
_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# SEP-Graph's eight execution paths in a fixed order, so a path has the same colour and marker in every picture
_PATHS = ("sync-push-dd", "sync-pull-dd", "async-push-dd", "async-pull-dd", "sync-push-td", "sync-pull-td",
          "async-push-td", "async-pull-td")
_LISTED_SWITCHES = 8  # switches numbered and explained under the trace picture; the rest are in --trace JSON
_REASON_CHARS = 125  # characters per line of the reasons under the picture (9 inches at 8 points)


def check_plot_path(path: str | os.PathLike[str]) -> str:
    """The picture format of `path` ("png" or "svg", from its extension), after refusing a name that is neither and
    a target write_atomically would refuse (FileError), and a missing matplotlib (MissingExtraError): everything a
    command checks before its work."""
    from .graph.io.output import check_writable

    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in PLOT_FORMATS:
        raise FileError(path, f"a picture is written as .png or .svg, not {suffix or 'a name without an extension'}")
    check_writable(path, what="picture")
    _matplotlib()
    return PLOT_FORMATS[suffix]


def save_figure(figure: Any, path: str | os.PathLike[str]) -> None:
    """Write `figure` to `path` (.png at 150 dpi, or .svg), whole or not at all (write_atomically)."""
    from .graph.io.output import write_atomically

    fmt = check_plot_path(path)
    # no creation date in the file: the same trace draws the same bytes
    metadata = {"Date": None} if fmt == "svg" else {"Software": "graphgear (matplotlib)"}
    write_atomically(path, lambda f: figure.savefig(f, format=fmt, dpi=150, bbox_inches="tight", metadata=metadata),
                     what="picture")


# ------------------------------------------------------------------------------------------------------ the trace


def plot_trace(trace: Trace, ax: Any = None, *, title: str | None = None, pyplot: bool | None = None) -> Any:
    """Draw `trace` (see the module docstring) and return the Axes of the frontier panel; the time panel is split off
    below it and shares its x axis (``ax.get_shared_x_axes().get_siblings(ax)``). `ax`: where to draw; None makes a
    figure (``ax.figure``), through pyplot when the program imported pyplot (`pyplot` None) or when `pyplot` is True.
    `title`: the picture's title (default: the algorithm, backend and controller)."""
    _matplotlib()
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    rows = trace.rows
    if ax is None:
        ax = _figure((9, 6.5), pyplot).add_subplot()
    time_ax = make_axes_locatable(ax).append_axes("bottom", size="70%", pad=0.15, sharex=ax)
    n = len(rows)
    x = np.arange(n)
    paths = np.array([r.path for r in rows], dtype=object)
    vertices = np.array([r.frontier_vertices for r in rows], dtype=np.float64)
    edges = np.array([r.frontier_edges for r in rows], dtype=np.float64)
    ms = np.array([r.seconds * 1e3 for r in rows], dtype=np.float64)
    size = 36 if n <= 60 else 12 if n <= 400 else 3

    _shade_phases(rows, ax, time_ax)
    ax.plot(x, vertices, color="0.6", linewidth=1, zorder=1)
    ax.plot(x, edges, color="0.6", linewidth=1, linestyle="--", zorder=1)
    handles = []
    seen = list(dict.fromkeys(paths.tolist()))
    others = [p for p in seen if p not in _PATHS]
    for path in sorted(seen, key=lambda p: _PATHS.index(p) if p in _PATHS else len(_PATHS) + others.index(p)):
        i = _PATHS.index(path) if path in _PATHS else len(_PATHS) + others.index(path)
        color, marker = _COLORS[i % len(_COLORS)], _MARKERS[i % len(_MARKERS)]
        mine = paths == path
        handles.append(ax.scatter(x[mine], vertices[mine], s=size, color=color, marker=marker, zorder=3,
                                  label=path))
        ax.scatter(x[mine], edges[mine], s=size, facecolors="none", edgecolors=color, marker=marker, zorder=3)
        time_ax.bar(x[mine], ms[mine], width=0.8, color=color, zorder=2)

    from matplotlib.lines import Line2D

    handles += [Line2D([], [], color="0.4", marker="o", label="frontier vertices"),
                Line2D([], [], color="0.4", marker="o", markerfacecolor="none", linestyle="--",
                       label="frontier edges")]
    ax.legend(handles=handles, title="execution path", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8,
              title_fontsize=8, frameon=False)
    ax.set_yscale("symlog", linthresh=1)
    ax.set_ylim(0, 3 * max(1.0, vertices.max(initial=0), edges.max(initial=0)))  # room above the largest, in log
    ax.set_ylabel("frontier size (count)")
    ax.tick_params(labelbottom=False)
    ax.grid(True, axis="y", color="0.9", zorder=0)
    time_ax.set_yscale("log")
    time_ax.set_ylabel("time per iteration (ms)")
    time_ax.set_xlabel("iteration")
    time_ax.grid(True, axis="y", color="0.9", zorder=0)
    time_ax.set_xlim(-0.7, max(n, 1) - 0.3)
    from matplotlib.ticker import MaxNLocator

    time_ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    _mark_switches(rows, ax, time_ax)
    ax.set_title(title or _trace_title(trace), pad=16, fontsize=11)
    return ax


def _trace_title(trace: Trace) -> str:
    controller = f", {trace.controller} controller" if trace.controller else ""
    return f"{trace.algorithm or 'trace'}: per-iteration trace on {trace.backend or '?'}{controller} ({trace.summary()})"


def _switches(rows: list[Any]) -> list[int]:
    """Iterations whose execution path differs from the previous iteration's."""
    return [i for i in range(1, len(rows)) if rows[i].path != rows[i - 1].path]


def _mark_switches(rows: list[Any], ax: Any, time_ax: Any) -> None:
    """Dotted lines at the first switches of path, numbered above the frontier panel; under the time panel, the start
    and each numbered switch with the controller's decision and reason."""
    switches = _switches(rows)
    listed = switches[:_LISTED_SWITCHES]
    for number, i in enumerate(listed, start=1):
        for a in (ax, time_ax):
            a.axvline(i - 0.5, color="0.25", linestyle=":", linewidth=1, zorder=1)
        ax.annotate(str(number), xy=(i - 0.5, 1.0), xycoords=("data", "axes fraction"), xytext=(0, 2),
                    textcoords="offset points", ha="center", va="bottom", fontsize=7,
                    bbox={"boxstyle": "circle,pad=0.2", "facecolor": "white", "edgecolor": "0.25", "linewidth": 0.8})
    if not rows:
        time_ax.text(0.5, 0.5, "no iterations", transform=time_ax.transAxes, ha="center", va="center")
        return
    lines = [_explain("start", rows[0])]
    lines += [_explain(f"{number}", rows[i], rows[i - 1].path) for number, i in enumerate(listed, start=1)]
    more = len(switches) - len(listed)
    if not switches:
        lines.append("no switch of execution path")
    elif more:
        lines.append(f"... {more:,} more switch{'es' if more != 1 else ''} of path (every reason: --trace FILE.json)")
    heading = f"switches of execution path ({len(switches):,}), with the controller's reason:"
    time_ax.text(0.0, -0.3, heading + "\n" + "\n".join(lines), transform=time_ax.transAxes, ha="left", va="top",
                 fontsize=8, family="monospace", linespacing=1.35)


def _explain(label: str, row: Any, before: str | None = None) -> str:
    """One entry under the picture: "3  it 12: sync-push-dd -> sync-pull-dd  pull: reason", wrapped."""
    change = row.path if before is None else f"{before} -> {row.path}"
    said = row.reason if not row.decision or row.decision == row.path else f"{row.decision}: {row.reason}"
    head = f"{label:>5}  it {row.iteration}: {change}  "
    return "\n".join(textwrap.wrap(head + said, _REASON_CHARS, subsequent_indent=" " * 7, break_on_hyphens=False))


def _shade_phases(rows: list[Any], ax: Any, time_ax: Any) -> None:
    """Bands of alternating shade behind each run of iterations of one phase, named at the top of the frontier
    panel."""
    if not any(r.phase for r in rows):
        return
    runs, start = [], 0
    for i in range(1, len(rows) + 1):
        if i == len(rows) or rows[i].phase != rows[start].phase:
            runs.append((start, i, rows[start].phase))
            start = i
    for number, (first, end, phase) in enumerate(runs):
        for a in (ax, time_ax):
            a.axvspan(first - 0.5, end - 0.5, color="0.92" if number % 2 == 0 else "0.97", zorder=0, linewidth=0)
        if phase and (len(runs) <= 20 or all(p != phase for _, _, p in runs[:number])):  # crowded: first ones only
            ax.text((first + end - 1) / 2, 0.02, phase, transform=ax.get_xaxis_transform(), ha="center",
                    va="bottom", fontsize=7, color="0.35", clip_on=True)


# ------------------------------------------------------------------------------------------------------ the graph


def plot_graph(graph: Graph, *, title: str | None = None, pyplot: bool = False) -> Any:
    """A figure of `graph`'s degree distribution and component-size distribution (see the module docstring);
    returns the matplotlib Figure."""
    _matplotlib()
    fig = _figure((11, 4.6), pyplot)
    degree_ax, component_ax = fig.subplots(1, 2)
    if graph.directed:
        series = [("out-degree", graph.out_degree(), _COLORS[0], "o"),
                  ("in-degree", graph.in_degree(), _COLORS[1], "s")]
    else:
        series = [("degree", graph.out_degree(), _COLORS[0], "o")]
    for label, degree, color, marker in series:
        counts = np.bincount(degree) if degree.size else np.zeros(1, np.int64)
        d = np.nonzero(counts)[0]
        d = d[d > 0]
        zero = int(counts[0]) if counts.size else 0
        degree_ax.scatter(d, counts[d], s=10, color=color, marker=marker, alpha=0.75,
                          label=f"{label} (max {int(degree.max()) if degree.size else 0:,}"
                                + (f"; {zero:,} of degree 0, not shown)" if zero else ")"))
    _log_log(degree_ax, "degree", "vertices with that degree")
    degree_ax.set_title("degree distribution", fontsize=10)
    _legend_below(degree_ax)

    n = graph.num_vertices
    kinds = [("weakly connected" if graph.directed else "connected", "weak", _COLORS[2], "o")]
    if graph.directed:
        kinds.append(("strongly connected", "strong", _COLORS[3], "s"))
    for label, connection, color, marker in kinds:
        sizes = _component_sizes(graph, connection)
        per_size = np.bincount(sizes) if sizes.size else np.zeros(1, np.int64)
        s = np.nonzero(per_size)[0]
        largest = int(sizes.max()) if sizes.size else 0
        component_ax.scatter(s, per_size[s], s=14, color=color, marker=marker, alpha=0.8,
                             label=f"{label}: {sizes.size:,} components, largest {largest:,} vertices "
                                   f"({largest / max(n, 1):.0%})")
    _log_log(component_ax, "component size (vertices)", "components of that size")
    component_ax.set_title("component size distribution", fontsize=10)
    _legend_below(component_ax)
    kind = "directed" if graph.directed else "undirected"
    fig.suptitle(title or f"{graph.name or 'graph'}: {n:,} vertices, {graph.num_edges:,} edges, {kind}", fontsize=11)
    fig.subplots_adjust(wspace=0.28)
    return fig


def _component_sizes(graph: Graph, connection: str) -> np.ndarray:
    """The size of every component (SciPy's connected_components on the CSR: "weak" or "strong")."""
    from scipy.sparse.csgraph import connected_components

    if graph.num_vertices == 0:
        return np.zeros(0, np.int64)
    _, labels = connected_components(graph.to_scipy(), directed=graph.directed, connection=connection)
    return np.bincount(labels)


def _legend_below(ax: Any) -> None:
    """The legend under the panel, where it hides no point."""
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(0.0, -0.16), borderaxespad=0)


def _log_log(ax: Any, xlabel: str, ylabel: str) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", color="0.9")
    ax.set_axisbelow(True)


# ------------------------------------------------------------------------------------------------------- figures


def _matplotlib() -> Any:
    return optional_module("matplotlib", "drawing pictures", PLOT_EXTRA)


def _figure(size: tuple[float, float], pyplot: bool | None) -> Any:
    """A new Figure: through pyplot when asked (or, with None, when the program imported pyplot itself), else a
    bare Figure on an Agg canvas (no display, no global state)."""
    if pyplot or (pyplot is None and "matplotlib.pyplot" in sys.modules):
        return optional_module("matplotlib.pyplot", "drawing pictures", PLOT_EXTRA).figure(figsize=size)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=size)
    FigureCanvasAgg(figure)
    return figure

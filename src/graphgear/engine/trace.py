"""Trace: one row per iteration — which execution path ran, on how much work, how long, and why it was chosen.

Users read it to see (and then control) the strategy; benchmarks read it for per-iteration times. Export with
`to_json` / `to_dicts` / `to_pandas`, print with `table` (rich, fits 80 columns) or `str(trace)`, draw with `plot`
(graphgear.plot; matplotlib is imported only there, and only when asked).
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = ["Trace", "TraceRow", "TraceTable"]


@dataclass(frozen=True)
class TraceRow:
    """One iteration: the strategy that ran (short form and SEP-Graph path name), the frontier it ran on, the edges
    it processed, its wall time, and the controller's decision with its reason."""

    iteration: int
    strategy: str
    path: str
    frontier_vertices: int
    frontier_edges: int
    edges_processed: int
    seconds: float
    decision: str
    reason: str
    phase: str = ""


@dataclass
class Trace:
    """The rows of one algorithm run plus run-level facts (algorithm, backend, controller).

    Rows may be added later than their iterations ran: `defer(fill, seconds)` leaves a callable that adds them when
    the trace is first read (a GPU traversal's device log is replayed through the controller only if somebody looks;
    the replay cost about a tenth of a millisecond on a BFS that takes one), with their total time known at once."""

    algorithm: str = ""
    backend: str = ""
    controller: str = ""
    _rows: list[TraceRow] = field(default_factory=list, repr=False)
    _pending: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _pending_seconds: list[float | Callable[[], float]] = field(default_factory=list, repr=False)

    @property
    def rows(self) -> list[TraceRow]:
        """Every row, the deferred ones included (filled in here on first read, in the order they were deferred: the
        list is taken first, so a fill's own adds, which read rows, do not start the next fill)."""
        if self._pending:
            pending, self._pending, self._pending_seconds = self._pending, [], []
            for fill in pending:
                fill()
        return self._rows

    def add(self, **row: Any) -> TraceRow:
        rows = self.rows  # deferred rows come first
        entry = TraceRow(iteration=len(rows), **row)
        rows.append(entry)
        return entry

    def defer(self, fill: Callable[[], None], seconds: float | Callable[[], float]) -> None:
        """Rows that `fill()` adds (through add) when the trace is first read; `seconds`: their total time, or a
        callable that returns it when `seconds` is first asked for (a device run not read back yet)."""
        self._pending.append(fill)
        self._pending_seconds.append(seconds)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    @property
    def seconds(self) -> float:
        """Total time of the traced iterations."""
        pending = [x() if callable(x) else x for x in self._pending_seconds]
        self._pending_seconds[:] = pending
        return sum(r.seconds for r in self._rows) + sum(pending)

    def summary(self) -> str:
        """``"12 iterations, 3.41 ms"``: how titles and summaries name a trace."""
        n = len(self.rows)
        return f"{n:,} iteration{'s' if n != 1 else ''}, {milliseconds(self.seconds)} ms"

    def decisions(self) -> list[str]:
        """The decision of every iteration, e.g. ["push", "push", "pull", "push"]."""
        return [r.decision for r in self.rows]

    def to_dicts(self) -> list[dict[str, Any]]:
        return [asdict(r) for r in self.rows]

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """JSON text of the trace; also written to `path` when given, whole or not at all (write_atomically: a folder,
        a device or a read-only file there raises FileError and is left as it was)."""
        text = json.dumps({"algorithm": self.algorithm, "backend": self.backend, "controller": self.controller,
                           "iterations": self.to_dicts()}, indent=2)
        if path is not None:
            from ..graph.io.output import write_atomically

            data = (text + "\n").encode("utf-8")
            write_atomically(path, lambda f: f.write(data), what="trace")
        return text

    def to_pandas(self) -> Any:
        """A pandas DataFrame with a row per iteration and a column per TraceRow field (iteration, strategy, path,
        frontier_vertices, frontier_edges, edges_processed, seconds, decision, reason, phase); the run-level facts
        (algorithm, backend, controller) are in ``.attrs``. Needs pandas (``pip install graphgear[pandas]``)."""
        from ..errors import optional_module

        pd = optional_module("pandas", "Trace.to_pandas()", "pip install graphgear[pandas]")
        frame = pd.DataFrame(self.to_dicts(), columns=[f.name for f in fields(TraceRow)])
        frame.attrs.update(algorithm=self.algorithm, backend=self.backend, controller=self.controller)
        return frame

    def plot(self, ax: Any = None, *, title: str | None = None) -> Any:
        """Draw the trace with matplotlib and return the Axes of the frontier panel: frontier size (vertices and
        edges) above, time per iteration below on the same iterations, each iteration's execution path as colour and
        marker, and every switch of path numbered with its reason. `ax`: the Axes to draw in (the time panel is split
        off below it); None makes a figure. Needs matplotlib (``pip install graphgear[plot]``); see graphgear.plot."""
        from ..plot import plot_trace

        return plot_trace(self, ax, title=title)

    def table(self, max_rows: int = 60) -> TraceTable:
        """A rich renderable of the iterations that fits the console's width (80 columns and up): a line of numbers
        per iteration and the controller's decision and reason wrapped on the lines below it; the first and last rows
        only when there are more than max_rows. The full text of every field is in `to_json`."""
        return TraceTable(self, max_rows)

    def __str__(self) -> str:
        from io import StringIO

        from rich.console import Console

        buffer = StringIO()
        Console(file=buffer, width=100, force_terminal=False).print(self.table())
        return buffer.getvalue()


class TraceTable:
    """How a Trace prints (rich): a title line, a header, then a line of numbers per iteration with its decision and
    reason on the lines below it, indented under the path. The numbers are laid out for the width rich offers (an 80
    column terminal included): counts with thousands separators where they fit, else in k/M/G; past that the edges
    and frontier-edge columns are dropped. The reason is wrapped, never cut, so no cell breaks into pieces."""

    GAP = 2  # blanks between columns

    def __init__(self, trace: Trace, max_rows: int = 60) -> None:
        self.trace = trace
        self.max_rows = max_rows

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.text import Text

        for line, style in self.lines(options.max_width):
            yield Text(line, style=style, no_wrap=True, overflow="ignore")

    def __rich_measure__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        return Measurement(min(40, options.max_width), options.max_width)

    def lines(self, width: int = 80) -> list[tuple[str, str]]:
        """The table as (text, rich style) lines, none longer than `width` (for width >= 40)."""
        trace, rows = self.trace, self.trace.rows
        title = (f"{trace.algorithm or 'trace'} on {trace.backend or '?'}"
                 + (f" ({trace.controller})" if trace.controller else "")
                 + f": {trace.summary()}")
        out = [(line, "bold") for line in textwrap.wrap(title, width, subsequent_indent="  ")]
        if not rows:
            return out
        shown: list[TraceRow | None] = list(rows)
        if len(rows) > self.max_rows:
            half = self.max_rows // 2
            shown = list(rows[:half]) + [None] + list(rows[-half:])
        columns = self._columns([r for r in shown if r is not None], width)
        widths = [max(len(name), *(len(cell) for cell in cells)) for name, _, cells in columns]
        indent = widths[0] + self.GAP
        out.append((self._join([name for name, _, _ in columns], widths, [right for _, right, _ in columns]), "bold"))
        out.append((" " * indent + "decision: reason", "italic"))
        out.append(("─" * min(width, sum(widths) + self.GAP * (len(widths) - 1)), "dim"))
        previous = None
        index = 0
        for r in shown:
            if r is None:
                out.append((" " * indent + f"... {len(rows) - 2 * (self.max_rows // 2):,} more iterations ...", "dim"))
                previous = None
                continue
            cells = [column[index] for _, _, column in columns]
            index += 1
            switched = previous is not None and r.path != previous
            out.append((self._join(cells, widths, [right for _, right, _ in columns]), "bold" if switched else ""))
            previous = r.path
            said = r.reason if not r.decision or r.decision == r.path else f"{r.decision}: {r.reason}"
            for line in textwrap.wrap(said, max(20, width - indent), break_on_hyphens=False) or [""]:
                out.append((" " * indent + line, "dim"))
        return out

    def _columns(self, rows: list[TraceRow], width: int) -> list[tuple[str, bool, list[str]]]:
        """(header, right-aligned, cells) of the columns that fit `width`: full counts, else compact counts, else
        fewer columns."""
        phases = any(r.phase for r in rows)
        for compact, drop in ((False, ()), (True, ()), (True, ("edges",)), (True, ("edges", "frontier E"))):
            count = _compact if compact else (lambda n: f"{n:,}")
            columns = [("it", True, [str(r.iteration) for r in rows]), ("path", False, [r.path for r in rows])]
            if phases:
                columns.append(("phase", False, [r.phase for r in rows]))
            columns += [("frontier V", True, [count(r.frontier_vertices) for r in rows]),
                        ("frontier E", True, [count(r.frontier_edges) for r in rows]),
                        ("edges", True, [count(r.edges_processed) for r in rows]),
                        ("ms", True, [milliseconds(r.seconds) for r in rows])]
            columns = [c for c in columns if c[0] not in drop]
            total = sum(max(len(name), *(len(x) for x in cells)) for name, _, cells in columns)
            if total + self.GAP * (len(columns) - 1) <= width:
                break
        return columns

    def _join(self, cells: list[str], widths: list[int], right: list[bool]) -> str:
        gap = " " * self.GAP
        return gap.join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip()


def _compact(n: int) -> str:
    """A count in at most 6 characters: 9,999 as it is, then three significant digits and a unit (12.3k, 123k, 1.23M,
    3.00G)."""
    if n < 10_000:
        return f"{n:,}"
    for unit, scale in (("k", 1e3), ("M", 1e6), ("G", 1e9), ("T", 1e12), ("P", 1e15)):
        value = n / scale
        if round(value) < 1000:
            return f"{value:.2f}{unit}" if value < 9.995 else f"{value:.1f}{unit}" if value < 99.95 else \
                f"{value:.0f}{unit}"
    return f"{n:.2e}"


def milliseconds(seconds: float) -> str:
    """`seconds` as milliseconds for reading: three decimals below 10 ms, two below a second, whole ones above."""
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 10 else f"{ms:.2f}" if ms < 1000 else f"{ms:,.0f}"

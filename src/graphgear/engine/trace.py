"""Trace: one row per iteration — which execution path ran, on how much work, how long, and why it was chosen.

Users read it to see (and then control) the strategy; benchmarks read it for per-iteration times. Export with
`to_json` / `to_dicts`, print with `table` (rich) or `str(trace)`.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

__all__ = ["Trace", "TraceRow"]


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

    def decisions(self) -> list[str]:
        """The decision of every iteration, e.g. ["push", "push", "pull", "push"]."""
        return [r.decision for r in self.rows]

    def to_dicts(self) -> list[dict[str, Any]]:
        return [asdict(r) for r in self.rows]

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        """JSON text of the trace; also written to `path` when given, whole or not at all (write_atomically: a folder,
        a device or a read-only file there raises FileError and is left as it was)."""
        text = json.dumps(
            {"algorithm": self.algorithm, "backend": self.backend, "controller": self.controller, "iterations": self.to_dicts()},
            indent=2,
        )
        if path is not None:
            from ..graph.io.output import write_atomically

            data = (text + "\n").encode("utf-8")
            write_atomically(path, lambda f: f.write(data), what="trace")
        return text

    def table(self, max_rows: int = 60) -> Any:
        """A rich Table of the iterations (the first and last rows when there are more than max_rows)."""
        from rich.table import Table

        table = Table(title=f"{self.algorithm} on {self.backend} ({self.controller})", title_justify="left")
        for name, justify in (("it", "right"), ("path", "left"), ("frontier V", "right"), ("frontier E", "right"),
                              ("edges", "right"), ("ms", "right"), ("decision", "left"), ("reason", "left")):
            table.add_column(name, justify=justify, overflow="fold")
        rows = self.rows
        if len(rows) > max_rows:
            half = max_rows // 2
            rows = rows[:half] + [None] + rows[-half:]
        for r in rows:
            if r is None:
                table.add_row("...", "", "", "", "", "", "", f"{len(self.rows) - 2 * (max_rows // 2)} more iterations")
                continue
            table.add_row(str(r.iteration), r.path + (f" [{r.phase}]" if r.phase else ""), f"{r.frontier_vertices:,}",
                          f"{r.frontier_edges:,}", f"{r.edges_processed:,}", f"{r.seconds * 1e3:.3f}", r.decision, r.reason)
        return table

    def __str__(self) -> str:
        from io import StringIO

        from rich.console import Console

        buffer = StringIO()
        Console(file=buffer, width=160, force_terminal=False).print(self.table())
        return buffer.getvalue()

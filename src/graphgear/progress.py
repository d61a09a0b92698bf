"""Progress bars for long work (loads, generation): shown only once a task has run for about a second.

Library calls stay quiet unless asked (``progress=True``) or the CLI turns progress on for the whole process with
`enable`. A task is used as::

    with task("parsing edges", total=nbytes, enabled=progress) as bar:
        bar.advance(chunk)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["task", "enable", "shown", "Task"]

DELAY_S = 1.0  # a task shorter than this never shows a bar
_enabled_by_default = False


def enable(on: bool = True) -> None:
    """Turn progress bars on (the CLI does) or off for every later task that does not say otherwise."""
    global _enabled_by_default
    _enabled_by_default = on


def shown(flag: bool | None = None) -> bool:
    """Whether a task asked with ``enabled=flag`` shows its bar (None follows `enable`)."""
    return _enabled_by_default if flag is None else bool(flag)


class Task:
    """One task's bar. `advance` and `update` are cheap; the bar appears once DELAY_S has passed."""

    def __init__(self, description: str, total: float | None, enabled: bool) -> None:
        self.description = description
        self.total = total
        self.enabled = enabled
        self.completed = 0.0
        self._start = time.perf_counter()
        self._progress: Any = None
        self._task_id: Any = None

    def advance(self, amount: float = 1) -> None:
        self.update(self.completed + amount)

    def update(self, completed: float | None = None, description: str | None = None) -> None:
        if completed is not None:
            self.completed = completed
        if description is not None:
            self.description = description
        if not self.enabled:
            return
        if self._progress is None:
            if time.perf_counter() - self._start < DELAY_S:
                return
            self._show()
        self._progress.update(self._task_id, completed=self.completed, description=self.description)

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

        columns = [TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn()]
        self._progress = Progress(*columns, console=Console(stderr=True), transient=True)
        self._progress.start()
        self._task_id = self._progress.add_task(self.description, total=self.total, completed=self.completed)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


@contextmanager
def task(description: str, total: float | None = None, enabled: bool | None = None) -> Iterator[Task]:
    """A progress task; ``enabled=None`` follows `enable` (off in the library, on in the CLI)."""
    bar = Task(description, total, shown(enabled))
    try:
        yield bar
    finally:
        bar.close()

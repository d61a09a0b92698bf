"""The parent side of a fuzz run: worker subprocesses, timeouts, restarts, and the per-format tally.

Each worker (`fuzz.worker`) runs in its own interpreter (sys.executable) with GRAPHGEAR_MEMORY_LIMIT=512M, a private
GRAPHGEAR_CACHE_DIR and NUMBA_NUM_THREADS=4 unless set (a scan cuts at most 4 chunks per thread: more threads, more
cuts in a small file). One thread per worker feeds it case ids and waits for each answer: no answer within the timeout
is a `hang` (the worker is killed and restarted), a worker that dies is a `crash` (restarted; the reason quotes its
signal and faulthandler's report). The first case of a fresh worker gets a longer timeout: it imports graphgear and
numba compiles (or loads from its cache) the parse kernels.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .judge import FAILURES, OUTCOMES, signature
from .seeds import FORMATS

TESTS = Path(__file__).resolve().parents[1]
MEMORY_LIMIT = "512M"
CASE_TIMEOUT = 30.0
FIRST_CASE_TIMEOUT = 300.0
_BOOT = f"import sys; sys.path.insert(0, {str(TESTS)!r}); from fuzz.worker import main; main()"


@dataclass
class Result:
    id: str
    outcome: str
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    name: str = ""
    size: int = 0

    @property
    def fmt(self) -> str:
        return self.id.rpartition(":")[0]

    @property
    def seed(self) -> int:
        return int(self.id.rpartition(":")[2])


def case_ids(count: int, formats: tuple[str, ...] = FORMATS, start: int = 0) -> list[str]:
    """`count` case ids spread evenly over `formats`, seeds counting up from `start`."""
    return [f"{formats[i % len(formats)]}:{start + i // len(formats)}" for i in range(count)]


def worker_env(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["GRAPHGEAR_MEMORY_LIMIT"] = MEMORY_LIMIT
    env["GRAPHGEAR_CACHE_DIR"] = str(scratch / "cache")
    env.setdefault("NUMBA_NUM_THREADS", "4")  # more threads, more chunks: a scan makes at most 4 per thread
    env["PYTHONFAULTHANDLER"] = "1"
    return env


class _Worker:
    """One worker subprocess, restarted after a crash or a hang."""

    def __init__(self, index: int, scratch: Path, timeout: float, first_timeout: float) -> None:
        self.index, self.scratch = index, scratch
        self.timeout, self.first_timeout = timeout, first_timeout
        self.proc: subprocess.Popen | None = None
        self.lines: queue.Queue = queue.Queue()
        self.log: Path | None = None
        self.starts = 0
        self.fresh = True

    def _start(self) -> None:
        self.starts += 1
        self.log = self.scratch / f"worker{self.index}-{self.starts}.log"
        self.lines = queue.Queue()
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, env=worker_env(self.scratch), text=True, bufsize=1)
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()
        self.fresh = True

    @staticmethod
    def _read(proc: subprocess.Popen, lines: queue.Queue) -> None:
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    def ask(self, case_id: str) -> Result:
        if self.proc is None:
            self._start()
        timeout = self.first_timeout if self.fresh else self.timeout
        try:
            self.proc.stdin.write(case_id + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone: its reader reports the end
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self._stop()
            return Result(case_id, "hang", f"no answer within {timeout:.0f} s")
        if line is None:
            code = self.proc.wait()
            self.proc = None
            return Result(case_id, "crash", self._crash_reason(code))
        self.fresh = False
        answer = json.loads(line)
        return Result(case_id, answer["outcome"], answer.get("reason", ""), answer.get("notes", []),
                      answer.get("name", ""), answer.get("size", 0))

    def _crash_reason(self, code: int) -> str:
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        tail = []
        try:
            text = self.log.read_text(errors="replace").splitlines()
            fatal = [i for i, t in enumerate(text) if t.startswith("Fatal Python error")]
            if fatal:
                tail = [text[fatal[-1]]] + [t.strip() for t in text[fatal[-1] + 1 :] if t.strip().startswith("File")][:2]
            else:
                tail = [t for t in text if t.strip()][-2:]
        except OSError:
            pass
        return f"worker {how}" + (": " + " | ".join(tail) if tail else "")

    def _stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def close(self) -> None:
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._stop()
            self.proc = None


def run_cases(ids: list[str], workers: int = 2, timeout: float = CASE_TIMEOUT,
              first_timeout: float = FIRST_CASE_TIMEOUT, progress=None) -> list[Result]:
    """Run every case id in `workers` worker processes; `progress(done, total)` is called after each case."""
    todo: queue.Queue = queue.Queue()
    for case_id in ids:
        todo.put(case_id)
    results: list[Result] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="graphgear-fuzz-run-") as scratch:

        def serve(worker: _Worker) -> None:
            try:
                while True:
                    try:
                        case_id = todo.get_nowait()
                    except queue.Empty:
                        return
                    result = worker.ask(case_id)
                    with lock:
                        results.append(result)
                        done = len(results)
                    if progress is not None:
                        progress(done, len(ids))
            finally:
                worker.close()

        pool = [_Worker(i, Path(scratch), timeout, first_timeout) for i in range(max(1, workers))]
        threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in pool]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    order = {case_id: i for i, case_id in enumerate(ids)}
    return sorted(results, key=lambda r: order[r.id])


# -------------------------------------------------------------------------------------------------------------- report


def tally(results: list[Result]) -> dict[str, Counter]:
    """Outcome counts per format (and "all")."""
    table: dict[str, Counter] = {}
    for r in results:
        table.setdefault(r.fmt, Counter())[r.outcome] += 1
        table.setdefault("all", Counter())[r.outcome] += 1
    return table


def format_table(results: list[Result]) -> str:
    counts = tally(results)
    shown = [o for o in OUTCOMES if o != "reference_bug" or counts.get("all", Counter())[o]]
    head = f"{'format':<18}{'cases':>8}" + "".join(f"{o:>18}" for o in shown)
    lines = [head, "-" * len(head)]
    for fmt in [f for f in FORMATS if f in counts] + ["all"]:
        c = counts.get(fmt, Counter())
        lines.append(f"{fmt:<18}{sum(c.values()):>8}" + "".join(f"{c[o]:>18}" for o in shown))
    return "\n".join(lines)


def failures(results: list[Result]) -> list[Result]:
    return [r for r in results if r.outcome in FAILURES]


def common_reasons(results: list[Result], top: int = 10) -> list[tuple[str, int, Result]]:
    """(signature, count, first example) of the most common failure reasons."""
    groups: dict[str, list[Result]] = {}
    for r in failures(results):
        groups.setdefault(signature(r.outcome, r.reason), []).append(r)
    ranked = sorted(groups.items(), key=lambda kv: -len(kv[1]))[:top]
    return [(sig, len(rs), rs[0]) for sig, rs in ranked]


def failure_report(results: list[Result], limit: int = 40) -> str:
    """The table, then one line per failing case (format, seed, outcome, reason), `limit` at most."""
    bad = failures(results)
    lines = [format_table(results), "", f"{len(bad)} failing cases (rerun one: python benchmarks/fuzz.py --case ID):"]
    lines += [f"  {r.id:<20} {r.outcome:<18} {r.reason[:200]}" for r in bad[:limit]]
    if len(bad) > limit:
        lines.append(f"  ... and {len(bad) - limit} more")
    return "\n".join(lines)


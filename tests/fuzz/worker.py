"""A fuzz worker: reads case ids ("el.gz:17") on stdin, answers one JSON line per case on stdout.

Started by the runner as ``python -c "...; from fuzz.worker import main; main()"`` with tests/ on sys.path. The
protocol keeps its own copy of the stdout file descriptor; file descriptor 1 is pointed at stderr so that anything
graphgear, numba or a C library prints cannot corrupt an answer. faulthandler writes the Python stack of a fatal
signal (SIGSEGV, SIGABRT) to stderr, which the runner keeps in a log and quotes for a crash.
"""

from __future__ import annotations

import faulthandler
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

ADDRESS_SPACE_ENV = "GRAPHGEAR_FUZZ_ADDRESS_SPACE"  # the worker's RLIMIT_AS (default 16G; 0 leaves it unset)


def _limit_address_space() -> None:
    """Cap the worker's address space, so a reader that allocates without asking `graphgear.memory` fails with a
    MemoryError (a foreign exception) instead of taking the machine. Far above GRAPHGEAR_MEMORY_LIMIT, so graphgear's
    own estimate of what is available is unchanged."""
    text = os.environ.get(ADDRESS_SPACE_ENV, "16G")
    if text in ("", "0"):
        return
    from graphgear.memory import parse_size

    try:
        import resource

        limit = parse_size(text)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        pass




def answer_case(case_id: str, workdir: Path) -> dict:
    """The JSON answer for one case id."""
    from .cases import make_case, parse_id
    from .judge import judge

    if case_id == "selftest:crash":
        faulthandler._sigsegv()
    if case_id == "selftest:hang":
        time.sleep(3600)

    try:
        fmt, seed = parse_id(case_id)
        case = make_case(fmt, seed, workdir)
    except Exception as exc:  # noqa: BLE001 - a bug in the fuzzer itself
        return {"id": case_id, "outcome": "reference_bug", "reason": f"fuzzer: {exc!r}",
                "trace": traceback.format_exc(limit=-3)}
    verdict = judge(case, workdir)
    return {"id": case_id, "outcome": verdict.outcome, "reason": verdict.reason, "name": case.name,
            "size": len(case.data), "notes": case.notes}


def main() -> None:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    faulthandler.enable()
    import graphgear  # noqa: F401 - imported before the address space is capped

    _limit_address_space()
    workdir = Path(tempfile.mkdtemp(prefix="graphgear-fuzz-"))
    try:
        for line in sys.stdin:
            case_id = line.strip()
            if case_id:
                protocol.write(json.dumps(answer_case(case_id, workdir)) + "\n")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

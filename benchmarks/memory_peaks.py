"""Measured peak memory of each generator kind and of the CSR build, beside graphgear's estimates of it.

    python benchmarks/memory_peaks.py [--quick] [--markdown] [CASE ...]

`graphgear.graph.generate.estimate_bytes` (a generator spec, building its CSR included) and
`graphgear.graph.build.csr_build_bytes` (`build_csr` alone, beyond the records it is handed) are what
`graphgear.memory.require` checks before anything is allocated. This measures what they estimate, one case per fresh
subprocess (no memory held over from an earlier case):

- tracemalloc's peak: NumPy reports its array buffers to tracemalloc, and numba's runtime allocates through it too (the
  first check below shows it), so every array of the run is counted, touched or not;
- the peak resident set, as a cross-check: ``VmHWM`` after it is reset (``/proc/self/clear_refs``), minus the resident
  set before the run. It counts only touched pages (a buffer of np.zeros that is only read stays out of it) but also
  what tracemalloc cannot see (allocator slack, thread stacks).

Each case first runs a tiny instance of itself, so numba's compilation (or cache load) is not measured. The measured
peak is the larger of the two; the estimate must never be below it (the script exits 1 when it is). The last column
leaves out the estimates' fixed slack (16 MiB), which dominates at small sizes. Cases:

    kron:14, rgg:15:w, grid:256:256:0.5, ...   a generator spec (gg.load(spec))
    build:N:M:directed|undirected[:w]          build_csr of M random records over N vertices (self-loops included)
    wide:N:M:directed|undirected[:w]           the same through the wide path (ids >= 2^31) at a small N
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tracemalloc

GENERATOR_CASES = [
    "kron:12", "kron:14", "kron:16", "kron:16:w", "kron:17",
    "rmat:12:16", "rmat:14:16", "rmat:16:16", "rmat:16:16:w",
    "er:4096:16", "er:65536:16", "er:262144:16", "er:262144:16:w",
    "rgg:12", "rgg:15", "rgg:18", "rgg:18:w",
    "grid:64:64", "grid:256:256", "grid:1024:1024", "grid:1024:1024:w", "grid:1024:1024:0.5",
]
BUILD_CASES = [
    f"{path}:{n}:{m}:{direction}{weight}"
    for path, sizes in (("build", ((1 << 12, 1 << 16), (1 << 16, 1 << 20), (1 << 18, 1 << 21))),
                        ("wide", ((1 << 12, 1 << 16), (1 << 16, 1 << 20))))
    for n, m in sizes
    for direction in ("directed", "undirected")
    for weight in ("", ":w")
]
QUICK_CASES = ["kron:12", "rmat:12:16:w", "er:4096:16", "rgg:12", "grid:64:64:0.5",
               "build:4096:65536:undirected:w", "wide:4096:65536:directed"]


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current resident set (Linux 4.0+)
        return True
    except OSError:
        return False


def numba_allocations_traced() -> bool:
    """Whether tracemalloc sees an array that numba's runtime allocates (else RSS would be the only measure)."""
    import numba
    import numpy as np

    @numba.njit
    def make(n):  # pragma: no cover - numba
        return np.empty(n, np.int64)

    make(1)
    tracemalloc.start()
    tracemalloc.reset_peak()
    held = make(1 << 20)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del held
    return peak >= 8 << 20


def _tiny(case: str) -> str:
    """A tiny case of the same kind and options, run first so compilation is not measured."""
    name, *rest = case.split(":")
    weighted = ":w" if "w" in rest else ""
    if name in ("build", "wide"):
        return f"{name}:64:256:{rest[2]}{weighted}"
    tiny = {"kron": "kron:6", "rmat": "rmat:6:4", "er": "er:64:4", "rgg": "rgg:6", "grid": "grid:8:8"}[name]
    if name == "grid" and len(rest) > 2 and rest[2] != "w":
        tiny += ":" + rest[2]
    return tiny + weighted


def _run(case: str) -> tuple[object, int]:
    """Run one case; returns (what it built, its estimate)."""
    import numpy as np

    import graphgear as gg
    from graphgear.graph import build
    from graphgear.graph.generate import estimate_bytes

    name, *rest = case.split(":")
    if name not in ("build", "wide"):
        estimate = estimate_bytes(case)
        return gg.load(case), estimate
    n, m, directed, weighted = int(rest[0]), int(rest[1]), rest[2] == "directed", "w" in rest[3:]
    rng = np.random.default_rng(1)
    src = rng.integers(0, n, m, dtype=np.int64)
    dst = rng.integers(0, n, m, dtype=np.int64)
    w = rng.random(m, dtype=np.float32) if weighted else None
    if name == "wide":
        build._PACKED_LIMIT = 0  # as tests/test_build.py does: the wide path (and its formula) at this small n
    estimate = build.csr_build_bytes(n, m, directed, weighted)
    return _Deferred(lambda: build.build_csr(src, dst, w, n, directed)), estimate


class _Deferred:
    def __init__(self, fn):
        self.fn = fn


def measure_one(case: str) -> dict:
    """Measure one case in this process (call it in a fresh one)."""
    import gc

    result, _ = _run(_tiny(case))
    if isinstance(result, _Deferred):
        result.fn()
    del result
    prepared, estimate = _run(case) if case.split(":")[0] in ("build", "wide") else (None, None)
    gc.collect()
    rss_ok = _reset_peak_rss()
    before = _status_kib("VmRSS")
    tracemalloc.start()
    tracemalloc.reset_peak()
    if prepared is not None:
        out = prepared.fn()
    else:
        out, estimate = _run(case)
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = _status_kib("VmHWM")
    del out
    rss = (peak - before) * 1024 if rss_ok and peak is not None and before is not None else None
    return {"case": case, "traced": traced, "rss": rss, "estimate": estimate}


def measure(case: str) -> dict:
    """Measure one case in a fresh subprocess."""
    done = subprocess.run([sys.executable, __file__, "--one", case], capture_output=True, text=True, env=os.environ)
    if done.returncode != 0:
        raise RuntimeError(f"{case}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def mib(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 2**20:,.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="cases to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="a few small cases only")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one)))
        return
    cases = args.cases or (QUICK_CASES if args.quick else GENERATOR_CASES + BUILD_CASES)
    print(f"numba's allocations seen by tracemalloc: {numba_allocations_traced()}")
    from graphgear.graph.build import _SLACK_BYTES

    head = ("case", "traced MiB", "RSS MiB", "measured MiB", "estimate MiB", "estimate/measured", "less slack")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    else:
        print(f"{head[0]:<34}" + "".join(f"{h:>18}" for h in head[1:]))
    low = []
    for case in cases:
        r = measure(case)
        measured = max(r["traced"], r["rss"] or 0)
        ratio = r["estimate"] / measured
        if ratio < 1:
            low.append(case)
        bare = (r["estimate"] - _SLACK_BYTES) / measured  # the per-record, per-arc and per-vertex terms alone
        cells = (mib(r["traced"]), mib(r["rss"]), mib(measured), mib(r["estimate"]), f"{ratio:.2f}", f"{bare:.2f}")
        if args.markdown:
            print(f"| `{case}` | " + " | ".join(cells) + " |", flush=True)
        else:
            print(f"{case:<34}" + "".join(f"{c:>18}" for c in cells), flush=True)
    print("every estimate covers its measured peak" if not low else f"ESTIMATE BELOW THE PEAK: {', '.join(low)}")
    sys.exit(1 if low else 0)


if __name__ == "__main__":
    main()

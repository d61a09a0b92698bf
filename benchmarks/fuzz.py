"""Fuzz graphgear's file readers against tests/reference_formats.py (docs/formats.md) and print a per-format table.

    python benchmarks/fuzz.py --cases 5000 --workers 2                    # table, 10 most common failure reasons
    python benchmarks/fuzz.py --cases 200000 --workers 8 --json out.json  # every failing case in out.json
    python benchmarks/fuzz.py --case el.gz:17 [--keep DIR]                # one case in this process, shown in full

Cases are spread evenly over the formats of tests/fuzz/seeds.py (FORMATS), seeds counting up from --seed; a case is
reproducible from its id ``FORMAT:SEED``. See tests/fuzz/__init__.py for what a case is and tests/fuzz/judge.py for the
outcomes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz import runner
from fuzz.judge import OUTCOMES
from fuzz.seeds import FORMATS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000, help="number of cases, spread evenly over the formats")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--formats", default=",".join(FORMATS), help="comma-separated subset of " + " ".join(FORMATS))
    parser.add_argument("--timeout", type=float, default=runner.CASE_TIMEOUT, help="seconds per case before a hang")
    parser.add_argument("--json", default="fuzz-failures.json", help="where the failing cases are written")
    parser.add_argument("--top", type=int, default=10, help="how many of the most common failure reasons to print")
    parser.add_argument("--examples", action="store_true", help="show the file of each reason's example")
    parser.add_argument("--case", help="run one case FORMAT:SEED in this process and show it")
    parser.add_argument("--keep", help="with --case: folder to keep the case's file in")
    args = parser.parse_args(argv)

    if args.case:
        from fuzz.debug import show

        outcome = show(args.case, args.keep)
        return 0 if outcome not in runner.FAILURES else 1

    formats = tuple(f for f in args.formats.split(",") if f)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        parser.error(f"unknown formats {unknown}")
    ids = runner.case_ids(args.cases, formats, args.seed)
    start = time.perf_counter()
    step = max(1, len(ids) // 20)

    def progress(done: int, total: int) -> None:
        if done % step == 0 or done == total:
            print(f"  {done}/{total} cases, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    results = runner.run_cases(ids, workers=args.workers, timeout=args.timeout, progress=progress)
    seconds = time.perf_counter() - start
    print(f"{len(results)} cases, {args.workers} workers, {seconds:.0f} s ({len(results) / seconds:.0f} cases/s)")
    print(runner.format_table(results))
    reasons = runner.common_reasons(results, args.top)
    if reasons:
        print(f"\n{len(reasons)} most common failure reasons (count, signature, example):")
        from fuzz.debug import glimpse

        for sig, count, example in reasons:
            print(f"{count:>7}  {sig}\n         e.g. {example.id}: {example.reason[:240]}")
            if args.examples:
                print("\n".join("           | " + line for line in glimpse(example.id).splitlines()))
    bad = runner.failures(results)
    report = {
        "cases": len(results), "workers": args.workers, "first_seed": args.seed, "formats": list(formats),
        "seconds": round(seconds, 1),
        "table": {fmt: {o: c[o] for o in OUTCOMES} for fmt, c in runner.tally(results).items()},
        "common_reasons": [{"signature": s, "count": c, "example": e.id} for s, c, e in reasons],
        "failures": [{"id": r.id, "outcome": r.outcome, "reason": r.reason, "name": r.name, "size": r.size,
                      "notes": r.notes} for r in bad],
    }
    Path(args.json).write_text(json.dumps(report, indent=1))
    print(f"\n{len(bad)} failing cases written to {args.json}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

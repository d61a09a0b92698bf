"""Mutation fuzzing of graphgear's file readers against `reference_formats` (docs/formats.md read line by line).

A case is a (format, seed) pair, written ``FORMAT:SEED`` (``el.gz:17``, ``npz:3``): `cases.make_case` draws a valid
seed file (`seeds`: gg.save output or handmade, every feature of the spec), mutates it (`mutate`: bytes, lines,
numbers, chunk cuts, gzip, .npz containers and arrays), and `judge.judge` loads it with ``gg.load(path, cache=False)``
and with the reference and classifies the outcome (`judge.OUTCOMES`). `runner.run_cases` does that in worker
subprocesses with timeouts, so a segfault or a hang is one case's outcome, not the end of the run.

Formats (`seeds.FORMATS`): el txt csv tsv wel konect gr graph mtx mtx_nobanner, each also ``.gz``, and npz.

Run:

    pytest tests/test_fuzz.py                                   # ~2,500 cases over all formats, and the reference's
                                                                # own unit tests
    GRAPHGEAR_FUZZ_CASES=200000 GRAPHGEAR_FUZZ_WORKERS=8 pytest tests/test_fuzz.py -k fuzz_run
    python benchmarks/fuzz.py --cases 200000 --workers 8 --json fuzz-failures.json
    python benchmarks/fuzz.py --cases 5000 --examples          # each common failure reason with its example's file

Debug one case (in this process: no worker, so a debugger or a crash is yours; the file is kept):

    python benchmarks/fuzz.py --case el.gz:17                   # notes, the bytes, both answers, the verdict
    python benchmarks/fuzz.py --case el.gz:17 --keep /tmp/case  # and the file stays in /tmp/case
    python -c "import sys; sys.path.insert(0, 'tests'); from fuzz.debug import show; show('el.gz:17')"

Environment: GRAPHGEAR_FUZZ_CASES, GRAPHGEAR_FUZZ_WORKERS, GRAPHGEAR_FUZZ_SEED (first seed), GRAPHGEAR_FUZZ_TIMEOUT
(seconds per case) for the test; GRAPHGEAR_FUZZ_ADDRESS_SPACE caps a worker's address space (default 16G, 0 = none).
Workers always run with GRAPHGEAR_MEMORY_LIMIT=512M.
"""

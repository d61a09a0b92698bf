#!/usr/bin/env bash
# One device call: the GPU tests, then `graphgear bench --suite gpu` (every algorithm, SCC against SciPy, the BFS
# load-balancing ablation on the generated and the real graphs).
#   run from the repo root on the device machine, with the real graphs carried in .data/graphs
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1 GRAPHGEAR_SHARED_GRAPHS=$PWD/.data/graphs
OUT=${OUT:-/tmp}
nvidia-smi -L
python3 -m pytest -m gpu -q -p no:cacheprovider 2>&1 | tee "$OUT/pytest_gpu.log" | tail -5
python3 -m graphgear --no-progress bench --suite gpu --graphs .data/graphs --json "$OUT/gpu.json" > "$OUT/bench.log" 2>&1
grep -v "cli.py" "$OUT/bench.log" | tail -40

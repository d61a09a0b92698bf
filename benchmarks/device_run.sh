#!/usr/bin/env bash
# One device call: the GPU tests, the BFS benchmark with the load-balancing ablation, and a host-time profile.
#   run from the repo root on the device machine, with the real graphs carried in .data/graphs
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1 GRAPHGEAR_SHARED_GRAPHS=$PWD/.data/graphs
OUT=${OUT:-/tmp}
nvidia-smi -L
python3 -m pytest -m gpu -q -p no:cacheprovider 2>&1 | tee "$OUT/pytest_gpu.log" | tail -5
python3 benchmarks/gpu_profile.py kron:21 > "$OUT/profile.log" 2>&1
head -14 "$OUT/profile.log"
python3 benchmarks/gpu_bfs.py --repeat 5 > "$OUT/gpu_bfs.log" 2>&1
tail -24 "$OUT/gpu_bfs.log"

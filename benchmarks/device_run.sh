#!/usr/bin/env bash
# One device call (at most 10 minutes): the parts named, in order, each with its log in $OUT and a time limit, a short
# summary of each printed last.
#   bash benchmarks/device_run.sh [tests] [peers] [loops] [bench] [ablation]     (default: tests peers loops, ~7 min
#   on an H200; bench alone ~1 min; ablation alone ~8 min)
#     tests     python3 -m pytest -m gpu, 12 workers (pytest-xdist)
#     peers     benchmarks/peers.py (GAP and GSWITCH from .peers, then graphgear) and benchmarks/host_reads.py
#     loops     benchmarks/device_loops.py (issue 23's BC / colour / label-propagation / SCC figures) and
#               benchmarks/bc_loop_sizes.py
#     bench     graphgear bench --suite gpu --no-ablation (every algorithm, SCC against SciPy)
#     ablation  the BFS load-balancing, duplicate-removal, execution-path and PageRank ablations on kron:21,
#               grid:2048:2048 and two real graphs (benchmarks/ablation_tables.py; more than one call's 10 minutes
#               since session 38: run a table a call, ablation-balance, ablation-dedup, ablation-paths,
#               ablation-pagerank, on one tree)
# Run from the repo root on the device machine, with the real graphs carried in .data/graphs, ../shared/peers in
# .peers, and any wheels the machine lacks (dask, distributed and their needs) in .whl.
set -uo pipefail
OUT=${OUT:-/tmp/device_run}
mkdir -p "$OUT"
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
        > /dev/null 2>&1 || echo "carried wheels did not install"
fi
export PYTHONPATH=$PWD/src:/tmp/site PYTHONUNBUFFERED=1 GRAPHGEAR_SHARED_GRAPHS=$PWD/.data/graphs
nvidia-smi -L
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(tests peers loops)
summary=()

step() {  # step NAME LIMIT_SECONDS COMMAND...: run it, log to $OUT/NAME.log, note its status and time
    local name=$1 limit=$2 start=$SECONDS
    shift 2
    timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
    local rc=$?
    summary+=("$name rc=$rc $((SECONDS - start)) s")
}

for part in "${parts[@]}"; do
    case $part in
        tests) step tests 300 python3 -m pytest -m gpu -q -rs -p no:cacheprovider -n 12 ;;
        peers) step peers 220 python3 benchmarks/peers.py --peers .peers --json "$OUT/peers.json"
               step host_reads 60 python3 benchmarks/host_reads.py ;;
        loops) step device_loops 120 python3 benchmarks/device_loops.py
               step bc_loop_sizes 90 python3 benchmarks/bc_loop_sizes.py ;;
        bench) step bench 200 python3 -m graphgear --no-progress bench --suite gpu --no-ablation --json "$OUT/gpu.json" ;;
        ablation) step ablation 560 python3 benchmarks/ablation_tables.py balance dedup paths pagerank ;;
        ablation-*) step "$part" 560 python3 benchmarks/ablation_tables.py "${part#ablation-}" ;;
        *) echo "unknown part $part (tests, peers, loops, bench, ablation, ablation-TABLE)"; exit 2 ;;
    esac
done

echo
[ -f "$OUT/tests.log" ] && grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$OUT/tests.log" | tail -20
[ -f "$OUT/peers.log" ] && grep -E "^\|" "$OUT/peers.log"
[ -f "$OUT/host_reads.log" ] && tail -8 "$OUT/host_reads.log"
[ -f "$OUT/device_loops.log" ] && grep -v -i warn "$OUT/device_loops.log" | tail -24
[ -f "$OUT/bc_loop_sizes.log" ] && grep -v -i warn "$OUT/bc_loop_sizes.log"
[ -f "$OUT/bench.log" ] && grep -v "cli.py" "$OUT/bench.log" | tail -20
for log in "$OUT"/ablation*.log; do [ -f "$log" ] && grep -E "^(\||[a-z]+$)" "$log"; done
printf '%s\n' "${summary[@]}"

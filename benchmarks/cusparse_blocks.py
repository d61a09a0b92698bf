"""How many arcs one cuSPARSE SpMV (through CuPy) multiplies: the figure behind the distributed PageRank's
MATRIX_ARCS["cuda"] (docs/distributed.md, "PageRank's row blocks").

    python3 benchmarks/cusparse_blocks.py [--rows 134217728] [--columns 536870912] [--arcs 2147483647,...]

For each count of arcs, a CSR block of --rows rows with that many random targets in [0, --columns) and float64 values
(a kron:29 rank's shape on 4 GPUs) is built on the GPU and multiplied by a vector, once to warm up and once timed; a
failure (an out-of-memory work buffer, a cuSPARSE error) is printed, not raised, and the next count runs.
"""

from __future__ import annotations

import argparse


def main() -> None:
    import cupy as cp
    from cupyx.scipy import sparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=134_217_728)
    ap.add_argument("--columns", type=int, default=536_870_912)
    ap.add_argument("--arcs", default=f"{2**31 - 1},2013265918,1879048191,{2**30}")
    args = ap.parse_args()
    rows, n = args.rows, args.columns
    pool = cp.get_default_memory_pool()
    x = cp.random.random(n)
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}: {rows:,} rows, {n:,} columns", flush=True)
    for arcs in (int(a) for a in args.arcs.split(",")):
        block = None
        try:
            targets = cp.empty(arcs, dtype=cp.int32)
            for a in range(0, arcs, 1 << 27):  # drawn in pieces: one draw of 2^31 int32 would pass through int64
                b = min(arcs, a + (1 << 27))
                targets[a:b] = cp.random.randint(0, n, size=b - a, dtype=cp.int32)
            offsets = (cp.arange(rows + 1, dtype=cp.int64) * arcs // rows).astype(cp.int32)
            block = sparse.csr_matrix((cp.ones(arcs), targets, offsets), shape=(rows, n))
            del targets, offsets
            block @ x  # the warm-up product
            start, end = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            block @ x
            end.record()
            end.synchronize()
            print(f"{arcs:,} arcs: multiplied in {cp.cuda.get_elapsed_time(start, end):.1f} ms", flush=True)
        except Exception as exc:  # noqa: BLE001 - the figure wanted is which counts fail, and how
            print(f"{arcs:,} arcs: FAILED, {type(exc).__name__}: {str(exc)[:160]}", flush=True)
        block = None
        pool.free_all_blocks()


if __name__ == "__main__":
    main()

"""Host time of one CuPy RawKernel launch by how its arguments are passed: 64 separate arguments (made per launch or
made once), one struct packed in a one-element NumPy array (CuPy passes it by value), and 4 arguments; then launches
of the struct kernel with the GPU idle and busy. Why the persistent traversal kernel takes GGPersistentArgs.

    python3 benchmarks/launch_arguments.py
"""
import time

import cupy as cp
import numpy as np

WORDS = 64
source = r"""
struct Args { const double* a; double* out; long long n; double x; long long w[WORDS - 4]; };
extern "C" __global__ void one(const __grid_constant__ Args s) {
    if (threadIdx.x == 0 && blockIdx.x == 0) s.out[0] = s.a[0] + s.x + (double)s.n + (double)s.w[WORDS - 5];
}
extern "C" __global__ void many(const double* a, double* out, long long n, double x, MANY) {
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = a[0] + x + (double)n + (double)w59;
}
extern "C" __global__ void few(const double* a, double* out, long long n, double x) {
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = a[0] + x + (double)n;
}
extern "C" __global__ void spin(long long cycles) { const long long t0 = clock64(); while (clock64() - t0 < cycles) {} }
""".replace("MANY", ", ".join(f"long long w{i}" for i in range(WORDS - 4))).replace("WORDS", str(WORDS))
module = cp.RawModule(code=source, options=("-std=c++17",))
one, many, few, spin = (module.get_function(name) for name in ("one", "many", "few", "spin"))
a, out = cp.full(1, 2.0), cp.zeros(1)
packed = np.zeros(1, dtype=np.dtype((np.void, 8 * WORDS)))
words = packed.view(np.int64)
words[0], words[1], words[2] = a.data.ptr, out.data.ptr, 5
packed.view(np.float64)[3] = 0.5
words[WORDS - 1] = 7
one((1,), (32,), (packed,))
assert float(out[0]) == 2 + 0.5 + 5 + 7, "the struct did not arrive by value"
made_once = (a, out, np.int64(5), np.float64(0.5)) + tuple(np.int64(i) for i in range(WORDS - 4))
print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode())
cases = (("64 arguments, made once", many, lambda: made_once),
         ("64 arguments, made per launch",
          many, lambda: (a, out, np.int64(5), np.float64(0.5)) + tuple(np.int64(i) for i in range(WORDS - 4))),
         ("one struct", one, lambda: (packed,)), ("one struct, copied per launch", one, lambda: (packed.copy(),)),
         ("4 arguments", few, lambda: (a, out, np.int64(5), np.float64(0.5))))
for name, kernel, args in cases:
    for _ in range(200):
        kernel((1,), (32,), args())
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(500):
            kernel((1,), (32,), args())
        times.append((time.perf_counter() - start) / 500 * 1e6)
        cp.cuda.Device().synchronize()
    print(f"{name:>32}: {np.median(times):6.1f} us a launch (back to back)")
for state in ("idle", "busy"):
    times = []
    for _ in range(300):
        cp.cuda.Device().synchronize()
        if state == "busy":
            spin((1,), (1,), (np.int64(2_000_000),))
        start = time.perf_counter()
        one((264,), (256,), (packed,))
        times.append(time.perf_counter() - start)
    cp.cuda.Device().synchronize()
    print(f"{'one struct, GPU ' + state:>32}: {np.median(times) * 1e6:6.1f} us a launch")

"""numba-cuda's end-to-end compile through cuplug (cuplug.numba.install())
against stock numba-cuda, in one process: the time from cuda.jit(sig) on a
Python function to a kernel loaded on the GPU (typing, lowering, the
back end, linking, loading), for four kernels of different shapes.

Each repeat makes a fresh dispatcher, so numba-cuda types and lowers anew;
cuplug's result cache is off (CUPLUG_CACHE=0, set here), so that both sides
build every time.  The modes alternate within each repeat (stock, then
cuplug, then the next kernel), so that the machine's drift falls on both
alike; the median of R repeats is reported.

    python3 bench/numba_compile_bench.py [BUILD_DIR] [R]

Prints a line per kernel: stock ms, cuplug ms, cuplug / stock."""
import math
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
REPEATS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
sys.path[:0] = [os.path.join(BUILD, "python")]
os.environ["CUPLUG_CACHE"] = "0"

SKIP = 77
try:
    import numpy as np
    if not hasattr(np, "row_stack"):  # numpy 2.5 dropped it; numba-cuda 0.30 uses it
        np.row_stack = np.vstack
    from numba import cuda, float32, int32, void
    if not cuda.is_available():
        raise ImportError("no CUDA device")
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(SKIP)

import cuplug.numba  # noqa: E402


def saxpy(r, x, y, a):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


def block_sum(out, x):
    buf = cuda.shared.array(256, float32)
    i = cuda.grid(1)
    t = cuda.threadIdx.x
    buf[t] = x[i] if i < x.size else float32(0)
    cuda.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        cuda.atomic.add(out, 0, buf[0])


def transcendental(r, x):
    i = cuda.grid(1)
    if i < r.size:
        v = x[i]
        r[i] = math.sin(v) * math.exp(-v) + math.sqrt(abs(v)) - math.atan2(v, 1.5)


def histogram(bins, x):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(bins, int32(x[i] * 16) % 16, 1)


KERNELS = [
    ("saxpy", saxpy, void(float32[::1], float32[::1], float32[::1], float32)),
    ("block_sum", block_sum, void(float32[::1], float32[::1])),
    ("transcendental", transcendental, void(float32[::1], float32[::1])),
    ("histogram", histogram, void(int32[::1], float32[::1])),
]


def build(fn, sig):
    """cuda.jit(sig) on a fresh dispatcher, to a loaded kernel (seconds)."""
    t0 = time.perf_counter()
    kernel = cuda.jit(sig)(fn)
    kernel.overloads[sig.args].bind()
    return time.perf_counter() - t0


def main():
    for _, fn, sig in KERNELS:  # warm both: numba's own first-use costs are not the compile's
        build(fn, sig)
        cuplug.numba.install()
        build(fn, sig)
        cuplug.numba.uninstall()
    times = {(name, mode): [] for name, _, _ in KERNELS for mode in ("stock", "cuplug")}
    for _ in range(REPEATS):
        for name, fn, sig in KERNELS:
            times[name, "stock"].append(build(fn, sig))
            cuplug.numba.install()
            try:
                times[name, "cuplug"].append(build(fn, sig))
            finally:
                cuplug.numba.uninstall()
    print("%-16s %10s %10s %8s" % ("kernel", "stock ms", "cuplug ms", "ratio"))
    for name, _, _ in KERNELS:
        s = statistics.median(times[name, "stock"]) * 1e3
        c = statistics.median(times[name, "cuplug"]) * 1e3
        print("%-16s %10.2f %10.2f %8.3f" % (name, s, c, c / s))


if __name__ == "__main__":
    main()

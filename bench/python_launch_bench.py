"""The host cost of one kernel launch from Python, in one run, against raw
cuLaunchKernel from C (build/bin/launch_bench, the anchor) and against the
other Python launchers on the same work:

  * arrays: r[i] = a * x[i] + y[i] on three CuPy arrays and two scalars,
    through cuplug's kernel[grid, block](...), CuPy's RawKernel and
    numba-cuda's dispatcher, stock and with cuplug.numba.install() (which
    launches numba-cuda's kernels through cuplug's launcher); cuplug reads
    CuPy's ndarray by its attributes,
    and also gets the same arrays through __cuda_array_interface__ alone
    (with the time CuPy takes to build those interface dicts);
  * pointers: the same kernel on CPointer(float32) parameters given as
    ints, through cuplug and cuda.core's launch().

Each launcher's kernel is launched N times without waiting; the cost is the
time per launch, the median of R rounds.  The rounds go round the launchers
(one round of each, then the next), so that the machine's drift falls on
all of them alike.  Also: the time of `import cuplug` in
a fresh process.

    python3 bench/python_launch_bench.py [BUILD_DIR]

Targets (issue 9): arrays at most 2.0x raw cuLaunchKernel and below CuPy
and numba-cuda; pointers below cuda.core; import at most 50 ms.  Issue 21:
numba-cuda's dispatcher with install() at most 2.5x raw cuLaunchKernel."""
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
sys.path[:0] = [os.path.join(BUILD, "python"), os.path.join(ROOT, "tests", "python")]

import cuplug  # noqa: E402
import kernels  # noqa: E402

N, ROUNDS = 2000, 15
CUDA_SRC = r"""
extern "C" __global__ void axpy5(float *r, const float *x, const float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = a * x[i] + y[i];
}
"""


def per_launch(work):
    """work: [(name, launch, sync)].  Median microseconds per launch of each,
    by name, over ROUNDS rounds taken in turn."""
    times = {name: [] for name, _, _ in work}
    for name, launch, sync in work:  # warm up
        for _ in range(200):
            launch()
        sync()
    for _ in range(ROUNDS):
        for name, launch, sync in work:
            t0 = time.perf_counter()
            for _ in range(N):
                launch()
            t1 = time.perf_counter()
            sync()
            times[name].append((t1 - t0) / N * 1e6)
    return {name: statistics.median(t) for name, t in times.items()}


def installed_launch(pyfunc, grid, block, args):
    """numba-cuda's dispatcher under cuplug.numba.install(), on the stock
    row's kernel and arguments, launched as the stock row launches it.
    install() stays on (the caller measures it after the stock rows, then
    calls uninstall()).  Checks that cuplug compiled the kernel and
    launches it."""
    import cuplug.numba as cnumba
    from numba import cuda
    cnumba.install()
    kernel = cuda.jit("void(float32[::1], float32[::1], float32[::1], float32, int32)")(pyfunc)
    launch = kernel[grid, block]
    launch(*args)
    if cnumba.stats()["launches"]["cuplug"] != 1:
        raise RuntimeError("cuplug did not launch it: %s" % cnumba.stats()["launches"])
    return lambda: launch(*args)


def raw_c_us():
    out = subprocess.run([os.path.join(BUILD, "bin", "launch_bench")], capture_output=True,
                         text=True, check=True).stdout
    return float(re.search(r"raw cuLaunchKernel[^:]*:\s*([\d.]+) us", out).group(1))


def import_ms():
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    code = "import time; t = time.perf_counter(); import cuplug; print((time.perf_counter() - t) * 1e3)"
    runs = [float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                                 text=True, check=True).stdout) for _ in range(7)]
    return statistics.median(runs)


def main():
    import cupy as cp
    cc = tuple(cuplug.info()["device_cc"])
    n = 1 << 10
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    r = cp.zeros(n, dtype=cp.float32)
    sync = cp.cuda.runtime.deviceSynchronize
    grid, block = (n + 255) // 256, 256
    work, missing = [], []

    cubin, _ = cuplug.compile(kernels.axpy5_ir(), kernels.AXPY5_SIG, entry="axpy5",
                              entry_abi="c", device=False, output="cubin", cc=cc)
    k = cuplug.load(cubin).get_kernel("axpy5", kernels.AXPY5_SIG)
    launcher = k[grid, block]
    work.append(("cuplug kernel[g, b](3 CuPy arrays, 2 scalars)",
                 lambda: launcher(r, x, y, 2.0, n), sync))
    work.append(("cuplug, configured each call", lambda: k[grid, block](r, x, y, 2.0, n), sync))

    class Interface:  # CuPy's arrays seen only through their __cuda_array_interface__
        __slots__ = ("a",)

        def __init__(self, a):
            self.a = a

        @property
        def __cuda_array_interface__(self):
            return self.a.__cuda_array_interface__

    ri, xi, yi = Interface(r), Interface(x), Interface(y)
    work.append(("cuplug, the same arrays through __cuda_array_interface__",
                 lambda: launcher(ri, xi, yi, 2.0, n), sync))
    work.append(("  of which CuPy builds 3 interface dicts",
                 lambda: (r.__cuda_array_interface__, x.__cuda_array_interface__,
                          y.__cuda_array_interface__), lambda: None))

    raw_kernel = cp.RawKernel(CUDA_SRC, "axpy5")
    a32, n32 = cp.float32(2.0), cp.int32(n)
    work.append(("CuPy RawKernel (3 CuPy arrays, 2 scalars)",
                 lambda: raw_kernel((grid,), (block,), (r, x, y, a32, n32)), sync))

    try:
        import numpy as np
        np.row_stack = np.vstack  # numpy 2.5 dropped it; numba-cuda 0.30 still uses it
        from numba import cuda

        @cuda.jit("void(float32[::1], float32[::1], float32[::1], float32, int32)")
        def axpy(r_, x_, y_, a_, n_):
            i = cuda.grid(1)
            if i < n_:
                r_[i] = a_ * x_[i] + y_[i]

        numba_launch = axpy[grid, block]
        work.append(("numba-cuda dispatcher (3 CuPy arrays, 2 scalars)",
                     lambda: numba_launch(r, x, y, 2.0, n), sync))
    except Exception as e:  # numba-cuda absent or broken: say so
        missing.append("numba-cuda dispatcher: " + type(e).__name__)

    pcubin, _ = cuplug.compile(kernels.axpy5_ptr_ir(), kernels.AXPY5_PTR_SIG, entry="axpy5p",
                               entry_abi="c", device=False, output="cubin", cc=cc)
    kp = cuplug.load(pcubin).get_kernel("axpy5p", kernels.AXPY5_PTR_SIG)[grid, block]
    pr, px, py = r.data.ptr, x.data.ptr, y.data.ptr
    work.append(("cuplug, CPointer parameters as ints", lambda: kp(pr, px, py, 2.0, n), sync))
    try:
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        except ImportError:  # cuda.core before 1.0
            from cuda.core.experimental import Device, LaunchConfig, Program, ProgramOptions, launch
        dev = Device()
        dev.set_current()
        stream = dev.create_stream()
        prog = Program(CUDA_SRC, "c++", ProgramOptions(arch="sm_%d%d" % cc))
        ker = prog.compile("cubin").get_kernel("axpy5")
        config = LaunchConfig(grid=grid, block=block)
        import numpy as np
        a_, n_ = np.float32(2.0), np.int32(n)
        work.append(("cuda.core launch(), pointers as ints",
                     lambda: launch(stream, config, ker, pr, px, py, a_, n_), stream.sync))
    except Exception as e:
        missing.append("cuda.core launch(): " + type(e).__name__ + " " + str(e)[:60])

    before = raw_c_us()
    us = per_launch(work)
    # install() changes numba-cuda's dispatcher for every kernel: its row is
    # measured after the others, which stay stock
    installed = "numba-cuda dispatcher with cuplug.numba.install()"
    if "numba-cuda dispatcher (3 CuPy arrays, 2 scalars)" in us:
        import cuplug.numba as cnumba
        try:
            installed_call = installed_launch(axpy.py_func, grid, block, (r, x, y, 2.0, n))
            us.update(per_launch([(installed, installed_call, sync)]))
            work.insert([w[0] for w in work].index("numba-cuda dispatcher (3 CuPy arrays, "
                                                   "2 scalars)") + 1, (installed, None, None))
        except Exception as e:
            missing.append(installed + ": " + type(e).__name__ + " " + str(e)[:60])
        finally:
            cnumba.uninstall()
    raw = statistics.median([before, raw_c_us()])  # the anchor, before and after
    print("%-58s %9s %9s" % ("launch, host cost", "us", "x raw C"))
    print("%-58s %9.3f %9.3f" % ("raw cuLaunchKernel from C (5 args)", raw, 1.0))
    for name, _, _ in work:
        print("%-58s %9.3f %9.3f" % (name, us[name], us[name] / raw))
    for name in missing:
        print("%-58s %9s" % (name, "n/a"))
    print("%-58s %9.1f ms" % ("import cuplug (fresh process)", import_ms()))


if __name__ == "__main__":
    main()

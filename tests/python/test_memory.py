"""Reference counts stay balanced: compiling (and, on a GPU, launching) in
a loop does not grow the process."""
import gc
import resource

import pytest

import cuplug
import kernels


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() // 1024


def run_compiles(n):
    for _ in range(n):
        code, t = cuplug.compile(kernels.axpy5_ir(), kernels.AXPY5_SIG, entry="axpy5",
                                 entry_abi="c", device=False, output="ltoir", cc=(9, 0))
        r = cuplug.resolve_call("math.sin", ["float32"])
        try:
            cuplug.compile(42, "int32()", entry="f")
        except TypeError:
            pass
        del code, t, r


def test_compile_loop_does_not_grow():
    run_compiles(50)  # warm: caches, the helper, interned types
    gc.collect()
    before = rss_kb()
    run_compiles(300)
    gc.collect()
    assert rss_kb() - before < 4096, "grew %d kB" % (rss_kb() - before)


@pytest.mark.gpu
def test_launch_loop_does_not_grow():
    cp = pytest.importorskip("cupy")
    cubin, _ = cuplug.compile(kernels.axpy5_ir(), kernels.AXPY5_SIG, entry="axpy5",
                              entry_abi="c", device=False, output="cubin",
                              cc=tuple(cuplug.info()["device_cc"]))
    k = cuplug.load(cubin).get_kernel("axpy5", kernels.AXPY5_SIG)
    x = cp.zeros(64, dtype=cp.float32)
    for _ in range(2000):
        k[1, 64](x, x, x, 1.0, 64)
    gc.collect()
    before = rss_kb()
    for _ in range(20000):
        k[1, 64](x, x, x, 1.0, 64)
    cp.cuda.runtime.deviceSynchronize()
    gc.collect()
    assert rss_kb() - before < 2048, "grew %d kB" % (rss_kb() - before)

"""cuplug.numba.install(): numba-cuda's @cuda.jit kernels launch through
cuplug's launcher, with numba-cuda's semantics.  Each test checks exact
numbers, that cuplug launched the overload (stats()["launches"]), and where
it matters numba-cuda's own result or exception beside ours.  On the GPU,
with numba-cuda 0.30 (skipped, and saying why, without either)."""
import numpy as np
import pytest

import cuplug.numba as cnumba
from conftest import numba_cuda_or_why

pytestmark = pytest.mark.gpu

cuda, WHY_NOT = numba_cuda_or_why()  # the kernels below name its cuda module


@pytest.fixture
def nc():
    """numba.cuda with cuplug.numba installed for the test."""
    if cuda is None:
        pytest.skip(WHY_NOT)
    cnumba.install()
    try:
        yield cuda
    finally:
        cnumba.uninstall()


def launches():
    return cnumba.stats()["launches"]


def through_cuplug(before, overloads):
    """Since `before`: `overloads` more overloads launch through cuplug, and
    no launch went back to numba-cuda."""
    now = launches()
    return (now["cuplug"] - before["cuplug"], now["fallbacks"] - before["fallbacks"]) == \
        (overloads, 0)


def scale(r, x, a):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] * a


def fill(r, v):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = v


def raises_five(r):
    i = cuda.grid(1)
    if i == 5:
        raise ValueError("five")
    r[i] = i


def reverse_in_shared(r, x):
    sm = cuda.shared.array(0, dtype=np.float32)
    i = cuda.threadIdx.x
    sm[i] = x[i]
    cuda.syncthreads()
    r[i] = sm[cuda.blockDim.x - 1 - i]


def rotate_across_the_grid(r, tmp, x):
    i = cuda.grid(1)
    tmp[i] = 2 * x[i]
    cuda.cg.this_grid().sync()  # every block's writes seen by every block
    r[i] = tmp[(i + 1) % tmp.size]


def set_record(rec):
    rec.b = 7
    rec.a = rec.a * 2


def sum_pair(r, pair):
    r[0] = pair[0] + pair[1]


def test_dispatch_by_argument_types(nc):
    k = cuda.jit(scale)
    before = launches()
    xf = cuda.to_device(np.arange(8, dtype=np.float32))
    rf = cuda.device_array(8, dtype=np.float32)
    xi = cuda.to_device(np.arange(8, dtype=np.int32))
    ri = cuda.device_array(8, dtype=np.int32)
    for _ in range(2):  # the second time by the cache of the first
        k[1, 8](rf, xf, 1.5)
        k[1, 8](ri, xi, 3)
        assert rf.copy_to_host().tolist() == [i * 1.5 for i in range(8)]
        assert ri.copy_to_host().tolist() == [i * 3 for i in range(8)]
    assert sorted(", ".join(str(t) for t in sig) for sig in k.overloads) == [
        "array(float32, 1d, C), array(float32, 1d, C), float64",
        "array(int32, 1d, C), array(int32, 1d, C), int64"]
    assert through_cuplug(before, 2)


def test_cached_launch_skips_numba_cudas_typing(nc):
    cp = pytest.importorskip("cupy")
    k = cuda.jit(scale)
    typed = []
    typeof_pyval = k.typeof_pyval
    k.typeof_pyval = lambda v: typed.append(type(v)) or typeof_pyval(v)
    x = cp.arange(64, dtype=cp.float32)
    r = cp.zeros(64, dtype=cp.float32)
    k[1, 64](r, x, 2.0)  # numba-cuda types the CuPy arrays, compiles, launches
    assert cp.ndarray in typed
    del typed[:]
    for a in (3.0, 4.0):  # the cache: no typing at all
        k[1, 64](r, x, a)
        assert r.get().tolist() == [a * i for i in range(64)]
    assert typed == []
    r2 = cp.zeros(32, dtype=cp.float32)
    k[1, 32](r2, x[::2], 1.0)  # another layout: numba-cuda types it, a new overload
    assert r2.get().tolist() == [2.0 * i for i in range(32)]
    assert cp.ndarray in typed and len(k.overloads) == 2


def test_numpy_arrays_copied_in_and_back(nc):
    k = cuda.jit(scale)
    before = launches()
    x = np.arange(16, dtype=np.float64)
    for a in (2.0, 3.0):
        r = np.zeros(16)
        k[1, 16](r, x, a)
        assert r.tolist() == [a * i for i in range(16)]
    r = np.zeros(16)
    k[1, 16](cuda.Out(r), cuda.In(x), 4.0)  # numba-cuda's hints: the same overload
    assert r.tolist() == [4.0 * i for i in range(16)]
    assert x.tolist() == list(range(16))
    # (a NumPy array on a stream other than 0 is refused by cuda.core's view
    # of it, under numba-cuda's own launch as under this one)
    assert len(k.overloads) == 1 and through_cuplug(before, 1)


def test_device_arrays_with_their_strides(nc):
    k = cuda.jit(scale)
    before = launches()
    d = cuda.to_device(np.arange(32, dtype=np.float32))
    r = cuda.device_array(16, dtype=np.float32)
    k[1, 16](r, d[::2], 1.0)  # layout A: the view's strides reach the kernel
    assert r.copy_to_host().tolist() == [float(2 * i) for i in range(16)]
    k[1, 16](r, d[16:], 1.0)  # C again
    assert r.copy_to_host().tolist() == [float(16 + i) for i in range(16)]
    m = cuda.mapped_array(16, dtype=np.float32)  # mapped memory: a device array too
    k[1, 16](m, d[:16], 3.0)
    cuda.synchronize()
    assert m.tolist() == [3.0 * i for i in range(16)]
    assert through_cuplug(before, 2)


class Interface:
    """A third party's device array: only __cuda_array_interface__, naming
    the stream its data was made on."""

    def __init__(self, dev, stream):
        self.dev = dev
        self.stream = stream

    @property
    def __cuda_array_interface__(self):
        cai = dict(self.dev.__cuda_array_interface__)
        cai["stream"] = int(self.stream.handle)
        return cai


def test_cuda_array_interface_object_with_its_stream(nc):
    k = cuda.jit(scale)
    before = launches()
    s = cuda.stream()
    x = cuda.to_device(np.arange(256, dtype=np.float32), stream=s)
    r = cuda.device_array(256, dtype=np.float32, stream=s)
    cuda.jit(fill)[1, 256, s](r, -1.0)  # made on s; numba-cuda waits for s
    for a in (2.0, 5.0):
        k[2, 128](Interface(r, s), Interface(x, s), a)
        cuda.synchronize()
        assert r.copy_to_host().tolist() == [a * i for i in range(256)]
    assert through_cuplug(before, 2)


def test_stream_argument(nc):
    k = cuda.jit(scale)
    before = launches()
    x = cuda.to_device(np.arange(64, dtype=np.float32))
    r = cuda.device_array(64, dtype=np.float32)
    for n, stream in enumerate((cuda.stream(), 0, cuda.default_stream(),
                                cuda.per_thread_default_stream())):
        k[1, 64, stream](r, x, float(n + 1))
        cuda.synchronize()
        assert r.copy_to_host().tolist() == [(n + 1.0) * i for i in range(64)]
    assert through_cuplug(before, 1)


def test_dynamic_shared_memory(nc):
    k = cuda.jit("void(float32[::1], float32[::1])")(reverse_in_shared)
    before = launches()
    x = cuda.to_device(np.arange(128, dtype=np.float32))
    r = cuda.device_array(128, dtype=np.float32)
    k[1, 128, 0, 128 * 4](r, x)
    assert r.copy_to_host().tolist() == [float(127 - i) for i in range(128)]
    k[1, 64, 0, 64 * 4](r, x)
    assert r.copy_to_host()[:64].tolist() == [float(63 - i) for i in range(64)]
    assert through_cuplug(before, 1)


def test_cooperative_launch(nc):
    k = cuda.jit("void(int32[::1], int32[::1], int32[::1])")(rotate_across_the_grid)
    overload = next(iter(k.overloads.values()))
    assert overload.cooperative
    before = launches()
    n = 4 * 64
    x = cuda.to_device(np.arange(n, dtype=np.int32))
    tmp = cuda.device_array(n, dtype=np.int32)
    r = cuda.device_array(n, dtype=np.int32)
    k[4, 64](r, tmp, x)
    assert r.copy_to_host().tolist() == [2 * ((i + 1) % n) for i in range(n)]
    assert through_cuplug(before, 1)


def test_debug_exception_as_numba_cuda_raises_it(nc):
    r = cuda.device_array(8, dtype=np.int32)
    k = cuda.jit("void(int32[::1])", debug=True, opt=False)(raises_five)
    before = launches()
    with pytest.raises(ValueError) as ours:
        k[1, 8](r)
    assert through_cuplug(before, 1)
    cnumba.uninstall()
    try:
        stock = cuda.jit("void(int32[::1])", debug=True, opt=False)(raises_five)
        with pytest.raises(ValueError) as theirs:
            stock[1, 8](r)
    finally:
        cnumba.install()
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)
    assert str(ours.value).endswith("tid=[0, 0, 5] ctaid=[0, 0, 0]: five")


def test_record_copied_in_and_back(nc):
    """A record of a NumPy array: copied to the device and back into the
    array, as numba-cuda does (whether cuplug or numba-cuda launches it
    depends on whether cuplug models records: issue 21's first item)."""
    rec = np.dtype([("a", np.float64), ("b", np.int32)])
    before = launches()

    def run():
        a = np.zeros(2, dtype=rec)
        a[0]["a"] = 1.5
        cuda.jit(set_record)[1, 1](a[0])
        return a.tolist()

    ours = run()
    cnumba.uninstall()
    try:
        theirs = run()
    finally:
        cnumba.install()
    assert ours == theirs == [(3.0, 7), (0.0, 0)]
    assert launches()["fallbacks"] == before["fallbacks"]


def test_kernel_left_to_numba_cuda_launches_as_numba_cuda_does(nc):
    before = launches()
    k = cuda.jit(sum_pair)  # a tuple parameter: cuplug's launcher cannot pack it
    r = cuda.device_array(1, dtype=np.int64)
    k[1, 1](r, (3, 4))
    assert r.copy_to_host().tolist() == [7]
    k[1, 1](r, (5, 6))
    assert r.copy_to_host().tolist() == [11]
    now = launches()
    assert now["cuplug"] == before["cuplug"]
    assert now["numba-cuda"] == before["numba-cuda"] + 1
    assert now["fallbacks"] == before["fallbacks"]


def test_refused_argument_goes_back_to_numba_cuda(nc):
    """An int beyond the parameter's type: cuplug's launcher refuses it
    before launching, numba-cuda launches (and truncates, as ctypes does)."""
    k = cuda.jit("void(int32[::1], int32)")(fill)
    r = cuda.device_array(4, dtype=np.int32)
    before = launches()
    k[1, 4](r, (1 << 32) + 5)
    assert r.copy_to_host().tolist() == [5, 5, 5, 5]
    now = launches()
    assert now["fallbacks"] == before["fallbacks"] + 1
    k[1, 4](r, 6)
    assert r.copy_to_host().tolist() == [6, 6, 6, 6]
    assert launches()["fallbacks"] == now["fallbacks"]


def test_recompiling_drops_the_cache(nc):
    k = cuda.jit(fill)
    r = cuda.device_array(4, dtype=np.float32)
    k[1, 4](r, 1.0)
    k[1, 4](r, 2.0)
    assert r.copy_to_host().tolist() == [2.0] * 4
    old = next(iter(k.overloads.values()))
    k.recompile()
    assert next(iter(k.overloads.values())) is not old
    launched = []
    launch = type(old).launch
    type(old).launch = lambda self, *a: launched.append(self) or launch(self, *a)
    try:
        k[1, 4](r, 3.0)
    finally:
        type(old).launch = launch
    assert launched == [next(iter(k.overloads.values()))]
    assert r.copy_to_host().tolist() == [3.0] * 4


def test_forall(nc):
    k = cuda.jit(scale)
    before = launches()
    x = cuda.to_device(np.arange(1000, dtype=np.float32))
    r = cuda.device_array(1000, dtype=np.float32)
    k.forall(1000)(r, x, 0.5)
    assert r.copy_to_host().tolist() == [0.5 * i for i in range(1000)]
    assert through_cuplug(before, 1)


def test_uninstall_restores_numba_cudas_launch():
    if cuda is None:
        pytest.skip(WHY_NOT)
    from numba.cuda import dispatcher as d
    classes = (d.CUDADispatcher, d._Kernel)
    stock = [dict(vars(c)) for c in classes]
    cnumba.install()
    assert d.CUDADispatcher.call is not stock[0]["call"]
    assert d._Kernel.launch is not stock[1]["launch"]
    cnumba.uninstall()
    assert [dict(vars(c)) for c in classes] == stock
    before = launches()
    k = cuda.jit(scale)
    x = cuda.to_device(np.arange(8, dtype=np.float32))
    r = cuda.device_array(8, dtype=np.float32)
    k[1, 8](r, x, 2.0)
    assert r.copy_to_host().tolist() == [2.0 * i for i in range(8)]
    assert launches() == before
    lib = next(iter(k.overloads.values()))._codelibrary
    assert type(lib).__name__ == "CUDACodeLibrary"

"""Loading and launching from Python, on the GPU: arrays of CuPy, PyTorch
and numba-cuda, device pointers as ints, scalars, and every wrong
argument, named."""
import ctypes

import pytest

import cuplug
import kernels

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def axpy5():
    cubin, _ = cuplug.compile(kernels.axpy5_ir(), kernels.AXPY5_SIG, entry="axpy5",
                              entry_abi="c", device=False, output="cubin",
                              cc=tuple(cuplug.info()["device_cc"]))
    module = cuplug.load(cubin)
    yield module.get_kernel("axpy5", kernels.AXPY5_SIG)
    module.close()


def test_cupy_arrays(axpy5):
    cp = pytest.importorskip("cupy")
    n = 1000
    x = cp.arange(n, dtype=cp.float32)
    y = cp.full(n, 1.0, dtype=cp.float32)
    r = cp.zeros(n, dtype=cp.float32)
    axpy5[(n + 255) // 256, 256](r, x, y, 2.0, n)
    cp.cuda.runtime.deviceSynchronize()
    assert cp.array_equal(r, 2 * x + 1)


def test_cupy_views_subclasses_and_streams(axpy5):
    """CuPy's ndarray is read through its attributes, other arrays through
    the interface: a view's offset, a subclass, an interface-only wrapper
    and an array made on another stream all give the same result."""
    cp = pytest.importorskip("cupy")
    n = 700
    base = cp.arange(n + 64, dtype=cp.float32)
    x = base[64:]  # a view: its data pointer is 256 bytes in
    y = cp.full(n, 0.5, dtype=cp.float32)
    want = 2 * x + 0.5

    class Sub(cp.ndarray):
        pass

    class OnlyInterface:
        def __init__(self, a):
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    for wrap in (lambda a: a, lambda a: a.view(Sub), OnlyInterface):
        r = cp.zeros(n, dtype=cp.float32)
        axpy5[(n + 255) // 256, 256](wrap(r), wrap(x), wrap(y), 2.0, n)
        cp.cuda.runtime.deviceSynchronize()
        assert cp.array_equal(r, want)
    # made on another stream, launched on the default one: waited for
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        big = cp.arange(1 << 24, dtype=cp.float32)
        z = (big[:n] * 3).astype(cp.float32)
        r = cp.zeros(n, dtype=cp.float32)
        axpy5[(n + 255) // 256, 256](r, z, y, 1.0, n)  # on stream 0, CuPy's current is s
    cp.cuda.runtime.deviceSynchronize()
    assert cp.array_equal(r, 3 * cp.arange(n, dtype=cp.float32) + 0.5)


def test_torch_tensors_and_dlpack(axpy5):
    torch = pytest.importorskip("torch")
    n = 513
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    y = torch.ones(n, dtype=torch.float32, device="cuda")
    r = torch.zeros(n, dtype=torch.float32, device="cuda")
    axpy5[3, 256](r, x, y, 3.0, n)
    torch.cuda.synchronize()
    assert torch.equal(r, 3 * x + 1)

    class OnlyDlpack:  # an array that speaks DLPack alone
        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__(stream=stream)

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    r.zero_()
    axpy5[3, 256](OnlyDlpack(r), OnlyDlpack(x), y, 3.0, n)
    torch.cuda.synchronize()
    assert torch.equal(r, 3 * x + 1)


def test_pointers_as_ints():
    cp = pytest.importorskip("cupy")
    cubin, _ = cuplug.compile(kernels.axpy5_ptr_ir(), kernels.AXPY5_PTR_SIG, entry="axpy5p",
                              entry_abi="c", device=False, output="cubin",
                              cc=tuple(cuplug.info()["device_cc"]))
    with cuplug.load(cubin) as m:
        k = m.get_kernel("axpy5p", kernels.AXPY5_PTR_SIG)
        n = 300
        x = cp.arange(n, dtype=cp.float32)
        y = cp.ones(n, dtype=cp.float32)
        r = cp.zeros(n, dtype=cp.float32)
        k[2, 256](r.data.ptr, x.data.ptr, y, 0.5, n)
        cp.cuda.runtime.deviceSynchronize()
        assert cp.array_equal(r, 0.5 * x + 1)


def test_wrong_arguments_are_named(axpy5):
    cp = pytest.importorskip("cupy")
    x = cp.zeros(8, dtype=cp.float32)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](x, x, cp.zeros(8, dtype=cp.float64), 1.0, 8)
    assert e.value.message == ("kernel axpy5, argument 2 (float32[::1]): got an array of float64 "
                               "with 1 dimensions")
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](x, x, cp.zeros((2, 4), dtype=cp.float32), 1.0, 8)
    assert e.value.message == ("kernel axpy5, argument 2 (float32[::1]): got an array of float32 "
                               "with 2 dimensions")
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](x, 5, x, 1.0, 8)
    assert e.value.message == ("kernel axpy5, argument 1 (float32[::1]): expected an array with "
                               "__cuda_array_interface__ or __dlpack__, got int")
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](x, x, x, "two", 8)
    assert e.value.message == "kernel axpy5, argument 3 (float32): expected a number, got str"
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](x, x, x, 1.0, 8.5)
    assert e.value.message == "kernel axpy5, argument 4 (int32): expected an integer, got float"
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](x, x, x, 1.0, 1 << 40)
    assert e.value.message == "kernel axpy5, argument 4 (int32): the value does not fit"
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](x, x, x, 1.0)
    assert e.value.message == "kernel axpy5 takes 5 arguments, got 4"
    strided = cp.zeros(16, dtype=cp.float32)[::2]
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[1, 32](strided, x, x, 1.0, 8)
    assert e.value.message == ("kernel axpy5, argument 0 (float32[::1]): its strides are not "
                               "C-contiguous")


def test_bad_grids(axpy5):
    cp = pytest.importorskip("cupy")
    x = cp.zeros(8, dtype=cp.float32)
    with pytest.raises(cuplug.LaunchConfigError) as e:
        axpy5[0, 32](x, x, x, 1.0, 8)
    assert e.value.message == "grid has a dimension of 0"
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        axpy5[(1, 2, 3, 4), 32](x, x, x, 1.0, 8)
    assert e.value.message == "grid must be an int or a tuple of 1 to 3 ints"
    with pytest.raises(cuplug.LaunchConfigError) as e:
        axpy5[1, 4096](x, x, x, 1.0, 8)
    assert e.value.name == "CUPLUG_ERR_LAUNCH_CONFIG"
    assert e.value.message == ("kernel axpy5: block (4096, 1, 1) has 4096 threads; the device "
                               "allows 1024")


def test_closed_module():
    cubin, _ = cuplug.compile(kernels.axpy5_ir(), kernels.AXPY5_SIG, entry="axpy5",
                              entry_abi="c", device=False, output="cubin",
                              cc=tuple(cuplug.info()["device_cc"]))
    m = cuplug.load(cubin)
    k = m.get_kernel("axpy5", kernels.AXPY5_SIG)
    m.close()
    with pytest.raises(cuplug.ArgumentError) as e:
        k[1, 1](0, 0, 0, 1.0, 0)
    assert e.value.message == "kernel axpy5: its module is closed"
    with pytest.raises(cuplug.ArgumentError) as e:
        m.get_kernel("axpy5")
    assert e.value.message == "the module is closed"


def test_numba_device_arrays(axpy5):
    numba_cuda = pytest.importorskip("numba.cuda")
    import numpy as np
    n = 100
    x = numba_cuda.to_device(np.arange(n, dtype=np.float32))
    y = numba_cuda.to_device(np.ones(n, dtype=np.float32))
    r = numba_cuda.device_array(n, dtype=np.float32)
    axpy5[1, 128](r, x, y, 2.0, n)
    assert (r.copy_to_host() == 2 * np.arange(n, dtype=np.float32) + 1).all()


AXPY5_READONLY_SIG = ("void(float32[::1], readonly array(float32, 1d, C), "
                      "readonly array(float32, 1d, C), float32, int32)")
READ_ONLY_R = ("kernel axpy5, argument 0 (float32[::1]): the array is read-only; the kernel "
               "may write it (declare the parameter readonly array(float32, 1d, C) if it does "
               "not)")


class ReadOnlyInterface:
    """A device array whose __cuda_array_interface__ says data: (ptr, True)."""

    def __init__(self, a):
        cai = dict(a.__cuda_array_interface__)
        cai["data"] = (cai["data"][0], True)
        self.__cuda_array_interface__ = cai


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", _DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", _DLTensor)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class ReadOnlyDlpack:
    """A 1-d float32 CuPy array through DLPack 1.0 alone, flagged read-only
    (DLPACK_FLAG_BITMASK_READ_ONLY); it lives as long as this object."""

    def __init__(self, a):
        self.a = a
        self.shape = (ctypes.c_int64 * 1)(a.size)
        self.m = _DLManagedTensorVersioned()
        self.m.version.major, self.m.version.minor = 1, 0
        self.m.flags = 1
        t = self.m.dl_tensor
        t.data = a.data.ptr
        t.device.device_type, t.device.device_id = 2, a.device.id
        t.ndim = 1
        t.dtype.code, t.dtype.bits, t.dtype.lanes = 2, 32, 1
        t.shape = self.shape  # strides NULL: compact

    def __dlpack__(self, stream=None, max_version=None):
        assert max_version == (1, 0)
        return _capsule_new(ctypes.addressof(self.m), b"dltensor_versioned", None)

    def __dlpack_device__(self):
        return (2, self.a.device.id)


def test_read_only_device_arrays(axpy5):
    """Device memory its owner marks read-only (the interface's (ptr, True),
    DLPack 1.0's read-only flag) goes only to a parameter declared
    readonly; such a kernel takes writable memory too."""
    cp = pytest.importorskip("cupy")
    n = 300
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    r = cp.zeros(n, dtype=cp.float32)
    for wrap in (ReadOnlyInterface, ReadOnlyDlpack):
        with pytest.raises(cuplug.LaunchArgumentError) as e:
            axpy5[2, 256](wrap(r), x, y, 2.0, n)
        assert e.value.message == READ_ONLY_R
    cp.cuda.runtime.deviceSynchronize()
    assert not r.any()
    cubin, _ = cuplug.compile(kernels.axpy5_ir(), AXPY5_READONLY_SIG, entry="axpy5",
                              entry_abi="c", device=False, output="cubin",
                              cc=tuple(cuplug.info()["device_cc"]))
    with cuplug.load(cubin) as m:
        k = m.get_kernel("axpy5", AXPY5_READONLY_SIG)
        for wrap in (ReadOnlyInterface, ReadOnlyDlpack, lambda a: a):
            r[:] = 0
            k[2, 256](r, wrap(x), wrap(y), 2.0, n)
            cp.cuda.runtime.deviceSynchronize()
            assert cp.array_equal(r, 2 * x + 1)
        with pytest.raises(cuplug.LaunchArgumentError) as e:
            k[2, 256](ReadOnlyInterface(r), x, y, 2.0, n)
        assert e.value.message == READ_ONLY_R

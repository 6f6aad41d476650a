"""Device code on the CPU from Python (output="host"): no GPU needed.
Kernels take NumPy arrays and other buffers; C-ABI functions are called
with Python values."""
import array
import ctypes
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import cuplug
from conftest import load_case


def host_module(name, device=True):
    case, ir = load_case(name)
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"], device=device,
                            abi_info={"abi_name": case.get("abi_name")}, output="host")
    return cuplug.load(art)


def test_device_function_called_with_python_values():
    m = host_module("add_i32")
    assert m.call(2147483647, 1) == 2147483648
    assert m.call(-5, 3) == -2
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call(2**31, 0)
    assert e.value.message == ("function (the compiled one), argument 0 (int32): the value does "
                               "not fit")
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call(1)
    assert e.value.message == "function (the compiled one) takes 2 arguments, got 1"
    assert host_module("dev_bool").call(True, False, False) is True
    assert host_module("add_f32").call(0.5, 0.25) == 0.75
    assert host_module("dev_u8").call(255, 255) == 510


def test_pointer_argument_is_a_buffer():
    m = host_module("dev_ptr_f32")
    x = np.array([1.5, 2.5, 3.5], dtype=np.float32)
    assert m.call(x, 1) == 5.0  # p[i] * 2.0
    assert m.call(array.array("f", [0.25, 4.0]), 0) == 0.5


def test_address_for_ctypes():
    m = host_module("add_i32")
    add = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int32, ctypes.c_int32)(m.address())
    assert add(40, 2) == 42


CMUL_IR = """
define {%(t)s, %(t)s} @cmul(%(t)s %%ar, %(t)s %%ai, %(t)s %%br, %(t)s %%bi) {
  %%rr1 = fmul %(t)s %%ar, %%br
  %%rr2 = fmul %(t)s %%ai, %%bi
  %%rr = fsub %(t)s %%rr1, %%rr2
  %%ri1 = fmul %(t)s %%ar, %%bi
  %%ri2 = fmul %(t)s %%ai, %%br
  %%ri = fadd %(t)s %%ri1, %%ri2
  %%v0 = insertvalue {%(t)s, %(t)s} undef, %(t)s %%rr, 0
  %%v1 = insertvalue {%(t)s, %(t)s} %%v0, %(t)s %%ri, 1
  ret {%(t)s, %(t)s} %%v1
}
"""


def test_complex_values_follow_the_c_abi():
    # a complex travels as the C ABI passes float _Complex: in one register
    for part, sig in (("float", "complex64(complex64, complex64)"),
                      ("double", "complex128(complex128, complex128)")):
        art, _ = cuplug.compile(CMUL_IR % {"t": part}, sig, entry="cmul", entry_abi="c",
                                output="host")
        m = cuplug.load(art)
        assert m.call(1 + 2j, 3 - 1j) == 5 + 5j
        assert m.call(0.5 - 2j, -4 + 0.25j) == -1.5 + 8.125j
        # NumPy's complex64 is no Python complex: its imaginary part once read as 0
        assert m.call(np.complex64(1 + 2j), np.complex128(3 - 1j)) == 5 + 5j
    for text in ("x", "1+2j"):  # complex() would read the second: it is no number
        with pytest.raises(cuplug.LaunchArgumentError,
                           match=r"argument 0 \(complex128\): expected a complex number, got str$"):
            m.call(text, 1j)


# A child that launches a kernel spinning until flag[0] is set, and calls a
# function spinning likewise: each stopped by Ctrl-C, then run again on the
# same session.
SPIN_CHILD = r'''
import numpy as np
import cuplug

SPIN = """
define %(ret)s @spin(i32* %%p) {
entry:
  br label %%loop
loop:
  %%v = load volatile i32, i32* %%p
  %%z = icmp eq i32 %%v, 0
  br i1 %%z, label %%loop, label %%done
done:
  ret %(value)s
}
"""
session = cuplug.Session()
flag = np.zeros(1, dtype=np.int32)
art, _ = cuplug.compile(SPIN % {"ret": "void", "value": "void"}, "void(CPointer(int32))",
                        entry="spin", entry_abi="c", device=False, output="host", session=session)
kernel = cuplug.load(art, session=session).get_kernel()
print("launching", flush=True)
try:
    kernel[4, 32](flag)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
flag[0] = 1
kernel[4, 32](flag)
flag[0] = 0
art, _ = cuplug.compile(SPIN % {"ret": "i32", "value": "i32 %v"}, "int32(CPointer(int32))",
                        entry="spin", entry_abi="c", output="host", session=session)
module = cuplug.load(art, session=session)
print("calling", flush=True)
try:
    module.call(flag)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
flag[0] = 7
print(module.call(flag), flush=True)
'''


def test_ctrl_c_stops_a_host_launch_and_call():
    child = subprocess.Popen([sys.executable, "-c", SPIN_CHILD], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines = []
        for step in ("launching", "calling"):
            lines.append(child.stdout.readline())
            if lines[-1] != step + "\n":
                break
            time.sleep(0.5)  # spinning by now
            child.send_signal(signal.SIGINT)
            if step == "launching":
                lines.append(child.stdout.readline())
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert "".join(lines) + out == "launching\nKeyboardInterrupt\ncalling\nKeyboardInterrupt\n7\n", err
    assert child.returncode == 0, err


def test_saxpy_kernel_on_numpy_arrays():
    k = host_module("saxpy_kernel", device=False).get_kernel()
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.5, dtype=np.float32)
    r = np.zeros(n, dtype=np.float32)
    k[(n + 127) // 128, 128](r, x, y, np.float32(2.0))
    assert np.array_equal(r, 2.0 * x + y)  # small values: exact either way


def test_reduce_kernel_with_barriers():
    k = host_module("k_reduce", device=False).get_kernel()
    x = (np.arange(256 * 3 + 5) % 7).astype(np.float32)
    out = np.zeros(4, dtype=np.float32)
    k[4, 256](out, x)
    want = [x[b * 256:(b + 1) * 256].sum() for b in range(4)]
    assert out.tolist() == want


def test_wrong_buffer_names_the_argument():
    k = host_module("saxpy_kernel", device=False).get_kernel()
    r = np.zeros(4, dtype=np.float64)
    x = np.zeros(4, dtype=np.float32)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[1, 4](r, x, x, 1.0)
    assert e.value.message == ("kernel __main__::saxpy, argument 0 (float32[::1]): got an array "
                               "of float64 with 1 dimensions")
    assert e.value.symbol == k.name
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[1, 4](x, object(), x, 1.0)
    assert e.value.message == ("kernel __main__::saxpy, argument 1 (float32[::1]): a host "
                               "kernel takes a buffer (a NumPy array, array.array, ...), got "
                               "object")


SAXPY_READONLY_SIG = ("void(float32[::1], readonly array(float32, 1d, C), "
                      "readonly array(float32, 1d, C), float32)")


def read_only_message(i):
    # numba's mangled name is short in the message; .symbol keeps it whole
    return ("kernel __main__::saxpy, argument %d (float32[::1]): the array is read-only; the "
            "kernel may write it (declare the parameter readonly array(float32, 1d, C) if it "
            "does not)" % i)


def test_read_only_buffers_are_not_written():
    """The issue's reproductions: bytes behind a memoryview, and an ndarray
    with writeable=False, refuse PyBUF_WRITABLE; saxpy may write its r, so
    the launch is refused and the memory stays as it was."""
    k = host_module("saxpy_kernel", device=False).get_kernel()
    x = np.arange(1000, dtype=np.float32)
    y = np.full(1000, 0.5, dtype=np.float32)
    frozen = bytes(4000)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[4, 256](memoryview(frozen).cast("f"), x, y, 2.0)
    assert e.value.message == read_only_message(0)
    assert e.value.symbol == k.name
    assert frozen == bytes(4000)
    locked = np.zeros(1000, dtype=np.float32)
    locked.flags.writeable = False
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[4, 256](locked, x, y, 2.0)
    assert e.value.message == read_only_message(0)
    assert e.value.symbol == k.name
    assert not locked.any()
    x.flags.writeable = False  # saxpy only reads x, but its signature does not say so
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[4, 256](np.zeros(1000, dtype=np.float32), x, y, 2.0)
    assert e.value.message == read_only_message(1)
    assert e.value.symbol == k.name


def test_kernel_declaring_readonly_takes_read_only_buffers():
    """A parameter declared readonly takes read-only memory and writable
    memory alike.  Nothing checks that the kernel does not store there: the
    signature is the kernel's promise."""
    case, ir = load_case("saxpy_kernel")
    art, _ = cuplug.compile(ir, SAXPY_READONLY_SIG, entry=case["entry"], device=False,
                            output="host")
    k = cuplug.load(art).get_kernel()
    assert str(k.signature) == SAXPY_READONLY_SIG
    x = np.arange(1000, dtype=np.float32)
    x.flags.writeable = False
    y = memoryview(np.full(1000, 0.5, dtype=np.float32).tobytes()).cast("f")
    r = np.zeros(1000, dtype=np.float32)
    k[4, 256](r, x, y, 2.0)
    assert np.array_equal(r, 2.0 * x + 0.5)
    k[4, 256](r, np.ones(1000, dtype=np.float32), np.zeros(1000, dtype=np.float32), 3.0)
    assert np.array_equal(r, np.full(1000, 3.0, dtype=np.float32))
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[4, 256](memoryview(bytes(4000)).cast("f"), x, y, 2.0)
    assert e.value.message == read_only_message(0)
    assert e.value.symbol == k.name


def test_call_errors():
    m = host_module("saxpy_kernel", device=False)
    with pytest.raises(cuplug.IRError) as e:
        m.call(name="nothing")
    assert e.value.message == "the host library has no function 'nothing'"
    case, ir = load_case("add_i32")
    gpu_art = cuplug.compile(ir, case["signature"], entry=case["entry"])[0]
    assert isinstance(gpu_art, str)  # PTX: not a host module



def test_numba_jit_target_is_checked():
    import cuplug.numba as cnumba  # importable without numba-cuda
    with pytest.raises(ValueError) as e:
        cnumba.jit(target="gpu")(lambda r: None)
    assert str(e.value) == ("cuplug.numba.jit: target must be one of cuda, host, or None (the "
                            "GPU where there is one, else the host); got 'gpu'")


def test_cooperative_kernel_launches_as_any_other_on_the_host():
    """get_kernel(cooperative=True) says that the kernel synchronises its
    grid, which a cubin given as bytes does not say (the GPU launches it
    with cuLaunchCooperativeKernel); on the host it launches as any other."""
    k = host_module("saxpy_kernel", device=False).get_kernel(cooperative=True)
    x = np.arange(64, dtype=np.float32)
    r = np.zeros(64, dtype=np.float32)
    k[1, 64](r, x, x, np.float32(3.0))
    assert r.tolist() == (4 * x).tolist()

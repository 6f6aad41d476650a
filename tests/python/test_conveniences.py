"""numba-cuda's small conveniences: cuplug.__version__, declare_device's
host_function= (the CPU's stand-in for CUDA C++, which the HOST_UNSUPPORTED
error asks for), and register_lowering's symbol=."""
import ctypes
import os
import re

import numpy as np
import pytest

import cuplug
from conftest import CORPUS, load_case, run_python

EXT_MUL = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.POINTER(ctypes.c_int32), ctypes.c_int32,
                           ctypes.c_int32)

# a kernel calling the declared function: out[0] = ext_mul(a, b)
EXT_KERNEL = """define void @k(i32* %out, i32 %a, i32 %b) {
  %slot = alloca i32
  %status = call i32 @ext_mul(i32* %slot, i32 %a, i32 %b)
  %v = load i32, i32* %slot
  store i32 %v, i32* %out
  ret void
}
declare i32 @ext_mul(i32*, i32, i32)
"""


def test_version():
    assert cuplug.__version__ == cuplug.info()["version"]
    abi = cuplug.info()["abi"]
    assert re.fullmatch(r"%d\.%d\.\d+" % tuple(abi), cuplug.__version__)


def test_version_is_asked_for_on_first_use_only():
    """info() also probes the toolkit and the driver: import does not wait for it."""
    p = run_python("import cuplug, sys\n"
                   "print('__version__' in vars(cuplug))\n"
                   "v = cuplug.__version__\n"
                   "print('__version__' in vars(cuplug), v == cuplug.info()['version'])\n")
    assert (p.returncode, p.stderr, p.stdout) == (0, "", "False\nTrue True\n")


def ext_mul_session(**host):
    case, ir = load_case("dev_ext_i32")
    d = case["declare_device"][0]
    s = cuplug.Session(cache=False)
    cuplug.declare_device(d["name"], d["signature"],
                          link=os.path.join(CORPUS, "dev_ext_i32", "ext_mul.cu"), session=s,
                          **host)
    return case, ir, s


def test_without_host_function_the_cpu_says_what_to_pass():
    case, ir, s = ext_mul_session()
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"],
                            abi_info={"abi_name": "dev_ext"}, output="host", session=s)
    with pytest.raises(cuplug.HostError) as e:
        cuplug.load(art, session=s)
    assert e.value.name == "CUPLUG_ERR_HOST_UNSUPPORTED"
    assert e.value.message == ("the IR calls @ext_mul, which has no host implementation (CUDA "
                               "C++ cannot run on the host: declare_device's host_function "
                               "gives one) (module0:14)")


def test_host_function_as_a_ctypes_function():
    calls = []

    @EXT_MUL
    def ext_mul(ret, a, b):
        calls.append((a, b))
        ret[0] = a * b
        return 0

    case, ir, s = ext_mul_session(host_function=ext_mul)
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"],
                            abi_info={"abi_name": "dev_ext"}, output="host", session=s)
    assert cuplug.load(art, session=s).call(6, 7) == 43  # ext_mul(a, b) + 1
    # a kernel on the CPU calls it too
    art, _ = cuplug.compile(EXT_KERNEL, "void(CPointer(int32), int32, int32)", entry="k",
                            entry_abi="c", device=False, output="host", session=s)
    out = np.zeros(1, dtype=np.int32)
    cuplug.load(art, session=s).get_kernel()[1, 1](out, -3, 5)
    assert out.tolist() == [-15] and calls == [(6, 7), (-3, 5)]


def test_host_function_as_an_address():
    """An int address (from cffi, or another library's function)."""
    ext_mul = EXT_MUL(lambda ret, a, b: (ret.__setitem__(0, a - b), 0)[1])
    address = ctypes.cast(ext_mul, ctypes.c_void_p).value
    case, ir, s = ext_mul_session(host_function=address)
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"],
                            abi_info={"abi_name": "dev_ext"}, output="host", session=s)
    assert cuplug.load(art, session=s).call(6, 7) == 0  # (6 - 7) + 1


def test_host_function_of_the_wrong_kind():
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        ext_mul_session(host_function="ext_mul")
    assert e.value.message == ("host_function must be a ctypes function "
                               "(ctypes.CFUNCTYPE(...)(f)) or an int address, not str")
    with pytest.raises(cuplug.ArgumentError) as e:
        ext_mul_session(host_function=0)
    assert e.value.message == "host_function must not be NULL (0)"
    with pytest.raises(cuplug.ArgumentError) as e:
        ext_mul_session(host_function=-1)
    assert e.value.message == "host_function must be 0 to 18446744073709551615, not -1"


def test_register_lowering_names_its_symbol():
    """ir= and cuda= code defines a function cuplug cannot guess the name
    of: without symbol= the error says to give it."""
    reg = cuplug.Registry()
    cuplug.register_typing("mylib.clamp", ["float32(float32, float32, float32)"], registry=reg)
    source = ('extern "C" __device__ float clamp(float x, float lo, float hi) '
              '{ return fminf(fmaxf(x, lo), hi); }')
    with pytest.raises(cuplug.OptionError) as e:
        cuplug.register_lowering("mylib.clamp", "float32(float32, float32, float32)", cuda=source,
                                 registry=reg)
    assert (e.value.name, e.value.message) == (
        "CUPLUG_ERR_OPTION_NAME",
        "register_lowering mylib.clamp: give symbol=, the name of the function the cuda= code "
        "defines")
    cuplug.register_lowering("mylib.clamp", "float32(float32, float32, float32)", cuda=source,
                             symbol="clamp", registry=reg)
    r = cuplug.resolve_call("mylib.clamp", "float32, float32, float32", registry=reg)
    assert (r.symbol, r.abi) == ("clamp", "c")

"""Linking from Python: compiled code, CUDA C++ (NVRTC) and bytes into a
cubin, and what a failed link says."""
import os

import pytest

import cuplug
from conftest import CORPUS
import kernels


# a kernel that calls numba-cuda's ext_mul(a, b) (Numba ABI: status, return slot)
EXT_KERNEL = """define void @k(i32* %out, i32 %a, i32 %b) {
  %slot = alloca i32
  %status = call i32 @ext_mul(i32* %slot, i32 %a, i32 %b)
  %v = load i32, i32* %slot
  store i32 %v, i32* %out
  ret void
}
declare i32 @ext_mul(i32*, i32, i32)
"""


def test_kernel_and_cuda_cpp_to_a_cubin():
    s = cuplug.Session()
    code, _ = cuplug.compile(EXT_KERNEL, "void(CPointer(int32), int32, int32)", entry="k",
                             entry_abi="c", device=False, output="ltoir", cc=(9, 0), session=s)
    with open(os.path.join(CORPUS, "dev_ext_i32", "ext_mul.cu"), "rb") as f:
        cu = f.read()
    cubin = cuplug.link([("k.ltoir", code), ("ext_mul.cu", cu)], cc=(9, 0), session=s)
    assert cubin[:4] == b"\x7fELF"
    assert b".text.k\x00" in cubin  # the kernel's code, ext_mul inlined into it by LTO


def test_a_link_says_where_its_time_went():
    """Artifact.stages of a link: nvJitLink's own time between handing the
    job to the helper and taking the cubin back; a cached link, its look-up."""
    s = cuplug.Session(cache_dir="")
    code, _ = cuplug.compile(EXT_KERNEL, "void(CPointer(int32), int32, int32)", entry="k",
                             entry_abi="c", device=False, output="ltoir", cc=(9, 0), session=s)
    with open(os.path.join(CORPUS, "dev_ext_i32", "ext_mul.cu"), "rb") as f:
        cu = f.read()
    built = s.link([("k.ltoir", code), ("ext_mul.cu", cu)], cc=(9, 0))
    again = s.link([("k.ltoir", code), ("ext_mul.cu", cu)], cc=(9, 0))
    assert [n for n, _ in built.stages] == ["look_up", "choose_cc", "gather_code", "hand_over",
                                            "run_nvjitlink", "hand_back", "describe", "keep"]
    assert [n for n, _ in again.stages] == ["look_up"] and again.cache == "memory"
    assert all(isinstance(t, float) and t >= 0 for _, t in built.stages)


def test_compile_straight_to_a_cubin():
    cubin, restype = cuplug.compile(kernels.axpy5_ir(), kernels.AXPY5_SIG, entry="axpy5",
                                    entry_abi="c", device=False, output="cubin", cc=(9, 0))
    assert cubin[:4] == b"\x7fELF" and b"axpy5" in cubin
    assert restype == "void"


def test_undefined_symbol_is_a_link_error():
    ir = EXT_KERNEL.replace("ext_mul", "missing")
    code, _ = cuplug.compile(ir, "void(CPointer(int32), int32, int32)", entry="k",
                             entry_abi="c", device=False, output="ltoir", cc=(9, 0))
    with pytest.raises(cuplug.LinkError) as e:
        cuplug.link([("k.ltoir", code)], cc=(9, 0))
    assert e.value.message.startswith("nvJitLink failed to link: ")
    assert "missing" in e.value.log


def test_code_of_the_wrong_type():
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.link([12], cc=(9, 0))
    assert e.value.message == "code 0 must be text or bytes, not int"

"""CUDA C++ given from memory finds its headers in the folders its host
names (include_paths=), as numba-cuda's runtime (NRT) finds memsys.cuh in
numba-cuda's own folder; and a missing header is named."""
import pytest

import cuplug

# a Numba-ABI kernel that calls ext_mul(a, b), defined by the .cu below
CALLS_EXT_MUL = """define i32 @k(i8** %ret, i32* %out, i32 %a, i32 %b) {
entry:
  %slot = alloca i32
  %st = call i32 @ext_mul(i32* %slot, i32 %a, i32 %b)
  %v = load i32, i32* %slot
  store i32 %v, i32* %out
  ret i32 0
}
declare i32 @ext_mul(i32*, i32, i32)
"""
SIG = "void(CPointer(int32), int32, int32)"
# in memory, as numba-cuda's CUSource("...", name="nrt.cu") is
EXT_CU = (b'#include "cuplug_value.cuh"\n'
          b'extern "C" __device__ int ext_mul(int *r, int a, int b)'
          b' { *r = a * b + CUPLUG_VALUE; return 0; }\n')


@pytest.fixture
def headers(tmp_path):
    (tmp_path / "cuplug_value.cuh").write_text("#define CUPLUG_VALUE 246813\n")
    return tmp_path


@pytest.mark.parametrize("as_list", [False, True])
def test_in_memory_cu_finds_its_header(headers, as_list):
    paths = [str(headers)] if as_list else str(headers)
    codes, restype = cuplug.compile_all(CALLS_EXT_MUL, SIG, entry="k", device=False,
                                        output="ptx", cc=(9, 0), link=[("ext.cu", EXT_CU)],
                                        include_paths=paths, session=cuplug.Session())
    assert len(codes) == 2 and restype == "void"
    assert ".visible .func  (.param .b32 func_retval0) ext_mul(" in codes[1]
    assert ", 246813;" in codes[1]  # the header's constant


def test_cubin_links_in_memory_cu_with_its_header(headers):
    cubin, _ = cuplug.compile(CALLS_EXT_MUL, SIG, entry="k", device=False, output="cubin",
                              cc=(9, 0), link=[("ext.cu", EXT_CU)], include_paths=[str(headers)],
                              session=cuplug.Session())
    assert cubin[:4] == b"\x7fELF"
    assert b".text.k\x00" in cubin


def test_missing_header_is_named():
    with pytest.raises(cuplug.LinkError) as e:
        cuplug.compile_all(CALLS_EXT_MUL, SIG, entry="k", device=False, output="ptx",
                           cc=(9, 0), link=[("ext.cu", EXT_CU)], session=cuplug.Session())
    assert (e.value.code, e.value.name) == (61, "CUPLUG_ERR_NVRTC")
    assert e.value.message == ('NVRTC failed to compile ext.cu: ext.cu(1): catastrophic error: '
                               'cannot open source file "cuplug_value.cuh"')


def test_include_paths_must_be_folders():
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.compile_all(CALLS_EXT_MUL, SIG, entry="k", device=False, output="ptx",
                           cc=(9, 0), link=[("ext.cu", EXT_CU)], include_paths=7)
    assert e.value.message == "include_paths must be a list of folders, not int"

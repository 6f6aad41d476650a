"""The README's Python snippets ("From Python") run as written: each in a
fresh interpreter, after a few lines that give the names the README leaves
to the reader (ir, mangled, kernel_ir, blocks, ...), in a folder holding
lerp.cu, and followed by checks of what it made.  The README's snippet for
the register_lowering of CUDA C++ once lacked its symbol= and failed."""
import os
import re
import shutil

import pytest

from conftest import CORPUS, TESTS, has_gpu, run_python

README = os.path.join(os.path.dirname(TESTS), "README.md")
LERP_CU = os.path.join(os.path.dirname(TESTS), "samples", "luajit", "lerp.cu")

COMPILE, GPU, HOST, NUMBA = ("import cuplug\nptx, restype", "kernel = cuplug.load(cubin)",
                             "import ctypes\nart, _", "import cuplug.numba as cn")


def snippets():
    text = open(README).read()
    section = text.split("\n### From Python\n", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def snippet(start):
    found = [s for s in snippets() if s.startswith(start)]
    assert len(found) == 1, "the README has %d snippets starting %r" % (len(found), start)
    return found[0]


def case_names(name):
    return ("import json\n"
            "case = json.load(open(%r))\n"
            "ir = open(%r).read()\n"
            "mangled = case['entry']\n" % (os.path.join(CORPUS, name, "case.json"),
                                           os.path.join(CORPUS, name, "input.ll")))


def run(tmp_path, *parts):
    shutil.copy(LERP_CU, tmp_path / "lerp.cu")
    p = run_python("import os\nos.chdir(%r)\n" % str(tmp_path) + "\n".join(parts))
    assert (p.returncode, p.stderr) == (0, ""), p.stderr
    return p.stdout


# a numba-ABI kernel k(x: float32[::1], a: float32): x[i] = ext_lerp(x[i], a, 0.5)
KERNEL_NAMES = '''
kernel_ir = """
define i32 @k(i8** %ret, i8* %x.0, i8* %x.1, i64 %x.2, i64 %x.3, float* %x.4, i64 %x.5,
              i64 %x.6, float %a) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %ctaid, %ntid
  %i32 = add i32 %base, %tid
  %i = sext i32 %i32 to i64
  %in = icmp slt i64 %i, %x.5
  br i1 %in, label %body, label %done
body:
  %p = getelementptr float, float* %x.4, i64 %i
  %v = load float, float* %p
  %l = call float @ext_lerp(float %v, float %a, float 0.5)
  store float %l, float* %p
  br label %done
done:
  ret i32 0
}
declare float @ext_lerp(float, float, float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
"""
source = ('extern "C" __device__ float clamp(float x, float lo, float hi) '
          '{ return fminf(fmaxf(x, lo), hi); }')
'''

COMPILE_CHECKS = '''
assert ".visible .func  (.param .b32 func_retval0) add(" in ptx and restype == "float32"
assert cubin[:4] == b"\\x7fELF"
r = cuplug.resolve_call("mylib.clamp", ["float32", "float64", "float32"])
assert (r.symbol, r.conversions) == ("clamp", ("exact", "unsafe", "exact")), r
print("compiled")
'''


def test_every_snippet_is_run():
    starts = (COMPILE, GPU, HOST, NUMBA)
    assert [[t for t in starts if s.startswith(t)] for s in snippets()] == [[t] for t in starts]


def test_compile_snippet(tmp_path):
    out = run(tmp_path, case_names("add_f32"), KERNEL_NAMES, snippet(COMPILE), COMPILE_CHECKS)
    assert out == "compiled\n"


@pytest.mark.gpu
def test_gpu_snippet(tmp_path):
    pytest.importorskip("cupy")
    out = run(tmp_path, case_names("add_f32"), KERNEL_NAMES, snippet(COMPILE),
              "import cupy as cp\n"
              "cupy_array = cp.arange(256, dtype=cp.float32)\n"
              "blocks, threads = 1, 256\n",
              snippet(GPU),
              "cp.cuda.runtime.deviceSynchronize()\n"
              "x = cp.arange(256, dtype=cp.float32)\n"
              "assert cp.array_equal(cupy_array, x + 0.5 * (2 - x))\n"
              "print('launched')\n")
    assert out == "launched\n"


def test_host_snippet(tmp_path):
    out = run(tmp_path, case_names("saxpy_kernel"),
              "import numpy as np, cuplug\n"
              "kernel_art, _ = cuplug.compile(ir, case['signature'], entry=mangled, device=False,\n"
              "                               output='host')\n"
              "n = 1000\n"
              "x = np.arange(n, dtype=np.float32)\n"
              "y = np.full(n, 0.5, dtype=np.float32)\n"
              "out = np.zeros(n, dtype=np.float32)\n"
              "blocks, threads = (n + 127) // 128, 128\n",
              case_names("add_i32"),
              snippet(HOST),
              "assert m.call(2, 40) == 42\n"
              "add = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int32,\n"
              "                       ctypes.c_int32)(m.address())\n"
              "assert add(40, 2) == 42\n"
              "assert np.array_equal(out, 2 * x + y)\n"
              "print('ran')\n")
    assert out == "ran\n"


@pytest.mark.gpu
def test_numba_snippet(tmp_path):
    pytest.importorskip("numba_cuda")
    if not has_gpu():
        pytest.skip("no CUDA device")
    out = run(tmp_path,
              "import numpy as np\n"
              "from numba import cuda\n"
              "def add(x, y):\n"
              "    return x + y\n"
              "def kernel_function(out, x):\n"
              "    i = cuda.grid(1)\n"
              "    if i < out.size:\n"
              "        out[i] = 2 * x[i]\n"
              "x = np.arange(256, dtype=np.float32)\n"
              "out = np.zeros(256, dtype=np.float32)\n"
              "blocks, threads = 1, 256\n",
              snippet(NUMBA),
              "assert np.array_equal(out, 2 * x) and str(resty) == 'float32'\n"
              "print('numba-cuda')\n")
    assert out == "numba-cuda\n"

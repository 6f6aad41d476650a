"""What the plugin reads during a call stays alive until the call is over.

Lists of paths, code and IR are read by the plugin after the module has
converted them, with the GIL released: a generator's items, or those of a
list that a callback of the call empties, must not die before.  Each case
runs in a fresh interpreter with PYTHONMALLOC=debug, which overwrites freed
memory at once, so that a borrowed item that died is read as garbage (or
crashes that interpreter) rather than by luck as it was."""
import pytest

from conftest import run_python

KERNEL_CU = """#include "lifetime.h"
extern "C" __global__ void lifetime_k(int *p) { *p = LIFETIME_VALUE; }
"""


@pytest.fixture
def cu_dir(tmp_path):
    """A .cu kernel (lifetime_k) that includes a header from inc/."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "lifetime.h").write_text("#define LIFETIME_VALUE 7\n")
    (tmp_path / "k.cu").write_text(KERNEL_CU)
    return tmp_path


def run_debug_malloc(code, cu_dir=""):
    p = run_python(code, PYTHONMALLOC="debug", LIFETIME_DIR=str(cu_dir))
    assert (p.returncode, p.stderr) == (0, "")
    return p.stdout


LINK_FROM_GENERATORS = """
import os, pathlib, cuplug
d = pathlib.Path(os.environ["LIFETIME_DIR"])
s = cuplug.Session(cache=False)
art = s.link(code=(str(p) for p in [d / "k.cu"]), include_paths=(str(p) for p in [d / "inc"]),
             cc=(9, 0))
print(art.data[:4], b"lifetime_k" in art.data)
"""


def test_link_lists_from_generators(cu_dir):
    assert run_debug_malloc(LINK_FROM_GENERATORS, cu_dir) == "b'\\x7fELF' True\n"


COMPILE_FROM_GENERATORS = """
import os, pathlib, cuplug, kernels
d = pathlib.Path(os.environ["LIFETIME_DIR"])
s = cuplug.Session(cache=False)
art = s.compile(((n, kernels.axpy5_ir().encode()) for n in ["axpy5.ll"]), "axpy5",
                cuplug.typeof(kernels.AXPY5_SIG), entry_abi="c", kind=1, output=3, cc=(9, 0),
                link=(str(p) for p in [d / "k.cu"]),
                include_paths=(str(p) for p in [d / "inc"]))
print(art.data[:4], b"axpy5" in art.data, b"lifetime_k" in art.data)
"""


def test_compile_lists_from_generators(cu_dir):
    assert run_debug_malloc(COMPILE_FROM_GENERATORS, cu_dir) == "b'\\x7fELF' True True\n"


DECLARE_FROM_A_GENERATOR = """
import pathlib, cuplug
from conftest import CORPUS
from test_link import EXT_KERNEL
reg = cuplug.Registry()
reg.declare_device("ext_mul", "int32(int32, int32)", "numba",
                   (str(p) for p in [pathlib.Path(CORPUS) / "dev_ext_i32" / "ext_mul.cu"]))
s = cuplug.Session(registry=reg, cache=False)
art = s.compile([("k.ll", EXT_KERNEL)], "k", cuplug.typeof("void(CPointer(int32), int32, int32)"),
                entry_abi="c", kind=1, output=3, cc=(9, 0))
print(art.data[:4], b".text.k" in art.data)
"""


def test_declared_code_from_a_generator():
    assert run_debug_malloc(DECLARE_FROM_A_GENERATOR) == "b'\\x7fELF' True\n"


RESOLVE_FROM_A_GENERATOR = """
import cuplug
r = cuplug.default_session().registry.resolve(
    "math.pow", ("%s" % t for t in ["float32", "int32"]))
print(r[0], r[4])
"""


def test_argtypes_from_a_generator():
    """Types are the plugin's, parsed at once: nothing is borrowed."""
    assert run_debug_malloc(RESOLVE_FROM_A_GENERATOR) == (
        "float32(float32, int32) ('exact', 'exact')\n")


LISTS_EMPTIED_BY_A_CALLBACK = """
import gc, os, pathlib, cuplug
d = pathlib.Path(os.environ["LIFETIME_DIR"])
link, includes = [str(d / "k.cu")], [str(d / "inc")]

def lower(key, signature, symbol, abi):
    # the plugin calls back in the middle of the compile, before it links
    link.clear()
    includes.clear()
    gc.collect()
    return "define float @%s(float %%x) {\\n  ret float %%x\\n}\\n" % symbol

s = cuplug.Session(cache=False)
cuplug.register_typing("t.f", ["float32(float32)"], session=s)
cuplug.register_lowering("t.f", "float32(float32)", callable=lower, symbol="t_f", session=s)
ir = ("define void @k(float* %out, float %x) {\\n  %y = call float @t_f(float %x)\\n"
      "  store float %y, float* %out\\n  ret void\\n}\\ndeclare float @t_f(float)\\n")
art = s.compile([("k.ll", ir)], "k", cuplug.typeof("void(CPointer(float32), float32)"),
                entry_abi="c", kind=1, output=3, cc=(9, 0), link=link, include_paths=includes)
print(art.data[:4], b"lifetime_k" in art.data, link, includes)
"""


def test_lists_emptied_during_the_call(cu_dir):
    assert run_debug_malloc(LISTS_EMPTIED_BY_A_CALLBACK, cu_dir) == "b'\\x7fELF' True [] []\n"

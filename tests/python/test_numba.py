"""cuplug.numba: numba-cuda types and lowers, cuplug does the rest.  Each
test checks cuplug's result against numba-cuda's own (the same PTX entry,
the same numbers), on the GPU with numba-cuda 0.30."""
import os
import re

import pytest

import cuplug.numba as cnumba
from conftest import numba_cuda_or_why

pytestmark = pytest.mark.gpu

cuda, WHY_NOT = numba_cuda_or_why()  # the kernels below name its cuda module


@pytest.fixture
def nc():
    """numba.cuda (the test is skipped, and says why, without numba-cuda)."""
    if cuda is None:
        pytest.skip(WHY_NOT)
    return cuda


def entry_params(ptx, name_part):
    """The .entry's name and its parameter declarations, one per line, with
    numba's per-compile uid ("B2v7") taken out of the mangled names."""
    m = re.search(r"\.entry\s+(\S*%s\S*)\(([^)]*)\)" % re.escape(name_part), ptx)
    assert m, "no .entry for %s in\n%s" % (name_part, ptx[:2000])
    text = re.sub(r"B\d+v\d+B", "B", m.group(1) + "(" + m.group(2))
    name, params = text.split("(", 1)
    return name, [p.strip() for p in params.split(",")]


def axpy(r, x, y, a):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


def add(a, b):
    return a + b


def raises_five(r):
    i = cuda.grid(1)
    if i == 5:
        raise ValueError("five")
    r[i] = i


def test_kernel_ptx_has_numbas_entry(nc):
    sig = "void(float32[::1], float32[::1], float32[::1], float32)"
    ours, resty = cnumba.compile_ptx(axpy, sig, cc=(9, 0))
    theirs, their_resty = cuda.compile_ptx(axpy, sig, cc=(9, 0))
    assert str(resty) == str(their_resty) == "none"
    assert entry_params(ours, "axpy") == entry_params(theirs, "axpy")
    assert ".target sm_90" in ours


def test_c_abi_device_function(nc):
    ptx, resty = cnumba.compile(add, "float32(float32, float32)", abi="c", cc=(9, 0))
    assert str(resty) == "float32"
    # the C ABI: the value returned, named as the Python function
    assert re.search(r"\.visible\s+\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+add\(", ptx), ptx
    ptx, _ = cnumba.compile(add, "float32(float32, float32)", abi="c",
                            abi_info={"abi_name": "my_add"}, cc=(9, 0))
    assert re.search(r"\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+my_add\(", ptx)
    theirs, _ = cuda.compile(add, "float32(float32, float32)", abi="c",
                             abi_info={"abi_name": "my_add"}, cc=(9, 0))
    assert re.search(r"\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+my_add\(", theirs)
    # as numba-cuda: no environment beside a C-ABI function; a lambda's name escaped
    assert "NumbaEnv" not in ptx and "NumbaEnv" not in theirs
    ptx, _ = cnumba.compile(lambda x: x, "int32(int32)", abi="c", cc=(9, 0))
    assert re.search(r"\.func\s+\(\.param\s+\.b32\s+func_retval0\)\s+_3clambda_3e\(", ptx)


def test_ltoir_and_compile_all(nc):
    code, _ = cnumba.compile(add, "int32(int32, int32)", output="ltoir", cc=(9, 0))
    assert isinstance(code, bytes) and len(code) > 0
    codes, resty = cnumba.compile_all(add, "int32(int32, int32)", cc=(9, 0))
    assert len(codes) == 1 and codes[0][:4] == code[:4]
    assert str(resty) == "int32"


def test_numba_errors_kept(nc):
    with pytest.raises(NotImplementedError, match="The C ABI is not supported for kernels"):
        cnumba.compile(axpy, "void(float32[::1], float32[::1], float32[::1], float32)",
                       device=False, abi="c")
    with pytest.raises(ValueError, match="Can only designate forced inlining in LTO-IR"):
        cnumba.compile(add, "int32(int32, int32)", forceinline=True)
    with pytest.raises(NotImplementedError, match="Unsupported output type: cubin"):
        cnumba.compile(add, "int32(int32, int32)", output="cubin")


def test_what_cuplug_cannot_compile_names_its_stage(nc):
    from numba.cuda import types
    from numba.cuda.core.errors import TypingError
    # an array of strings (pointers and a Python object: no data cuplug lays out)
    with pytest.raises(NotImplementedError) as e:
        cnumba.type_name(types.Array(types.unicode_type, 1, "C"))
    assert str(e.value) == ("cuplug.numba (signature): cuplug has no model of the numba type "
                            "array(unicode_type, 1d, C)")

    def untypable(x):
        return x.no_such_attribute

    with pytest.raises(TypingError, match="no_such_attribute"):  # numba-cuda's own error
        cnumba.compile(untypable, "int32(int32)")


def test_jit_on_cupy_numba_and_numpy_arrays(nc):
    import numpy as np
    cp = pytest.importorskip("cupy")
    k = cnumba.jit("void(float32[::1], float32[::1], float32[::1], float32)")(axpy)
    n = 1000
    x = cp.arange(n, dtype=cp.float32)
    y = cp.ones(n, dtype=cp.float32)
    r = cp.zeros(n, dtype=cp.float32)
    k[(n + 127) // 128, 128](r, x, y, 2.0)
    cp.cuda.runtime.deviceSynchronize()
    assert cp.array_equal(r, 2 * x + 1)
    # numba-cuda's device arrays, and NumPy arrays copied there and back
    dr = cuda.device_array(n, dtype=np.float32)
    k[(n + 127) // 128, 128](dr, cuda.to_device(np.arange(n, dtype=np.float32)),
                              cuda.to_device(np.ones(n, dtype=np.float32)), 3.0)
    assert np.array_equal(dr.copy_to_host(), 3 * np.arange(n, dtype=np.float32) + 1)
    hr = np.zeros(n, dtype=np.float32)
    k[(n + 127) // 128, 128](hr, np.arange(n, dtype=np.float32), np.ones(n, np.float32), 4.0)
    assert np.array_equal(hr, 4 * np.arange(n, dtype=np.float32) + 1)


def test_jit_lazy_compiles_per_type(nc):
    import numpy as np
    k = cnumba.jit(axpy)
    for dt in (np.float32, np.float64):
        x = np.arange(64, dtype=dt)
        r = np.zeros(64, dtype=dt)
        k[1, 64](r, x, x, dt(2))
        assert np.array_equal(r, 3 * x)
    assert len(k._kernels) == 2


def test_jit_debug_kernel_raises(nc):
    import numpy as np

    k = cnumba.jit("void(int32[::1])", debug=True, opt=False)(raises_five)
    r = cuda.device_array(8, dtype=np.int32)
    with pytest.raises(ValueError) as e:  # numba-cuda's exception, as numba-cuda raises it
        k[1, 8](r)
    assert str(e.value).endswith("tid=[0, 0, 5] ctaid=[0, 0, 0]: five"), str(e.value)
    stock = cuda.jit("void(int32[::1])", debug=True, opt=False)(raises_five)
    with pytest.raises(ValueError) as e2:
        stock[1, 8](r)
    assert str(e2.value).split("tid=")[1] == str(e.value).split("tid=")[1]


def test_jit_host_target_gives_numba_cudas_numbers(nc):
    """The same Python kernel on the CPU (target="host") and by numba-cuda
    on the GPU: the same float32 results, bit for bit; NumPy arrays are
    used in place."""
    import numpy as np
    n = 1000
    x = (np.arange(n, dtype=np.float32) * np.float32(0.37)).astype(np.float32)
    y = np.linspace(-3, 3, n, dtype=np.float32)
    host = cnumba.jit(target="host")(axpy)
    assert host.target == "host"
    r = np.zeros(n, dtype=np.float32)
    host[(n + 127) // 128, 128](r, x, y, np.float32(1.5))
    stock = np.zeros(n, dtype=np.float32)
    cuda.jit(axpy)[(n + 127) // 128, 128](stock, x, y, np.float32(1.5))
    assert r.tobytes() == stock.tobytes()
    assert cnumba.jit(axpy).target == "cuda"  # a GPU is here


def says(a, f):
    i = cuda.grid(1)
    if i < a.size:
        print("item", i, a[i], f[i], f[i] * 0.5, i == 1)


def test_print_on_the_host_prints_what_numba_cuda_prints(nc, capfd):
    """numba-cuda's print is CUDA's vprintf: on the CPU the runtime's own
    (glibc's, which takes a va_list, crashed the host)."""
    import numpy as np
    a = np.arange(3, dtype=np.int64) * 1000000007
    f = np.array([0.1, -2.5, 1e-8])
    capfd.readouterr()
    cnumba.jit(target="host")(says)[1, 4](a, f)
    host = capfd.readouterr().out
    cuda.jit(says)[1, 4](cuda.to_device(a), cuda.to_device(f))
    cuda.synchronize()
    gpu = capfd.readouterr().out
    assert host == ("item 0 0 0.100000 0.050000 False\n"
                    "item 1 1000000007 -2.500000 -1.250000 True\n"
                    "item 2 2000000014 0.000000 0.000000 False\n")
    assert sorted(gpu.splitlines()) == host.splitlines()


def test_jit_host_target_takes_read_only_arrays(nc):
    """numba types a read-only ndarray as a readonly array, and cuplug keeps
    that in the signature: the launch passes the memory read-only, which
    only such a parameter takes."""
    import numpy as np
    from numba.cuda import types
    ro = types.Array(types.float32, 1, "C", readonly=True)
    assert cnumba.type_name(ro) == "readonly array(float32, 1d, C)"
    assert str(cnumba._cuplug.typeof(cnumba.type_name(ro))) == str(ro)
    # numba prints CPointer(T) as "T*": 223 of the cudapy suite's functions
    # were left to numba-cuda for that alone (issue 21)
    assert cnumba.type_name(types.CPointer(types.float32)) == "CPointer(float32)"
    assert cnumba.type_name(types.CPointer(types.CPointer(types.int8))) == \
        "CPointer(CPointer(int8))"
    n = 300
    x = np.arange(n, dtype=np.float32)
    x.flags.writeable = False
    y = np.ones(n, dtype=np.float32)
    r = np.zeros(n, dtype=np.float32)
    cnumba.jit(target="host")(axpy)[3, 128](r, x, y, np.float32(2.0))
    assert np.array_equal(r, 2 * x + 1)


def test_jit_host_kernel_raises_numba_cudas_exception(nc):
    import numpy as np

    k = cnumba.jit("void(int32[::1])", debug=True, opt=False, target="host")(raises_five)
    r = np.zeros(8, dtype=np.int32)
    with pytest.raises(ValueError) as e:
        k[1, 8](r)
    assert str(e.value).endswith("tid=[0, 0, 5] ctaid=[0, 0, 0]: five"), str(e.value)


def test_jit_host_kernel_linking_cuda_cpp_is_refused(nc, tmp_path):
    cu = tmp_path / "twice.cu"
    cu.write_text('extern "C" __device__ int twice(int *r, int x) { *r = 2 * x; return 0; }\n')
    twice = cuda.declare_device("twice", "int32(int32)", link=str(cu))

    def k(r):
        r[0] = twice(r[0])

    import numpy as np
    h = cnumba.jit(target="host")(k)
    with pytest.raises(NotImplementedError) as e:
        h[1, 1](np.ones(1, dtype=np.int32))
    assert str(e.value) == ("cuplug.numba: k links CUDA C++ (%s), which cannot run on the host: "
                            "run it on a GPU (target=\"cuda\")" % cu)


def test_jit_without_a_gpu_runs_on_the_host(nc):
    """Where cuplug sees no GPU (CUDA_VISIBLE_DEVICES empty), jit's kernels
    run on the CPU, and say so."""
    import subprocess
    import sys
    code = """
import numpy as np
import cuplug, cuplug.numba as cn
from numba import cuda
assert cuplug.info()["device_count"] == 0
def k(r, x):
    i = cuda.grid(1)
    if i < r.size:
        r[i] = x[i] * 2 + 1
kern = cn.jit(k)
r = np.zeros(100, dtype=np.int64)
kern[4, 32](r, np.arange(100, dtype=np.int64))
assert kern.target == "host"
assert r.tolist() == [2 * i + 1 for i in range(100)], r
print("ran on the host")
"""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "ran on the host"


def test_install_routes_numba_cuda_through_cuplug(nc):
    import numpy as np
    cnumba.install()
    try:
        assert cnumba.installed()

        @cuda.jit("void(float32[::1], float32[::1], float32[::1], float32)")
        def axpy_installed(r, x, y, a):
            i = cuda.grid(1)
            if i < r.size:
                r[i] = a * x[i] + y[i]

        n = 300
        x = np.arange(n, dtype=np.float32)
        r = np.zeros(n, dtype=np.float32)
        axpy_installed[3, 128](r, x, np.ones(n, np.float32), 2.0)
        assert np.array_equal(r, 2 * x + 1)
        lib = next(iter(axpy_installed.overloads.values()))._codelibrary
        assert type(lib).__name__ == "CuplugCodeLibrary"
        assert lib._cuplug_entry[1] == "void(array(float32, 1d, C), array(float32, 1d, C), " \
                                       "array(float32, 1d, C), float32)"
        assert cnumba.stats()["cuplug"] >= 1

        ptx, _ = cuda.compile(add, "float64(float64, float64)", abi="c", cc=(9, 0))
        assert re.search(r"\.func\s+\(\.param\s+\.b64\s+func_retval0\)\s+add\(", ptx)
    finally:
        cnumba.uninstall()
    assert not cnumba.installed()

    @cuda.jit("void(float32[::1])")
    def stock(r):
        r[0] = 7

    lib = next(iter(stock.overloads.values()))._codelibrary
    assert type(lib).__name__ == "CUDACodeLibrary"


def test_install_links_declared_cuda_cpp(nc, tmp_path):
    import numpy as np
    src = tmp_path / "mul.cu"
    src.write_text('extern "C" __device__ int mul(int *r, int a, int b)'
                   ' { *r = a * b; return 0; }\n')
    mul = cuda.declare_device("mul", "int32(int32, int32)", link=[str(src)])
    cnumba.install()
    try:
        @cuda.jit("void(int32[::1])")
        def k(r):
            i = cuda.grid(1)
            r[i] = mul(i, 3)

        r = np.zeros(32, dtype=np.int32)
        k[1, 32](r)
        assert np.array_equal(r, 3 * np.arange(32, dtype=np.int32))
    finally:
        cnumba.uninstall()


def test_numba_types_map_by_their_data_model(nc):
    """Every kind of numba type a cudapy function took maps to the cuplug
    type with numba-cuda's data model, and cuplug reads that back."""
    import enum

    import numpy as np
    from numba.cuda import types
    from numba.cuda.typing.typeof import typeof

    class Shape(enum.IntEnum):
        circle = 1

    rec = typeof(np.zeros(1, np.dtype([("a", np.float64), ("b", np.int32),
                                       ("v", np.float32, (3, 2))], align=True))[0])
    packed = typeof(np.zeros(1, np.dtype([("a", np.int8), ("b", np.float64)]))[0])
    cases = [
        (types.bfloat16, "bfloat16"),
        (rec, "Record(a: float64 @ 0, b: int32 @ 8, "
              "v: UniTuple(UniTuple(float32 x 2) x 3) @ 12, size=40)"),
        (packed, "Record(a: int8 @ 0, b: float64 @ 1, size=9, align=1)"),
        (types.Array(rec, 1, "C"), "array(%s, 1d, C)" % cnumba.type_name(rec)),
        (types.Array(types.int64, 0, "C"), "array(int64, 0d, C)"),
        (types.Array(types.CharSeq(12), 1, "C"), "array(UniTuple(uint8 x 12), 1d, C)"),
        (types.Array(types.UnicodeCharSeq(3), 1, "C"), "array(UniTuple(uint32 x 3), 1d, C)"),
        (types.Omitted(3), 'Omitted("omitted(default=3)")'),
        (types.NumberClass(types.int32), 'Opaque("class(int32)")'),  # one i8*, not class()
        (types.TypeRef(types.float32), 'Opaque("typeref[float32]")'),
        (types.NPDatetime("D"), "int64"),
        (types.NPTimedelta("s"), "int64"),
        (types.Optional(types.int64), "Struct(data: int64, valid: bool)"),
        (types.voidptr, "CPointer(void)"),
        (types.grid_group, "int64"),
        (types.StarArgUniTuple(types.int64, 2), "UniTuple(int64 x 2)"),
        (types.IntEnumMember(Shape, types.int64), "int64"),
        (types.ExternalFunctionPointer(types.float64(types.float64), None),
         "CPointer(float64(float64))"),
    ]
    for numba_type, expected in cases:
        assert cnumba.type_name(numba_type) == expected, numba_type
        assert cnumba._cuplug.typeof(expected) is not None
    assert cnumba.type_name(types.none, "return") == "void"
    assert cnumba.type_name(types.none) == 'Opaque("none")'
    assert cnumba.type_name(types.Module(np)).startswith('Opaque("Module(<module \'numpy\'')


def test_install_compiles_records_through_cuplug(nc):
    """A kernel on a record array: cuplug compiles it (stats() says so) and
    it writes what numba-cuda's own does."""
    import numpy as np
    rec = np.dtype([("a", np.float64), ("b", np.int32)])
    before = cnumba.stats()
    cnumba.install()
    try:
        @cuda.jit
        def set_b(r):
            i = cuda.grid(1)
            if i < r.size:
                r[i].b = i * 2 + int(r[i].a)

        r = np.zeros(16, dtype=rec)
        r["a"] = np.arange(16) * 10
        set_b[1, 16](r)
        assert list(r["b"]) == [i * 2 + i * 10 for i in range(16)]
        after = cnumba.stats()
        assert after["cuplug"] == before["cuplug"] + 1
        assert after["numba-cuda"] == before["numba-cuda"]
        lib = next(iter(set_b.overloads.values()))._codelibrary
        assert lib._cuplug_entry[1] == ("void(array(Record(a: float64 @ 0, b: int32 @ 8, "
                                        "size=12, align=1), 1d, C))")
    finally:
        cnumba.uninstall()


def test_install_leaves_what_cuplug_cannot_model_to_numba_cuda(nc, monkeypatch):
    """A function whose signature cuplug cannot model compiles and runs as
    numba-cuda's own; stats() counts it under the type's kind."""
    import numpy as np

    def no_model(cres):
        raise NotImplementedError("cuplug.numba (signature): cuplug has no model of the numba "
                                  "type Fake(1)")

    monkeypatch.setattr(cnumba, "signature_of", no_model)
    before = cnumba.stats()
    cnumba.install()
    try:
        @cuda.jit
        def double(r):
            i = cuda.grid(1)
            if i < r.size:
                r[i] = i * 2

        r = np.zeros(16, dtype=np.int32)
        double[1, 16](r)
        assert list(r) == [2 * i for i in range(16)]
        after = cnumba.stats()
        assert after["numba-cuda"] == before["numba-cuda"] + 1
        assert after["reasons"].get("Fake", 0) == before["reasons"].get("Fake", 0) + 1
        lib = next(iter(double.overloads.values()))._codelibrary
        assert getattr(lib, "_cuplug_entry", None) is None
    finally:
        cnumba.uninstall()

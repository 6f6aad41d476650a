"""extern.py - a CUDA C++ function called from a kernel a Python JIT writes.

The Python twin of samples/extern and samples/luajit/extern.lua, through
the cuplug module: it declares ext_lerp (samples/luajit/lerp.cu) as
numba-cuda's cuda.declare_device does, asks the registry how math.sqrt(float32)
is called, writes a kernel calling both as NVVM IR, compiles it to a cubin
(the .cu by NVRTC, all linked with LTO) and, on a GPU, launches it on CuPy
arrays and checks every element.  Without a GPU it stops after the cubin.

    python3 extern.py [--no-gpu | --gpu-only]

--gpu-only exits with 77 (skipped) where there is no GPU."""
import math
import os
import sys

import cuplug

HERE = os.path.dirname(os.path.abspath(__file__))
SIG = "void(float32[::1], float32[::1], float32[::1], float32)"


def array_params(name):
    """A float32[::1] argument as numba passes it, under the C ABI."""
    return ", ".join(t % name for t in (
        'i8* %%"%s.meminfo"', 'i8* %%"%s.parent"', 'i64 %%"%s.nitems"', 'i64 %%"%s.itemsize"',
        'float* %%"%s.data"', 'i64 %%"%s.shape"', 'i64 %%"%s.stride"'))


def kernel_ir(sqrt_symbol):
    """lerp_sqrt(out, a, b, t): out[i] = math.sqrt(ext_lerp(a[i], b[i], t))."""
    return """
define void @lerp_sqrt(%(out)s, %(a)s, %(b)s, float %%t) {
entry:
  %%tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %%ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %%ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %%block = mul i32 %%ctaid, %%ntid
  %%i32 = add i32 %%block, %%tid
  %%i = sext i32 %%i32 to i64
  %%in = icmp slt i64 %%i, %%"a.shape"
  br i1 %%in, label %%body, label %%done
body:
  %%pa = getelementptr float, float* %%"a.data", i64 %%i
  %%va = load float, float* %%pa
  %%pb = getelementptr float, float* %%"b.data", i64 %%i
  %%vb = load float, float* %%pb
  %%l = call float @ext_lerp(float %%va, float %%vb, float %%t)
  %%r = call float @"%(sqrt)s"(float %%l)
  %%po = getelementptr float, float* %%"out.data", i64 %%i
  store float %%r, float* %%po
  br label %%done
done:
  ret void
}
declare float @ext_lerp(float, float, float)
declare float @"%(sqrt)s"(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
""" % {"out": array_params("out"), "a": array_params("a"), "b": array_params("b"),
       "sqrt": sqrt_symbol}


def main(mode):
    gpu = cuplug.info()["device_count"] > 0 and mode != "--no-gpu"
    if mode == "--gpu-only" and not gpu:
        print("no GPU, skipped")
        return 77

    # 1. ext_lerp, as cuda.declare_device("ext_lerp", "float32(float32, float32,
    #    float32)", link="lerp.cu", abi="c") declares it
    lerp_cu = os.path.join(HERE, "..", "luajit", "lerp.cu")
    cuplug.declare_device("ext_lerp", "float32(float32, float32, float32)", link=lerp_cu, abi="c")
    try:  # the same name twice is an error, raised as one
        cuplug.declare_device("ext_lerp", "float32(float32, float32, float32)", link=lerp_cu,
                              abi="c")
        raise AssertionError("declaring ext_lerp twice should fail")
    except cuplug.RegistryError as e:
        assert e.name == "CUPLUG_ERR_DUPLICATE", e
        print("declaring ext_lerp twice:", e)

    # 2. math.sqrt(float32), as a front end meeting the call asks the registry
    call = cuplug.resolve_call("math.sqrt", [cuplug.typeof("float32")])
    assert call.signature.name == "float32(float32)" and call.abi == "c", call
    print("math.sqrt(float32) resolves to %s, @%s under the C ABI"
          % (call.signature.name, call.symbol))

    # 3. the kernel compiled and linked into a cubin with lerp.cu (LTO): for
    #    this GPU, else for sm_90
    cc = tuple(cuplug.info()["device_cc"]) if gpu else (9, 0)
    cubin, _ = cuplug.compile(kernel_ir(call.symbol), SIG, entry="lerp_sqrt", entry_abi="c",
                              device=False, output="cubin", cc=cc)
    print("cubin for sm_%d%d: %d bytes" % (cc[0], cc[1], len(cubin)))
    if not gpu:
        print("no GPU: stopping after the cubin")
        return 0

    # 4. launched on CuPy arrays, every element checked against the host
    import cupy as cp
    n = 1000
    a = cp.arange(n, dtype=cp.float32)
    b = cp.full(n, 2.0 * n, dtype=cp.float32)
    out = cp.zeros(n, dtype=cp.float32)
    with cuplug.load(cubin) as module:
        kernel = module.get_kernel("lerp_sqrt", SIG)  # a cubin's bytes carry no signature
        kernel[(n + 127) // 128, 128](out, a, b, 0.25)
        cp.cuda.runtime.deviceSynchronize()
    got = out.get()
    for i in range(n):
        want = math.sqrt(i + 0.25 * (2.0 * n - i))
        assert abs(got[i] - want) <= 1e-6 * want, (i, got[i], want)
    print("lerp_sqrt on %d elements: every one matches (out[10] = %.6f)" % (n, got[10]))
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if args not in ([], ["--no-gpu"], ["--gpu-only"]):
        sys.exit("usage: python3 extern.py [--no-gpu | --gpu-only]")
    sys.exit(main(args[0] if args else None))

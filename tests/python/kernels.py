"""Kernels the Python tests and bench/python_launch_bench.py launch, as a
front end would hand them to cuplug: NVVM IR under the C ABI, arrays
flattened as numba passes them (meminfo, parent, nitems, itemsize, data,
shape, strides)."""

AXPY5_SIG = "void(float32[::1], float32[::1], float32[::1], float32, int32)"
AXPY5_PTR_SIG = "void(CPointer(float32), CPointer(float32), CPointer(float32), float32, int32)"


def _array(name):
    return ("i8* %{0}.meminfo, i8* %{0}.parent, i64 %{0}.nitems, i64 %{0}.itemsize, "
            "float* %{0}.data, i64 %{0}.shape, i64 %{0}.stride").format(name)


_BODY = """{{
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %j = sext i32 %i to i64
  %px = getelementptr float, float* {x}, i64 %j
  %py = getelementptr float, float* {y}, i64 %j
  %pr = getelementptr float, float* {r}, i64 %j
  %xv = load float, float* %px
  %yv = load float, float* %py
  %ax = fmul float %a, %xv
  %v = fadd float %ax, %yv
  store float %v, float* %pr
  br label %done
done:
  ret void
}}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
"""


def axpy5_ir():
    """r[i] = a * x[i] + y[i] for i < n: void axpy5(r, x, y, a, n) on arrays."""
    head = "define void @axpy5({}, {}, {}, float %a, i32 %n) ".format(
        _array("r"), _array("x"), _array("y"))
    return head + _BODY.format(r="%r.data", x="%x.data", y="%y.data")


def axpy5_ptr_ir():
    """The same kernel on pointers: void axpy5p(float* r, x, y, float a, int n)."""
    head = "define void @axpy5p(float* %r, float* %x, float* %y, float %a, i32 %n) "
    return head + _BODY.format(r="%r", x="%x", y="%y")

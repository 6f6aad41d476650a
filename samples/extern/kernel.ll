; The kernel a host JIT emitted for
;     def clamp_kernel(out, x, scale):
;         i = cuda.grid(1)
;         if i < x.size:
;             out[i] = ext_clamp(x[i] * scale, 0.0, 1.0)
; with signature void(float32[::1], float32[::1], float32), under the Numba
; ABI: each array arrives as meminfo, parent, nitems, itemsize, data, shape,
; strides.
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

define i32 @"clamp_kernel"(i8** %".ret", i8* %"out.0", i8* %"out.1", i64 %"out.2", i64 %"out.3", float* %"out.4", i64 %"out.5.0", i64 %"out.6.0", i8* %"x.0", i8* %"x.1", i64 %"x.2", i64 %"x.3", float* %"x.4", i64 %"x.5.0", i64 %"x.6.0", float %"scale")
{
entry:
  %"slot" = alloca float
  %"tid" = call i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
  %"ntid" = call i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"()
  %"ctaid" = call i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"()
  %"block" = mul i32 %"ctaid", %"ntid"
  %"i32" = add i32 %"block", %"tid"
  %"i" = sext i32 %"i32" to i64
  %"in" = icmp slt i64 %"i", %"x.5.0"
  br i1 %"in", label %"body", label %"done"
body:
  %"px" = getelementptr float, float* %"x.4", i64 %"i"
  %"v" = load float, float* %"px"
  %"scaled" = fmul float %"v", %"scale"
  store float 0.0, float* %"slot"
  %"status" = call i32 @"ext_clamp"(float* %"slot", float %"scaled", float 0.0, float 1.0)
  %"clamped" = load float, float* %"slot"
  %"po" = getelementptr float, float* %"out.4", i64 %"i"
  store float %"clamped", float* %"po"
  br label %"done"
done:
  store i8* null, i8** %".ret"
  ret i32 0
}

declare i32 @"ext_clamp"(float*, float, float, float)
declare i32 @"llvm.nvvm.read.ptx.sreg.tid.x"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ntid.x"()
declare i32 @"llvm.nvvm.read.ptx.sreg.ctaid.x"()

!nvvmir.version = !{ !0 }
!0 = !{ i32 2, i32 0, i32 3, i32 2 }

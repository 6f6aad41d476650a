; ext_mul.cu's function as NVVM IR, for `cuplug case --run host`: on the CPU
; cuplug cannot compile CUDA C++, so case.json's declare_device names this
; host implementation (Numba ABI: the product through *ret, status 0).
define i32 @"ext_mul"(i32* %"ret", i32 %"a", i32 %"b") {
entry:
  %"p" = mul i32 %"a", %"b"
  store i32 %"p", i32* %"ret"
  ret i32 0
}

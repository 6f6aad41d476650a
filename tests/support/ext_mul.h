/* ext_mul.h - the external code the tests and bench/link_bench.c link:
 * ext_mul, CUDA C++ under the Numba ABI (int ext_mul(int *ret, int a, int
 * b)), and k, a Numba-ABI kernel void(CPointer(int32), int32, int32) that
 * calls it and stores the product. */
#ifndef CUPLUG_TEST_EXT_MUL_H
#define CUPLUG_TEST_EXT_MUL_H

static const char t_ext_mul_cu[] =
    "extern \"C\" __device__ int ext_mul(int* ret, int a, int b) { *ret = a * b; return 0; }\n";
static const char t_calls_ext_mul_ir[] =
    "define i32 @k(i8** %ret, i32* %out, i32 %a, i32 %b) {\n"
    "entry:\n"
    "  %slot = alloca i32\n"
    "  %st = call i32 @ext_mul(i32* %slot, i32 %a, i32 %b)\n"
    "  %v = load i32, i32* %slot\n"
    "  store i32 %v, i32* %out\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @ext_mul(i32*, i32, i32)\n";

#endif

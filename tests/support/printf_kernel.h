/* printf_kernel.h - a kernel that calls CUDA's vprintf as clang lays its
 * arguments out (a struct, each field at its natural alignment), with
 * conversions of every size, and what it prints: the same on the GPU and
 * on the CPU (host.modern.llvm_forms, gpu.*.printf).  The last two %d
 * read one i64's halves, as MLIR's gpu.printf passes an index to "%d".
 * No %hh: CUDA 13's printf prints no char's value for it on the H200 (300
 * printed 37, and a %s after it faulted), where the CPU prints C's. */
#ifndef CUPLUG_TEST_PRINTF_KERNEL_H
#define CUPLUG_TEST_PRINTF_KERNEL_H

static const char t_printf_ir[] =
    "%args = type { i32, i32, i32, i32, i64, i64, double, double, double, ptr, i32, i32, i32,\n"
    "               double, i64 }\n"
    "@fmt = private unnamed_addr constant [107 x i8] c\"i32 %d u32 %u hx %hx x %x "
    "lld %lld llu %llu f %f e %.3e g %g s %s c %c w %5d|%-4d| %% z %05.1f mlir %d %d\\0A\\00\"\n"
    "@name = private unnamed_addr constant [7 x i8] c\"cuplug\\00\"\n"
    "define ptx_kernel void @say(i32 %base) {\n"
    "  %buf = alloca %args, align 8\n"
    "  %neg = sub i32 %base, 42\n"
    "  store i32 %neg, ptr %buf\n"
    "  %p1 = getelementptr %args, ptr %buf, i32 0, i32 1\n"
    "  store i32 -294967296, ptr %p1\n"
    "  %p2 = getelementptr %args, ptr %buf, i32 0, i32 2\n"
    "  store i32 74565, ptr %p2\n"
    "  %p3 = getelementptr %args, ptr %buf, i32 0, i32 3\n"
    "  store i32 255, ptr %p3\n"
    "  %p4 = getelementptr %args, ptr %buf, i32 0, i32 4\n"
    "  store i64 -9000000000, ptr %p4\n"
    "  %p5 = getelementptr %args, ptr %buf, i32 0, i32 5\n"
    "  store i64 -446744073709551616, ptr %p5\n"
    "  %p6 = getelementptr %args, ptr %buf, i32 0, i32 6\n"
    "  store double 3.5, ptr %p6\n"
    "  %p7 = getelementptr %args, ptr %buf, i32 0, i32 7\n"
    "  store double 12345.678, ptr %p7\n"
    "  %p8 = getelementptr %args, ptr %buf, i32 0, i32 8\n"
    "  store double 1.0e-4, ptr %p8\n"
    "  %p9 = getelementptr %args, ptr %buf, i32 0, i32 9\n"
    "  store ptr @name, ptr %p9\n"
    "  %p10 = getelementptr %args, ptr %buf, i32 0, i32 10\n"
    "  store i32 65, ptr %p10\n"
    "  %p11 = getelementptr %args, ptr %buf, i32 0, i32 11\n"
    "  store i32 7, ptr %p11\n"
    "  %p12 = getelementptr %args, ptr %buf, i32 0, i32 12\n"
    "  store i32 8, ptr %p12\n"
    "  %p13 = getelementptr %args, ptr %buf, i32 0, i32 13\n"
    "  store double 2.375, ptr %p13\n"
    "  %p14 = getelementptr %args, ptr %buf, i32 0, i32 14\n"
    "  store i64 5, ptr %p14\n"
    "  %n = call i32 @vprintf(ptr @fmt, ptr %buf)\n"
    "  ret void\n"
    "}\n"
    "declare i32 @vprintf(ptr, ptr)\n";

/* say(0), one thread */
static const char t_printf_expected[] =
    "i32 -42 u32 4000000000 hx 2345 x ff lld -9000000000 llu 18000000000000000000 "
    "f 3.500000 e 1.235e+04 g 0.0001 s cuplug c A w     7|8   | % z 002.4 mlir 5 0\n";

#endif

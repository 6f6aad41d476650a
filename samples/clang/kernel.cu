/* kernel.cu - a CUDA C++ kernel, as a host JIT built on clang compiles
 * one: clang-22 makes LLVM IR of it for sm_90 with neither CUDA's headers
 * nor its libdevice (CMakeLists.txt), and the host (host.c) hands that IR
 * to cuplug as it is.  clang marks the kernel ptx_kernel, so cuplug reads
 * its parameters from the IR: no signature is given. */
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#include <__clang_cuda_builtin_vars.h> /* threadIdx, blockIdx, blockDim */

/* libdevice's sinf: cuplug links libdevice where the IR calls it. */
extern "C" __device__ float __nv_sinf(float x);

/* cuplug's built-in cuda.atomic.add on a CPointer(int32), under a name of
 * the host's: the host binds it to the symbol resolve_call gives. */
extern "C" __device__ int sample_atomic_add(int *address, int value);

/* y[i] = sin(x[i]); each i added into bin i % 16 of sums. */
extern "C" __global__ void sin_sums(const float *x, float *y, int *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] = __nv_sinf(x[i]);
  sample_atomic_add(&sums[i % 16], i);
}

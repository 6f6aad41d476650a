// A CUDA C++ function for kernels a host JIT compiles, under the Numba ABI:
// the result goes through *ret, the int return is a status (0: ok).
extern "C" __device__ int ext_clamp(float *ret, float v, float lo, float hi) {
  *ret = v < lo ? lo : (v > hi ? hi : v);
  return 0;
}

// A CUDA C++ function for kernels a host JIT compiles, under the C ABI:
// declared with declare_device(abi = C) as float32(float32, float32, float32).
extern "C" __device__ float ext_lerp(float a, float b, float t) {
  return a + t * (b - a);
}

"""numba_kernel.py - a numba-cuda kernel compiled, linked, loaded and
launched through cuplug.

numba-cuda types the Python function and lowers it to Numba-ABI NVVM IR;
cuplug.numba hands that IR to cuplug, which fixes the kernel up, runs
libNVVM and links it with the CUDA C++ function it calls (declared with
numba-cuda's cuda.declare_device, from samples/luajit/lerp.cu).  Then the
same kernel through numba-cuda itself, for the check: both results must be
equal, element for element.

    python3 numba_kernel.py        (needs numba-cuda 0.30 and a GPU; exit 77 without)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import cuplug.numba as cnumba

        cnumba._numba_cuda()  # numba-cuda, of a version cuplug supports
        from numba import cuda
    except ImportError as e:
        print("skipped:", e)
        return 77
    import cuplug

    if cuplug.info()["device_count"] == 0:
        print("no GPU, skipped")
        return 77
    import numpy as np

    ext_lerp = cuda.declare_device("ext_lerp", "float32(float32, float32, float32)", abi="c",
                                   link=[os.path.join(HERE, "..", "luajit", "lerp.cu")])

    def lerp_sqrt(out, a, b, t):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = ext_lerp(a[i], b[i], t) ** 0.5

    n = 4096
    a = cuda.to_device(np.arange(n, dtype=np.float32))
    b = cuda.to_device(np.full(n, 2.0 * n, dtype=np.float32))
    sig = "void(float32[::1], float32[::1], float32[::1], float32)"

    ours = cuda.device_array(n, dtype=np.float32)
    kernel = cnumba.jit(sig)(lerp_sqrt)  # the .cu comes with ext_lerp
    kernel[n // 256, 256](ours, a, b, 0.25)

    theirs = cuda.device_array(n, dtype=np.float32)
    cuda.jit(sig)(lerp_sqrt)[n // 256, 256](theirs, a, b, 0.25)

    got, want = ours.copy_to_host(), theirs.copy_to_host()
    assert np.array_equal(got, want), np.flatnonzero(got != want)[:10]
    print("lerp_sqrt through cuplug.numba on %d elements equals numba-cuda's, element for element"
          " (out[10] = %.6f)" % (n, got[10]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

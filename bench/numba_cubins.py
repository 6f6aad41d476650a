"""numba-cuda's own builds of the corpus kernels, for kernel_bench.

    python3 bench/numba_cubins.py tests/conformance/numba OUT_DIR

For each kernel case, compiles its Python source with numba-cuda for the
current device and writes OUT_DIR/<case>.cubin and OUT_DIR/<case>.name (the
kernel's symbol).  kernel_bench then runs numba-cuda's cubin and cuplug's
with the same arguments, through the same launcher.
"""
import json
import os
import re
import sys

import numpy as np


# numba-cuda may name NumPy functions that a newer NumPy has dropped (the
# GPU machine's numba-cuda 0.30.4 names np.row_stack, gone from NumPy 2.5)
# when it first compiles; give each missing name its stand-in.  numba only
# registers overloads for them: the kernels here use none.
for _old, _new in {"row_stack": "vstack", "trapz": "trapezoid", "in1d": "isin",
                   "product": "prod", "cumproduct": "cumprod", "alltrue": "all",
                   "sometrue": "any"}.items():
    if _old not in dir(np):
        setattr(np, _old, getattr(np, _new))

from numba import cuda, float32, int32  # noqa: E402,F401  (the sources use them)


def as_bytes(code):
    """numba-cuda returns the cubin as bytes, or (newer) as a cuda.core
    ObjectCode holding them."""
    for attr in ("code", "_module"):
        value = getattr(code, attr, None)
        if isinstance(value, (bytes, bytearray)):
            return bytes(value)
    return bytes(code)


def main(corpus, out):
    os.makedirs(out, exist_ok=True)
    cc = cuda.get_current_device().compute_capability
    for case in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, case, "case.json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            c = json.load(f)
        if c["kind"] != "kernel":
            continue
        source = c["source"].replace("@cuda.jit\n", "")
        scope = {"cuda": cuda, "float32": float32, "int32": int32}
        exec(source, scope)
        name = re.match(r"def (\w+)", source).group(1)
        kernel = cuda.jit(c["signature"])(scope[name])
        (overload,) = kernel.overloads.values()
        ptx = overload.library.get_asm_str(cc=cc)
        entry = re.search(r"\.entry\s+(\w+)\(", ptx).group(1)
        cubin = as_bytes(overload.library.get_cubin(cc=cc))
        with open(os.path.join(out, case + ".cubin"), "wb") as f:
            f.write(cubin)
        with open(os.path.join(out, case + ".name"), "w") as f:
            f.write(entry)
        print(f"{case}: numba-cuda {entry[:40]}... ({len(cubin)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

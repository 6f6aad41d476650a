"""Gives every conformance case inputs and numba-cuda's outputs for them.

Run on a machine with a GPU and numba-cuda 0.30 (the H200):

    python3 tests/conformance/make_values.py [tests/conformance/numba]

For each case folder it compiles the case's `source` with numba-cuda, runs
it on the GPU on inputs made from a fixed seed, and writes values.json
beside case.json (the format is cli/values.c's):

  * a device function is called from a numba-cuda kernel, one thread per
    set of arguments: {"calls": [{"args": [...], "result": ...}, ...]};
  * a kernel is launched as SPECS below says (sizes, grid, block, the
    arrays and scalars it takes): {"launches": [{"grid", "block", "args",
    "result"}]}, "result" holding every array argument after the launch.

`cuplug case DIR --run host` then runs the case on the CPU with the same
inputs and compares (`--run gpu`: cuplug's build, on the GPU);
tests/conformance/run_values.sh does it for every case.
A CPointer argument points at a row of its own (DEVICE_SPECS says how many
elements, and the other arguments' ranges); in values.json it is that row,
{"dtype", "data"}.  A case whose arguments this script cannot make is
reported and left without values.json.

    python3 tests/conformance/make_values.py [CASES_DIR] [CASE...]

makes only the cases named, when some are.
"""

import json
import math
import os
import re
import sys

import numpy as np

np.row_stack = np.vstack  # numba-cuda 0.30 still calls it; NumPy 2 removed it
from numba import cuda  # noqa: E402

SEED = 20261201
CALLS = 64

EDGES = {
    "bool": [False, True],
    "int8": [0, 1, -1, 127, -128],
    "int16": [0, 1, -1, 32767, -32768],
    "int32": [0, 1, -1, 2**31 - 1, -(2**31)],
    "int64": [0, 1, -1, 2**52, -(2**52)],
    "uint8": [0, 1, 255, 128],
    "uint16": [0, 1, 65535],
    "uint32": [0, 1, 2**32 - 1],
    "uint64": [0, 1, 2**52],
    "float32": [0.0, -0.0, 1.0, -1.5, 0.1, 1e-30, 1e30, 1e-45],
    "float64": [0.0, -0.0, 1.0, -1.5, 0.1, 1e-300, 1e150, 5e-324],
}


def scalar_values(ty, rng, n):
    """n values of a numba type name: the edge values first, then random."""
    edges = EDGES[ty]
    out = list(edges)
    while len(out) < n:
        if ty == "bool":
            out.append(bool(rng.integers(0, 2)))
        elif ty.startswith("int") or ty.startswith("uint"):
            info = np.iinfo(np.dtype(ty))
            lo, hi = max(int(info.min), -(2**52)), min(int(info.max), 2**52)
            out.append(int(rng.integers(lo, hi, endpoint=True)))
        else:
            v = float(rng.normal() * 10.0 ** rng.integers(-5, 6))
            out.append(float(np.dtype(ty).type(v)))
    return out[:n]


def to_json(v):
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, (np.complexfloating, complex)):
        return [float(v.real), float(v.imag)]
    f = float(v)
    if not math.isfinite(f):
        raise ValueError("a value that JSON cannot hold: %r" % f)
    return f


def function_name(source):
    return re.findall(r"^\s*def\s+(\w+)", source, re.M)[-1]


def load(case_dir, case):
    """The case's Python function (and its namespace), as numba-cuda sees it."""
    ns = {"cuda": cuda, "np": np, "math": math, "float32": np.float32, "float64": np.float64,
          "int32": np.int32, "int64": np.int64}
    from numba import float32, float64, int32, int64  # the names sources use

    ns.update(float32=float32, float64=float64, int32=int32, int64=int64)
    exec(compile(case["source"], os.path.join(case_dir, "case.json"), "exec"), ns)
    return ns[function_name(case["source"])], ns


ROW = 8  # the elements a CPointer argument points at


# Device functions whose arguments the edge values cannot be: a function of
# the generator giving each argument's column (a CPointer's: CALLS rows).
DEVICE_SPECS = {
    # dev_ptr(p, i) = p[i] * 2.0: i indexes p's row
    "dev_ptr_f32": lambda rng: [f32(rng, CALLS * ROW).reshape(CALLS, ROW),
                                rng.integers(0, ROW, CALLS).astype(np.int32)],
}


def pointer_of():
    """An intrinsic of numba-cuda's: the data pointer of an array (a row),
    the CPointer a device function takes."""
    try:
        from numba.cuda.extending import intrinsic
        from numba.cuda import types
    except ImportError:
        from numba.core.extending import intrinsic
        from numba.core import types

    @intrinsic
    def data_pointer(typingctx, arr):
        def codegen(context, builder, signature, args):
            return context.make_array(arr)(context, builder, args[0]).data
        return types.CPointer(arr.dtype)(arr), codegen

    return data_pointer


def device_values(case_dir, case, rng):
    fn, ns = load(case_dir, case)
    argtypes = case["argtypes"]
    name = os.path.basename(case_dir.rstrip("/"))
    pointer = [t.startswith("CPointer(") for t in argtypes]
    if name in DEVICE_SPECS:
        cols = DEVICE_SPECS[name](rng)
    elif any(not t.isidentifier() or t not in EDGES for t in argtypes):
        return None, "arguments of types this script cannot make: %s" % argtypes
    else:
        cols = [np.array(scalar_values(t, rng, CALLS), dtype=np.dtype(t)) for t in argtypes]
    dev = cuda.jit(device=True)(fn)
    ns["__dev"] = dev
    ns["__ptr"] = pointer_of()
    names = ["a%d" % i for i in range(len(argtypes))]
    src = (
        "def __caller(out, %s):\n"
        "    i = cuda.grid(1)\n"
        "    if i < out.size:\n"
        "        out[i] = __dev(%s)\n"
        % (", ".join(names),
           ", ".join(("__ptr(%s[i])" if p else "%s[i]") % n for n, p in zip(names, pointer)))
    )
    exec(src, ns)
    kernel = cuda.jit(ns["__caller"])
    args = [cuda.to_device(np.ascontiguousarray(c)) for c in cols]
    restype = case["restype"]
    out = cuda.device_array(CALLS, dtype=np.dtype("bool" if restype == "bool" else restype))
    kernel[(CALLS + 63) // 64, 64](out, *args)
    got = out.copy_to_host()

    def arg(c, p, i):
        if p:
            return {"dtype": str(c.dtype), "data": [to_json(v) for v in c[i].tolist()]}
        return to_json(c[i])

    calls = [{"args": [arg(c, p, i) for c, p in zip(cols, pointer)], "result": to_json(got[i])}
             for i in range(CALLS)]
    return {"calls": calls}, None


def f32(rng, n, scale=100.0):
    return (rng.normal(size=n) * scale).astype(np.float32)


# Kernels: (grid, block, a function of the generator giving the arguments).
SPECS = {
    "saxpy_kernel": ((40,), (128,), lambda rng: [np.zeros(5000, np.float32), f32(rng, 5000),
                                                 f32(rng, 5000), np.float32(2.5)]),
    # small integers as floats: any order of the atomic adds sums exactly
    "k_atomic": ((32,), (128,), lambda rng: [np.zeros(1, np.float32),
                                              np.array([0, -1], np.int32),
                                              rng.integers(0, 17, 4096).astype(np.float32)]),
    # one tree per block: the same additions in the same order on the host
    "k_reduce": ((41,), (256,), lambda rng: [np.zeros(41, np.float32),
                                              f32(rng, 256 * 40 + 77)]),
}


def kernel_values(case_dir, case, rng):
    name = os.path.basename(case_dir.rstrip("/"))
    if name not in SPECS:
        return None, "no launch spec in make_values.py's SPECS"
    fn, _ = load(case_dir, case)
    kernel = fn if hasattr(fn, "configure") or hasattr(fn, "__getitem__") else cuda.jit(fn)
    grid, block, make = SPECS[name]
    args = make(rng)
    dev = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel[grid, block](*dev)
    cuda.synchronize()

    def array(a):
        return {"dtype": str(a.dtype), "data": [to_json(v) for v in a.tolist()]}

    launch = {
        "grid": list(grid),
        "block": list(block),
        "args": [array(a) if isinstance(a, np.ndarray) else to_json(a) for a in args],
        "result": [array(d.copy_to_host()) if isinstance(a, np.ndarray) else None
                   for a, d in zip(args, dev)],
    }
    return {"launches": [launch]}, None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                           else os.path.join(os.path.dirname(__file__), "numba"))
    only = set(sys.argv[2:])
    from importlib.metadata import version

    device = cuda.get_current_device().name
    device = device.decode() if isinstance(device, bytes) else device
    made_by = "numba-cuda %s on %s (tests/conformance/make_values.py, seed %d)" % (
        version("numba-cuda"), device, SEED)
    status = 0
    for name in sorted(os.listdir(root)):
        case_dir = os.path.join(root, name)
        path = os.path.join(case_dir, "case.json")
        if not os.path.isfile(path) or (only and name not in only):
            continue
        with open(path) as f:
            case = json.load(f)
        rng = np.random.default_rng(SEED)
        here = os.getcwd()
        os.chdir(case_dir)  # declare_device's link= paths are the case's
        try:
            make = kernel_values if case["kind"] == "kernel" else device_values
            values, why = make(case_dir, case, rng)
        except Exception as e:  # report and go on: one case must not stop the rest
            values, why = None, "%s: %s" % (type(e).__name__, e)
            status = 1
        finally:
            os.chdir(here)
        if values is None:
            print("%s: no values: %s" % (name, why))
            continue
        values = dict(made_by=made_by, ulps=0, **values)
        with open(os.path.join(case_dir, "values.json"), "w") as f:
            json.dump(values, f, indent=1)
            f.write("\n")
        n = len(values.get("calls", values.get("launches", [])))
        print("%s: values.json (%d %s)" % (name, n, "calls" if "calls" in values else "launches"))
    return status


if __name__ == "__main__":
    sys.exit(main())

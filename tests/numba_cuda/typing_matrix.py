"""resolve_call against numba-cuda's own typing, call for call.

For every built-in key of cuplug's registry (and every math function
numba-cuda types), each call of the matrix below is typed by numba-cuda
0.30's typing context (numba.cuda.descriptor.cuda_target.typing_context,
cuda.* through attribute look-ups on the cuda module, as a kernel's typing
does) and by cuplug.resolve_call; the two answers must agree: the same
signature, or both no answer.

  * unary keys: each of the 14 scalar types;
  * binary keys: every pair of them; ternary (fma, hfma): every triple;
  * no-argument keys and attributes (cuda.threadIdx.x): the one call;
  * cuda.atomic.*: a 1-d C array of each scalar type, each index type
    (int32, int64, uint64) and each value type; cas with the value twice;
  * warp functions: each mask type (int32, uint32, int64) with each value
    type and each lane type.

Differences cuplug documents as extensions (EXTENSIONS) are listed apart
and allowed; any other difference fails the run (exit 1).

    python3 typing_matrix.py [--strict] [--out FILE]

Exit 77 (skipped) without numba-cuda."""
import argparse
import itertools
import math
import sys

import cuplug

SCALARS = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "float16", "float32", "float64", "complex64", "complex128"]
MASKS = ["int32", "uint32", "int64"]
INDICES = ["int32", "int64", "uint64"]

# What cuplug offers beyond numba-cuda 0.30, documented in the README and
# marked in `cuplug list`: (key, predicate on the argument type names).
EXTENSIONS = [
    ("cuda.atomic.exch", lambda args: args[0] in ("array(float32, 1d, C)",
                                                  "array(float64, 1d, C)")),
    ("cuda.clock64", lambda args: True),
    ("cuda.globaltimer", lambda args: True),
]


def is_extension(key, args):
    return any(k == key and pred(args) for k, pred in EXTENSIONS)


def numba_side():
    import numpy as np
    if not hasattr(np, "row_stack"):  # numpy 2.5 dropped it; numba-cuda 0.30 uses it
        np.row_stack = np.vstack
    from numba import cuda
    from numba.cuda import types
    from numba.cuda.descriptor import cuda_target
    ctx = cuda_target.typing_context
    ctx.refresh()
    return cuda, types, ctx


def numba_type(types, name):
    if name.startswith("array("):
        dtype = name[len("array("):].split(",")[0]
        return types.Array(getattr(types, "boolean" if dtype == "bool" else dtype), 1, "C")
    return getattr(types, "boolean" if name == "bool" else name)


def cuplug_name(t):
    """A numba type as cuplug names it ("array(float32, 1d, C)" is
    "float32[::1]"), or as numba writes it where cuplug has no name for it."""
    s = str(t)
    if s == "none":
        return "void"
    try:
        return cuplug.typeof(s).name
    except cuplug.CuplugError:
        return s


def numba_resolve(ctx, cuda, types, key, args):
    """numba-cuda's answer: "R(A, ...)" or None; for an attribute, "R()"."""
    parts = key.split(".")
    try:
        if parts[0] == "math":
            fnty = ctx.resolve_value_type(getattr(math, parts[1]))
        else:
            fnty = ctx.resolve_value_type(cuda)
            for p in parts[1:]:
                fnty = ctx.resolve_getattr(fnty, p)
                if fnty is None:
                    return None
        if not isinstance(fnty, (types.Function, types.BoundFunction, types.Dispatcher)):
            return "%s()" % cuplug_name(fnty) if not args else None  # an attribute
        sig = ctx.resolve_function_type(fnty, tuple(numba_type(types, a) for a in args), {})
    except Exception:  # numba's typing errors, of several classes: no answer
        return None
    if sig is None:
        return None
    return "%s(%s)" % (cuplug_name(sig.return_type), ", ".join(cuplug_name(a) for a in sig.args))


def cuplug_resolve(registry, key, args, strict):
    try:
        r = registry.resolve(key, tuple(cuplug.typeof(a) for a in args), strict)
    except cuplug.CuplugError:
        return None
    return r[0].name


def calls(key, arity):
    """The argument type lists the matrix tries for a key of `arity` arguments."""
    if key.startswith("cuda.atomic."):
        if key == "cuda.atomic.compare_and_swap":
            return [["array(%s, 1d, C)" % d, v, v] for d in SCALARS for v in SCALARS]
        if key == "cuda.atomic.cas":
            return [["array(%s, 1d, C)" % d, i, v, v] for d in SCALARS for i in INDICES
                    for v in SCALARS]
        return [["array(%s, 1d, C)" % d, i, v] for d in SCALARS for i in INDICES
                for v in SCALARS]
    if key.endswith("_sync") and key != "cuda.match_any_sync":
        if arity == 3:
            return [[m, v, l] for m in MASKS for v in SCALARS for l in MASKS]
        return [[m, v] for m in MASKS for v in SCALARS]
    return [list(c) for c in itertools.product(SCALARS, repeat=arity)]


SKIP = {"cuda.grid", "cuda.gridsize", "cuda.local.array", "cuda.shared.array"}  # literal arguments


def keys_and_arities(registry):
    keys = {}
    for key, sig, desc, sym, builtin in registry.list():
        if not builtin or key in SKIP:
            continue
        if sig is not None:
            keys.setdefault(key, set()).add(len(sig.args))
        else:
            keys.setdefault(key, set())
    for key in keys:
        if not keys[key]:  # generic: the arity of its numba-cuda counterpart's calls
            keys[key] = {4 if key == "cuda.atomic.cas" else
                         3 if key.startswith(("cuda.shfl", "cuda.atomic.")) else
                         2 if key.endswith("_sync") else 1}
    return keys


def numba_math_keys():
    from numba.cuda import cudamath
    out = set()
    for fn, _ in cudamath.registry.globals:
        if getattr(fn, "__module__", None) == "math":
            out.add("math." + fn.__name__)
    return out


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--strict", action="store_true")
    p.add_argument("--out")
    o = p.parse_args(argv)
    try:
        cuda, types, ctx = numba_side()
    except ImportError as e:
        print("skipped: numba-cuda is not installed (%s)" % e)
        return 77
    from numba.cuda import utils
    with utils.numba_target_override():  # type as a kernel is typed: for the CUDA target
        return run(o, cuda, types, ctx)


def run(o, cuda, types, ctx):
    registry = cuplug.Registry()
    keys = keys_and_arities(registry)
    missing = sorted(numba_math_keys() - set(keys))
    agree = total = 0
    differ, extensions = [], []
    for key in sorted(keys):
        for arity in sorted(keys[key]):
            for args in calls(key, arity):
                total += 1
                theirs = numba_resolve(ctx, cuda, types, key, args)
                ours = cuplug_resolve(registry, key, args, o.strict)
                if theirs == ours:
                    agree += 1
                elif is_extension(key, args):
                    extensions.append((key, args, theirs, ours))
                else:
                    differ.append((key, args, theirs, ours))
    lines = ["%d calls: %d agree, %d differ, %d are documented extensions%s" % (
        total, agree, len(differ), len(extensions), " (strict)" if o.strict else "")]
    for m in missing:
        lines.append("  numba-cuda types %s; cuplug has no such key" % m)
    for key, args, theirs, ours in differ:
        lines.append("  %s(%s): numba-cuda %s, cuplug %s" % (key, ", ".join(args), theirs, ours))
    for key, args, theirs, ours in extensions[:5]:
        lines.append("  extension %s(%s): numba-cuda %s, cuplug %s" %
                     (key, ", ".join(args), theirs, ours))
    text = "\n".join(lines)
    print(text if len(text) < 20000 else text[:20000] + "\n...")
    if o.out:
        with open(o.out, "w") as f:
            f.write(text + "\n")
    return 0 if (o.strict or (not differ and not missing)) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Random arguments of every kind at the module's entry points: each call
returns or raises a Python exception; the interpreter never crashes (a
crash fails the whole run) and the plugin never answers nonsense.  The
seed is fixed, so that a failure repeats; CUPLUG_FUZZ_SEED and
CUPLUG_FUZZ_CALLS vary it."""
import os
import random

import pytest

import cuplug
import kernels

SEED = int(os.environ.get("CUPLUG_FUZZ_SEED", "1234"))
CALLS = int(os.environ.get("CUPLUG_FUZZ_CALLS", "400"))


class Odd:
    """An object that lies about itself."""

    def __init__(self, rng):
        self.rng = rng

    def __len__(self):
        return self.rng.choice([-1, 0, 3, 1 << 62])

    def __index__(self):
        raise ValueError("no index")

    def __iter__(self):
        return iter([self.rng.random()])

    def __str__(self):
        raise RuntimeError("no str")


def junk(rng, depth=0):
    """A random Python value: numbers at their edges, text and bytes with
    NULs, containers of junk, liars."""
    kinds = ["int", "big", "float", "str", "bytes", "none", "bool", "tuple", "list", "dict",
             "odd", "type", "cc"]
    k = rng.choice(kinds if depth < 2 else kinds[:7])
    if k == "int":
        return rng.choice([0, -1, 1, 2, 3, 9, 90, 255, 2 ** 31 - 1, -2 ** 31])
    if k == "big":
        return rng.choice([2 ** 64, -2 ** 63 - 1, 10 ** 30])
    if k == "float":
        return rng.choice([0.0, -0.0, 1.5, float("nan"), float("inf"), 1e308])
    if k == "str":
        return rng.choice(["", "int32", "float32(float32)", "void(float32[::1])", "a\x00b",
                           "int32[", "CPointer(" * 70, "é", "ptx", "ltoir", "cubin", "c",
                           "numba", "math.sin", "cuda.atomic.add", "x" * 5000])
    if k == "bytes":
        return bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
    if k == "none":
        return None
    if k == "bool":
        return rng.random() < 0.5
    if k == "tuple":
        return tuple(junk(rng, depth + 1) for _ in range(rng.randrange(5)))
    if k == "list":
        return [junk(rng, depth + 1) for _ in range(rng.randrange(5))]
    if k == "dict":
        return {junk(rng, 2): junk(rng, depth + 1) for _ in range(rng.randrange(3))
                if not isinstance(junk(rng, 2), (list, dict))}
    if k == "odd":
        return Odd(rng)
    if k == "type":
        return rng.choice([cuplug.typeof("int32"), cuplug.typeof("float32[::1]"),
                           cuplug.literal(3), int, object()])
    return (rng.randrange(-2, 12), rng.randrange(-2, 12), rng.choice(["", "a", "f", "x", 3]))


def call(fn, *args, **kw):
    """The call's result, or None when it raised an Exception (any other
    BaseException, or a crash, fails the test)."""
    try:
        return fn(*args, **kw)
    except Exception:
        return None


def test_compile_and_types_take_any_junk():
    rng = random.Random(SEED)
    ir = kernels.axpy5_ir()
    for _ in range(CALLS):
        call(cuplug.typeof, junk(rng))
        call(cuplug.literal, junk(rng))
        kw = {name: junk(rng) for name in rng.sample(
            ["entry_abi", "device", "abi", "abi_info", "output", "cc", "opt", "debug", "lineinfo",
             "fastmath", "forceinline", "launch_bounds", "link", "max_registers",
             "time_limit_ms"], rng.randrange(4))}
        code = call(cuplug.compile, rng.choice([ir, junk(rng)]),
                    rng.choice([kernels.AXPY5_SIG, junk(rng)]),
                    entry=rng.choice(["axpy5", junk(rng)]), **kw)
        if code is not None:  # whatever compiled is PTX, LTO-IR or a cubin
            data, _ = code
            assert isinstance(data, (str, bytes)) and len(data) > 0


def test_registry_session_and_link_take_any_junk():
    rng = random.Random(SEED + 1)
    for _ in range(CALLS):
        reg = cuplug.Registry()
        call(reg.resolve, junk(rng), junk(rng), junk(rng))
        call(cuplug.resolve_call, rng.choice(["math.sin", junk(rng)]),
             [junk(rng) for _ in range(rng.randrange(3))], registry=reg)
        call(cuplug.register_typing, junk(rng), junk(rng), registry=reg)
        call(cuplug.declare_device, junk(rng), junk(rng), link=junk(rng), abi=junk(rng),
             registry=reg)
        call(cuplug.Session, cuda_home=rng.choice([None, junk(rng)]),
             default_cc=junk(rng), trusted=junk(rng))
        call(cuplug.link, [junk(rng) for _ in range(rng.randrange(3))], cc=junk(rng),
             time_limit_ms=2000)


@pytest.mark.gpu
def test_launch_takes_any_junk():
    """Arguments, grids, streams and array interfaces that lie."""
    rng = random.Random(SEED + 2)
    cubin, _ = cuplug.compile(kernels.axpy5_ir(), kernels.AXPY5_SIG, entry="axpy5",
                              entry_abi="c", device=False, output="cubin",
                              cc=tuple(cuplug.info()["device_cc"]))
    module = cuplug.load(cubin)
    kernel = module.get_kernel("axpy5", kernels.AXPY5_SIG)

    class Interface:
        def __init__(self, cai):
            self.__cuda_array_interface__ = cai

    class Dlpack:
        def __init__(self, answer):
            self.answer = answer

        def __dlpack__(self, stream=None):
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer

        def __dlpack_device__(self):
            return (2, 0)

    def array_like():
        cai = {k: junk(rng) for k in rng.sample(
            ["shape", "typestr", "data", "strides", "stream", "version"], rng.randrange(7))}
        if rng.random() < 0.5:  # plausible, with one field wrong
            cai = {"shape": (rng.choice([0, 1, -1, 1 << 40]),), "typestr": "<f4",
                   "data": (rng.choice([0, 1, 1 << 63]), False), "version": 3,
                   "strides": rng.choice([None, (4,), (-4,), (0,), "x"])}
        return rng.choice([Interface(cai), Dlpack(junk(rng)), Dlpack(RuntimeError("no")),
                           junk(rng)])

    for _ in range(CALLS):
        config = [junk(rng) for _ in range(rng.randrange(1, 6))]
        # a stream given as an int is a handle the driver trusts, as in C:
        # only the default streams (0, 1, 2) are fed
        if len(config) > 2 and isinstance(config[2], int) and config[2] not in (0, 1, 2):
            config[2] = None
        launcher = call(kernel.__getitem__, tuple(config))
        # n, the last argument, is never positive or not an int32: a launch
        # that gets through touches no memory
        args = [array_like(), array_like(), array_like(), junk(rng),
                rng.choice([0, -5, "x", None, 1.5, 2 ** 40, junk(rng)])]
        if isinstance(args[4], int) and 0 < args[4] < 2 ** 31:
            args[4] = 0
        if launcher is not None:
            call(launcher, *args[:rng.randrange(6)])
    cuplug.default_session().synchronize()  # the context survived all of it
    module.close()

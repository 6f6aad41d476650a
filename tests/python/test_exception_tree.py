"""One exception tree: every error the package raises is a CuplugError,
also the TypeError or ValueError Python code catches.  A wrong argument
count, dtype, dimension, grid, keyword or argument type once came out as
Python's bare TypeError or ValueError (in CPython's words: "compile()
argument 2 must be str"), abi_info="x" as an AttributeError."""
import random

import numpy as np
import pytest

import cuplug
import kernels
from conftest import load_case
from test_fuzz_args import junk


def host_module(name, device=True):
    case, ir = load_case(name)
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"], device=device,
                            abi_info={"abi_name": case.get("abi_name")}, output="host")
    return cuplug.load(art)


def raises(cls, name, message, fn, *args, **kw):
    with pytest.raises(cls) as e:
        fn(*args, **kw)
    assert type(e.value) is cls
    assert (e.value.name, e.value.message) == (name, message)
    assert str(e.value) == "%s: %s" % (name, message)
    return e.value


ARG = "CUPLUG_ERR_INVALID_ARGUMENT"


def test_compile_arguments():
    case, ir = load_case("add_i32")
    sig, entry = case["signature"], case["entry"]
    raises(cuplug.ArgumentTypeError, ARG,
           "entry must be a str (the entry's symbol in the IR), not NoneType",
           cuplug.compile, ir, sig, entry=None)
    raises(cuplug.ArgumentTypeError, ARG,
           "abi_info must be a dict such as {'abi_name': 'add'}, or None, not str",
           cuplug.compile, ir, sig, entry=entry, abi_info="x")
    raises(cuplug.ArgumentTypeError, ARG, "abi_info['abi_name'] must be a str, not int",
           cuplug.compile, ir, sig, entry=entry, abi_info={"abi_name": 3})
    raises(cuplug.ArgumentTypeError, ARG, "compile() got an unexpected keyword argument 'optimise'",
           cuplug.compile, ir, sig, entry=entry, optimise=True)
    raises(cuplug.ArgumentTypeError, ARG,
           "opt must be True, False, None or a level 0 to 3, not str",
           cuplug.compile, ir, sig, entry=entry, opt="3")
    raises(cuplug.ArgumentTypeError, ARG,
           "link must be a list of code: paths, bytes, (name, bytes) or Artifacts, not int",
           cuplug.compile, ir, sig, entry=entry, link=5)
    raises(cuplug.ArgumentError, ARG, "ir: give at least one module", cuplug.compile, [], sig,
           entry=entry)


def test_the_extensions_own_calls():
    """Session, Registry and the module's functions, called directly."""
    case, ir = load_case("add_i32")
    s = cuplug.Session(cache=False)
    raises(cuplug.ArgumentTypeError, ARG,
           "entry must be a str (the entry's symbol in the IR), not NoneType",
           s.compile, ir, None, case["signature"])
    raises(cuplug.ArgumentError, ARG, "entry 'a\\x00b' holds a NUL character",
           s.compile, ir, "a\x00b", case["signature"])
    raises(cuplug.ArgumentTypeError, ARG, "'home' is an invalid keyword argument for Session()",
           cuplug.Session, home="/")
    raises(cuplug.ArgumentTypeError, ARG,
           "argtypes must be a sequence of types, such as ['float32'], not str",
           s.registry.resolve, "math.sin", "float32")
    raises(cuplug.ArgumentTypeError, ARG,
           "the type must be a type name such as 'float32[::1]', or a cuplug.Type, not int",
           cuplug.typeof, 5)
    raises(cuplug.ArgumentError, ARG, "the literal must be -9223372036854775808 to "
           "9223372036854775807 (int64), not 1180591620717411303424", cuplug.literal, 2 ** 70)
    raises(cuplug.ArgumentTypeError, ARG, "the literal must be an int, not float",
           cuplug.literal, 2.0)
    raises(cuplug.ArgumentTypeError, ARG,
           "what to load must be a cuplug.Artifact or the bytes of a cubin, not int",
           s.load, 5)


def test_calls_and_launches_on_the_cpu():
    """Counts, dtypes and dimensions: LaunchArgumentError; grids: a
    LaunchArgumentError for their type, LaunchConfigError for their value."""
    LAUNCH, CONFIG = "CUPLUG_ERR_LAUNCH_ARGS", "CUPLUG_ERR_LAUNCH_CONFIG"
    m = host_module("add_i32")
    raises(cuplug.LaunchArgumentError, LAUNCH,
           "function (the compiled one) takes 2 arguments, got 3", m.call, 1, 2, 3)
    raises(cuplug.LaunchArgumentError, LAUNCH,
           "function (the compiled one), argument 1 (int32): expected an integer, got str",
           m.call, 1, "2")
    raises(cuplug.ArgumentTypeError, ARG,
           "Module.call() got an unexpected keyword argument 'nme'",
           m.call, 1, 2, nme="add_i32")
    k = host_module("saxpy_kernel", device=False).get_kernel()
    x = np.zeros(4, dtype=np.float32)
    e = raises(cuplug.LaunchArgumentError, LAUNCH,
               "kernel __main__::saxpy takes 4 arguments, got 2", k[1, 4], x, x)
    assert e.symbol == k.name and len(k.name) > 200
    raises(cuplug.LaunchArgumentError, LAUNCH,
           "kernel __main__::saxpy, argument 1 (float32[::1]): got an array of float64 with 1 "
           "dimensions", k[1, 4], x, np.zeros(4), x, 1.0)
    raises(cuplug.LaunchArgumentError, LAUNCH,
           "kernel __main__::saxpy, argument 2 (float32[::1]): got an array of float32 with 2 "
           "dimensions", k[1, 4], x, x, np.zeros((2, 2), dtype=np.float32), 1.0)
    raises(cuplug.LaunchConfigError, CONFIG, "grid has a dimension of 0", k.__getitem__, (0, 4))
    raises(cuplug.LaunchConfigError, CONFIG, "block must be 0 to 4294967295, not -1",
           k.__getitem__, (1, -1))
    raises(cuplug.LaunchArgumentError, LAUNCH, "grid must be an int or a tuple of 1 to 3 ints",
           k.__getitem__, ((1, 1, 1, 1), 4))
    raises(cuplug.LaunchArgumentError, LAUNCH, "block must be an int or a tuple of 1 to 3 ints",
           k.__getitem__, (1, 4.0))


def test_a_callers_own_exception_stays_its_own():
    """An exception that the caller's code raised keeps its class and its
    traceback, in the package's Python calls and in the extension's."""

    class Liar:
        def __bool__(self):
            raise ValueError("mine")

    case, ir = load_case("add_i32")
    calls = (lambda: cuplug.compile(ir, case["signature"], entry=case["entry"], debug=Liar()),
             lambda: cuplug.default_session().compile(ir, case["entry"], case["signature"],
                                                      debug=Liar()))
    for call in calls:
        with pytest.raises(ValueError) as e:
            call()
        assert type(e.value) is ValueError and str(e.value) == "mine"
        assert e.traceback[-1].name == "__bool__"
    with pytest.raises(ValueError) as e:
        cuplug.Session(trusted=Liar())
    assert type(e.value) is ValueError and str(e.value) == "mine"


def test_junk_raises_only_cuplug_errors():
    """Random junk at compile, the registry, sessions and link: whatever
    is refused is refused with a CuplugError (or the junk's own exception,
    raised by its own code)."""
    rng = random.Random(19)
    ir = kernels.axpy5_ir()
    others = []

    def call(fn, *args, **kw):
        try:
            fn(*args, **kw)
        except cuplug.CuplugError:
            pass
        except Exception as e:  # the junk's own: Odd's __index__ and __str__
            if str(e) not in ("no index", "no str"):
                others.append((fn.__name__, type(e).__name__, str(e)))

    for _ in range(300):
        kw = {name: junk(rng) for name in rng.sample(
            ["entry_abi", "device", "abi", "abi_info", "output", "cc", "opt", "debug", "lineinfo",
             "fastmath", "forceinline", "launch_bounds", "link", "max_registers",
             "time_limit_ms"], rng.randrange(4))}
        call(cuplug.compile, rng.choice([ir, junk(rng)]),
             rng.choice([kernels.AXPY5_SIG, junk(rng)]), entry=rng.choice(["axpy5", junk(rng)]),
             **kw)
        call(cuplug.typeof, junk(rng))
        call(cuplug.literal, junk(rng))
        reg = cuplug.Registry()
        call(reg.resolve, junk(rng), junk(rng), junk(rng))
        call(cuplug.resolve_call, rng.choice(["math.sin", junk(rng)]), junk(rng), registry=reg)
        call(cuplug.register_typing, junk(rng), junk(rng), registry=reg)
        call(cuplug.declare_device, junk(rng), junk(rng), link=junk(rng), abi=junk(rng),
             registry=reg)
        call(cuplug.Session, cuda_home=rng.choice([None, junk(rng)]), default_cc=junk(rng),
             time_limit_ms=junk(rng), cache_max_bytes=junk(rng))
        call(cuplug.link, junk(rng), cc=junk(rng), time_limit_ms=2000)
    assert others == []

"""Only the module makes its Types, Artifacts, Libraries, Kernels and
Launchers, each around the plugin's handle: Python cannot make an empty
one (whose first use would crash the interpreter), not by calling the
class, not through object.__new__, not by copying or unpickling one.
Everything the module makes works, method by method."""
import numpy as np
import pytest

import cuplug
from conftest import load_case, run_python

MAKE_EACH = """
import copy, pickle
import cuplug
from conftest import load_case

case, ir = load_case("saxpy_kernel")
art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"], device=False, output="host")
library = cuplug.default_session().load(art)
kernel = library.get_kernel()
for obj in (cuplug.typeof("int32"), art, library, kernel, kernel[1, 1]):
    T = type(obj)
    for make in (lambda: T(), lambda: T.__new__(T), lambda: object.__new__(T),
                 lambda: copy.copy(obj), lambda: copy.deepcopy(obj),
                 lambda: pickle.loads(pickle.dumps(obj, 0))):
        try:
            made = make()
        except Exception as e:
            print(type(e).__name__, e)
        else:
            print("made", repr(made))
"""


def test_python_cannot_make_them():
    p = run_python(MAKE_EACH)
    assert (p.returncode, p.stderr) == (0, "")
    want = []
    for name in ("Type", "Artifact", "Library", "Kernel", "Launcher"):
        unsafe = "TypeError object.__new__(cuplug.%s) is not safe, use cuplug.%s.__new__()" % (
            name, name)
        want += ["TypeError cannot create 'cuplug.%s' instances" % name, unsafe, unsafe,
                 "TypeError cannot pickle 'cuplug.%s' object" % name,
                 "TypeError cannot pickle 'cuplug.%s' object" % name, unsafe]
    # not in the module's namespace: pickle cannot name it, let alone make one
    want[-1] = ("PicklingError Can't pickle <class 'cuplug.Launcher'>: attribute lookup "
                "Launcher on cuplug failed")
    assert p.stdout.splitlines() == want


def test_the_rest_are_made_whole():
    """Session and Registry are made by calling them: a copy is a new one."""
    for obj in (cuplug.Session(cache=False), cuplug.Registry()):
        assert type(type(obj)()) is type(obj)


def host_library(name, device=True):
    case, ir = load_case(name)
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"], device=device,
                            abi_info={"abi_name": case.get("abi_name")}, output="host")
    return cuplug.default_session().load(art)


def public(cls):
    return sorted(n for n in dir(cls) if not n.startswith("_"))


def test_library_methods():
    assert public(cuplug.Library) == ["address", "call", "close", "get_kernel"]
    lib = host_library("add_i32")
    assert lib.call(40, 2) == 42
    assert lib.call(40, 2, name="add_i32", signature="int64(int32, int32)") == 42
    assert isinstance(lib.address(), int) and lib.address() == lib.address("add_i32") != 0
    with pytest.raises(cuplug.ArgumentError) as e:
        lib.get_kernel()
    assert e.value.message == ("kernel_get: give the kernel's name (the library was not loaded "
                               "from an artifact that holds a kernel)")
    assert lib.close() is None
    assert lib.close() is None  # twice is fine
    for method, args in ((lib.call, (1, 2)), (lib.address, ()), (lib.get_kernel, ())):
        with pytest.raises(cuplug.ArgumentError) as e:
            method(*args)
        assert e.value.message == "the module is closed"


def test_kernel_and_launcher_methods():
    lib = host_library("saxpy_kernel", device=False)
    k = lib.get_kernel()
    launcher = k[1, 4]
    assert type(launcher).__name__ == "Launcher" and public(type(launcher)) == []
    x = np.arange(4, dtype=np.float32)
    y = np.full(4, 0.5, dtype=np.float32)
    r = np.zeros(4, dtype=np.float32)
    assert launcher(r, x, y, 2.0) is None
    assert r.tolist() == [0.5, 2.5, 4.5, 6.5]
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        launcher(r, x, y, 2.0, keyword=1)
    assert e.value.message == "a launch takes no keywords"
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[1]
    assert e.value.message == "kernel[grid, block, stream, shared_mem]: give 2 to 4 values"
    lib.close()
    with pytest.raises(cuplug.ArgumentError) as e:
        launcher(r, x, y, 2.0)
    assert e.value.message == "kernel __main__::saxpy: its module is closed"
    assert e.value.symbol == k.name


def test_session_and_registry_methods():
    assert public(cuplug.Session) == [
        "cache_clear", "cache_info", "compile", "link", "load", "mem_alloc", "mem_free",
        "registry", "synchronize", "to_device", "to_host"]
    assert public(cuplug.Registry) == [
        "const_array", "declare_device", "list", "register_lowering", "register_template",
        "resolve"]
    s = cuplug.Session(cache=False)
    assert type(s.registry) is cuplug.Registry and s.registry is s.registry
    assert s.cache_info()["status"] == "off" and s.cache_clear() is None
    reg = s.registry
    assert reg.declare_device("ext_f", "int32(int32)", "c") is None
    assert reg.register_template("t.g", "float32(float32)") is None
    assert reg.register_lowering("t.g", 1, "float32(float32)", "t_g",
                                 "define float @t_g(float %x) {\n  ret float %x\n}\n") is None
    assert reg.resolve("t.g", ["float32"])[:3] == (cuplug.typeof("float32(float32)"), "t_g", "c")
    assert [row[0] for row in reg.list("t.")] == ["t.g"]
    sig, symbol, abi, _ = reg.const_array("int32", (2,), b"\x01\x00\x00\x00\x02\x00\x00\x00")
    assert (str(sig), abi) == ("int32[::1]()", "c") and symbol.startswith("__cuplug_")

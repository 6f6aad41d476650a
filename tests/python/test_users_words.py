"""Messages in the caller's words: the value the caller gave, not the number
it became ("Unsupported ABI: 99"), every choice, a str taken for what it
is (not a sequence of one-character modules or types), numba's mangled
names short (the whole name in .symbol), and warnings at the caller's line."""
import os
import warnings

import pytest

import cuplug
from conftest import load_case


def test_abi_is_named_as_given():
    case, ir = load_case("add_i32")
    for kw, message in (({"abi": "cpp"}, "Unsupported ABI: cpp (numba or c)"),
                        ({"entry_abi": "cpp"}, "Unsupported entry ABI: cpp (numba or c)")):
        with pytest.raises(cuplug.OptionError) as e:
            cuplug.compile(ir, case["signature"], entry=case["entry"], **kw)
        assert (e.value.name, e.value.message) == ("CUPLUG_ERR_OPTION_ABI", message)
    for call in (lambda: cuplug.declare_device("f", "int32()", abi="C", session=cuplug.Session()),
                 lambda: cuplug.register_lowering("t.f", "int32()", ir="x", symbol="f",
                                                  abi="python", registry=cuplug.Registry())):
        with pytest.raises(cuplug.OptionError) as e:
            call()
        assert e.value.message in ("Unsupported ABI: C (numba or c)",
                                   "Unsupported ABI: python (numba or c)")


def test_outputs_are_listed():
    case, ir = load_case("add_i32")
    with pytest.raises(cuplug.OptionError) as e:
        cuplug.compile(ir, case["signature"], entry=case["entry"], output="elf")
    assert (e.value.name, e.value.message) == ("CUPLUG_ERR_OPTION_OUTPUT",
                                               "Unsupported output type: elf (ptx, ltoir, cubin "
                                               "or host)")
    with pytest.raises(cuplug.OptionError) as e:  # "Unsupported output type: 4" once
        cuplug.compile_all(ir, case["signature"], entry=case["entry"], output="host")
    assert e.value.message == "Unsupported output type: host (ptx or ltoir)"


def test_session_compile_takes_ir_text(case):
    """A str (or bytes) is one module: it once made a module per character
    ("IR module module1 is empty")."""
    c, ir = case("add_i32")
    s = cuplug.Session(cache=False)
    for modules in (ir, ir.encode(), [ir], [("add", ir)]):
        art = s.compile(modules, c["entry"], c["signature"], abi_name="add_i32")
        assert ".visible .func  (.param .b64 func_retval0) add_i32(" in art.data


def test_resolve_call_takes_a_str():
    """One type, or several with commas; it once resolved math.sin('f',
    'l', 'o', ...) and complained of type 'f'."""
    assert cuplug.resolve_call("math.sin", "float32").signature == "float32(float32)"
    assert cuplug.resolve_call("math.sin", cuplug.typeof("float64")).signature == \
        "float64(float64)"
    r = cuplug.resolve_call("math.pow", "float32, int32")
    assert (r.signature, r.conversions) == ("float32(float32, int32)", ("exact", "exact"))
    reg = cuplug.Registry()
    cuplug.register_typing("t.pair", ["int32(UniTuple(int32 x 2), float32[:, ::1])"],
                           registry=reg)
    cuplug.register_lowering("t.pair", callable=lambda *a: "", registry=reg)
    r = cuplug.resolve_call("t.pair", " UniTuple(int32 x 2) , float32[:, ::1] ", registry=reg)
    assert r.signature == "int32(UniTuple(int32 x 2), float32[:, ::1])"
    assert cuplug.resolve_call("cuda.syncthreads", "").signature == "void()"


def test_mangled_names_are_short():
    case, ir = load_case("add_i32")
    entry = case["entry"]
    with pytest.raises(cuplug.IRError) as e:
        cuplug.compile(ir, case["signature"], entry=entry + "x", abi_info={"abi_name": "a"})
    # alike but for their arguments: those tell them apart
    assert e.value.message == ("entry @__main__::add_i32(int, int, long long) is not defined in "
                               "the 1 module(s) given; they define @__main__::add_i32(int, int)")
    assert e.value.symbol == entry + "x"
    with pytest.raises(cuplug.IRError) as e:
        cuplug.compile(ir, case["signature"], entry="add", abi_info={"abi_name": "a"})
    assert e.value.message == ("entry @add is not defined in the 1 module(s) given; they define "
                               "@__main__::add_i32")
    assert e.value.symbol == entry


def test_short_names_by_rule():
    """What the package makes of names: numba's (with ABI tags) short, not
    other C++ names, and never two names alike."""
    from cuplug._names import shorten
    k = ("_ZN8__main__5saxpyB3v19B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJtQYkOIgxJU0gCqO"
         "kEJoHkbttqdSBL3UrBuFYTAA_3d_3dE5ArrayIfLi1E1C7mutable7alignedEf")
    assert shorten("kernel %s: no" % k) == ("kernel __main__::saxpy: no", k)
    assert shorten("call @_Z5clampfff") == ("call @_Z5clampfff", None)
    assert shorten("no names") == ("no names", None)
    same = "%s and %s" % (k, k[:-1] + "d")  # arguments past the builtins: alike to the end
    assert shorten(same) == (same, k)


def test_warning_points_at_the_callers_line():
    """CuplugWarning once pointed at cuplug/__init__.py:317."""
    case, ir = load_case("add_i32")
    s = cuplug.Session(cache=False)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        line = 1 + __import__("inspect").currentframe().f_lineno
        cuplug.compile(ir, case["signature"], entry=case["entry"], debug=True, session=s)
        s.compile(ir, case["entry"], case["signature"], debug=True, abi_name="a")
    assert [(type(x.message), os.path.abspath(x.filename), x.lineno) for x in w] == [
        (cuplug.CuplugWarning, os.path.abspath(__file__), line),
        (cuplug.CuplugWarning, os.path.abspath(__file__), line + 1)]
    assert w[0].message.name == "CUPLUG_WARN_DEBUG_WITH_OPT"

"""Compiling through cuplug's Python module, with numba-cuda's names and
defaults, and every bad input a Python caller can give."""
import os
import re
import warnings

import pytest

import cuplug
from conftest import CORPUS


def func_line(ptx, name):
    """The PTX declaration of a function: ".visible .func ... name(".""" 
    for line in ptx.splitlines():
        if (".func" in line or ".entry" in line) and name + "(" in line:
            return line.strip()
    raise AssertionError("no %s in the PTX" % name)


def test_device_function_to_ptx(case):
    c, ir = case("add_i32")
    ptx, restype = cuplug.compile(ir, c["signature"], entry=c["entry"],
                                  abi_info={"abi_name": "add_i32"})
    assert isinstance(ptx, str)
    assert func_line(ptx, "add_i32") == ".visible .func  (.param .b64 func_retval0) add_i32("
    assert restype is cuplug.typeof("int64")
    assert restype == "int64"


def test_ltoir_is_bytes(case):
    c, ir = case("add_f32")
    code, restype = cuplug.compile(ir.encode(), c["signature"], entry=c["entry"],
                                   abi_info={"abi_name": "add_f32"}, output="ltoir")
    assert isinstance(code, bytes)
    assert code[:4] == b"\xedCN\x7f"
    assert restype == "float32"


def test_compile_ptx_makes_a_kernel(case):
    c, ir = case("saxpy_kernel")
    ptx, restype = cuplug.compile_ptx(ir, c["signature"], entry=c["entry"], cc=(9, 0))
    assert ".visible .entry " + c["entry"] + "(" in ptx
    assert ".target sm_90" in ptx
    assert restype == "void"


def test_arch_specific_cc(case):
    """numba-cuda's three-item cc: (9, 0, "a") is compute_90a."""
    c, ir = case("saxpy_kernel")
    ptx, _ = cuplug.compile_ptx(ir, c["signature"], entry=c["entry"], cc=(9, 0, "a"))
    assert "\n.target sm_90a\n" in ptx
    art = cuplug.default_session().compile([("k", ir)], c["entry"], cuplug.typeof(c["signature"]),
                                           kind=1, cc=(9, 0, "a"))
    assert art.cc == (9, 0, "a")
    with pytest.raises(cuplug.ArgumentError) as e:
        cuplug.compile_ptx(ir, c["signature"], entry=c["entry"], cc=(9, 0, "x"))
    assert e.value.message == "cc suffix 'x': give '', 'a' or 'f'"
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.compile_ptx(ir, c["signature"], entry=c["entry"], cc="9.0")
    assert e.value.message == "cc must be a (major, minor[, 'a' or 'f']) tuple"
    with pytest.raises(cuplug.OptionError) as e:
        cuplug.compile_ptx(ir, c["signature"], entry=c["entry"], cc=(8, 0, "a"))
    assert e.value.message == ("arch-specific code (cc_suffix 'a') needs compute capability 9.0 "
                               "or higher, not 8.0")


def test_modules_as_a_list(case):
    c, ir = case("add_i32")
    ptx, _ = cuplug.compile([ir], cuplug.typeof(c["signature"]), entry=c["entry"],
                            abi_info={"abi_name": "add_i32"})
    assert "add_i32(" in ptx


def test_compile_all_lists_the_pieces(case):
    c, ir = case("dev_ext_i32")
    d = c["declare_device"][0]
    s = cuplug.Session()
    path = os.path.join(CORPUS, "dev_ext_i32", "ext_mul.cu")
    cuplug.declare_device(d["name"], d["signature"], link=path, session=s)
    codes, restype = cuplug.compile_all(ir, c["signature"], entry=c["entry"],
                                        abi_info={"abi_name": "dev_ext"}, cc=(9, 0), session=s)
    assert len(codes) == 2
    assert codes[0][:4] == b"\xedCN\x7f" and codes[1][:4] == b"\xedCN\x7f"
    assert restype == "int64"


def test_debug_with_opt_warns(case):
    c, ir = case("add_i32")
    with pytest.warns(cuplug.CuplugWarning) as w:
        cuplug.compile(ir, c["signature"], entry=c["entry"], abi_info={"abi_name": "add_i32"},
                       debug=True)
    assert str(w[0].message) == (
        "CUPLUG_WARN_DEBUG_WITH_OPT: debug=True with opt=True is not supported by CUDA. "
        "This may result in a crash - set debug=False or opt=False.")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cuplug.compile(ir, c["signature"], entry=c["entry"], abi_info={"abi_name": "add_i32"},
                       debug=True, opt=False)


# ---- bad input: each a Python exception with a clear message ----


def test_signature_of_the_wrong_type(case):
    c, ir = case("add_i32")
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.compile(ir, 7, entry=c["entry"])
    assert e.value.message == ("signature must be a type name such as 'float32[::1]', or a "
                               "cuplug.Type, not int")


def test_signature_that_does_not_parse(case):
    c, ir = case("add_i32")
    with pytest.raises(cuplug.TypeSyntaxError) as e:
        cuplug.compile(ir, "int64(int32,", entry=c["entry"])
    assert e.value.name == "CUPLUG_ERR_SIGNATURE_SYNTAX"
    assert e.value.code == 10


def test_ir_neither_text_nor_bytes():
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.compile(42, "int32()", entry="f")
    assert e.value.message == "ir must be text, bytes, or a list of them, not int"
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.compile(["define i32 @f() {\n ret i32 0\n}\n", None], "int32()", entry="f")
    assert e.value.message == "ir[1] must be text or bytes, not NoneType"


def test_unknown_keyword(case):
    c, ir = case("add_i32")
    with pytest.raises(TypeError) as e:  # Python's own: the call never reached cuplug
        cuplug.compile(ir, c["signature"], entry=c["entry"], optimise=True)
    assert "unexpected keyword argument 'optimise'" in str(e.value)


def test_ir_that_does_not_parse(case):
    c, ir = case("add_i32")
    with pytest.raises(cuplug.IRError) as e:
        cuplug.compile(ir + "\nnonsense\n", c["signature"], entry=c["entry"],
                       abi_info={"abi_name": "add_i32"})
    assert e.value.name == "CUPLUG_ERR_IR_PARSE"
    assert re.match(r"IR does not parse: module0:\d+:1: error: expected top-level entity$",
                    e.value.message)
    assert "expected top-level entity" in e.value.log


def test_numba_cuda_option_rules(case):
    c, ir = case("add_i32")
    with pytest.raises(cuplug.OptionError) as e:
        cuplug.compile(ir, c["signature"], entry=c["entry"], forceinline=True)
    assert e.value.message == "Can only designate forced inlining in LTO-IR (output is ptx)"
    with pytest.raises(cuplug.OptionError) as e:
        cuplug.compile(ir, c["signature"], entry=c["entry"], output="sass")
    assert e.value.message == "Unsupported output type: sass (ptx, ltoir, cubin or host)"
    k, kir = case("saxpy_kernel")
    with pytest.raises(cuplug.OptionError) as e:
        cuplug.compile_ptx(kir, k["signature"], entry=k["entry"], launch_bounds=(1, 2, 3, 4))
    assert e.value.message.startswith("Got 4 launch bounds: (1, 2, 3, 4).")


def test_missing_entry(case):
    c, ir = case("add_i32")
    with pytest.raises(cuplug.IRError) as e:
        cuplug.compile(ir, c["signature"], entry="nowhere", abi_info={"abi_name": "x"})
    assert e.value.name == "CUPLUG_ERR_ENTRY_NOT_FOUND"

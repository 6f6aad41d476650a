"""Typing and lowering from Python: numba-cuda's built-ins, concrete and
generic templates, Python callbacks (with the GIL held, their exceptions
kept as the cause), declared CUDA C++ functions."""
import pytest

import cuplug


def test_builtins_resolve():
    r = cuplug.resolve_call("math.sin", ["float32"])
    assert r.signature == "float32(float32)"
    assert r.symbol.startswith("__cuplug_math_sin_")
    assert r.abi == "c"
    assert r.declaration == "declare float @%s(float)" % r.symbol
    r = cuplug.resolve_call("cuda.grid", [cuplug.literal(2)])
    assert r.signature == "UniTuple(int64 x 2)(int32)"


def test_concrete_templates_and_ir_lowering():
    reg = cuplug.Registry()
    cuplug.register_typing("t.clamp", ["float32(float32, float32, float32)",
                                       "float64(float64, float64, float64)"], registry=reg)
    cuplug.register_lowering("t.clamp", "float32(float32, float32, float32)", symbol="t_clamp",
                             ir="define float @t_clamp(float %x, float %l, float %h) {\n"
                                "  ret float %x\n}\n", registry=reg)
    r = cuplug.resolve_call("t.clamp", ["float32", "float32", "float32"], registry=reg)
    assert r == ("float32(float32, float32, float32)", "t_clamp", "c",
                 "declare float @t_clamp(float, float, float)", ("exact", "exact", "exact"))
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.resolve_call("t.clamp", ["float64"] * 3, registry=reg)
    assert e.value.name == "CUPLUG_ERR_NO_LOWERING"
    assert e.value.message == ("t.clamp types as float64(float64, float64, float64), but has "
                               "no lowering for it")
    listed = [(k, str(s)) for k, s, _, _, _ in reg.list("t.")]
    assert listed == [("t.clamp", "float32(float32, float32, float32)"),
                      ("t.clamp", "float64(float64, float64, float64)")]


def test_python_typer_and_lowerer():
    reg = cuplug.Registry(builtins=False)
    seen = []

    def typer(key, argtypes):
        seen.append((key, argtypes))
        return "%s(%s)" % (argtypes[0], argtypes[0]) if len(argtypes) == 1 else None

    def lower(key, signature, symbol, abi):
        t = {"float32": "float", "int32": "i32"}[str(signature.restype)]
        return "define %s @%s(%s %%x) {\n  ret %s %%x\n}\n" % (t, symbol, t, t)

    cuplug.register_typing("t.same", typer, description="T(T)", registry=reg)
    cuplug.register_lowering("t.same", callable=lower, registry=reg)
    r = cuplug.resolve_call("t.same", ["int32"], registry=reg)
    assert r.signature == "int32(int32)" and r.symbol.startswith("__cuplug_t_same_")
    assert seen == [("t.same", (cuplug.typeof("int32"),))]
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.resolve_call("t.same", ["int32", "int32"], registry=reg)
    assert e.value.message == "no signature of t.same takes (int32, int32); it has: T(T)"


def test_typer_exception_is_the_cause():
    def typer(key, argtypes):
        raise KeyError("no such thing")

    reg = cuplug.Registry()
    cuplug.register_typing("t.broken", typer, registry=reg)
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.resolve_call("t.broken", ["int32"], registry=reg)
    assert e.value.message == ("the typing template of t.broken failed: KeyError: "
                               "'no such thing'")
    assert isinstance(e.value.__cause__, KeyError)
    assert e.value.__cause__.__traceback__ is not None  # the traceback is kept


def test_typer_returning_nonsense():
    reg = cuplug.Registry()
    cuplug.register_typing("t.nonsense", lambda k, a: 42, registry=reg)
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.resolve_call("t.nonsense", ["int32"], registry=reg)
    assert e.value.message == ("the typing template of t.nonsense failed: TypeError: the "
                               "typer's answer must be a type name such as 'float32[::1]', or "
                               "a cuplug.Type, not int")
    cuplug.register_typing("t.notsig", lambda k, a: "int32", registry=reg)
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.resolve_call("t.notsig", ["int32"], registry=reg)
    assert e.value.message == ("the typing template of t.notsig answered OK without a "
                               "signature")


def test_lowering_exception_at_compile_time():
    s = cuplug.Session()

    def lower(key, signature, symbol, abi):
        raise RuntimeError("cannot lower " + key)

    cuplug.register_typing("t.f", ["float32(float32)"], session=s)
    cuplug.register_lowering("t.f", "float32(float32)", callable=lower, symbol="t_f", session=s)
    ir = ("define float @k(float %x) {\n  %y = call float @t_f(float %x)\n  ret float %y\n}\n"
          "declare float @t_f(float)\n")
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.compile(ir, "float32(float32)", entry="k", entry_abi="c", session=s)
    assert e.value.message == "the lowering of t.f for float32(float32) failed: cannot lower t.f"
    assert isinstance(e.value.__cause__, RuntimeError)


def test_declare_device_is_a_key():
    s = cuplug.Session()
    f = cuplug.declare_device("ext_add", "int32(int32, int32)", abi="c", session=s)
    assert f == ("ext_add", cuplug.typeof("int32(int32, int32)"), "c")
    r = cuplug.resolve_call("ext_add", ["int16", "int32"], session=s)
    assert r.symbol == "ext_add" and r.signature == "int32(int32, int32)"
    with pytest.raises(cuplug.RegistryError) as e:
        cuplug.declare_device("ext_add", "int32(int32, int32)", session=s)
    assert e.value.name == "CUPLUG_ERR_DUPLICATE"
    assert e.value.message == "ext_add is already declared, as int32(int32, int32)"


def test_register_lowering_needs_one_source():
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.register_lowering("t.x", "int32()", ir="x", cuda="y")
    assert e.value.message == "register_lowering: give exactly one of ir=, cuda= and callable="


def test_numba_cuda_rule_and_strict():
    """numba-cuda's choice by default: the first declared of equally good
    signatures, an unsafe conversion as the last resort (and said so);
    strict=True refuses both."""
    r = cuplug.resolve_call("math.sin", ["bool"])
    assert r.signature == "float64(int64)" and r.conversions == ("safe",)
    r = cuplug.resolve_call("cuda.brev", ["int32"])
    assert r.signature == "uint32(uint32)" and r.conversions == ("unsafe",)
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.resolve_call("cuda.brev", ["int32"], strict=True)
    assert e.value.name == "CUPLUG_ERR_NO_MATCH"
    with pytest.raises(cuplug.TypingError) as e:
        cuplug.resolve_call("math.sin", ["bool"], strict=True)
    assert e.value.name == "CUPLUG_ERR_AMBIGUOUS"
    r = cuplug.resolve_call("math.pow", ["float32", "int32"])
    assert r.signature == "float32(float32, int32)" and r.conversions == ("exact", "exact")
    assert cuplug.resolve_call("cuda.ffs", ["int8"]).signature == "uint32(int8)"

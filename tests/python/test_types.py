"""The types of 1.3 from Python: typeof and Type's attributes for a record,
a function pointer, bfloat16, opaque and omitted values and a struct, a
kernel on the CPU taking a NumPy record in place, and a function on the CPU
taking and returning structs as tuples (no GPU needed)."""
import numpy as np
import pytest

import cuplug

REC = "Record(a: int32 @ 0, b: float64 @ 8, size=16)"


def test_record_type():
    t = cuplug.typeof(REC)
    assert t.name == REC
    assert t.kind == 23
    assert t.size == 16 and t.align == 8
    assert t.fields == (("a", cuplug.typeof("int32"), 0), ("b", cuplug.typeof("float64"), 8))
    assert t.args == (cuplug.typeof("int32"), cuplug.typeof("float64"))
    assert t.text is None
    assert cuplug.typeof("Record(a: i4 @ 0, b: f8 @ 8, size=16, align=8)") is t
    assert cuplug.typeof(REC + "[::1]").element is t
    assert cuplug.typeof("int32").fields is None
    with pytest.raises(cuplug.CuplugError) as e:
        cuplug.typeof("Record(a: int32 @ 0, b: float64 @ 12, size=16)")
    assert e.value.message == ("field 'b' of a record (float64 at byte 12) ends at byte 20, "
                               "past the record's size of 16 bytes")


def test_other_new_types():
    bf = cuplug.typeof("bfloat16")
    assert (bf.kind, bf.size, bf.name) == (22, 2, "bfloat16")
    fp = cuplug.typeof("CPointer(float64(float64))")
    assert fp.element is cuplug.typeof("float64(float64)")
    assert cuplug.typeof("void*") is cuplug.typeof("CPointer(void)")
    op = cuplug.typeof('Opaque("Module(math)")')
    assert (op.kind, op.text, op.name) == (24, "Module(math)", 'Opaque("Module(math)")')
    om = cuplug.typeof('Omitted("3")')
    assert (om.kind, om.text) == (25, "3")


# a + (int)b into out[0], and b doubled in the record's own bytes
KERNEL_IR = """
define void @rk([16 x i8]* %r, i32* %out, i8* %m) {
  %pa = bitcast [16 x i8]* %r to i32*
  %a = load i32, i32* %pa
  %p8 = getelementptr [16 x i8], [16 x i8]* %r, i64 0, i64 8
  %pb = bitcast i8* %p8 to double*
  %b = load double, double* %pb
  %bi = fptosi double %b to i32
  %s = add i32 %a, %bi
  store i32 %s, i32* %out
  %b2 = fadd double %b, %b
  store double %b2, double* %pb
  ret void
}
"""


def test_kernel_takes_a_numpy_record_in_place():
    sig = 'void(%s, CPointer(int32), Omitted("3"), Opaque("Module(math)"))' % REC
    art, _ = cuplug.compile(KERNEL_IR, sig, entry="rk", entry_abi="c", device=False,
                            output="host")
    k = cuplug.load(art).get_kernel()
    dt = np.dtype([("a", "<i4"), ("b", "<f8")], align=True)
    assert dt.itemsize == 16 and dt.fields["b"][1] == 8
    recs = np.zeros(2, dtype=dt)
    recs[1] = (5, 2.75)
    out = np.zeros(1, dtype=np.int32)
    k[1, 1](recs[1:], out, None)  # a 1-element structured array
    assert out[0] == 7 and recs[1]["b"] == 5.5
    one = np.array((-40, 1.5), dtype=dt)  # a 0-d structured array
    k[1, 1](one, out, None)
    assert out[0] == -39 and one["b"] == 3.0
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[1, 1](recs[1:], out, 3)
    assert e.value.message == ("kernel rk, argument 2 (Opaque(\"Module(math)\")): expected None "
                               "(an opaque value), got int")
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[1, 1](np.zeros(1, dtype=np.int32), out, None)
    assert e.value.message == ("kernel rk, argument 0 (%s): a buffer of 4 bytes holds no "
                               "record of 16" % REC)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[1, 1](recs[1:], out)
    assert e.value.message == "kernel rk takes 3 arguments, got 2"
    frozen = recs[1:].copy()
    frozen.flags.writeable = False  # the kernel writes b: never into read-only memory
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        k[1, 1](frozen, out, None)
    assert e.value.message == ("kernel rk, argument 0 (%s): a read-only buffer (the code may "
                               "write the record)" % REC)
    assert frozen[0]["b"] == 5.5


XY = "Struct(x: int32, y: float32)"


def test_struct_type():
    t = cuplug.typeof(XY)
    assert t.name == XY
    assert t.kind == 26
    assert t.size == 8 and t.align == 4
    assert t.fields == (("x", cuplug.typeof("int32"), None), ("y", cuplug.typeof("float32"), None))
    assert t.args == (cuplug.typeof("int32"), cuplug.typeof("float32"))
    assert cuplug.typeof('Struct( x: i4, "y": f4 )') is t
    assert cuplug.typeof(XY + "[::1]").element is t
    # of one type throughout, still a struct and no UniTuple
    ab = cuplug.typeof("Struct(a: int32, b: int32)")
    assert ab.kind == 26 and ab is not cuplug.typeof("UniTuple(int32 x 2)")
    with pytest.raises(cuplug.CuplugError) as e:
        cuplug.typeof("Struct(a: int32, a: float32)")
    assert e.value.message == "field 'a' of a struct is named twice (fields 0 and 1)"


# {x * k, y * k}, and a nested struct's members summed: numba-cuda's data
# model, members one parameter each, the result through its slot
SCALE_IR = """
define i32 @scale({i32, float}* %ret, i32 %x, float %y, i32 %k) {
  %x2 = mul i32 %x, %k
  %kf = sitofp i32 %k to float
  %y2 = fmul float %y, %kf
  %s0 = insertvalue {i32, float} undef, i32 %x2, 0
  %s1 = insertvalue {i32, float} %s0, float %y2, 1
  store {i32, float} %s1, {i32, float}* %ret
  ret i32 0
}
"""

NESTED_IR = """
define i32 @total(double* %ret, i8 %ok, double %v, i16 %n, i8 %b) {
  %nd = sitofp i16 %n to double
  %s = fadd double %v, %nd
  %bd = uitofp i8 %b to double
  %t = fadd double %s, %bd
  store double %t, double* %ret
  ret i32 0
}
"""


def test_struct_values_on_the_cpu():
    art, _ = cuplug.compile(SCALE_IR, "%s(%s, int32)" % (XY, XY), entry="scale", abi="c",
                            output="host")
    m = cuplug.load(art)
    assert m.call((-7, 1.25), 3) == (-21, 3.75)
    assert m.call({"y": -0.5, "x": 100000}, -4) == (-400000, 2.0)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call((1, 2, 3), 1)
    assert e.value.message == ("function (the compiled one), argument 0 (%s): expected a tuple of "
                               "2 members, got 3" % XY)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call({"x": 1}, 1)
    assert e.value.message == ("function (the compiled one), argument 0 (%s): field 'y' is "
                               "missing" % XY)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call({"x": 1, "y": 2.0, "z": 3}, 1)
    assert e.value.message == ("function (the compiled one), argument 0 (%s): the struct has no "
                               "field 'z'" % XY)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call((1, "2"), 1)
    assert e.value.message == ("function (the compiled one), argument 0 (%s): field 'y': "
                               "expected a number, got str" % XY)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call([1, 2.0], 1)
    assert e.value.message == ("function (the compiled one), argument 0 (%s): expected a tuple "
                               "of its members or a mapping of its field names, got list" % XY)
    inner = 'Struct(ok: bool, "v w": float64)'
    sig = "float64(Struct(p: %s, n: int16), uint8)" % inner
    art, _ = cuplug.compile(NESTED_IR, sig, entry="total", abi="c", output="host")
    m = cuplug.load(art)
    assert m.call(((True, 0.5), -3), 200) == 197.5
    assert m.call({"p": {"ok": False, "v w": 1.5}, "n": 2}, 1) == 4.5
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call(((True, 0.5), 1 << 20), 1)
    assert e.value.message == ("function (the compiled one), argument 0 (Struct(p: %s, n: "
                               "int16)): field 'n': the value does not fit" % inner)
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        m.call(((True, None), 1), 1)
    assert e.value.message == ("function (the compiled one), argument 0 (Struct(p: %s, n: "
                               "int16)): field 'p.v w': expected a number, got NoneType" % inner)

"""Python values the module once took without a word and then misused:
parameters it has no storage for, negative sizes, status numbers past a C
int, an error factory that answers with something else than an exception.
Each is now an exception with a clear message."""
import pytest

import cuplug
from cuplug import _cuplug
from conftest import load_case, run_python


def add_i32():
    case, ir = load_case("add_i32")
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"],
                            abi_info={"abi_name": case["abi_name"]}, output="host")
    return cuplug.load(art)


@pytest.mark.parametrize("param", ["UniTuple(int64 x 2)", "class(float32)"])
@pytest.mark.parametrize("value", [0, (1, 2), None])
def test_parameters_without_a_python_value(param, value):
    """A tuple or a number class fills no scalar slot: packing one as an
    integer shifted by its size, 0 bits, and handed the plugin a slot of
    the wrong size."""
    with pytest.raises(cuplug.LaunchArgumentError) as e:
        add_i32().call(value, 1, signature="int32(%s, int32)" % param)
    assert e.value.message == ("function (the compiled one), argument 0 (%s): its type cannot be "
                               "passed from Python" % param)


def test_literal_parameters_are_int64():
    with pytest.raises(cuplug.LaunchArgumentError) as e:  # the plugin's rule, not the module's
        add_i32().call(3, 1, signature="int32(Literal[int](3), int32)")
    assert e.value.message == ("call add_i32, argument 0 (Literal[int](3)): a host call takes "
                               "scalars, pointers, arrays, records and tuples of them")


def test_negative_size():
    with pytest.raises(cuplug.ArgumentError) as e:
        cuplug.Session(cache=False).to_host(0, -1)
    assert e.value.message == "nbytes must be 0 or more, not -1"


def test_status_past_a_c_int():
    """2**32 once named CUPLUG_OK: its low 32 bits."""
    assert _cuplug.status_name(93) == "CUPLUG_ERR_LIMIT"
    assert _cuplug.status_name(-1) == "CUPLUG_UNKNOWN_STATUS"
    with pytest.raises(OverflowError) as e:
        _cuplug.status_name(2 ** 32)
    assert str(e.value) == "signed integer is greater than maximum"
    with pytest.raises(OverflowError) as e:
        _cuplug.status_name(-2 ** 40)
    assert str(e.value) == "signed integer is less than minimum"


ERROR_CLASS_REPLACED = """
import cuplug

def typer(key, argtypes):
    raise KeyError("no")

cuplug.TypingError = lambda *args: 5  # what _make_error answers for 80 to 85
reg = cuplug.Registry()
cuplug.register_typing("t.broken", typer, registry=reg)
for _ in range(3):
    try:
        reg.resolve("t.broken", ["int32"])
    except Exception as e:
        print(type(e).__name__, e)
"""


def test_error_factory_answering_a_non_exception():
    """The exception classes are Python's to replace: the module used the
    answer as an exception object, and set its __cause__ in memory that was
    not one."""
    p = run_python(ERROR_CLASS_REPLACED)
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout == ("ArgumentTypeError CUPLUG_ERR_INVALID_ARGUMENT: cuplug._make_error's "
                        "answer must be an exception, not int\n" * 3)


def test_toolkit_text_that_is_not_utf8(tmp_path):
    """NVRTC's log quotes the source, in whatever encoding it was written:
    the error once came out as a UnicodeDecodeError, its message lost."""
    cu = tmp_path / "latin1.cu"
    cu.write_bytes(b'extern "C" __global__ void k(int *p) { *p = caf\xe9; }\n')
    with pytest.raises(cuplug.LinkError) as e:
        cuplug.link([str(cu)], cc=(9, 0))
    assert e.value.message == ("NVRTC failed to compile %s: %s(1): error: unrecognized token"
                               % (cu, cu))
    assert ('  extern "C" __global__ void k(int *p) { *p = caf\ufffd; }\n' in e.value.log)

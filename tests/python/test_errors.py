"""Every status the plugin names becomes one Python exception class, by a
table a user can catch by: ValueError for what the caller got wrong,
ToolkitError for what the toolkit refused, GPUError for the device."""
import pytest

import cuplug
from cuplug import _cuplug

EXPECTED = {
    1: cuplug.ArgumentError, 3: cuplug.ArgumentError, 4: cuplug.ArgumentError,
    10: cuplug.TypeSyntaxError, 11: cuplug.TypeSyntaxError, 12: cuplug.TypeSyntaxError,
    **{c: cuplug.IRError for c in (20, 21, 22, 23, 24, 25, 94)},
    **{c: cuplug.OptionError for c in range(30, 43)},
    **{c: cuplug.ToolkitError for c in (50, 51, 52, 56, 57, 58, 59, 92)},
    **{c: cuplug.GPUError for c in (53, 54, 55, 70, 71)}, 73: cuplug.LaunchConfigError,
    60: cuplug.LinkError, 61: cuplug.LinkError, 62: cuplug.LinkError,
    63: cuplug.RegistryError, 64: cuplug.RegistryError,
    72: cuplug.LaunchArgumentError, 74: cuplug.KernelException, 75: cuplug.KernelFault,
    **{c: cuplug.TypingError for c in range(80, 86)},
    90: cuplug.ToolkitCrash, 91: cuplug.ToolkitTimeout, 93: cuplug.LimitError,
    **{c: cuplug.HostError for c in (100, 101, 102, 103)},
}


def named_codes():
    return [c for c in range(1, 256) if _cuplug.status_name(c).startswith("CUPLUG_ERR_")]


def test_every_named_status_has_its_class():
    assert sorted(EXPECTED) == sorted(c for c in named_codes() if c != 2)
    for code, cls in EXPECTED.items():
        e = cuplug._make_error(code, _cuplug.status_name(code), "why", "log")
        assert type(e) is cls, (code, type(e), cls)
        assert (e.code, e.name, e.message, e.log) == (code, _cuplug.status_name(code), "why",
                                                      "log")
        assert str(e) == "%s: why" % _cuplug.status_name(code)


def test_out_of_memory_is_memoryerror():
    e = cuplug._make_error(2, "CUPLUG_ERR_OUT_OF_MEMORY", "no room", "")
    assert type(e) is MemoryError and str(e) == "CUPLUG_ERR_OUT_OF_MEMORY: no room"


@pytest.mark.parametrize("cls,base", [
    (cuplug.ArgumentError, ValueError), (cuplug.ArgumentTypeError, TypeError),
    (cuplug.IRError, ValueError), (cuplug.LaunchArgumentError, TypeError),
    (cuplug.LaunchConfigError, ValueError), (cuplug.TypingError, TypeError),
    (cuplug.ToolkitTimeout, TimeoutError), (cuplug.ToolkitCrash, cuplug.ToolkitError),
    (cuplug.RegistryError, ValueError)])
def test_classes_are_what_python_code_catches(cls, base):
    assert issubclass(cls, base) and issubclass(cls, cuplug.CuplugError)


def test_kernel_exception_carries_code_and_thread():
    e = cuplug._make_error(74, "CUPLUG_ERR_KERNEL_EXCEPTION",
                           "kernel k raised exception 3: tid=[0, 1, 5] ctaid=[2, 0, 7]", "")
    assert (e.exception_code, e.tid, e.ctaid) == (3, (0, 1, 5), (2, 0, 7))
    other = cuplug._make_error(74, "CUPLUG_ERR_KERNEL_EXCEPTION", "something else", "")
    assert (other.exception_code, other.tid, other.ctaid) == (None, None, None)

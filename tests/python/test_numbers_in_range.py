"""Numbers out of range are refused, with the value and the range: each of
these once wrapped to 32 or 64 bits without a word (cc=(2**32 + 9, 0) built
for sm_90, cc=(2**40, 0) for the default sm_75, cc=(-1, 0) reached the
plugin as 4294967295, Session(time_limit_ms=-5) was a limit of 49 days)."""
import pytest

import cuplug
from conftest import load_case

U32, U64 = 4294967295, 18446744073709551615


def refused(message, fn, *args, **kw):
    with pytest.raises(cuplug.ArgumentError) as e:
        fn(*args, **kw)
    assert type(e.value) is cuplug.ArgumentError and e.value.code == 1
    assert e.value.message == message


@pytest.mark.parametrize("cc,message", [
    ((2 ** 32 + 9, 0), "cc major must be 0 to %d, not 4294967305" % U32),
    ((2 ** 40, 0), "cc major must be 0 to %d, not 1099511627776" % U32),
    ((-1, 0), "cc major must be 0 to %d, not -1" % U32),
    ((9, -1), "cc minor must be 0 to %d, not -1" % U32),
    ((9, 2 ** 32, "a"), "cc minor must be 0 to %d, not 4294967296" % U32)])
def test_cc(cc, message):
    case, ir = load_case("add_i32")
    refused(message, cuplug.compile, ir, case["signature"], entry=case["entry"], cc=cc)
    refused(message, cuplug.link, [b"x"], cc=cc)
    if len(cc) == 2:
        refused(message, cuplug.Session, default_cc=cc)


def test_cc_of_the_wrong_type():
    case, ir = load_case("add_i32")
    with pytest.raises(cuplug.ArgumentTypeError) as e:
        cuplug.compile(ir, case["signature"], entry=case["entry"], cc=(9.0, 0))
    assert e.value.message == "cc major must be an int, not float"


def test_session_numbers():
    refused("time_limit_ms must be 0 to %d, not -5" % U32, cuplug.Session, time_limit_ms=-5)
    refused("time_limit_ms must be 0 to %d, not 4294967296" % U32, cuplug.Session,
            time_limit_ms=2 ** 32)
    refused("cache_max_bytes must be 0 to %d, not -1" % U64, cuplug.Session,
            cache_max_bytes=-1)
    refused("cache_memory_bytes must be 0 to %d, not %d" % (U64, 2 ** 64), cuplug.Session,
            cache_memory_bytes=2 ** 64)
    s = cuplug.Session(time_limit_ms=U32, cache_max_bytes=U64, cache_memory_bytes=0,
                       cache=False)  # the ends of the ranges are taken
    assert s.cache_info()["status"] == "off"


def test_compile_and_link_numbers():
    case, ir = load_case("add_i32")
    sig, entry = case["signature"], case["entry"]
    refused("time_limit_ms must be 0 to %d, not -1" % U32, cuplug.compile, ir, sig,
            entry=entry, time_limit_ms=-1)
    refused("max_registers must be 0 to %d, not -1" % U32, cuplug.compile, ir, sig,
            entry=entry, max_registers=-1)
    refused("max_registers must be 0 to %d, not 4294967296" % U32, cuplug.link, [b"x"],
            max_registers=2 ** 32)
    refused("time_limit_ms must be 0 to %d, not -1" % U32, cuplug.link, [b"x"],
            time_limit_ms=-1)
    refused("a launch bound must be 0 to %d, not -1" % U32, cuplug.compile_ptx, ir, sig,
            entry=entry, launch_bounds=(-1,))


def test_device_memory_numbers():
    s = cuplug.Session(cache=False)
    refused("nbytes must be 0 to %d, not -1" % U64, s.mem_alloc, -1)
    refused("address must be 0 to %d, not -1" % U64, s.mem_free, -1)
    refused("address must be 0 to %d, not -1" % U64, s.to_device, -1, b"x")
    refused("address must be 0 to %d, not %d" % (U64, 2 ** 64), s.to_host, 2 ** 64, 1)

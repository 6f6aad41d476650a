"""The result cache from Python: where a result came from, the session's
cache options, cache_info and cache_clear, and compiles and links that ask
for no cache."""
import pytest

import cuplug
from conftest import load_case

SIG = "void(CPointer(int32), int32, int32)"
K_SUM = """define i32 @k_sum(i8** %ret, i32* %out, i32 %a, i32 %b) {
entry:
  %s = add i32 %a, %b
  store i32 %s, i32* %out
  ret i32 0
}
"""


def compile_k(session, **options):
    return session.compile([("k.ll", K_SUM)], "k_sum", cuplug.typeof(SIG), kind=1, output=2,
                           cc=(9, 0), **options)


def test_memory_then_disk(tmp_path):
    s = cuplug.Session(cache_dir=str(tmp_path))
    built, again = compile_k(s), compile_k(s)
    fresh = compile_k(cuplug.Session(cache_dir=str(tmp_path)))
    assert (built.cache, again.cache, fresh.cache) == ("miss", "memory", "disk")
    assert built.data == again.data == fresh.data
    assert fresh.signature == built.signature and fresh.symbol == "k_sum"
    info = s.cache_info()
    assert info["dir"] == str(tmp_path) and info["status"] == "ok"
    assert (info["misses"], info["memory_hits"], info["stores"], info["disk_entries"]) == \
        (1, 1, 1, 1)
    assert info["memory_bytes"] + 88 > info["disk_bytes"]  # memory holds the key too
    assert info["max_bytes"] == 1 << 30


def test_stages_are_timed(tmp_path):
    """Artifact.stages: the compile's stages in the order they ran, each
    timed; a result found in the cache, up to the look-up."""
    s = cuplug.Session(cache_dir=str(tmp_path))
    built, again = compile_k(s), compile_k(s)
    names = [n for n, _ in built.stages]
    assert names[:4] == ["check_options", "read_signature", "read_modules", "look_up"]
    # libNVVM's own time between handing the job to the helper and back
    assert names[-7:] == ["hand_over", "run_nvvm", "hand_back", "link_code", "keep_ir", "keep",
                          "finish_validation"]
    assert [n for n, _ in again.stages] == names[:4]
    assert all(isinstance(t, float) and t >= 0 for _, t in built.stages + again.stages)


def test_options_and_clear(tmp_path):
    s = cuplug.Session(cache_dir=str(tmp_path), cache_max_bytes=1 << 20,
                       cache_memory_bytes=1 << 16)
    assert s.cache_info()["max_bytes"] == 1 << 20
    assert compile_k(s, cache=False).cache == "none"
    assert compile_k(s).cache == "miss"
    assert compile_k(s, opt=1).cache == "miss"  # another option, another key
    s.cache_clear()
    info = s.cache_info()
    assert (info["disk_entries"], info["memory_entries"]) == (0, 0)
    assert compile_k(s).cache == "miss"
    off = cuplug.Session(cache=False)
    assert compile_k(off).cache == "none"
    assert off.cache_info()["status"] == "off"
    mem = cuplug.Session(cache_dir="")
    assert [compile_k(mem).cache for _ in range(2)] == ["miss", "memory"]
    assert mem.cache_info()["status"] == "memory only: the session's cache_dir is \"\""


def test_links_are_cached(tmp_path):
    s = cuplug.Session(cache_dir=str(tmp_path))
    art = compile_k(s)
    first = s.link(artifacts=[art])
    second = s.link(artifacts=[art])
    third = s.link(artifacts=[art], cache=False)
    assert (first.cache, second.cache, third.cache) == ("miss", "memory", "none")
    assert first.data == second.data


def test_a_case_through_the_module_functions(tmp_path):
    case, ir = load_case("add_i32")
    s = cuplug.Session(cache_dir=str(tmp_path))
    for _ in range(2):
        cuplug.compile(ir, case["signature"], entry=case["entry"],
                       abi_info={"abi_name": case["abi_name"]}, session=s)
    info = s.cache_info()
    assert (info["misses"], info["memory_hits"]) == (1, 1)


def test_bad_options():
    with pytest.raises(TypeError):
        cuplug.Session(cache_dir=3)
    with pytest.raises(TypeError):
        cuplug.Session("/usr/local/cuda", None, None, False, 0, True)  # cache is keyword-only

"""The remote tier of the result cache from Python and from the command
line: Session(cache_remote=...), cache_info's remote counts, Artifact.cache
"remote", and two processes of the CLI that share a Redis server each with
its own disk folder (--cache-remote, --verbose).  Each test starts its own
redis-server on a free loopback port."""
import os
import shutil
import socket
import subprocess
import time
import warnings

import pytest

import cuplug
from conftest import CORPUS
from test_cache import compile_k  # k_sum to LTO-IR for cc 9.0

REDIS = os.environ.get("CUPLUG_TEST_REDIS") or shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server not found (scripts/deps.sh)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ask(port, *words):
    """One command to the server; its reply's first line."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"*%d\r\n" % len(words) +
                  b"".join(b"$%d\r\n%s\r\n" % (len(w), w) for w in map(str.encode, words)))
        return s.makefile("rb").readline().rstrip(b"\r\n").decode()


@pytest.fixture
def redis():
    port = free_port()
    p = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                          "--appendonly", "no"], stdout=subprocess.DEVNULL)
    for _ in range(500):
        try:
            if ask(port, "PING") == "+PONG":
                break
        except OSError:
            time.sleep(0.01)
    else:
        p.kill()
        raise RuntimeError("redis-server did not answer on port %d" % port)
    yield port
    p.kill()
    p.wait()


@pytest.fixture
def key(tmp_path):
    path = tmp_path / "key"
    path.write_bytes(os.urandom(32))
    path.chmod(0o600)
    return str(path)


def test_session_and_cache_info(tmp_path, redis, key):
    url = "redis://127.0.0.1:%d" % redis
    first = cuplug.Session(cache_dir=str(tmp_path / "a"), cache_remote=url, cache_remote_key=key,
                           cache_remote_timeout_ms=5000)  # a loaded machine is slow
    built = compile_k(first)
    second = cuplug.Session(cache_dir=str(tmp_path / "b"), cache_remote=url,
                            cache_remote_key=key, cache_remote_timeout_ms=5000,
                            cache_remote_ttl_s=60)
    found = compile_k(second)
    assert (built.cache, found.cache, compile_k(second).cache) == ("miss", "remote", "memory")
    assert found.data == built.data and found.symbol == "k_sum"
    i = first.cache_info()
    assert (i["remote"], i["remote_status"]) == (url + "/0", "ok")
    assert (i["remote_hits"], i["remote_misses"], i["remote_stores"], i["remote_refused"],
            i["remote_errors"]) == (0, 1, 1, 0, 0)
    i = second.cache_info()
    assert (i["remote_hits"], i["remote_misses"], i["remote_stores"]) == (1, 0, 0)
    assert ask(redis, "DBSIZE") == ":1"


def test_without_a_key_nothing_is_sent(tmp_path, redis):
    s = cuplug.Session(cache_dir="", cache_remote="redis://127.0.0.1:%d" % redis)
    with pytest.warns(cuplug.CuplugWarning) as said:
        compile_k(s)
    assert [str(w.message) for w in said] == [
        "CUPLUG_WARN_CACHE: cuplug's remote cache redis://127.0.0.1:%d/0 is not used: no key: "
        "entries are signed with a key the fleet shares (CUPLUG_CACHE_REMOTE_KEY, a file of at "
        "least 16 random bytes), and without one nothing is read or written" % redis]
    with warnings.catch_warnings():  # said once a session
        warnings.simplefilter("error")
        compile_k(s, opt=2)
    assert s.cache_info()["remote_status"].startswith("no key: ")
    assert ask(redis, "DBSIZE") == ":0"


def test_bad_url_and_numbers():
    with pytest.raises(cuplug.OptionError) as e:
        cuplug.Session(cache_remote="rediss://cache")
    assert e.value.name == "CUPLUG_ERR_OPTION_CACHE_REMOTE"
    assert e.value.message.startswith("cache_remote 'rediss://cache': rediss:// (TLS) needs ")
    with pytest.raises(cuplug.ArgumentError) as e:
        cuplug.Session(cache_remote="redis://cache", cache_remote_timeout_ms=-1)
    assert e.value.message == "cache_remote_timeout_ms must be 0 to 4294967295, not -1"


def test_no_remote_is_off(tmp_path):
    i = cuplug.Session(cache_dir=str(tmp_path), cache_remote="").cache_info()
    assert (i["remote"], i["remote_status"], i["remote_hits"]) == ("", "off", 0)


def test_numba_stats_has_the_remote_counts():
    import cuplug.numba
    assert set(cuplug.numba.stats()["cache"]) == {
        "memory_hits", "disk_hits", "misses", "remote_hits", "remote_misses", "remote_stores",
        "remote_refused", "remote_errors"}


def test_two_cli_processes_share_the_server(tmp_path, redis, key):
    cli = os.path.join(os.environ["CUPLUG_BUILD_DIR"], "bin", "cuplug")
    env = dict(os.environ, CUPLUG_CACHE_REMOTE_KEY=key, CUPLUG_CACHE_REMOTE_TIMEOUT_MS="5000")
    outs = []
    for run in ("first", "second"):
        out = tmp_path / (run + ".ltoir")
        p = subprocess.run([cli, "case", os.path.join(CORPUS, "add_i32"), "--output", "ltoir",
                            "-o", str(out), "--cache-dir", str(tmp_path / run), "--cache-remote",
                            "redis://127.0.0.1:%d" % redis, "--verbose"],
                           env=env, capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        outs.append((p.stderr.splitlines()[0], out.read_bytes()))
    assert outs[0][0] == "cuplug: result: built, and stored"
    assert outs[1][0] == "cuplug: result: remote cache"
    assert outs[0][1] == outs[1][1]
    p = subprocess.run([cli, "cache", "info", "--cache-dir", str(tmp_path / "second"),
                        "--cache-remote", "redis://127.0.0.1:%d" % redis],
                       env=env, capture_output=True, text=True, timeout=60)
    assert "\nremote     redis://127.0.0.1:%d/0\nits state  ok\n" % redis in p.stdout

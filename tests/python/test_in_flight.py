"""A library in use stays loaded: close() during a call of its own (from
the call's argument conversion, which runs Python code, or from another
thread while the call runs without the GIL) unloads it once the call is
over.  A launcher keeps the stream object its handle came from alive."""
import gc
import weakref

import numpy as np

import cuplug
from conftest import load_case, run_python


def host_library(name, device=True):
    case, ir = load_case(name)
    art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"], device=device,
                            abi_info={"abi_name": case.get("abi_name")}, output="host")
    return cuplug.default_session().load(art)


CLOSE_DURING_A_LAUNCH = """
import numpy as np
import cuplug
from test_in_flight import host_library
lib = host_library("saxpy_kernel", device=False)
k = lib.get_kernel()

class Closing:
    def __float__(self):  # runs while the launch converts its arguments
        lib.close()
        return 2.0

x, y, r = np.arange(4, dtype=np.float32), np.full(4, 0.5, dtype=np.float32), np.zeros(4, dtype=np.float32)
k[1, 4](r, x, y, Closing())
print(r.tolist())
try:
    k[1, 4](r, x, y, 2.0)
except cuplug.ArgumentError as e:
    print(e.message)
"""


def test_close_during_a_launch():
    """The launch goes on with the library loaded; it is unloaded after."""
    p = run_python(CLOSE_DURING_A_LAUNCH)
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout == "[0.5, 2.5, 4.5, 6.5]\nkernel __main__::saxpy: its module is closed\n"


CLOSE_DURING_A_CALL = """
import cuplug
from test_in_flight import host_library
lib = host_library("add_i32")

class Closing:
    def __index__(self):
        lib.close()
        return 40

print(lib.call(Closing(), 2))
try:
    lib.call(40, 2)
except cuplug.ArgumentError as e:
    print(e.message)
"""


def test_close_during_a_host_call():
    p = run_python(CLOSE_DURING_A_CALL)
    assert (p.returncode, p.stderr, p.stdout) == (0, "", "42\nthe module is closed\n")


class Stream:
    """A stream object as CuPy makes them: its handle lives as long as it."""
    ptr = 0


def test_a_launcher_keeps_its_stream_alive():
    k = host_library("saxpy_kernel", device=False).get_kernel()
    stream = Stream()
    alive = weakref.ref(stream)
    launcher = k[1, 4, stream]
    del stream
    gc.collect()
    assert alive() is not None
    x = np.arange(4, dtype=np.float32)
    r = np.zeros(4, dtype=np.float32)
    launcher(r, x, x, 1.0)
    assert r.tolist() == [0.0, 2.0, 4.0, 6.0]
    del launcher
    assert alive() is None


SPIN_IR = """define i32 @spin(i32* %p) {
entry:
  %started = getelementptr i32, i32* %p, i64 1
  store volatile i32 1, i32* %started
  br label %wait
wait:
  %v = load volatile i32, i32* %p
  %zero = icmp eq i32 %v, 0
  br i1 %zero, label %wait, label %done
done:
  ret i32 %v
}
"""

CLOSE_FROM_ANOTHER_THREAD = """
import threading, time
import numpy as np
import cuplug
from test_in_flight import SPIN_IR
art, _ = cuplug.compile(SPIN_IR, "int32(CPointer(int32))", entry="spin", entry_abi="c",
                        output="host")
lib = cuplug.load(art)._library
flag = np.zeros(2, dtype=np.int32)  # [the answer, set to go on; set by spin once it runs]
answer = []
t = threading.Thread(target=lambda: answer.append(lib.call(flag)))
t.start()
deadline = time.monotonic() + 60
while not flag[1] and time.monotonic() < deadline:
    time.sleep(0.001)
lib.close()  # while spin runs, the GIL released
flag[0] = 42
t.join()
print(answer)
try:
    lib.call(flag)
except cuplug.ArgumentError as e:
    print(e.message)
"""


def test_close_from_another_thread_during_a_call():
    p = run_python(CLOSE_FROM_ANOTHER_THREAD)
    assert (p.returncode, p.stderr, p.stdout) == (0, "", "[42]\nthe module is closed\n")

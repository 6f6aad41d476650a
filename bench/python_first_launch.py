"""A cold Python process to its first launched kernel: cuplug with an empty
and a warm result cache, against CuPy, numba-cuda and cuda.core doing the
same work in a fresh process of their own.

Each run spawns `python3 THIS_FILE --child KIND ...`, which imports its
library, builds saxpy (r[i] = a * x[i] + y[i], 2^20 float32) for the
current device, makes its three arrays (x = 1, y = 2 from the host; r
empty), launches it over 256-thread blocks with a = 2, and synchronises.
The time is from just before the parent spawns the child (time.monotonic,
one clock for both processes) to just after the synchronisation: the
interpreter's start, the imports, CUDA's initialisation, the build, the
load and the launch.  The child then checks r[0] == 4 (untimed) and prints
its stages.  The kinds:

  * cuplug: `import cuplug`, compile_for_current_device of the corpus's
    saxpy_kernel (tests/conformance/numba/saxpy_kernel: input.ll and the
    signature of case.json) to a cubin, load, get_kernel, kernel[g, b](...)
    on arrays known by __cuda_array_interface__ (cuplug's own mem_alloc and
    to_device: no NumPy); CUPLUG_CACHE_DIR an empty folder each run
    ("empty"), or one folder a first untimed run filled ("warm");
  * CuPy: `import cupy`, a RawKernel of the same saxpy in CUDA C++, arrays
    by cupy.asarray/empty; CUPY_CACHE_DIR empty or warm alike;
  * numba-cuda: `from numba import cuda`, @cuda.jit with the signature
    (compiled eagerly), cuda.to_device; no cache, and cache=True with
    NUMBA_CACHE_DIR empty or warm;
  * cuda.core: Program(...).compile("cubin") of the C++ saxpy by NVRTC (no
    cache of its own), launch() on uninitialised Buffers (no check).
Every run also gets its own CUDA_CACHE_PATH (the driver's JIT cache), shared
by the warm runs of a kind.  Runs go round the variants (one of each, then
the next round), R rounds (5 by default); medians.

    python3 bench/python_first_launch.py [BUILD_DIR] [ROUNDS] [--json FILE]

Targets (issue 10): cuplug with a warm cache below CuPy's import plus first
launch (0.2 to 0.25 s on the H200), and at most a tenth of numba-cuda's."""
import os
import sys
import time

T_TOP = time.monotonic()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = os.path.join(ROOT, "tests", "conformance", "numba", "saxpy_kernel")
N, BLOCK, A = 1 << 20, 256, 2.0
CUDA_SRC = r"""
extern "C" __global__ void saxpy(float *r, const float *x, const float *y, float a, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) r[i] = a * x[i] + y[i];
}
"""
SKIP = 77


# ---- the children: each returns {stage: seconds since T_TOP}, and r[0] ----

def child_cuplug():
    import json

    import cuplug
    t_import = time.monotonic()
    with open(os.path.join(CASE, "case.json")) as f:
        case = json.load(f)
    with open(os.path.join(CASE, "input.ll")) as f:
        ir = f.read()
    try:  # no cuplug.info() first: it loads every toolkit library, which a launch never needs
        cubin, _ = cuplug.compile_for_current_device(ir, case["signature"], entry=case["entry"],
                                                     device=False, output="cubin")
    except cuplug.GPUError as e:
        print("skipped: %s" % e)
        sys.exit(SKIP)
    t_build = time.monotonic()
    kernel = cuplug.load(cubin).get_kernel(case["entry"], case["signature"])
    t_load = time.monotonic()
    from array import array
    s = cuplug.default_session()

    class Arr:
        def __init__(self, ptr):
            self.__cuda_array_interface__ = {"shape": (N,), "typestr": "<f4", "data": (ptr, False),
                                             "strides": None, "version": 3}

    r, x, y = (s.mem_alloc(N * 4) for _ in range(3))
    s.to_device(x, array("f", [1.0]) * N)
    s.to_device(y, array("f", [2.0]) * N)
    kernel[N // BLOCK, BLOCK](Arr(r), Arr(x), Arr(y), A)
    s.synchronize()
    t_done = time.monotonic()
    r0 = array("f", s.to_host(r, 4))[0]
    return {"import": t_import, "build": t_build, "load": t_load, "done": t_done}, r0


def child_cupy():
    try:
        import cupy as cp
        import numpy as np
    except ImportError as e:
        print("skipped: CuPy not installed (%s)" % e)
        sys.exit(SKIP)
    t_import = time.monotonic()
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception:
        print("skipped: no CUDA device")
        sys.exit(SKIP)
    kernel = cp.RawKernel(CUDA_SRC, "saxpy")
    x = cp.asarray(np.full(N, 1.0, dtype=np.float32))
    y = cp.asarray(np.full(N, 2.0, dtype=np.float32))
    r = cp.empty(N, dtype=cp.float32)
    kernel((N // BLOCK,), (BLOCK,), (r, x, y, cp.float32(A), cp.int64(N)))  # compiles, loads
    cp.cuda.runtime.deviceSynchronize()
    t_done = time.monotonic()
    return {"import": t_import, "done": t_done}, float(r[0].get())


cuda = None  # numba-cuda's module, bound by child_numba


def _saxpy_py(r, x, y, a):  # numba-cuda's saxpy: the corpus case's source
    i = cuda.grid(1)
    if i < r.size:
        r[i] = a * x[i] + y[i]


def child_numba(cache):
    try:
        import numpy as np
        np.row_stack = np.vstack  # numpy 2.5 dropped it; numba-cuda 0.30 still uses it
        from numba import cuda
    except ImportError as e:
        print("skipped: numba-cuda not installed (%s)" % e)
        sys.exit(SKIP)
    t_import = time.monotonic()
    if not cuda.is_available():
        print("skipped: no CUDA device")
        sys.exit(SKIP)
    globals()["cuda"] = cuda  # what _saxpy_py calls
    kernel = cuda.jit("void(float32[::1], float32[::1], float32[::1], float32)",
                      cache=cache)(_saxpy_py)
    t_build = time.monotonic()
    x = cuda.to_device(np.full(N, 1.0, dtype=np.float32))
    y = cuda.to_device(np.full(N, 2.0, dtype=np.float32))
    r = cuda.device_array(N, dtype=np.float32)
    kernel[N // BLOCK, BLOCK](r, x, y, np.float32(A))
    cuda.synchronize()
    t_done = time.monotonic()
    return {"import": t_import, "build": t_build, "done": t_done}, float(r[:1].copy_to_host()[0])


def child_cuda_core():
    try:
        try:
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
        except ImportError:  # cuda.core before 1.0
            from cuda.core.experimental import (Device, LaunchConfig, Program, ProgramOptions,
                                                launch)
        import numpy as np
    except ImportError as e:
        print("skipped: cuda.core not installed (%s)" % e)
        sys.exit(SKIP)
    t_import = time.monotonic()
    try:
        dev = Device()
        dev.set_current()
    except Exception as e:
        print("skipped: no CUDA device (%s)" % type(e).__name__)
        sys.exit(SKIP)
    stream = dev.create_stream()
    cc = dev.compute_capability
    prog = Program(CUDA_SRC, "c++", ProgramOptions(arch="sm_%d%d" % (cc[0], cc[1])))
    kernel = prog.compile("cubin").get_kernel("saxpy")
    t_build = time.monotonic()
    bufs = [dev.allocate(N * 4, stream=stream) for _ in range(3)]
    ptrs = [int(b.handle) for b in bufs]
    launch(stream, LaunchConfig(grid=N // BLOCK, block=BLOCK), kernel, ptrs[0], ptrs[1], ptrs[2],
           np.float32(A), np.int64(N))
    stream.sync()
    t_done = time.monotonic()
    return {"import": t_import, "build": t_build, "done": t_done}, None


def child(kind, t_spawn):
    run = {"cuplug": child_cuplug, "cupy": child_cupy, "cuda.core": child_cuda_core,
           "numba": lambda: child_numba(False), "numba-cache": lambda: child_numba(True)}[kind]
    stages, r0 = run()
    out = {k: v - t_spawn for k, v in stages.items()}
    out["start"] = T_TOP - t_spawn
    out["ok"] = r0 is None or r0 == 2.0 * 1.0 + 2.0
    import json
    print(json.dumps(out))


# ---- the parent ----

# (label, kind, cache: "empty" a fresh folder each run, "warm" one folder
# filled by an untimed run first, None no cache)
VARIANTS = [
    ("cuplug, empty cache", "cuplug", "empty"),
    ("cuplug, warm cache", "cuplug", "warm"),
    ("CuPy RawKernel, empty cache", "cupy", "empty"),
    ("CuPy RawKernel, warm cache", "cupy", "warm"),
    ("numba-cuda @cuda.jit, no cache", "numba", None),
    ("numba-cuda cache=True, empty cache", "numba-cache", "empty"),
    ("numba-cuda cache=True, warm cache", "numba-cache", "warm"),
    ("cuda.core Program + launch (NVRTC, no cache)", "cuda.core", None),
]
CACHE_VAR = {"cuplug": "CUPLUG_CACHE_DIR", "cupy": "CUPY_CACHE_DIR", "numba": "NUMBA_CACHE_DIR",
             "numba-cache": "NUMBA_CACHE_DIR", "cuda.core": None}


def spawn(build, kind, folder):
    import json
    import subprocess
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(build, "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["CUDA_CACHE_PATH"] = os.path.join(folder, "nv")
    if CACHE_VAR[kind]:
        env[CACHE_VAR[kind]] = os.path.join(folder, "cache")
    t = time.monotonic()
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", kind, repr(t)],
                       env=env, capture_output=True, text=True, timeout=300)
    if p.returncode == SKIP:
        return None, p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "skipped"
    if p.returncode != 0:
        tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["?"]
        return None, "failed (exit %d): %s" % (p.returncode, tail[0][:120])
    return json.loads(p.stdout.strip().splitlines()[-1]), None


def measure(build, rounds):
    """{label: {"median": s, "stages": {...}, "runs": [...], "ok": bool} or
    {"skipped": why}}."""
    import shutil
    import statistics
    import tempfile
    root = tempfile.mkdtemp(prefix="cuplug_first_launch_")
    results, fresh = {}, iter(range(1 << 30))
    try:
        warm = {}
        for label, kind, cache in VARIANTS:
            results[label] = {"runs": [], "stages": [], "ok": True}
            if cache == "warm":  # fill the folder: an untimed run
                warm[label] = os.path.join(root, "warm-" + kind)
                os.makedirs(warm[label])
                _, why = spawn(build, kind, warm[label])
                if why:
                    results[label] = {"skipped": why}
        for _ in range(rounds):
            for label, kind, cache in VARIANTS:
                if "skipped" in results[label]:
                    continue
                folder = warm.get(label) or os.path.join(root, "run-%d" % next(fresh))
                os.makedirs(folder, exist_ok=True)
                out, why = spawn(build, kind, folder)
                if why:
                    results[label] = {"skipped": why}
                    continue
                results[label]["runs"].append(out["done"])
                results[label]["stages"].append(out)
                results[label]["ok"] &= out["ok"]
        for label, r in results.items():
            if "skipped" in r:
                continue
            r["median"] = statistics.median(r["runs"])
            keys = r["stages"][0].keys()
            r["stages"] = {k: statistics.median(s[k] for s in r["stages"]) for k in keys
                           if k not in ("ok",)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


def stage_text(st):
    """A child's stages, as seconds each: "interpreter 0.012, import 0.005, ..."."""
    parts = ["interpreter %.3f" % st["start"], "import %.3f" % (st["import"] - st["start"])]
    last = st["import"]
    for k in ("build", "load"):
        if k in st:
            parts.append("%s %.3f" % (k, st[k] - last))
            last = st[k]
    parts.append("arrays + launch %.3f" % (st["done"] - last))
    return ", ".join(parts)


def main(argv):
    import json
    args = [a for a in argv if not a.startswith("--")]
    json_out = argv[argv.index("--json") + 1] if "--json" in argv else None
    if json_out:
        args.remove(json_out)
    build = os.path.abspath(args[0] if args else os.path.join(ROOT, "build"))
    rounds = int(args[1]) if len(args) > 1 else 5
    t0 = time.monotonic()
    results = measure(build, rounds)
    print("a cold Python process to its first launched kernel (saxpy, 2^20 float32), "
          "median of %d, seconds:" % rounds)
    for label, r in results.items():
        if "skipped" in r:
            print("  %-46s %s" % (label, r["skipped"]))
            continue
        print("  %-46s %7.3f  (%s)%s" % (label, r["median"], stage_text(r["stages"]),
                                         "" if r["ok"] else " WRONG RESULT"))

    def t(label):
        return results[label].get("median")

    warm, cupy, numba = (t("cuplug, warm cache"), t("CuPy RawKernel, warm cache"),
                         t("numba-cuda @cuda.jit, no cache"))
    if warm and cupy:
        print("  ratio cuplug warm / CuPy warm: %.3f (target below 1)" % (warm / cupy))
    if warm and numba:
        print("  ratio cuplug warm / numba-cuda no cache: %.3f (target at most 0.1)"
              % (warm / numba))
    print("(%.0f s)" % (time.monotonic() - t0))
    if json_out:
        with open(json_out, "w") as f:
            json.dump(results, f, indent=1)
    ok = all(r.get("ok", True) for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], float(sys.argv[3]))
    else:
        sys.exit(main(sys.argv[1:]))

"""Every benchmark of bench/ in one run, and one markdown table of the results:
each row a measurement, its anchor (measured in the same run), the ratio,
the raw numbers and the target.  bench/run_all.sh is the command; see it.

    python3 bench/run_all.py BUILD [OUTFILE]

The programs, in the order of issue 10's list: compile_bench (each corpus
case against bare libNVVM), lex_bench (cuplug's own first pass, issue 22),
backend_bench, cache_bench (when built: its output goes in
verbatim), python_first_launch.py, link_bench, launch_bench,
python_launch_bench.py, numba_compile_bench.py, numba_cubins.py then kernel_bench (CUDA C++ by
NVRTC and numba-cuda's builds), stream_bench, lto_bench, builtin_bench.
(helper_variants.sh is a tuning tool, not run.)  A program that cannot run
here (no GPU, no numba-cuda, no CuPy) gives a row "skipped: why", never a
number.  stdout: a line per program as it runs, then the table; OUTFILE
gets the table, then each program's own output."""
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "conformance", "numba")
PY = sys.executable
SKIP = 77

rows = []  # (measurement, anchor, ratio, raw, target)
raw_outputs = []  # (title, command, text)


def row(measurement, anchor="", ratio="", raw="", target=""):
    rows.append((measurement, anchor, ratio, raw, target))


def skipped(measurement, why):
    rows.append((measurement, "", "", "skipped: " + why, ""))


def run(title, argv, timeout=300, env=None):
    """Runs a program; returns (exit status, its output), and keeps the output."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=timeout,
                           env=env)
        rc, out = p.returncode, p.stdout + (("\n" + p.stderr) if p.stderr.strip() else "")
    except subprocess.TimeoutExpired as e:
        rc, out = None, "timed out after %d s\n%s" % (timeout, e.stdout or "")
    except OSError as e:
        rc, out = None, str(e)
    dt = time.monotonic() - t0
    print("  %-24s %6.1f s  %s" % (title, dt, "ok" if rc == 0 else
                                 "skipped" if rc == SKIP else "exit %s" % rc), flush=True)
    raw_outputs.append((title, " ".join(shlex.quote(os.path.relpath(a, ROOT) if os.path.isabs(a)
                                                    and a.startswith(ROOT) else a)
                                        for a in argv), out))
    return rc, out


def why_not(rc, out):
    """Why a program gave no numbers: its skip line, or its exit."""
    m = re.search(r"skipped: (.*)", out)
    if m:
        return m.group(1).strip()
    last = [line for line in out.strip().splitlines() if line.strip()][-1:] or ["no output"]
    return "failed (%s): %s" % ("timed out" if rc is None else "exit %s" % rc, last[0][:150])


def num(pattern, text, group=1):
    m = re.search(pattern, text, re.M)
    return float(m.group(group)) if m else None


def x(v, digits=3):
    return "" if v is None else "%.*fx" % (digits, v)


# ---- the programs ----

ROUNDS = 5  # compile_bench runs: each starts its own helper, placed anew


def compile_bench(build):
    """Five runs: the safe path's geometric mean moves from run to run more
    than within one (each run's helper process lands on its own vCPU), so
    the table gives the median run, and the spread of all five, with each
    run's helper's pace (libNVVM's own time in the helper against the
    host's, compile_bench --stages) and the safe path at the host's pace."""
    title = "compile_bench --stages"
    runs = []
    for _ in range(ROUNDS):
        rc, out = run(title, [os.path.join(build, "bin", "compile_bench"), "--stages", CORPUS,
                              "31"])
        if rc != 0:
            return skipped("compile latency, each conformance case", why_not(rc, out))
        means = {}
        for m in re.finditer(r"geometric mean, (\w+)\s*: cuplug/bare ([\d.]+), cuplug/final "
                             r"([\d.]+), trusted/bare ([\d.]+) \((\d+) cases\)", out):
            means[m.group(1)] = [float(m.group(2)), float(m.group(3)), float(m.group(4)),
                                 int(m.group(5)), None, None]
        for m in re.finditer(r"helper's pace, (\w+): libNVVM in the helper / in this process "
                             r"([\d.]+); cuplug/bare with libNVVM at this process's pace "
                             r"([\d.]+)", out):
            if m.group(1) in means:
                means[m.group(1)][4:6] = float(m.group(2)), float(m.group(3))
        if "ltoir" not in means:
            return skipped("compile latency, each conformance case", "no geometric mean")
        runs.append((means, out))
    runs.sort(key=lambda r: r[0]["ltoir"][0])
    means, out = runs[len(runs) // 2]
    names = {"ltoir": "LTO-IR", "ptx": "PTX"}
    for output in ("ltoir", "ptx"):
        for m in re.finditer(r"^(\S+)\s+%s\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                             r"\s+([\d.]+)\s+([\d.]+)$" % output, out, re.M):
            case, bare, _, plug, trusted = m.group(1), *map(float, m.group(2, 3, 4, 5))
            row("compile `%s` to %s (median run)" % (case, names[output]),
                "bare libNVVM on input.ll", x(plug / bare),
                "cuplug %.3f ms, bare %.3f ms; trusted session %.3f ms (%s)"
                % (plug, bare, trusted, x(trusted / bare)),
                "1.10x" if output == "ltoir" else "")
        if output not in means:
            continue
        plug, final, trusted, cases, _, _ = means[output]
        ordered = sorted((r[0][output] for r in runs), key=lambda m: m[0])
        tspread = sorted(r[0][output][2] for r in runs)
        pace = ["%.3f (%s)" % (m[0], "helper's pace %.2f" % m[4] if m[4] else "?")
                for m in ordered]
        row("**compile to %s, geometric mean of %d cases, median of %d runs**"
            % (names[output], cases, len(runs)), "bare libNVVM on input.ll", "**%s**" % x(plug),
            "runs %s; trusted session %s (runs %s to %s); cuplug / libNVVM on cuplug's final "
            "IR %s" % (", ".join(pace), x(trusted), x(tspread[0]), x(tspread[-1]), x(final)),
            "1.10x (trusted 1.05x)" if output == "ltoir" else "")
        paced = sorted(m[5] for m in ordered if m[5])
        if len(paced) == len(ordered):
            row("compile to %s, the same runs with the helper's libNVVM time taken at the "
                "host's pace (the machine's part of the spread taken out)" % names[output],
                "bare libNVVM on input.ll", x(paced[len(paced) // 2]),
                "runs %s" % ", ".join("%.3f" % v for v in paced), "")
    compile_stages(runs[len(runs) // 2][1])


def compile_stages(out):
    """Where an LTO-IR compile's time goes, safe against trusted: the
    handoff's three parts, in the median run (compile_bench --stages)."""
    what = "where an LTO-IR compile's time goes"
    if "stages, ltoir" in out:  # the LTO-IR table alone, not the PTX one after it
        out = out[out.find("stages, ltoir"):]
        out = out[:out.find("stages, ptx")] if "stages, ptx" in out else out
    stage = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in
             re.finditer(r"^  (\S+|\(outside the stages\)|\(whole compile\))\s+(-?[\d.]+)\s+"
                         r"(-?[\d.]+)\s+-?[\d.]+$", out, re.M)}
    if "(whole compile)" not in stage:
        return skipped(what, "no stage table")
    safe, trusted = stage["(whole compile)"]
    parts = ["%s %.3f / %.3f" % (name, *stage[name]) for name in
             ("hand_over", "run_nvvm", "hand_back", "parse_modules", "lower",
              "(outside the stages)") if name in stage]
    row("%s: stages summed over the corpus, safe / trusted (ms)" % what, "", "",
        "whole compile %.3f / %.3f: %s" % (safe, trusted, "; ".join(parts)), "")


def cache_bench(build):
    """Rows from cache_bench's four sections; where a section does not
    parse, its output is still below the table."""
    what = "cache hits, cold C process, compile throughput"
    path = os.path.join(build, "bin", "cache_bench")
    if not os.path.exists(path):
        return skipped(what, "cache_bench is not built")
    rc, out = run("cache_bench", [path, CORPUS], timeout=400)
    if rc != 0:
        return skipped(what, why_not(rc, out))
    n = len(rows)
    m = re.search(r"memory hit: mean ([\d.]+) us \(build/memory, geometric mean ([\d.]+)x\); "
                  r"disk hit: mean ([\d.]+) us \(build/disk ([\d.]+)x\)", out)
    if m:
        cases = len(re.findall(r"^\S+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+\d+\s+\d+$", out, re.M))
        row("cache hit from memory (LTO-IR), mean of %d cases" % cases, "the build, no cache",
            "1/%s" % m.group(2), "%s us" % m.group(1), "10 us")
        row("cache hit from disk, new session (LTO-IR), mean of %d cases" % cases,
            "the build, no cache", "1/%s" % m.group(4), "%s us" % m.group(3), "")
    cold = {}
    for m in re.finditer(r"^(empty|warm \(disk\))\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$",
                         out, re.M):
        cold[m.group(1).split()[0]] = tuple(map(float, m.group(2, 3, 4, 5)))
    if "empty" in cold and "warm" in cold:
        (pe, _, ce, ke), (pw, xw, cw, kw) = cold["empty"], cold["warm"]
        row("cold C process to its first launched kernel, warm cache", "the same, empty cache",
            x(pw / pe), "%.2f ms vs %.2f ms (context %.2f ms; compile %.3f vs %.3f ms)"
            % (pw, pe, xw, cw, ce), "")
        row("disk hit to a loaded kernel, fresh C process (compile + load + kernel_get)",
            "the same, empty cache", x(kw / ke), "%.3f ms vs %.3f ms" % (kw, ke), "0.25 ms")
    ways = {}
    for m in re.finditer(r"^(build, disk|build, \+remote|remote hit|disk hit)\s+([\d.]+)\s+"
                         r"([\d.]+)\s+([\d.]+)$", out, re.M):
        ways[m.group(1)] = tuple(map(float, m.group(2, 3, 4)))
    if len(ways) == 4:  # section 4: the remote tier, on a loopback Redis
        (_, _, kb), (_, _, kr), (_, _, kh), (_, _, kd) = (
            ways["build, disk"], ways["build, +remote"], ways["remote hit"], ways["disk hit"])
        row("remote hit to a loaded kernel, fresh C process, loopback Redis (compile + load + "
            "kernel_get)", "a disk hit, the same way", x(kh / kd),
            "%.3f ms vs %.3f ms; a build %.3f ms (%.0fx the remote hit)" % (kh, kd, kb, kb / kh),
            "")
        row("what a remote adds to a build (its store), fresh C process", "the build, disk only",
            x(kr / kb), "%.3f ms vs %.3f ms" % (kr, kb), "")
    elif "4. the remote tier" in out:
        m = re.search(r"^skipped: (.*)$", out, re.M)
        if m:
            skipped("the remote tier (cache_bench section 4)", m.group(1))
    m = re.search(r"compile throughput.*?(\d+) CPUs", out)
    cpus = int(m.group(1)) if m else 0
    for m in re.finditer(r"^(\d+)\s+([\d.]+)\s+([\d.]+)x\s+([\d.]+)\s+([\d.]+)\s+"
                         r"([\d.]+)x\s+([\d.]+)$", out, re.M):
        threads = int(m.group(1))
        if threads == 1:
            continue
        target = ("1.7x" if threads == 2 and cpus == 2 else
                  "6x (or where libNVVM stops it)" if threads == 8 and cpus >= 8 else "")
        row("compile throughput, %d threads (builds, LTO-IR)" % threads, "1 thread",
            "%sx" % m.group(3), "%s compiles/s, %s cores busy; trusted session (libNVVM in "
            "process) %s/s, %sx, %s cores" % (m.group(2), m.group(4), m.group(5), m.group(6),
                                              m.group(7)), target)
    if len(rows) == n:  # the format moved on: the output is below the table
        row(what, "see cache_bench's output below the table", "", "", "")


def python_first_launch(build):
    title = "python_first_launch.py"
    with tempfile.TemporaryDirectory() as d:
        result = os.path.join(d, "r.json")
        rc, out = run(title, [PY, os.path.join(ROOT, "bench", "python_first_launch.py"), build, "5",
                              "--json", result], timeout=400)
        res = None
        if os.path.exists(result):
            with open(result) as f:
                res = json.load(f)
    what = "cold Python process to its first launched kernel"
    if res is None:
        return skipped(what, why_not(rc, out))

    def med(label):
        return res.get(label, {}).get("median")

    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from python_first_launch import stage_text

    def stages(label):
        return stage_text(res[label]["stages"])

    ours_skipped = {res.get(k, {}).get("skipped") for k in ("cuplug, warm cache",
                                                           "cuplug, empty cache")}
    if None not in ours_skipped:  # nothing of cuplug's to compare
        return skipped(what, "; ".join(sorted(w.replace("skipped: ", "") for w in ours_skipped)))
    for ours, theirs, target in [
            ("cuplug, warm cache", "CuPy RawKernel, warm cache", "below 1 (CuPy 0.2 to 0.25 s)"),
            ("cuplug, warm cache", "numba-cuda @cuda.jit, no cache", "0.10x"),
            ("cuplug, warm cache", "numba-cuda cache=True, warm cache", ""),
            ("cuplug, empty cache", "CuPy RawKernel, empty cache", ""),
            ("cuplug, empty cache", "numba-cuda @cuda.jit, no cache", ""),
            ("cuplug, empty cache", "numba-cuda cache=True, empty cache", ""),
            ("cuplug, empty cache", "cuda.core Program + launch (NVRTC, no cache)", "")]:
        m = "%s: %s" % (what, ours)
        for label in (ours, theirs):
            if "skipped" in res.get(label, {"skipped": "not measured"}):
                skipped(m + " / " + theirs, "%s: %s" % (label, res.get(label, {}).get(
                    "skipped", "not measured").replace("skipped: ", "")))
                break
        else:
            bad = "" if res[ours]["ok"] and res[theirs]["ok"] else " WRONG RESULT"
            row(m, theirs, x(med(ours) / med(theirs)),
                "%.3f s vs %.3f s%s" % (med(ours), med(theirs), bad), target)
    for label in ("cuplug, empty cache", "cuplug, warm cache"):
        if med(label):
            row("%s, %s: stages (s)" % (what, label), "", "", stages(label), "")


def backend_bench(build):
    """The NVPTX backend's compile latency against libNVVM's, in one run."""
    what = "compile to PTX through the NVPTX backend"
    rc, out = run("backend_bench", [os.path.join(build, "bin", "backend_bench"), CORPUS, "11",
                                    os.path.join(ROOT, "tests", "triton", "fixtures")])
    m = re.search(r"geometric mean, ptx: nvptx/libnvvm ([\d.]+), trusted nvptx/libnvvm ([\d.]+) "
                  r"\((\d+) cases\)", out)
    if rc != 0 or not m:
        return skipped(what, why_not(rc, out))
    row("**%s, geometric mean of %s cases**" % (what, m.group(3)), "cuplug's PTX through libNVVM",
        "**%s**" % x(float(m.group(1))), "trusted session %s" % x(float(m.group(2))), "")
    for t in re.finditer(r"^(add|softmax|gelu|matmul)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+"
                         r"([\d.]+)\s+([\d.]+)$", out, re.M):
        row("compile Triton's `%s` LLIR to PTX, cc 9.0a (NVPTX backend)" % t.group(1),
            "bare LLVM 22 on the same lowered IR", x(float(t.group(5))),
            "%s ms vs %s ms; trusted session %s ms" % (t.group(2), t.group(4), t.group(3)), "")
    m = re.search(r"geometric mean, nvptx/bare llvm ([\d.]+), trusted nvptx/bare llvm ([\d.]+) "
                  r"\((\d+) cases", out)
    if m:
        row("**compile to PTX through the NVPTX backend, geometric mean of %s cases (the corpus "
            "and Triton's)**" % m.group(3),
            "LLVM 22's NVPTX code generator called bare in one process, on the IR cuplug hands it",
            "**%s**" % x(float(m.group(1))), "trusted session %s" % x(float(m.group(2))), "")


def link_bench(build):
    """Five runs, as compile_bench: the median run and the spread."""
    what = "link() of LTO-IR (a kernel and an external function)"
    runs = []
    for _ in range(ROUNDS):
        rc, out = run("link_bench", [os.path.join(build, "bin", "link_bench"), "--stages"])
        if rc != 0:
            return skipped(what, why_not(rc, out))
        bare = num(r"bare nvJitLink:\s*([\d.]+)", out)
        plug = num(r"cuplug link\(\):\s*([\d.]+)", out)
        helper = num(r"^  run_nvjitlink\s+([\d.]+)$", out)
        runs.append((plug / bare, plug, bare, out, helper))
    runs.sort(key=lambda r: r[0])
    ratio, plug, bare, out, _ = runs[len(runs) // 2]
    stages = ["%s %s" % m.group(1, 2) for m in
              re.finditer(r"^  (hand_over|run_nvjitlink|hand_back)\s+([\d.]+)$", out, re.M)]
    row("**%s, median of %d runs**" % (what, len(runs)), "bare nvJitLink, same inputs",
        "**%s**" % x(ratio), "%.3f ms vs %.3f ms; runs %s; the median run's stages (ms): %s"
        % (plug, bare, ", ".join("%.3f" % r[0] for r in runs), ", ".join(stages)), "1.10x")
    # nvJitLink does the same work in the helper as bare in this process:
    # its time there, put at this process's pace (the bare link's), leaves
    # what cuplug adds (the round trip, the code gathered and described)
    paced = sorted((p - h + b) / b for _, p, b, _, h in runs if h is not None)
    if paced:
        row("%s, the same runs with nvJitLink's time in the helper taken at the host's pace "
            "(the machine's part of the spread taken out)" % what, "bare nvJitLink, same inputs",
            x(paced[len(paced) // 2]), "runs %s; nvJitLink in the helper / bare, run by run: %s"
            % (", ".join("%.3f" % r for r in paced),
               ", ".join("%.2f" % (h / b) for _, _, b, _, h in runs if h is not None)), "")


def launch_bench(build):
    rc, out = run("launch_bench", [os.path.join(build, "bin", "launch_bench")])
    what = "launch host cost from C, 5 arguments"
    if rc != 0:
        return skipped(what, why_not(rc, out))
    raw = num(r"raw cuLaunchKernel[^:]*:\s*([\d.]+)", out)
    plug = num(r"cuplug launch\(\):\s*([\d.]+)", out)
    row(what, "raw cuLaunchKernel, arguments packed once", x(plug / raw),
        "%.3f us vs %.3f us" % (plug, raw), "1.10x")


def have_gpu(build):
    rc, out = run("cuplug info", [os.path.join(build, "bin", "cuplug"), "info"])
    return rc == 0 and not re.search(r"^GPUs\s+none", out, re.M), out


def has_module(code):
    return subprocess.run([PY, "-c", code], capture_output=True, timeout=120).returncode == 0


def python_launch_bench(build, gpu):
    what = "launch host cost from Python"
    if not gpu:
        return skipped(what, "no CUDA device")
    if not has_module("import cupy"):
        return skipped(what, "CuPy not installed (it provides the arrays)")
    rc, out = run("python_launch_bench.py",
                  [PY, os.path.join(ROOT, "bench", "python_launch_bench.py"), build])
    if rc != 0:
        return skipped(what, why_not(rc, out))
    raw = num(r"^raw cuLaunchKernel from C \(5 args\)\s+([\d.]+)", out)
    for m in re.finditer(r"^(\S.*?)\s+([\d.]+)\s+([\d.]+)$", out, re.M):
        name, us, ratio = m.group(1), float(m.group(2)), float(m.group(3))
        if name.startswith("raw cuLaunchKernel"):
            continue
        target = ""
        if name.startswith("cuplug kernel[g, b]"):
            target = "2.0x, below CuPy and numba-cuda"
        elif name.startswith("cuplug, CPointer"):
            target = "below cuda.core"
        elif name.startswith("numba-cuda dispatcher with cuplug.numba.install()"):
            target = "2.5x"
        row("%s: %s" % (what, name.strip()), "raw cuLaunchKernel from C, 5 arguments",
            x(ratio), "%.3f us vs %.3f us" % (us, raw), target)
    for m in re.finditer(r"^(\S.*?)\s+n/a$", out, re.M):
        skipped("%s: %s" % (what, m.group(1).split(":")[0]), m.group(1).split(":", 1)[-1].strip())
    ms = num(r"import cuplug \(fresh process\)\s+([\d.]+) ms", out)
    if ms is not None:
        row("`import cuplug` in a fresh process", "", "", "%.1f ms" % ms, "50 ms")


def numba_compile_bench(build, gpu):
    what = "numba-cuda end-to-end compile, cuda.jit(sig) to a loaded kernel, through cuplug.numba.install()"
    if not gpu:
        return skipped(what, "no CUDA device")
    rc, out = run("numba_compile_bench.py",
                  [PY, os.path.join(ROOT, "bench", "numba_compile_bench.py"), build])
    if rc != 0:
        return skipped(what, why_not(rc, out))
    for m in re.finditer(r"^(\w+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M):
        row("%s: `%s`" % (what, m.group(1)), "stock numba-cuda, the same kernel",
            x(float(m.group(4))), "%s ms vs %s ms" % (m.group(3), m.group(2)), "below 1")


def kernel_bench(build, gpu):
    what = "kernel run time"
    if not gpu:
        return skipped(what + " (corpus kernels, CUDA C++ by NVRTC, numba-cuda)", "no CUDA device")
    numba_dir = tempfile.mkdtemp(prefix="cuplug_numba_cubins_")
    try:
        numba_why = None
        if has_module("import numpy; numpy.row_stack = numpy.vstack; import numba.cuda"):
            rc, out = run("numba_cubins.py", [PY, os.path.join(ROOT, "bench", "numba_cubins.py"),
                                              CORPUS, numba_dir])
            if rc != 0:
                numba_why = "numba_cubins.py " + why_not(rc, out)
        else:
            numba_why = "numba-cuda not installed"
        rc, out = run("kernel_bench", [os.path.join(build, "bin", "kernel_bench"), CORPUS]
                      + ([numba_dir] if numba_why is None else []))
    finally:
        shutil.rmtree(numba_dir, ignore_errors=True)
    if rc not in (0, 1) or not re.search(r"^geometric mean ratio cuplug / NVRTC", out, re.M):
        return skipped(what + " (corpus kernels)", why_not(rc, out))
    for m in re.finditer(r"^(\w+)\s+([\d.]+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+(\S+)"
                         r"\s+([\d.]+)\s+(\S+)$", out, re.M):
        case, nvrtc, numba, plug, nvptx, same = (m.group(1), float(m.group(2)), m.group(3),
                                                 float(m.group(4)), float(m.group(5)), m.group(9))
        note = {"yes": "; same result", "NO": "; RESULTS DIFFER", "-": ""}.get(same, "")
        row("kernel `%s` (cuplug)" % case, "the same kernel in CUDA C++, NVRTC", x(plug / nvrtc),
            "%.4f ms vs %.4f ms%s" % (plug, nvrtc, note), "1.02x")
        if numba_why or numba == "n/a":
            skipped("kernel `%s` (cuplug) / numba-cuda's build" % case,
                    numba_why or "numba_cubins.py made no build of it")
        else:
            row("kernel `%s` (cuplug)" % case, "numba-cuda's own cubin", x(plug / float(numba)),
                "%.4f ms vs %s ms" % (plug, numba), "1.02x")
        row("kernel `%s` (cuplug, NVPTX backend)" % case, "cuplug's libNVVM build",
            x(nvptx / plug), "%.4f ms vs %.4f ms" % (nvptx, plug), "1.05x")
    g = num(r"^geometric mean ratio cuplug / NVRTC CUDA C\+\+: ([\d.]+)", out)
    row("**kernels, geometric mean**", "CUDA C++ by NVRTC", "**%s**" % x(g), "", "1.02x")
    g = num(r"^geometric mean ratio NVPTX backend / libNVVM: ([\d.]+)", out)
    row("**kernels, geometric mean (NVPTX backend)**", "cuplug's libNVVM builds",
        "**%s**" % x(g), "", "1.05x")
    g = num(r"^geometric mean ratio cuplug / numba-cuda: ([\d.]+)", out)
    if g is not None:
        row("**kernels, geometric mean**", "numba-cuda's builds", "**%s**" % x(g), "", "1.02x")


def stream_bench(build):
    rc, out = run("stream_bench", [os.path.join(build, "bin", "stream_bench"), CORPUS, "1"])
    what = "streaming bandwidth, 1 GiB arrays"
    if rc not in (0, 1) or "cuMemcpyDtoD" not in out:
        return skipped(what, why_not(rc, out))
    copy_bw = num(r"cuMemcpyDtoD:\s+[\d.]+ ms\s+([\d.]+) GB/s", out)
    for name, label in (("copy kernel (cuplug)", "copy kernel, numba-cuda dialect, an element "
                                                 "a thread"),
                        ("copy4 kernel (cuplug)", "the same, four elements a thread"),
                        ("saxpy_kernel (cuplug)", "corpus `saxpy_kernel`")):
        m = re.search(re.escape(name) + r":\s+([\d.]+) ms\s+([\d.]+) GB/s\s+([\d.]+)(.*)", out)
        if m and copy_bw:
            row("%s: %s (cuplug)" % (what, label), "cuMemcpyDtoD of the same bytes",
                "%.1f%%" % (100 * float(m.group(3))),
                "%s GB/s vs %.1f GB/s (bytes read + written)%s"
                % (m.group(2), copy_bw, "; WRONG RESULT" if "WRONG" in m.group(4) else ""),
                "90%")


def lto_bench(build):
    rc, out = run("lto_bench", [os.path.join(build, "bin", "lto_bench")])
    what = "a kernel calling a CUDA C++ function 4096 times, linked with LTO"
    if rc != 0:
        return skipped(what, why_not(rc, out))
    plain = num(r"linked without LTO:\s*([\d.]+)", out)
    lto = num(r"linked with LTO:\s*([\d.]+)", out)
    same = re.search(r"same result: (\w+)", out)
    row(what, "the same, linked without LTO", x(lto / plain),
        "%.3f ms vs %.3f ms (%.1fx faster; same result: %s)"
        % (lto, plain, plain / lto, same.group(1) if same else "?"), "")
    m = re.search(r"NVPTX backend \(PTX linked, the call kept\):\s*([\d.]+) ms.*same result: (\w+)",
                  out)
    if m:
        row("the same kernel through the NVPTX backend (the CUDA C++ call not inlined)",
            "libNVVM's build, linked with LTO", x(float(m.group(1)) / lto),
            "%s ms vs %.3f ms (same result: %s)" % (m.group(1), lto, m.group(2)), "")


def lex_bench(build):
    rc, out = run("lex_bench", [os.path.join(build, "bin", "lex_bench")])
    what = "cuplug's first pass over the corpus (lexing and the split into items: `parse_modules`)"
    if rc != 0:
        return skipped(what, why_not(rc, out))
    m = re.search(r"corpus: (\d+) bytes, (\d+) tokens; warm ([\d.]+) us \(([\d.]+) ns/token\), "
                  r"cold ([\d.]+) us \(([\d.]+) ns/token, ([\d.]+) ns/byte\)", out)
    after = re.search(r"after libNVVM: ([\d.]+) us \(([\d.]+) ns/token\)", out)
    if m:
        row(what, "", "", "%s%s ns/token, %s ns/byte (%s us for %s tokens), each after 8 MiB of "
            "other reads; back to back %s ns/token" % (
                "each right after a bare libNVVM compile (as in a compile) %s ns/token (%s us); "
                % after.group(2, 1) if after else "",
                m.group(6), m.group(7), m.group(5), m.group(2), m.group(4)), "")


def builtin_bench(build):
    rc, out = run("builtin_bench", [os.path.join(build, "bin", "builtin_bench")])
    what = "a kernel of 5 built-in calls"
    if rc != 0:
        return skipped(what, why_not(rc, out))
    m = re.search(r"PTX instructions in the kernel: builtins (\d+), inline (\d+)", out)
    if m:
        row(what + ": PTX instructions", "the intrinsics written out", x(int(m.group(1)) /
                                                                          int(m.group(2))),
            "%s vs %s" % m.group(1, 2), "1.00x")
    m = re.search(r"builtins ([\d.]+) ms, inline ([\d.]+) ms; bare libNVVM: inline ([\d.]+) ms",
                  out)
    if m:
        b, i, n = map(float, m.group(1, 2, 3))
        row(what + ": compile to PTX", "bare libNVVM on the written-out kernel", x(b / n),
            "%.2f ms vs %.2f ms; through cuplug, written out %.2f ms (%s)" % (b, n, i, x(b / i)),
            "")
    m = re.search(r"kernel time, .*builtins ([\d.]+) ms, inline ([\d.]+) ms", out)
    if m:
        b, i = map(float, m.group(1, 2))
        row(what + ": kernel time", "the intrinsics written out", x(b / i),
            "%.4f ms vs %.4f ms" % (b, i), "1.00x")
    elif "kernel time: no GPU" in out:
        skipped(what + ": kernel time", "no CUDA device")
    m = re.search(r"resolve_call: math.sin\(float32\) (\d+) ns.*?\) (\d+) ns", out)
    if m:
        row("`resolve_call`: a concrete and a generic template", "", "",
            "%s ns, %s ns" % m.group(1, 2), "")


# ---- the report ----

def machine(gpu_info):
    gpu = "no GPU"
    if shutil.which("nvidia-smi"):
        p = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                            "--format=csv,noheader"], capture_output=True, text=True)
        if p.returncode == 0 and p.stdout.strip():
            gpus = p.stdout.strip().splitlines()
            gpu = "%s%s (driver %s, %s)" % ("%d x " % len(gpus) if len(gpus) > 1 else "",
                                            *[s.strip() for s in gpus[0].split(",")][:3])
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            cpu = m.group(1) if m else cpu
    except OSError:
        pass
    return gpu, "%d CPUs (%s)" % (os.cpu_count() or 0, cpu)


def python_versions():
    code = ("import importlib.metadata as m, platform\n"
            "out = ['Python ' + platform.python_version()]\n"
            "for p in ('numba-cuda', 'numba', 'cupy-cuda13x', 'cupy-cuda12x', 'cupy', "
            "'cuda-core', 'numpy', 'torch'):\n"
            "    try: out.append(p + ' ' + m.version(p))\n"
            "    except Exception: pass\n"
            "print(', '.join(out))")
    p = subprocess.run([PY, "-c", code], capture_output=True, text=True)
    return p.stdout.strip() or "?"


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def main(argv):
    if not argv:
        print("usage: run_all.py BUILD [OUTFILE]", file=sys.stderr)
        return 2
    build = os.path.abspath(argv[0])
    outfile = argv[1] if len(argv) > 1 else None
    command = os.environ.get("CUPLUG_BENCH_COMMAND") or " ".join(
        ["python3", "bench/run_all.py"] + [shlex.quote(a) for a in argv])
    t0 = time.monotonic()
    start = datetime.datetime.now(datetime.timezone.utc)
    print("running the benchmarks (%s):" % command, flush=True)
    gpu, info = have_gpu(build)

    compile_bench(build)
    lex_bench(build)
    backend_bench(build)
    cache_bench(build)
    python_first_launch(build)
    link_bench(build)
    launch_bench(build)
    python_launch_bench(build, gpu)
    numba_compile_bench(build, gpu)
    kernel_bench(build, gpu)
    stream_bench(build)
    lto_bench(build)
    builtin_bench(build)

    took = time.monotonic() - t0
    gpu_name, cpus = machine(info)
    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip() or "?"
    tk = {}
    for key in ("cuplug", "libNVVM", "NVRTC", "nvJitLink", "driver"):
        m = re.search(r"^%s\s+(.*)$" % key, info, re.M)
        tk[key] = m.group(1).strip() if m else "?"
    head = [
        "# cuplug benchmarks",
        "",
        "* **date**: %s" % start.strftime("%Y-%m-%d %H:%M UTC"),
        "* **machine**: %s; %s" % (gpu_name, cpus),
        "* **toolkit** (`cuplug info`): cuplug %s; libNVVM %s; NVRTC %s; nvJitLink %s; driver %s"
        % (tk["cuplug"], tk["libNVVM"], tk["NVRTC"], tk["nvJitLink"], tk["driver"]),
        "* **Python**: %s" % python_versions(),
        "* **command**: `%s` (commit %s), %.0f s" % (command, commit, took),
        "",
        "Ratios are measurement / anchor, both taken in the same run: below 1 is faster "
        "(bandwidth: the share of the anchor's). Targets are the issues' (2, 3, 9, 10, 22).",
        "",
        "| measurement | anchor | ratio | raw | target |",
        "| --- | --- | --- | --- | --- |",
    ]
    table = head + ["| %s |" % " | ".join(cell(c) for c in r) for r in rows]
    text = "\n".join(table) + "\n"
    raw = ["", "## What each program printed", ""]
    for title, cmd, out in raw_outputs:
        raw += ["<details><summary>%s</summary>" % title, "", "```", "$ " + cmd,
                out.rstrip(), "```", "", "</details>", ""]
    if outfile:
        with open(outfile, "w") as f:
            f.write(text + "\n".join(raw) + "\n")
    else:
        print("\n".join(raw))
    print()
    print(text, end="")
    if outfile:
        print("\n(written to %s with each program's output)" % outfile)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

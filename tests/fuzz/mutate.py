#!/usr/bin/env python3
"""Process-level mutation run: corrupted copies of the conformance corpus
through the CLI, the way a buggy front end would send them.

    python3 tests/fuzz/mutate.py [--runs N] [--cli build-asan/bin/cuplug] [--jobs J]

Each run takes a case, corrupts its input.ll once (lines swapped, deleted,
duplicated or moved; a token replaced by another of the file; bytes flipped;
the text cut short; a label moved) and compiles it with `cuplug case DIR
--output ltoir`, under a 60 s limit.  Every run must end in a compile or in
a clean error ("cuplug: error: CUPLUG_..."), never in a signal, a sanitizer
report or a hang.  Prints the counts, and keeps every input that did not end
cleanly in build-fuzz/mutations/ (exit 1 when there is one).
"""
import argparse
import collections
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "conformance", "numba")
TOKEN = re.compile(r'%"[^"]*"|%[\w.$]+|@"[^"]*"|@[\w.$]+|![\w.]+|-?\d+(?:\.\d+)?|\w+|[^\s\w]')


def mutate(text, rng):
    lines = text.split("\n")
    kind = rng.randrange(9)
    if kind == 0 and len(lines) > 2:  # two lines swapped
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 1 and lines:  # a line deleted
        del lines[rng.randrange(len(lines))]
    elif kind == 2 and lines:  # a line duplicated
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines)), lines[i])
    elif kind == 3 and lines:  # a line moved
        line = lines.pop(rng.randrange(len(lines)))
        lines.insert(rng.randrange(len(lines) + 1), line)
    elif kind in (4, 5):  # a token replaced by another of the file
        tokens = [m for m in TOKEN.finditer(text)]
        if tokens:
            a, b = rng.choice(tokens), rng.choice(tokens)
            return text[:a.start()] + b.group(0) + text[a.end():]
    elif kind == 6 and text:  # bytes flipped
        data = bytearray(text.encode())
        for _ in range(rng.randrange(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return data.decode("latin-1")
    elif kind == 7 and text:  # cut short
        return text[: rng.randrange(len(text))]
    else:  # a label moved below the next instruction
        labels = [i for i, l in enumerate(lines) if re.match(r'^"?[\w.$]+"?:', l)]
        if labels:
            i = rng.choice(labels)
            if i + 1 < len(lines):
                lines[i], lines[i + 1] = lines[i + 1], lines[i]
    return "\n".join(lines)


def run_one(args):
    cli, case, seed, keep = args
    rng = random.Random(seed)
    src = os.path.join(CORPUS, case)
    with tempfile.TemporaryDirectory(prefix="cuplug-mut-") as tmp:
        dst = os.path.join(tmp, case)
        shutil.copytree(src, dst)
        with open(os.path.join(src, "input.ll"), encoding="latin-1") as f:
            text = mutate(f.read(), rng)
        with open(os.path.join(dst, "input.ll"), "w", encoding="latin-1") as f:
            f.write(text)
        try:
            p = subprocess.run([cli, "case", dst, "--output", "ltoir", "-o", os.devnull],
                               capture_output=True, text=True, errors="replace", timeout=60)
        except subprocess.TimeoutExpired:
            outcome, detail = "hung", ""
        else:
            if p.returncode == 0:
                outcome, detail = "compiled", ""
            elif p.returncode == 1 and p.stderr.startswith("cuplug: error: CUPLUG_") and \
                    "Sanitizer" not in p.stderr:
                outcome, detail = "clean error", p.stderr.split(":")[2].strip()
            else:
                outcome, detail = "crashed", "rc=%d %s" % (p.returncode, p.stderr[-2000:])
        if outcome in ("hung", "crashed"):
            os.makedirs(keep, exist_ok=True)
            name = "%s-%d" % (case, seed)
            shutil.copytree(dst, os.path.join(keep, name))
            with open(os.path.join(keep, name, "outcome.txt"), "w") as f:
                f.write(outcome + "\n" + detail)
        return outcome, detail


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10000)
    ap.add_argument("--cli", default=os.path.join(ROOT, "build-asan", "bin", "cuplug"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", default=os.path.join(ROOT, "build-fuzz", "mutations"))
    a = ap.parse_args()
    env = os.environ
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    env.setdefault("LSAN_OPTIONS", "suppressions=%s/tests/lsan.supp" % ROOT)
    cases = sorted(d for d in os.listdir(CORPUS) if os.path.isdir(os.path.join(CORPUS, d)))
    work = [(a.cli, cases[i % len(cases)], a.seed * 1000003 + i, a.keep) for i in range(a.runs)]
    counts, codes = collections.Counter(), collections.Counter()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for done, (outcome, detail) in enumerate(pool.map(run_one, work), 1):
            counts[outcome] += 1
            if outcome == "clean error":
                codes[detail] += 1
            if done % 1000 == 0:
                print("%d runs: %s" % (done, dict(counts)), flush=True)
    print("| corrupted inputs | clean error | compiled | crashed | hung |")
    print("| --- | --- | --- | --- | --- |")
    print("| %d | %d | %d | %d | %d |" % (a.runs, counts["clean error"], counts["compiled"],
                                         counts["crashed"], counts["hung"]))
    print("errors by code:", ", ".join("%s %d" % kv for kv in codes.most_common()))
    return 1 if counts["crashed"] or counts["hung"] else 0


if __name__ == "__main__":
    sys.exit(main())

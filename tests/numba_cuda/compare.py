"""Compares two junit XML reports of numba-cuda's tests: the outcome counts
of each, and each test whose outcome differs (stock's, then cuplug's).

    python3 compare.py stock.xml cuplug.xml [STATS_DIR]

STATS_DIR holds the cuplug run's cuplug.numba.stats(), one file per
process: how many functions cuplug compiled and how many it left to
numba-cuda, with why (the kind of type, and each numba type in full).
"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET
from collections import Counter


def outcomes(path, times=None):
    """{test id: outcome} from a junit XML file; `times` gets {test id: seconds}."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        key = "%s::%s" % (case.get("classname"), case.get("name"))
        if times is not None:
            times[key] = float(case.get("time") or 0)
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
                break
        out[key] = outcome
    return out


def stats(where):
    """cuplug.numba.stats() summed over the processes of a run."""
    total = {"cuplug": 0, "numba-cuda": 0, "reasons": Counter(), "types": Counter()}
    for path in glob.glob(os.path.join(where, "*.json")):
        with open(path) as f:
            s = json.load(f)
        total["cuplug"] += s["cuplug"]
        total["numba-cuda"] += s["numba-cuda"]
        total["reasons"].update(s["reasons"])
        total["types"].update(s.get("types", {}))
    return total


def main(stock_path, cuplug_path, stats_dir=None):
    stock_times, cuplug_times = {}, {}
    stock, cuplug = outcomes(stock_path, stock_times), outcomes(cuplug_path, cuplug_times)
    for name, result in (("stock", stock), ("cuplug", cuplug)):
        counts = Counter(result.values())
        print("%-6s %5d tests: %s" % (name, len(result), ", ".join(
            "%d %s" % (counts[k], k) for k in ("passed", "failed", "error", "skipped"))))
    both = [k for k in stock if stock[k] == cuplug.get(k) == "passed"]
    s_time = sum(stock_times[k] for k in both)
    c_time = sum(cuplug_times[k] for k in both)
    if s_time:
        print("summed time of the %d tests both runs passed: cuplug %.1f s, stock %.1f s: "
              "%.3fx" % (len(both), c_time, s_time, c_time / s_time))
    differ = sorted(k for k in set(stock) | set(cuplug) if stock.get(k) != cuplug.get(k))
    print("%d tests differ" % len(differ))
    for k in differ:
        print("  %-8s -> %-8s %s" % (stock.get(k, "absent"), cuplug.get(k, "absent"), k))
    if stats_dir:
        s = stats(stats_dir)
        print("functions compiled by cuplug: %d; left to numba-cuda: %d" %
              (s["cuplug"], s["numba-cuda"]))
        for reason, n in s["reasons"].most_common():
            print("  %5d  a signature with %s" % (n, reason))
        if s["types"]:
            print("numba types cuplug had no model of (numba class: type):")
            for t, n in s["types"].most_common():
                print("  %5d  %s" % (n, t))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))

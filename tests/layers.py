#!/usr/bin/env python3
"""layers.py - the tree keeps its layers, and no files form a circle.

Two checks on the #include "..." lines of base/, lowering/, plugin/, cli/,
samples/ and host_shims/:

  * layers: each folder includes headers of the folders it may use (RULES,
    lowest first) and of no other;
  * circles: a file's module is the file without its suffix (toolkit.c and
    toolkit.h are the module toolkit); module A uses B when a file of A
    includes B's header (through headers that no .c defines, such as a
    folder's internal.h).  No modules may use each other, directly or round
    a longer loop, in one folder or across several: each names a loop.

Exits 1 naming every include that crosses a layer the wrong way and every
loop; run from anywhere.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# folder, then the include prefixes it may use ("cuplug/" is the public header)
RULES = [
    ("base", "cuplug/ base/"),
    ("lowering", "cuplug/ base/ lowering/"),
    ("plugin/toolkit", "cuplug/ base/ plugin/toolkit/ plugin/nvptx/nvptx.h"),
    ("plugin/helper", "cuplug/ base/ plugin/toolkit/ plugin/helper/"),
    ("plugin/compilers", "cuplug/ base/ plugin/toolkit/ plugin/helper/ plugin/compilers/"),
    ("plugin/cache", "cuplug/ base/ plugin/cache/"),
    ("plugin/llvm", "cuplug/ base/ plugin/llvm/"),
    ("plugin/registry", "cuplug/ base/ lowering/ plugin/llvm/ plugin/registry/"),
    ("plugin/session", "cuplug/ base/ plugin/toolkit/ plugin/helper/ plugin/compilers/ "
                       "plugin/cache/ plugin/registry/ plugin/session/"),
    ("plugin/pipeline", "cuplug/ base/ lowering/ plugin/toolkit/ plugin/helper/ plugin/compilers/ "
                        "plugin/cache/ plugin/llvm/ plugin/registry/ plugin/session/ "
                        "plugin/pipeline/"),
    ("plugin/load", "cuplug/ base/ plugin/toolkit/ plugin/session/ plugin/load/ "
                    "plugin/cpu/cpu.h"),
    ("plugin/cpu", "cuplug/ base/ plugin/cpu/ plugin/llvm/spaces.h"),
    ("plugin/nvptx", "cuplug/ base/ plugin/nvptx/"),
    ("plugin/api", "cuplug/ base/ plugin/"),
    # hosts: the public header, and their own files
    ("cli", "cuplug/ ./"),
    ("samples", "cuplug/ common/ ./"),  # common/: what the C samples share
    ("host_shims", "cuplug/ Python.h ./"),
]
SOURCE = re.compile(r"\.(c|h|cpp)$")
INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def sources():
    for folder, _ in RULES:
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for f in sorted(files):
                if SOURCE.search(f):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def rule_of(path):
    best = None
    for folder, allowed in RULES:
        if path.startswith(folder + "/") and (not best or len(folder) > len(best[0])):
            best = (folder, allowed.split())
    return best


def resolve(path, inc):
    """The repository path an include names: from the root, else beside the file."""
    for candidate in (inc, os.path.normpath(os.path.join(os.path.dirname(path), inc))):
        if os.path.exists(os.path.join(ROOT, candidate)):
            return candidate
    return None


def layer_problems(path, includes):
    folder, allowed = rule_of(path)
    out = []
    for line, inc in includes:
        local = resolve(path, inc)
        beside = local and os.path.dirname(local) == os.path.dirname(path) and "/" not in inc
        if beside and "./" in allowed:
            continue
        if not any(inc.startswith(p) for p in allowed if p != "./"):
            out.append("%s:%d: includes \"%s\", which %s/ may not use" % (path, line, inc, folder))
    return out


def loops(graph):
    """Every strongly connected set of more than one module (Tarjan), each
    as one loop through it."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def one_loop(graph, group):
    """A path from the group's first module back to itself, inside the group."""
    start, members = group[0], set(group)
    paths, seen = [[start]], {start}
    while paths:
        path = paths.pop(0)
        for w in sorted(graph.get(path[-1], ())):
            if w == start:
                return path + [start]
            if w in members and w not in seen:
                seen.add(w)
                paths.append(path + [w])
    return group


def through_shared_headers(graph):
    """A header no .c defines (internal.h, shim.h) is declarations shared by
    a folder, not a module: who includes it uses what it includes."""
    def has_code(m):
        return any(os.path.exists(os.path.join(ROOT, m + ext)) for ext in (".c", ".cpp"))

    def uses(m, seen):
        out = set()
        for w in graph.get(m, ()):
            if has_code(w):
                out.add(w)
            elif w not in seen:
                seen.add(w)
                out |= uses(w, seen)
        return out

    return {m: uses(m, {m}) - {m} for m in graph if has_code(m)}


def main():
    problems, graph, count = [], {}, 0
    for path in sources():
        count += 1
        with open(os.path.join(ROOT, path), errors="replace") as f:
            text = f.read()
        includes = [(text.count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE.finditer(text)]
        problems += layer_problems(path, includes)
        module = SOURCE.sub("", path)
        for _, inc in includes:
            target = resolve(path, inc)
            if target and SOURCE.search(target):
                used = SOURCE.sub("", target)
                if used != module:
                    graph.setdefault(module, set()).add(used)
    graph = through_shared_headers(graph)
    for group in loops(graph):
        problems.append("a circle: " + " -> ".join(one_loop(graph, group)))
    for p in problems:
        print(p)
    if problems:
        return 1
    print("layers: %d files keep their layers, and no modules form a circle" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())

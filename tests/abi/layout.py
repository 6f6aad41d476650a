#!/usr/bin/env python3
"""layout.py - the ABI's growth rules, checked on the structs as a compiler lays them out.

    layout.py CLANG abi/include tests/abi/frozen          check every rule
    layout.py CLANG --fields HEADER_DIR > fields.h        write a header's field lists

Hosts of ABI 1.0 to 1.2 set struct_size = sizeof(the struct), padding
included.  So a field that a later release adds must lie at or beyond the
older release's sizeof, or the plugin would read an older host's padding as
that field.  clang's -fdump-record-layouts gives each struct's fields (name,
type, offset) and its sizeof, for every frozen header and the current one:

  * every pair of versions, older and newer: each field of the older struct
    is in the newer one, with its type and offset; each field the newer one
    adds lies at or beyond the older one's sizeof, save fields named
    reserved<N>, which fill such padding and are never read;
  * the current header: each struct that begins with struct_size has a
    CUPLUG_<NAME>_STRUCT_SIZE, naming the struct and its last field;
  * each frozen folder's fields.h is what --fields writes for its header
    (the ABI test hosts fill structs through these lists: abi_host.c).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

STRUCT_RE = re.compile(r"typedef struct (cuplug_\w+) \{")
RESERVED_RE = re.compile(r"reserved\d+$")
SIZE_MACRO_RE = re.compile(
    r"#define (CUPLUG_\w+_STRUCT_SIZE)\s+CUPLUG_STRUCT_SIZE\((cuplug_\w+),\s*(\w+)\)")


def header_path(include_dir):
    return os.path.join(include_dir, "cuplug", "cuplug.h")


def struct_names(include_dir):
    with open(header_path(include_dir)) as f:
        return STRUCT_RE.findall(f.read())


def layouts(clang, include_dir):
    """{struct: (sizeof, [(name, type, offset)])} as clang lays them out."""
    names = struct_names(include_dir)
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write('#include "cuplug/cuplug.h"\n')
        f.write("int cuplug_layout_sizes[] = {%s};\n" % ", ".join("sizeof(%s)" % n for n in names))
        source = f.name
    try:
        dump = subprocess.run([clang, "-fsyntax-only", "-Xclang", "-fdump-record-layouts",
                               "-I", include_dir, source],
                              check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(source)
    out = {}
    for record in dump.split("*** Dumping AST Record Layout")[1:]:
        lines = record.strip().splitlines()
        name = lines[0].split("| struct ")[-1].strip()
        fields = []
        for line in lines[1:]:
            m = re.match(r"\s*(\d+) \|   (\S.*?) (\w+)$", line)  # members only, not nested ones
            if m:
                fields.append((m.group(3), m.group(2), int(m.group(1))))
        size = int(re.search(r"sizeof=(\d+)", record).group(1))
        out[name] = (size, fields)
    missing = set(names) - set(out)
    if missing:
        sys.exit("layout.py: clang laid out no %s" % ", ".join(sorted(missing)))
    return out


def check_growth(old_name, old, new_name, new):
    problems = []
    for struct, (old_size, old_fields) in old.items():
        if struct not in new:
            problems.append("%s: %s is gone in %s" % (old_name, struct, new_name))
            continue
        new_fields = {f[0]: f for f in new[struct][1]}
        known = set()
        for field, ftype, offset in old_fields:
            known.add(field)
            if field not in new_fields:
                problems.append("%s.%s (%s) is gone in %s" % (struct, field, old_name, new_name))
            elif new_fields[field][1:] != (ftype, offset):
                problems.append("%s.%s is %s at %d in %s but %s at %d in %s" %
                                (struct, field, ftype, offset, old_name, new_fields[field][1],
                                 new_fields[field][2], new_name))
        for field, _, offset in new[struct][1]:
            if field in known or RESERVED_RE.match(field) or offset >= old_size:
                continue
            problems.append("%s.%s (new in %s) lies at offset %d, inside the %d bytes of %s's "
                            "struct: hosts of %s pass sizeof, padding and all, so the plugin "
                            "would read their padding as this field; put a reserved field there"
                            % (struct, field, new_name, offset, old_size, old_name, old_name))
    return problems


def check_size_macros(clang, include_dir, current):
    with open(header_path(include_dir)) as f:
        text = f.read()
    macros = {m[1]: (m[0], m[2]) for m in SIZE_MACRO_RE.findall(text)}
    problems, asserts = [], []
    for struct, (_, fields) in sorted(current.items()):
        if not fields or fields[0][0] != "struct_size":
            continue
        want = "CUPLUG_%s_STRUCT_SIZE" % struct[len("cuplug_"):].upper()
        if struct not in macros:
            problems.append("%s has no %s" % (struct, want))
            continue
        macro, last = macros[struct]
        if macro != want:
            problems.append("%s's size constant is %s; it should be %s" % (struct, macro, want))
        if last != fields[-1][0]:
            problems.append("%s names %s.%s, but the struct's last field is %s" %
                            (macro, struct, last, fields[-1][0]))
        asserts.append('_Static_assert(%s == offsetof(%s, %s) + sizeof(((%s *)0)->%s), "%s");' %
                       (macro, struct, fields[-1][0], struct, fields[-1][0], macro))
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write('#include "cuplug/cuplug.h"\n' + "\n".join(asserts) + "\n")
        source = f.name
    try:
        r = subprocess.run([clang, "-fsyntax-only", "-I", include_dir, source],
                           capture_output=True, text=True)
    finally:
        os.unlink(source)
    if r.returncode:
        problems.append("the size constants do not compute: " + r.stderr.strip())
    return problems


def fields_header(layout, version):
    lines = ["/* fields.h - the fields of each struct of the %s header, for the ABI test host" % version,
             " * (abi_host.c).  Written by tests/abi/layout.py --fields; ctest abi.layout",
             " * checks it is current. */"]
    for struct, (_, fields) in sorted(layout.items()):
        body = " ".join("X(%s)" % f[0] for f in fields if not RESERVED_RE.match(f[0]))
        lines.append("#define CUPLUG_FIELDS_%s(X) %s" % (struct, body))
    return "\n".join(lines) + "\n"


def version_key(v):
    return tuple(int(p) for p in v.split("."))


def main(argv):
    if len(argv) == 4 and argv[2] == "--fields":
        sys.stdout.write(fields_header(layouts(argv[1], argv[3]), os.path.basename(argv[3])))
        return 0
    if len(argv) != 4:
        sys.exit(__doc__)
    clang, current_dir, frozen_root = argv[1:]
    if not shutil.which(clang):
        print("skipped: %s is not here to lay the structs out (scripts/deps.sh installs clang)"
              % clang)
        return 77
    frozen = sorted(os.listdir(frozen_root), key=version_key)
    versions = [(v, os.path.join(frozen_root, v)) for v in frozen] + [("current", current_dir)]
    laid = {name: layouts(clang, d) for name, d in versions}
    problems = []
    for i, (old, _) in enumerate(versions):
        for new, _ in versions[i + 1:]:
            problems += check_growth(old, laid[old], new, laid[new])
    problems += check_size_macros(clang, current_dir, laid["current"])
    for v, d in versions[:-1]:
        path = os.path.join(d, "fields.h")
        have = open(path).read() if os.path.exists(path) else ""
        if have != fields_header(laid[v], v):
            problems.append("%s is not current: tests/abi/layout.py %s --fields %s > %s" %
                            (path, clang, d, path))
    for p in problems:
        print("abi.layout: " + p)
    if not problems:
        n = len(laid["current"])
        print("abi.layout: %d versions, %d structs in the current header: every rule holds" %
              (len(versions), n))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

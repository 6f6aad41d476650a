#!/bin/sh
# pip installs the Python module offline into a fresh virtual environment
# (Debian's setuptools and wheel through --system-site-packages; no index),
# reusing the plugin of this build, with the README's command as written
# (run at the repository's root, the build folder relative to it), then
# imports it from elsewhere and compiles with it.
#   pip_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv"
(cd "$src" && CUPLUG_BUILD_DIR=$(realpath --relative-to=. "$build") \
  "$tmp/venv/bin/python" -m pip install -q --no-index --no-build-isolation --no-deps \
  ./host_shims/python)
cd "$tmp"
"$tmp/venv/bin/python" - "$src" <<'PY'
import os, sys
import cuplug
here = os.path.dirname(cuplug.__file__)
assert here.startswith(sys.prefix), "imported %s, not the installed package" % here
for f in ("libcuplug.so", "cuplug-helper", "libcuplug-host.so", "libcuplug-nvptx.so",
          "__init__.pyi", "py.typed"):
    assert os.path.isfile(os.path.join(here, f)), "the package lacks " + f
ir = open(os.path.join(sys.argv[1], "tests/conformance/numba/add_i32/input.ll")).read()
import json
case = json.load(open(os.path.join(sys.argv[1], "tests/conformance/numba/add_i32/case.json")))
ptx, restype = cuplug.compile(ir, case["signature"], entry=case["entry"],
                              abi_info={"abi_name": "add_i32"}, cc=(9, 0))
assert ".visible .func  (.param .b64 func_retval0) add_i32(" in ptx, ptx[:400]
assert restype == "int64"
# and runs on the CPU, through the libcuplug-host.so it carries
os.environ.pop("CUPLUG_HOST_LIBRARY", None)
art, _ = cuplug.compile(ir, case["signature"], entry=case["entry"],
                        abi_info={"abi_name": "add_i32"}, output="host")
assert cuplug.load(art).call(2147483647, 1) == 2147483648
print("pip install: cuplug %s from %s compiles and runs on the CPU"
      % (cuplug.info()["version"], here))
PY

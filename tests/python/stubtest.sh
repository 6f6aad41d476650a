#!/bin/sh
# The package's stubs (cuplug/__init__.pyi) against the module: mypy's
# stubtest (every name, class and Python signature), then mypy on
# stub_usage.py (what callers get: compile(output="host") an Artifact, ...).
# Skipped (77) where mypy is not installed (Debian: python3-mypy).
#   stubtest.sh BUILD_DIR SOURCE_DIR [PYTHON]
set -eu
build=$1
here=$2/tests/python
python=${3:-/usr/bin/python3}
if ! "$python" -c 'import mypy.stubtest' 2>/dev/null; then
  echo "mypy is not installed: the stubs are not checked"
  exit 77
fi
export PYTHONPATH="$build/python" MYPYPATH="$build/python"
# mypy keeps a cache where it runs: a folder of its own, not the source tree
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$python" -m mypy.stubtest cuplug --mypy-config-file "$here/stubtest.ini" \
  --allowlist "$here/stubtest_allowlist.txt"
"$python" -m mypy --config-file "$here/stubtest.ini" "$here/stub_usage.py"

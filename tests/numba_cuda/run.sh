#!/usr/bin/env bash
# numba-cuda's own tests, stock and through cuplug (cuplug.numba.install()),
# on a GPU host with numba-cuda 0.30 installed:
#
#   tests/numba_cuda/run.sh BUILD_DIR OUT_DIR [PACKAGE ...]
#
# PACKAGE defaults to numba-cuda's whole GPU suite: numba.cuda.tests.cudapy,
# numba.cuda.tests.cudadrv and numba.cuda.tests.doc_examples.  Both runs go
# at once, each on half the cores (pytest-xdist, a file to a worker, so that
# both runs order each file's tests alike), each test limited to
# $TEST_TIMEOUT seconds (60; pytest-timeout): without a limit one test of
# numba-cuda's own (test_caching's multiprocessing test) never ends on some
# machines, stock or not.  Each run leaves OUT_DIR/{stock,cuplug}.xml and
# .log; compare.py prints both runs' counts, every test whose outcome
# differs, and the functions cuplug left to numba-cuda, with why.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
if (($#)); then
  packages=("$@")
else
  packages=(numba.cuda.tests.cudapy numba.cuda.tests.cudadrv numba.cuda.tests.doc_examples)
fi
python=${PYTHON:-python3}
workers=$(( $(nproc) / 2 )); ((workers > 0)) || workers=1
limit=()
if "$python" -c "import pytest_timeout" 2>/dev/null; then
  limit=(--timeout="${TEST_TIMEOUT:-60}")
else
  echo "run.sh: pytest-timeout is not installed: a test that never ends stops the run" >&2
fi

run() {  # run MODE: the suite, under MODE (stock or cuplug)
  local mode=$1 flag=0
  [ "$mode" = cuplug ] && flag=1
  CUPLUG_NUMBA=$flag CUPLUG_NUMBA_STATS="$out/stats" PYTHONPATH="$here/stubs:$here:$build/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$python" -m pytest -p cuplug_numba_plugin -p no:cacheprovider --import-mode=importlib \
    -n "$workers" --dist loadfile "${limit[@]}" -p no:benchmark -q -rfE --junitxml="$out/$mode.xml" --pyargs "${packages[@]}" \
    >"$out/$mode.log" 2>&1 || true
}
cd "$out"
rm -rf "$out/stats"
run stock & run cuplug & wait
"$python" "$here/compare.py" "$out/stock.xml" "$out/cuplug.xml" "$out/stats" | tee "$out/compare.txt"

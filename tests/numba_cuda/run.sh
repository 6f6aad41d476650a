#!/usr/bin/env bash
# numba-cuda's own tests, stock and through cuplug (cuplug.numba.install()),
# on a GPU host with numba-cuda 0.30 installed:
#
#   tests/numba_cuda/run.sh BUILD_DIR OUT_DIR [PACKAGE ...]
#
# PACKAGE defaults to the modules of numba.cuda.tests.cudapy that exercise
# the compile path (MODULES below; the whole suite runs past 9 minutes on 16
# workers).  Both runs go at once, each on half the cores (pytest-xdist,
# a module to a worker, so that both runs order each module's tests alike);
# each leaves OUT_DIR/{stock,cuplug}.xml and .log, and compare.py prints what
# the cuplug run lost or gained.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
MODULES="test_compiler test_device_func test_exception test_userexc test_debug test_atomics
  test_warp_ops test_intrinsics test_math test_complex test_fastmath test_array_args test_sm
  test_laplace test_matmul test_blackscholes test_lineinfo test_inline test_cooperative_groups
  test_extending test_overload test_localmem test_constmem test_record_dtype"
if (($#)); then
  packages=("$@")
else
  packages=()
  for m in $MODULES; do packages+=("numba.cuda.tests.cudapy.$m"); done
fi
python=${PYTHON:-python3}
workers=$(( $(nproc) / 2 )); ((workers > 0)) || workers=1

run() {  # run MODE: the suite, under MODE (stock or cuplug)
  local mode=$1 flag=0
  [ "$mode" = cuplug ] && flag=1
  CUPLUG_NUMBA=$flag CUPLUG_NUMBA_STATS="$out/stats" PYTHONPATH="$here/stubs:$here:$build/python${PYTHONPATH:+:$PYTHONPATH}" \
    "$python" -m pytest -p cuplug_numba_plugin -p no:cacheprovider --import-mode=importlib \
    -n "$workers" --dist loadfile -q -rfE --junitxml="$out/$mode.xml" --pyargs "${packages[@]}" \
    >"$out/$mode.log" 2>&1 || true
}
cd "$out"
rm -rf "$out/stats"
run stock & run cuplug & wait
"$python" "$here/compare.py" "$out/stock.xml" "$out/cuplug.xml" "$out/stats" | tee "$out/compare.txt"

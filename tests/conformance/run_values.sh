#!/bin/sh
# Runs every conformance case that has values.json and compares with
# numba-cuda's outputs (cuplug case DIR --run TARGET), with the options
# given after CASES_DIR, such as --backend llvm:
#   tests/conformance/run_values.sh CUPLUG host|gpu [CASES_DIR [OPTION...]]
# host: on this CPU, no GPU needed; a case that calls CUDA C++ with no host
# implementation (declare_device) cannot run there: it is listed, not
# failed.  gpu: cuplug's build for this GPU.  Exits 77 (skipped) where the
# target cannot run (no libcuplug-host.so, no GPU), or when no case has
# values yet: tests/conformance/make_values.py makes them on a GPU.
cli=$1
target=${2:?usage: run_values.sh CUPLUG host|gpu [CASES_DIR]}
root=${3:-$(dirname "$0")/numba}
if [ $# -ge 3 ]; then shift 3; else shift $#; fi
ran=0 failed=0
for dir in "$root"/*/; do
  dir=${dir%/}
  [ -f "$dir/values.json" ] || continue
  err=$("$cli" case "$dir" --run "$target" "$@" 2>&1 >/dev/null)
  rc=$?
  case $err in
    *CUPLUG_ERR_HOST_NOT_FOUND*|*CUPLUG_ERR_NO_DEVICE*) echo "skipped: ${err#*: error: }"; exit 77 ;;
    *CUPLUG_ERR_HOST_UNSUPPORTED*) echo "$(basename "$dir"): not runnable on the host: ${err#*: error: }"; continue ;;
  esac
  ran=$((ran + 1))
  if [ $rc -ne 0 ]; then
    failed=$((failed + 1))
    echo "$(basename "$dir"): FAILED"
    echo "$err"
  else
    echo "$(basename "$dir"): as numba-cuda's"
  fi
done
[ $ran -gt 0 ] || { echo "no case has values.json: run tests/conformance/make_values.py on a GPU"; exit 77; }
echo "$ran cases run on the $target${*:+ ($*)}, $failed differ from numba-cuda"
[ $failed -eq 0 ]

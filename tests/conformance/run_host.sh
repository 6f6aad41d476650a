#!/bin/sh
# Runs every conformance case that has values.json on this CPU and compares
# with numba-cuda's outputs (cuplug case DIR --run host): no GPU needed.
#   tests/conformance/run_host.sh CUPLUG [CASES_DIR]
# A case that calls CUDA C++ with no host implementation (declare_device)
# cannot run on the host: it is listed, not failed.  Exits 77 (skipped)
# when no case has values yet: tests/conformance/make_values.py makes them
# on a GPU.
cli=$1
root=${2:-$(dirname "$0")/numba}
ran=0 failed=0
for dir in "$root"/*/; do
  dir=${dir%/}
  [ -f "$dir/values.json" ] || continue
  err=$("$cli" case "$dir" --run host 2>&1 >/dev/null)
  rc=$?
  case $err in
    *CUPLUG_ERR_HOST_NOT_FOUND*) echo "skipped: ${err#*: error: }"; exit 77 ;;
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
echo "$ran cases run on the host, $failed differ from numba-cuda"
[ $failed -eq 0 ]

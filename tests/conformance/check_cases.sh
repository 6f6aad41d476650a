#!/bin/sh
# Every conformance case compiled to PTX and its signature compared with
# numba-cuda's expected.ptx (cuplug case DIR --check), with the options
# given after the folder, such as --backend llvm:
#   tests/conformance/check_cases.sh CUPLUG CASES_DIR [OPTION...]
# CASES_DIR may hold the corpus as numba-cuda wrote it, or upgraded by
# upgrade.sh (text, or bitcode).  Exits 77 (skipped) where the CUDA toolkit
# the compile needs (libNVVM, libdevice) is missing.
cli=${1:?usage: check_cases.sh CUPLUG CASES_DIR [OPTION...]}
root=${2:?usage: check_cases.sh CUPLUG CASES_DIR [OPTION...]}
shift 2
checked=0 failed=0
for dir in "$root"/*/; do
  dir=${dir%/}
  [ -f "$dir/case.json" ] || continue
  err=$("$cli" case "$dir" --check "$@" 2>&1 >/dev/null)
  rc=$?
  case $err in
    *CUPLUG_ERR_NVVM_NOT_FOUND*|*CUPLUG_ERR_LIBDEVICE_NOT_FOUND*)
      echo "skipped: ${err#*: error: }"; exit 77 ;;
  esac
  checked=$((checked + 1))
  if [ $rc -ne 0 ]; then
    failed=$((failed + 1))
    echo "$(basename "$dir"): FAILED"
    echo "$err"
  else
    echo "$(basename "$dir"): ${err#cuplug: check: }"
  fi
done
[ $checked -gt 0 ] || { echo "no case in $root"; exit 1; }
echo "$checked cases checked (${*:-the default backend}), $failed differ from numba-cuda's PTX signature"
[ $failed -eq 0 ]

#!/usr/bin/env bash
# own_cost.sh - cuplug's own cost in a compile, with libNVVM taken out:
# own_bench runs with CUDA_HOME at the build's stub toolkit (a libNVVM that
# does nothing; NVRTC and the rest still come from the real toolkit), so
# every microsecond it reports is cuplug's.
#
#   bash bench/own_cost.sh BUILD [REPEATS]              time: warm and cold, each case
#   bash bench/own_cost.sh BUILD --instructions [CASE...]
#                                                       instructions a compile (valgrind)
#
# Instructions are the figure to compare two builds by on a machine whose
# clock drifts: they stay within a few instructions from run to run.  They are counted by
# callgrind as the difference between 25 and 5 compiles of a case, over 20;
# valgrind (3.19) gives up on libcuplug.so's debug information ("possibly
# corrupted"), so a copy stripped of it is loaded.  Cold time is the one that
# matters in a compile (libNVVM runs between two), and instructions are only
# part of it: compile_bench --stages has the stages with libNVVM between.
set -euo pipefail
build=$(cd "${1:?usage: own_cost.sh BUILD [REPEATS | --instructions [CASE...]]}" && pwd)
shift
corpus=$(cd "$(dirname "$0")/../tests/conformance/numba" && pwd)
export CUDA_HOME=$build/stub_cuda
[ -e "$CUDA_HOME/nvvm/lib64/libnvvm.so.4" ] || { echo "own_cost: build nvvm_stub first" >&2; exit 1; }

if [ "${1:-}" != --instructions ]; then
  exec "$build/bin/own_bench" "$corpus" "${1:-200}" 32
fi
shift
command -v valgrind >/dev/null || { echo "own_cost: --instructions needs valgrind (scripts/deps.sh installs it)" >&2; exit 1; }
lib=$(mktemp -d)
trap 'rm -rf "$lib"' EXIT
cp "$build/lib/libcuplug.so" "$lib/"
strip --strip-debug "$lib/libcuplug.so"
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  for d in "$corpus"/*/; do cases+=("$(basename "$d")"); done
fi

count() { # case repeats -> instructions of the whole run
  LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} valgrind --tool=callgrind --callgrind-out-file="$lib/out" \
    "$build/bin/own_bench" "$corpus" "$2" 0 "$1" >/dev/null 2>"$lib/log" ||
    { cat "$lib/log" >&2; exit 1; }
  local n
  n=$(sed -n '/^totals: */{s///p;q}' "$lib/out")
  [[ $n =~ ^[0-9]+$ ]] || { echo "own_cost: no instruction total in callgrind's output for $1" >&2; exit 1; }
  echo "$n"
}
total=0
printf '%-14s %14s\n' case "instructions"
for c in "${cases[@]}"; do
  few=$(count "$c" 5)
  many=$(count "$c" 25)
  n=$(( (many - few) / 20 )) # 20 more compiles (with 0 MiB, own_bench times only warm ones)
  total=$((total + n))
  printf '%-14s %14d\n' "$c" "$n"
done
printf '%-14s %14d\n' sum "$total"

#!/usr/bin/env bash
# ab.sh - two builds of cuplug measured against each other in one run, for a
# change that must not move cuplug's costs (issue 18's restructuring):
# compile_bench (every corpus case to LTO-IR; the safe path, the trusted
# session and libNVVM on cuplug's final IR, each against bare libNVVM) and
# launch_bench (launch() against raw cuLaunchKernel), the builds taking turns
# A B B A ... so that drift in the machine falls on both.
#
#   bash bench/ab.sh BUILD_A BUILD_B [ROUNDS]    (ROUNDS: 4)
#
# Prints each run's ratios, one line each, then each build's median.
set -euo pipefail
a=${1:?usage: ab.sh BUILD_A BUILD_B [ROUNDS]}
b=${2:?usage: ab.sh BUILD_A BUILD_B [ROUNDS]}
rounds=${3:-4}
corpus=$(cd "$(dirname "$0")/../tests/conformance/numba" && pwd)
results=$(mktemp)
trap 'rm -f "$results"' EXIT

measure() { # build label
  local out safe trusted final launch
  out=$("$1/bin/compile_bench" "$corpus" 31 ltoir)
  read -r safe final trusted < <(sed -n 's/.*geometric mean, ltoir *: cuplug\/bare \([0-9.]*\), cuplug\/final \([0-9.]*\), trusted\/bare \([0-9.]*\).*/\1 \2 \3/p' <<<"$out")
  # no GPU: launch_bench skips, and the column says so
  launch=$("$1/bin/launch_bench" | sed -n 's/.*ratio cuplug \/ raw: //p' || true)
  launch=${launch:-none}
  printf '%s %s %s %s %s\n' "$2" "$safe" "$trusted" "$final" "$launch" | tee -a "$results"
}

echo "build  compile-safe/bare  compile-trusted/bare  compile-safe/final  launch/raw"
for ((i = 0; i < rounds; i++)); do
  if ((i % 2 == 0)); then measure "$a" A; measure "$b" B; else measure "$b" B; measure "$a" A; fi
done
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for label in A B; do
  printf '%s medians:' "$label"
  for col in 2 3 4 5; do printf ' %s' "$(awk -v l="$label" -v c="$col" '$1 == l {print $c}' "$results" | median)"; done
  echo
done

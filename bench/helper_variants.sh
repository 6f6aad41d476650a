#!/usr/bin/env bash
# helper_variants.sh - compile_bench under each way the host and its helper
# process hand jobs over (plugin/helper/handoff.h), to choose the defaults.
#
#   bash bench/helper_variants.sh BUILD [REPEATS] [ROUNDS]
#
# Runs build/bin/compile_bench on the numba corpus (REPEATS each, 15 by
# default) once per variant per round (2 rounds by default), the variants
# interleaved so that drift hits all alike, and prints the geometric means:
# the safe path / bare libNVVM for LTO-IR and PTX, and the trusted session /
# bare as the control (no helper there: it should not move).
set -euo pipefail
build=$(cd "${1:?usage: helper_variants.sh BUILD [REPEATS] [ROUNDS]}" && pwd)
reps=${2:-15}
rounds=${3:-2}
cd "$(dirname "$0")/.."

# name, then the switches (every one set, so the environment decides nothing)
variants=(
  "sleep        CUPLUG_HELPER_PIN=0 CUPLUG_HOST_SPIN_US=0    CUPLUG_HELPER_SPIN_US=0"
  "helper-spin  CUPLUG_HELPER_PIN=0 CUPLUG_HOST_SPIN_US=0    CUPLUG_HELPER_SPIN_US=5000"
  "default      CUPLUG_HELPER_PIN=0 CUPLUG_HOST_SPIN_US=1000 CUPLUG_HELPER_SPIN_US=5000"
  "host-3ms     CUPLUG_HELPER_PIN=0 CUPLUG_HOST_SPIN_US=3000 CUPLUG_HELPER_SPIN_US=5000"
  "pin          CUPLUG_HELPER_PIN=1 CUPLUG_HOST_SPIN_US=0    CUPLUG_HELPER_SPIN_US=5000"
)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$SECONDS
for round in $(seq "$rounds"); do
  for i in "${!variants[@]}"; do
    read -r name settings <<<"${variants[$i]}"
    # shellcheck disable=SC2086 # the settings are words on purpose
    env $settings "$build/bin/compile_bench" tests/conformance/numba "$reps" \
      >"$out/$i.$round" 2>&1 || { cat "$out/$i.$round"; exit 1; }
  done
done

# "geometric mean, ltoir: cuplug/bare 1.583, cuplug/final 1.603, trusted/bare 1.137 (11 cases)"
mean() { # file output field
  sed -n "s#^geometric mean, $2 *: .*$3 \([0-9.]*\).*#\1#p" "$1"
}
printf '%-13s %-23s %-23s %s\n' variant "ltoir cuplug/bare" "ptx cuplug/bare" "ltoir trusted/bare"
for i in "${!variants[@]}"; do
  read -r name _ <<<"${variants[$i]}"
  l="" p="" t=""
  for round in $(seq "$rounds"); do
    f="$out/$i.$round"
    l+="$(mean "$f" ltoir cuplug/bare) "
    p+="$(mean "$f" ptx cuplug/bare) "
    t+="$(mean "$f" ltoir trusted/bare) "
  done
  printf '%-13s %-23s %-23s %s\n' "$name" "$l" "$p" "$t"
done
echo "($((SECONDS - start)) s; $rounds rounds of $reps repeats)"

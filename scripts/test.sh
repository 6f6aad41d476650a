#!/usr/bin/env bash
# Builds cuplug and runs the whole test suite, then again in a build with
# AddressSanitizer and UndefinedBehaviorSanitizer, then fuzzes each entry
# point for 20 s ($CUPLUG_FUZZ_SECONDS).  GPU tests report "skipped" where
# there is no CUDA device.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

echo "== build and test"
bash scripts/build.sh build
(cd build && ctest --output-on-failure -j"$jobs")

echo "== build and test with AddressSanitizer and UndefinedBehaviorSanitizer"
bash scripts/build.sh build-asan -DCUPLUG_SANITIZE=ON
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads glibc 2.36's
# dynamic TLS and now and then crashes in its leak check ("Tracer caught
# signal 11"); static TLS is still scanned.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Leaks inside the CUDA toolkit's own libraries are theirs, not cuplug's.
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0
(cd build-asan && ctest --output-on-failure -j"$jobs")

echo "== fuzz every entry point briefly (libFuzzer; scripts/fuzz.sh SECONDS for longer)"
bash scripts/fuzz.sh "${CUPLUG_FUZZ_SECONDS:-20}"

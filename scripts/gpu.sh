#!/usr/bin/env bash
# Runs a build folder made on another machine (the GPU machine has no LLVM
# 22 or Check to build with): cuplug info, the demo, and ctest.
#   scripts/gpu.sh [BUILD] [ctest arguments...]
# ctest's files hold the absolute paths of the machine that built them; when
# this checkout lives elsewhere, that path is made to point here.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
if [ -n "$src" ] && [ "$src" != "$PWD" ] && [ ! -e "$src" ]; then
  mkdir -p "$(dirname "$src")" && ln -s "$PWD" "$src"
fi
# the Python tests and samples want the GPU machine's interpreter, with
# CuPy and numba-cuda, not the one the build was made with
export CUPLUG_PYTHON=${CUPLUG_PYTHON:-python3}
here=$PWD
cd "${src:-$here}/$build" || exit 1
./bin/cuplug info
./bin/demo
ctest --output-on-failure "$@"

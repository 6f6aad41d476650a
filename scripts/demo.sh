#!/usr/bin/env bash
# Builds cuplug and runs the main demo: a C host that dlopens libcuplug.so
# and compiles a device function to a C-ABI function in PTX and LTO-IR.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
./build/bin/demo

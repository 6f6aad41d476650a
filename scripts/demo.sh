#!/usr/bin/env bash
# Builds cuplug and runs the demos:
#  1. a C host dlopens libcuplug.so and compiles a device function to a
#     C-ABI function, in PTX and LTO-IR;
#  2. a CUDA C++ function registered with declare_device, called from a
#     kernel given as a host JIT's IR, linked with LTO and, on a GPU,
#     launched and checked (without a GPU it stops after the cubin);
#  3. minijit, a front end in C: an expression kernel typed through the
#     registry (math.sin, cuda.grid), compiled with the built-ins inlined,
#     and on a GPU launched and checked.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
echo "== demo: a device function to PTX and LTO-IR"
./build/bin/demo
echo
echo "== extern_demo: CUDA C++ called from a JIT's kernel, linked, launched"
./build/bin/extern_demo
echo
echo "== minijit: a front end typing its calls through the registry"
./build/bin/minijit

#!/usr/bin/env bash
# Installs the Debian packages cuplug builds and tests with, when any is missing.
# Safe to run repeatedly: it only calls apt-get when a package is absent.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  llvm-22-dev libzstd-dev        # LLVM-C: validation, the NVPTX backend, the CPU JIT (static)
  check libsubunit-dev           # unit tests (linked statically, so they run on the GPU host)
  libffi-dev                     # host callbacks; calls by signature on the CPU (static in libcuplug-host.so)
  python3-dev python3-pytest python3-numpy
  python3-mypy                   # stubtest: the Python module's .pyi against the module
  python3-setuptools python3-wheel python3-venv python3-pip   # the Python module, pip-installed offline
  clang-22 libclang-rt-22-dev    # libFuzzer harnesses (scripts/fuzz.sh), abi.layout
  mlir-22-tools                  # samples/mlir and host.modern.mlir: gpu-dialect kernels lowered to LLVM IR
  luajit libluajit-5.1-dev       # samples/luajit
  libtsan2                       # the registry's threaded test, under ThreadSanitizer
  libhiredis-dev redis-server    # the remote cache: hiredis (loaded at run time), and a server for its tests
  valgrind                       # bench/own_cost.sh --instructions: instructions a compile
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

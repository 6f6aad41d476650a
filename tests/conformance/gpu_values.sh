#!/bin/sh
# On the GPU machine: makes every conformance case's values.json with
# numba-cuda (make_values.py), runs the cases on the host and, built by
# cuplug (with libNVVM, then with LLVM's NVPTX backend), on the GPU against
# them (when a build was carried),
# and copies the files to OUT/values/<case>.json to bring back.
#   sh tests/conformance/gpu_values.sh OUT
out=${1:?usage: gpu_values.sh OUT}
here=$(dirname "$0")
python3 "$here/make_values.py" "$here/numba" || echo "make_values.py: some cases failed (above)"
mkdir -p "$out/values"
for dir in "$here"/numba/*/; do
  name=$(basename "$dir")
  [ -f "$dir/values.json" ] && cp "$dir/values.json" "$out/values/$name.json"
done
if [ -x build/bin/cuplug ]; then
  sh "$here/run_values.sh" build/bin/cuplug host "$here/numba"
  sh "$here/run_values.sh" build/bin/cuplug gpu "$here/numba"
  sh "$here/run_values.sh" build/bin/cuplug gpu "$here/numba" --backend llvm
fi
exit 0

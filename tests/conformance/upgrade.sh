#!/bin/sh
# The corpus as a modern LLVM writes it: each case folder copied twice,
# its input.ll read by LLVM 22 (which upgrades typed pointers to opaque
# ones, `nocapture` to `captures(none)`, and so on) and written back
#   OUT/text/<case>/input.ll      as text (llvm-as | llvm-dis), and
#   OUT/bitcode/<case>/input.bc   as bitcode (llvm-as; no input.ll there),
# beside the case's other files.  Run at build time, so that the folders
# travel with the build to a machine without LLVM's tools.
#   tests/conformance/upgrade.sh LLVM_BINDIR CASES_DIR OUT
set -e
bin=${1:?usage: upgrade.sh LLVM_BINDIR CASES_DIR OUT}
src=${2:?usage: upgrade.sh LLVM_BINDIR CASES_DIR OUT}
out=${3:?usage: upgrade.sh LLVM_BINDIR CASES_DIR OUT}
rm -rf "$out.new"
mkdir -p "$out.new/text" "$out.new/bitcode"
for dir in "$src"/*/; do
  [ -f "$dir/case.json" ] || continue
  name=$(basename "$dir")
  for form in text bitcode; do
    cp -R "$dir" "$out.new/$form/$name"
  done
  "$bin/llvm-as" -o "$out.new/bitcode/$name/input.bc" < "$dir/input.ll"
  rm "$out.new/bitcode/$name/input.ll"
  "$bin/llvm-dis" -o "$out.new/text/$name/input.ll" < "$out.new/bitcode/$name/input.bc"
done
rm -rf "$out"
mv "$out.new" "$out"

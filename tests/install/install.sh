#!/bin/sh
# Installs a build of cuplug into a fresh prefix, then builds samples/demo
# against it twice, through CMake (find_package) and through pkg-config, and
# runs each with the installed plugin (which finds its installed helper).
#   install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
prefix=$(mktemp -d /tmp/cuplug-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/cuplug/cuplug.h bin/cuplug lib/libcuplug.so lib/libcuplug-host.so lib/libcuplug-nvptx.so \
         lib/cuplug/cuplug-helper \
         lib/cmake/cuplug/cuplugConfig.cmake lib/pkgconfig/cuplug.pc; do
  [ -e "$prefix/$f" ] || { echo "install: $f is missing"; exit 1; }
done
# the installed CLI runs from its own lib/
"$prefix/bin/cuplug" info | head -n 1
# and finds LLVM's NVPTX backend beside the installed plugin
CUPLUG_NVPTX_LIBRARY= "$prefix/bin/cuplug" info | grep -Fx "NVPTX        ok"

echo "== CMake: find_package(cuplug)"
cmake -S "$src/tests/install" -B "$prefix/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DDEMO_SOURCE="$src/samples/demo/demo.c" >/dev/null
cmake --build "$prefix/cmake-build" >/dev/null
CUPLUG_HELPER= "$prefix/cmake-build/demo" "$prefix/lib/libcuplug.so" > "$prefix/demo.out"
grep -F "as a C-ABI device function 'axpy'" "$prefix/demo.out"
# the installed plugin finds its CPU target beside itself
grep -Fx "on this CPU: axpy(2, 3, 4) = 10" "$prefix/demo.out"

echo "== pkg-config"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -o "$prefix/demo-pc" "$src/samples/demo/demo.c" $(pkg-config --cflags cuplug) $(pkg-config --libs cuplug)
plugin=$(pkg-config --variable=plugin cuplug)
[ "$(realpath "$plugin")" = "$(realpath "$prefix/lib/libcuplug.so")" ] || { echo "install: plugin variable is $plugin"; exit 1; }
CUPLUG_HELPER= "$prefix/demo-pc" "$plugin" | grep -F "as a C-ABI device function 'axpy'"
echo "install: both hosts compiled through the installed plugin"

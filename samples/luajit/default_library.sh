#!/bin/sh
# default_library.sh LUAJIT SOURCE_DIR LIB_DIR - extern.lua run as the README
# shows it, without CUPLUG_LIBRARY or CUPLUG_HEADER, from a copy of the
# checkout's files it reads: with no build there, a clean error that says
# how to give the plugin (no Lua traceback); with the build's lib/ as
# build/lib, it finds the plugin there and runs.  Skipped (77) without luajit.
luajit=$1 src=$2 lib=$3
command -v "$luajit" >/dev/null 2>&1 || { echo "skipped: $luajit is not installed here"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/samples/luajit" "$tmp/host_shims/luajit" "$tmp/abi/include/cuplug"
cp "$src/samples/luajit/extern.lua" "$src/samples/luajit/lerp.cu" "$tmp/samples/luajit/"
cp "$src/host_shims/luajit/cuplug.lua" "$tmp/host_shims/luajit/"
cp "$src/abi/include/cuplug/cuplug.h" "$tmp/abi/include/cuplug/"
unset CUPLUG_LIBRARY CUPLUG_HEADER
cd "$tmp" || exit 1

out=$("$luajit" samples/luajit/extern.lua --no-gpu 2>&1)
rc=$?
want="extern.lua: no plugin at build/lib/libcuplug.so: build one (scripts/build.sh), or give --library=PATH or set CUPLUG_LIBRARY"
if [ $rc -ne 1 ] || [ "$out" != "$want" ]; then
  printf 'without a build: exit %s, said:\n%s\nexpected exit 1 and:\n%s\n' "$rc" "$out" "$want"
  exit 1
fi

mkdir -p build
ln -s "$lib" build/lib
"$luajit" samples/luajit/extern.lua --no-gpu

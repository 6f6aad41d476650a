#!/bin/sh
# Checks that the code keeps its layers: each folder includes headers of
# the folders it may use and of no other.  Run from anywhere; exits 1 and
# names every #include that crosses a layer the wrong way.
#
#   base/                 buffers, maps, errors, workers, code, types
#   lowering/             NVVM IR text and its passes, the built-ins
#   plugin/toolkit/       libNVVM, NVRTC, nvJitLink, the driver
#   plugin/cache/         the result cache: digests, memory and disk
#   plugin/llvm/          LLVM's checks of IR
#   plugin/registry/      templates, lowerings, resolve_call
#   plugin/session/       sessions and artifacts
#   plugin/pipeline/      compile, link
#   plugin/gpu/           load, launch, memory; host libraries through plugin/host/host.h
#   plugin/host/          libcuplug-host.so: device code on the CPU (LLVM ORC, the grid)
#   plugin/api/           the table: every call, imported and checked
#   cli/ samples/ host_shims/   hosts: the public header only
cd "$(dirname "$0")/.." || exit 1

# folder, then the include prefixes it may use ("cuplug/" is the public header)
rules='
base              cuplug/ base/
lowering          cuplug/ base/ lowering/
plugin/toolkit    cuplug/ base/ plugin/toolkit/
plugin/cache      cuplug/ base/ plugin/cache/
plugin/llvm       cuplug/ base/ plugin/llvm/
plugin/registry   cuplug/ base/ lowering/ plugin/llvm/ plugin/registry/
plugin/session    cuplug/ base/ plugin/toolkit/ plugin/cache/ plugin/registry/ plugin/session/
plugin/pipeline   cuplug/ base/ lowering/ plugin/toolkit/ plugin/cache/ plugin/llvm/ plugin/registry/ plugin/session/ plugin/pipeline/
plugin/gpu        cuplug/ base/ plugin/toolkit/ plugin/session/ plugin/gpu/ plugin/host/host.h
plugin/host       cuplug/ base/ plugin/host/
plugin/api        cuplug/ base/ plugin/
cli               cuplug/ cli.h json.h ptxsig.h values.h
samples           cuplug/
host_shims        cuplug/ Python.h shim.h objects.h type.h views.h artifact.h callbacks.h registry.h session.h memory.h library.h kernel.h values.h arrays.h
'

status=0
echo "$rules" | while read -r folder allowed; do
  [ -n "$folder" ] || continue
  [ -d "$folder" ] || continue
  for f in $(find "$folder" -name '*.[ch]'); do
    grep -n '^#include "' "$f" | while IFS= read -r line; do
      inc=${line#*\"}
      inc=${inc%%\"*}
      ok=no
      for prefix in $allowed; do
        case $inc in "$prefix"*) ok=yes ;; esac
      done
      if [ $ok = no ]; then
        echo "$f:${line%%:*}: includes \"$inc\", which $folder/ may not use"
      fi
    done
  done
done >/tmp/cuplug-layers.$$
if [ -s /tmp/cuplug-layers.$$ ]; then
  cat /tmp/cuplug-layers.$$
  status=1
fi
count=$(find base lowering plugin cli samples host_shims -name '*.[ch]' | wc -l)
rm -f /tmp/cuplug-layers.$$
[ $status = 0 ] && echo "layers: $count files keep their layers"
exit $status

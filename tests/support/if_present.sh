#!/bin/sh
# if_present.sh PROGRAM ARGS... - runs PROGRAM, or reports the test skipped
# (exit 77) where it is not installed: a build carried to another machine
# (the GPU machine has no luajit) still runs its other tests.
command -v "$1" >/dev/null 2>&1 || { echo "skipped: $1 is not installed here"; exit 77; }
exec "$@"

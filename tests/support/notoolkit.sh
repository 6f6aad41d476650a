#!/bin/sh
# notoolkit.sh HIDE_CUDA EMPTY PROGRAM... - every case of each test PROGRAM
# on a machine made to look as if it had no CUDA: HIDE_CUDA preloaded (the
# loader finds neither the toolkit's libraries nor the driver) and CUDA_HOME
# the empty folder EMPTY.  A case that needs none of them must pass; every
# other must report itself skipped (exit 77): neither run nor passed.
set -u
hide=$1
export CUDA_HOME="$2"
shift 2
export LD_PRELOAD="$hide${LD_PRELOAD:+:$LD_PRELOAD}"
# a sanitizer's runtime would refuse to load after HIDE_CUDA
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

passed=0 skipped=0 wrong=0
for program; do
  cases=$("$program" --list) || { echo "$program --list failed"; exit 1; }
  while read -r id needs; do
    [ -n "$id" ] || continue
    case " $needs " in
      *" nvvm "* | *" nvrtc "* | *" nvjitlink "* | *" gpu "*) want=77 ;;
      *) want=0 ;;
    esac
    out=$("$program" "$id" 2>&1)
    rc=$?
    if [ "$rc" != "$want" ]; then
      echo "FAILED ${program##*/} $id (needs: ${needs:-nothing}): exit $rc, expected $want"
      echo "$out"
      wrong=$((wrong + 1))
    elif [ "$rc" = 0 ]; then
      passed=$((passed + 1))
    else
      skipped=$((skipped + 1))
    fi
  done <<LIST
$cases
LIST
done
echo "without CUDA: $passed cases passed, $skipped skipped, $wrong wrong"
[ "$wrong" = 0 ]

#!/bin/sh
# errors.sh MINIJIT DIR - runs minijit on each DIR/*.mj, which must fail
# (exit 1) and print on stderr the text its first line gives:
#   # expect: TEXT
minijit=$1 dir=$2 failed=0
for f in "$dir"/*.mj; do
  want=$(sed -n '1s/^# expect: //p' "$f")
  err=$("$minijit" --no-gpu "$f" 2>&1 >/dev/null)
  rc=$?
  case "$err" in
    *"$want"*) if [ -n "$want" ] && [ "$rc" -eq 1 ]; then echo "ok: $err"; continue; fi ;;
  esac
  echo "FAILED ${f##*/}: exit $rc, stderr: $err"
  echo "  wanted exit 1 and: $want"
  failed=$((failed + 1))
done
[ "$failed" -eq 0 ]

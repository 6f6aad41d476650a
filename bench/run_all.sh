#!/usr/bin/env bash
# run_all.sh - every benchmark of bench/ in one run, and one markdown table
# of ratios, each against its anchor measured in the same run (issue 10).
#
#   bash bench/run_all.sh BUILD [OUTFILE]
#
# Runs compile_bench, lex_bench, backend_bench, cache_bench (when built),
# python_first_launch.py, link_bench, launch_bench, python_launch_bench.py,
# numba_cubins.py and kernel_bench (CUDA C++ by NVRTC, numba-cuda's builds),
# stream_bench, lto_bench and builtin_bench (bench/run_all.py says how each
# is read),
# then prints the date, the machine, the toolkit, the command and the table;
# OUTFILE also gets the table, then what each program printed (the lead
# commits it as bench/RESULTS.md).  What cannot run here (no GPU, no
# numba-cuda, no CuPy) is a row "skipped: why".  $CUPLUG_PYTHON picks the
# interpreter (default python3: the GPU machine's has CuPy and numba-cuda).
# Takes 10 to 25 s without a GPU (2 cores); on the H200 an estimated 2 to 4
# minutes (the run prints its own time in the header).
set -euo pipefail
build=$(cd "${1:?usage: run_all.sh BUILD [OUTFILE]}" && pwd)
out=()
if [ $# -gt 1 ]; then out=("$(realpath -m "$2")"); fi
cd "$(dirname "$0")/.."
export CUPLUG_BENCH_COMMAND="bash bench/run_all.sh $*"
exec "${CUPLUG_PYTHON:-python3}" bench/run_all.py "$build" "${out[@]}"

#!/usr/bin/env bash
# Fuzzes cuplug's entry points with libFuzzer (clang-22, AddressSanitizer
# and UndefinedBehaviorSanitizer):
#   scripts/fuzz.sh [SECONDS] [HARNESS...]
# builds the harnesses in build-fuzz, replays every input in
# tests/fuzz/regressions/<harness>/ (each a crash fuzzing once found), then
# runs each harness for SECONDS (default 30) from its seeds: the
# conformance corpus, the samples, and the inputs of earlier runs in
# build-fuzz/corpus.  A crash, leak or hang fails the run and leaves its
# input in build-fuzz/crashes/<harness>/ ($CUPLUG_FUZZ_DIR for another
# folder); copy it into the regressions folder once fixed.  The harnesses: signature irtext resolve code_kind
# case_json values compile cache_entry host signature_ir launch_args modern wire remote
# printf (tests/fuzz/fuzz_*.c).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(signature irtext resolve code_kind case_json values compile cache_entry host
                                         signature_ir launch_args modern wire remote printf)

out=${CUPLUG_FUZZ_DIR:-build-fuzz} # a long run elsewhere leaves CI's folder alone
bash scripts/deps.sh
CC=clang-22 CXX=clang++-22 cmake -S . -B "$out" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCUPLUG_TESTS=OFF -DCUPLUG_FUZZ=ON >/dev/null
cmake --build "$out" -j"$(nproc)" --target fuzz_all cuplug_helper cuplug_host cuplug_cli >/dev/null

export CUPLUG_HELPER=$PWD/$out/lib/cuplug-helper
export CUPLUG_HOST_LIBRARY=$PWD/$out/lib/libcuplug-host.so
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0

# seed <harness> <corpus folder>: the inputs a harness starts from
seed() {
  local dir=$2
  mkdir -p "$dir"
  case $1 in
    irtext | compile | host)
      for f in tests/conformance/numba/*/input.ll samples/extern/kernel.ll; do
        cp "$f" "$dir/$(echo "$f" | tr / _)"
      done
      # CUDA's printf, assert and trap, and a C-library function the CPU refuses
      printf '%s\n' '@fmt = private constant [4 x i8] c"%d\0A\00"' \
        'define i32 @f(i64* %ret, i32 %x, i32 %y) {' \
        '  %buf = alloca i32' '  store i32 %x, i32* %buf' '  %p = bitcast i32* %buf to i8*' \
        '  %s = getelementptr [4 x i8], [4 x i8]* @fmt, i32 0, i32 0' \
        '  %n = call i32 @vprintf(i8* %s, i8* %p)' '  %bad = icmp slt i32 %y, 0' \
        '  br i1 %bad, label %fail, label %ok' 'fail:' \
        '  call void @__assertfail(i8* %s, i8* %s, i32 1, i8* %s, i64 1)' \
        '  call void @llvm.trap()' '  call void @exit(i32 %y)' '  unreachable' 'ok:' \
        '  %w = sext i32 %n to i64' '  store i64 %w, i64* %ret' '  ret i32 0' '}' \
        'declare i32 @vprintf(i8*, i8*)' 'declare void @__assertfail(i8*, i8*, i32, i8*, i64)' \
        'declare void @llvm.trap()' 'declare void @exit(i32)' >"$dir/cuda_library.ll" ;;
    case_json)
      for f in tests/conformance/numba/*/case.json; do cp "$f" "$dir/$(echo "$f" | tr / _)"; done ;;
    values) # the device functions' (the kernels' are past -max_len)
      for f in tests/conformance/numba/{add,dev,poly,pred}*/values.json; do
        cp "$f" "$dir/$(echo "$f" | tr / _)"
      done ;;
    signature)
      sed -n 's/.*"signature": *"\([^"]*\)".*/\1/p' tests/conformance/numba/*/case.json |
        sort -u | awk -v d="$dir" '{ f = d "/sig" NR; printf "%s", $0 > f; close(f) }'
      printf 'UniTuple(int64 x 2)' >"$dir/tuple"
      printf 'Tuple(float32, Literal[int](3), class(float64))' >"$dir/mixed"
      printf 'void(float32[:, ::1], CPointer(complex128), array(int8, 3d, F))' >"$dir/arrays"
      printf 'void(readonly array(float32, 1d, C), readonly array(c8, 2d, A))' >"$dir/readonly"
      # 1.3's types: records, structs, function pointers, opaque and omitted values
      printf 'void(Record(a: int32 @ 0, "b c": UniTuple(float32 x 2) @ 4, size=12, align=4)[::1])' \
        >"$dir/record"
      printf 'Struct(x: int32, y: Struct(z: bfloat16, w: bool))(CPointer(float64(float64)))' \
        >"$dir/struct"
      printf 'void(Opaque("typeref[int32]"), Omitted("omitted(default=\\"3\\")"), CPointer(void))' \
        >"$dir/opaque"
      printf 'void(array(int64, 0d, C), UniTuple(uint8 x 12)[:], Tuple(int32, float32)[::1])' \
        >"$dir/dtypes" ;;
    signature_ir) # each case with its own signature: case byte (name order), switches, signature
      local i=0 f kind sig
      for f in $(LC_ALL=C ls -d tests/conformance/numba/*/case.json); do
        kind=$(sed -n 's/.*"kind": *"\([^"]*\)".*/\1/p' "$f")
        sig=$(sed -n 's/.*"signature": *"\([^"]*\)".*/\1/p' "$f" | head -n 1)
        printf "\\x$(printf %02x $i)\\x$([ "$kind" = kernel ] && echo 01 || echo 00)%s" "$sig" \
          >"$dir/case$i"
        printf "\\x$(printf %02x $i)\\x$([ "$kind" = kernel ] && echo 05 || echo 04)%s" "$sig" \
          >"$dir/case$i-trusted"
        i=$((i + 1))
      done
      printf '\x03\x10int64(int32, int32)\nint32(int32, int32)' >"$dir/declared"
      printf '\x03\x30int64(int32, int32)\nfloat64(int32, int32)' >"$dir/declared-c"
      # signatures the IR agrees with that are not its own: the passes after the check
      printf '\x01\x00int64(uint32, class(float32), int32)' >"$dir/class"
      printf '\x01\x02int32(CPointer(int64), int32, int32)' >"$dir/c-abi" ;;
    modern) # Triton's own IR, and the corpus upgraded by LLVM 22, as text and as bitcode;
      # the first two bytes: no signature (the IR's), a kernel
      local f n
      for f in tests/triton/fixtures/{add,softmax,gelu}.ll; do
        { printf '\x00\x01'; cat "$f"; } >"$dir/triton-$(basename "$f" .ll)"
        { printf '\x00\x01'; llvm-as-22 <"$f"; } >"$dir/triton-$(basename "$f" .ll).bc"
      done
      for f in tests/conformance/numba/*/input.ll; do
        n=$(basename "$(dirname "$f")")
        { printf '\x01\x00'; llvm-as-22 <"$f" | llvm-dis-22; } >"$dir/$n"
        { printf '\x01\x00'; llvm-as-22 <"$f"; } >"$dir/$n.bc"
      done ;;
    code_kind)
      cp tests/conformance/numba/add_i32/expected.ptx "$dir/ptx"
      cp samples/extern/ext_clamp.cu "$dir/cu"
      printf '\x00\xed\x43\x4e\x7f\x01\x02' >"$dir/ltoir"
      printf '\x06!<arch>\n' >"$dir/archive" ;;
    resolve) printf '\x01\x02\x03\x0b\x00' >"$dir/one" ;;
    wire) # a job and a result made of options and modules (round trips), and raw bytes
      printf '\x02-arch=compute_90\0-opt=3\0define void @f() {\n  ret void\n}\0' >"$dir/job"
      printf '\x03libNVVM said nothing\0//\n// PTX\n.version 9.0\n' >"$dir/result"
      printf '\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >"$dir/short" ;;
    remote) # the first byte: raw answer (then its pieces), value, payload to seal, socket, URL
      printf '\x00\x01$-1\r\n' >"$dir/nil"
      printf '\x00\x03-LOADING Redis is loading\r\n' >"$dir/error"
      printf '\x01CUPLUGR\x01' >"$dir/value"
      printf '\x02a compiled result' >"$dir/payload"
      printf '\x03$-1\r\n' >"$dir/socket-nil"
      printf '\x03+OK\r\n' >"$dir/socket-ok"
      printf '\x03$100000000\r\n' >"$dir/socket-huge"
      printf '\x04redis://ops:p%%40ss@[::1]:6390/2' >"$dir/url" ;;
    printf) # the formats the tests print, and the edges of a conversion
      printf 'i32 %%d u32 %%u hx %%hx x %%x lld %%lld llu %%llu f %%f e %%.3e g %%g s %%s c %%c %%5d|%%-4d| %%%% %%05.1f\n' \
        >"$dir/all_sizes"
      printf 'item %%lld %%lld %%f %%f %%s\n' >"$dir/numba"
      printf '%%999999999d|%%.5000f|%%4096d|%%' >"$dir/widths"
      printf '%%hhd %%hd %%lc %%Lf %%*d %%n %%%%' >"$dir/modifiers" ;;
    launch_args) # saxpy's signature, three growable arrays and a float32, each as given
      printf '\x00\x01\x03' >"$dir/saxpy" ;;
    cache_entry) # real entries, as the CLI leaves them; the first byte: repair (1) or not
      local cache
      cache=$(mktemp -d)
      for c in add_i32 saxpy_kernel dev_ext_i32; do
        "$out/bin/cuplug" case "tests/conformance/numba/$c" --output ltoir -o /dev/null \
          --cache-dir "$cache" >/dev/null 2>&1 || true
      done
      for f in "$cache"/v1/*/*; do
        { printf '\x01'; cat "$f"; } >"$dir/entry-$(basename "$f" | cut -c1-8)"
      done
      rm -rf "$cache" ;;
  esac
}

status=0
for h in "${harnesses[@]}"; do
  bin=$out/fuzz/fuzz_$h
  timeout=10
  [ "$h" = compile ] || [ "$h" = host ] && timeout=30
  regressions=tests/fuzz/regressions/$h
  if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
    echo "== fuzz_$h: replaying $(ls "$regressions" | wc -l) regression inputs"
    # a hang found again fails within the timeout, as in the fuzzing
    "$bin" -runs=0 -timeout=$timeout "$regressions"/* >"$out/replay-$h.log" 2>&1 ||
      { cat "$out/replay-$h.log"; status=1; }
  fi
  corpus=$out/corpus/$h
  seed "$h" "$corpus"
  mkdir -p "$out/crashes/$h"
  dict=()
  [ -f "tests/fuzz/$h.dict" ] && dict=(-dict="tests/fuzz/$h.dict")
  echo "== fuzz_$h: ${seconds}s"
  if ! "$bin" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=$timeout \
      -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$out/crashes/$h/" >"$out/fuzz-$h.log" 2>&1; then
    tail -n 60 "$out/fuzz-$h.log"
    echo "fuzz_$h FAILED: the input is in $out/crashes/$h/"
    status=1
  else
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov: .* ft:" \
      "$out/fuzz-$h.log" | tail -n 3
  fi
done
exit $status

#!/usr/bin/env bash
# Builds the front-end fuzzer with clang (libFuzzer + ASan + UBSan) straight
# from the sources into a temporary directory and runs it for a bounded time.
#
#   tests/fuzz/run_fuzz.sh [SECONDS]      (default 20)
#
# Environment: CLANGXX (default clang++), FUZZ_JOBS (parallel compiles,
# default 2), FUZZ_KEEP=1 keeps the temporary directory (crash inputs are
# written there and the path is printed), FUZZ_DESERIALIZE=1 also feeds
# every input to the cached-kernel reader (runtime/serialize.h; this builds
# the interpreter and the runtime too, so it is off in the ctest run, whose
# time is bounded). Exit status: 0 when no crash was
# found, non-zero otherwise.
set -euo pipefail

seconds="${1:-20}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cxx="${CLANGXX:-clang++}"
jobs="${FUZZ_JOBS:-2}"

work="$(mktemp -d "${TMPDIR:-/tmp}/tessera-fuzz.XXXXXX")"
cleanup() { if [[ "${FUZZ_KEEP:-0}" != 1 ]]; then rm -rf "$work"; fi; }
trap cleanup EXIT

flags=(-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=undefined -I"$root/src" -I"$root/include")

# The library sources go into a static archive, so only the objects the
# fuzzer needs are linked (the sema/lowering files in src/frontend pull in the
# IR; the archive keeps unrelated half-finished code out of the link).
shopt -s nullglob
sources=("$root"/src/support/*.cpp "$root"/src/ir/*.cpp "$root"/src/frontend/*.cpp
         "$root"/src/passes/*.cpp)
if [[ "${FUZZ_DESERIALIZE:-0}" == 1 ]]; then
  sources+=("$root"/src/interp/*.cpp "$root"/src/runtime/*.cpp)
  # clang has no target_clones on templates (the interpreter's FMA clone of
  # its GEMM); the fuzzer needs no clone, so the attribute becomes a no-op.
  flags+=(-DTESSERA_FUZZ_DESERIALIZE '-Dtarget_clones(...)=unused')
fi
compile_one() {
  local src="$1"
  local obj="$work/$(echo "${src#"$root"/}" | tr '/' '_').o"
  # A file that does not compile (another component mid-change, or a clang
  # limitation) is left out with a warning: the archive link below fails
  # loudly if the fuzzer actually needs it.
  if ! "$cxx" "${flags[@]}" -c "$src" -o "$obj" 2>"$obj.log"; then
    echo "warning: left out ${src#"$root"/}, which does not compile with $cxx:" >&2
    head -5 "$obj.log" >&2
    rm -f "$obj"
  fi
}
pids=()
for src in "${sources[@]}"; do
  compile_one "$src" &
  pids+=($!)
  if (( ${#pids[@]} >= jobs )); then
    wait "${pids[0]}"
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid"; done
ar rcs "$work/libtessera_fuzz.a" "$work"/*.o
"$cxx" "${flags[@]/fuzzer-no-link/fuzzer}" "$here/fuzz_frontend.cpp" "$work/libtessera_fuzz.a" \
  -o "$work/fuzz_frontend"

mkdir -p "$work/corpus"
cp "$here"/corpus/* "$work/corpus/" 2>/dev/null || true
cd "$work"
echo "fuzzing for ${seconds}s in $work"
if ! ./fuzz_frontend -max_total_time="$seconds" -max_len=4096 -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 -dict="$here/tessera.dict" corpus; then
  echo "fuzz_frontend found a crash; inputs: $(ls "$work"/crash-* "$work"/timeout-* \
        "$work"/oom-* 2>/dev/null | tr '\n' ' ')" >&2
  FUZZ_KEEP=1
  exit 1
fi

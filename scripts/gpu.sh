#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds Tessera (no registry needed:
# CMake, Ninja, nanobind and scikit-build-core already installed), runs the
# GPU tests (tests/gpu), the examples under compute-sanitizer (all) and the
# GPU benchmark, and writes logs to $OUT (or build-gpu/out).
# Usage: scripts/gpu.sh [tests|check|sanitize|bench|launch|ampere|ab|all|py] [args...]
#   check: tests and compute-sanitizer, no benchmark.
#   sanitize: compute-sanitizer only (memcheck, racecheck, synccheck), for a
#   machine whose time per command would not hold the tests too.
#   py SCRIPT [args]: runs one Python script with the GPU build (e.g.
#   bench/num_stages.py).
#   ampere: the sm_80 path (TESSERA_TARGET=sm_80) against the best of cuBLASLt's
#   own algorithms that the enumeration offers on this GPU (bench/cublaslt_algos.cu,
#   mma.sync kernels on Hopper), in one call, the best one named by ncu.
#   launch: only the launch-overhead measurements (bench/gpu.py --only launch,
#   bench/launch_breakdown.py, build-gpu/bench_launch_cpp, bench/launch_raw.cu).
#   ab PATCH COMMAND...: a change measured against this tree in one call: builds
#   a copy of the tracked files with PATCH applied (git apply), then runs COMMAND
#   (e.g. "python3 bench/matmul_configs.py --no-triton") in this tree and in the
#   copy, alternating, $ROUNDS times (default 2), each run in its own process
#   with its own build and cache; logs to $OUT/ab.log. A difference smaller than
#   the spread between one tree's rounds is noise.
set -uo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"; shift || true
out="${OUT:-build-gpu/out}"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$out/gpu.txt" 2>&1
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=OFF \
  -DTESSERA_WERROR=OFF > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
export TESSERA_BUILD_DIR="$PWD/build-gpu" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"
export TESSERA_CACHE_DIR="$(mktemp -d)"
status=0
if [ "$what" = tests ] || [ "$what" = all ] || [ "$what" = check ]; then
  python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors tests/gpu "$@" 2>&1 |
    tee "$out/gpu_tests.log" | tail -40
  status=${PIPESTATUS[0]}
fi
if { [ "$what" = all ] || [ "$what" = check ] || [ "$what" = sanitize ]; } &&
  command -v compute-sanitizer >/dev/null; then
  # The examples under memcheck, and a few under racecheck (shared memory).
  compute-sanitizer --tool memcheck --error-exitcode 3 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_examples_gpu.py 2>&1 | tee "$out/memcheck.log" | tail -3
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  # The language suite too, but for the test whose device_assert fires on
  # purpose (memcheck reports the assert).
  compute-sanitizer --tool memcheck --error-exitcode 3 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_language_gpu.py tests/gpu/test_fp8_gpu.py -k "not device_assert" 2>&1 |
    tee "$out/memcheck_language.log" | tail -3
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  compute-sanitizer --tool racecheck --error-exitcode 3 python3 -m pytest -q -p no:cacheprovider \
    tests/gpu/test_examples_gpu.py -k "softmax or layer_norm or matmul or (attention and 128-64 and dtype0)" 2>&1 |
    tee "$out/racecheck.log" | tail -3
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  # The matmul example on both tensor-core paths (wgmma and TMA on this
  # GPU's sm_90a; mma.sync, ldmatrix and cp.async with TESSERA_TARGET=sm_80)
  # under synccheck (barrier use), and the sm_80 path under racecheck too.
  for target in "" sm_80; do
    TESSERA_TARGET=$target compute-sanitizer --tool synccheck --error-exitcode 3 python3 -m pytest \
      -q -p no:cacheprovider tests/gpu/test_examples_gpu.py -k "matmul" 2>&1 |
      tee "$out/synccheck${target:+_$target}.log" | tail -2
    [ "${PIPESTATUS[0]}" = 0 ] || status=1
  done
  TESSERA_TARGET=sm_80 compute-sanitizer --tool racecheck --error-exitcode 3 python3 -m pytest -q \
    -p no:cacheprovider tests/gpu/test_examples_gpu.py -k "matmul" 2>&1 |
    tee "$out/racecheck_sm_80.log" | tail -2
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  python3 bench/gpu.py --out "$out/bench.txt" 2>&1 | tee "$out/bench.log" | tail -30
fi
if [ "$what" = py ]; then
  python3 "$@" 2>&1 | tee "$out/py.log"
  status=${PIPESTATUS[0]}
fi
if [ "$what" = ampere ]; then
  { nvcc -O2 -std=c++17 -arch=sm_90 bench/cublaslt_algos.cu -lcublasLt -o build-gpu/cublaslt_algos &&
      build-gpu/cublaslt_algos | tee "$out/cublaslt_algos.txt"
    best=$(grep '^algorithm' "$out/cublaslt_algos.txt" | sort -t: -k2 -g -r | head -1 |
      awk '{print $2, $4, $6}' | tr -d ':')
    if [ -n "$best" ]; then
      build-gpu/cublaslt_algos 4096 $best
      command -v ncu >/dev/null && ncu --clock-control none --metrics gpu__time_duration.sum -c 1 -k 'regex:^[^f]' \
        build-gpu/cublaslt_algos 4096 $best 2>&1 | grep -m1 'Context' | sed 's/^ */kernel: /'
    fi
    TESSERA_TARGET=sm_80 python3 bench/matmul_configs.py --no-triton \
      --configs 128,256,64,8,3 256,128,64,8,3 128,256,32,8,4
    [ -z "$best" ] || build-gpu/cublaslt_algos 4096 $best; } 2>&1 | tee "$out/ampere.log"
fi
if [ "$what" = ab ]; then
  patch="$(realpath "$1")"; shift
  copy="$(mktemp -d)/tessera"
  mkdir -p "$copy" && git ls-files -z | xargs -0 -I{} cp --parents {} "$copy/" &&
    (cd "$copy" && git init -q && git apply "$patch" &&
      cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=OFF \
        -DTESSERA_WERROR=OFF > "$copy/cmake.log" 2>&1 &&
      cmake --build build-gpu -j"$(nproc)" > "$copy/build.log" 2>&1) ||
    { echo "ab: could not apply $patch or build the copy (logs in $copy)"; exit 1; }
  for round in $(seq "${ROUNDS:-2}"); do
    for tree in "$PWD" "$copy"; do
      label=$([ "$tree" = "$PWD" ] && echo "this tree" || echo "with $(basename "$patch")")
      echo "== round $round, $label"
      (cd "$tree" && TESSERA_BUILD_DIR="$tree/build-gpu" PYTHONPATH="$tree/python" \
        TESSERA_CACHE_DIR="$(mktemp -d)" "$@")
    done
  done 2>&1 | tee "$out/ab.log"
fi
if [ "$what" = launch ]; then
  { python3 bench/gpu.py --only launch; python3 bench/launch_breakdown.py;
    build-gpu/bench_launch_cpp;
    build-gpu/tesserac compile examples/vector_add.py --kernel add_kernel --emit ptx \
      --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --target sm_90a > build-gpu/add.ptx
    nvcc -O2 -o build-gpu/launch_raw bench/launch_raw.cu -lcuda &&
      build-gpu/launch_raw build-gpu/add.ptx add_kernel; } 2>&1 |
    tee "$out/launch.log"
fi
exit $status

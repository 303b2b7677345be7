#!/usr/bin/env bash
# Builds everything and runs the demo: the examples of examples/ through the
# Python package on the best back end available (a CUDA GPU when PyTorch sees
# one, checked and timed against PyTorch; else the CPU interpreter, against
# NumPy). Builds without the test suite, so it needs no package registry on a
# machine that has CMake, Ninja, a C++20 compiler, NumPy and nanobind.
# Without the Python extension (no nanobind), the C++ demo runs instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh demo
# The test suite too where its tools are installed (GoogleTest), so the two
# README commands share one build.
tests=OFF
if [ -f /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] ||
  [ -f /usr/lib/cmake/GTest/GTestConfig.cmake ]; then tests=ON; fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_BUILD_TESTS=$tests >/dev/null
cmake --build build -j"$(nproc)"
if ls build/python/tessera/_C*.so >/dev/null 2>&1; then
  TESSERA_BUILD_DIR="$PWD/build" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" \
    exec python3 examples/demo.py "$@"
fi
echo "demo: the Python extension is not built; running the C++ demo"
exec build/tessera-demo examples

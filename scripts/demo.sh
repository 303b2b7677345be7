#!/usr/bin/env bash
# Builds everything and runs the demo: the examples of examples/ through the
# Python package on the best back end available (the CPU interpreter until
# the GPU back end lands), each checked against NumPy and timed against it.
# Without the Python extension (no nanobind), the C++ demo runs instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
if ls build/python/tessera/_C*.so >/dev/null 2>&1; then
  TESSERA_BUILD_DIR="$PWD/build" PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" \
    exec python3 examples/demo.py "$@"
fi
echo "demo: the Python extension is not built; running the C++ demo"
exec build/tessera-demo examples

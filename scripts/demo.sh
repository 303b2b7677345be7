#!/usr/bin/env bash
# Builds everything and runs the demo: example kernels compiled from their
# .py files and run on the best backend available (the CPU interpreter until
# the GPU back end lands), checked against references and timed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
build/tessera-demo examples

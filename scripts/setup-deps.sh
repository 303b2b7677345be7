#!/usr/bin/env bash
# Installs what building and testing Tessera needs, where it is missing:
# a C++20 compiler, CMake, Ninja, GoogleTest, FileCheck (llvm-14-tools),
# clang with libFuzzer, Python 3 with tests/python/requirements.txt. Safe to run again.
set -euo pipefail

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] || \
  [ -f /usr/lib/cmake/GTest/GTestConfig.cmake ] || need_apt+=(libgtest-dev)
command -v FileCheck-14 >/dev/null || command -v FileCheck >/dev/null || \
  [ -x /usr/lib/llvm-14/bin/FileCheck ] || need_apt+=(llvm-14-tools)
command -v clang++ >/dev/null || need_apt+=(clang)
command -v python3 >/dev/null || need_apt+=(python3 python3-pip)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup-deps: installing ${need_apt[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
  else
    echo "setup-deps: missing packages: ${need_apt[*]} (install them, e.g. with apt-get)" >&2
    exit 1
  fi
fi

if ! python3 -c "import numpy, pytest, ml_dtypes" 2>/dev/null; then
  echo "setup-deps: installing tests/python/requirements.txt"
  req="$(dirname "$0")/../tests/python/requirements.txt"
  python3 -m pip install -q -r "$req" || python3 -m pip install -q --break-system-packages -r "$req"
fi

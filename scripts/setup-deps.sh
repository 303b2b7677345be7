#!/usr/bin/env bash
# Installs what building and testing Tessera needs, where it is missing:
# a C++20 compiler, CMake, Ninja, GoogleTest, FileCheck (llvm-14-tools),
# clang with libFuzzer, Python 3 with its headers and tests/python/requirements.txt,
# nanobind and scikit-build-core (the extension tessera._C, pip install .). Safe to run again.
#
#   scripts/setup-deps.sh        everything (the test suite's tools too)
#   scripts/setup-deps.sh demo   only what building and the demo need (so a
#                                GPU machine with no package registry runs it)
set -euo pipefail
mode="${1:-all}"

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
if [ "$mode" != demo ]; then
  [ -f /usr/lib/x86_64-linux-gnu/cmake/GTest/GTestConfig.cmake ] || \
    [ -f /usr/lib/cmake/GTest/GTestConfig.cmake ] || need_apt+=(libgtest-dev)
  command -v FileCheck-14 >/dev/null || command -v FileCheck >/dev/null || \
    [ -x /usr/lib/llvm-14/bin/FileCheck ] || need_apt+=(llvm-14-tools)
  command -v clang++ >/dev/null || need_apt+=(clang)
fi
command -v python3 >/dev/null || need_apt+=(python3 python3-pip python3-dev python3-venv)
# Python.h for the extension module (Debian's python3 keeps it in python3-dev);
# optional: without it CMake skips the extension.
if command -v python3 >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
  ! [ -f "$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]; then
  need_apt+=(python3-dev)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "setup-deps: installing ${need_apt[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
  else
    echo "setup-deps: missing packages: ${need_apt[*]} (install them, e.g. with apt-get)" >&2
    exit 1
  fi
fi

if [ "$mode" = demo ] && python3 -c "import numpy, ml_dtypes" 2>/dev/null; then
  :  # the demo needs no pytest
elif ! python3 -c "import numpy, pytest, ml_dtypes" 2>/dev/null; then
  echo "setup-deps: installing tests/python/requirements.txt"
  req="$(dirname "$0")/../tests/python/requirements.txt"
  python3 -m pip install -q -r "$req" || python3 -m pip install -q --break-system-packages -r "$req"
fi

if ! python3 -c "import nanobind, scikit_build_core" 2>/dev/null; then
  echo "setup-deps: installing nanobind scikit-build-core"
  python3 -m pip install -q nanobind scikit-build-core || \
    python3 -m pip install -q --break-system-packages nanobind scikit-build-core
fi

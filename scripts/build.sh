#!/usr/bin/env bash
# Builds windowctl into build/ (static, stripped) or, with --sanitize, into build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWINDOWCTL_SANITIZE=ON >/dev/null
  cmake --build build-asan
else
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel >/dev/null
  cmake --build build
fi

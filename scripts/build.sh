#!/usr/bin/env bash
# Builds windowctl into build/ (static, stripped) or, with --sanitize, into build-asan/.
# The static build links the minimal OpenSSL that CMake has scripts/openssl.sh build from Debian's
# source package: a few minutes the first time on a machine, then cached (~/.cache/windowctl).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--sanitize" ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWINDOWCTL_SANITIZE=ON >/dev/null
  cmake --build build-asan
else
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=MinSizeRel >/dev/null
  cmake --build build
fi

#!/usr/bin/env bash
# Prints the folder holding GoogleTest's CMake sources, fetching them when the
# machine has none. No root and no system change: Debian's `googletest`
# package (sources only) is downloaded with `apt-get download` and unpacked
# into build/_deps. Exits non-zero when no source can be found.
set -euo pipefail
cd "$(dirname "$0")/.."
for d in "${GTEST_SOURCE_DIR:-}" /usr/src/googletest build/_deps/googletest/usr/src/googletest; do
  if [ -n "$d" ] && [ -f "$d/CMakeLists.txt" ]; then
    echo "$(cd "$d" && pwd)"; exit 0
  fi
done
deps=build/_deps/googletest
mkdir -p "$deps"
fetch() { (cd "$deps" && apt-get download googletest >/dev/null 2>&1); }
if ! fetch; then
  # The package lists may be missing on a new machine; refreshing them needs root.
  if [ "$(id -u)" = 0 ]; then apt-get update -q >/dev/null 2>&1 || true; fi
  fetch || { echo "error: GoogleTest sources not found and 'apt-get download googletest' failed;" \
                  "install Debian's googletest or set GTEST_SOURCE_DIR" >&2; exit 1; }
fi
dpkg-deb -x "$deps"/googletest_*.deb "$deps"
rm -f "$deps"/googletest_*.deb
echo "$(cd "$deps/usr/src/googletest" && pwd)"

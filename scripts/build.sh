#!/usr/bin/env bash
# (Re)builds and installs popart-cpu in editable mode into the active virtual
# environment (see scripts/env.sh); incremental after the first run. The C++
# tests are built in the same tree (build/py). Shows the build's [n/N]
# progress; the full log is build/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
gtest=$(bash scripts/gtest.sh)
mkdir -p build
log=build/build.log
install() {
  python -m pip install -v --no-build-isolation -e . \
    -Cbuild-dir=build/py -Ccmake.define.POPART_BUILD_TESTS=ON \
    -Ccmake.define.POPART_GTEST_SOURCE_DIR="$gtest" >"$log" 2>&1 &
  local pid=$!
  # Ninja's progress lines, as they come, while pip runs.
  tail -n +1 -f "$log" --pid=$pid 2>/dev/null | grep --line-buffered -E '^\s*\[[0-9]+/[0-9]+\] ' \
    | sed -u -E 's/^\s*(\[[0-9]+\/[0-9]+\]) [A-Za-z ]*(\S*\/)?([^/ ]+)( .*)?$/  \1 \3/' || true
  wait $pid
}
# The build is incremental, so a retry resumes where a failure stopped. A
# compiler crash (SIGBUS/SIGSEGV, not a source error) was seen on the project's
# VM while other builds ran; the same files compiled on the next attempt. A real
# error fails twice and stops the script.
if ! install; then
  echo "build failed; retrying once (incremental)" >&2
  install || { tail -n 60 "$log" >&2; echo "build failed: full log in $log" >&2; exit 1; }
fi
echo "== popart-cpu built (log: $log)"

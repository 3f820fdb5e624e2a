#!/usr/bin/env bash
# Runs every test: rebuilds (incrementally), then the C++ GoogleTest suites
# through CTest and the Python suite through pytest. Exits non-zero on failure.
#   bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
status=0
if [ -f build/py/CTestTestfile.cmake ]; then
  ctest --test-dir build/py --output-on-failure -j2 || status=1
fi
python -m pytest tests/python -q --durations=15 "$@" || status=1
exit $status

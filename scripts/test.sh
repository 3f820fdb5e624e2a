#!/usr/bin/env bash
# Runs every test: rebuilds (incrementally), then the C++ GoogleTest suites
# through CTest and the Python suite through pytest. Exits non-zero on failure.
# Run scripts/setup.sh once first.
#   bash scripts/test.sh [extra pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
bash scripts/build.sh
status=0
echo "== C++ tests (CTest)"
ctest --test-dir build/py --output-on-failure -j2 || status=1
echo "== Python tests (pytest)"
python -m pytest tests/python -q --durations=15 "$@" || status=1
exit $status

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
# Both runs are teed to logs so the end of the script can report their counts
# (pipefail keeps each run's own exit status).
echo "== C++ tests (CTest)"
ctest --test-dir build/py --output-on-failure -j2 2>&1 | tee build/ctest.log || status=1
echo "== Python tests (pytest; builds and runs examples/custom_op and examples/cpp)"
python -m pytest tests/python tests/fuzz -q --durations=15 "$@" 2>&1 | tee build/pytest.log || status=1
echo "== torchvision tests (second environment build/tvvenv: torch 2.14.1 + torchvision 0.29.1)"
bash scripts/torchvision_tests.sh 2>&1 | tee build/tvtests.log || status=1
echo "== user guide (Sphinx, offline, warnings are errors)"
docs="built into build/docs/index.html"
python -m sphinx -W --keep-going -q -b html docs build/docs 2>&1 | tee build/docs.log \
  || { status=1; docs="sphinx-build failed (a warning counts): see build/docs.log"; }
echo "== summary"
echo "  Docs:   $docs"
echo "  torchvision: $(grep -E '(passed|failed|error)[^=]* in [0-9.]+s|skipped:' build/tvtests.log | tail -n 1 | tr -d '=' || echo 'no result line')"
echo "  C++:    $(grep -E 'tests passed' build/ctest.log | tail -n 1 || echo 'no CTest result line')"
echo "  Python: $(grep -E '^=*[^=]* (passed|failed|error)[^=]* in [0-9.]+s' build/pytest.log | tail -n 1 | tr -d '=' || echo 'no pytest result line')"
exit $status

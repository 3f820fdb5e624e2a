#!/usr/bin/env bash
# Runs the tests that need torchvision (tests/python/training/test_torchvision_models.py and the
# user guide's AlexNet examples) in a second virtual environment, build/tvvenv: PyPI's torchvision
# does not load beside the CPU build of torch 2.13 that the main environment uses, while
# torch 2.14.1 + torchvision 0.29.1 work together (a CUDA build of torch, about 5.5 GB; measured
# here: 133 s to install on a busy 2-core machine). The environment is created once and kept;
# popart is used from the build tree (build/py, or $POPART_BUILD_DIR), so nothing is built twice.
#   bash scripts/torchvision_tests.sh [extra pytest arguments]
# POPART_SKIP_TORCHVISION=1 skips it. When the environment cannot be created (no package index),
# the tests are reported as skipped with pip's reason, and the script succeeds.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
venv=build/tvvenv
log=build/tvvenv.log
if [ -n "${POPART_SKIP_TORCHVISION:-}" ]; then
  echo "torchvision tests skipped: POPART_SKIP_TORCHVISION is set"
  exit 0
fi
if ! "$venv/bin/python" -c "import torchvision" >/dev/null 2>&1; then
  echo "== creating $venv (torch 2.14.1 + torchvision 0.29.1, ~5.5 GB; kept for later runs; log: $log)"
  rm -rf "$venv"
  base=$(python -c "import sys; print(sys._base_executable)")
  start=$(date +%s)
  if ! { "$base" -m venv "$venv" &&
         "$venv/bin/python" -m pip install torch==2.14.1 torchvision==0.29.1 numpy pytest \
           onnx==1.22.0 onnxruntime onnxscript protobuf ml_dtypes; } >"$log" 2>&1; then
    echo "torchvision tests skipped: $venv could not be created:"
    grep -E "ERROR|error:" "$log" | tail -n 3 | sed 's/^/  /'
    rm -rf "$venv"
    exit 0
  fi
  echo "   created in $(( $(date +%s) - start )) s"
fi
PYTHONPATH="$PWD/python:$PWD/${POPART_BUILD_DIR:-build/py}/cpp/bindings" "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  tests/python/training/test_torchvision_models.py tests/python/session/test_user_guide.py \
  tests/python/training/test_user_guide_training.py -k torchvision "$@"

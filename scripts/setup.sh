#!/usr/bin/env bash
# Sets up a development install of popart-cpu and runs the demo.
#   bash scripts/setup.sh
# Uses the active virtual environment, or creates and uses .venv (see
# scripts/env.sh); installs the Python requirements (requirements-dev.txt:
# build tools, oneDNN, and the test references torch, onnx, onnxruntime, ...),
# fetches GoogleTest's sources when the machine has none (scripts/gtest.sh: no
# root, no system change), builds the C++ core incrementally into build/py
# (editable install: Python sources are used in place) and runs examples/demo.py.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
echo "== installing the Python requirements into $(python -c 'import sys; print(sys.prefix)')"
# pip's warnings about this machine's unreachable extra indexes are noise.
python -m pip install -q -r requirements-dev.txt 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
echo "== building popart-cpu"
bash scripts/build.sh
echo "== installing horovod.popart (distributions/horovod-popart: Horovod's PopART API and horovodrun over MPI)"
python -m pip install -q --no-build-isolation --no-deps distributions/horovod-popart
echo "== running examples/demo.py"
python examples/demo.py

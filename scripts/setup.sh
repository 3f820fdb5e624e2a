#!/usr/bin/env bash
# Sets up a development install of popart-cpu and runs the demo.
#   bash scripts/setup.sh
# Installs the Python requirements, builds the C++ core incrementally into
# build/py (editable install: Python sources are used in place) and runs
# examples/demo.py.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -r requirements-dev.txt
bash scripts/build.sh
python examples/demo.py

# Sourced by the other scripts: makes sure they run inside a virtual
# environment. When none is active, `.venv` at the top of the tree is created
# (first time) and activated, so nothing is installed into the system Python.
# Set POPART_NO_VENV=1 to use whatever `python` is on PATH instead.
if [ -z "${VIRTUAL_ENV:-}" ] && [ -z "${CONDA_PREFIX:-}" ] && [ -z "${POPART_NO_VENV:-}" ]; then
  if [ ! -x .venv/bin/python ]; then
    echo "== creating the virtual environment .venv (no active venv found)"
    python3 -m venv .venv
  fi
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi

"""popxl: PopXL's Python API on the CPU (in progress; see the README)."""

#!/usr/bin/env bash
# Builds kernel_bench.cpp once per library, each in its own folder under build/kernel_libs/
# (not part of the project's CMake build or CI):
#   onednn32  - oneDNN 3.2 (PyPI onednn-cpu-gomp 2023.2.0, what popart links; GNU OpenMP) + MKL
#               (PyPI mkl 2026, libmkl_gnu_thread: the same GNU OpenMP runtime) for cblas_sgemm
#   onednn313 - oneDNN 3.13 (PyPI onednn 2026.1.0; SYCL CPU runtime, TBB threading)
# Prefixes (the folders holding include/ and lib/ of each pip install):
#   DNNL32_PREFIX  default: the project's venv, /work/venv (read only)
#   EVAL_PREFIX    default: /work/libeval-venv, where `pip install onednn==2026.1.0
#                  onednn-devel==2026.1.0 mkl-devel` went (never the project's venv: the
#                  oneDNN 3.13 wheel installs lib/libdnnl.so.3 and include/dnnl.hpp over 3.2's)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
DNNL32_PREFIX=${DNNL32_PREFIX:-/work/venv}
EVAL_PREFIX=${EVAL_PREFIX:-/work/libeval-venv}
CXX=${CXX:-g++}
flags=(-O2 -std=c++17 -mavx512f -Wall)
out=$root/build/kernel_libs
mkdir -p "$out/onednn32" "$out/onednn313"

# RPATH, not RUNPATH (--disable-new-dtags): libdnnl.so.3 of 3.13 finds libtbb, libsycl, libsvml ...
# in its own folder only through the executable's RPATH (it has none of its own).
m=$EVAL_PREFIX/lib
"$CXX" "${flags[@]}" -fopenmp -ffast-math -DKB_WITH_MKL "$here/kernel_bench.cpp" \
  -I"$DNNL32_PREFIX/include" -I"$EVAL_PREFIX/include" \
  -L"$DNNL32_PREFIX/lib" -ldnnl \
  "$m/libmkl_intel_lp64.so.3" "$m/libmkl_gnu_thread.so.3" "$m/libmkl_core.so.3" \
  -lmvec -Wl,--disable-new-dtags,-rpath,"$DNNL32_PREFIX/lib:$m" -o "$out/onednn32/kernel_bench"

"$CXX" "${flags[@]}" "$here/kernel_bench.cpp" \
  -I"$EVAL_PREFIX/include" -L"$EVAL_PREFIX/lib" -ldnnl "$EVAL_PREFIX/lib/libtbb.so.12" \
  -Wl,--disable-new-dtags,-rpath,"$EVAL_PREFIX/lib" -o "$out/onednn313/kernel_bench"
echo "built $out/onednn32/kernel_bench and $out/onednn313/kernel_bench"

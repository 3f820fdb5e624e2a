"""Print the folder holding oneDNN's CMake config (dnnl-config.cmake).

Used by CMakeLists.txt so the build finds the PyPI package
onednn-devel-cpu-gomp wherever pip installed it (venv, user site, or pip's
isolated build environment)."""
import importlib.metadata as md
import os
import sys

for dist_name in ("onednn-devel-cpu-gomp", "onednn-devel"):
    try:
        dist = md.distribution(dist_name)
    except md.PackageNotFoundError:
        continue
    for f in dist.files or []:
        if str(f).endswith("dnnl-config.cmake"):
            print(os.path.dirname(os.path.abspath(dist.locate_file(f))))
            sys.exit(0)
print(os.path.join(sys.prefix, "lib", "cmake", "dnnl"))

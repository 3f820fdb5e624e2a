"""python -m popart --cmakedir | --includedir | --libdir | --version"""
import argparse
import os
import sys

import popart_core


def _libdir():
    return os.path.join(os.path.dirname(os.path.abspath(popart_core.__file__)), "popart_cpu.libs")


def _cmakedir():
    """The installed package, else the build tree popart_core was loaded from."""
    installed = os.path.join(_libdir(), "lib", "cmake", "popart")
    if os.path.isfile(os.path.join(installed, "popartConfig.cmake")):
        return installed
    d = os.path.dirname(os.path.abspath(popart_core.__file__))
    for _ in range(4):  # <build>/cpp/bindings/popart_core*.so -> <build>
        if os.path.isfile(os.path.join(d, "popartConfig.cmake")):
            return d
        d = os.path.dirname(d)
    return installed


def _build_tree():
    """The build tree popart_core was loaded from (it holds CMakeCache.txt), or None when installed."""
    d = os.path.dirname(os.path.abspath(popart_core.__file__))
    for _ in range(4):
        if os.path.isfile(os.path.join(d, "CMakeCache.txt")):
            return d
        d = os.path.dirname(d)
    return None


def _includedir():
    """The installed headers, else the source tree's cpp/include of the build tree popart_core came from."""
    installed = os.path.join(_libdir(), "include")
    tree = _build_tree()
    if os.path.isdir(installed) or tree is None:
        return installed
    with open(os.path.join(tree, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("CMAKE_HOME_DIRECTORY:"):
                return os.path.join(line.split("=", 1)[1].strip(), "cpp", "include")
    return installed


def _linkdir():
    """The folder of libpopart.so: installed, else the build tree's cpp/."""
    tree = _build_tree()
    if os.path.isfile(os.path.join(_libdir(), "libpopart.so")) or tree is None:
        return _libdir()
    return os.path.join(tree, "cpp")


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m popart", description=__doc__)
    p.add_argument("--cmakedir", action="store_true", help="folder of popartConfig.cmake")
    p.add_argument("--includedir", action="store_true", help="folder of the public headers")
    p.add_argument("--libdir", action="store_true", help="folder of libpopart.so")
    p.add_argument("--version", action="store_true")
    a = p.parse_args(argv)
    if a.cmakedir:
        print(_cmakedir())
    elif a.includedir:
        print(_includedir())
    elif a.libdir:
        print(_linkdir())
    else:
        print(popart_core.versionString())
    return 0


if __name__ == "__main__":
    sys.exit(main())

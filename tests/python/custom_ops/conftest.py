"""Builds the custom-op examples, the C++ example and test libraries once per
session with CMake against popart's package (`python -m popart --cmakedir`:
the installed package, or the build tree popart_core was loaded from)."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
EXAMPLES = REPO / "examples"


def _cmake_dir():
    out = subprocess.run([sys.executable, "-m", "popart", "--cmakedir"], check=True,
                         capture_output=True, text=True, env=os.environ.copy())
    path = Path(out.stdout.strip())
    if not (path / "popartConfig.cmake").is_file():
        pytest.fail(f"no popartConfig.cmake in {path} (python -m popart --cmakedir)")
    return path


class Built:
    """Paths of what the session fixture built."""

    def __init__(self, build_dir):
        self.dir = Path(build_dir)
        self.leaky_relu = self.dir / "leaky_relu" / "libleaky_relu.so"
        self.moments = self.dir / "multi_output" / "libmoments.so"
        self.scale_shift = self.dir / "inplace" / "libscale_shift.so"
        self.collide_relu = self.dir / "libcollide_relu.so"
        self.unload_op = self.dir / "libunload_op.so"
        self.throwing_op = self.dir / "libthrowing_op.so"
        self.cpp_example = self.dir / "cpp" / "popart_example"
        self.popart_target = self.dir / "popart_target"


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.fail("cmake is not installed (requirements-dev.txt installs it)")
    build_dir = tmp_path_factory.mktemp("custom_ops_build")
    configure = [cmake, "-S", str(HERE), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                 f"-Dpopart_DIR={_cmake_dir()}"]
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    for cmd in (configure, [cmake, "--build", str(build_dir), "-j2"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            pytest.fail(f"{' '.join(cmd)} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")
    return Built(build_dir)


@pytest.fixture(scope="session")
def leaky_relu_lib(built):
    import ctypes
    ctypes.cdll.LoadLibrary(str(built.leaky_relu))
    return built.leaky_relu


@pytest.fixture(scope="session")
def moments_lib(built):
    import ctypes
    ctypes.cdll.LoadLibrary(str(built.moments))
    return built.moments


@pytest.fixture(scope="session")
def scale_shift_lib(built):
    import ctypes
    ctypes.cdll.LoadLibrary(str(built.scale_shift))
    return built.scale_shift

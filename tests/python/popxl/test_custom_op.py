"""The PopXL custom-op example (examples/popxl_custom_op, guide 7): LeakyRelu compiled by cppimport and by
CMake, used through its Python wrapper and through the generic op factory, forward and gradient (autodiff)
against numpy; the guide's leaky_relu_op.py + run_leaky_relu.py run unchanged against it; an op without an
Opx fails with an error naming it."""
import os
import shutil
import subprocess
import sys
import pathlib

import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
from popxl.ops._core import _op

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "popxl_custom_op"


def _popart_dir(flag):
    return subprocess.run([sys.executable, "-m", "popart", flag], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(scope="module")
def example_dir(tmp_path_factory):
    """A copy of the example (cppimport builds beside the source, so not in the repository); the wrapper is
    imported from it, which compiles and loads the op."""
    d = tmp_path_factory.mktemp("popxl_custom_op")
    for f in EXAMPLE.iterdir():
        shutil.copy(f, d)
    sys.path.insert(0, str(d))
    cwd = os.getcwd()
    try:
        os.chdir(d)  # setuptools (under cppimport) reads the working directory's pyproject.toml: not ours
        try:
            import leaky_relu  # noqa: F401  (cppimport compiles leaky_relu_op_impl.cpp here)
        finally:
            os.chdir(cwd)
        yield d
    finally:
        sys.path.remove(str(d))


def leaky_ref(x, alpha):
    """alpha is a float32 parameter of the op; products are formed in float32."""
    return np.where(x >= 0, x, np.float32(alpha) * x.astype(np.float32)).astype(x.dtype)


@pytest.mark.parametrize("shape,dtype,alpha", [((9,), np.float32, 0.02), ((3, 4, 5), np.float32, 0.3),
                                               ((2, 7), np.float16, 0.1), ((), np.float32, 0.5)])
def test_forward_and_autodiff_gradient(example_dir, shape, dtype, alpha):
    from run_example import run
    x = np.random.default_rng(3).normal(0, 2, shape).astype(dtype)
    y, dx, dy = run(x, alpha)
    assert y.dtype == dtype and dx.dtype == dtype and y.shape == x.shape
    np.testing.assert_array_equal(y, leaky_ref(x, alpha))
    ref_dx = np.where(x >= 0, dy.astype(np.float64), alpha * dy.astype(np.float64)).astype(dtype)
    np.testing.assert_allclose(dx, ref_dx, rtol=1e-3 if dtype == np.float16 else 1e-6)
    assert not np.array_equal(dx, dy) or np.all(x >= 0)  # alpha really scales the negative side


def test_op_in_the_ir(example_dir):
    import leaky_relu_op_impl
    from leaky_relu import leaky_relu
    ir = popxl.Ir()
    created = []
    with ir.main_graph as g:
        g.register_op_created_hook(created.append)
        x = popxl.variable(np.array([-1.0, 2.0], np.float32), name="x")
        with popxl.name_scope("block"):
            y = leaky_relu(x, alpha=0.25)
    assert isinstance(y, popxl.Tensor) and y.id.startswith("block/leaky_relu_out")
    op = y._pb_tensor.getProducer()
    assert isinstance(op, leaky_relu_op_impl.LeakyRelu) and op.opType() == "LeakyRelu"
    assert op.opid().domain == "popxl.custom" and abs(op.params.alpha - 0.25) < 1e-7
    assert op.name().startswith("block/leaky_relu") and [o.id for o in created] == [op.id]
    assert leaky_relu_op_impl.LeakyReluParams().alpha == pytest.approx(0.01)


def test_generic_factory_creates_the_registered_op(example_dir):
    """Once the library is loaded, the op is in the registry: popxl's generic createConnectedOp makes it,
    with alpha from the attributes."""
    x = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    ir = popxl.Ir()
    with ir.main_graph:
        xt = popxl.variable(x, name="x")
        y = _op("LeakyRelu", [xt], {"alpha": 0.2}, domain="popxl.custom")[0]
        out = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(out, y)
    with popxl.Session(ir, "cpu") as s:
        np.testing.assert_allclose(s.run()[out], leaky_ref(x, 0.2), rtol=1e-6)


def test_tensor_of_another_graph_is_rejected(example_dir):
    from leaky_relu import leaky_relu
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones(2, np.float32), name="x")
    g = ir.create_empty_graph("sub")
    with g, pytest.raises(ValueError, match="tensor 'x' belongs to graph 'main'"):
        leaky_relu(x)
    with ir.main_graph, pytest.raises(TypeError, match="leaky_relu: tensor 'i' is int32"):
        leaky_relu(popxl.variable(np.ones(2, np.int32), name="i"))


NO_OPX = r"""
#include <popart/op.hpp>
#include <popart/opmanager.hpp>
namespace {
class NoKernelOp final : public popart::Op {
public:
  using popart::Op::Op;
  std::unique_ptr<popart::Op> clone() const override { return std::make_unique<NoKernelOp>(*this); }
  void setup() override { outInfo(0) = inInfo(0); }
};
popart::OpCreator<NoKernelOp> creator(
    popart::OpDefinitions({{{"popxl.test", "NoKernel", 1}, popart::OpDefinition()}}), true);
}
"""


def test_custom_op_without_opx_names_the_op(tmp_path):
    import ctypes
    src = tmp_path / "no_opx.cpp"
    src.write_text(NO_OPX)
    lib = tmp_path / "libno_opx.so"
    libdir = _popart_dir("--libdir")
    subprocess.run(["c++", "-std=c++17", "-shared", "-fPIC", "-O1", f"-I{_popart_dir('--includedir')}", str(src),
                    f"-L{libdir}", "-lpopart", f"-Wl,-rpath,{libdir}", "-o", str(lib)], check=True)
    ctypes.cdll.LoadLibrary(str(lib))
    ir = popxl.Ir()
    with ir.main_graph:
        x = popxl.variable(np.ones(3, np.float32), name="x")
        y = _op("NoKernel", [x], domain="popxl.test")[0]
        out = popxl.d2h_stream(y.shape, y.dtype, name="y")
        ops.host_store(out, y)
    with pytest.raises(popart.popart_exception, match=r"no CPU kernel \(Opx\) is registered for popxl.test.NoKernel"):
        popxl.Session(ir, "cpu")


CMAKE_RUN = """
import numpy as np, popxl, popxl.ops as ops, leaky_relu_op_impl as impl
from popxl.context import get_current_context
from popxl.tensor import Tensor
assert impl.__file__.startswith({build!r}), impl.__file__
ir = popxl.Ir()
with ir.main_graph as g:
    x = popxl.variable(np.array([-2.0, 4.0], np.float32))
    ctx = get_current_context()
    op = impl.LeakyRelu.create_op_in_graph(graph=g._pb_graph, inputs={{0: x.id}},
                                           outputs={{0: g._create_tensor_id("y")}},
                                           params=impl.LeakyReluParams(alpha=0.5),
                                           settings=ctx._get_op_settings("lr"))
    ctx._op_created(op)
    y = Tensor._from_pb_tensor(op.outTensor(0))
    out = popxl.d2h_stream(y.shape, y.dtype, name="y")
    ops.host_store(out, y)
with popxl.Session(ir, "cpu") as s:
    print(s.run()[out].tolist())
"""


def test_cmake_build_against_the_package(tmp_path):
    cmake = shutil.which("cmake")
    assert cmake, "cmake is not installed (requirements-dev.txt installs it)"
    pybind11_dir = subprocess.run([sys.executable, "-m", "pybind11", "--cmakedir"], capture_output=True, text=True,
                                  check=True).stdout.strip()
    build = tmp_path / "build"
    configure = [cmake, "-S", str(EXAMPLE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                 f"-Dpopart_DIR={_popart_dir('--cmakedir')}", f"-Dpybind11_DIR={pybind11_dir}",
                 f"-DPython_EXECUTABLE={sys.executable}"]
    if shutil.which("ccache"):
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    for cmd in (configure, [cmake, "--build", str(build), "-j2"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, f"{' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(build)] + [p for p in sys.path if p])
    r = subprocess.run([sys.executable, "-c", CMAKE_RUN.format(build=str(build))], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip().splitlines()[-1] == "[-1.0, 4.0]"


def test_guide_leaky_relu_programs_run_unchanged(example_dir, tmp_path):
    FILES, NO_GUIDE, _ = guide_examples()
    if FILES is None:
        pytest.skip(NO_GUIDE)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(example_dir)] + [p for p in sys.path if p])
    r = subprocess.run([sys.executable, str(FILES / "run_leaky_relu.py"), "--alpha", "0.1", "--input_data", "-2",
                        "3", "-0.5"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    result = r.stdout.strip().splitlines()[-1]
    assert result.startswith("RESULT X:")
    np.testing.assert_allclose(np.array(result.split(":", 1)[1].strip(" []").split(), np.float32),
                               [-0.2, 3.0, -0.05], rtol=1e-6)


def guide_examples():
    """FILES, NO_GUIDE and run_example of test_guide_examples.py (beside this file)."""
    import importlib.util
    import pathlib
    spec = importlib.util.spec_from_file_location("_popxl_guide_examples",
                                                  pathlib.Path(__file__).with_name("test_guide_examples.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.FILES, mod.NO_GUIDE, mod.run_example

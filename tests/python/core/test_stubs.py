"""Type stubs of popart_core: python/popart_core-stubs/ (PEP 561) parse, name the
main classes with their methods, match what pybind11-stubgen makes of the built
module, and are installed beside popart_core (wheel and editable installs)."""
import ast
import glob
import importlib.util
import os
import subprocess

import pytest

import popart  # noqa: F401  (loads popart_core with its libraries)
import popart_core

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
STUBS = os.path.join(ROOT, "python", "popart_core-stubs")

MAIN_CLASSES = {
    "SessionOptions": {"enableGradientAccumulation", "accumulationFactor", "enableExplicitIR"},
    "DataFlow": {"anchors", "batchesPerStep", "art"},
    "AnchorReturnType": {"id", "rp"},
    "PyStepIO": {"enableRuntimeAsserts"},
    "PyWeightsIO": set(),
    "DeviceManager": {"createCpuDevice", "acquireAvailableDevice", "createIpuModelDevice"},
    "DeviceInfo": {"attach", "detach", "numIpus"},
    "Patterns": {"enablePattern", "isPatternEnabled", "InPlace"},
    "SGD": {"insertSpecific", "learningRates"},
    "ConstSGD": set(),
    "Adam": {"beta1s"},
    "Adaptive": {"alphas"},
    "_BuilderCore": {"addInputTensor", "addInitializedInputTensor", "addOutputTensor", "getModelProto"},
    "_InferenceSessionCore": {"prepareDevice", "run", "weightsToHost"},
    "_TrainingSessionCore": {"updateOptimizerFromHost", "run"},
    "_TensorInfoCore": {"shape", "data_type", "nelms"},
}


def _generator():
    spec = importlib.util.spec_from_file_location("gen_stubs", os.path.join(ROOT, "tools", "gen_stubs.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def classes_in(path):
    """{class name: set of its member names} of a stub file."""
    tree = ast.parse(open(path).read(), filename=path)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
            out[node.name] = names
    return out


def check_stub_folder(folder):
    files = sorted(glob.glob(os.path.join(folder, "**", "*.pyi"), recursive=True))
    names = {os.path.relpath(f, folder) for f in files}
    assert {"__init__.pyi", "_ir.pyi"} <= names, names
    classes = classes_in(os.path.join(folder, "__init__.pyi"))
    for cls, members in MAIN_CLASSES.items():
        assert cls in classes, f"{cls} missing from the popart_core stubs"
        assert members <= classes[cls], (cls, members - classes[cls])
    ir_classes = classes_in(os.path.join(folder, "_ir.pyi"))
    assert {"Ir", "Graph", "Tensor"} <= set(ir_classes), sorted(ir_classes)
    for f in files:  # every file parses
        ast.parse(open(f).read(), filename=f)


def test_committed_stubs_parse_and_name_the_main_classes():
    check_stub_folder(STUBS)


def test_stubs_carry_signatures_and_docstrings():
    text = open(os.path.join(STUBS, "__init__.pyi")).read()
    assert "def createCpuDevice(self) -> DeviceInfo:" in text
    # Defaults of keyword arguments are written out where they are plain values.
    assert "batchesPerStep: typing.SupportsInt" in text or "batchesPerStep: int" in text
    assert "micro-batches" in text  # docstrings travel into the stubs


def test_committed_stubs_match_the_built_module(tmp_path):
    """Fails after a binding changed without `python tools/gen_stubs.py`."""
    pytest.importorskip("pybind11_stubgen", reason="pybind11-stubgen (requirements-dev.txt) is not installed")
    gen = _generator()
    generated = gen.generate(str(tmp_path))
    diff = gen.differences(generated, STUBS)
    assert not diff, f"python/popart_core-stubs is out of date ({', '.join(diff)}): run python tools/gen_stubs.py"


def test_stubs_are_installed_beside_the_module(tmp_path):
    """The wheel (and an editable install) put popart_core-stubs/ next to popart_core.

    From an installed popart the folder is checked where it lies; from a build tree
    (PYTHONPATH runs) the install rules of the bindings folder are run into a
    temporary prefix, as the wheel build runs them."""
    where = os.path.dirname(popart_core.__file__)
    rules = os.path.join(where, "cmake_install.cmake")
    if os.path.exists(rules):
        subprocess.run(["cmake", f"-DCMAKE_INSTALL_PREFIX={tmp_path}", "-P", rules], check=True,
                       stdout=subprocess.DEVNULL)
        where = str(tmp_path)
    check_stub_folder(os.path.join(where, "popart_core-stubs"))

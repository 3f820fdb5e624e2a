"""Runs one ONNX backend node test (onnx/backend/test/data/node/<name>) through
popart.InferenceSession on the CPU device and compares with the stored outputs.

Shared by test_node_backend.py (the allow-list, in pytest) and survey.py (all
node tests, with counts). PopART needs static shapes and compile-time shape
inputs: symbolic input shapes are given through InputShapeInfo, and when an op
reports that a tensor "must be a constant known at compile time", the test is
retried with that graph input baked into a Constant node, or, when the tensor is
computed from inputs, with every integer graph input baked, then every input."""
import os
import re

import numpy as np
import onnx
import onnx.helper
from onnx import numpy_helper

NODE_DIR = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")
HERE = os.path.dirname(os.path.abspath(__file__))
RTOL, ATOL = 1e-3, 1e-5
CONSTANT_ERROR = "must be a constant known at compile time"


def all_tests():
    return sorted(d for d in os.listdir(NODE_DIR) if os.path.isdir(os.path.join(NODE_DIR, d)))


def read_list(name):
    """Test names of a list file in this folder: first word of each line, '#' starts a comment."""
    names = []
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.append(line.split()[0])
    return names


def read_reasons(name="excluded.txt"):
    """{test: reason} from lines 'test_name  reason text'."""
    out = {}
    with open(os.path.join(HERE, name)) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                test, _, reason = line.strip().partition(" ")
                out[test] = reason.strip()
    return out


def supported_onnx_ops():
    """ai.onnx op types in PopART's supported-operator list (user guide 7.1)."""
    return set(read_list("popart_supported_ops.txt"))


def graph_ops(graph, acc=None):
    """(domain, op_type) of every node, sub-graphs included."""
    acc = set() if acc is None else acc
    for n in graph.node:
        acc.add((n.domain or "ai.onnx", n.op_type))
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                graph_ops(a.g, acc)
            for g in a.graphs:
                graph_ops(g, acc)
    return acc


def in_supported_subset(model, supported):
    return all(d in ("ai.onnx", "") and t in supported for d, t in graph_ops(model.graph))


def _load_tensors(folder, prefix):
    files = sorted((f for f in os.listdir(folder) if f.startswith(prefix) and f.endswith(".pb")),
                   key=lambda f: int(f[len(prefix):-3]))
    return [numpy_helper.to_array(onnx.load_tensor(os.path.join(folder, f))) for f in files]


def load(name):
    """(model, [(inputs, outputs)] per test_data_set_*), arrays in graph order."""
    folder = os.path.join(NODE_DIR, name)
    model = onnx.load(os.path.join(folder, "model.onnx"))
    sets = []
    for d in sorted(os.listdir(folder)):
        if d.startswith("test_data_set_"):
            sub = os.path.join(folder, d)
            sets.append((_load_tensors(sub, "input_"), _load_tensors(sub, "output_")))
    return model, sets


def _graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def _is_static(value_info):
    t = value_info.type.tensor_type
    return t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim)


def _bake(model, graph_inputs, arrays, names):
    """A copy of `model` whose inputs `names` are Constant nodes with these values
    (Constant nodes, not initializers: float initializers are weights)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    keep = [vi for vi in m.graph.input if vi.name not in names]
    del m.graph.input[:]
    m.graph.input.extend(keep)
    nodes = [onnx.helper.make_node("Constant", [], [vi.name], value=numpy_helper.from_array(a, vi.name))
             for vi, a in zip(graph_inputs, arrays) if vi.name in names]
    old = list(m.graph.node)
    del m.graph.node[:]
    m.graph.node.extend(nodes + old)
    return m


def _run_once(model, graph_inputs, arrays, baked=()):
    import popart  # imported here: survey.py --ort runs without popart
    shapes = popart.InputShapeInfo()
    feeds = {}
    for vi, a in zip(graph_inputs, arrays):
        if vi.name in baked:
            continue
        feeds[vi.name] = a
        if not _is_static(vi):
            shapes.add(vi.name, popart.TensorInfo(a))
    outs = [o.name for o in model.graph.output]
    df = popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outs})
    session = popart.InferenceSession(model.SerializeToString(), df,
                                      popart.DeviceManager().createCpuDevice(),
                                      inputShapeInfo=shapes)
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    session.run(popart.PyStepIO(feeds, anchors))
    return [anchors[o] for o in outs]


def compare(got, want, where):
    """Raises AssertionError when `got` differs from the reference `want`."""
    if got.shape != want.shape:
        raise AssertionError(f"{where}: shape {got.shape} != expected {want.shape}")
    if got.dtype != want.dtype:
        raise AssertionError(f"{where}: dtype {got.dtype} != expected {want.dtype}")
    if want.dtype.kind == "V":  # ml_dtypes (bfloat16, float8, int4, ...): numpy sees no NaN in them
        got, want = got.astype(np.float32), want.astype(np.float32)
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def run_test(name):
    """Runs every data set of node test `name`; raises on failure.
    Returns True when shape-like inputs had to be baked into initializers."""
    model, sets = load(name)
    graph_inputs = _graph_inputs(model)
    needed_bake = False
    for k, (inputs, outputs) in enumerate(sets):
        if len(inputs) != len(graph_inputs):
            raise AssertionError(f"data set {k}: {len(inputs)} inputs for {len(graph_inputs)} graph inputs")
        got, baked = None, set()
        while got is None:
            try:
                got = _run_once(_bake(model, graph_inputs, inputs, baked) if baked else model,
                                graph_inputs, inputs, baked)
            except Exception as e:  # popart.popart_exception
                m = re.search(r"'([^']*)'\) " + CONSTANT_ERROR, str(e))
                if not m:
                    raise
                if m.group(1) in {vi.name for vi in graph_inputs} - baked:
                    baked.add(m.group(1))
                    continue
                # computed from inputs (Shape -> ... -> Pad): bake the integer inputs,
                # then (a Range's float bounds -> Loop trip count) all of them
                names = [vi.name for vi, a in zip(graph_inputs, inputs) if a.dtype.kind in "iu"]
                more = set(names) - baked or {vi.name for vi in graph_inputs} - baked
                if not more:
                    raise
                baked |= more
        needed_bake = needed_bake or bool(baked)
        if len(got) != len(outputs):
            raise AssertionError(f"data set {k}: {len(got)} outputs, expected {len(outputs)}")
        for j, (g, w) in enumerate(zip(got, outputs)):
            compare(g, w, f"data set {k}, output {j} ('{model.graph.output[j].name}')")
    return needed_bake


def first_line(exc):
    """The informative part of an exception message, for survey reports: the
    framework's "while setting up <op>, inputs [...]" context is dropped."""
    text = f"{type(exc).__name__}: {exc}".strip().replace(
        ": if it is a custom op, load its library (ctypes.cdll.LoadLibrary) before creating the session", "")
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    line = next((l for l in lines if "Mismatch" in l), lines[0] if lines else type(exc).__name__)
    if ": while setting up " in line and "]: " in line:
        line = line[:line.index(": while setting up ")] + ": " + line[line.rindex("]: ") + 3:]
    return line[:300]

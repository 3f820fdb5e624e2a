"""Seeded mutation fuzzer for popart's ONNX loading, preparation and running.

Valid seed models (built here with onnx.helper, one with popart.Builder, and a
fixed sample of onnx's backend node models) are mutated: protobuf fields
(dims, element types, attributes, edges, op types, opsets, initializer data,
external-data paths, graph cycles, sub-graphs) and raw bytes (bit flips,
truncation, insertion). Each case is loaded, prepared and run by a worker
process; the parent watches it. Outcomes:

  ok            the model ran
  popart_error  popart raised one of its exceptions (expected for bad models)
  other_error   popart raised something else (TypeError, RuntimeError, ...): a defect
  crash         the worker died from a signal (SIGSEGV, SIGFPE, SIGABRT, ...): a defect
  hang          no answer within the time limit: a defect

A crash or hang is confirmed by running the case again alone in a fresh
worker. Cases are reproducible from (seed, index): the case's mutations are
chosen by random.Random(f"{seed}:{index}").

    python tests/fuzz/fuzz_models.py --minutes 30            # long campaign
    python tests/fuzz/fuzz_models.py --seed 7 --cases 500    # fixed campaign
    python tests/fuzz/fuzz_models.py --replay 7:123 --save m.onnx
"""
import argparse
import copy
import json
import os
import random
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnx.helper as oh
from onnx import TensorProto, numpy_helper

HERE = Path(__file__).resolve().parent
DEFECTS = ("other_error", "crash", "hang")

# ---------------------------------------------------------------- seed models

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs, inits=(), opset=13, name="g"):
    g = oh.make_graph(nodes, name, inputs, outputs, list(inits))
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = 8
    inferred = onnx.shape_inference.infer_shapes(m).graph.output
    for out, known in zip(m.graph.output, inferred):  # outputs declared without a shape get the inferred one
        if not out.type.tensor_type.HasField("shape"):
            out.CopyFrom(known)
    return m


def _w(name, shape, seed):
    return numpy_helper.from_array(np.random.default_rng(seed).standard_normal(shape).astype(np.float32), name)


def _i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def _vi(name, dtype, shape):
    return oh.make_tensor_value_info(name, dtype, shape)


def seed_models():
    """{name: ModelProto}: small valid models covering common op families and structures."""
    mk = oh.make_node
    models = {}
    models["mlp"] = _model(
        [mk("MatMul", ["x", "w1"], ["h"]), mk("Add", ["h", "b1"], ["a"]), mk("Relu", ["a"], ["r"]),
         mk("MatMul", ["r", "w2"], ["l"]), mk("Softmax", ["l"], ["y"], axis=-1)],
        [_vi("x", F, [4, 8])], [_vi("y", F, [4, 3])],
        [_w("w1", [8, 16], 1), _w("b1", [16], 2), _w("w2", [16, 3], 3)])
    models["cnn"] = _model(
        [mk("Conv", ["x", "k"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]), mk("Relu", ["c"], ["r"]),
         mk("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
         mk("AveragePool", ["p"], ["q"], kernel_shape=[2, 2], strides=[1, 1], pads=[0, 0, 1, 1]),
         mk("BatchNormalization", ["q", "s", "bb", "m", "v"], ["n"]),
         mk("Flatten", ["n"], ["f"]), mk("Gemm", ["f", "wg"], ["y"], transB=1)],
        [_vi("x", F, [1, 3, 8, 8])], [_vi("y", F, [1, 5])],
        [_w("k", [4, 3, 3, 3], 4), _w("s", [4], 5), _w("bb", [4], 6), _w("m", [4], 7),
         numpy_helper.from_array(np.ones(4, np.float32), "v"), _w("wg", [5, 64], 8)])
    models["indexing"] = _model(
        [mk("Gather", ["x", "idx"], ["g"], axis=0), mk("Reshape", ["g", "shape"], ["r"]),
         mk("Transpose", ["r"], ["t"], perm=[1, 0]),
         mk("Slice", ["t", "starts", "ends", "axes"], ["s"]),
         mk("Concat", ["s", "s"], ["c"], axis=0), mk("Split", ["c"], ["y", "z"], axis=1),
         mk("ScatterElements", ["x", "sidx", "x"], ["u"], axis=1),
         mk("Pad", ["u", "pads"], ["y2"], mode="constant")],
        [_vi("x", F, [5, 4])], [_vi("y", F, None), _vi("z", F, None), _vi("y2", F, None)],
        [_i64("idx", [0, 2, 4, 1]), _i64("shape", [2, 8]), _i64("starts", [1]), _i64("ends", [6]),
         _i64("axes", [0]), numpy_helper.from_array(np.zeros((5, 4), np.int64) + [0, 1, 2, 3], "sidx"),
         _i64("pads", [0, 1, 2, 0])])
    models["reduce_cast"] = _model(
        [mk("ReduceMean", ["x"], ["m"], axes=[1], keepdims=1), mk("Sub", ["x", "m"], ["d"]),
         mk("Mul", ["d", "d"], ["sq"]), mk("ReduceSum", ["sq", "ax"], ["ss"], keepdims=0),
         mk("Sqrt", ["ss"], ["sd"]), mk("Cast", ["sd"], ["h"], to=TensorProto.FLOAT16),
         mk("Cast", ["h"], ["c"], to=F), mk("Expand", ["c", "eshape"], ["e"]),
         mk("TopK", ["e", "k"], ["y", "yi"], axis=-1), mk("ArgMax", ["x"], ["am"], axis=2),
         mk("CumSum", ["x", "cax"], ["cs"])],
        [_vi("x", F, [2, 3, 4])], [_vi("y", F, None), _vi("yi", I64, None), _vi("am", I64, None),
                                   _vi("cs", F, None)],
        [_i64("ax", [2]), _i64("eshape", [3, 2, 3]), _i64("k", [2]), _i64("cax", 1)])
    then_g = oh.make_graph([mk("Add", ["x", "one"], ["t"])], "then", [], [_vi("t", F, [3])],
                           [numpy_helper.from_array(np.ones(3, np.float32), "one")])
    else_g = oh.make_graph([mk("Mul", ["x", "x"], ["e"])], "else", [], [_vi("e", F, [3])])
    body = oh.make_graph([mk("Add", ["acc", "x"], ["acc2"]), mk("Identity", ["cond"], ["cond2"])], "body",
                         [_vi("i", I64, []), _vi("cond", TensorProto.BOOL, []), _vi("acc", F, [3])],
                         [_vi("cond2", TensorProto.BOOL, []), _vi("acc2", F, [3])])
    models["control_flow"] = _model(
        [mk("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
         mk("Loop", ["trip", "", "y"], ["z"], body=body)],
        [_vi("x", F, [3]), _vi("c", TensorProto.BOOL, [])], [_vi("y", F, [3]), _vi("z", F, [3])],
        [_i64("trip", 3)])
    models["shape_ops"] = _model(
        [mk("Shape", ["x"], ["s"]), mk("ConstantOfShape", ["s"], ["z"],
                                       value=numpy_helper.from_array(np.array([2], np.int64), "v")),
         mk("Add", ["z", "x"], ["a"]), mk("Greater", ["a", "x"], ["g"]), mk("Where", ["g", "a", "x"], ["w"]),
         mk("Tile", ["w", "reps"], ["t"]), mk("Unsqueeze", ["t", "uax"], ["u"]),
         mk("Squeeze", ["u", "uax"], ["y"]), mk("Range", ["r0", "r1", "r2"], ["rg"]),
         mk("OneHot", ["rg", "depth", "ohv"], ["oh"], axis=-1)],
        [_vi("x", I64, [2, 3])], [_vi("y", I64, None), _vi("oh", I64, None)],
        [_i64("reps", [2, 1]), _i64("uax", [0]), _i64("r0", 0), _i64("r1", 5), _i64("r2", 1),
         _i64("depth", [4]), _i64("ohv", [0, 1])])
    models["norm_attention"] = _model(
        [mk("LayerNormalization", ["x", "g", "b"], ["n"], axis=-1, epsilon=1e-5),
         mk("MatMul", ["n", "wq"], ["q"]), mk("Transpose", ["q"], ["qt"], perm=[0, 2, 1]),
         mk("MatMul", ["q", "qt"], ["s"]), mk("Softmax", ["s"], ["p"], axis=-1),
         mk("MatMul", ["p", "n"], ["o"]), mk("Dropout", ["o"], ["y"]),
         mk("Resize", ["x", "", "scales"], ["rs"], mode="nearest"), mk("LogSoftmax", ["rs"], ["ls"], axis=1),
         mk("Constant", [], ["cst"], value=numpy_helper.from_array(np.ones((2, 4, 4), np.float32), "cv")),
         mk("Einsum", ["ls", "cst"], ["y2"], equation="bij,bjk->bik")],
        [_vi("x", F, [2, 4, 4])], [_vi("y", F, [2, 4, 4]), _vi("y2", F, [2, 4, 4])],
        [_w("g", [4], 9), _w("b", [4], 10), _w("wq", [4, 4], 11),
         numpy_helper.from_array(np.array([1, 1, 1], np.float32), "scales")], opset=17)
    try:
        models["builder"] = _builder_model()
    except ImportError:
        pass
    return models


def _builder_model():
    import popart  # a Builder-made model; the parent never creates a session
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 6]))
    w = b.addInitializedInputTensor(np.random.default_rng(12).standard_normal((6, 6)).astype(np.float32))
    h = b.aiOnnx.matmul([x, w])
    s = b.aiOnnx.sigmoid([h])
    r = b.reshape_const(b.aiOnnx, [s], [3, 4])
    y = b.aiGraphcore.scale([r], 2.0)
    b.addOutputTensor(y)
    return onnx.load_from_string(b.getModelProto())


def backend_models(limit):
    """Every k-th model of onnx's backend node tests (sorted: a fixed sample), at most `limit`."""
    root = Path(onnx.__file__).parent / "backend" / "test" / "data" / "node"
    paths = sorted(root.glob("*/model.onnx"))
    if limit <= 0 or not paths:
        return {}
    step = max(1, len(paths) // limit)
    return {p.parent.name: onnx.load(str(p)) for p in paths[::step][:limit]}


# ---------------------------------------------------------------- mutations

HUGE = [0, -1, -7, 1, 3, 2 ** 31, 2 ** 32 + 1, 2 ** 62, 2 ** 63 - 1, -2 ** 63]
OP_POOL = ["Relu", "Add", "MatMul", "Conv", "Gather", "Reshape", "Concat", "Slice", "Softmax", "MaxPool",
           "ReduceMax", "TopK", "Transpose", "Expand", "Tile", "Pad", "Cast", "If", "Loop", "Scan",
           "Split", "Squeeze", "Unsqueeze", "ConstantOfShape", "Range", "OneHot", "NonZero", "Resize",
           "Identity", "Dropout", "Where", "Einsum", "CumSum", "ScatterND", "GatherND", "Unknown", ""]
EXTERNAL_PATHS = ["/etc/passwd", "../../../../../../etc/passwd", "missing.bin", ".", "", "a/../../b",
                  "\x00x", "weights.bin"]


def _graphs(g):
    """g and every sub-graph inside its nodes' attributes."""
    out = [g]
    for n in g.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                out += _graphs(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for sg in a.graphs:
                    out += _graphs(sg)
    return out


def _tensor_types(g):
    return [v.type.tensor_type for v in list(g.input) + list(g.output) + list(g.value_info)
            if v.type.HasField("tensor_type")]


def _names(g):
    names = [v.name for v in g.input] + [t.name for t in g.initializer]
    for n in g.node:
        names += list(n.output)
    return names


def mut_dims(rng, g):
    shaped = [t.shape.dim for t in _tensor_types(g) if t.HasField("shape")]
    inits = [t.dims for t in g.initializer]
    if not shaped and not inits:
        return False
    if shaped and (not inits or rng.random() < 0.5):
        dims = rng.choice(shaped)
        r = rng.random()
        if r < 0.2 or not len(dims):
            dims.add().dim_value = rng.choice(HUGE)
        elif r < 0.35:
            del dims[rng.randrange(len(dims))]
        elif r < 0.45:
            dims[rng.randrange(len(dims))].dim_param = "N"
        else:
            dims[rng.randrange(len(dims))].dim_value = rng.choice(HUGE)
        return True
    dims = rng.choice(inits)
    r = rng.random()
    if r < 0.2 or not len(dims):
        dims.append(rng.choice(HUGE))
    elif r < 0.35:
        del dims[rng.randrange(len(dims))]
    else:
        dims[rng.randrange(len(dims))] = rng.choice(HUGE)
    return True


def mut_type(rng, g):
    types = _tensor_types(g)
    targets = types + list(g.initializer)
    if not targets:
        return False
    t = rng.choice(targets)
    new = rng.choice(list(range(0, 24)) + [100, 2 ** 20])
    if isinstance(t, onnx.TensorProto):
        t.data_type = new
    else:
        t.elem_type = new
    return True


def mut_attribute(rng, g):
    nodes = [n for n in g.node if n.attribute]
    if not nodes:
        return False
    n = rng.choice(nodes)
    a = rng.choice(n.attribute)
    r = rng.random()
    if r < 0.1:
        n.attribute.remove(a)
    elif r < 0.2:
        a.type = rng.randrange(15)
    elif a.type == onnx.AttributeProto.INT:
        a.i = rng.choice(HUGE + [a.i + 1, a.i - 1])
    elif a.type == onnx.AttributeProto.INTS:
        if a.ints and rng.random() < 0.7:
            a.ints[rng.randrange(len(a.ints))] = rng.choice(HUGE)
        elif rng.random() < 0.5:
            del a.ints[:]
        else:
            a.ints.extend([rng.choice(HUGE)] * rng.randint(1, 5))
    elif a.type == onnx.AttributeProto.FLOAT:
        a.f = rng.choice([float("nan"), float("inf"), -1.0, 0.0, 1e30])
    elif a.type == onnx.AttributeProto.STRING:
        a.s = rng.choice([b"", b"\xff\xfe", b"bogus", b"x" * 1000])
    elif a.type == onnx.AttributeProto.TENSOR:
        mut_tensor_data(rng, a.t)
    elif a.type == onnx.AttributeProto.GRAPH:
        return mutate_graph(rng, a.g)
    else:
        a.name = a.name + "_"
    if rng.random() < 0.15:
        n.attribute.add().CopyFrom(oh.make_attribute(rng.choice(["axis", "to", "perm", "bogus"]),
                                                     rng.choice([5, -9, [1, 2, 3], 2.5])))
    return True


def mut_edge(rng, g):
    if not g.node:
        return False
    names = _names(g)
    n = rng.choice(list(g.node))
    r = rng.random()
    if r < 0.45 and len(n.input):
        i = rng.randrange(len(n.input))
        n.input[i] = rng.choice(names + ["", "nonexistent"] + list(g.node[-1].output) + list(n.output))
    elif r < 0.6 and len(n.input):
        del n.input[rng.randrange(len(n.input))]
    elif r < 0.7:
        n.input.append(rng.choice(names + ["nonexistent"]))
    elif r < 0.85 and len(n.output):
        n.output[rng.randrange(len(n.output))] = rng.choice(names + [""])
    elif r < 0.93 and len(g.node) > 1:  # a cycle: the first node reads the last node's output
        g.node[0].input.append(g.node[-1].output[0]) if g.node[-1].output else None
    else:
        nodes = list(g.node)
        rng.shuffle(nodes)
        del g.node[:]
        g.node.extend(nodes)
    return True


def mut_op(rng, g):
    if not g.node:
        return False
    n = rng.choice(list(g.node))
    if rng.random() < 0.8:
        n.op_type = rng.choice(OP_POOL)
    else:
        n.domain = rng.choice(["ai.graphcore", "bogus.domain", "ai.onnx.ml", "com.microsoft"])
    return True


def mut_tensor_data(rng, t):
    r = rng.random()
    if r < 0.3 and t.raw_data:
        t.raw_data = t.raw_data[:rng.randrange(len(t.raw_data) + 1)]
    elif r < 0.45:
        t.raw_data = bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 3, 8, 64])))
    elif r < 0.6:
        t.ClearField("raw_data")
        t.float_data.extend([float("nan")] * rng.randint(0, 3))
    elif r < 0.75:
        t.ClearField("raw_data")
        t.int64_data.extend([rng.choice(HUGE) for _ in range(rng.randint(0, 4))])
    elif r < 0.9:
        t.data_location = TensorProto.EXTERNAL
        del t.external_data[:]
        for key, value in [("location", rng.choice(EXTERNAL_PATHS)),
                           ("offset", str(rng.choice(HUGE))), ("length", str(rng.choice(HUGE)))]:
            if rng.random() < 0.8:
                e = t.external_data.add()
                e.key, e.value = key, value
    else:
        t.string_data.append(b"abc")
    return True


def mut_initializer(rng, g):
    if not g.initializer:
        return False
    return mut_tensor_data(rng, rng.choice(list(g.initializer)))


def mut_graph_io(rng, g):
    r = rng.random()
    if r < 0.3 and g.input:
        del g.input[rng.randrange(len(g.input))]
    elif r < 0.5 and g.output:
        g.output[rng.randrange(len(g.output))].name = rng.choice(_names(g) + ["nonexistent"])
    elif r < 0.7 and g.input:
        g.input.append(copy.deepcopy(g.input[0]))
    elif g.initializer:
        g.initializer.append(copy.deepcopy(rng.choice(list(g.initializer))))
    else:
        return False
    return True


GRAPH_MUTATIONS = [mut_dims, mut_type, mut_attribute, mut_edge, mut_op, mut_initializer, mut_graph_io]


def mutate_graph(rng, g):
    for _ in range(8):
        try:
            if rng.choice(GRAPH_MUTATIONS)(rng, rng.choice(_graphs(g))):
                return True
        except (ValueError, TypeError, IndexError):  # a value protobuf refuses: try another mutation
            pass
    return False


def mutate_model(rng, m):
    r = rng.random()
    if r < 0.1:
        op = rng.choice(list(m.opset_import)) if m.opset_import else m.opset_import.add()
        op.version = rng.choice([0, 1, 6, 11, 13, 18, 22, 99, 2 ** 40])
    elif r < 0.13:
        m.ir_version = rng.choice([0, 1, 3, 99, 2 ** 40])
    else:
        mutate_graph(rng, m.graph)


def mutate_bytes(rng, data):
    data = bytearray(data)
    r = rng.random()
    if r < 0.35:
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif r < 0.55:
        del data[rng.randrange(len(data)):]
    elif r < 0.75:
        i = rng.randrange(len(data) + 1)
        data[i:i] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 16)))
    elif r < 0.9:
        i = rng.randrange(len(data))
        data[i:i + rng.randint(1, 8)] = b"\xff" * rng.randint(1, 8)
    else:
        i, j = sorted(rng.randrange(len(data)) for _ in range(2))
        data[j:j] = data[i:j]
    return bytes(data)


MAX_TRIPS = 1000


def bound_loops(m):
    """Caps constant Loop trip counts at MAX_TRIPS: a model asking for 2^32 iterations runs that long by
    right, which would read as a hang."""
    for g in _graphs(m.graph):
        counts = {n.input[0] for n in g.node if n.op_type == "Loop" and len(n.input) and n.input[0]}
        for t in g.initializer:
            if t.name in counts and t.data_type == TensorProto.INT64:
                try:
                    v = numpy_helper.to_array(t)
                except Exception:
                    continue
                if v.size == 1 and v.reshape(-1)[0] > MAX_TRIPS:
                    t.CopyFrom(numpy_helper.from_array(np.minimum(v, MAX_TRIPS).astype(np.int64), t.name))


def make_case(seeds, seed, index):
    """(seed model name, mutated bytes, mutation kind) for case `index` of campaign `seed`."""
    rng = random.Random(f"{seed}:{index}")
    own = sorted(n for n in seeds if not n.startswith("test_"))  # half the cases start from the models made here
    backend = sorted(n for n in seeds if n.startswith("test_"))
    name = rng.choice(own if not backend or rng.random() < 0.5 else backend)
    m = copy.deepcopy(seeds[name])
    kind = "proto"
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutate_model(rng, m)
    bound_loops(m)
    try:
        data = m.SerializeToString()
    except Exception:  # a mutation protobuf refuses to serialise: fall back to the seed's bytes
        data = seeds[name].SerializeToString()
    if rng.random() < 0.3:
        kind = "bytes"
        data = mutate_bytes(rng, data)
    return name, data, kind


def io_names(data, fallback):
    """(input names without initializers, output names) of the model, or of the seed when it does not parse."""
    try:
        m = onnx.load_from_string(data)
    except Exception:
        m = fallback
    def text(name):  # protobuf hands back bytes for names that are not UTF-8
        return name if isinstance(name, str) else name.decode("utf-8", "replace")
    inits = {t.name for t in m.graph.initializer}
    return ([text(v.name) for v in m.graph.input if v.name not in inits], [text(v.name) for v in m.graph.output])


# ---------------------------------------------------------------- worker (child process)

WORKER = r"""
import json, os, resource, sys
import numpy as np
if "libasan" not in os.environ.get("LD_PRELOAD", ""):  # AddressSanitizer reserves terabytes of address space
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
import popart
from popart.tensorinfo import numpy_type_of
MAX_BYTES = 64 << 20


def feeds_for(session, inputs):
    # Random inputs of the types and shapes popart gives the inputs; None when they cannot be fed.
    feeds, total = {}, 0
    rng = np.random.default_rng(0)
    for name in inputs:
        info = session.getInfo(name)
        try:
            dtype = np.dtype(numpy_type_of(info.data_type()))
        except TypeError:
            return None
        total += info.nelms() * dtype.itemsize
        if total > MAX_BYTES:
            return None
        shape = info.shape()
        if any(d > 2 ** 40 for d in shape):
            return None  # an empty tensor with a huge dimension: numpy cannot hold it
        if dtype.kind == "f":
            feeds[name] = rng.standard_normal(shape).astype(dtype)
        elif dtype.kind == "b":
            feeds[name] = np.asarray(rng.random(shape) < 0.5)
        else:
            feeds[name] = rng.integers(0, 3, shape).astype(dtype)
    return feeds


def run_case(path, inputs, outputs):
    s = popart.InferenceSession(path, popart.DataFlow(1, outputs), popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    feeds = feeds_for(s, inputs)
    if feeds is None:
        return "ok"  # prepared; not runnable with numpy inputs
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, anchors))
    return "ok"


for line in sys.stdin:
    case = json.loads(line)
    try:
        outcome, detail = run_case(case["path"], case["inputs"], case["outputs"]), ""
    except popart.popart_exception as e:
        outcome, detail = "popart_error", str(e)[:300]
    except Exception as e:
        outcome, detail = "other_error", f"{type(e).__name__}: {str(e)[:300]}"
    print(json.dumps({"outcome": outcome, "detail": detail}), flush=True)
"""


class Worker:
    """A child interpreter running cases sent on its stdin, one JSON line each way."""

    def __init__(self, env, code=WORKER):
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                     text=True, bufsize=1)

    def run(self, case, timeout):
        """(outcome, detail); kills the worker on a hang."""
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.close()
            return "hang", f"no answer in {timeout} s"
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            err = self.proc.stderr.read()[-600:]
            return "crash", f"exit status {code} (signal {-code if code < 0 else 'none'}): {err}"
        result = json.loads(line)
        return result["outcome"], result["detail"]

    def alive(self):
        return self.proc.poll() is None

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()


def worker_env():
    env = os.environ.copy()
    env.setdefault("OMP_NUM_THREADS", "1")
    env["POPART_LOG_LEVEL"] = "OFF"
    return env


def campaign(seed=0, cases=None, minutes=None, timeout=20.0, backend=40, save_dir=None, log=print):
    """Runs cases 0, 1, ... of campaign `seed` until `cases` ran or `minutes` passed.
    Returns {"counts": {outcome: n}, "defects": [case dicts]}."""
    seeds = seed_models() | backend_models(backend)
    deadline = time.monotonic() + minutes * 60 if minutes else None
    counts, defects = {}, []
    env = worker_env()
    worker = None
    with tempfile.TemporaryDirectory(prefix="popart_fuzz_") as tmp:
        index = 0
        while (cases is None or index < cases) and (deadline is None or time.monotonic() < deadline):
            name, data, kind = make_case(seeds, seed, index)
            path = os.path.join(tmp, "model.onnx")
            Path(path).write_bytes(data)
            inputs, outputs = io_names(data, seeds[name])
            case = {"path": path, "inputs": inputs, "outputs": outputs or ["nonexistent"]}
            if worker is None or not worker.alive():
                worker = Worker(env)
            outcome, detail = worker.run(case, timeout if index else timeout + 30)
            if outcome in ("crash", "hang"):
                worker.close()
                worker = Worker(env)  # confirm alone, in a fresh worker
                outcome, detail = worker.run(case, timeout + 30)
                if outcome in ("crash", "hang"):
                    worker.close()
                    worker = None
            counts[outcome] = counts.get(outcome, 0) + 1
            if outcome in DEFECTS:
                found = {"seed": seed, "index": index, "model": name, "kind": kind, "outcome": outcome,
                         "detail": detail}
                defects.append(found)
                log(f"DEFECT {outcome} case {seed}:{index} ({name}, {kind}): {detail}")
                if save_dir:
                    os.makedirs(save_dir, exist_ok=True)
                    Path(save_dir, f"case_{seed}_{index}.onnx").write_bytes(data)
            index += 1
        if worker is not None:
            worker.close()
    return {"counts": counts, "defects": defects, "cases": index}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=None, help="campaign seed (default: from the clock, printed)")
    p.add_argument("--minutes", type=float, default=None, help="stop after this long")
    p.add_argument("--cases", type=int, default=None, help="stop after this many cases")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds before a case counts as a hang")
    p.add_argument("--backend", type=int, default=40, help="how many onnx backend models to mutate")
    p.add_argument("--save-dir", default=None, help="write each defect's model here")
    p.add_argument("--replay", default=None, help="SEED:INDEX: rebuild one case (with --save, write it)")
    p.add_argument("--save", default=None, help="with --replay: the file to write")
    a = p.parse_args(argv)
    if a.replay:
        seed, index = (int(v) for v in a.replay.split(":"))
        seeds = seed_models() | backend_models(a.backend)
        name, data, kind = make_case(seeds, seed, index)
        print(f"case {seed}:{index}: seed model {name}, {kind} mutation, {len(data)} bytes")
        if a.save:
            Path(a.save).write_bytes(data)
        return 0
    if a.minutes is None and a.cases is None:
        a.minutes = 1.0
    seed = a.seed if a.seed is not None else int(time.time())
    print(f"campaign seed {seed}")
    t0 = time.monotonic()
    result = campaign(seed, a.cases, a.minutes, a.timeout, a.backend, a.save_dir)
    print(f"{result['cases']} cases in {time.monotonic() - t0:.0f} s: {json.dumps(result['counts'])}")
    return 1 if result["defects"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Shared fixtures: op_tester builds one-node ONNX models and runs them through
popart.InferenceSession on the CPU device, comparing with a reference."""
import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

_NP_TO_ONNX = {
    np.dtype(np.float32): onnx.TensorProto.FLOAT,
    np.dtype(np.float16): onnx.TensorProto.FLOAT16,
    np.dtype(np.float64): onnx.TensorProto.DOUBLE,
    np.dtype(np.int8): onnx.TensorProto.INT8,
    np.dtype(np.int16): onnx.TensorProto.INT16,
    np.dtype(np.int32): onnx.TensorProto.INT32,
    np.dtype(np.int64): onnx.TensorProto.INT64,
    np.dtype(np.uint8): onnx.TensorProto.UINT8,
    np.dtype(np.uint16): onnx.TensorProto.UINT16,
    np.dtype(np.uint32): onnx.TensorProto.UINT32,
    np.dtype(np.uint64): onnx.TensorProto.UINT64,
    np.dtype(np.bool_): onnx.TensorProto.BOOL,
}


def onnx_type(dtype):
    return _NP_TO_ONNX[np.dtype(dtype)]


def run_model(model_bytes, inputs, anchors, batches_per_step=1, options=None):
    """Runs a model once; returns {anchor: array}."""
    df = popart.DataFlow(batches_per_step, {a: popart.AnchorReturnType("All") for a in anchors})
    s = popart.InferenceSession(model_bytes, df, popart.DeviceManager().createCpuDevice(),
                                userOptions=options)
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(inputs, out))
    return out


class OpTester:
    """op_tester.check("Softmax", [x], reference=fn, attrs={"axis": 1})

    Inputs are numpy arrays; an entry may be `OpTester.const(array)` to make
    it an initializer (for shape-like inputs) or None for an absent optional
    input. `reference(*inputs)` returns an array or a tuple of arrays."""

    class const:
        def __init__(self, value):
            self.value = np.asarray(value)

    def build(self, op_type, inputs, attrs=None, opset=11, domain="", num_outputs=1,
              output_dtypes=None):
        nodes_in, graph_in, inits, feeds = [], [], [], {}
        for i, x in enumerate(inputs):
            name = f"in{i}"
            if x is None:
                nodes_in.append("")
            elif isinstance(x, OpTester.const):
                inits.append(onnx.numpy_helper.from_array(x.value, name))
                nodes_in.append(name)
            else:
                x = np.asarray(x)
                graph_in.append(oh.make_tensor_value_info(name, onnx_type(x.dtype), list(x.shape)))
                feeds[name] = x
                nodes_in.append(name)
        outs = [f"out{i}" for i in range(num_outputs)]
        node = oh.make_node(op_type, nodes_in, outs, domain=domain, **(attrs or {}))
        graph_out = [oh.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in outs]
        graph = oh.make_graph([node], "op_test", graph_in, graph_out, initializer=inits)
        opsets = [oh.make_opsetid("", opset)]
        if domain:
            opsets.append(oh.make_opsetid(domain, 1))
        model = oh.make_model(graph, opset_imports=opsets)
        model.ir_version = min(model.ir_version, 10)
        return model.SerializeToString(), feeds, outs

    def run(self, op_type, inputs, attrs=None, opset=11, domain="", num_outputs=1):
        model, feeds, outs = self.build(op_type, inputs, attrs, opset, domain, num_outputs)
        res = run_model(model, feeds, outs)
        return [res[o] for o in outs]

    def onnx_output_dtypes(self, op_type, inputs, attrs=None, opset=11, domain="", num_outputs=1):
        """Output element types by onnx's own type inference (None where it infers none: other
        domains, or types it cannot tell)."""
        model, _, outs = self.build(op_type, inputs, attrs, opset, domain, num_outputs)
        try:
            inferred = onnx.shape_inference.infer_shapes(onnx.load_from_string(model), strict_mode=False)
        except Exception:  # onnx's inference rejects some valid models (e.g. newer attributes); no oracle then
            return [None] * num_outputs
        types = {v.name: v.type.tensor_type.elem_type for v in inferred.graph.output}
        types.update({v.name: v.type.tensor_type.elem_type for v in inferred.graph.value_info})
        return [onnx.helper.tensor_dtype_to_np_dtype(types[o]) if types.get(o) else None for o in outs]

    def check(self, op_type, inputs, reference, attrs=None, opset=11, domain="", num_outputs=1,
              rtol=None, atol=None):
        got = self.run(op_type, inputs, attrs, opset, domain, num_outputs)
        plain = [x.value if isinstance(x, OpTester.const) else x for x in inputs]
        want = reference(*plain)
        if not isinstance(want, (tuple, list)):
            want = [want]
        assert len(want) == len(got)
        # The output type is checked too: against onnx's type inference where it has one, else
        # against the reference's type.
        inferred = self.onnx_output_dtypes(op_type, inputs, attrs, opset, domain, num_outputs)
        for k, (g, w, t) in enumerate(zip(got, want, inferred)):
            w = np.asarray(w)
            expected = np.dtype(t) if t is not None else w.dtype
            assert g.dtype == expected, f"output {k}: dtype {g.dtype} != expected {expected}"
            assert g.shape == w.shape, f"shape {g.shape} != reference {w.shape}"
            if np.issubdtype(w.dtype, np.floating):
                tol_r = rtol if rtol is not None else (1e-2 if g.dtype == np.float16 else 1e-5)
                tol_a = atol if atol is not None else (1e-2 if g.dtype == np.float16 else 1e-6)
                np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol_r, atol=tol_a)
            else:
                np.testing.assert_array_equal(g, w)
        return got


    def check_grad(self, op_type, inputs, reference, wrt=None, attrs=None, opset=11, domain="",
                   rtol=1e-3, atol=1e-4, seed=0):
        """Checks d(sum(out0 * c))/d(input) against central finite differences of
        `reference` in float64, for a fixed random cotangent c.

        Inputs listed in `wrt` (default: every float input) become trainable
        weights; the loss is IdentityLoss(Mul(out0, c), Sum) and the session
        trains with learning rate 0, anchoring Gradient___in<i>."""
        plain = [x.value if isinstance(x, OpTester.const) else (None if x is None else np.asarray(x))
                 for x in inputs]
        if wrt is None:
            wrt = [i for i, x in enumerate(plain) if x is not None and x.dtype.kind == "f"]
        out = np.asarray(reference(*[None if x is None else x.astype(np.float64) if x.dtype.kind == "f" else x
                                     for x in plain]))
        rng = np.random.RandomState(seed)
        cot = rng.uniform(0.5, 1.5, out.shape) * rng.choice([-1, 1], out.shape)
        got = self._popart_grads(op_type, inputs, plain, wrt, attrs, opset, domain, cot)
        for i in wrt:
            assert got[i].dtype == plain[i].dtype, f"gradient of input {i}: dtype {got[i].dtype} != {plain[i].dtype}"
            want = numeric_grad(reference, plain, i, cot)
            np.testing.assert_allclose(got[i].astype(np.float64), want, rtol=rtol, atol=atol,
                                       err_msg=f"gradient of input {i}")

    def _popart_grads(self, op_type, inputs, plain, wrt, attrs, opset, domain, cot):
        nodes_in, graph_in, inits, feeds, pre = [], [], [], {}, []
        for i, x in enumerate(inputs):
            name = f"in{i}"
            if x is None:
                nodes_in.append("")
                continue
            if i in wrt and (op_type, i) in RUNTIME_ONLY_AS_COMPUTED:
                # an initializer read there directly would be a compile-time constant
                pre.append(oh.make_node("Identity", [name], [name + "_computed"]))
                nodes_in.append(name + "_computed")
            else:
                nodes_in.append(name)
            if i in wrt or isinstance(x, OpTester.const):
                inits.append(onnx.numpy_helper.from_array(plain[i], name))
            else:
                graph_in.append(oh.make_tensor_value_info(name, onnx_type(plain[i].dtype), list(plain[i].shape)))
                feeds[name] = plain[i]
        dtype = plain[wrt[0]].dtype
        nodes = pre + [oh.make_node(op_type, nodes_in, ["out0"], domain=domain, **(attrs or {})),
                 oh.make_node("Constant", [], ["cot"],
                              value=onnx.numpy_helper.from_array(cot.astype(dtype), "cot")),
                 oh.make_node("Mul", ["out0", "cot"], ["weighted"]),
                 oh.make_node("IdentityLoss", ["weighted"], ["loss"], domain="ai.graphcore", reduction=0)]
        graph = oh.make_graph(nodes, "grad_test", graph_in,
                              [oh.make_tensor_value_info("loss", onnx_type(dtype), [])], initializer=inits)
        opsets = [oh.make_opsetid("", opset), oh.make_opsetid("ai.graphcore", 1)]
        if domain and domain != "ai.graphcore":
            opsets.append(oh.make_opsetid(domain, 1))
        model = oh.make_model(graph, opset_imports=opsets)
        model.ir_version = min(model.ir_version, 10)
        anchors = [f"Gradient___in{i}" for i in wrt]
        s = popart.TrainingSession(model.SerializeToString(), popart.DataFlow(1, anchors), "loss",
                                   popart.ConstSGD(0.0), popart.DeviceManager().createCpuDevice())
        s.prepareDevice()
        res = s.initAnchorArrays()
        s.run(popart.PyStepIO(feeds, res))
        return {i: res[f"Gradient___in{i}"] for i in wrt}


# (op, input) pairs where an initializer is a compile-time operand (PopART reads
# Clip's bounds as constants) but a computed tensor is a differentiable run-time
# input: gradient tests feed the weight through an Identity there.
RUNTIME_ONLY_AS_COMPUTED = {("Clip", 1), ("Clip", 2)}


def numeric_grad(reference, inputs, index, cot, eps=1e-6):
    """Central differences of sum(reference(*inputs) * cot) w.r.t. inputs[index], in float64."""
    args = [None if x is None else (x.astype(np.float64) if x.dtype.kind == "f" else x) for x in inputs]
    x = args[index]
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for k in range(flat.size):
        old = flat[k]
        step = eps * max(1.0, abs(old))
        flat[k] = old + step
        up = np.sum(np.asarray(reference(*args)) * cot)
        flat[k] = old - step
        down = np.sum(np.asarray(reference(*args)) * cot)
        flat[k] = old
        gflat[k] = (up - down) / (2 * step)
    return grad


@pytest.fixture
def op_tester():
    return OpTester()

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

    def check(self, op_type, inputs, reference, attrs=None, opset=11, domain="", num_outputs=1,
              rtol=None, atol=None):
        got = self.run(op_type, inputs, attrs, opset, domain, num_outputs)
        plain = [x.value if isinstance(x, OpTester.const) else x for x in inputs]
        want = reference(*plain)
        if not isinstance(want, (tuple, list)):
            want = [want]
        assert len(want) == len(got)
        for g, w in zip(got, want):
            w = np.asarray(w)
            assert g.shape == w.shape, f"shape {g.shape} != reference {w.shape}"
            if np.issubdtype(w.dtype, np.floating):
                tol_r = rtol if rtol is not None else (1e-2 if g.dtype == np.float16 else 1e-5)
                tol_a = atol if atol is not None else (1e-2 if g.dtype == np.float16 else 1e-6)
                np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=tol_r, atol=tol_a)
            else:
                np.testing.assert_array_equal(g, w)
        return got


@pytest.fixture
def op_tester():
    return OpTester()

"""Reference outputs from onnxruntime for one-node models: floating inputs are
computed in float32 (onnxruntime's CPU kernels lack float16/float64 for most
heavy ops), so compare float64 results with a float32-sized tolerance."""
import numpy as np
import onnx
import onnx.helper as oh
import onnxruntime as ort


def ort_run(op_type, inputs, attrs=None, opset=11, num_outputs=1):
    """inputs: arrays (or None for an absent optional input). Returns a list of outputs."""
    names, infos, feeds = [], [], {}
    for i, x in enumerate(inputs):
        if x is None:
            names.append("")
            continue
        x = np.asarray(x)
        if np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float32)
        name = f"in{i}"
        names.append(name)
        infos.append(oh.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(x.dtype), x.shape))
        feeds[name] = x
    outs = [f"out{i}" for i in range(num_outputs)]
    node = oh.make_node(op_type, names, outs, **(attrs or {}))
    graph = oh.make_graph([node], "ref", infos, [oh.make_empty_tensor_value_info(o) for o in outs])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    model.ir_version = min(model.ir_version, 9)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def reference(op_type, attrs=None, opset=11, num_outputs=1):
    """A reference function for op_tester.check: onnxruntime's result cast back to the input dtype."""
    def ref(*inputs):
        dtype = next(np.asarray(x).dtype for x in inputs if x is not None)
        res = [r.astype(dtype) if np.issubdtype(r.dtype, np.floating) else r
               for r in ort_run(op_type, inputs, attrs, opset, num_outputs)]
        return res if num_outputs > 1 else res[0]
    return ref


def tolerance(dtype):
    """(rtol, atol) for comparing with the float32 reference."""
    return {np.float16: (1e-2, 1e-2), np.float32: (1e-4, 1e-5), np.float64: (1e-5, 1e-6)}[np.dtype(dtype).type]

"""A C++ program linking PopART's CMake target name `popart` builds against the
package and runs: GraphTransformer and ReplicaGrouping from C++."""
import subprocess

import numpy as np
import onnx


def test_program_linking_target_popart(built, tmp_path):
    out = tmp_path / "half.onnx"
    r = subprocess.run([str(built.popart_target), str(out)], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "ReplicaGrouping(numReplicas=8, stride=4, groupSize=2)"
    m = onnx.load(str(out))
    assert m.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.FLOAT16
    assert m.graph.output[0].type.tensor_type.elem_type in (onnx.TensorProto.FLOAT16, 0)
    assert [n.op_type for n in m.graph.node] == ["Relu"]
    assert np.dtype(onnx.helper.tensor_dtype_to_np_dtype(m.graph.input[0].type.tensor_type.elem_type)) == np.float16

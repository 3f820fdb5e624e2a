# Long in-place chains: alias resolution (inplace transform and memory plan) is
# iterative and linear, so a 100,000-op chain compiles quickly and a small
# thread stack does not overflow.
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import onnx
from onnx import helper, TensorProto

import popart


def _relu_chain(n):
    nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(n)]
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("t0", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info(f"t{n}", TensorProto.FLOAT, [4])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _session(model, out):
    return popart.InferenceSession(fnModel=model, dataFlow=popart.DataFlow(1, {out: popart.AnchorReturnType("All")}),
                                   deviceInfo=popart.DeviceManager().createCpuDevice())


def test_100k_inplace_chain_compiles_fast():
    n = 100_000
    model = _relu_chain(n)
    start = time.perf_counter()
    s = _session(model, f"t{n}")
    s.prepareDevice()
    elapsed = time.perf_counter() - start
    assert elapsed < 10.0, f"compiling a {n}-op chain took {elapsed:.1f} s"
    x = np.array([-1.5, 2.0, 0.0, 3.25], np.float32)
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"t0": x}, anchors))
    np.testing.assert_array_equal(anchors[f"t{n}"], np.maximum(x, 0))


def test_chain_compiles_on_small_thread_stack():
    # 5,000 links crashed a 256 KB thread stack when alias roots were found by recursion.
    code = textwrap.dedent(f"""
        import sys, threading
        sys.path[:0] = {sys.path!r}
        from {__name__.rsplit('.', 1)[-1]} import _relu_chain, _session
        threading.stack_size(256 * 1024)
        result = []
        def work():
            s = _session(_relu_chain(5000), "t5000")
            s.prepareDevice()
            result.append("ok")
        t = threading.Thread(target=work)
        t.start(); t.join()
        print(result)
    """)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__)] + sys.path)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, f"child died with {p.returncode}: {p.stderr[-2000:]}"
    assert "['ok']" in p.stdout

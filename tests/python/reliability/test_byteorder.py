"""Big-endian numpy arrays are converted (inputs, initializers) or rejected (arrays popart writes into)."""
import numpy as np
import onnx.helper as oh
import pytest

import popart
from _reliability_models import model, session, vinfo

BE = np.dtype(">f4")


def _relu_session():
    return session(model([oh.make_node("Neg", ["x"], ["y"])], [vinfo("x", shape=(3,))], [vinfo("y", shape=(3,))]),
                   ["y"])


def test_big_endian_stepio_input_is_converted():
    s = _relu_session()
    x = np.array([1.5, -2.0, 3.25], BE)
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, res))
    np.testing.assert_array_equal(res["y"], [-1.5, 2.0, -3.25])


def test_big_endian_callback_input_is_converted():
    s = _relu_session()
    out = np.zeros(3, np.float32)
    io = popart.PyStepIOCallback(lambda i, p: np.array([1.0, 2.0, 3.0], BE), lambda i: None, lambda i: out,
                                 lambda i: None)
    s.run(io)
    np.testing.assert_array_equal(out, [-1, -2, -3])


def test_big_endian_output_is_rejected():
    s = _relu_session()
    with pytest.raises(popart.popart_exception, match="byte order"):
        s.run(popart.PyStepIO({"x": np.ones(3, np.float32)}, {"y": np.zeros(3, BE)}))


def test_big_endian_weights_io_is_rejected():
    with pytest.raises(popart.popart_exception, match="byte order"):
        popart.PyWeightsIO({"w": np.zeros(3, BE)})


@pytest.mark.parametrize("dtype", [">f4", ">i8", ">f2", ">i4"])
def test_big_endian_builder_initializer_is_converted(dtype):
    b = popart.Builder()
    w = b.addInitializedInputTensor(np.array([1, -2, 3], dtype))
    y = b.aiOnnx.neg([w])
    b.addOutputTensor(y)
    s = session(b.getModelProto(), [y])
    res = s.initAnchorArrays()
    s.run(popart.PyStepIO({}, res))
    np.testing.assert_array_equal(res[y], [-1, 2, -3])
    assert res[y].dtype == np.dtype(dtype).newbyteorder("=")

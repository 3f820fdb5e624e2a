"""The op_tester fixture itself: its checks must be able to fail."""
import numpy as np
import pytest

from conftest import OpTester


def test_inferred_output_dtypes(op_tester):
    x = np.ones((2, 3), np.float16)
    assert op_tester.onnx_output_dtypes("Relu", [x]) == [np.float16]
    assert op_tester.onnx_output_dtypes("Cast", [x], {"to": 3}) == [np.int8]
    assert op_tester.onnx_output_dtypes("Equal", [x, x]) == [np.bool_]
    assert op_tester.onnx_output_dtypes("ArgMax", [x]) == [np.int64]
    # Other domains: no oracle.
    assert op_tester.onnx_output_dtypes("Scale", [x], {"scale": 2.0}, domain="ai.graphcore") == [None]


class WrongDtype(OpTester):
    """Returns the right values in the wrong type."""

    def run(self, *args, **kwargs):
        return [g.astype(np.float64) for g in super().run(*args, **kwargs)]


def test_check_rejects_a_wrong_output_dtype():
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(AssertionError, match="dtype float64 != expected float32"):
        WrongDtype().check("Relu", [x], reference=lambda x: np.maximum(x, 0).astype(np.float64))


def test_check_rejects_a_reference_of_another_dtype_without_an_oracle():
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(AssertionError, match="dtype float32 != expected float64"):
        OpTester().check("Scale", [x], reference=lambda x: (2 * x).astype(np.float64), attrs={"scale": 2.0},
                         domain="ai.graphcore")


def test_check_passes_the_right_dtype(op_tester):
    x = np.linspace(-1, 1, 6, dtype=np.float16).reshape(2, 3)
    got = op_tester.check("Cast", [x], reference=lambda x: x.astype(np.int8), attrs={"to": 3})
    assert got[0].dtype == np.int8

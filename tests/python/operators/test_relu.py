import numpy as np
import pytest

import popart


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32])
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 5)])
def test_relu(op_tester, dtype, shape):
    x = (np.random.RandomState(0).randn(*shape) * 10).astype(dtype)
    op_tester.check("Relu", [x], reference=lambda x: np.maximum(x, 0))


def test_relu_rejects_bool(op_tester):
    with pytest.raises(popart.popart_exception, match="Relu.*type BOOL"):
        op_tester.run("Relu", [np.array([True, False])])

"""PyStepIO and PyStepIOCallback: buffer shapes, runtime asserts, callback order
and the errors for bad buffers (each names the tensor)."""
import numpy as np
import pytest

import popart
from _session_models import relu, relu_model, session


def prepared(bps=2, art="All"):
    return session(relu_model(), ["out"], bps=bps, art=popart.AnchorReturnType(art))


def data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("shape", [(2, 2, 3), (12,), (2, 6), (3, 4), (1, 12, 1)])
def test_input_of_any_shape_with_the_right_element_count(shape):
    s = prepared()
    x = data(shape)
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    np.testing.assert_array_equal(out["out"], relu(x).reshape(2, 2, 3))


def test_output_of_any_shape_with_the_right_element_count():
    s = prepared()
    x = data((2, 2, 3))
    out = {"out": np.zeros((4, 3), np.float32)}
    s.run(popart.PyStepIO({"x": x}, out))
    np.testing.assert_array_equal(out["out"], relu(x).reshape(4, 3))


def test_runtime_asserts_check_the_step_size():
    s = prepared(bps=2)
    one_batch = data((2, 3))
    with pytest.raises(popart.popart_exception, match="'x'.*6 elements"):
        s.run(popart.PyStepIO({"x": one_batch}, s.initAnchorArrays()))


def test_disabled_runtime_asserts_reuse_a_short_buffer():
    """Without asserts, the buffer is handed out one micro-batch at a time and wraps."""
    s = prepared(bps=3, art="Final")
    x = data((2, 3))
    out = s.initAnchorArrays()
    io = popart.PyStepIO({"x": x}, out)
    io.enableRuntimeAsserts(False)
    s.run(io)
    np.testing.assert_array_equal(out["out"], relu(x))


def test_buffers_are_reused_across_runs():
    s = prepared()
    out = s.initAnchorArrays()
    for seed in range(3):
        x = data((2, 2, 3), seed)
        s.run(popart.PyStepIO({"x": x}, out))
        np.testing.assert_array_equal(out["out"], relu(x))


# ---- errors ----

def run_with(inputs, outputs=None, s=None):
    s = s or prepared()
    s.run(popart.PyStepIO(inputs, s.initAnchorArrays() if outputs is None else outputs))


def test_missing_input_is_named():
    with pytest.raises(popart.popart_exception, match="no input data.*'x'"):
        run_with({})


def test_wrong_input_size_is_named():
    with pytest.raises(popart.popart_exception, match="'x' has 10 elements"):
        run_with({"x": data((10,))})


def test_wrong_input_dtype_is_named():
    with pytest.raises(popart.popart_exception, match="'x' has type FLOAT16, expected FLOAT"):
        run_with({"x": data((2, 2, 3)).astype(np.float16)})


def test_output_buffer_for_a_non_anchor_is_named():
    s = prepared()
    outputs = s.initAnchorArrays()
    outputs["x"] = np.zeros((2, 2, 3), np.float32)
    with pytest.raises(popart.popart_exception, match="'x', which is not an anchor"):
        run_with({"x": data((2, 2, 3))}, outputs, s)


def test_missing_output_buffer_is_named():
    with pytest.raises(popart.popart_exception, match="no output buffer.*'out'"):
        run_with({"x": data((2, 2, 3))}, {})


def test_wrong_output_size_is_named():
    with pytest.raises(popart.popart_exception, match="anchor 'out' has 6 elements, expected 12"):
        run_with({"x": data((2, 2, 3))}, {"out": np.zeros((2, 3), np.float32)})


def test_wrong_output_dtype_is_named():
    with pytest.raises(popart.popart_exception, match="anchor 'out' has type FLOAT16"):
        run_with({"x": data((2, 2, 3))}, {"out": np.zeros((2, 2, 3), np.float16)})


def test_non_contiguous_arrays_are_refused():
    x = data((2, 2, 6))[:, :, ::2]
    with pytest.raises(popart.popart_exception, match="input 'x'.*C-contiguous"):
        popart.PyStepIO({"x": x}, {})
    with pytest.raises(popart.popart_exception, match="output 'out'.*C-contiguous"):
        popart.PyStepIO({}, {"out": np.zeros((2, 3, 2), np.float32).transpose(0, 2, 1)})


def test_read_only_output_is_refused():
    out = np.zeros((2, 2, 3), np.float32)
    out.flags.writeable = False
    with pytest.raises(popart.popart_exception, match="'out' is read-only"):
        popart.PyStepIO({}, {"out": out})


def test_unsupported_dtype_is_refused():
    with pytest.raises(popart.popart_exception, match="complex"):
        popart.PyStepIO({"x": np.zeros(3, np.complex64)}, {})


# ---- callbacks ----

class Recorder:
    """The four PyStepIOCallback callbacks, recording each call."""

    def __init__(self, inputs, out_shape):
        self.inputs, self.calls, self.results = inputs, [], []
        self.step = 0
        self.out_shape = out_shape

    def input(self, id, prefetch):
        self.calls.append(("in", id, prefetch))
        return self.inputs[id][self.step]

    def input_complete(self, id):
        self.calls.append(("inComplete", id))
        self.step += 1

    def output(self, id):
        self.calls.append(("out", id))
        self.results.append(np.zeros(self.out_shape, np.float32))
        return self.results[-1]

    def output_complete(self, id):
        self.calls.append(("outComplete", id))

    def stepio(self):
        return popart.PyStepIOCallback(self.input, self.input_complete, self.output, self.output_complete)


def test_callbacks_are_called_in_the_documented_order():
    s = prepared(bps=3)
    x = data((3, 2, 3))
    rec = Recorder({"x": x}, (2, 3))
    s.run(rec.stepio())
    per_batch = [("in", "x", False), ("inComplete", "x"), ("out", "out"), ("outComplete", "out")]
    assert rec.calls == per_batch * 3
    np.testing.assert_array_equal(np.stack(rec.results), relu(x))


def test_callbacks_with_final_anchor_return_once():
    s = prepared(bps=3, art="Final")
    x = data((3, 2, 3))
    rec = Recorder({"x": x}, (2, 3))
    s.run(rec.stepio())
    assert [c[0] for c in rec.calls].count("out") == 1
    assert rec.calls[-2:] == [("out", "out"), ("outComplete", "out")]
    np.testing.assert_array_equal(rec.results[0], relu(x[-1]))


def test_callback_exception_propagates():
    s = prepared(bps=1)

    def bad_input(id, prefetch):
        raise ValueError(f"no data for {id}")

    io = popart.PyStepIOCallback(bad_input, lambda i: None, lambda i: np.zeros((2, 3), np.float32),
                                 lambda i: None)
    with pytest.raises(ValueError, match="no data for x"):
        s.run(io)


def test_callback_input_of_wrong_size_is_named():
    s = prepared(bps=1)
    io = popart.PyStepIOCallback(lambda i, p: np.zeros(5, np.float32), lambda i: None,
                                 lambda i: np.zeros((2, 3), np.float32), lambda i: None)
    with pytest.raises(popart.popart_exception, match="'x' provides 5 elements"):
        s.run(io)


def test_callback_output_of_wrong_size_is_named():
    s = prepared(bps=1)
    io = popart.PyStepIOCallback(lambda i, p: np.zeros((2, 3), np.float32), lambda i: None,
                                 lambda i: np.zeros(2, np.float32), lambda i: None)
    with pytest.raises(popart.popart_exception, match="anchor 'out' has 2 elements"):
        s.run(io)


def test_callback_must_return_arrays():
    s = prepared(bps=1)
    io = popart.PyStepIOCallback(lambda i, p: "text", lambda i: None,
                                 lambda i: np.zeros((2, 3), np.float32), lambda i: None)
    with pytest.raises(Exception):
        s.run(io)


def test_callback_output_must_be_writeable():
    s = prepared(bps=1)
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    io = popart.PyStepIOCallback(lambda i, p: np.zeros((2, 3), np.float32), lambda i: None,
                                 lambda i: ro, lambda i: None)
    with pytest.raises(popart.popart_exception, match="'out' returned a read-only array"):
        s.run(io)

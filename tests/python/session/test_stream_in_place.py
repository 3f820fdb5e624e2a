"""Input streams read in place: when every reader of an input stream is a kernel that can be pointed at the step
IO's array (oneDNN matmul, Gemm, convolution), each micro-batch is read straight from the user's array instead of
being copied into the stream's device buffer. The summary report names those streams; results must be those of
the copying path in every case (several micro-batches, new arrays each run, unaligned or callback-fed data)."""
import numpy as np
import popart
import pytest

IN_PLACE = "input streams read in place from the step IO's arrays (no copy): "


def in_place_streams(session):
    line = next(l for l in session.getSummaryReport().splitlines() if l.startswith(IN_PLACE))
    names = line[len(IN_PLACE):]
    return [] if names == "none" else names.split(", ")


def build(kind, dtype=np.float32, bps=3, anchor_input=False):
    """x [4, 6] (or [2, 3, 5, 5] for a conv) through one op reading it; returns (session, weights, output id)."""
    b = popart.Builder()
    rs = np.random.RandomState(0)
    if kind == "conv":
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 3, 5, 5]), "x")
        w = rs.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
        y = b.aiOnnx.conv([x, b.addInitializedInputTensor(w)], pads=[1, 1, 1, 1])
    else:
        x = b.addInputTensor(popart.TensorInfo("FLOAT16" if dtype == np.float16 else "FLOAT", [4, 6]), "x")
        w = rs.uniform(-1, 1, (6, 5)).astype(dtype)
        wid = b.addInitializedInputTensor(w)
        if kind == "matmul":
            y = b.aiOnnx.matmul([x, wid])
        elif kind == "gemm":
            y = b.aiOnnx.gemm([x, wid, b.addInitializedInputTensor(np.arange(5, dtype=dtype))])
        else:  # "matmul+add": the Add reads x too, with a plain loop
            y = b.aiOnnx.add([b.aiOnnx.reducesum([b.aiOnnx.matmul([x, wid])], axes=[1], keepdims=1), x])
    anchors = {y: popart.AnchorReturnType("All")}
    if anchor_input:
        anchors[x] = popart.AnchorReturnType("All")
    s = popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(bps, anchors),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    s.weightsFromHost()
    return s, w, y


def reference(kind, x, w):
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    if kind == "conv":
        import torch
        return torch.nn.functional.conv2d(torch.tensor(x64), torch.tensor(w64), padding=1).numpy()
    if kind == "matmul":
        return x64 @ w64
    if kind == "gemm":
        return x64 @ w64 + np.arange(5)
    return (x64 @ w64).sum(-1, keepdims=True) + x64


def inputs(kind, bps, seed, dtype=np.float32):
    shape = (2, 3, 5, 5) if kind == "conv" else (4, 6)
    return np.random.RandomState(seed).uniform(-1, 1, (bps,) + shape).astype(dtype)


@pytest.mark.parametrize("kind", ["matmul", "gemm", "conv"])
def test_readers_that_rebind_read_in_place_each_micro_batch(kind):
    s, w, y = build(kind)
    assert in_place_streams(s) == ["x"]
    anchors = s.initAnchorArrays()
    for seed in (1, 2):  # a new array each run: the readers follow it
        x = inputs(kind, 3, seed)
        s.run(popart.PyStepIO({"x": x}, anchors))
        assert anchors[y].dtype == np.float32
        for m in range(3):
            np.testing.assert_allclose(anchors[y][m], reference(kind, x[m], w), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kind,dtype,anchor_input", [("matmul+add", np.float32, False),  # a plain-loop reader
                                                     ("matmul", np.float32, True),  # an anchor
                                                     ("matmul", np.float16, False)])  # FLOAT16: staged
def test_other_streams_are_copied(kind, dtype, anchor_input):
    s, w, y = build(kind, dtype, anchor_input=anchor_input)
    assert in_place_streams(s) == []
    anchors = s.initAnchorArrays()
    x = inputs(kind, 3, 1, dtype)
    s.run(popart.PyStepIO({"x": x}, anchors))
    assert anchors[y].dtype == dtype
    tol = 1e-2 if dtype == np.float16 else 1e-5
    for m in range(3):
        np.testing.assert_allclose(anchors[y][m].astype(np.float64), reference(kind, x[m], w), rtol=tol, atol=tol)
    if anchor_input:
        np.testing.assert_array_equal(anchors["x"], x)


def test_unaligned_array_and_callback_data_are_copied():
    """An in-place stream still copies data it cannot point at: an unaligned array, and data from the input
    callback of PyStepIOCallback (released after inComplete)."""
    s, w, y = build("matmul")
    assert in_place_streams(s) == ["x"]
    anchors = s.initAnchorArrays()
    x = inputs("matmul", 3, 4)
    raw = bytearray(x.nbytes + 1)
    unaligned = np.frombuffer(raw, dtype=np.float32, count=x.size, offset=1).reshape(x.shape)
    unaligned[...] = x
    assert not unaligned.flags.aligned
    s.run(popart.PyStepIO({"x": unaligned}, anchors))
    want = [reference("matmul", x[m], w) for m in range(3)]
    for m in range(3):
        np.testing.assert_allclose(anchors[y][m], want[m], rtol=1e-5, atol=1e-5)
    anchors[y][...] = 0
    step = iter(range(3))
    got = []

    def give(_id, _prefetch):
        return x[next(step)].copy()

    s.run(popart.PyStepIOCallback(give, lambda _id: None, lambda _id: anchors[y][0], lambda _id: got.append(
        anchors[y][0].copy())))
    for m in range(3):
        np.testing.assert_allclose(got[m], want[m], rtol=1e-5, atol=1e-5)
    # and back to arrays: in place again, the new array read
    x2 = inputs("matmul", 3, 5)
    s.run(popart.PyStepIO({"x": x2}, anchors))
    for m in range(3):
        np.testing.assert_allclose(anchors[y][m], reference("matmul", x2[m], w), rtol=1e-5, atol=1e-5)

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart

def run_graph(nodes, feeds, output, opset):
    """Runs a multi-node float32 model (inputs = feeds) and returns `output`."""
    ins = [oh.make_tensor_value_info(k, onnx.TensorProto.FLOAT, v.shape) for k, v in feeds.items()]
    g = oh.make_graph(nodes, "g", ins, [oh.make_tensor_value_info(output, onnx.TensorProto.FLOAT, None)])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", opset)])
    m.ir_version = min(m.ir_version, 10)
    df = popart.DataFlow(1, {output: popart.AnchorReturnType("All")})
    s = popart.InferenceSession(m.SerializeToString(), df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, out))
    return out[output]


OPS = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}
SHAPES = [
    ((3, 4), (3, 4)),
    ((2, 3, 4), (4,)),
    ((2, 3, 4), (3, 1)),
    ((2, 1, 4), (1, 3, 1)),
    ((5,), ()),
    ((), (2, 3)),
    ((2, 3, 4, 5), (1, 3, 1, 1)),
    ((1, 1), (1,)),
    ((4, 1, 6), (4, 5, 6)),
    ((300, 200), (200,)),
]


def rand(shape, dtype, seed=0, positive=False):
    r = np.random.RandomState(seed)
    if np.issubdtype(dtype, np.integer):
        lo = 1 if positive else (0 if np.issubdtype(dtype, np.unsignedinteger) else -20)
        x = r.randint(lo, 20, size=shape)
    else:
        x = r.randn(*shape) * 3
        if positive:
            x = np.abs(x) + 0.5
    return np.asarray(x).astype(dtype)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("sa,sb", SHAPES)
def test_broadcast_float(op_tester, op, sa, sb):
    a, b = rand(sa, np.float32), rand(sb, np.float32, 1)
    op_tester.check(op, [a, b], reference=lambda a, b: OPS[op](a, b))


def test_empty_output(op_tester):
    # Zero-size tensors as initializers (step IO of empty inputs is not exercised here).
    a = op_tester.const(np.zeros((3, 0), np.float32))
    (y,) = op_tester.run("Add", [a, np.ones((1,), np.float32)])
    assert y.shape == (3, 0)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int32, np.int64, np.uint8, np.int8, np.uint32])
def test_dtypes(op_tester, op, dtype):
    a, b = rand((3, 5), dtype), rand((5,), dtype, 1, positive=True)
    if op == "Sub" and np.issubdtype(dtype, np.unsignedinteger):
        a = a + 20
    if op == "Div" and np.issubdtype(dtype, np.integer):
        ref = lambda a, b: np.trunc(a.astype(np.float64) / b).astype(dtype)
    else:
        fn = {**OPS, "Div": np.divide}[op]
        ref = lambda a, b: fn(a.astype(np.float64), b).astype(dtype)
    op_tester.check(op, [a, b], reference=ref, opset=14)


def test_div_float(op_tester):
    a, b = rand((4, 6), np.float32), rand((4, 1), np.float32, 1, positive=True)
    op_tester.check("Div", [a, b], reference=np.divide, opset=13)


def test_int_div_truncates_and_survives_zero(op_tester):
    a = np.array([7, -7, 7, -7, 5, np.iinfo(np.int32).min], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 0, -1], dtype=np.int32)
    (y,) = op_tester.run("Div", [a, b])
    assert y[:4].tolist() == [3, -3, -3, 3]
    assert y[4] == 0


def test_legacy_broadcast_axis(op_tester):
    a, b = rand((2, 3, 4, 5), np.float32), rand((3, 4), np.float32, 1)
    op_tester.check("Add", [a, b], reference=lambda a, b: a + b[None, :, :, None],
                    attrs={"broadcast": 1, "axis": 1}, opset=6)
    op_tester.check("Mul", [a, rand((5,), np.float32)], reference=lambda a, b: a * b,
                    attrs={"broadcast": 1}, opset=6)


def test_legacy_no_broadcast_needs_equal_shapes(op_tester):
    with pytest.raises(popart.popart_exception, match="broadcast=0"):
        op_tester.run("Add", [rand((2, 3), np.float32), rand((3,), np.float32)], opset=6)


def test_incompatible_shapes(op_tester):
    with pytest.raises(popart.popart_exception):
        op_tester.run("Add", [rand((2, 3), np.float32), rand((4,), np.float32)])


def test_mismatched_types(op_tester):
    with pytest.raises(popart.popart_exception, match="different types"):
        op_tester.run("Mul", [rand((2,), np.float32), rand((2,), np.float64)])


def test_bool_rejected(op_tester):
    with pytest.raises(popart.popart_exception, match="type BOOL"):
        op_tester.run("Add", [np.array([True]), np.array([False])])


@pytest.mark.parametrize("exponent", [2.0, 0.5, 3.0, -1.0, 1.0, 1.7])
def test_pow_scalar_exponent(op_tester, exponent):
    x = rand((4, 7), np.float32, positive=True)
    op_tester.check("Pow", [x, np.array(exponent, np.float32)], reference=lambda x, e: np.power(x, e), opset=7)


def test_pow_broadcast(op_tester):
    x, e = rand((3, 4), np.float64, positive=True), rand((4,), np.float64, 1)
    op_tester.check("Pow", [x, e], reference=np.power)


@pytest.mark.parametrize("bt,et", [(np.float32, np.int64), (np.float16, np.float32), (np.int32, np.int32),
                                   (np.int64, np.float32), (np.float64, np.int8)])
def test_pow_mixed_types(op_tester, bt, et):
    x = np.array([[1, 2, 3], [4, 0, 2]], dtype=bt)
    e = np.array([2, 3, 0], dtype=et)
    op_tester.check("Pow", [x, e], reference=lambda x, e: np.power(x.astype(np.float64), e).astype(bt), opset=15)


def test_pow_int_negative_exponent(op_tester):
    x = np.array([2, 1, -1, -1, 3], dtype=np.int64)
    e = np.array([-1, -3, -3, -2, 0], dtype=np.int64)
    (y,) = op_tester.run("Pow", [x, e], opset=13)
    assert y.tolist() == [0, 1, -1, 1, 1]


def test_pow_opset7_needs_equal_types(op_tester):
    with pytest.raises(popart.popart_exception, match="different types"):
        op_tester.run("Pow", [rand((2,), np.float32), np.array([2], np.int64)], opset=7)


def test_inplace_chain():
    # d / ((a + b) * c - d): intermediate results are overwritten in place.
    shapes = {"a": (4, 5), "b": (5,), "c": (4, 5), "d": (1, 5)}
    nodes = [oh.make_node("Add", ["a", "b"], ["t1"]), oh.make_node("Mul", ["c", "t1"], ["t2"]),
             oh.make_node("Sub", ["t2", "d"], ["t3"]), oh.make_node("Div", ["d", "t3"], ["y"])]
    f = {k: rand(v, np.float32, i) for i, (k, v) in enumerate(shapes.items())}
    y = run_graph(nodes, f, "y", 13)
    np.testing.assert_allclose(y, f["d"] / ((f["a"] + f["b"]) * f["c"] - f["d"]), rtol=1e-5)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("sa,sb", [((3, 2500), (2500,)), ((3, 1), (3, 2500)), ((2, 3000), ()), ((), (1, 2100))])
def test_float16_rows(op_tester, op, sa, sb):
    # Rows longer than the float16 staging chunk, in every read mode; computed in float32.
    a, b = rand(sa, np.float16), rand(sb, np.float16, 1, positive=True)
    fn = {**OPS, "Div": np.divide}[op]
    op_tester.check(op, [a, b], reference=lambda a, b: fn(a.astype(np.float32), b.astype(np.float32)).astype(np.float16),
                    rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("sa,sb", [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 5)), ((2, 3), ()),
                                   # bias-like: the rows summed into one, columns split between threads
                                   ((40, 7, 300), (300,)), ((600, 90), (90,))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad(op_tester, op, sa, sb, dtype):
    a, b = rand(sa, dtype), rand(sb, dtype, 1, positive=True)
    fn = {**OPS, "Div": np.divide}[op]
    op_tester.check_grad(op, [a, b], reference=fn, opset=13)


def test_grad_float16_and_legacy_broadcast(op_tester):
    a, b = rand((2, 3, 4), np.float16), rand((3,), np.float16, 1, positive=True)
    op_tester.check_grad("Mul", [a, b], reference=lambda a, b: a * b[None, :, None], attrs={"broadcast": 1, "axis": 1},
                         opset=6, rtol=2e-2, atol=2e-2)

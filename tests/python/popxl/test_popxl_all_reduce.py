"""popxl.ops.collectives.all_reduce and its identical-inputs / identical-gradients forms (the ai.graphcore
AllReduce op across the IPUs of one replica): values, dtypes and gradients against numpy, the op in the
graph, a PopART model using the op, and bad arguments."""
import numpy as np
import pytest

import popart
import popxl
import popxl.ops as ops
from popxl.ops import collectives as C

from popxl_run import check, rand, run, run_grad

REDUCE = {"add": lambda xs: np.sum(xs, axis=0), "mean": lambda xs: np.mean(xs, axis=0),
          "mul": lambda xs: np.prod(xs, axis=0), "min": lambda xs: np.min(xs, axis=0),
          "max": lambda xs: np.max(xs, axis=0)}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("shape,n", [((5,), 2), ((2, 3), 3), ((4, 1, 3), 4)])
@pytest.mark.parametrize("op", sorted(REDUCE))
def test_every_output_is_the_reduction(op, shape, n, dtype):
    xs = [rand(shape, dtype, lo=-3, hi=4, seed=k) for k in range(n)]
    outs = run(lambda *ts: C.all_reduce(list(ts), ipus=list(range(n)), op=op), *xs)
    want = REDUCE[op](np.stack([x.astype(np.float64) for x in xs]))
    if np.dtype(dtype).kind == "i":
        want = np.trunc(want) if op == "mean" else want
    assert len(outs) == n
    for got in outs:
        check(got, want, dtype)


@pytest.mark.parametrize("op", ["min", "max", "add"])
def test_nan_propagates(op):
    a = np.array([np.nan, 1.0, -np.inf], np.float32)
    b = np.array([2.0, np.nan, 5.0], np.float32)
    got = run(lambda x, y: C.all_reduce([x, y], op=op)[1], a, b)
    want = {"min": np.minimum, "max": np.maximum, "add": np.add}[op](a, b)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_identical_inputs_pass_each_input_through(dtype):
    a, b = rand((3, 2), dtype, seed=1), rand((3, 2), dtype, seed=2)
    o0, o1 = run(lambda x, y: C.all_reduce_identical_inputs([x, y]), a, b)
    check(o0, a)
    check(o1, b)


# y = 2 * out_0 + 3 * out_1, so the outputs' gradients are 2 * seed and 3 * seed.
def two_output_loss(reduce):
    def fn(x, y):
        o0, o1 = reduce([x, y])
        return ops.add(ops.mul(o0, 2.0), ops.mul(o1, 3.0))
    return fn


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("variant,op", [("all_reduce", "add"), ("all_reduce", "mean"),
                                        ("all_reduce_identical_inputs", "add"),
                                        ("all_reduce_identical_grad_inputs", "add"),
                                        ("all_reduce_identical_grad_inputs", "mean")])
def test_gradients(variant, op, dtype):
    a, b = rand((2, 3), dtype, seed=3), rand((2, 3), dtype, seed=4)
    fn = getattr(C, variant)
    out, (ga, gb), seed = run_grad(two_output_loss(lambda ts: fn(ts, op=op)), a, b)
    s = seed.astype(np.float64)
    scale = 0.5 if op == "mean" else 1.0
    if variant == "all_reduce_identical_inputs":
        check(out, 2 * a.astype(np.float64) + 3 * b.astype(np.float64), dtype)
    else:
        check(out, 5 * scale * (a.astype(np.float64) + b.astype(np.float64)), dtype)
    if variant == "all_reduce_identical_grad_inputs":  # each input gets its own output's gradient
        check(ga, 2 * s, dtype)
        check(gb, 3 * s, dtype)
    else:  # every input gets the reduction of the outputs' gradients
        check(ga, 5 * scale * s, dtype)
        check(gb, 5 * scale * s, dtype)


def test_one_op_with_an_output_per_ipu():
    ir = popxl.Ir()
    with ir.main_graph:
        ts = [popxl.variable(np.ones(4, np.float32)) for _ in range(3)]
        outs = C.all_reduce(ts, ipus=[0, 1, 2], op="max")
    ops_ = [op for op in ir.main_graph._pb_graph.getOps() if op.opType() == "AllReduce"]
    assert len(ops_) == 1 and len(outs) == 3
    assert ops_[0].getOutputIds() == {i: o.id for i, o in enumerate(outs)}


def test_popart_model_with_the_op():
    builder = popart.Builder()
    x = builder.addInputTensor(popart.TensorInfo("FLOAT", [3]), "x")
    y = builder.addInputTensor(popart.TensorInfo("FLOAT", [3]), "y")
    outs = builder.customOp(opName="AllReduce", opVersion=1, domain="ai.graphcore", inputs=[x, y],
                            attributes={"__collectiveOperator": 1}, numOutputs=2)
    for o in outs:
        builder.addOutputTensor(o)
    session = popart.InferenceSession(builder.getModelProto(),
                                      popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outs}),
                                      popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    anchors = session.initAnchorArrays()
    xv, yv = np.array([1, 2, 3], np.float32), np.array([5, -2, 0.5], np.float32)
    session.run(popart.PyStepIO({x: xv, y: yv}, anchors))
    for o in outs:
        np.testing.assert_allclose(anchors[o], (xv + yv) / 2)


def test_bad_arguments_name_the_op_or_argument():
    with popxl.Ir().main_graph:
        a, b = popxl.variable(np.ones(3, np.float32)), popxl.variable(np.ones(3, np.float32))
        with pytest.raises(ValueError, match="no tensors"):
            C.all_reduce([])
        with pytest.raises(ValueError, match="2 tensors but 3 ipus"):
            C.all_reduce([a, b], ipus=[0, 1, 2])
        with pytest.raises(ValueError, match="op 'sum' is not one of"):
            C.all_reduce_identical_inputs([a, b], op="sum")
        with pytest.raises(popart.popart_exception, match="AllReduce.*input 1 is FLOAT16"):
            C.all_reduce([a, popxl.variable(np.ones(3, np.float16))])
        with pytest.raises(popart.popart_exception, match="AllReduce.*input 1 is FLOAT \\[4\\]"):
            C.all_reduce([a, popxl.variable(np.ones(4, np.float32))])
        with pytest.raises(popart.popart_exception, match="ipus must be distinct"):
            C.all_reduce([a, b], ipus=[1, 1])


def test_mul_has_no_gradient():
    a, b = rand((3,), seed=5), rand((3,), seed=6)
    with pytest.raises(popart.popart_exception, match="AllReduce.*operator 2 has no gradient"):
        run_grad(two_output_loss(lambda ts: C.all_reduce(ts, op="mul")), a, b)

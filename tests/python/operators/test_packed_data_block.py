# PackedDataBlock (ai.graphcore 1): packed variable-length sequences unpacked
# into callbackBatchSize batches for a callback graph and packed back, against
# a numpy loop over the sequences; from the Builder, customOp and ONNX files;
# every error case.
import numpy as np
import onnx
import onnx.helper as oh
import pytest
from onnx import TensorProto as TP

import popart
import popart_core

ONNX_TYPE = {np.float32: "FLOAT", np.float16: "FLOAT16", np.int32: "INT32", np.int64: "INT64"}


def pack(rng, lengths, rest, dtype, gap=2):
    """Sequences of the given lengths in shuffled order with gaps between them:
    (data [total, *rest], offsets, lengths)."""
    order = rng.permutation(len(lengths))
    offsets = np.zeros(len(lengths), np.int64)
    pos = 0
    for s in order:
        pos += int(rng.integers(0, gap + 1))
        offsets[s] = pos
        pos += lengths[s]
    total = pos + int(rng.integers(0, gap + 1))
    data = (rng.standard_normal((total, *rest)) * 4).astype(dtype)
    return data, offsets, np.asarray(lengths, np.int64)


def reference(packed, result_index, max_lengths, batch, result_size, fn):
    """Per batch of sequences: unpack (zero padded), apply fn, copy rows back."""
    res_offsets, res_lengths = result_index
    n_seq = len(res_offsets)
    result = None
    for first in range(0, n_seq, batch):
        ins = []
        for (data, offsets, lengths), m in zip(packed, max_lengths):
            x = np.zeros((batch, m, *data.shape[1:]), data.dtype)
            for b in range(min(batch, n_seq - first)):
                s = first + b
                x[b, :lengths[s]] = data[offsets[s]:offsets[s] + lengths[s]]
            ins.append(x)
        out = fn(*ins)
        if result is None:
            result = np.zeros((result_size, *out.shape[2:]), out.dtype)
        for b in range(min(batch, n_seq - first)):
            s = first + b
            result[res_offsets[s]:res_offsets[s] + res_lengths[s]] = out[b, :res_lengths[s]]
    return result


def session_run(proto, feeds, out):
    df = popart.DataFlow(1, {out: popart.AnchorReturnType("All")})
    s = popart.InferenceSession(proto, df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, anchors))
    return anchors[out]


class Case:
    """A PackedDataBlock model: packed inputs (data, offsets, lengths), the
    result layout, and a callback made by `make_callback(cb, inputs)`."""

    def __init__(self, packed, result_index, max_lengths, batch, result_size, index_dtype=np.int32):
        self.packed, self.result_index = packed, result_index
        self.max_lengths, self.batch, self.result_size = max_lengths, batch, result_size
        self.index_dtype = index_dtype

    def build(self, make_callback, use_custom_op=False):
        b = popart.Builder()
        args, self.feeds = [], {}
        arrays = []
        for data, offsets, lengths in self.packed:
            arrays += [data, offsets.astype(self.index_dtype), lengths.astype(self.index_dtype)]
        arrays += [a.astype(self.index_dtype) for a in self.result_index]
        for a in arrays:
            t = b.addInputTensor(ONNX_TYPE[a.dtype.type], list(a.shape))
            args.append(t)
            self.feeds[t] = a
        cb = b.createSubgraphBuilder()
        cins = [cb.addInputTensor(ONNX_TYPE[d.dtype.type], [self.batch, m, *d.shape[1:]])
                for (d, _, _), m in zip(self.packed, self.max_lengths)]
        make_callback(cb, cins, b)
        attrs = dict(maxSequenceLengths=self.max_lengths, resultSize=self.result_size,
                     callbackBatchSize=self.batch, callback=cb)
        if use_custom_op:
            out = b.customOp(opName="PackedDataBlock", opVersion=1, domain="ai.graphcore", inputs=args,
                             attributes=attrs, numOutputs=1)[0]
        else:
            out = b.aiGraphcore.packedDataBlock(args, **attrs)
        b.addOutputTensor(out)
        self.out = out
        return b

    def run(self, make_callback, **kw):
        return session_run(self.build(make_callback, **kw).getModelProto(), self.feeds, self.out)

    def want(self, fn):
        return reference(self.packed, self.result_index, self.max_lengths, self.batch, self.result_size, fn)


def packed_result(rng, lengths, gap=1):
    """A result layout with the given lengths per sequence, shuffled, with gaps:
    (offsets, lengths, result size)."""
    _, offsets, lengths = pack(rng, lengths, (), np.float32, gap)
    return (offsets, lengths), int(offsets.max(initial=0) + lengths.max(initial=0) + gap)


def const(cb, value, dtype):
    return cb.aiOnnx.constant(np.asarray(value, dtype))


def check(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype == np.float16:
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=2e-3)
    elif want.dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("n_seq,batch", [(6, 2), (7, 3), (5, 8), (4, 1)])
def test_elementwise_callback(dtype, n_seq, batch):
    """One input, y = 3 x + 1 per position; each sequence comes back at its own length."""
    rng = np.random.default_rng(n_seq * 10 + batch)
    lengths = rng.integers(0, 6, n_seq)
    packed = [pack(rng, lengths, (3,), dtype)]
    result_index, size = packed_result(rng, lengths)
    case = Case(packed, result_index, [5], batch, size)

    def callback(cb, ins, _):
        cb.addOutputTensor(cb.aiOnnx.add([cb.aiOnnx.mul([ins[0], const(cb, 3, dtype)]), const(cb, 1, dtype)]))

    got = case.run(callback)
    want = case.want(lambda x: x * dtype(3) + dtype(1))
    check(got, want)
    # positions outside every result range stay zero
    covered = np.zeros(size, bool)
    for o, n in zip(*result_index):
        covered[o:o + n] = True
    assert not got[~covered].any()


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("n_seq,batch", [(5, 2), (9, 4), (3, 3)])
def test_reduction_over_sequence_axis(dtype, n_seq, batch):
    """y = sum of each sequence: one result row per sequence, in sequence order."""
    rng = np.random.default_rng(100 + n_seq)
    lengths = rng.integers(1, 5, n_seq)
    packed = [pack(rng, lengths, (2, 3), dtype)]
    result_index = (np.arange(n_seq), np.ones(n_seq, np.int64))
    case = Case(packed, result_index, [4], batch, n_seq + 2)

    def callback(cb, ins, _):
        cb.addOutputTensor(cb.aiOnnx.reducesum([ins[0]], axes=[1], keepdims=1))

    got = case.run(callback)
    check(got, case.want(lambda x: x.sum(axis=1, keepdims=True, dtype=x.dtype)))
    assert got.shape == (n_seq + 2, 2, 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("n_seq,batch", [(5, 2), (6, 3)])
def test_two_inputs_attention_scores(dtype, n_seq, batch):
    """Two packed inputs of different lengths: y[b] = x0[b] @ x1[b]^T, shape
    [batch, L0, L1]; each result gets the sequence's rows of x0."""
    rng = np.random.default_rng(7 + n_seq)
    l0, l1 = rng.integers(1, 5, n_seq), rng.integers(0, 4, n_seq)
    packed = [pack(rng, l0, (3,), dtype), pack(rng, l1, (3,), dtype)]
    result_index, size = packed_result(rng, l0, gap=2)
    case = Case(packed, result_index, [4, 3], batch, size, index_dtype=np.int64)

    def callback(cb, ins, _):
        cb.addOutputTensor(cb.aiOnnx.matmul([ins[0], cb.aiOnnx.transpose([ins[1]], perm=[0, 2, 1])]))

    got = case.run(callback)
    want = case.want(lambda a, b: (a.astype(np.float32) @ b.astype(np.float32).transpose(0, 2, 1)).astype(dtype))
    check(got, want)
    assert got.shape == (size, 3)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_two_inputs_elementwise_and_reduction(dtype):
    """y = x0 * 2 + sum over the sequence of x1 (broadcast): mixes a reduction
    and element-wise math on two inputs with different trailing shapes."""
    rng = np.random.default_rng(3)
    n_seq = 7
    l0, l1 = rng.integers(0, 4, n_seq), rng.integers(0, 6, n_seq)
    packed = [pack(rng, l0, (2,), dtype, gap=0), pack(rng, l1, (2,), dtype)]
    result_index, size = packed_result(rng, np.minimum(l0 + 1, 3))
    case = Case(packed, result_index, [3, 5], 3, size)

    def callback(cb, ins, _):
        s = cb.aiOnnx.reducesum([ins[1]], axes=[1], keepdims=1)
        cb.addOutputTensor(cb.aiOnnx.add([cb.aiOnnx.mul([ins[0], const(cb, 2, dtype)]), s]))

    check(case.run(callback), case.want(lambda a, b: a * dtype(2) + b.sum(axis=1, keepdims=True, dtype=dtype)))


def test_callback_reads_parent_weight_and_custom_op():
    """The callback multiplies by a weight of the main graph (an outer-scope
    input); built with customOp the model gives the same result."""
    rng = np.random.default_rng(4)
    lengths = [3, 0, 2, 4, 1]
    packed = [pack(rng, lengths, (2,), np.float32)]
    result_index, size = packed_result(rng, lengths)
    w_value = np.float32([[1, 2], [-1, 0.5]])
    case = Case(packed, result_index, [4], 2, size)

    def callback(cb, ins, parent):
        w = parent.addInitializedInputTensor(w_value)
        cb.addOutputTensor(cb.aiOnnx.matmul([ins[0], w]))

    want = case.want(lambda x: x @ w_value)
    check(case.run(callback), want)
    check(case.run(callback, use_custom_op=True), want)


def test_no_sequences_gives_zeros():
    case = Case([(np.ones((3, 2), np.float32), np.zeros(0, np.int64), np.zeros(0, np.int64))],
                (np.zeros(0, np.int64), np.zeros(0, np.int64)), [2], 2, 4)
    got = case.run(lambda cb, ins, _: cb.addOutputTensor(cb.aiOnnx.neg([ins[0]])))
    np.testing.assert_array_equal(got, np.zeros((4, 2), np.float32))


def test_runs_twice_and_from_onnx_file(tmp_path):
    """The builder's ModelProto saved to a file and loaded by name; two runs with
    different sequences give independent results (no stale padding)."""
    rng = np.random.default_rng(5)
    packed = [pack(rng, [4, 4, 4], (2,), np.float32, gap=0)]
    case = Case(packed, (np.int64([0, 4, 8]), np.int64([4, 4, 4])), [4], 2, 12)
    b = case.build(lambda cb, ins, _: cb.addOutputTensor(cb.aiOnnx.exp([ins[0]])))
    path = str(tmp_path / "packed.onnx")
    b.saveModelProto(path)
    node = onnx.load(path).graph.node[-1]
    assert (node.domain, node.op_type) == ("ai.graphcore", "PackedDataBlock")
    df = popart.DataFlow(1, {case.out: popart.AnchorReturnType("All")})
    s = popart.InferenceSession(path, df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    for lengths in ([4, 4, 4], [1, 3, 2]):
        case.packed = [(packed[0][0], packed[0][1], np.int64(lengths))]
        case.result_index = (np.int64([0, 4, 8]), np.int64(lengths))
        feeds = dict(case.feeds)
        for k, v in zip(list(feeds), [packed[0][0], packed[0][1], lengths, [0, 4, 8], lengths]):
            feeds[k] = np.asarray(v, feeds[k].dtype)
        anchors = s.initAnchorArrays()
        s.run(popart.PyStepIO(feeds, anchors))
        check(anchors[case.out], case.want(np.exp))


def onnx_model(max_lengths=(3,), batch=2, result_size=6, n_inputs=5, cb_inputs=((2, 3, 2),),
               cb_output=(2, 3, 2), index_type=TP.INT32, data_shape=(8, 2)):
    """A model written with onnx.helper: callback y = x + x."""
    cb_in = [oh.make_tensor_value_info(f"c{i}", TP.FLOAT, list(s)) for i, s in enumerate(cb_inputs)]
    cb = oh.make_graph([oh.make_node("Add", ["c0", "c0"], ["y"])], "callback", cb_in,
                       [oh.make_tensor_value_info("y", TP.FLOAT, list(cb_output))])
    names = [f"in{i}" for i in range(n_inputs)]
    ins = [oh.make_tensor_value_info(n, TP.FLOAT if i % 3 == 0 and i < n_inputs - 2 else index_type,
                                     list(data_shape) if i % 3 == 0 and i < n_inputs - 2 else [3])
           for i, n in enumerate(names)]
    node = oh.make_node("PackedDataBlock", names, ["out"], domain="ai.graphcore",
                        maxSequenceLengths=list(max_lengths), resultSize=result_size, callbackBatchSize=batch,
                        callback=cb)
    g = oh.make_graph([node], "g", ins, [oh.make_tensor_value_info("out", TP.FLOAT, None)])
    m = oh.make_model(g, opset_imports=[oh.make_opsetid("", 11), oh.make_opsetid("ai.graphcore", 1)])
    m.ir_version = min(m.ir_version, 10)
    return m.SerializeToString(), names


def run_onnx(proto, names, values):
    return session_run(proto, dict(zip(names, values)), "out")


DATA = np.arange(16, dtype=np.float32).reshape(8, 2)


def test_onnx_helper_model():
    proto, names = onnx_model()
    got = run_onnx(proto, names, [DATA, np.int32([5, 0, 2]), np.int32([3, 2, 1]), np.int32([3, 0, 5]),
                                  np.int32([3, 2, 1])])
    want = np.zeros((6, 2), np.float32)
    want[3:6], want[0:2], want[5:6] = 2 * DATA[5:8], 2 * DATA[0:2], 2 * DATA[2:3]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kwargs,match", [
    (dict(n_inputs=7), r"PackedDataBlock.*7 inputs, expected 3 \* 1 \+ 2 = 5"),
    (dict(n_inputs=5, max_lengths=(3, 3)), r"PackedDataBlock.*5 inputs, expected 3 \* 2 \+ 2 = 8.*\[3,3\]"),
    (dict(cb_inputs=((2, 3, 2), (2, 3, 2))), r"PackedDataBlock.*has 2 inputs, expected 1"),
    (dict(cb_inputs=((2, 4, 2),)), r"PackedDataBlock.*declared with shape \[2,4,2\] but the op passes FLOAT \[2,3,2\]"),
    (dict(cb_inputs=((3, 2, 2),), cb_output=(3, 2, 2)),
     r"PackedDataBlock.*callback input 0 is FLOAT \[3,2,2\], expected FLOAT \[2,3,2\]"),
    (dict(max_lengths=(0,)), r"PackedDataBlock.*maxSequenceLengths\[0\] is 0"),
    (dict(batch=0), r"PackedDataBlock.*callbackBatchSize' is 0"),
    (dict(result_size=-1), r"PackedDataBlock.*resultSize' is -1"),
    (dict(index_type=TP.FLOAT), r"PackedDataBlock.*input 1 \(offsets 'in1'\) is FLOAT \[3\], expected an INT32"),
])
def test_setup_errors(kwargs, match):
    proto, names = onnx_model(**kwargs)
    with pytest.raises(popart.popart_exception, match=match):
        session_run(proto, {}, "out")


def builder_case(cb_outputs, batch=2):
    b = popart.Builder()
    args = [b.addInputTensor("FLOAT", [8, 2])] + [b.addInputTensor("INT32", [3]) for _ in range(4)]
    cb = b.createSubgraphBuilder()
    x = cb.addInputTensor("FLOAT", [batch, 3, 2])
    for y in cb_outputs(cb, x):
        cb.addOutputTensor(y)
    b.addOutputTensor(b.aiGraphcore.packedDataBlock(args, [3], 6, batch, cb))
    return b


@pytest.mark.parametrize("outputs,match", [
    (lambda cb, x: [cb.aiOnnx.neg([x]), cb.aiOnnx.abs([x])], r"PackedDataBlock.*callback .* has 2 outputs, expected 1"),
    (lambda cb, x: [cb.aiOnnx.reducesum([x], axes=[1, 2], keepdims=0)],
     r"PackedDataBlock.*callback output is FLOAT \[2\], expected shape \[callbackBatchSize = 2, L, \.\.\.\]"),
    (lambda cb, x: [cb.aiOnnx.reducesum([x], axes=[0], keepdims=1)],
     r"PackedDataBlock.*callback output is FLOAT \[1,3,2\], expected shape \[callbackBatchSize = 2"),
])
def test_callback_output_errors(outputs, match):
    b = builder_case(outputs)
    with pytest.raises(popart.popart_exception, match=match):
        session_run(b.getModelProto(), {}, b.getOutputTensorIds()[0])


def test_sequence_counts_must_agree():
    proto, names = onnx_model()
    m = onnx.load_from_string(proto)
    m.graph.input[4].type.tensor_type.shape.dim[0].dim_value = 4
    with pytest.raises(popart.popart_exception,
                       match=r"PackedDataBlock.*input 4 \(resultLengths 'in4'\) has 4 entries but input 1 has 3"):
        session_run(m.SerializeToString(), {}, "out")


@pytest.mark.parametrize("offsets,lengths,res_offsets,res_lengths,match", [
    ([0, 2, 4], [3, 4, 1], [0, 3, 5], [1, 1, 1],
     r"running PackedDataBlock.*packed input 0 \('in0'\): sequence 1 has length 4, expected 0 to 3 "
     r"\(maxSequenceLengths\[0\]\)"),
    ([0, 2, 6], [3, 1, 3], [0, 3, 5], [1, 1, 1],
     r"PackedDataBlock.*packed input 0 \('in0'\): sequence 2 has offset 6 and length 3, so its rows are "
     r"outside \[0, 8\) \(the rows of the data\)"),
    ([0, -1, 6], [3, 1, 1], [0, 3, 5], [1, 1, 1], r"PackedDataBlock.*sequence 1 has offset -1 and length 1"),
    ([0, 1, 6], [3, -1, 1], [0, 3, 5], [1, 1, 1], r"PackedDataBlock.*sequence 1 has length -1"),
    ([0, 2, 4], [3, 1, 1], [0, 3, 5], [1, 4, 1],
     r"PackedDataBlock.*resultOffsets/resultLengths: sequence 1 has length 4, expected 0 to 3 "
     r"\(the callback output length\)"),
    ([0, 2, 4], [3, 1, 1], [0, 3, 5], [1, 1, 2],
     r"PackedDataBlock.*resultOffsets/resultLengths: sequence 2 has offset 5 and length 2, so its rows are "
     r"outside \[0, 6\) \(resultSize\)"),
])
def test_run_time_errors(offsets, lengths, res_offsets, res_lengths, match):
    proto, names = onnx_model()
    values = [DATA] + [np.int32(v) for v in (offsets, lengths, res_offsets, res_lengths)]
    with pytest.raises(popart.popart_exception, match=match):
        run_onnx(proto, names, values)


def test_builder_input_count_and_no_gradient():
    b = popart.Builder()
    x = b.addInputTensor("FLOAT", [4, 2])
    cb = b.createSubgraphBuilder()
    cb.addOutputTensor(cb.aiOnnx.neg([cb.addInputTensor("FLOAT", [1, 4, 2])]))
    with pytest.raises(popart.popart_exception, match="PackedDataBlock.*expects 5 to .* inputs, got 1"):
        b.aiGraphcore.packedDataBlock([x], [4], 4, 1, cb)
    rows = [r for r in popart_core._operatorTable(False) if r[1] == "PackedDataBlock"]
    assert rows and not any(r[4] for r in rows)


def test_training_through_it_is_refused():
    """No gradient: a weight feeding the op cannot be trained."""
    b = popart.Builder()
    w = b.addInitializedInputTensor(np.ones((4, 2), np.float32))
    idx = [b.aiOnnx.constant(np.int32(v)) for v in ([0, 2], [2, 2], [0, 2], [2, 2])]
    cb = b.createSubgraphBuilder()
    cb.addOutputTensor(cb.aiOnnx.neg([cb.addInputTensor("FLOAT", [2, 2, 2])]))
    y = b.aiGraphcore.packedDataBlock([w] + idx, [2], 4, 2, cb)
    loss = b.aiGraphcore.identityloss([y])
    with pytest.raises(popart.popart_exception, match="PackedDataBlock.*no gradient"):
        popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [loss]), loss=loss,
                               optimizer=popart.ConstSGD(0.1), deviceInfo=popart.DeviceManager().createCpuDevice())


def test_constant_inputs_fold():
    """All inputs constant: the op is folded at compile time, with the same values."""
    b = popart.Builder()
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    args = [b.aiOnnx.constant(data)] + [b.aiOnnx.constant(np.int64(v)) for v in ([4, 0], [2, 3], [0, 3], [1, 1])]
    cb = b.createSubgraphBuilder()
    cb.addOutputTensor(cb.aiOnnx.reducemax([cb.addInputTensor("FLOAT", [2, 3, 2])], axes=[1], keepdims=1))
    y = b.aiGraphcore.packedDataBlock(args, [3], 5, 2, cb)
    out = b.aiOnnx.identity([y])
    b.addOutputTensor(out)
    want = np.zeros((5, 2), np.float32)
    want[0] = data[4:6].max(0)
    want[3] = data[0:3].max(0)
    np.testing.assert_array_equal(session_run(b.getModelProto(), {}, out), want)


def test_huge_int64_offset_is_an_error_not_an_overflow():
    proto, names = onnx_model(index_type=TP.INT64)
    values = [DATA] + [np.int64(v) for v in ([0, 2**63 - 2, 4], [3, 3, 1], [0, 3, 5], [1, 1, 1])]
    with pytest.raises(popart.popart_exception,
                       match=r"PackedDataBlock.*sequence 1 has offset 9223372036854775806 and length 3"):
        run_onnx(proto, names, values)


def test_absent_input_and_scalar_data():
    proto, _ = onnx_model()
    m = onnx.load_from_string(proto)
    m.graph.node[0].input[2] = ""
    with pytest.raises(popart.popart_exception, match=r"PackedDataBlock.*input 2 is absent"):
        session_run(m.SerializeToString(), {}, "out")
    proto, _ = onnx_model(data_shape=())
    with pytest.raises(popart.popart_exception, match=r"PackedDataBlock.*input 0 \(data 'in0'\) is a scalar"):
        session_run(proto, {}, "out")

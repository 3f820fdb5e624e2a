"""Cast/CastLike to and from BFLOAT16 and the ONNX storage types (float8 incl.
E8M0, float4, int4, int2), bit for bit against onnx's reference implementation (ml_dtypes);
the storage types through data-movement ops, ONNX initializers (packed 4- and
2-bit data), the Builder and StepIO; and the error other ops give for them."""
import ml_dtypes
import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as nh
import pytest
from onnx.reference.ops.op_cast import cast_to

import popart

TP = onnx.TensorProto
FLOAT8 = [TP.FLOAT8E4M3FN, TP.FLOAT8E4M3FNUZ, TP.FLOAT8E5M2, TP.FLOAT8E5M2FNUZ]
SMALL_INTS = [TP.INT4, TP.UINT4, TP.INT2, TP.UINT2]
NARROW = FLOAT8 + [TP.FLOAT4E2M1] + SMALL_INTS
SHAPES = [(), (0,), (7,), (3, 5), (2, 3, 4)]


def np_type(t):
    return oh.tensor_dtype_to_np_dtype(t)


def tname(t):
    return TP.DataType.Name(t)


def bits(a):
    a = np.asarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def cast_model(x_type, shape, to, op="Cast", saturate=None, round_mode=None, opset=21):
    attrs = {} if saturate is None else {"saturate": saturate}
    if round_mode is not None:
        attrs["round_mode"] = round_mode
    inputs = [oh.make_tensor_value_info("x", x_type, list(shape))]
    if op == "Cast":
        node = oh.make_node("Cast", ["x"], ["y"], to=to, **attrs)
    else:
        inputs.append(oh.make_tensor_value_info("like", to, [1]))
        node = oh.make_node("CastLike", ["x", "like"], ["y"], **attrs)
    graph = oh.make_graph([node], "cast", inputs, [oh.make_tensor_value_info("y", to, list(shape))])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", opset)])
    model.ir_version = 10
    return model


def run(model, feeds, outputs=("y",)):
    df = popart.DataFlow(1, {o: popart.AnchorReturnType("All") for o in outputs})
    s = popart.InferenceSession(model.SerializeToString(), df, popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO(feeds, anchors))
    return anchors[outputs[0]] if len(outputs) == 1 else [anchors[o] for o in outputs]


def popart_cast(x, to, saturate=None, op="Cast"):
    x_type = oh.np_dtype_to_tensor_dtype(x.dtype)
    feeds = {"x": x}
    if op == "CastLike":
        feeds["like"] = np.zeros(1, np_type(to))
    return run(cast_model(x_type, x.shape, to, op, saturate), feeds)


def assert_same(got, want):
    """Equal bits, except that any NaN matches any NaN of a float result."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(bits(got)[~nan], bits(want)[~nan])
    else:
        np.testing.assert_array_equal(bits(got), bits(want))


@np.errstate(all="ignore")
def float_samples():
    """Every value of every small float format, the midpoints between neighbours
    (ties), values beyond each format's range, specials, and random values over
    many binades and random bit patterns."""
    vals = [np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -1e30, 1e-30, 3.4e38], np.float32)]
    for t in FLOAT8 + [TP.FLOAT4E2M1, TP.BFLOAT16]:
        nbits = 16 if t == TP.BFLOAT16 else 8
        grid = np.arange(2 ** nbits, dtype=np.uint16 if nbits == 16 else np.uint8).view(np_type(t))
        grid = np.unique(grid.astype(np.float64)[np.isfinite(grid.astype(np.float64))])
        top = grid[-1]
        vals += [grid, (grid[1:] + grid[:-1]) / 2, top * np.array([1.03, 1.0625, 1.07, 1.5])]
    rng = np.random.RandomState(0)
    vals.append((rng.choice([-1, 1], 4000) * 2.0 ** rng.uniform(-30, 20, 4000)).astype(np.float32))
    vals.append(rng.randint(0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32).view(np.float32))
    return np.concatenate(vals).astype(np.float32)


def every_value(t):
    """Every bit pattern of type t; 4- and 2-bit values in the low bits of their byte."""
    n = {TP.BFLOAT16: 2 ** 16, TP.INT4: 16, TP.UINT4: 16, TP.FLOAT4E2M1: 16, TP.INT2: 4, TP.UINT2: 4}.get(t, 256)
    return np.arange(n, dtype=np.uint16 if n > 256 else np.uint8).view(np_type(t))


def all_half():
    return np.arange(2 ** 16, dtype=np.uint16).view(np.float16)


def reference(x, to, saturate):
    with np.errstate(all="ignore"):
        return np.asarray(cast_to(x, to, saturate=bool(saturate)))


@pytest.mark.parametrize("to", FLOAT8 + [TP.FLOAT4E2M1, TP.BFLOAT16], ids=tname)
@pytest.mark.parametrize("src", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("saturate", [1, 0])
def test_float_to_small_float(to, src, saturate):
    x = all_half() if src == np.float16 else float_samples().astype(src)
    assert_same(popart_cast(x, to, saturate), reference(x, to, saturate))


@pytest.mark.parametrize("to", FLOAT8 + [TP.FLOAT4E2M1, TP.BFLOAT16], ids=tname)
def test_double_rounds_once(to):
    """Doubles just off a tie round to the nearer neighbour (ml_dtypes, going
    through float32, would see the tie): the reference is the float32 next to the tie."""
    grid = every_value(to).astype(np.float32)
    grid = np.unique(grid[np.isfinite(grid)].astype(np.float64))
    ties = ((grid[1:] + grid[:-1]) / 2).astype(np.float32)
    away, toward = np.nextafter(ties, np.copysign(np.inf, ties)), np.nextafter(ties, np.float32(0))
    t64 = ties.astype(np.float64)
    x = np.concatenate([t64 * (1 + 2.0 ** -40), t64 * (1 - 2.0 ** -40)])
    want = reference(np.concatenate([away, toward]), to, True)
    assert_same(popart_cast(x, to, 1), want)


@pytest.mark.parametrize("to", SMALL_INTS, ids=tname)
@pytest.mark.parametrize("src", [np.float32, np.float16, np.float64])
def test_float_to_small_int(to, src):
    x = np.concatenate([np.arange(-20, 20, 0.25), [np.nan, np.inf, -np.inf, -0.0, 1e6, -1e6, 3e9, 65504]])
    with np.errstate(over="ignore"):
        x = x.astype(src)
    assert_same(popart_cast(x, to), reference(x, to, True))


@pytest.mark.parametrize("to", SMALL_INTS, ids=tname)
@pytest.mark.parametrize("src", [np.int8, np.uint8, np.int32, np.int64, np.bool_])
def test_int_to_small_int(to, src):
    x = np.arange(-300, 300).astype(src) if src != np.bool_ else np.array([True, False, True])
    assert_same(popart_cast(x, to), reference(x, to, True))


@pytest.mark.parametrize("src", NARROW + [TP.BFLOAT16], ids=tname)
@pytest.mark.parametrize("to", [TP.FLOAT, TP.FLOAT16, TP.DOUBLE], ids=tname)
def test_small_to_float(src, to):
    """Every value (every bit pattern)."""
    x = every_value(src)
    assert_same(popart_cast(x, to), reference(x, to, True))


@pytest.mark.parametrize("src", SMALL_INTS, ids=tname)
@pytest.mark.parametrize("to", [TP.INT8, TP.UINT8, TP.INT32, TP.INT64, TP.BOOL], ids=tname)
def test_small_int_to_int(src, to):
    x = every_value(src)
    assert_same(popart_cast(x, to), reference(x, to, True))


@pytest.mark.parametrize("src,to", [(TP.INT4, TP.FLOAT8E4M3FN), (TP.FLOAT8E5M2, TP.FLOAT4E2M1),
                                    (TP.FLOAT8E4M3FN, TP.BFLOAT16), (TP.BFLOAT16, TP.FLOAT8E5M2FNUZ),
                                    (TP.UINT2, TP.INT4), (TP.FLOAT4E2M1, TP.FLOAT8E4M3FNUZ)], ids=str)
def test_small_to_small(src, to):
    x = every_value(src)
    # ml_dtypes casts between its types through float32, which is exact for these values
    assert_same(popart_cast(x, to), reference(x.astype(np.float32), to, True))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("to", [TP.FLOAT8E4M3FN, TP.INT4, TP.UINT2, TP.FLOAT4E2M1, TP.BFLOAT16], ids=tname)
def test_shapes_and_castlike(shape, to):
    x = np.asarray(np.random.RandomState(1).randn(*shape) * 3).astype(np.float32)
    want = reference(x, to, True)
    assert_same(popart_cast(x, to, op="CastLike"), want)
    back = popart_cast(want, TP.FLOAT)
    assert_same(back, want.astype(np.float32))


def test_large_tensor_is_split_across_threads():
    x = np.random.RandomState(2).randn(300001).astype(np.float32) * 100
    for to, sat in [(TP.FLOAT8E4M3FN, 0), (TP.BFLOAT16, 1), (TP.INT4, 1)]:
        y = popart_cast(x, to, sat)
        assert_same(y, reference(x, to, sat))
        assert_same(popart_cast(y, TP.FLOAT16), y.astype(np.float16))


def test_bfloat16_rounds_to_nearest_even():
    # 1 + 2^-8 is halfway between bfloat16 1 and 1 + 2^-7: the even one (1) wins;
    # 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: 1 + 2^-6 wins.
    x = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20, np.nan, 3.4e38], np.float32)
    y = popart_cast(x, TP.BFLOAT16).astype(np.float32)
    np.testing.assert_array_equal(y[:3], [1.0, 1 + 2 ** -6, 1 + 2 ** -7])
    assert np.isnan(y[3]) and np.isinf(y[4])


def test_saturate_table():
    """The rows of ONNX's Cast table for +-inf, values beyond the range and -0, as bytes."""
    x = np.array([np.inf, -np.inf, 1e6, -1e6, -0.0], np.float32)
    for to, sat, want in [(TP.FLOAT8E4M3FN, 1, [0x7E, 0xFE, 0x7E, 0xFE, 0x80]),
                          (TP.FLOAT8E4M3FN, 0, [0x7F, 0xFF, 0x7F, 0xFF, 0x80]),
                          (TP.FLOAT8E5M2, 1, [0x7B, 0xFB, 0x7B, 0xFB, 0x80]),
                          (TP.FLOAT8E5M2, 0, [0x7C, 0xFC, 0x7C, 0xFC, 0x80]),
                          (TP.FLOAT8E5M2FNUZ, 1, [0x7F, 0xFF, 0x7F, 0xFF, 0x00]),
                          (TP.FLOAT8E4M3FNUZ, 0, [0x80, 0x80, 0x80, 0x80, 0x00]),
                          (TP.FLOAT4E2M1, 0, [0x7, 0xF, 0x7, 0xF, 0x8])]:
        np.testing.assert_array_equal(bits(popart_cast(x, to, sat)), want, err_msg=f"{tname(to)} saturate={sat}")


@pytest.mark.parametrize("t", NARROW + [TP.BFLOAT16], ids=tname)
def test_data_movement(t):
    """Byte movers take the storage types: Identity, Reshape, Transpose, Concat, Slice, Pad."""
    x = np.arange(24, dtype=np.uint8).view(np_type(t)).reshape(2, 3, 4) if t != TP.BFLOAT16 else \
        np.arange(24, dtype=np.float32).astype(ml_dtypes.bfloat16).reshape(2, 3, 4)
    x = x.copy()
    shape = oh.make_tensor("shape", TP.INT64, [2], [4, 6])
    starts, ends = oh.make_tensor("starts", TP.INT64, [1], [1]), oh.make_tensor("ends", TP.INT64, [1], [3])
    axes = oh.make_tensor("axes", TP.INT64, [1], [2])
    pads = oh.make_tensor("pads", TP.INT64, [6], [0, 1, 0, 0, 0, 0])
    nodes = [oh.make_node("Identity", ["x"], ["i"]), oh.make_node("Reshape", ["x", "shape"], ["r"]),
             oh.make_node("Transpose", ["x"], ["t"], perm=[2, 0, 1]), oh.make_node("Concat", ["x", "x"], ["c"], axis=1),
             oh.make_node("Slice", ["x", "starts", "ends", "axes"], ["s"]), oh.make_node("Pad", ["x", "pads"], ["p"])]
    outs = ["i", "r", "t", "c", "s", "p"]
    graph = oh.make_graph(nodes, "move", [oh.make_tensor_value_info("x", t, list(x.shape))],
                          [oh.make_tensor_value_info(o, t, None) for o in outs],
                          initializer=[shape, starts, ends, axes, pads])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 21)])
    model.ir_version = 10
    got = run(model, {"x": x}, outs)
    zero = np.zeros((2, 1, 4), x.dtype)
    wants = [x, x.reshape(4, 6), x.transpose(2, 0, 1), np.concatenate([x, x], 1), x[:, :, 1:3],
             np.concatenate([zero, x], 1)]
    for g, w in zip(got, wants):
        assert_same(g, w)


@pytest.mark.parametrize("t", [TP.INT4, TP.UINT4, TP.FLOAT4E2M1, TP.INT2, TP.UINT2, TP.FLOAT8E5M2], ids=tname)
@pytest.mark.parametrize("n", [1, 5, 7, 8])
@pytest.mark.parametrize("raw", [True, False])
def test_initializer_codec(t, n, raw):
    """Initializers and Constant values in raw_data or int32_data, packed two or
    four to a byte for 4- and 2-bit types (odd sizes padded), read back as
    values; the Builder writes them back packed."""
    values = np.random.RandomState(n).randint(0, 256, n).astype(np.uint8).view(np_type(t))
    values = values.astype(np.float32).astype(np_type(t))  # canonical (masked) bytes
    init = nh.from_array(values, "w")
    if not raw:
        init.ClearField("raw_data")
        init.int32_data.extend(_int32_payload(values))
    assert_same(nh.to_array(init), values)
    const = oh.make_node("Constant", [], ["c"], value=nh.from_array(values, "c"))
    nodes = [const, oh.make_node("Cast", ["w"], ["y"], to=TP.FLOAT), oh.make_node("Cast", ["c"], ["z"], to=TP.FLOAT)]
    graph = oh.make_graph(nodes, "codec", [], [oh.make_tensor_value_info(o, TP.FLOAT, [n]) for o in "yz"],
                          initializer=[init])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 21)])
    model.ir_version = 10
    y, z = run(model, {}, ("y", "z"))
    assert_same(y, values.astype(np.float32))
    assert_same(z, values.astype(np.float32))


def _int32_payload(values):
    """int32_data as ONNX stores it: packed bytes for 4- and 2-bit types, one element each otherwise."""
    raw = nh.from_array(values).raw_data
    return list(np.frombuffer(raw, np.uint8).astype(np.int32))


@pytest.mark.parametrize("dtype", [ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.float8_e4m3fn, ml_dtypes.bfloat16,
                                   ml_dtypes.float4_e2m1fn])
def test_builder_initializer_round_trip(dtype):
    values = np.arange(-3, 4).astype(np.float32).astype(dtype)
    builder = popart.Builder()
    w = builder.addInitializedInputTensor(values, "w")
    c = builder.aiOnnx.constant(values, "c")
    y = builder.aiOnnx.cast([w], "FLOAT")
    z = builder.aiOnnx.cast([c], "FLOAT")
    builder.addOutputTensor(y)
    builder.addOutputTensor(z)
    proto = onnx.load_from_string(builder.getModelProto())
    stored = {i.name: nh.to_array(i) for i in proto.graph.initializer}
    assert_same(stored[w], values)
    got = run(proto, {}, (y, z))
    for g in got:
        assert_same(g, values.astype(np.float32))


def test_tensorinfo_and_datatype_members():
    for name in ["FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "INT4", "UINT4", "INT2", "UINT2",
                 "FLOAT4E2M1"]:
        assert getattr(popart.DataType, name).name == name
        dtype = np_type(getattr(TP, name))
        info = popart.TensorInfo(np.zeros((2, 3), dtype))
        assert info.data_type() == name and info.nbytes() == 6
        assert info.numpy_data_type() == np.dtype(dtype)
    assert popart.TensorInfo(np.zeros(3, ml_dtypes.bfloat16)).data_type() == "BFLOAT16"
    assert popart.TensorInfo(np.zeros(3, ml_dtypes.float8_e8m0fnu)).data_type() == "FLOAT8E8M0"


# ---- FLOAT8E8M0 (opset 24): powers of two, rounded by `round_mode` ----

def popart_cast_e8m0(x, saturate, round_mode, op="Cast"):
    feeds = {"x": x}
    if op == "CastLike":
        feeds["like"] = np.zeros(1, ml_dtypes.float8_e8m0fnu)
    model = cast_model(oh.np_dtype_to_tensor_dtype(x.dtype), x.shape, TP.FLOAT8E8M0, op, saturate, round_mode, 24)
    return run(model, feeds)


@pytest.mark.parametrize("src", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_float_to_e8m0(src, saturate, round_mode):
    with np.errstate(all="ignore"):  # float16 overflows to inf
        x = all_half() if src == np.float16 else float_samples().astype(src)
        x = np.concatenate([x, np.float32(2.0) ** np.arange(-149, 128), 1.5 * np.float32(2.0) ** np.arange(-126, 127),
                            np.array([3.4028235e38, 1.7014118e38, 2.5e38], np.float32)]).astype(src)
        want = nh.to_float8e8m0(x, bool(saturate), round_mode)
    assert_same(popart_cast_e8m0(x, saturate, round_mode), want)


@pytest.mark.parametrize("op", ["Cast", "CastLike"])
def test_e8m0_defaults_round_up_and_saturate(op):
    x = np.array([1.0, 1.5, 3.0, 0.75, -6.0, 3.4e38, np.inf, np.nan, 0.0], np.float32)
    got = popart_cast_e8m0(x, None, None, op)
    assert_same(got, nh.to_float8e8m0(x, True, "up"))
    np.testing.assert_array_equal(got.astype(np.float32)[:5], [1.0, 2.0, 4.0, 1.0, 8.0])


@pytest.mark.parametrize("to", [TP.FLOAT, TP.FLOAT16, TP.DOUBLE, TP.BFLOAT16, TP.FLOAT8E4M3FN], ids=tname)
def test_e8m0_to_float(to):
    x = every_value(TP.FLOAT8E8M0)
    assert_same(popart_cast(x, to), reference(x, to, 1))


def test_e8m0_round_mode_errors():
    model = cast_model(TP.FLOAT, (2,), TP.FLOAT8E8M0, round_mode="toward_zero", opset=24)
    with pytest.raises(popart.popart_exception, match="round_mode.*'toward_zero'.*'up', 'down' or 'nearest'"):
        run(model, {"x": np.ones(2, np.float32)})


@pytest.mark.parametrize("op,inputs", [("Add", 2), ("Relu", 1), ("MatMul", 2), ("ReduceSum", 1), ("Abs", 1),
                                       ("Equal", 2), ("Softmax", 1), ("Max", 2)])
@pytest.mark.parametrize("t", [TP.FLOAT8E4M3FN, TP.INT4, TP.FLOAT4E2M1], ids=tname)
def test_compute_ops_reject_storage_types(op, inputs, t):
    names = [f"x{i}" for i in range(inputs)]
    graph = oh.make_graph([oh.make_node(op, names, ["y"])], "bad",
                          [oh.make_tensor_value_info(n, t, [2, 2]) for n in names],
                          [oh.make_tensor_value_info("y", TP.UNDEFINED, None)])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 13)])
    model.ir_version = 10
    feeds = {n: np.zeros((2, 2), np_type(t)) for n in names}
    with pytest.raises(popart.popart_exception, match=rf"{op}.*{tname(t)}"):
        run(model, feeds)


def test_bitcast_needs_the_same_bit_width():
    x = np.arange(6, dtype=np.uint8).view(ml_dtypes.int4)
    y = popart_cast_bitcast(x, TP.UINT4)
    assert_same(y, x.view(ml_dtypes.uint4))
    with pytest.raises(popart.popart_exception, match="BitCast from INT4 to INT8 .*same bit width"):
        popart_cast_bitcast(x, TP.INT8)


def popart_cast_bitcast(x, to):
    graph = oh.make_graph([oh.make_node("BitCast", ["x"], ["y"], to=to)], "bitcast",
                          [oh.make_tensor_value_info("x", oh.np_dtype_to_tensor_dtype(x.dtype), list(x.shape))],
                          [oh.make_tensor_value_info("y", to, list(x.shape))])
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 26)])
    model.ir_version = 10
    return run(model, {"x": x})


def test_only_cast_and_data_movement_ops_take_storage_types():
    import popart_core
    movers = {"BitCast", "Cast", "CastLike", "Concat", "DepthToSpace", "Expand", "Flatten", "Gather",
              "GatherElements", "GatherND", "Identity", "Pad", "Reshape", "ReverseSequence", "Scatter",
              "ScatterElements", "ScatterND", "Shape", "Size", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile",
              "Transpose", "Unsqueeze"}
    taking = {t for d, t, v, types, g in popart_core._operatorTable(False) if d == "ai.onnx" and "INT4" in types}
    assert taking == movers

"""Inputs that used to kill the process (SIGFPE, wrapped sizes, deep alias chains) now give popart errors."""
import threading
import time

import numpy as np
import onnx
import onnx.helper as oh
import pytest

import popart
from _reliability_models import model, run, session, vinfo


@pytest.mark.parametrize("dtype", [onnx.TensorProto.STRING, onnx.TensorProto.UNDEFINED])
def test_string_and_undefined_tensors_raise(dtype):
    t = onnx.TensorProto()
    t.name, t.data_type = "w", dtype
    t.dims.extend([2])
    if dtype == onnx.TensorProto.STRING:
        t.string_data.extend([b"a", b"b"])
    proto = model([oh.make_node("Identity", ["w"], ["y"])], [], [vinfo("y")], [t])
    with pytest.raises(popart.popart_exception):
        session(proto, ["y"])


def test_string_constant_node_raises():
    t = oh.make_tensor("v", onnx.TensorProto.STRING, [1], [b"x"])
    proto = model([oh.make_node("Constant", [], ["y"], value=t)], [], [vinfo("y")])
    with pytest.raises(popart.popart_exception):
        session(proto, ["y"])


def test_overflowing_initializer_dims_raise():
    t = onnx.TensorProto()
    t.name, t.data_type = "w", onnx.TensorProto.FLOAT
    t.dims.extend([2**62, 4])
    idx = oh.make_tensor("i", onnx.TensorProto.INT64, [1], [5])
    proto = model([oh.make_node("Gather", ["w", "i"], ["y"])], [], [vinfo("y", shape=(1, 4))], [t, idx])
    with pytest.raises(popart.popart_exception, match="overflow"):
        session(proto, ["y"])


@pytest.mark.parametrize("shape", [[2**62, 4], [2**31, 2**31, 4], [2**61, 2]])
def test_tensor_info_from_python_overflow(shape):
    with pytest.raises(popart.popart_exception, match="overflow"):
        popart.TensorInfo("FLOAT", shape)


def test_tensor_info_largest_valid_shape():
    assert popart.TensorInfo("INT8", [2**62]).nelms() == 2**62


@pytest.mark.parametrize("op,extra", [
    ("ConstantOfShape", None), ("Expand", "x"), ("Tile", "x")])
def test_ops_with_overflowing_output_sizes_raise(op, extra):
    big = oh.make_tensor("s", onnx.TensorProto.INT64, [3], [2**40, 2**40, 2**40])
    x = oh.make_tensor("x", onnx.TensorProto.FLOAT, [1, 1, 1], [1.0])
    inputs = ["s"] if extra is None else [extra, "s"]
    proto = model([oh.make_node(op, inputs, ["y"])], [], [vinfo("y", shape=())], [big, x])
    with pytest.raises(popart.popart_exception, match="overflow"):
        session(proto, ["y"])


def test_oversized_constant_of_shape_is_a_memory_error():
    # 2**50 floats fit int64 but no machine: a popart memory allocation error, not MemoryError/OOM kill
    big = oh.make_tensor("s", onnx.TensorProto.INT64, [1], [2**50])
    x = vinfo("x", shape=(1,))
    proto = model([oh.make_node("ConstantOfShape", ["s"], ["c"]), oh.make_node("Add", ["c", "x"], ["y"])],
                  [x], [vinfo("y", shape=(2**50,))], [big])
    with pytest.raises(popart.popart_memory_allocation_error):
        run(proto, {"x": np.ones(1, np.float32)}, ["y"])


@pytest.mark.parametrize("elements", [2**40, 2**50])
def test_constant_larger_than_the_host_is_refused_before_allocating(elements):
    # Checked against the host's memory (RAM + swap) before any allocation: under AddressSanitizer a failed `new`
    # aborts the process (scripts/sanitize.sh died here), and a lazy allocation can succeed and be OOM-killed on
    # first write. The error is the host-out-of-memory one a failed allocation gives, and the process carries on.
    big = oh.make_tensor("s", onnx.TensorProto.INT64, [1], [elements])
    proto = model([oh.make_node("ConstantOfShape", ["s"], ["c"]), oh.make_node("Add", ["c", "x"], ["y"])],
                  [vinfo("x", shape=(1,))], [vinfo("y", shape=(elements,))], [big])
    with pytest.raises(popart.popart_host_out_of_memory_error) as e:
        run(proto, {"x": np.ones(1, np.float32)}, ["y"])
    assert isinstance(e.value, popart.popart_memory_allocation_error)
    assert e.value.recoveryAction == popart.RecoveryAction.IPU_RESET
    small = run(model([oh.make_node("Relu", ["x"], ["y"])], [vinfo("x", shape=(2,))], [vinfo("y", shape=(2,))]),
                {"x": np.array([-1, 2], np.float32)}, ["y"])
    np.testing.assert_array_equal(small["y"], [0, 2])


def _relu_chain(n):
    nodes = [oh.make_node("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(n)]
    return model(nodes, [vinfo("t0", shape=(4,))], [vinfo(f"t{n}", shape=(4,))])


def _compile_seconds(n):
    proto = _relu_chain(n)
    start = time.perf_counter()
    res = run(proto, {"t0": np.array([-1, 2, -3, 4], np.float32)}, [f"t{n}"])
    np.testing.assert_array_equal(res[f"t{n}"], [0, 2, 0, 4])
    return time.perf_counter() - start


def test_long_inplace_chain_compiles_in_linear_time():
    # quadratic alias resolution made 4x the nodes cost 16x the time; linear costs about 4x
    small, big = _compile_seconds(10_000), _compile_seconds(40_000)
    assert big < 9 * small + 0.5, (small, big)


def test_100k_inplace_chain_compiles():
    assert _compile_seconds(100_000) < 20  # about 5 s on an idle machine


def test_long_inplace_chain_on_a_small_thread_stack():
    n = 5_000
    proto = _relu_chain(n)
    out, errors = {}, []

    def work():
        try:
            out.update(run(proto, {"t0": np.array([-1, 2, -3, 4], np.float32)}, [f"t{n}"]))
        except Exception as e:  # reported to the main thread
            errors.append(e)

    old = threading.stack_size(256 * 1024)
    try:
        th = threading.Thread(target=work)
        th.start()
        th.join()
    finally:
        threading.stack_size(old)
    assert not errors, errors
    np.testing.assert_array_equal(out[f"t{n}"], [0, 2, 0, 4])

"""InferenceSession methods: tensor queries, weights (to/from host, read/write,
modelToHost, resetHostWeights), RNG state, reports, DOT/IR dumps, InputShapeInfo
and the errors for misuse."""
import json

import numpy as np
import onnx
import onnx.helper as oh
import onnx.numpy_helper as onh
import pytest

import popart
from _session_models import F32, make_model, relu, relu_add_model, relu_model, run, session


@pytest.fixture
def x():
    return np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)


def forward(x, w):
    return relu(relu(x) + w)


# ---- tensor queries ----

def test_tensor_ids_and_info():
    model, _ = relu_add_model()
    s = session(model, ["z"])
    assert {"x", "w", "r", "y", "z"} <= set(s.getTensorIds())
    assert s.getAllTensorIds() == set(s.getTensorIds())
    info = s.getInfo("y")
    assert info.shape() == [2, 3] and info.data_type_lcase() == "float"
    assert s.hasInfo("y") and not s.hasInfo("nothere")
    with pytest.raises(popart.popart_exception, match="no tensor 'nothere'"):
        s.getInfo("nothere")


def test_properties():
    model, _ = relu_add_model()
    s = session(model, ["z"], bps=3)
    assert s.dataFlow.batchesPerStep() == 3
    assert s.replicationFactor == 1 and s.accumulationFactor == 1
    assert s.getDevice().type == popart.DeviceType.Cpu


# ---- weights ----

def test_write_weights_then_weights_from_host(x):
    model, w = relu_add_model()
    s = session(model, ["z"])
    np.testing.assert_allclose(run(s, {"x": x})["z"], forward(x, w), rtol=1e-6)
    w2 = np.full((2, 3), -0.5, np.float32)
    s.writeWeights(popart.PyWeightsIO({"w": w2}))
    # The device keeps the old weights until weightsFromHost.
    np.testing.assert_allclose(run(s, {"x": x})["z"], forward(x, w), rtol=1e-6)
    s.weightsFromHost()
    np.testing.assert_allclose(run(s, {"x": x})["z"], forward(x, w2), rtol=1e-6)


def test_read_weights_after_weights_to_host():
    model, w = relu_add_model()
    s = session(model, ["z"])
    s.writeWeights(popart.PyWeightsIO({"w": np.ones((2, 3), np.float32)}))
    s.weightsToHost()  # device (still w) -> host
    buf = np.zeros((2, 3), np.float32)
    s.readWeights(popart.PyWeightsIO({"w": buf}))
    np.testing.assert_array_equal(buf, w)


def test_weights_io_errors():
    model, _ = relu_add_model()
    s = session(model, ["z"])
    with pytest.raises(popart.popart_exception, match="'w' has 3 elements, expected 6"):
        s.readWeights(popart.PyWeightsIO({"w": np.zeros(3, np.float32)}))
    with pytest.raises(popart.popart_exception, match="'w' has type FLOAT16, expected FLOAT"):
        s.writeWeights(popart.PyWeightsIO({"w": np.zeros((2, 3), np.float16)}))


def test_model_to_host_writes_current_weights(tmp_path, x):
    model, w = relu_add_model()
    s = session(model, ["z"])
    path = str(tmp_path / "model.onnx")
    s.modelToHost(path)
    saved = {t.name: onh.to_array(t) for t in onnx.load(path).graph.initializer}
    np.testing.assert_array_equal(saved["w"], w)
    w2 = (w * 3 - 1).astype(np.float32)
    s.writeWeights(popart.PyWeightsIO({"w": w2}))
    s.weightsFromHost()
    s.modelToHost(path)
    reloaded = onnx.load(path)
    onnx.checker.check_model(reloaded)
    saved = {t.name: onh.to_array(t) for t in reloaded.graph.initializer}
    np.testing.assert_array_equal(saved["w"], w2)
    # The saved model runs and gives the same result.
    s2 = session(path, ["z"])
    np.testing.assert_allclose(run(s2, {"x": x})["z"], forward(x, w2), rtol=1e-6)


def test_model_to_host_bad_path():
    model, _ = relu_add_model()
    s = session(model, ["z"])
    with pytest.raises(popart.popart_exception, match="cannot write"):
        s.modelToHost("/nonexistent-dir/x/model.onnx")


@pytest.mark.parametrize("from_path", [False, True])
def test_reset_host_weights(tmp_path, x, from_path):
    model, w = relu_add_model()
    s = session(model, ["z"])
    w2 = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    other, _ = relu_add_model(weight=w2)
    if from_path:
        (tmp_path / "w2.onnx").write_bytes(other)
        other = str(tmp_path / "w2.onnx")
    s.resetHostWeights(other)
    s.weightsFromHost()
    np.testing.assert_allclose(run(s, {"x": x})["z"], forward(x, w2), rtol=1e-6)


def test_reset_host_weights_mismatch():
    model, _ = relu_add_model()
    s = session(model, ["z"])
    wrong_shape, _ = relu_add_model(shape=(3, 2))
    with pytest.raises(popart.popart_exception, match="weight 'w' is .*3,2.* in the model"):
        s.resetHostWeights(wrong_shape)


def test_reset_host_weights_ignores_extra_weights_when_asked(x):
    model, w = relu_add_model()
    s = session(model, ["z"])
    w2 = np.full((2, 3), 2.0, np.float32)
    nodes = [oh.make_node("Relu", ["x"], ["r"]), oh.make_node("Add", ["r", "w"], ["y"]),
             oh.make_node("Relu", ["y"], ["z"]), oh.make_node("Relu", ["v"], ["vr"])]
    extra = make_model(nodes, [("x", F32, [2, 3])], [("z", F32, [2, 3]), ("vr", F32, [4])],
                       [("w", w2), ("v", np.ones(4, np.float32))])
    with pytest.raises(popart.popart_exception, match="'v'.*ignoreWeightsInModelWithoutCorrespondingHostWeight"):
        s.resetHostWeights(extra)
    s.resetHostWeights(extra, ignoreWeightsInModelWithoutCorrespondingHostWeight=True)
    s.weightsFromHost()
    np.testing.assert_allclose(run(s, {"x": x})["z"], forward(x, w2), rtol=1e-6)


# ---- RNG ----

def test_random_seed_and_rng_state_round_trip():
    s0 = session(relu_model(), ["out"])
    s0.setRandomSeed(1234)
    assert s0.getRandomSeed() == 1234
    state = s0.getRNGState()
    assert isinstance(state, list) and state
    s1 = session(relu_model(), ["out"])
    s1.setRandomSeed(s0.getRandomSeed())
    s1.setRNGState(state)
    assert s1.getRNGState() == state and s1.getRandomSeed() == 1234
    s1.setRandomSeed(7)
    assert s1.getRNGState() != state
    with pytest.raises(popart.popart_exception, match="RNG state"):
        s1.setRNGState([1])


# ---- reports and dumps ----

def test_summary_report_has_ops_and_memory(x):
    model, _ = relu_add_model()
    s = session(model, ["z"])
    run(s, {"x": x})
    report = s.getSummaryReport()
    assert "memory" in report
    assert "Add" in report and "Relu" in report
    assert "add0" in report
    by_type = report.split("time by op type:")[1].splitlines()
    assert any(line.split()[0].startswith("Relu") and int(line.split()[1]) >= 1 for line in by_type[2:] if line.strip())


def test_serialized_graph_is_json():
    model, _ = relu_add_model()
    s = session(model, ["z"])
    graph = json.loads(s.getSerializedGraph())
    ops = graph["maingraph"]
    assert any(op["type"].startswith("Add") for op in ops)  # Add or its in-place variant
    assert any(t["id"] == "w" for op in ops for t in op["inputs"])


def test_cycle_count_after_run(x):
    model, _ = relu_add_model()
    s = session(model, ["z"])
    assert s.getCycleCount() == 0
    run(s, {"x": x})
    assert s.getCycleCount() > 0


def test_dot_checks_option(tmp_path):
    opts = popart.SessionOptions()
    opts.dotChecks = {"FWD0", "FINAL"}
    opts.logDir = str(tmp_path)
    model, _ = relu_add_model()
    session(model, ["z"], options=opts, prepare=False)
    for name in ("FWD0", "FINAL"):
        text = (tmp_path / f"{name}.dot").read_text()
        assert text.startswith("digraph") and "Add" in text
    assert not (tmp_path / "PREALIAS.dot").exists()


def test_dot_checks_env(tmp_path, monkeypatch):
    monkeypatch.setenv("POPART_DOT_CHECKS", "FWD0:FINAL")
    opts = popart.SessionOptions()
    opts.logDir = str(tmp_path)
    opts.dotOpNames = True
    model, _ = relu_add_model()
    session(model, ["z"], options=opts, prepare=False)
    assert "add0" in (tmp_path / "FWD0.dot").read_text()
    assert (tmp_path / "FINAL.dot").exists()


def test_ir_dump_env(tmp_path, monkeypatch):
    path = tmp_path / "ir.json"
    monkeypatch.setenv("POPART_IR_DUMP", str(path))
    model, _ = relu_add_model()
    session(model, ["z"], prepare=False)
    assert "maingraph" in json.loads(path.read_text())


# ---- InputShapeInfo ----

@pytest.mark.parametrize("shape", [None, ["batch", 3]])
def test_input_shape_info_supplies_missing_shapes(shape, x):
    model = make_model([oh.make_node("Relu", ["x"], ["out"])], [("x", F32, shape)], [("out", F32, None)])
    info = popart.InputShapeInfo()
    info.add("x", popart.TensorInfo("FLOAT", [2, 3]))
    assert info.has("x") and not info.has("y")
    assert info.get("x").shape() == [2, 3]
    s = session(model, ["out"], input_shape_info=info)
    assert s.getInfo("out").shape() == [2, 3]
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x))


@pytest.mark.parametrize("shape,match", [(None, "'x' has no shape"), (["batch", 3], "'x'.*'batch'")])
def test_missing_input_shape_names_the_tensor(shape, match):
    model = make_model([oh.make_node("Relu", ["x"], ["out"])], [("x", F32, shape)], [("out", F32, None)])
    with pytest.raises(popart.popart_exception, match=match):
        session(model, ["out"], prepare=False)


def test_input_shape_info_get_unknown():
    with pytest.raises(popart.popart_exception, match="'q'"):
        popart.InputShapeInfo().get("q")


# ---- misuse ----

@pytest.mark.parametrize("model", [b"\x08\x07\x12\xff\xff\xff\xff\x0f", b"definitely not onnx", b""])
def test_malformed_model_raises(model):
    with pytest.raises(popart.popart_exception):
        session(model, ["out"], prepare=False)


def test_run_before_prepare_device(x):
    s = session(relu_model(), ["out"], prepare=False)
    with pytest.raises(popart.popart_exception, match="before prepareDevice"):
        s.run(popart.PyStepIO({"x": x}, s.initAnchorArrays()))
    with pytest.raises(popart.popart_exception, match="prepareDevice"):
        s.weightsFromHost()


def test_prepare_device_twice():
    s = session(relu_model(), ["out"])
    with pytest.raises(popart.popart_exception, match="already"):
        s.prepareDevice()


def test_prepare_without_loading_engine(x):
    s = session(relu_model(), ["out"], prepare=False)
    s.prepareDevice(loadEngine=False)
    s.loadEngineAndConnectStreams()
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x))


def test_named_program_handles(x):
    s = session(relu_model(), ["out"])
    out = s.initAnchorArrays()
    s.run("main", popart.PyStepIO({"x": x}, out), "step-1")
    np.testing.assert_array_equal(out["out"], relu(x))
    with pytest.raises(popart.popart_exception, match="unknown program handle 'other'"):
        s.run("other", popart.PyStepIO({"x": x}, out))


def test_session_needs_a_device():
    with pytest.raises(Exception):
        popart.InferenceSession(relu_model(), popart.DataFlow(1, ["out"]), None)


def test_model_from_file(tmp_path, x):
    path = tmp_path / "relu.onnx"
    path.write_bytes(relu_model())
    s = session(str(path), ["out"])
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x))


def test_missing_model_file_is_named():
    with pytest.raises(popart.popart_exception, match="model file 'missing.onnx' does not exist"):
        session("missing.onnx", ["out"], prepare=False)


def test_step_io_input_that_is_no_model_input_is_named(x):
    s = session(relu_model(), ["out"])
    out = s.initAnchorArrays()
    with pytest.raises(popart.popart_exception, match=r"'typo', which is no input of the model \(its inputs: \[x\]\)"):
        s.run(popart.PyStepIO({"x": x, "typo": x}, out))
    s.run(popart.PyStepIO({"x": x}, out))
    np.testing.assert_array_equal(out["out"], relu(x))
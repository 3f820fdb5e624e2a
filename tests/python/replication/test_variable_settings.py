"""VariableSettings: one value of a weight per group of replicas (CommGroup or
stride and group size), host shapes [groups, *shape], readWeights/writeWeights
per group or per replica (VariableRetrievalMode), and training in which each
group combines only its own replicas' gradients, checked against numpy."""
import numpy as np
import onnx
import pytest

import popart
from replication._grouped_models import (GROUPINGS, IN, MODE, OUT, R, group_of, grouped_problem, replicated,
                                        train_numpy, train_popart)

CG = popart.CommGroup
CGT = popart.CommGroupType

def test_settings_queries_follow_the_groups():
    for name, (make, groups) in GROUPINGS.items():
        vs = make(MODE.OnePerGroup)
        vs.verify()
        assert vs.groups(R) == groups, name
        assert vs.getGroupCount(R) == len(groups)
        assert vs.getRealGroupSize(R) == len(groups[0])
        assert [vs.getGroupRepresentative(g) for g in range(len(groups))] == [m[0] for m in groups]
        rg = vs.getReplicaGrouping(R)
        assert [[rg.getReplicaAt(g, i) for i in range(rg.getGroupSize())] for g in range(rg.getNumGroups())] == groups
        assert vs.numReplicasReturningVariable(R) == len(groups)
        assert make(MODE.AllReplicas).numReplicasReturningVariable(R) == R
        host = [len(groups), 3, 5] if len(groups) > 1 else [3, 5]
        assert vs.shapeOnHost([3, 5], R) == host
        assert vs.shapeOnReplica(host, R, "w") == [3, 5]
    c = popart.VariableSettings(CG(CGT.Consecutive, 2), MODE.OnePerGroup)
    assert c.isUsingCommGroup() and c.getCommGroupType() == CGT.Consecutive
    assert c.getGroupSize() == 2 and c.getStride() == 1
    s = popart.VariableSettings(2, 2)
    assert not s.isUsingCommGroup() and s.getStride() == 2 and s.getGroupSize() == 2
    assert s.getCommGroupType() == CGT.Orthogonal
    assert popart.VariableSettings().getGroupCount(R) == 1 and popart.VariableSettings().groups(R) == [[0, 1, 2, 3]]
    with pytest.raises(popart.popart_exception, match="Orthogonal"):
        popart.VariableSettings(CG(CGT.Orthogonal, 2)).getStride()
    with pytest.raises(popart.popart_exception, match="'w'.*leading dimension of 2"):
        c.shapeOnReplica([3, 5], R, "w")
    with pytest.raises(popart.popart_exception, match="replicaGroupSize"):
        popart.VariableSettings(CG(CGT.Consecutive, 0)).verify()
    with pytest.raises(popart.popart_exception, match="positive"):
        popart.VariableSettings(0, 2).verify()
    with pytest.raises(popart.popart_exception):
        c.groups(3)  # groups of 2 do not tile 3 replicas


def add_model(settings, init):
    """y = x + w with w one value per group; returns (proto, w, y)."""
    b = popart.Builder()
    w = b.addInitializedInputTensor(init, settings, "w")
    x = b.addInputTensor(popart.TensorInfo(init.dtype, [3]), "x")
    y = b.aiOnnx.add([x, w])
    return b.getModelProto(), w, y


def inference(settings, init, replicas=R):
    proto, w, y = add_model(settings, init)
    s = popart.InferenceSession(fnModel=proto, dataFlow=popart.DataFlow(1, [y]), userOptions=replicated(replicas),
                                deviceInfo=popart.DeviceManager().createCpuDevice())
    s.prepareDevice()
    return s, w, y


def run(s, y, x):
    anchors = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, anchors))
    return anchors[y]


@pytest.mark.parametrize("name", list(GROUPINGS))
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_each_replica_uses_its_groups_value(name, dtype):
    make, groups = GROUPINGS[name]
    n = len(groups)
    init = (np.arange(n * 3).reshape(n, 3) * 10).astype(dtype)
    s, w, y = inference(make(MODE.OnePerGroup), init if n > 1 else init[0])
    x = np.random.RandomState(0).standard_normal((R, 3)).astype(dtype)
    got = run(s, y, x)
    assert got.dtype == dtype and got.shape == (R, 3)
    g = group_of(groups)
    np.testing.assert_array_equal(got, np.stack([x[r] + init[g[r]] for r in range(R)]))
    assert s.getInfo(w).shape() == [3]


@pytest.mark.parametrize("name", ["consecutive2", "orthogonal2", "stride2_size2"])
def test_read_and_write_weights_per_group_and_per_replica(name):
    make, groups = GROUPINGS[name]
    g = group_of(groups)
    init = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    for mode in (MODE.OnePerGroup, MODE.AllReplicas):
        s, w, y = inference(make(mode), init)
        s.weightsToHost()
        n = 2 if mode == MODE.OnePerGroup else R
        out = {w: np.zeros((n, 3), np.float32)}
        s.readWeights(popart.PyWeightsIO(out))
        want = init if mode == MODE.OnePerGroup else np.stack([init[g[r]] for r in range(R)])
        np.testing.assert_array_equal(out[w], want)
        # One value per group written, sent to the device and used.
        new = np.array([[-1, -2, -3], [7, 8, 9]], np.float32)
        s.writeWeights(popart.PyWeightsIO({w: new}))
        s.weightsFromHost()
        x = np.zeros((R, 3), np.float32)
        np.testing.assert_array_equal(run(s, y, x), np.stack([new[g[r]] for r in range(R)]))
        with pytest.raises(popart.popart_exception, match="'w'"):
            s.readWeights(popart.PyWeightsIO({w: np.zeros((3,), np.float32)}))
        with pytest.raises(popart.popart_exception, match="'w'"):
            s.writeWeights(popart.PyWeightsIO({w: np.zeros((3, 3), np.float32)}))


def test_all_replicas_mode_writes_and_returns_one_value_per_replica():
    make, groups = GROUPINGS["consecutive2"]
    s, w, y = inference(make(MODE.AllReplicas), np.zeros((2, 3), np.float32))
    per_replica = np.arange(R * 3, dtype=np.float32).reshape(R, 3)
    s.writeWeights(popart.PyWeightsIO({w: per_replica}))
    s.weightsFromHost()
    np.testing.assert_array_equal(run(s, y, np.zeros((R, 3), np.float32)), per_replica)
    # broadcastWeights copies within each group, from the member at the root's place in its group.
    s.broadcastWeights(0)
    s.weightsToHost()
    out = {w: np.zeros((R, 3), np.float32)}
    s.readWeights(popart.PyWeightsIO(out))
    np.testing.assert_array_equal(out[w], per_replica[[0, 0, 2, 2]])


def test_bad_settings_are_clear_errors():
    with pytest.raises(popart.popart_exception, match="'w'.*does not fit the session's 3 replicas"):
        inference(GROUPINGS["consecutive2"][0](MODE.OnePerGroup), np.zeros((2, 3), np.float32), replicas=3)
    with pytest.raises(popart.popart_exception, match="'w'.*leading dimension of 2"):
        inference(GROUPINGS["consecutive2"][0](MODE.OnePerGroup), np.zeros((3,), np.float32))
    with pytest.raises(popart.popart_exception, match="'w'.*AllReduceReplicas is not supported"):
        inference(GROUPINGS["consecutive2"][0](MODE.AllReduceReplicas), np.zeros((2, 3), np.float32))
    with pytest.raises(popart.popart_exception, match="positive"):
        popart.Builder().addInitializedInputTensor(np.zeros(3, np.float32), popart.VariableSettings(2, 0))
    with pytest.raises(popart.popart_exception, match="floating-point"):
        b = popart.Builder()
        w = b.addInitializedInputTensor(np.zeros((2, 3), np.int32), GROUPINGS["consecutive2"][0](MODE.OnePerGroup))
        y = b.aiOnnx.add([b.addInputTensor(popart.TensorInfo("INT32", [3]), "x"), w])
        popart.InferenceSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(1, [y]),
                                userOptions=replicated(), deviceInfo=popart.DeviceManager().createCpuDevice())


def test_two_argument_call_keeps_the_settings():
    """addInitializedInputTensor(initVal, variableSettings), as PopART code writes it."""
    b = popart.Builder()
    w = b.addInitializedInputTensor(np.zeros((2, 3), np.float32), GROUPINGS["consecutive2"][0](MODE.OnePerGroup))
    props = {p.key: p.value for p in onnx.load_from_string(b.getModelProto()).metadata_props}
    assert props["__variable_settings/" + w] == "1,2,0"


@pytest.mark.parametrize("name", ["consecutive2", "orthogonal2", "ungrouped", "stride2_size2"])
@pytest.mark.parametrize("accum", [1, 2])
def test_training_reduces_gradients_within_each_group(name, accum, tmp_path):
    make, groups = GROUPINGS[name]
    n = len(groups)
    w0, b0, data = grouped_problem(n, accum)
    s, w, b = train_popart(make(MODE.OnePerGroup), w0, b0, data, accum)
    want_w, want_b = train_numpy(groups, w0, b0, data, accum)
    np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b, want_b, rtol=1e-5, atol=1e-6)
    assert np.abs(w - w0).max() > 1e-2  # it trained
    # The model written back holds one value per group, and its momentum per group.
    path = str(tmp_path / "m.onnx")
    s.modelToHost(path)
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}
    np.testing.assert_array_equal(inits["W"], w)
    assert inits["Accl___W"].shape == (n, IN, OUT)
    # An executable keeps one value per group too.
    exe = str(tmp_path / "exe.bin")
    s.saveExecutable(exe)
    s.writeWeights(popart.PyWeightsIO({"W": np.zeros_like(w)}))
    s.loadExecutable(exe)
    s.weightsFromHost()
    s.weightsToHost()
    back = {"W": np.zeros_like(w)}
    s.readWeights(popart.PyWeightsIO(back))
    np.testing.assert_array_equal(back["W"], w)

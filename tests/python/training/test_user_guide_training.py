"""The training examples of the PopART user guide (chapters 2, 4 and 5, and the
replication options of 6.2), as printed.

The guide's lines run unchanged; what it leaves out (a model file, a session
to update, input data, a Horovod installation) is set up around them, and each
such piece of glue says so. Every test then checks the numbers: the weights
after training equal a torch re-implementation of the same model and
optimizer, losses go down, and anchors have the shapes the guide describes.
Each test runs in its own temporary directory."""
import sys
import types

import numpy as np
import pytest

import popart

import torch

RTOL, ATOL = 1e-5, 1e-6  # float32


# The guide's AlexNet comes from torchvision, which does not load beside the main environment's
# torch 2.13 CPU build: scripts/test.sh runs these tests in build/tvvenv (torch 2.14.1 +
# torchvision 0.29.1, scripts/torchvision_tests.sh); elsewhere they skip with this reason.
TORCHVISION_OPTIONAL = ("torchvision is not installed in this environment (it needs another torch than 2.13 CPU); "
                        "scripts/torchvision_tests.sh runs this test in build/tvvenv")


@pytest.fixture(autouse=True)
def in_tmp_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def read_weights(session, names):
    session.weightsToHost()
    out = {n: np.zeros(session.getInfo(n).shape(), np.float32) for n in names}
    session.readWeights(popart.PyWeightsIO(out))
    return out


def assert_weights(session, want):
    got = read_weights(session, list(want))
    for name, w in want.items():
        np.testing.assert_allclose(got[name], w.detach().numpy(), rtol=RTOL, atol=ATOL, err_msg=name)


# ---- chapter 2: a TrainingSession from an imported model ----

def test_ch2_training_session_torchvision_alexnet():
    """Section 2.1 exactly as printed: needs torchvision and a working torch.onnx.export."""
    torchvision = pytest.importorskip("torchvision", reason=TORCHVISION_OPTIONAL)
    import torch.onnx

    input_ = torch.FloatTensor(torch.randn(4, 3, 224, 224))
    model = torchvision.models.alexnet(pretrained=False)

    output_name = "output"

    torch.onnx.export(model, input_, "alexnet.onnx", output_names=[output_name])

    # Create a runtime environment
    anchors = {output_name: popart.AnchorReturnType("All")}
    dataFlow = popart.DataFlow(100, anchors)

    # Append an Nll loss operation to the model
    builder = popart.Builder("alexnet.onnx")
    labels = builder.addInputTensor("INT32", [4])
    nlll = builder.aiGraphcore.nllloss([output_name, labels])

    optimizer = popart.ConstSGD(0.001)

    # Run session on CPU
    device = popart.DeviceManager().createCpuDevice()
    session = popart.TrainingSession(builder.getModelProto(),
                                    deviceInfo=device,
                                    dataFlow=dataFlow,
                                    loss=nlll,
                                    optimizer=optimizer)

    assert session.initAnchorArrays()[output_name].shape == (100, 4, 1000)


def save_small_classifier(path, rng):
    """Stands in for the guide's exported AlexNet: an ONNX file as torch.onnx.export
    writes it (input 'input.1' [4, 3, 4, 4], graph output "output" [4, 6]) with
    output = softmax(relu(flatten(x) @ W1 + b1) @ W2 + b2), so that the guide's
    Nll loss reads probabilities. Returns the initial weights."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    init = {"W1": rng.normal(0, 0.3, (48, 10)), "b1": rng.normal(0, 0.1, 10),
            "W2": rng.normal(0, 0.3, (10, 6)), "b2": rng.normal(0, 0.1, 6)}
    init = {k: v.astype(np.float32) for k, v in init.items()}
    nodes = [helper.make_node("Flatten", ["input.1"], ["flat"], axis=1),
             helper.make_node("MatMul", ["flat", "W1"], ["mm1"]),
             helper.make_node("Add", ["mm1", "b1"], ["h1"]),
             helper.make_node("Relu", ["h1"], ["r1"]),
             helper.make_node("MatMul", ["r1", "W2"], ["mm2"]),
             helper.make_node("Add", ["mm2", "b2"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["output"], axis=1)]
    graph = helper.make_graph(
        nodes, "classifier",
        [helper.make_tensor_value_info("input.1", TensorProto.FLOAT, [4, 3, 4, 4])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [4, 6])],
        [numpy_helper.from_array(v, k) for k, v in init.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]), path)
    return init


def classifier_torch(init):
    params = {k: torch.tensor(v, requires_grad=True) for k, v in init.items()}

    def forward(x):
        h = torch.relu(x.reshape(x.shape[0], -1) @ params["W1"] + params["b1"])
        return torch.softmax(h @ params["W2"] + params["b2"], dim=1)
    return params, forward


def test_ch2_training_session_from_a_model_file():
    """Section 2.1 from `anchors = ...` on, unchanged, on a model file written
    first (glue: torchvision is not needed for the PopART part), then trained
    for one step of 100 batches (glue: data, prepareDevice, run)."""
    rng = np.random.default_rng(0)
    init = save_small_classifier("alexnet.onnx", rng)
    output_name = "output"

    # Create a runtime environment
    anchors = {output_name: popart.AnchorReturnType("All")}
    dataFlow = popart.DataFlow(100, anchors)

    # Append an Nll loss operation to the model
    builder = popart.Builder("alexnet.onnx")
    labels = builder.addInputTensor("INT32", [4])
    nlll = builder.aiGraphcore.nllloss([output_name, labels])

    optimizer = popart.ConstSGD(0.001)

    # Run session on CPU
    device = popart.DeviceManager().createCpuDevice()
    session = popart.TrainingSession(builder.getModelProto(),
                                    deviceInfo=device,
                                    dataFlow=dataFlow,
                                    loss=nlll,
                                    optimizer=optimizer)

    # Glue: one batch of 4 images, fed 100 times (batchesPerStep = 100).
    x = rng.normal(size=(4, 3, 4, 4)).astype(np.float32)
    y = np.array([0, 3, 5, 1], np.int32)
    session.prepareDevice()
    session.weightsFromHost()
    anchors = session.initAnchorArrays()
    assert anchors[output_name].shape == (100, 4, 6)
    session.run(popart.PyStepIO({"input.1": np.repeat(x[None], 100, 0),
                                 labels: np.repeat(y[None], 100, 0)}, anchors))

    nll = -np.log(anchors[output_name][:, np.arange(4), y]).mean(axis=1)
    assert np.all(np.diff(nll) < 0), "the loss on a repeated batch must fall at every step"

    params, forward = classifier_torch(init)
    sgd = torch.optim.SGD(params.values(), lr=0.001)
    xt, yt = torch.tensor(x), torch.tensor(y, dtype=torch.int64)
    for step in range(100):
        probs = forward(xt)
        if step in (0, 99):
            np.testing.assert_allclose(anchors[output_name][step], probs.detach().numpy(), rtol=RTOL, atol=ATOL)
        sgd.zero_grad()
        torch.nn.functional.nll_loss(torch.log(probs), yt).backward()
        sgd.step()
    assert_weights(session, params)


# ---- chapter 4: executing a training session ----

def regression_model():
    """Inputs 'a' and 'b' of shape [1], as in the guide's PyStepIO example;
    loss = (a * w + c - b)^2, weights w, c started far from the fit."""
    builder = popart.Builder()
    a = builder.addInputTensor(popart.TensorInfo("FLOAT", [1]), "a")
    b = builder.addInputTensor(popart.TensorInfo("FLOAT", [1]), "b")
    assert (a, b) == ("a", "b")
    w = builder.addInitializedInputTensor(np.array([3.0], np.float32), "w")
    c = builder.addInitializedInputTensor(np.array([2.0], np.float32), "c")
    err = builder.aiOnnx.sub([builder.aiOnnx.add([builder.aiOnnx.mul([a, w]), c]), b])
    loss = builder.aiGraphcore.identityloss([builder.aiOnnx.reducesum([builder.aiOnnx.mul([err, err])], keepdims=0)])
    return builder.getModelProto(), loss, w, c


def regression_torch():
    return {"w": torch.tensor([3.0], requires_grad=True), "c": torch.tensor([2.0], requires_grad=True)}


def regression_loss(p, a, b):
    return ((torch.tensor(a) * p["w"] + p["c"] - torch.tensor(b)) ** 2).sum()


def test_ch4_pystepio_and_update_optimizer_from_host():
    """Section 4.1: the PyStepIO example and the learning-rate update, in a
    training loop (glue: the model, the session, the schedule `learningRate`
    and the loop). The gradient of w is anchored too: any tensor can be."""
    np.random.seed(1)
    proto, loss, w, c = regression_model()
    learningRate = [0.2 * 0.9 ** i for i in range(30)]
    grad_w = popart.reservedGradientPrefix() + w
    session = popart.TrainingSession(proto, popart.DataFlow(1, {loss: popart.AnchorReturnType("ALL"),
                                                                grad_w: popart.AnchorReturnType("ALL")}),
                                     loss, popart.SGD(learningRate[0]), popart.DeviceManager().createCpuDevice())
    session.prepareDevice()

    session.weightsFromHost()

    p = regression_torch()
    losses = []
    for step in range(len(learningRate)):
        # Update learning rate parameter between training steps
        stepLr = learningRate[step]
        session.updateOptimizerFromHost(popart.SGD(stepLr))

        # Create buffers to receive results from the execution
        anchors = session.initAnchorArrays()

        # Generate some random input data
        data_a = np.random.rand(1).astype(np.float32)
        data_b = np.random.rand(1).astype(np.float32)

        stepio = popart.PyStepIO({'a': data_a, 'b': data_b}, anchors)

        session.run(stepio)

        # Check against torch: same loss, gradient and update.
        assert anchors[grad_w].shape == (1,)
        ref = regression_loss(p, data_a, data_b)
        ref.backward()
        np.testing.assert_allclose(anchors[loss], ref.item(), rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(anchors[grad_w], p["w"].grad.numpy(), rtol=RTOL, atol=ATOL)
        with torch.no_grad():
            for t in p.values():
                t -= stepLr * t.grad
                t.grad = None
        losses.append(float(anchors[loss]))
    assert_weights(session, p)

    # a and b are uniform on [0, 1): the expected loss is w^2/12 + 1/12 + (w/2 + c - 1/2)^2.
    def expected_loss(w, c):
        return w * w / 12 + 1 / 12 + (w / 2 + c - 0.5) ** 2
    final = read_weights(session, [w, c])
    assert expected_loss(final[w][0], final[c][0]) < 0.1 * expected_loss(3.0, 2.0)
    assert np.mean(losses[-10:]) < 0.1 * losses[0]


@pytest.mark.parametrize("art,shape", [('popart.AnchorReturnType("ALL")', (3,)),
                                       ('popart.AnchorReturnType("EVERYN", 3)', ()),
                                       ('popart.AnchorReturnType("FINAL")', ()),
                                       ('popart.AnchorReturnType("SUM")', ())])
def test_ch4_retrieving_results_while_training(art, shape):
    """Section 4.1.1 with a training session (glue: model and data): the loss
    of each of the 3 batches of a step, as the anchor return type says."""
    proto, loss, w, c = regression_model()
    df = popart.DataFlow(3, {loss: eval(art)})
    session = popart.TrainingSession(proto, df, loss, popart.ConstSGD(0.1), popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    session.weightsFromHost()
    anchors = session.initAnchorArrays()
    assert anchors[loss].shape == shape
    a = np.array([[0.5], [0.25], [1.0]], np.float32)
    b = np.array([[0.0], [1.0], [0.5]], np.float32)
    session.run(popart.PyStepIO({"a": a, "b": b}, anchors))
    p = regression_torch()
    per_batch = []
    for i in range(3):
        ref = regression_loss(p, a[i], b[i])
        ref.backward()
        with torch.no_grad():
            for t in p.values():
                t -= 0.1 * t.grad
                t.grad = None
        per_batch.append(ref.item())
    want = {"ALL": per_batch, "EVERYN": per_batch[2], "FINAL": per_batch[2], "SUM": sum(per_batch)}
    np.testing.assert_allclose(anchors[loss], want[art.split('"')[1]], rtol=RTOL, atol=ATOL)
    assert_weights(session, p)


def test_ch4_saving_and_loading_a_trained_model():
    """Section 4.4 after training (glue: model, data, the file test.onnx: here
    the untrained model, so that loading it starts training over)."""
    proto, loss, w, c = regression_model()
    with open("test.onnx", "wb") as f:
        f.write(proto)
    session = popart.TrainingSession(proto, popart.DataFlow(4, [loss]), loss, popart.ConstSGD(0.05),
                                     popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    session.weightsFromHost()
    rng = np.random.default_rng(2)
    a, b = (rng.random((4, 1), np.float32) for _ in range(2))

    def run():
        anchors = session.initAnchorArrays()
        session.run(popart.PyStepIO({"a": a, "b": b}, anchors))
        return anchors[loss]
    first = run()
    p = regression_torch()
    for i in range(4):
        regression_loss(p, a[i], b[i]).backward()
        with torch.no_grad():
            for t in p.values():
                t -= 0.05 * t.grad
                t.grad = None

    session.modelToHost("trained_model.onnx")

    import onnx
    import onnx.numpy_helper
    saved = {t.name: onnx.numpy_helper.to_array(t) for t in onnx.load("trained_model.onnx").graph.initializer}
    for name in (w, c):
        np.testing.assert_allclose(saved[name], p[name].detach().numpy(), rtol=RTOL, atol=ATOL)

    session.resetHostWeights("test.onnx")
    session.weightsFromHost()

    np.testing.assert_array_equal(run(), first)


# ---- chapter 5: the distributed training example, in a single process ----

class _SingleProcessHorovod(types.ModuleType):
    """Glue: horovod.popart is not installed. With one process (size 1, rank 0)
    an allreduce that averages gradients over the processes and a broadcast from
    rank 0 leave every tensor as it is, so this stand-in only records what it
    is given."""

    def __init__(self):
        super().__init__("horovod.popart")
        self.sessions = []

    def init(self):
        pass

    def size(self):
        return 1

    def rank(self):
        return 0

    def DistributedOptimizer(self, optimizer, session, userOpts):
        hvd = self
        assert userOpts.hostAllReduce

        class DistributedOptimizer:
            def insert_host_allreduce(self):
                hvd.sessions.append(session)
        return DistributedOptimizer()

    def broadcast_weights(self, session, root_rank):
        assert root_rank == 0 and session in self.sessions


GUIDE_5_4 = '''
import numpy as np
import os
from collections import namedtuple

# import the PopART Horovod extension
import horovod.popart as hvd
import popart

Session = namedtuple('Session', ['session', 'anchors'])
batch_size = 1
IN_SHAPE = 784
OUT_SHAPE = 10

def create_model():
    builder = popart.Builder()
    dtype = np.float32

    np.random.seed(42)
    input_shape = popart.TensorInfo(dtype, [batch_size, IN_SHAPE])
    x = builder.addInputTensor(input_shape)
    init_weights = np.random.normal(0, 1, [IN_SHAPE, OUT_SHAPE]).astype(dtype)
    w = builder.addInitializedInputTensor(init_weights)
    init_biases = np.random.normal(0, 1, [OUT_SHAPE]).astype(dtype)
    b = builder.addInitializedInputTensor(init_biases)
    h = builder.aiOnnx.matmul([x, w])
    a = builder.aiOnnx.add([h, b])

    output = a
    probs = builder.aiOnnx.softmax([output])
    label_shape = popart.TensorInfo("INT32", [batch_size])
    label = builder.addInputTensor(label_shape)
    nll = builder.aiGraphcore.nllloss([output, label])

    proto = builder.getModelProto()

    return builder, proto, x, label, output, nll

def get_device(simulation=True):
    num_ipus = 1
    deviceManager = popart.DeviceManager()
    if simulation:
        print("Creating ipu sim")
        ipu_options = {
            "compileIPUCode": True,
            'numIPUs': num_ipus,
            "tilesPerIPU": 1216
        }
        device = deviceManager.createIpuModelDevice(ipu_options)
        if device is None:
            raise OSError("Failed to acquire IPU.")
    else:
        print("Acquiring IPU")
        device = deviceManager.acquireAvailableDevice(num_ipus)
        if device is None:
            raise OSError("Failed to acquire IPU.")
        else:
            print("Acquired IPU: {}".format(device))

    return device

def init_session(proto, loss, dataFlow, userOpts, device):
    # Create a session to compile and execute the graph
    optimizer = popart.SGD({"defaultLearningRate": (0.1, False)})
    session = popart.TrainingSession(fnModel=proto,
                                     loss=loss,
                                     deviceInfo=device,
                                     optimizer=optimizer,
                                     dataFlow=dataFlow,
                                     userOptions=userOpts)

    session.prepareDevice()
    session.setRandomSeed(42)

    # Create buffers to receive results from the execution
    anchors = session.initAnchorArrays()

    return Session(session, anchors), optimizer

def train():
    builder, proto, data_in, labels_in, output, loss = create_model()

    batches_per_step = 32
    anchor_desc = {
        output: popart.AnchorReturnType("All"),
        loss: popart.AnchorReturnType("All")
    }
    dataFlow = popart.DataFlow(batches_per_step, anchor_desc)

    userOpts = popart.SessionOptions()
    device = get_device()

    # Enable host side AllReduce operations in the graph
    userOpts.hostAllReduce = True
    training, optimizer = init_session(proto, loss, dataFlow, userOpts, device)
    if userOpts.hostAllReduce:
        hvd.init()

        distributed_optimizer = hvd.DistributedOptimizer(
            optimizer, training.session, userOpts)
        distributed_optimizer.insert_host_allreduce()

    # Broadcast weights to all the other processes
    hvd.broadcast_weights(training.session, root_rank=0)

    training.session.weightsFromHost()

    # Synthetic data
    data = np.random.normal(size=(batches_per_step, batch_size, 784)).astype(
        np.float32)
    labels = np.zeros((batches_per_step, batch_size, 1)).astype(np.int32)

    num_training_steps = 10

    for _ in range(num_training_steps):
        stepio = popart.PyStepIO({
            data_in: data,
            labels_in: labels
        }, training.anchors)
        training.session.run(stepio)

train()
'''
# The printed example breaks across pages and the part after the second break
# lost its indentation; it is indented back into train(), where its names live.


def test_ch5_distributed_training_example_single_process(monkeypatch):
    hvd = _SingleProcessHorovod()
    monkeypatch.setitem(sys.modules, "horovod", types.ModuleType("horovod"))
    monkeypatch.setitem(sys.modules, "horovod.popart", hvd)
    sys.modules["horovod"].popart = hvd
    namespace = {"__name__": "guide_5_4"}
    exec(compile(GUIDE_5_4, "user-guide-5.4", "exec"), namespace)

    [session] = hvd.sessions
    import onnx
    _, proto, x, label, output, nll = namespace["create_model"]()
    w_id, b_id = (t.name for t in onnx.load_from_string(proto).graph.initializer)

    # The same numbers in torch: create_model() seeds numpy with 42 and draws the
    # weights, then train() draws the data; every label is 0.
    np.random.seed(42)
    init_w = np.random.normal(0, 1, [784, 10]).astype(np.float32)
    init_b = np.random.normal(0, 1, [10]).astype(np.float32)
    data = np.random.normal(size=(32, 1, 784)).astype(np.float32)

    def torch_sgd(w, b, passes, dtype):
        """As printed, the Nll loss reads the logits `a`, not the softmax: loss =
        -log(a[label]) (NaN where a[label] < 0), d loss / d a[label] = -1 / a[label]."""
        W = torch.tensor(w, dtype=dtype, requires_grad=True)
        B = torch.tensor(b, dtype=dtype, requires_grad=True)
        sgd = torch.optim.SGD([W, B], lr=0.1)
        logits, losses = [], []
        for _ in range(passes):
            for i in range(32):
                a = torch.tensor(data[i], dtype=dtype) @ W + B
                loss = -torch.log(a[:, 0]).mean()
                sgd.zero_grad()
                loss.backward()
                sgd.step()
                logits.append(a.detach().numpy())
                losses.append(loss.item())
        return W, B, np.stack(logits[-32:]), np.array(losses[-32:]), np.array(losses[:32])

    # 10 steps of 32 batches: batch 15 has a[0] = -0.2, where -1/a multiplies
    # rounding errors by 5 at each of its 10 visits; so compare with the exact
    # (float64) numbers, to a tolerance that allows for that (torch in float32
    # is 2e-4 away from them, popart 4e-5).
    W, B, _, _, first_losses = torch_sgd(init_w, init_b, 10, torch.float64)
    got = read_weights(session, [w_id, b_id])
    np.testing.assert_allclose(got[w_id], W.detach().numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[b_id], B.detach().numpy(), rtol=1e-4, atol=1e-4)

    # Glue: one more step, to look at the anchors the example asked for, checked
    # against torch (float32) started from the same weights.
    anchors = session.initAnchorArrays()
    assert anchors[output].shape == (32, 1, 10) and anchors[nll].shape == (32,)
    session.run(popart.PyStepIO({x: data, label: np.zeros((32, 1, 1), np.int32)}, anchors))
    W, B, logits, losses, _ = torch_sgd(got[w_id], got[b_id], 1, torch.float32)
    np.testing.assert_allclose(anchors[output], logits, rtol=RTOL, atol=1e-4)
    np.testing.assert_allclose(anchors[nll], losses, rtol=RTOL, atol=ATOL)
    assert_weights(session, {w_id: W, b_id: B})
    # Where the label's logit is positive the loss is finite, and training lowered it.
    finite = np.isfinite(first_losses) & np.isfinite(anchors[nll])
    assert finite.sum() >= 10 and np.all(anchors[nll][finite] < first_losses[finite])


def test_ch4_update_of_a_const_learning_rate_is_an_error():
    """popart.SGD(lr) makes the learning rate adjustable; a session compiled with
    ConstSGD has it compiled in, and the update names what cannot change."""
    proto, loss, w, c = regression_model()
    session = popart.TrainingSession(proto, popart.DataFlow(1, [loss]), loss, popart.ConstSGD(0.1),
                                     popart.DeviceManager().createCpuDevice())
    session.prepareDevice()
    with pytest.raises(popart.popart_exception, match="(?i)learning ?rate.*const"):
        session.updateOptimizerFromHost(popart.SGD(0.05))


# ---- chapter 6.2: local replication while training ----

def test_ch6_local_replication_training():
    """Section 6.2.1's options on a training session (glue: model, data): twice
    the input data, anchors with a replica dimension, and one update from the
    gradients of both replicas (summed, the default reduction)."""
    opts = popart.SessionOptions()
    opts.enableReplicatedGraphs = True
    opts.replicatedGraphCount = 2

    proto, loss, w, c = regression_model()
    session = popart.TrainingSession(proto, popart.DataFlow(3, {loss: popart.AnchorReturnType("ALL")}), loss,
                                     popart.ConstSGD(0.05), popart.DeviceManager().createCpuDevice(),
                                     userOptions=opts)
    session.prepareDevice()
    session.weightsFromHost()
    anchors = session.initAnchorArrays()
    assert anchors[loss].shape == (3, 2)
    rng = np.random.default_rng(3)
    a, b = (rng.random((3, 2, 1), np.float32) for _ in range(2))
    session.run(popart.PyStepIO({"a": a, "b": b}, anchors))

    p = regression_torch()
    for step in range(3):
        losses = [regression_loss(p, a[step, r], b[step, r]) for r in range(2)]
        sum(losses).backward()
        np.testing.assert_allclose(anchors[loss][step], [l.item() for l in losses], rtol=RTOL, atol=ATOL)
        with torch.no_grad():
            for t in p.values():
                t -= 0.05 * t.grad
                t.grad = None
    assert_weights(session, p)

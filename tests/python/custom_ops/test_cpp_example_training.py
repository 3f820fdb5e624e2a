"""examples/cpp trains an ONNX model made here with popart.Builder (`--train LOSS`):
its per-step losses and the weights it saves (modelToHost) match torch autograd +
torch.optim.SGD on the same model and inputs."""
import subprocess

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import popart

import torch


def pattern(shape):
    """The values popart_example feeds every FLOAT input: ((i % 17) - 8) / 4."""
    n = int(np.prod(shape))
    return ((np.arange(n) % 17 - 8) / 4).astype(np.float32).reshape(shape)


def concat_relu_l1(b, w, x):
    """loss = 0.5 * sum |Relu(Concat(w, x))^T|."""
    r = b.aiOnnx.relu([b.aiOnnx.concat([w, x], axis=0)])
    return b.aiGraphcore.l1loss([b.aiOnnx.transpose([r], perm=[1, 0])], 0.5,
                                reduction=popart.ReductionType.Sum)


def concat_relu_l1_torch(w, x):
    return 0.5 * torch.relu(torch.cat([w, x], 0)).T.abs().sum()


def reshape_slice_l1(b, w, x):
    """loss = 2 * mean |Relu(Concat(Reshape(w)[1:5], x))|, w of shape [2, 3, 4]."""
    def const(*values):
        return b.aiOnnx.constant(np.array(values, np.int64))
    rows = b.aiOnnx.slice([b.aiOnnx.reshape([w, const(6, 4)]), const(1), const(5), const(0)])
    r = b.aiOnnx.relu([b.aiOnnx.concat([rows, x], axis=0)])
    return b.aiGraphcore.l1loss([r], 2.0, reduction=popart.ReductionType.Mean)


def reshape_slice_l1_torch(w, x):
    return 2.0 * torch.relu(torch.cat([w.reshape(6, 4)[1:5], x], 0)).abs().mean()


MODELS = {"concat_relu_l1": ((3, 4), concat_relu_l1, concat_relu_l1_torch),
          "reshape_slice_l1": ((2, 3, 4), reshape_slice_l1, reshape_slice_l1_torch)}


def write_model(path, name):
    """Saves the model (input x [2, 4], weight w); returns (w0, loss id)."""
    w_shape, build, _ = MODELS[name]
    b = popart.Builder()
    x = b.addInputTensor(popart.TensorInfo("FLOAT", [2, 4]), "x")
    w0 = np.random.default_rng(len(w_shape)).standard_normal(w_shape).astype(np.float32)
    loss = build(b, b.addInitializedInputTensor(w0, "w"), x)
    b.addOutputTensor(loss)
    path.write_bytes(b.getModelProto())
    return w0, loss


def torch_training(name, w0, lr, steps):
    """(loss before each step, weights after the last step)."""
    w = torch.tensor(w0, requires_grad=True)
    x = torch.from_numpy(pattern((2, 4)))
    opt = torch.optim.SGD([w], lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = MODELS[name][2](w, x)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses, np.float32), w.detach().numpy()


def run_example(built, *args):
    return subprocess.run([str(built.cpp_example), *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("steps,lr", [(5, 0.05), (3, 0.3)])
def test_cpp_example_trains_like_torch(built, tmp_path, name, steps, lr):
    w0, loss_id = write_model(tmp_path / "model.onnx", name)
    saved = tmp_path / "trained.onnx"
    r = run_example(built, tmp_path / "model.onnx", "--train", loss_id, "--steps", steps, "--lr", lr,
                    "--save", saved)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # Inference first: the model's output is the loss at the initial weights.
    assert lines[0] == f"output {loss_id} FLOAT []"
    steps_out = [line.split() for line in lines[2:]]
    assert [s[:3] for s in steps_out] == [["step", str(i), "loss"] for i in range(steps)]
    losses = np.array([float(s[3]) for s in steps_out], np.float32)
    assert float(lines[1]) == losses[0]
    assert all(b < a for a, b in zip(losses, losses[1:])), losses

    ref_losses, ref_w = torch_training(name, w0, lr, steps)
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    trained = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(saved)).graph.initializer}
    np.testing.assert_allclose(trained["w"], ref_w, rtol=1e-6, atol=1e-6)


def test_cpp_example_training_errors(built, tmp_path):
    _, loss_id = write_model(tmp_path / "model.onnx", "concat_relu_l1")
    model = tmp_path / "model.onnx"
    r = run_example(built, model, "--train", "no_such_loss")
    assert r.returncode == 1 and "popart error" in r.stderr and "no_such_loss" in r.stderr
    for args, message in [(["--steps", "3"], "--steps needs --train first"),
                          (["--train"], "--train needs a value"),
                          (["--train", loss_id, "--momentum", "1"], "unknown option --momentum"),
                          (["--train", loss_id, "--steps", "many"], "usage")]:
        r = run_example(built, model, *args)
        assert r.returncode == 2 and message in r.stderr and "usage" in r.stderr, (args, r.stderr)

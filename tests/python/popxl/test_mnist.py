"""The MNIST application (guide section 15) on scikit-learn's 8x8 digits: examples/popxl_mnist.py trains
a two-layer perceptron with popxl (autodiff + var_updates SGD) and must reach 90% test accuracy."""
import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "popxl_mnist.py"


@pytest.fixture(scope="module")
def mnist():
    spec = importlib.util.spec_from_file_location("popxl_mnist", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_trains_to_90_percent(mnist):
    weights, losses = mnist.train(epochs=8, batch_size=32, lr=0.1)
    steps_per_epoch = len(losses) // 8
    assert np.mean(losses[-steps_per_epoch:]) < 0.5 * np.mean(losses[:steps_per_epoch])
    accuracy = mnist.evaluate(weights)
    assert accuracy >= 90.0, f"test accuracy {accuracy:.1f}%"


def test_one_step_matches_numpy(mnist):
    """The popxl training step equals a numpy forward/backward/SGD step."""
    params = mnist.init_params([64, 16, 10], seed=3)
    rng = np.random.default_rng(4)
    x = rng.random((8, 64)).astype(np.float32)
    y = rng.integers(0, 10, 8)
    one_hot = np.eye(10, dtype=np.float32)[y]
    ir, (img_s, label_s), loss_s, variables = mnist.build_train_ir(8, 0.5, params)
    import popxl
    with popxl.Session(ir, "cpu") as s:
        loss = s.run({img_s: x, label_s: one_hot})[loss_s]
        got = {k: s.get_tensor_data(v) for k, v in variables.items()}

    p = {k: v.astype(np.float64) for k, v in params.items()}
    h_pre = x @ p["W0"] + p["b0"]
    h = np.maximum(h_pre, 0)
    logits = h @ p["W1"] + p["b1"]
    e = np.exp(logits - logits.max(-1, keepdims=True))
    probs = e / e.sum(-1, keepdims=True)
    ref_loss = -np.mean(np.log(probs[np.arange(8), y]))
    d_logits = (probs - one_hot) / 8
    grads = {"W1": h.T @ d_logits, "b1": d_logits.sum(0)}
    d_h = (d_logits @ p["W1"].T) * (h_pre > 0)
    grads.update({"W0": x.T @ d_h, "b0": d_h.sum(0)})
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)
    for k in params:
        np.testing.assert_allclose(got[k], p[k] - 0.5 * grads[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_two_replicas_train_like_one_on_the_whole_batch(mnist):
    """Data-parallel training over 2 replicas (each half of every batch, gradients averaged with
    replicated_all_reduce beside the host loads) gives the weights of 1 replica on the whole batch, and
    the same test accuracy (at least 90%)."""
    one, losses1 = mnist.train(epochs=8, batch_size=32, lr=0.1)
    two, losses2 = mnist.train(epochs=8, batch_size=32, lr=0.1, replication=2)
    for k in one:
        np.testing.assert_allclose(two[k], one[k], rtol=1e-4, atol=1e-5, err_msg=k)
    np.testing.assert_allclose(losses2, losses1, rtol=1e-4)
    accuracy = mnist.evaluate(two)
    assert accuracy >= 90.0, f"test accuracy {accuracy:.1f}%"
    assert accuracy == mnist.evaluate(one)

"""Digit classification with PopXL: a two-layer perceptron trained with autodiff and an SGD update made
of popxl.ops.var_updates, then evaluated by a second, inference-only Ir that receives the trained weights.

The data is the 8x8 handwritten digits set that scikit-learn ships (1797 images, nothing is
downloaded): 80% trains, 20% tests. With --replication R the training is data-parallel: each of R
replicas loads batch-size / R images, and the replicas average their gradients
(ops.collectives.replicated_all_reduce) before the update, so every replica keeps the same weights.

    python examples/popxl_mnist.py [--epochs 10] [--batch-size 32] [--lr 0.1] [--replication 1]
"""
import argparse
import time
from typing import Dict, List, Tuple

import numpy as np

import popxl
import popxl.ops as ops
import popxl.transforms as transforms
from popxl.ops import collectives, var_updates

CLASSES = 10


def load_digits_split(test_fraction: float = 0.2, seed: int = 0):
    """(train images, train labels, test images, test labels): float32 images of 64 pixels in [0, 1], int32
    labels; a fixed random split."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int32)
    order = np.random.default_rng(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return images[train], labels[train], images[test], labels[test]


def batches(images, labels, batch_size: int, rng=None):
    """Whole batches of (images, labels), shuffled when `rng` is given (the remainder is dropped)."""
    order = rng.permutation(len(labels)) if rng is not None else np.arange(len(labels))
    for i in range(len(labels) // batch_size):
        idx = order[i * batch_size:(i + 1) * batch_size]
        yield images[idx], labels[idx]


class Linear(popxl.Module):
    """y = relu(x @ W + b), with W and b inputs of the graph (the caller passes its variables)."""

    def __init__(self):
        self.W = None
        self.b = None

    def build(self, x: popxl.Tensor, out_features: int, relu: bool = True) -> popxl.Tensor:
        self.W = popxl.graph_input((x.shape[-1], out_features), popxl.float32, "W")
        self.b = popxl.graph_input((out_features,), popxl.float32, "b")
        y = x @ self.W + self.b
        return ops.relu(y) if relu else y


def init_params(sizes: List[int], seed: int = 1) -> Dict[str, np.ndarray]:
    """He-initialised weights and zero biases for layers sizes[0] -> sizes[1] -> ..."""
    rng = np.random.default_rng(seed)
    params = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        params[f"W{i}"] = (rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)).astype(np.float32)
        params[f"b{i}"] = np.zeros(n_out, np.float32)
    return params


def forward(ir, x, params: Dict[str, np.ndarray]):
    """Calls one graph per layer; returns (logits, variables, [(module, call info)] per layer)."""
    variables = {k: popxl.variable(v, name=k) for k, v in params.items()}
    layers = []
    n_layers = len(params) // 2
    for i in range(n_layers):
        module = Linear()
        graph = ir.create_graph(module, x, out_features=params[f"W{i}"].shape[1], relu=i + 1 < n_layers)
        info = ops.call_with_info(graph, x, inputs_dict={module.W: variables[f"W{i}"], module.b: variables[f"b{i}"]})
        layers.append((module, info))
        x = info.outputs[0]
    return x, variables, layers


def softmax_cross_entropy(logits, one_hot) -> Tuple[popxl.Tensor, popxl.Tensor]:
    """(mean cross-entropy loss, its gradient with respect to the logits)."""
    n = logits.shape[0]
    log_probs = ops.log_softmax(logits, axis=-1)
    loss = ops.sum(log_probs * one_hot) * popxl.constant(np.float32(-1.0 / n))
    d_logits = (ops.exp(log_probs) - one_hot) * popxl.constant(np.float32(1.0 / n))
    return loss, d_logits


def backward(d_out, variables, layers) -> Dict[str, popxl.Tensor]:
    """Gradients of every variable: the autodiff graph of each layer, called from the last layer back."""
    grads = {}
    for i in reversed(range(len(layers))):
        module, info = layers[i]
        bwd = transforms.autodiff(info.called_graph)
        grad_info = ops.call_with_info(bwd.graph, d_out, inputs_dict=bwd.inputs_dict(info))
        by_parent = bwd.fwd_parent_ins_to_grad_parent_outs(info, grad_info)
        grads[f"W{i}"] = by_parent[variables[f"W{i}"]]
        grads[f"b{i}"] = by_parent[variables[f"b{i}"]]
        if i > 0:
            d_out = by_parent[info.inputs[0]]
    return grads


def build_train_ir(batch_size: int, lr: float, params: Dict[str, np.ndarray], replication: int = 1):
    """Loads a batch, runs forward and backward, applies w -= lr * dw to every variable, stores the loss.
    With replication R each replica loads batch_size / R images and the gradients are averaged over the
    replicas."""
    if batch_size % replication:
        raise ValueError(f"batch size {batch_size} does not split over {replication} replicas")
    micro = batch_size // replication
    ir = popxl.Ir(replication=replication)
    with ir.main_graph, popxl.in_sequence():
        img_stream = popxl.h2d_stream((micro, 64), popxl.float32, name="images")
        label_stream = popxl.h2d_stream((micro, CLASSES), popxl.float32, name="one_hot_labels")
        x = ops.host_load(img_stream, "x")
        one_hot = ops.host_load(label_stream, "one_hot")
        logits, variables, layers = forward(ir, x, params)
        loss, d_logits = softmax_cross_entropy(logits, one_hot)
        grads = backward(d_logits, variables, layers)
        if replication > 1:
            grads = {k: collectives.replicated_all_reduce(g, op="mean") for k, g in grads.items()}
        for name, var in variables.items():
            var_updates.accumulate_(var, grads[name], -lr)
        loss_stream = popxl.d2h_stream(loss.shape, loss.dtype, name="loss")
        ops.host_store(loss_stream, loss)
    return ir, (img_stream, label_stream), loss_stream, variables


def build_test_ir(batch_size: int, params: Dict[str, np.ndarray]):
    """Loads a batch and stores the logits."""
    ir = popxl.Ir()
    with ir.main_graph, popxl.in_sequence():
        img_stream = popxl.h2d_stream((batch_size, 64), popxl.float32, name="images")
        logits, variables, _ = forward(ir, ops.host_load(img_stream, "x"), params)
        out_stream = popxl.d2h_stream(logits.shape, logits.dtype, name="logits")
        ops.host_store(out_stream, logits)
    return ir, img_stream, out_stream, variables


def train(epochs: int = 10, batch_size: int = 32, lr: float = 0.1, hidden: int = 32, seed: int = 0,
          verbose: bool = False, replication: int = 1):
    """Trains on the digits' training split (data-parallel over `replication` replicas); returns (trained
    weights by name, losses per step)."""
    train_x, train_y, _, _ = load_digits_split(seed=seed)
    params = init_params([64, hidden, CLASSES], seed=seed + 1)
    ir, (img_s, label_s), loss_s, variables = build_train_ir(batch_size, lr, params, replication)
    split = (lambda a: a.reshape((replication, -1) + a.shape[1:])) if replication > 1 else (lambda a: a)
    rng = np.random.default_rng(seed + 2)
    eye = np.eye(CLASSES, dtype=np.float32)
    losses = []
    session = popxl.Session(ir, "ipu_model")
    with session:
        for epoch in range(epochs):
            for images, labels in batches(train_x, train_y, batch_size, rng):
                out = session.run({img_s: split(images), label_s: split(eye[labels])})[loss_s]
                losses.append(float(np.mean(out)))
            if verbose:
                print(f"epoch {epoch + 1}/{epochs}: mean loss {np.mean(losses[-(len(train_y) // batch_size):]):.4f}")
    trained = session.get_tensors_data(list(variables.values()))
    return {name: trained[var] for name, var in variables.items()}, losses


def evaluate(weights: Dict[str, np.ndarray], batch_size: int = 40, seed: int = 0) -> float:
    """Accuracy (in %) of `weights` on the digits' test split, computed by an inference Ir."""
    _, _, test_x, test_y = load_digits_split(seed=seed)
    ir, img_s, out_s, variables = build_test_ir(batch_size, weights)
    session = popxl.Session(ir, "ipu_model")
    session.write_variables_data({variables[k]: v for k, v in weights.items()})
    correct = total = 0
    with session:
        for images, labels in batches(test_x, test_y, batch_size):
            logits = session.run({img_s: images})[out_s]
            correct += int(np.sum(np.argmax(logits, axis=-1) == labels))
            total += len(labels)
    return 100.0 * correct / total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--replication", type=int, default=1)
    opts = parser.parse_args()
    start = time.perf_counter()
    weights, _ = train(opts.epochs, opts.batch_size, opts.lr, opts.hidden, verbose=True,
                       replication=opts.replication)
    print(f"training took {time.perf_counter() - start:.2f} s")
    print(f"test accuracy: {evaluate(weights):.2f}%")


if __name__ == "__main__":
    main()

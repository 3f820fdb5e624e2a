"""The guide's own MNIST program (spec files/mnist.py, run unchanged from the spec directory) with its data
module replaced: `mnist_utils.get_mnist_data` serves scikit-learn's 8x8 digits scaled up to 28x28 (nothing
can be downloaded here) and `tqdm` is a plain iterator. The program builds the train and test Irs with
popxl.Module, call_with_info, autodiff (grads_required), nll_loss_with_softmax_grad and scaled_add_."""
import contextlib
import io
import os
import pathlib
import re
import runpy
import sys
import time
import types

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
# The guide's files beside the checkout, as test_guide_examples.py finds them.
FILES = next((c for c in ([pathlib.Path(os.environ["POPXL_GUIDE_FILES"])] if "POPXL_GUIDE_FILES" in os.environ else [])
              + [p / "shared" / "spec" / "popxl-guide" / "files" for p in [ROOT.parent, *ROOT.parents]]
              if c.is_dir()), None)
NO_GUIDE = "the PopXL guide's example files are not beside this checkout (set POPXL_GUIDE_FILES)"


def digits_28x28(test_fraction=0.2, seed=0):
    """The digits as [N, 1, 28, 28] float32 images (each pixel 3x3, 2 pixels of border), normalised like
    the guide's MNIST transform, and int64 labels; a fixed train/test split."""
    from sklearn.datasets import load_digits
    d = load_digits()
    img = np.kron(d.images / 16.0, np.ones((3, 3)))
    img = np.pad(img, ((0, 0), (2, 2), (2, 2)))[:, None].astype(np.float32)
    img = (img - img.mean()) / img.std()
    order = np.random.default_rng(seed).permutation(len(img))
    n_test = int(len(img) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return (img[train], d.target[train]), (img[test], d.target[test])


def fake_mnist_utils():
    import torch

    class Timer(contextlib.ContextDecorator):
        def __init__(self, desc):
            self.desc = desc

        def __enter__(self):
            self.start = time.perf_counter()
            return self

        def __exit__(self, *exc):
            print(f"Timer '{self.desc}' took {time.perf_counter() - self.start:.3f} seconds")

    def get_mnist_data(datasets_dir, test_batch_size, batch_size, limit_nbatches):
        (tx, ty), (vx, vy) = digits_28x28()
        gen = torch.Generator().manual_seed(0)

        def loader(x, y, bs, shuffle):
            ds = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
            return torch.utils.data.DataLoader(ds, batch_size=bs, shuffle=shuffle, drop_last=True, generator=gen)
        return loader(tx, ty, batch_size, True), loader(vx, vy, test_batch_size, False)

    m = types.ModuleType("mnist_utils")
    m.Timer, m.get_mnist_data = Timer, get_mnist_data
    return m


def fake_tqdm():
    class Bar:
        def __init__(self, it, total=None):
            self.it = it

        def __iter__(self):
            return iter(self.it)

        def set_description(self, text):
            self.last = text

    m = types.ModuleType("tqdm")
    m.tqdm = Bar
    return m


@pytest.mark.skipif(FILES is None, reason=NO_GUIDE)
def test_guide_mnist_program_trains(monkeypatch):
    monkeypatch.setitem(sys.modules, "mnist_utils", fake_mnist_utils())
    monkeypatch.setitem(sys.modules, "tqdm", fake_tqdm())
    monkeypatch.setattr(sys, "argv", ["mnist.py", "--epochs", "3", "--lr", "0.05", "--test-batch-size", "40"])
    np.random.seed(0)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(FILES / "mnist.py"), run_name="__main__")
    text = out.getvalue()
    assert "Training complete." in text and "Testing complete." in text
    accuracy = float(re.search(r"Accuracy on test set: ([0-9.]+)%", text).group(1))
    assert accuracy >= 90.0, text

"""The guide's MNIST program with replication and replica-sharded weights (spec files/mnist_rts.py, run
unchanged from the spec directory) on scikit-learn's 8x8 digits, served by test_guide_mnist's stand-in for
`mnist_utils`. With --replication-factor 2 --rts, W0 is a replica_sharded_variable and W1 a
remote_replica_sharded_variable: the replicas gather the shards, train on their halves of each batch and
update their own shards. It must reach 90% test accuracy, as the program does with one replica."""
import contextlib
import io
import re
import runpy
import sys

import numpy as np
import pytest

from test_guide_mnist import FILES, NO_GUIDE, fake_mnist_utils, fake_tqdm


def run_mnist_rts(monkeypatch, *args):
    monkeypatch.setitem(sys.modules, "mnist_utils", fake_mnist_utils())
    monkeypatch.setitem(sys.modules, "tqdm", fake_tqdm())
    monkeypatch.setattr(sys, "argv", ["mnist_rts.py", "--epochs", "3", "--lr", "0.05", "--test-batch-size", "20",
                                      "--test", *args])
    np.random.seed(0)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(FILES / "mnist_rts.py"), run_name="__main__")
    text = out.getvalue()
    assert "Training complete." in text and "Testing complete." in text, text
    return float(re.search(r"Accuracy on test set: ([0-9.]+)%", text).group(1))


@pytest.mark.skipif(FILES is None, reason=NO_GUIDE)
def test_guide_mnist_rts_trains_with_two_replicas_as_with_one(monkeypatch):
    one = run_mnist_rts(monkeypatch)
    two = run_mnist_rts(monkeypatch, "--replication-factor", "2", "--rts")
    assert one >= 90.0 and two >= 90.0, (one, two)
    assert abs(one - two) <= 3.0, (one, two)

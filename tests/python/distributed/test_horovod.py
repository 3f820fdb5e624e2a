"""horovod.popart (distributions/horovod-popart) under its horovodrun launcher:
the user guide's example (section 5.4), and the effect of the host all-reduce
and broadcast_weights."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
from replication._replica_models import make_data, max_rel_diff, merged, session, train  # noqa: E402

SPEC = os.environ.get("POPART_SPEC_DIR", "/work/shared/spec")
BATCH, STEPS = 4, 3


def horovodrun(args, cwd, timeout=180):
    """`horovodrun ARGS` with the repository's horovod.popart and popart first on the path."""
    env = dict(os.environ, OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([os.path.join(REPO, "distributions", "horovod-popart")] + sys.path))
    cmd = [sys.executable, "-m", "horovod.popart.runner"] + args
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def guide_example():
    """The code of the user guide's section 5.4, read from the spec. The PDF's
    page breaks dropped the indentation of the last block (the rest of train()):
    it is indented back into train(); the final `train()` call stays at top level."""
    path = os.path.join(SPEC, "popart-user-guide.txt")
    with open(path) as f:
        text = f.read()
    section = text[text.index("5.4 Full distributed training example"):text.index("A more comprehensive example")]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    assert len(blocks) == 3, "the guide's example has three blocks"
    last = [("    " + line if line.strip() and line.strip() != "train()" else line)
            for line in blocks[2].splitlines()]
    return blocks[0] + blocks[1] + "\n".join(last) + "\n"


def test_user_guide_example_runs_under_horovodrun(tmp_path):
    (tmp_path / "train.py").write_text(guide_example())
    p = horovodrun(["-np", "2", "-H", "localhost:2", sys.executable, "train.py"], cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.count("Creating ipu sim") == 2


@pytest.mark.parametrize("insert", [True, False])
def test_host_allreduce_averages_gradients(tmp_path, insert):
    out = str(tmp_path / "w")
    p = horovodrun(["-np", "2", "-H", "localhost:2", sys.executable, os.path.join(HERE, "_mpi_worker.py"),
                    "hvd" if insert else "hvd-no-allreduce", out], cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    w0, w1 = dict(np.load(out + ".0.npz")), dict(np.load(out + ".1.npz"))
    if insert:  # both ranks: one replica on both ranks' data
        data = make_data(STEPS, 1, 2, BATCH)
        want = train(session(2 * BATCH, 1, 1, "sgd"), merged(data, 2), 1, 1)
        assert max_rel_diff(w0, want) <= 1e-6
        assert max_rel_diff(w1, want) <= 1e-6
    else:  # same start (broadcast), own data: the ranks drift apart
        assert max_rel_diff(w0, w1) > 1e-3


def test_horovodrun_checks_its_arguments():
    from importlib import import_module
    sys.path.insert(0, os.path.join(REPO, "distributions", "horovod-popart"))
    runner = import_module("horovod.popart.runner")
    cmd, env = runner.command(["-np", "2", "-H", "localhost:2", "python", "x.py"])
    assert cmd[1:3] == ["-n", "2"] and cmd[-2:] == ["python", "x.py"] and "localhost:2" in cmd
    with pytest.raises(SystemExit):
        runner.command(["-np", "3", "-H", "localhost:2", "python", "x.py"])


def test_distributed_optimizer_needs_host_allreduce_option(tmp_path):
    code = ("import horovod.popart as hvd, popart\n"
            "hvd.init()\n"
            "try:\n    hvd.DistributedOptimizer(None, None, popart.SessionOptions())\n"
            "except popart.popart_exception as e:\n    print('ERR', e)\n")
    path = [os.path.join(REPO, "distributions", "horovod-popart")] + sys.path
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "hostAllReduce = True" in p.stdout, p.stdout + p.stderr

"""Training throughput with replicas, MPI processes and pipelining on the same cores.

Configurations (the same global batch per step, SGD with momentum):

  1r x 2t      one replica, OMP_NUM_THREADS=2                    (the baseline)
  2r x 1t      two local replicas (replica threads), 1 thread each
  2p x 1t      two MPI processes (mpiexec -n 2), one replica each, 1 thread each
  pipe 2s      a 2-stage pipeline (enablePipelining, 2 virtual graphs), 2 threads between
               the stages (a stage running alone uses both); gradient accumulation of 4
               micro-batches of a quarter of the batch (the pipeline needs micro-batches in
               flight), so the same samples per step

With --accumulation A (the configuration pipelined or data-parallel training
would use on this machine: full micro-batches, several per weight update) every
configuration, the baseline included, accumulates the gradients of A
micro-batches of the global batch (per replica: its share) before each update,
and the pipeline runs A micro-batches of the whole batch. The default
(--accumulation 0) is the configuration above; --batch 256 (128 samples per
replica) is closer to what data-parallel training of the MLP would use (the
README has both sets of figures).

With --rounds R every configuration runs R times, the configurations of a
model interleaved round by round (the machine's speed drifts: a ratio is taken
against the baseline of the same round), and the median ratio with its range
over the rounds is printed.

Models: mlp (784-1024-512-10) and cnn (four 3x3 convolutions, 32-32-64-40
channels, two 2x2 poolings and a dense layer on 1x28x28). Their pipeline stages
are balanced (a pipeline runs as fast as its slowest stage): the MLP's first
stage holds the first layer (no input gradient), the second the other two; the
CNN's first stage the two convolutions at 28x28. Each configuration runs in its
own process(es); the figure is the median samples/s over the timed steps
(batchesPerStep micro-batches each).
The machine may be shared: the load average is printed with the results.

    python benchmarks/bench_replication.py [--models mlp,cnn] [--steps N] [--batch B] [--accumulation A] [--rounds R]
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BPS = 10


def build(model, batch, pipelined=False):
    """The model; pipelined: its first half on pipeline stage / virtual graph 0, the rest on 1."""
    import contextlib

    import numpy as np
    import popart
    rng = np.random.RandomState(0)
    b = popart.Builder()

    def stage(s):
        if not pipelined:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        stack.enter_context(b.pipelineStage(s))
        stack.enter_context(b.virtualGraph(s))
        return stack

    if model == "mlp":
        # Stage 0 computes the first product forward and its weight gradient (2 x 784 x 1024 MACs per
        # sample), stage 1 the rest forward, its weight and input gradients (3 x 1024 x 512 + 3 x 512 x 10).
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [batch, 784]), "x")
        h = x
        for i, (n_in, n_out) in enumerate([(784, 1024), (1024, 512), (512, 10)]):
            with stage(0 if i == 0 else 1):
                w = b.addInitializedInputTensor((rng.standard_normal((n_in, n_out)) * 0.03).astype(np.float32),
                                                f"W{i}")
                h = b.aiOnnx.matmul([h, w])
                if i < 2:
                    h = b.aiOnnx.relu([h])
    else:
        # Two 3x3 convolutions at 28x28 on stage 0, two at 14x14 and the dense layer on stage 1; the last
        # convolution's 40 channels balance the stages (each busy 93-95% of a pipelined step).
        x = b.addInputTensor(popart.TensorInfo("FLOAT", [batch, 1, 28, 28]), "x")
        h = x
        for i, (c_in, c_out, s, pool) in enumerate([(1, 32, 0, False), (32, 32, 0, True), (32, 64, 1, False),
                                                    (64, 40, 1, True)]):
            with stage(s):
                w = b.addInitializedInputTensor((rng.standard_normal((c_out, c_in, 3, 3)) * 0.1).astype(np.float32),
                                                f"C{i}")
                h = b.aiOnnx.relu([b.aiOnnx.conv([h, w], pads=[1, 1, 1, 1])])
                if pool:
                    h = b.aiOnnx.maxpool([h], num_outputs=1, kernel_shape=[2, 2], strides=[2, 2])[0]
        with stage(1):
            h = b.aiOnnx.flatten([h], axis=1)
            w = b.addInitializedInputTensor((rng.standard_normal((40 * 7 * 7, 10)) * 0.02).astype(np.float32), "D")
            h = b.aiOnnx.matmul([h, w])
    label = b.addInputTensor(popart.TensorInfo("INT32", [batch]), "label")
    with stage(1):
        loss = b.aiGraphcore.nllloss([b.aiOnnx.softmax([h], axis=1), label])
    return b, x, label, loss, h


def worker(model, config, batch, steps, accumulation=0):
    """Runs in the configuration's process: prints {"samples_per_s": ...} on rank 0."""
    import numpy as np
    import popart
    local = 2 if config == "2r" else 1
    nproc = 2 if config == "2p" else 1
    micro_batch = batch // (local * nproc)
    pipe = config == "pipe"
    split = 4 if pipe and not accumulation else 1  # default: 4 micro-batches of a quarter in the pipeline
    micro_batch //= split
    b, x, label, loss, h = build(model, micro_batch, pipelined=pipe)
    opts = popart.SessionOptions()
    opts.accumulationAndReplicationReductionType = popart.ReductionType.Mean
    if pipe:
        opts.enablePipelining = True
        opts.virtualGraphMode = popart.VirtualGraphMode.Manual
    if accumulation > 1 or split > 1:
        opts.enableGradientAccumulation = True
        opts.accumulationFactor = max(accumulation, split)
    if local > 1:
        opts.enableReplicatedGraphs = True
        opts.replicatedGraphCount = local
    rank = 0
    if nproc > 1:
        from popart import distributed
        rank = distributed.rank()
        opts.enableDistributedReplicatedGraphs = True
        opts.globalReplicationFactor = nproc
        opts.globalReplicaOffset = rank
    device = popart.DeviceManager().createIpuModelDevice({"numIPUs": 2}) if config == "pipe" else \
        popart.DeviceManager().createCpuDevice()
    s = popart.TrainingSession(fnModel=b.getModelProto(), dataFlow=popart.DataFlow(BPS, {loss: popart.AnchorReturnType("Final")}),
                               loss=loss, optimizer=popart.SGD({"defaultLearningRate": (0.01, False),
                                                                "defaultMomentum": (0.9, False)}),
                               userOptions=opts, deviceInfo=device)
    s.prepareDevice()
    s.weightsFromHost()
    accum = opts.getAccumulationFactor()
    lead = [d for d in (BPS, accum, local) if d > 1]
    shape = [micro_batch] + ([784] if model == "mlp" else [1, 28, 28])
    rng = np.random.RandomState(rank)
    feeds = {x: rng.standard_normal(lead + shape).astype(np.float32),
             label: rng.randint(0, 10, lead + [micro_batch]).astype(np.int32)}
    anchors = s.initAnchorArrays()
    times = []
    for i in range(steps + 2):
        t0 = time.perf_counter()
        s.run(popart.PyStepIO(feeds, anchors))
        if i >= 2:
            times.append(time.perf_counter() - t0)
    samples = BPS * accum * micro_batch * local * nproc
    if rank == 0:
        print(json.dumps({"samples_per_s": samples / sorted(times)[len(times) // 2]}), flush=True)


def launch(model, config, batch, steps, accumulation=0):
    env = dict(os.environ, OMP_NUM_THREADS="2" if config in ("1r", "2r", "pipe") else "1")
    args = [sys.executable, os.path.abspath(__file__), "--worker", model, config, str(batch), str(steps),
            str(accumulation)]
    if config == "2p":
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        args = [os.path.join(os.path.dirname(sys.executable), "mpiexec"), "--oversubscribe", "-n", "2"] + args
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900)
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)["samples_per_s"]
    return "failed: " + (p.stderr.strip().splitlines() or ["?"])[-1][:120]


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="mlp,cnn")
    ap.add_argument("--configs", default="1r,2r,2p,pipe")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--batch", type=int, default=64, help="global batch per micro-batch step")
    ap.add_argument("--accumulation", type=int, default=0,
                    help="every configuration accumulates this many micro-batches of the global batch per update "
                         "(0: the default configuration)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="runs of every configuration, interleaved; prints the median ratio and its range")
    a = ap.parse_args()
    names = {"1r": "1r x 2t", "2r": "2r x 1t", "2p": "2p x 1t", "pipe": "pipe 2s"}
    configs = a.configs.split(",")
    print(f"load average before: {os.getloadavg()}; batch {a.batch}, accumulation {a.accumulation or 'default'}")
    for model in a.models.split(","):
        ratios = {c: [] for c in configs}
        for _ in range(a.rounds):
            base = None
            for config in configs:
                r = launch(model, config, a.batch, a.steps, a.accumulation)
                if isinstance(r, float):
                    base = r if config == "1r" else base
                    if base and config != "1r":
                        ratios[config].append(r / base)
                    rel = f"  {r / base:.2f}x of 1r x 2t" if base and config != "1r" else ""
                    print(f"{model:4s} {names[config]:8s} {r:10.0f} samples/s{rel}", flush=True)
                else:
                    print(f"{model:4s} {names[config]:8s} {r}", flush=True)
        if a.rounds > 1:
            for config, rs in ratios.items():
                if rs:
                    rs.sort()
                    print(f"{model:4s} {names[config]:8s} median {rs[len(rs) // 2]:.2f}x of 1r x 2t "
                          f"(range {rs[0]:.2f}-{rs[-1]:.2f} over {len(rs)} rounds)", flush=True)
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

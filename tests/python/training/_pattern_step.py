"""One training step of an ONNX model for the training-pattern tests (GeluFusion, LayerNormFusion,
AddArgGradToIdentity): the anchors and the op types of the IR that ran."""
import json
import re

import popart


def train(model, x, anchors, patterns=None):
    """One SGD step (lr 0) feeding `x` as "x": the anchors ("loss" and `anchors`) and the IR's op types
    (in-place suffixes dropped)."""
    s = popart.TrainingSession(model, popart.DataFlow(1, ["loss", *anchors]), "loss", popart.ConstSGD(0.0),
                               popart.DeviceManager().createCpuDevice(), patterns=patterns)
    s.prepareDevice()
    s.weightsFromHost()
    out = s.initAnchorArrays()
    s.run(popart.PyStepIO({"x": x}, out))
    types = [re.sub(r"(Lhs|Rhs)?Inplace$", "", op["type"]) for op in json.loads(s.getSerializedGraph())["maingraph"]]
    return out, types

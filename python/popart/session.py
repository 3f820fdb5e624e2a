"""popart.InferenceSession and popart.TrainingSession: the C++ sessions plus
the Python conveniences PopART adds (initAnchorArrays, dataFlow, factors)."""
import copy
from typing import Dict

import numpy as np
import popart_core

__all__ = ["InferenceSession", "TrainingSession"]


def _anchor_shape(session, anchor: str):
    """Buffer shape of an anchor: [bps/N or bps, accum, replicas, *shape],
    with size-1 leading dimensions removed (section 13.6 of the spec)."""
    df = session.dataFlow
    art = df.art(anchor)
    opts = session._options
    accum = opts.getAccumulationFactor()
    repl = _local_replicas(opts)
    kind = art.id()
    if kind == popart_core.AnchorReturnTypeId.All:
        lead = [df.batchesPerStep(), accum, repl]
    elif kind == popart_core.AnchorReturnTypeId.EveryN:
        lead = [df.batchesPerStep() // art.rp(), accum, repl]
    else:
        lead = [repl]
    return [d for d in lead if d != 1] + list(session.getInfo(anchor).shape())


def _local_replicas(opts) -> int:
    """Replicas this process feeds (of getGlobalReplicationFactor() over all processes)."""
    return opts.replicatedGraphCount if opts.enableReplicatedGraphs else 1


def _setup_distributed(options):
    if options is not None and options.enableDistributedReplicatedGraphs:
        from popart import distributed
        distributed.setup()


class _SessionMixin:
    def _init_common(self, dataFlow, userOptions):
        # Copies: the session was compiled for these values, later edits to the
        # caller's objects must not change the anchor shapes it reports.
        self._dataFlow = popart_core.DataFlow(
            dataFlow.batchesPerStep(), {a: dataFlow.art(a) for a in dataFlow.anchors()})
        self._options = copy.copy(userOptions)

    @property
    def dataFlow(self):
        """The DataFlow (batches per step and anchors) the session was created with."""
        return self._dataFlow

    @property
    def replicationFactor(self) -> int:
        """The number of replicas over all processes (1 without replication)."""
        return self._options.getGlobalReplicationFactor()

    @property
    def accumulationFactor(self) -> int:
        """Micro-batches per weight update (1 without gradient accumulation)."""
        return self._options.getAccumulationFactor()

    def initAnchorArrays(self) -> Dict[str, np.ndarray]:
        """Zeroed numpy arrays of the right shape and dtype for every anchor."""
        return {
            a: np.zeros(_anchor_shape(self, a), dtype=self._getNumpyDtype(a))
            for a in self.dataFlow.anchors()
        }


class InferenceSession(_SessionMixin, popart_core._InferenceSessionCore):
    """Runs an ONNX model for inference on a device.

    Arguments: fnModel (ModelProto bytes or a file name), dataFlow (a DataFlow:
    batches per step and anchors), deviceInfo (from DeviceManager), then
    optionally inputShapeInfo (InputShapeInfo for inputs the model leaves
    unshaped), patterns (Patterns, default level Default), userOptions
    (SessionOptions, copied) and name (default "inference").

    Call prepareDevice() once, then run(PyStepIO(inputs, anchors)) as often as
    needed; initAnchorArrays() makes the anchor arrays."""

    def __init__(self, fnModel, dataFlow, deviceInfo, inputShapeInfo=None,
                 patterns=None, userOptions=None, name: str = "inference"):
        """Creates the session (see the class docstring for the arguments); it runs after prepareDevice()."""
        userOptions = userOptions if userOptions is not None else popart_core.SessionOptions()
        _setup_distributed(userOptions)
        inputShapeInfo = inputShapeInfo if inputShapeInfo is not None else popart_core.InputShapeInfo()
        patterns = patterns if patterns is not None else popart_core.Patterns()
        super().__init__(fnModel, dataFlow, deviceInfo, inputShapeInfo, userOptions, patterns, name)
        self._init_common(dataFlow, userOptions)

    @classmethod
    def fromIr(cls, ir, deviceInfo, name: str = "fromIr") -> "InferenceSession":
        """Creates an inference session from an IR built op by op (a
        ``popart._internal.ir.Ir``, e.g. ``popxl.Ir()._pb_ir``). The IR is
        prepared (patterns, constant folding, pruning, in-placing) unless it is
        already; its data flow and session options are the session's."""
        self = cls.__new__(cls)
        popart_core._InferenceSessionCore.__init__(self, ir=ir, deviceInfo=deviceInfo, name=name)
        self._init_common(self._irDataFlow(), self._irSessionOptions())
        return self


class TrainingSession(_SessionMixin, popart_core._TrainingSessionCore):
    """Trains an ONNX model: every run() does the forward pass, the backward
    pass and the optimizer's weight updates for batchesPerStep x
    accumulationFactor micro-batches.

    Arguments: fnModel (ModelProto bytes or a file name), dataFlow (DataFlow),
    loss (id of the scalar loss tensor, e.g. from builder.aiGraphcore.nllloss),
    optimizer (SGD, ConstSGD, Adam or Adaptive), deviceInfo, then optionally
    inputShapeInfo, patterns, userOptions (SessionOptions, copied) and name
    (default "training"). Gradients can be anchored as
    popart.reservedGradientPrefix() + tensor id."""

    def __init__(self, fnModel, dataFlow, loss, optimizer, deviceInfo, inputShapeInfo=None,
                 patterns=None, userOptions=None, name: str = "training"):
        """Creates the session (see the class docstring for the arguments); it runs after prepareDevice()."""
        userOptions = userOptions if userOptions is not None else popart_core.SessionOptions()
        _setup_distributed(userOptions)
        inputShapeInfo = inputShapeInfo if inputShapeInfo is not None else popart_core.InputShapeInfo()
        patterns = patterns if patterns is not None else popart_core.Patterns()
        super().__init__(fnModel, dataFlow, loss, optimizer, deviceInfo, inputShapeInfo, userOptions,
                         patterns, name)
        self._init_common(dataFlow, userOptions)

    @classmethod
    def fromIr(cls, ir, deviceInfo, name: str = "fromIr", optimizer=None) -> "TrainingSession":
        """Creates a training session from an IR built op by op (a
        ``popart._internal.ir.Ir``). The IR's final loss and optimizer (or
        ``optimizer`` when given, for an IR not yet prepared) drive autodiff
        and the weight updates; the IR is prepared unless it is already."""
        self = cls.__new__(cls)
        popart_core._TrainingSessionCore.__init__(self, ir=ir, deviceInfo=deviceInfo, name=name,
                                                  optimizer=optimizer)
        self._init_common(self._irDataFlow(), self._irSessionOptions())
        return self

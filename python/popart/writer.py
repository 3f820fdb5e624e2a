"""Framework-independent base for driving PopART from another framework.

A framework subclasses NetWriter and provides ``saveModel`` (write its model as
ONNX), ``train`` and ``infer`` (run one step of the framework's own model, used as
a reference)."""


class NetWriter:
    """Base class, inherited once per framework.

    Args:
        inNames: the model's input names, in order.
        outNames: the model's output names.
        optimizer: an optimizer (ConstSGD, SGD, ...) or None for inference.
        dataFlow: the data feeds and fetches (popart.DataFlow).
        inputShapeInfo: shape and type of each input (popart.InputShapeInfo).
    """

    def __init__(self, inNames, outNames, optimizer, dataFlow, inputShapeInfo):
        self.inNames = list(inNames)
        self.outNames = list(outNames)
        self.optimizer = optimizer
        self.dataFlow = dataFlow
        self.inputShapeInfo = inputShapeInfo
        self.trainMode = optimizer is not None

    def saveModel(self, filename: str) -> None:
        """Write the model as ONNX to ``filename`` (the framework's subclass implements it)."""
        raise NotImplementedError(f"{type(self).__name__} must implement saveModel (NetWriter is a base class)")

    def train(self, inMap):
        """One training step of the framework's model on ``inMap`` (input name -> array)."""
        raise NotImplementedError(f"{type(self).__name__} must implement train (NetWriter is a base class)")

    def infer(self, inMap):
        """One inference step of the framework's model on ``inMap``."""
        raise NotImplementedError(f"{type(self).__name__} must implement infer (NetWriter is a base class)")

    def step(self, inMap):
        """``train`` in training mode, else ``infer``."""
        return self.train(inMap) if self.trainMode else self.infer(inMap)

"""popart.Builder: builds ONNX models. Wraps popart_core._BuilderCore and adds
the opset objects (aiOnnx, aiOnnxOpsetN, aiOnnxMl, aiGraphcore) whose op
methods are generated from the C++ op table (see popart._builder_ops)."""
import enum
import os
from typing import Dict, Iterable, List, Optional, Union

import numpy as np
import popart_core

from popart import _builder_ops as _ops

# PopART's path for the C++ builder class: popart.builder._BuilderCore.
_BuilderCore = popart_core._BuilderCore

__all__ = [
    "Builder", "Opset", "AiOnnx", "AiOnnx6", "AiOnnx7", "AiOnnx8", "AiOnnx9", "AiOnnx10",
    "AiOnnx11", "AiOnnxMl", "AiGraphcore", "AiGraphcoreOpset1", "DebugContext",
    "ScatterReduction", "CollectiveOperator", "InitType",
]

_DEFAULT_OPSETS = {"ai.onnx": 11, "ai.onnx.ml": 1, "ai.graphcore": 1}



def _write_atomically(filename, data: bytes) -> None:
    """Writes via a temporary file in the same folder, fsynced then renamed, so the old file survives a failure."""
    if os.path.exists(filename) and not os.path.isfile(filename):
        with open(filename, "wb") as f:  # a device or pipe: write in place, errors propagate
            f.write(data)
        return
    import tempfile  # only when saving (its import costs memory)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(filename)), prefix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, filename)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

class DebugContext:
    """Debug information attached to a node: on the CPU only its name is used."""

    def __init__(self, name: str = "", parent=None):
        parent_name = str(parent) if parent is not None else ""
        self.name = f"{parent_name}/{name}" if parent_name and name else (name or parent_name)

    def __str__(self):
        return self.name


def _core_enum(name, members, doc):
    existing = getattr(popart_core, name, None)
    if existing is not None:
        return existing
    e = enum.IntEnum(name, members)
    e.__doc__ = doc
    return e


ScatterReduction = _core_enum(
    "ScatterReduction", [("Sum", 0), ("Max", 1), ("Min", 2), ("Mul", 3), ("NoReduction", 4)],
    "How ai.graphcore ScatterReduce combines values landing on the same index (its `reduction`).")
CollectiveOperator = _core_enum("CollectiveOperator", [
    ("Add", 0), ("Mean", 1), ("Mul", 2), ("Min", 3), ("Max", 4), ("LogicalAnd", 5),
    ("LogicalOr", 6), ("SquareAdd", 7), ("Local", 8)],
    "How a replicated collective (replicatedallreduce, ...) combines the replicas' values.")
InitType = _core_enum("InitType", [("NoInit", 0), ("Zero", 1)],
                      "What an ai.graphcore Init node fills its tensor with: nothing (NoInit) or zeros (Zero).")


class Opset:
    """Minimal base class for the opsets: a builder and a version."""

    domain = "ai.onnx"

    def __init__(self, builder: "Builder", version: int) -> None:
        self._builder = builder
        self.version = version

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        for (domain, op_type), specs in _ops.SPECS.items():
            if domain == self.domain and _ops.method_name(domain, op_type) == name:
                raise AttributeError(
                    f"Op {op_type} is not available in {domain} opset {self.version}: it first "
                    f"appears in opset {specs[0].since_version}")
        raise AttributeError(f"{type(self).__name__} (opset {self.domain} {self.version}): no op "
                             f"'{name}'{_suggest(name, self._opNames())}")

    def _opNames(self) -> List[str]:
        """The op methods callable on this opset."""
        return [n for n in dir(type(self)) if not n.startswith("_") and callable(getattr(type(self), n))]


def _suggest(name: str, candidates: Iterable[str]) -> str:
    """' — did you mean 'x'?' for the closest candidates (ties all named), else ''."""
    import difflib
    scored = [(difflib.SequenceMatcher(None, name.lower(), c.lower()).ratio(), c) for c in candidates]
    scored = [(r, c) for r, c in scored if r >= 0.6]
    if not scored:
        return ""
    best = max(r for r, _ in scored)
    close = sorted(c for r, c in scored if r == best)[:3]
    return " — did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


def _graph_op(opset, op_type, args, num_outputs, attrs, debug):
    """Adds a node with sub-graph attributes, typing the sub-graphs' outputs first."""
    for value in attrs.values():
        if isinstance(value, Builder):
            value._fillOutputTypes()
    spec = _ops.spec_at(opset.domain, op_type, opset.version)
    attrs = {k: (v._impl if isinstance(v, Builder) else v) for k, v in attrs.items() if v is not None}
    return _ops.add_op(opset, spec, args, num_outputs, attrs, debug)


class AiOnnx(Opset):
    """Base class for the ai.onnx opsets; If/Loop and Constant live here."""

    def constant(self, value: np.ndarray, is_value_sparse: bool = False, debugContext="") -> str:
        """Add a Constant node holding a copy of `value` (a numpy array or anything np.asarray takes);
        returns its output id. is_value_sparse is accepted for PopART's signature and ignored."""
        value = np.asarray(value)
        return self._builder._impl.addOp("", "Constant", self.version, [], 1, {"value": value},
                                         str(debugContext or ""))[0]

    def logical_if(self, args: List[str], num_outputs: int, else_branch: "Builder",
                   then_branch: "Builder", name="") -> List[str]:
        """Add an If node: args = [condition]; then_branch and else_branch are sub-graph builders
        (createSubgraphBuilder) with num_outputs outputs each. Returns the output ids."""
        return _graph_op(self, "If", args, num_outputs,
                         {"else_branch": else_branch, "then_branch": then_branch}, name)

    def loop(self, args: List[str], num_outputs: int, body: "Builder", debugContext="") -> List[str]:
        """Add a Loop node: args = [max trip count, condition, loop-carried values...]; `body` is a
        sub-graph builder taking (iteration, condition, carried...) and returning (condition,
        carried..., scan outputs...). Returns the num_outputs output ids."""
        return _graph_op(self, "Loop", args, num_outputs, {"body": body}, debugContext)


_ONNX_SPECIAL = ("constant", "logical_if", "loop", "scan")


class AiOnnx6(AiOnnx):
    """Builder interface for ai.onnx version 6."""


class AiOnnx7(AiOnnx6):
    """Builder interface for ai.onnx version 7."""


class AiOnnx8(AiOnnx7):
    """Builder interface for ai.onnx version 8."""

    def scan(self, args: List[str], num_outputs: int, body: "Builder", num_scan_inputs: int,
             directions: Iterable[int] = (), debugContext="") -> List[str]:
        """Add a Scan node (opset 8 form, with a leading sequence-lengths input): the last
        num_scan_inputs of args are scanned along axis 1 by the sub-graph `body`; directions (default
        all forward) gives 1 for reversed inputs. Returns the num_outputs output ids."""
        return _graph_op(self, "Scan", args, num_outputs,
                         {"body": body, "num_scan_inputs": int(num_scan_inputs),
                          "directions": list(directions) or None}, debugContext)


class AiOnnx9(AiOnnx8):
    """Builder interface for ai.onnx version 9."""

    def scan(self, args: List[str], num_outputs: int, body: "Builder", num_scan_inputs: int,
             scan_input_axes: Iterable[int] = (), scan_input_directions: Iterable[int] = (),
             scan_output_axes: Iterable[int] = (), scan_output_directions: Iterable[int] = (),
             debugContext="") -> List[str]:
        """Add a Scan node (opset 9 form): the last num_scan_inputs of args are scanned by the
        sub-graph `body`; the axes and directions lists (default: axis 0, forward) choose how each
        scan input and output is walked. Returns the num_outputs output ids."""
        lists = {"scan_input_axes": scan_input_axes, "scan_input_directions": scan_input_directions,
                 "scan_output_axes": scan_output_axes, "scan_output_directions": scan_output_directions}
        attrs = {k: list(v) or None for k, v in lists.items()}
        attrs.update(body=body, num_scan_inputs=int(num_scan_inputs))
        return _graph_op(self, "Scan", args, num_outputs, attrs, debugContext)


class AiOnnx10(AiOnnx9):
    """Builder interface for ai.onnx version 10."""


class AiOnnx11(AiOnnx10):
    """Builder interface for ai.onnx version 11."""


_ONNX_CLASSES = {6: AiOnnx6, 7: AiOnnx7, 8: AiOnnx8, 9: AiOnnx9, 10: AiOnnx10, 11: AiOnnx11}
# Opsets past PopART's 11 (the versions today's exporters write), each a
# sub-class of the one before, with methods from the same op table.
for _v in range(12, 22):
    _ONNX_CLASSES[_v] = type(f"AiOnnx{_v}", (_ONNX_CLASSES[_v - 1],),
                             {"__doc__": f"Builder interface for ai.onnx version {_v}."})
    globals()[f"AiOnnx{_v}"] = _ONNX_CLASSES[_v]
    __all__.append(f"AiOnnx{_v}")
for _v, _cls in _ONNX_CLASSES.items():
    _ops.install_methods(_cls, "ai.onnx", _v, skip=_ONNX_SPECIAL)


class AiOnnxMl(Opset):
    """Builder interface for ai.onnx.ml (version 1)."""

    domain = "ai.onnx.ml"

    def __init__(self, builder: "Builder", version: int) -> None:
        if version != 1:
            raise ValueError(f"Invalid ai.onnx.ml opset version {version}: only 1 is supported")
        super().__init__(builder, version)


_ops.install_methods(AiOnnxMl, "ai.onnx.ml", 1)


class AiGraphcore(Opset):
    """Builder interface for the ai.graphcore ops (version 1)."""

    domain = "ai.graphcore"

    def __init__(self, builder: "Builder", version: int) -> None:
        if version != 1:
            raise ValueError(f"Invalid ai.graphcore opset version {version}: only 1 is supported")
        super().__init__(builder, version)

    def call(self, args: List[str], num_outputs: int, callee: "Builder", debugName="") -> List[str]:
        """Add a Call node running the sub-graph builder `callee` on args; returns its num_outputs
        output ids. The sub-graph is differentiable like any op."""
        return _graph_op(self, "Call", args, num_outputs, {"callee": callee}, debugName)

    def packedDataBlock(self, args, maxSequenceLengths, resultSize, callbackBatchSize, callback,
                        debugContext="") -> str:
        """Add a PackedDataBlock node: args hold (data, offsets, lengths) per packed input plus
        (resultOffsets, resultLengths); the sub-graph `callback` runs on callbackBatchSize unpacked
        sequences at a time (padded to maxSequenceLengths) and the results are packed into a
        [resultSize, ...] output. Returns the output id."""
        attrs = {"maxSequenceLengths": list(maxSequenceLengths), "resultSize": int(resultSize),
                 "callbackBatchSize": int(callbackBatchSize), "callback": callback}
        return _graph_op(self, "PackedDataBlock", args, None, attrs, debugContext)

    def reshape(self, args: Union[str, List[str]], shape: Iterable[int], debugContext="") -> str:
        """Add an ai.graphcore Reshape node giving args[0] the constant `shape` (an attribute, not an
        input); returns the output id."""
        spec = _ops.spec_at(self.domain, "Reshape", self.version)
        return _ops.add_op(self, spec, args, None, {"shape": [int(d) for d in shape]}, str(debugContext))

    def init(self, shape, data_type, init_type, batch_axis=-1, debugContext="") -> str:
        """Add an Init node: a tensor of `shape` and `data_type` (a DataType) filled per `init_type`
        (InitType.Zero or NoInit); batch_axis (default -1) marks a batch dimension. Returns its id."""
        if isinstance(batch_axis, (str, DebugContext)):  # the overload without batch_axis
            batch_axis, debugContext = -1, batch_axis
        spec = _ops.spec_at(self.domain, "Init", self.version)
        attrs = {"shape": [int(d) for d in shape], "data_type": _ops._to_int(data_type),
                 "init_type": _ops._to_int(init_type), "batch_axis": int(batch_axis)}
        return _ops.add_op(self, spec, [], None, attrs, str(debugContext))

    def printtensor(self, args, print_gradient=1, debugContext="", title="", summariseThreshold=1000,
                    edgeItems=3, maxLineWidth=75, digits=8, floatFormat=0, separator=" ",
                    openBracket="[", closeBracket="]") -> str:
        """Add a PrintTensor node: returns args[0] unchanged and prints its value (and, with
        print_gradient=1, its gradient) at every run, formatted by the remaining arguments."""
        spec = _ops.spec_at(self.domain, "PrintTensor", self.version)
        attrs = dict(print_gradient=int(print_gradient), title=title, summariseThreshold=summariseThreshold,
                     edgeItems=edgeItems, maxLineWidth=maxLineWidth, digits=digits,
                     floatFormat=_ops._to_int(floatFormat), separator=separator,
                     openBracket=openBracket, closeBracket=closeBracket)
        return _ops.add_op(self, spec, args, None, attrs, str(debugContext))

    def _collective(self, name, op_type, args, collectiveOperator, commGroup, replicaGrouping, debugContext):
        """Adds a replicated collective over the replicas of commGroup (a CommGroup) or replicaGrouping (a
        ReplicaGrouping, for strided groups; it may also be passed in commGroup's place)."""
        if isinstance(commGroup, popart_core.ReplicaGrouping):
            if replicaGrouping is not None:
                raise popart_core.popart_exception(
                    f"{name}: got two replica groupings (commGroup={commGroup!r} and replicaGrouping="
                    f"{replicaGrouping!r}); pass one")
            commGroup, replicaGrouping = None, commGroup
        attrs = {}
        if collectiveOperator is not None:
            if not isinstance(collectiveOperator, CollectiveOperator):
                raise TypeError(f"{name}: collectiveOperator must be a popart.CollectiveOperator, "
                                f"got {type(collectiveOperator).__name__}")
            attrs["__collectiveOperator"] = int(collectiveOperator)
        if commGroup is not None and replicaGrouping is not None:
            raise popart_core.popart_exception(
                f"{name}: give commGroup or replicaGrouping, not both (got {commGroup!r} and {replicaGrouping!r})")
        if commGroup is not None:
            if not isinstance(commGroup, popart_core.CommGroup):
                raise TypeError(f"{name}: commGroup must be a popart.CommGroup or popart.ReplicaGrouping, "
                                f"got {type(commGroup).__name__}")
            sized = (popart_core.CommGroupType.Consecutive, popart_core.CommGroupType.Orthogonal)
            if commGroup.type in sized and commGroup.replicaGroupSize < 1:
                raise popart_core.popart_exception(
                    f"{name}: commGroup of type {commGroup.type.name} needs a replicaGroupSize of at least 1, "
                    f"got {commGroup.replicaGroupSize}")
            attrs["__collectiveCommGroup"] = [int(commGroup.type), int(commGroup.replicaGroupSize)]
        if replicaGrouping is not None:
            if not isinstance(replicaGrouping, popart_core.ReplicaGrouping):
                raise TypeError(f"{name}: replicaGrouping must be a popart.ReplicaGrouping, "
                                f"got {type(replicaGrouping).__name__}")
            attrs["__collectiveReplicaGrouping"] = [replicaGrouping.getStride(), replicaGrouping.getGroupSize()]
            attrs["__collectiveReplicaGroupingReplicas"] = replicaGrouping.getNumReplicas()
        spec = _ops.spec_at(self.domain, op_type, self.version)
        return _ops.add_op(self, spec, args, None, attrs, str(debugContext))

    def replicatedallreduce(self, args, collectiveOperator=None, commGroup=None, debugContext="",
                            replicaGrouping=None) -> str:
        """Add a ReplicatedAllReduce node: every replica gets args[0] reduced with collectiveOperator
        (default Add) over the replicas of its group: commGroup (a CommGroup; default all replicas) or
        replicaGrouping (a ReplicaGrouping over the session's global replicas, for groups whose members are
        `stride` apart; also accepted in commGroup's place). Returns the output id."""
        return self._collective("replicatedallreduce", "ReplicatedAllReduce", args, collectiveOperator, commGroup,
                                replicaGrouping, debugContext)

    def replicatedreducescatter(self, args, collectiveOperator=None, commGroup=None, debugContext="",
                                replicaGrouping=None) -> str:
        """Add a ReplicatedReduceScatter node: args[0] reduced with collectiveOperator (default Add) over
        the replicas of its group (commGroup or replicaGrouping, as for replicatedallreduce), flattened and
        split into one zero-padded slice per group member; each replica gets its slice. Returns the output
        id."""
        return self._collective("replicatedreducescatter", "ReplicatedReduceScatter", args, collectiveOperator,
                                commGroup, replicaGrouping, debugContext)

    def replicatedallgather(self, args, commGroup=None, debugContext="", replicaGrouping=None) -> str:
        """Add a ReplicatedAllGather node: every replica gets args[0] of each replica of its group (commGroup
        or replicaGrouping, as for replicatedallreduce), flattened and concatenated in group order. Returns
        the output id."""
        return self._collective("replicatedallgather", "ReplicatedAllGather", args, None, commGroup,
                                replicaGrouping, debugContext)

    def multiconv(self, args, dilations=(), inDilations=(), pads=(), outPads=(), strides=(),
                  availableMemoryProportions=(), partialsTypes=(), planType=None,
                  perConvReservedTiles=None, cycleBackOff=None, enableConvDithering=(),
                  debugContext="") -> List[str]:
        """Add a MultiConv node: several independent convolutions in one op. args is a list of
        [data, weights(, bias)]; dilations, inDilations, pads, outPads and strides are lists with
        one entry per convolution (empty: the defaults). The IPU planning arguments are stored.
        Returns one output id per convolution."""
        inputs = []
        for conv in args:
            if len(conv) not in (2, 3):
                raise popart_core.popart_exception(f"multiconv: each convolution takes [data, weights(, bias)], got {conv}")
            inputs += list(conv) + [""] * (3 - len(conv))
        flat = lambda lists: [int(v) for lst in lists for v in lst]  # noqa: E731
        attrs = {"dilations": flat(dilations), "inDilations": flat(inDilations), "pads": flat(pads),
                 "outPads": flat(outPads), "strides": flat(strides),
                 "availableMemoryProportions": [float(v) for v in availableMemoryProportions],
                 "partialsTypes": list(partialsTypes), "planType": planType,
                 "perConvReservedTiles": perConvReservedTiles, "cycleBackOff": cycleBackOff,
                 "enableConvDithering": [int(v) for v in enableConvDithering]}
        attrs = {k: v for k, v in attrs.items() if v is not None and v != []}
        spec = _ops.spec_at(self.domain, "MultiConv", self.version)
        return self._builder._impl.addOp(spec.domain, spec.type, self.version, inputs, len(args),
                                         attrs, str(debugContext))


_GRAPHCORE_SPECIAL = ("call", "packedDataBlock", "reshape", "init", "printtensor",
                      "replicatedallreduce", "replicatedreducescatter", "replicatedallgather", "multiconv")
_ops.install_methods(AiGraphcore, "ai.graphcore", 1, skip=_GRAPHCORE_SPECIAL)


class AiGraphcoreOpset1(AiGraphcore):
    """Sub-class for backwards compatibility; forwards everything to AiGraphcore."""


class Builder:
    """Builds an ONNX model op by op, or continues an existing one.

    Builder() starts an empty model at ai.onnx opset 11 (PopART's default);
    Builder(opsets={"ai.onnx": 20}) chooses another opset (6 to 21);
    Builder(modelProtoOrFilename) loads a model (bytes or file name) and
    continues it at the opsets it imports, so a loss can be added to a model
    exported today.

    Ops are added through the opset objects: builder.aiOnnx (the chosen
    opset), builder.aiOnnxOpset6 ... aiOnnxOpset21, builder.aiGraphcore and
    builder.aiOnnxMl; each op method takes the input ids, then the op's
    attributes with their defaults (help(builder.aiOnnx.conv) lists them).
    Inputs, weights, outputs, annotations and queries (addInputTensor,
    addInitializedInputTensor, addOutputTensor, virtualGraph, nameScope,
    getModelProto, ...) are methods of popart_core._BuilderCore, which this
    class forwards to."""

    def __init__(self, modelProtoOrFilename: Union[str, bytes, None] = None,
                 opsets: Optional[Dict[str, int]] = None,
                 builderCore: Optional[popart_core._BuilderCore] = None) -> None:
        """modelProtoOrFilename: a model to continue (default: a new one); opsets: dict of domain to
        version overriding the defaults or the model's; builderCore: wrap an existing core builder."""
        if builderCore is not None:
            self._impl = builderCore
        elif modelProtoOrFilename is not None:
            self._impl = popart_core._BuilderCore(modelProtoOrFilename)
        else:
            self._impl = popart_core._BuilderCore()
        self.opsets = dict(_DEFAULT_OPSETS)
        if modelProtoOrFilename is not None and builderCore is None:
            self.opsets.update(self._modelOpsets())  # continue the model at its own opsets
        self.opsets.update(opsets or {})
        onnx_version = self.opsets["ai.onnx"]
        if onnx_version not in _ONNX_CLASSES:
            raise ValueError(f"Invalid ai.onnx opset version {onnx_version}: supported are "
                             f"{min(_ONNX_CLASSES)} to {max(_ONNX_CLASSES)}")
        for v, cls in _ONNX_CLASSES.items():
            setattr(self, f"aiOnnxOpset{v}", cls(self, v))
        self.aiOnnx = getattr(self, f"aiOnnxOpset{onnx_version}")
        self.aiOnnxMl = AiOnnxMl(self, self.opsets["ai.onnx.ml"])
        self.aiGraphcore = AiGraphcore(self, self.opsets["ai.graphcore"])
        self.aiGraphcoreOpset1 = AiGraphcoreOpset1(self, 1)
        if builderCore is None:
            self._impl.setDefaultOpsetVersion(onnx_version)

    def _modelOpsets(self) -> Dict[str, int]:
        """The opset versions the loaded model imports (ai.onnx, ai.graphcore)."""
        found = {}
        for domain in ("ai.onnx", "ai.graphcore"):
            version = int(self._impl.getOpsetVersion(domain))
            if version > 0:
                found[domain] = version
        return found

    def __getattr__(self, name):
        if name == "_impl":
            raise AttributeError(name)
        return getattr(self._impl, name)

    def createSubgraphBuilder(self) -> "Builder":
        """A child builder whose graph can be called (call, logical_if, loop, scan)."""
        child = Builder(opsets=self.opsets, builderCore=self._impl.createSubgraphBuilder())
        child._parent = self
        return child

    def reshape_const(self, aiOnnx: Opset, args: List[str], shape: Iterable[int], debugContext="") -> List[str]:
        """Reshape args[0] to a constant shape (a Constant node plus Reshape)."""
        shape = np.asarray(list(shape), dtype=np.int64)
        const = aiOnnx.constant(shape, debugContext=debugContext)
        return aiOnnx.reshape([args[0], const], debugContext=debugContext)

    # ---- shape and type queries, completed by ONNX shape inference ----
    def getTensorShape(self, id: str) -> List[int]:
        """The shape of tensor `id`, inferred for any op (ai.onnx, ai.graphcore, custom)."""
        self._ensureTyped(id)
        return self._impl.getTensorShape(id)

    def getTensorDtypeString(self, id: str) -> str:
        """The numpy name of the type of tensor `id` ("float32", "int64", ...)."""
        self._ensureTyped(id)
        return self._impl.getTensorDtypeString(id)

    def _ensureTyped(self, id: str) -> None:
        """ONNX shape inference first, then the ops' own inference (ai.graphcore
        and custom ops, which ONNX does not know)."""
        if self._impl.hasValueInfo(id):
            return
        self._inferTypes()
        if not self._impl.hasValueInfo(id):
            self._impl._inferTensorInfos()

    def getModelProto(self) -> bytes:
        """The serialised ModelProto; graph outputs carry the types shape inference finds."""
        self._fillOutputTypes()
        proto = self._impl.getModelProto()
        if all(self._impl.hasValueInfo(o) for o in self._impl.getOutputTensorIds()):
            return proto
        return _typeOutputs(proto)

    def saveModelProto(self, filename: str) -> None:
        """Write the model (as getModelProto returns it) to `filename`, atomically."""
        _write_atomically(filename, self.getModelProto())

    def _fillOutputTypes(self):
        untyped = lambda: [o for o in self._impl.getOutputTensorIds() if not self._impl.hasValueInfo(o)]  # noqa: E731
        if untyped():
            self._inferTypes()
        if untyped():
            self._impl._inferTensorInfos()

    def _inferTypes(self):
        """Records the types and static shapes ONNX shape inference finds."""
        try:
            import onnx
            from onnx import shape_inference
        except ImportError:
            return
        model = onnx.load_from_string(self._impl.getModelProto())
        self._addOuterScopeInputs(model)
        try:
            inferred = shape_inference.infer_shapes(model)
        except Exception:  # noqa: BLE001 - partial models simply stay untyped
            return
        from popart.tensorinfo import TensorInfo
        for vi in list(inferred.graph.value_info) + list(inferred.graph.output):
            t = vi.type.tensor_type
            if not t.elem_type or not t.HasField("shape") or self._impl.hasValueInfo(vi.name):
                continue
            dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
            if None in dims or not self._impl.hasTensor(vi.name):
                continue
            dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
            self._impl._setTensorInfo(vi.name, TensorInfo(dtype, dims))


    def _addOuterScopeInputs(self, model):
        """Sub-graphs read enclosing tensors implicitly: declare their types as
        inputs of the standalone model that shape inference sees."""
        parent = getattr(self, "_parent", None)
        g = model.graph
        known = {v.name for v in g.input} | {t.name for t in g.initializer}
        known |= {o for n in g.node for o in n.output}
        import onnx
        for name in sorted({i for n in g.node for i in n.input if i and i not in known}):
            owner = parent
            while owner is not None and not owner._impl.hasValueInfo(name):
                owner = getattr(owner, "_parent", None)
            if owner is None:
                continue
            dtype = np.dtype(owner._impl.getTensorDtypeString(name))
            elem = onnx.helper.np_dtype_to_tensor_dtype(dtype)
            g.input.append(onnx.helper.make_tensor_value_info(name, elem, owner._impl.getTensorShape(name)))


def _typeOutputs(proto: bytes) -> bytes:
    """Copies inferred (possibly partial) types onto untyped graph outputs."""
    try:
        import onnx
        from onnx import shape_inference
        model = onnx.load_from_string(proto)
        g = shape_inference.infer_shapes(model).graph
        inferred = {vi.name: vi.type for vi in list(g.value_info) + list(g.output) if vi.type.WhichOneof("value")}
    except Exception:  # noqa: BLE001 - without onnx or inference the outputs stay untyped
        return proto
    for out in model.graph.output:
        if not out.HasField("type") and out.name in inferred:
            out.type.CopyFrom(inferred[out.name])
    return model.SerializeToString()

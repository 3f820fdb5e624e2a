"""popart._internal.ir.op: one class per op type of the registry (AddOp, MatMulOp, ReluInplaceOp, CallOp,
LoopOp, ...), with the submodules collectives, exchange and dynamic.

The ops a graph holds are instances of the bound ``Op`` class; ``isinstance(op, AddOp)`` is true when
``op.opType()`` is "Add". Each class also gives ``Graph.createConnectedOp_<Class>(inputs, outputs,
attributes=None, name="")``, which creates an op of that type connected to the given tensor ids."""
import sys
import types

import popart_core as _core

_Op = _core._ir.Op
_Graph = _core._ir.Graph


class _OpClassMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _Op) and obj.opType() == cls.op_type and (
            cls.domain is None or obj.opid().domain == cls.domain)


def _make_class(opid):
    name = opid.type + "Op"

    def create(graph, inputs, outputs, attributes=None, name_=""):
        return graph.createConnectedOp(opid.domain, opid.type, 0, dict(inputs), dict(outputs),
                                       attributes or {}, name_)
    create.__name__ = f"createConnectedOp_{name}"
    create.__doc__ = (f"Creates a {opid.domain}.{opid.type} op connected to `inputs` ({{index: tensor id}}) and "
                      f"`outputs` ({{index: new tensor id}}), with optional attributes and name.")
    cls = _OpClassMeta(name, (), {
        "op_type": opid.type, "domain": opid.domain, "opid": opid,
        "__doc__": f"The {opid.domain}.{opid.type} op (newest registered version {opid.version}).",
        "__module__": __name__,
    })
    if not hasattr(_Graph, create.__name__):
        setattr(_Graph, create.__name__, create)
    return name, cls


def _newest(ids):
    best = {}
    for i in ids:
        key = (i.domain, i.type)
        if key not in best or i.version > best[key].version:
            best[key] = i
    # one class per type name: ai.graphcore wins over ai.onnx only when ONNX has no op of that name
    by_type = {}
    for (domain, type_), i in sorted(best.items(), key=lambda kv: kv[0][0] != "ai.onnx"):
        by_type.setdefault(type_, i)
    return by_type.values()


def _submodule(name, doc, predicate, classes):
    mod = types.ModuleType(f"{__name__}.{name}", doc)
    for cname, cls in classes.items():
        if predicate(cls.op_type):
            setattr(mod, cname, cls)
    sys.modules[mod.__name__] = mod
    return mod


_classes = dict(_make_class(i) for i in _newest(_core._ir.supportedOperations(True)))
globals().update(_classes)


def __getattr__(name):
    # An op registered after this module was imported (a custom op library loaded later).
    if name.endswith("Op"):
        for i in _newest(_core._ir.supportedOperations(True)):
            if i.type + "Op" == name:
                cname, cls = _make_class(i)
                _classes[cname] = cls
                globals()[cname] = cls
                return cls
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")

collectives = _submodule("collectives", "Collective ops (replicated all-reduce, all-gather, reduce-scatter).",
                         lambda t: t.startswith("Replicated") or t in ("AllReduce",), _classes)
exchange = _submodule("exchange", "Host and remote exchange ops (HostLoad, HostStore, RemoteLoad, RemoteStore).",
                      lambda t: t.startswith(("Host", "Remote")), _classes)
dynamic = _submodule("dynamic", "Dynamic slicing and updating ops.", lambda t: t.startswith("Dynamic"), _classes)

__all__ = sorted(_classes) + ["collectives", "exchange", "dynamic"]

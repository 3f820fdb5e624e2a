"""Data-driven Builder op methods: one method per op of the C++ op table.

A method takes `args` (input ids; omitted for ops without inputs), then
`num_outputs` when the op's output count varies, then the op's attributes in
PopART's order with their defaults, then `debugContext`."""
import numpy as np
import popart_core

# ONNX TensorProto element types, for attributes such as Cast's `to`.
_ONNX_TYPES = {
    "FLOAT": 1, "FLOAT32": 1, "UINT8": 2, "INT8": 3, "UINT16": 4, "INT16": 5, "INT32": 6,
    "INT64": 7, "STRING": 8, "BOOL": 9, "FLOAT16": 10, "HALF": 10, "DOUBLE": 11, "FLOAT64": 11,
    "UINT32": 12, "UINT64": 13, "COMPLEX64": 14, "COMPLEX128": 15, "BFLOAT16": 16,
    "FLOAT8E4M3FN": 17, "FLOAT8E4M3FNUZ": 18, "FLOAT8E5M2": 19, "FLOAT8E5M2FNUZ": 20, "UINT4": 21,
    "INT4": 22, "FLOAT4E2M1": 23, "FLOAT8E8M0": 24, "UINT2": 25, "INT2": 26,
}
_TYPE_ATTRS = {"to", "dtype"}
_DEBUG_ALIASES = ("debugContext", "debugPrefix", "debug_context", "name", "debugName")

# Method names differing from the lower-cased op type.
METHOD_NAMES = {
    ("ai.onnx", "And"): "logical_and", ("ai.onnx", "Or"): "logical_or",
    ("ai.onnx", "Not"): "logical_not", ("ai.onnx", "Xor"): "logical_xor",
    ("ai.onnx", "If"): "logical_if",
    ("ai.graphcore", "Ctc"): "ctcloss", ("ai.graphcore", "Nll"): "nllloss",
    ("ai.graphcore", "L1"): "l1loss", ("ai.graphcore", "NormalizeImage"): "normalize_image",
    ("ai.graphcore", "PackedDataBlock"): "packedDataBlock",
}
# Ops whose node has more outputs than the method returns.
_FIRST_OUTPUT_ONLY = {("ai.graphcore", "Ctc")}


def method_name(domain, op_type):
    return METHOD_NAMES.get((domain, op_type), op_type.lower())


def _parse_default(type_name, text):
    if text is None:
        return None
    if type_name == "INT":
        return int(text)
    if type_name == "FLOAT":
        return float(np.float32(text))
    if type_name == "STRING":
        return text
    items = [t for t in text.split(",") if t != ""]
    if type_name == "INTS":
        return [int(t) for t in items]
    if type_name == "FLOATS":
        return [float(np.float32(t)) for t in items]
    if type_name == "STRINGS":
        return items
    return None


class Attr:
    def __init__(self, name, type_name, required, default_text):
        self.name = name
        self.type = type_name
        self.required = required
        self.default = _parse_default(type_name, default_text)
        self.has_default = default_text is not None


class OpSpec:
    """One schema row of the op table, in the shape the methods need."""

    def __init__(self, row):
        self.domain = row["domain"]
        self.type = row["type"]
        self.since_version = row["since_version"]
        self.deprecated = row["deprecated"]
        self.min_inputs, self.max_inputs = row["min_inputs"], row["max_inputs"]
        self.min_outputs, self.max_outputs = row["min_outputs"], row["max_outputs"]
        self.attrs = [Attr(*a) for a in row["attributes"]]

    @property
    def variable_outputs(self):
        return self.min_outputs != self.max_outputs

    def params(self):
        names = ["num_outputs"] if self.variable_outputs else []
        return names + [a.name for a in self.attrs]

    def signature(self):
        parts = ["args"] if self.max_inputs > 0 else []
        parts += ["num_outputs"] if self.variable_outputs else []
        for a in self.attrs:
            default = [] if a.default is None and a.type.endswith("S") else a.default
            parts.append(a.name if a.required else f"{a.name}={default!r}")
        return ", ".join(parts + ["debugContext=''"])


def _load_specs():
    table = {}
    for row in popart_core._opSchemas():
        spec = OpSpec(row)
        table.setdefault((spec.domain, spec.type), []).append(spec)
    return table


SPECS = _load_specs()


def spec_at(domain, op_type, version):
    """The spec in effect at opset `version`, or raise a clear error."""
    versions = SPECS.get((domain, op_type))
    if not versions:
        raise popart_core.popart_exception(f"Unknown op {op_type} in domain {domain}")
    live = [s for s in versions if s.since_version <= version]
    if not live:
        raise popart_core.popart_exception(
            f"Op {op_type} is not available in {domain} opset {version}: "
            f"it first appears in opset {versions[0].since_version}")
    spec = live[-1]
    if spec.deprecated:
        raise popart_core.popart_exception(
            f"Op {op_type} is deprecated in {domain} opset {version}")
    return spec


def ops_of_domain(domain):
    return sorted(t for d, t in SPECS if d == domain)


def _to_int(value):
    if isinstance(value, (bool, int, np.integer)):
        return int(value)
    if hasattr(value, "__int__") and not isinstance(value, (float, np.floating)):
        return int(value)  # pybind11 enums (ReductionType, DataType, ...)
    return value


def normalize(spec, attr, value):
    """Python value -> attribute value of the schema's type, or TypeError."""
    if attr.type == "STRING" and attr.name == "reduction" and spec.domain == "ai.graphcore":
        value = _loss_reduction_name(value)
    if attr.type == "INT":
        if isinstance(value, str) and attr.name in _TYPE_ATTRS:
            try:
                return _ONNX_TYPES[value.upper()]
            except KeyError:
                raise TypeError(f"{spec.type}: unknown data type '{value}' for attribute '{attr.name}'") from None
        if isinstance(value, popart_core.DataType) and attr.name in _TYPE_ATTRS:
            return _ONNX_TYPES[str(value).split(".")[-1]]
        value = _to_int(value)
    elif attr.type == "INTS" and isinstance(value, (list, tuple)):
        value = [_to_int(v) for v in value]
    elif attr.type == "TENSOR" and not isinstance(value, np.ndarray):
        value = np.asarray(value)
    elif attr.type in ("GRAPH",) and hasattr(value, "_impl"):
        value = value._impl
    elif attr.type in ("FLOAT",) and isinstance(value, (np.floating, np.integer)):
        value = float(value)
    elif attr.type == "INTS" and isinstance(value, np.ndarray):
        value = [int(v) for v in value.reshape(-1)]
    _check_type(spec, attr, value)
    return value


_LOSS_REDUCTIONS = ("Sum", "Mean", "NoReduction")


def _loss_reduction_name(value):
    """A loss's reduction as PopART writes it: the STRING "Sum", "Mean" or "NoReduction"."""
    if isinstance(value, str):
        return value
    r = _to_int(value)
    if not isinstance(r, int) or not 0 <= r < len(_LOSS_REDUCTIONS):
        raise TypeError(f"reduction must be a popart.ReductionType (Sum, Mean, NoReduction), got {value!r}")
    return _LOSS_REDUCTIONS[r]


_PY_TYPES = {
    "INT": (int, np.integer), "FLOAT": (float, int, np.floating, np.integer), "STRING": (str,),
    "INTS": (list, tuple), "FLOATS": (list, tuple, np.ndarray), "STRINGS": (list, tuple),
    "TENSOR": (np.ndarray,), "GRAPH": (popart_core._BuilderCore,),
}


def _check_type(spec, attr, value):
    ok = _PY_TYPES.get(attr.type)
    if ok is None or isinstance(value, ok):
        if attr.type == "INT" and isinstance(value, float):
            ok = None
        elif attr.type == "STRINGS" and not all(isinstance(v, str) for v in value):
            ok = None
        elif attr.type == "INTS" and not all(isinstance(v, (int, np.integer)) for v in value):
            ok = None
        if ok is not None:
            return
    raise TypeError(f"{spec.type} (opset {spec.since_version}): attribute '{attr.name}' expects "
                    f"{attr.type}, got {type(value).__name__} {value!r}")


def bind_call(spec, posargs, kwargs):
    """(num_outputs, attributes dict, debug name) from a method's arguments."""
    params = spec.params()
    values = {}
    debug = ""
    if len(posargs) > len(params) + 1:
        raise TypeError(f"{spec.type}: too many positional arguments ({len(posargs)})")
    for name, value in zip(params + ["debugContext"], posargs):
        values[name] = value
    for key, value in kwargs.items():
        key = "debugContext" if key in _DEBUG_ALIASES else key
        if key not in params and key != "debugContext":
            raise TypeError(f"{spec.type}() got an unexpected argument '{key}' "
                            f"(signature: {spec.signature()})")
        if key in values:
            raise TypeError(f"{spec.type}() got multiple values for argument '{key}'")
        values[key] = value
    debug = values.pop("debugContext", "")
    num_outputs = values.pop("num_outputs", None)
    if spec.variable_outputs and num_outputs is None:
        raise TypeError(f"{spec.type}() missing required argument 'num_outputs'")
    attrs = {}
    write_defaults = spec.domain == "ai.graphcore"
    for a in spec.attrs:
        if a.name not in values:
            if a.required:
                raise TypeError(f"{spec.type}() missing required attribute '{a.name}' "
                                f"(signature: {spec.signature()})")
            if write_defaults and a.has_default:
                attrs[a.name] = a.default
            continue
        value = values[a.name]
        if value is None or (isinstance(value, (list, tuple)) and len(value) == 0 and not a.required):
            continue
        value = normalize(spec, a, value)
        if not write_defaults and a.has_default and not a.required and _same(value, a.default):
            continue
        attrs[a.name] = value
    return num_outputs, attrs, debug


def _same(value, default):
    try:
        return bool(np.all(np.asarray(value) == np.asarray(default))) and np.shape(value) == np.shape(default)
    except Exception:  # noqa: BLE001 - incomparable values are simply different
        return False


def add_op(opset, spec, args, num_outputs, attrs, debug):
    """Adds the node through the builder core and shapes the result."""
    if isinstance(args, str):
        args = [args]
    core = opset._builder._impl
    n = -1 if num_outputs is None else int(num_outputs)
    outs = core.addOp(spec.domain, spec.type, opset.version, list(args), n, attrs, debug)
    if (spec.domain, spec.type) in _FIRST_OUTPUT_ONLY:
        return outs[0]
    if spec.max_outputs == 0:
        return None
    if spec.max_outputs == 1:
        return outs[0]
    return outs


def make_method(domain, op_type, version):
    """The method for `op_type` as in effect at `version` of `domain`."""
    spec = spec_at(domain, op_type, version)
    takes_args = spec.max_inputs > 0

    def method(self, *posargs, **kwargs):
        if takes_args:
            if posargs:
                args, posargs = posargs[0], posargs[1:]
            elif "args" in kwargs:
                args = kwargs.pop("args")
            else:
                args = []
        else:
            args = []
        s = spec_at(domain, op_type, self.version)
        num_outputs, attrs, debug = bind_call(s, posargs, kwargs)
        return add_op(self, s, args, num_outputs, attrs, debug)

    method.__name__ = method_name(domain, op_type)
    method.__qualname__ = method.__name__
    method.__doc__ = docstring(spec, version)
    return method


def _count(lo, hi, what):
    if lo == hi:
        return f"{lo} {what}" + ("" if lo == 1 else "s")
    if hi < 2 ** 20:
        return f"{lo} to {hi} {what}s"
    return f"at least {lo} {what}" + ("" if lo == 1 else "s")


def docstring(spec, version):
    """help() text of an op method: signature, inputs, outputs and attributes with defaults."""
    name = method_name(spec.domain, spec.type)
    lines = [f"{name}({spec.signature()})", "",
             f"Adds one {spec.domain}.{spec.type} node, as the op is defined in opset "
             f"{spec.since_version} (the version in effect at opset {version}).", ""]
    if spec.max_inputs > 0:
        lines.append(f"args: list of input tensor ids ({_count(spec.min_inputs, spec.max_inputs, 'input')}).")
    if spec.variable_outputs:
        lines.append(f"num_outputs: number of outputs to create "
                     f"({_count(spec.min_outputs, spec.max_outputs, 'output')}).")
    for a in spec.attrs:
        if a.required:
            state = "required"
        elif a.has_default:
            state = f"default {a.default!r}"
        else:
            state = "optional, unset by default"
        lines.append(f"{a.name}: attribute of type {a.type}, {state}.")
    lines.append("debugContext: name given to the node (default '').")
    outs = "nothing" if spec.max_outputs == 0 else (
        "the output tensor id" if spec.max_outputs == 1 else "the list of output tensor ids")
    lines += ["", f"Returns {outs}."]
    return "\n".join(lines)


def unavailable_method(domain, op_type, version):
    """A method raising the reason why the op cannot be used at `version`."""
    def method(self, *args, **kwargs):
        spec_at(domain, op_type, self.version)
        raise popart_core.popart_exception(f"Op {op_type} is not available in {domain} opset {self.version}")

    method.__name__ = method_name(domain, op_type)
    method.__doc__ = (f"{op_type} is deprecated in {domain} opset {version}: calling this method raises "
                      f"a popart_exception saying so. Use an earlier opset or the op that replaces it.")
    return method


def install_methods(cls, domain, version, skip=()):
    """Defines on `cls` a method per op of `domain`, as in effect at `version`."""
    for op_type in ops_of_domain(domain):
        name = method_name(domain, op_type)
        if name in skip:
            continue
        versions = SPECS[(domain, op_type)]
        if versions[0].since_version > version:
            continue  # not yet defined: the opset's __getattr__ explains
        live = [s for s in versions if s.since_version <= version][-1]
        factory = unavailable_method if live.deprecated else make_method
        setattr(cls, name, factory(domain, op_type, version))

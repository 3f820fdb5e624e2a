"""help() explains the API: every public class, method, function and property of
`popart` (and of `popxl` where it has them) carries a docstring of its own.

A docstring counts when, once pybind11's generated signature lines are removed,
it still holds a sentence (a few words, not just a name or a type)."""
import enum
import inspect
import re

import pytest

import popart
import popart_core

# pybind11's own signature lines: "name(self: X, a: int = 1) -> None" and the
# numbered ones of overloads, plus its "Overloaded function." header.
_SIGNATURE = re.compile(r"^\s*(\d+\.\s*)?[A-Za-z_][\w.]*\(.*\)(\s*->\s*.+)?\s*$")
_MIN_WORDS = 4

# Members every pybind11 class or enum gets from pybind11 itself (not this project's API).
_PYBIND11_MEMBERS = {"name", "value"}


def prose(doc):
    """The docstring without pybind11's signature lines."""
    if not doc:
        return ""
    lines = [ln for ln in doc.splitlines()
             if not _SIGNATURE.match(ln) and ln.strip() != "Overloaded function."]
    return " ".join(" ".join(lines).split())


def is_documented(doc):
    words = re.findall(r"[A-Za-z][\w'-]*", prose(doc))
    return len(words) >= _MIN_WORDS


def _is_enum_class(cls):
    return hasattr(cls, "__members__") or (isinstance(cls, type) and issubclass(cls, enum.Enum))


def _own_classes(cls):
    """cls and its bases that belong to this project (not object, not pybind11's base)."""
    return [c for c in inspect.getmro(cls)
            if (c.__module__ or "").split(".")[0] in ("popart", "popart_core", "popxl")]


def class_members(cls):
    """(qualified name, object) of the public methods and properties of cls."""
    seen = set()
    for c in _own_classes(cls):
        for name, obj in vars(c).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if _is_enum_class(cls) and name in _PYBIND11_MEMBERS:
                continue
            if isinstance(obj, (staticmethod, classmethod)):
                obj = obj.__func__
            if isinstance(obj, property) or callable(obj) or type(obj).__name__ in (
                    "instancemethod", "builtin_function_or_method"):
                if isinstance(obj, type):
                    continue  # nested classes are walked as classes
                yield f"{cls.__name__}.{name}", obj


def public_api(module, names=None):
    """(qualified name, object) for every public class, function and class member."""
    names = names if names is not None else [n for n in dir(module) if not n.startswith("_")]
    for name in sorted(names):
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            continue
        if isinstance(obj, type):
            yield f"{module.__name__}.{name}", obj
            yield from ((f"{module.__name__}.{q}", m) for q, m in class_members(obj))
        elif callable(obj):
            yield f"{module.__name__}.{name}", obj


def undocumented(items):
    return sorted(q for q, obj in items if not is_documented(getattr(obj, "__doc__", None)))


def test_prose_drops_pybind11_signatures():
    sig_only = "enablePattern(self: popart_core.Patterns, type: str, enable: bool) -> popart_core.Patterns\n"
    assert not is_documented(sig_only)
    assert not is_documented("Overloaded function.\n\n1. f(self: X) -> None\n\n2. f(self: X, a: int) -> None\n")
    assert is_documented(sig_only + "\nTurns the named pattern on or off.\n")
    assert not is_documented("The id.")


def test_every_public_popart_name_is_documented():
    missing = undocumented(public_api(popart))
    assert not missing, f"{len(missing)} public popart names without a docstring:\n  " + "\n  ".join(missing)


def test_builder_core_methods_reached_through_builder_are_documented():
    """Builder forwards unknown attributes to popart_core._BuilderCore: help(builder.x) shows those."""
    missing = undocumented(class_members(popart_core._BuilderCore))
    assert not missing, "\n  ".join(["undocumented _BuilderCore members:"] + missing)


@pytest.mark.parametrize("opset", ["aiOnnxOpset6", "aiOnnxOpset11", "aiOnnxOpset13", "aiOnnxOpset21"])
def test_builder_opset_methods_document_arguments_and_defaults(opset):
    builder = popart.Builder()
    ops = getattr(builder, opset)
    names = ops._opNames()
    assert len(names) > 80
    missing = [n for n in names if not is_documented(getattr(type(ops), n).__doc__)]
    assert not missing, missing
    doc = getattr(type(ops), "averagepool").__doc__
    # The signature with defaults, and each attribute's type.
    assert "kernel_shape" in doc and "strides=[]" in doc and "INTS" in doc, doc
    assert "debugContext" in doc


def test_session_options_each_option_is_documented():
    props = [n for n, v in vars(popart.SessionOptions).items()
             if not n.startswith("_") and isinstance(v, property)]
    assert len(props) > 100
    missing = [n for n in props if not is_documented(getattr(popart.SessionOptions, n).__doc__)]
    assert not missing, missing
    # The default is stated in the property's text.
    assert "1" in prose(popart.SessionOptions.accumulationFactor.__doc__)
    assert "default" in prose(popart.SessionOptions.enableGradientAccumulation.__doc__).lower()


@pytest.mark.parametrize("name", ["Builder", "InferenceSession", "TrainingSession", "DataFlow",
                                  "AnchorReturnType", "PyStepIO", "SessionOptions", "SGD", "Adam",
                                  "DeviceManager", "Patterns", "TensorInfo"])
def test_help_output_is_non_trivial(name):
    text = inspect.getdoc(getattr(popart, name)) or ""
    assert len(prose(text)) > 60, (name, text)


def test_documented_popxl_names_keep_their_docstrings():
    """popxl is still growing: check the names it exports today that carry a docstring."""
    popxl = pytest.importorskip("popxl")
    items = list(public_api(popxl, getattr(popxl, "__all__", None)))
    documented = [q for q, obj in items if is_documented(getattr(obj, "__doc__", None))]
    assert len(documented) >= 20, documented
    for q in ("popxl.Ir", "popxl.Tensor", "popxl.Graph"):
        if any(n == q for n, _ in items):
            assert q in documented, q

"""Patterns (spec 13.9): levels, enabling by name, the InPlace switch, and their
effect on the compiled graph."""
import json

import numpy as np
import onnx.helper as oh
import pytest

import popart
from _session_models import F32, make_model, relu, relu_model, run, session


def op_types(s):
    return [op["type"] for op in json.loads(s.getSerializedGraph())["maingraph"]]


def test_levels():
    names = popart.Patterns().getAllPatternNames()
    assert "IdentityRemoval" in names
    assert popart.Patterns().isPatternEnabled("IdentityRemoval")
    assert popart.Patterns(popart.PatternsLevel.Minimal).isPatternEnabled("IdentityRemoval")
    assert popart.Patterns(popart.PatternsLevel.All).getEnabledPatternNames() == names
    none = popart.Patterns(popart.PatternsLevel.NoPatterns)
    assert not none.InPlace
    assert popart.Patterns().InPlace and popart.Patterns().level == popart.PatternsLevel.Default


def test_enable_pattern_by_name():
    p = popart.Patterns(popart.PatternsLevel.NoPatterns)
    assert not p.isPatternEnabled("IdentityRemoval")
    assert p.enablePattern("IdentityRemoval", True) is p  # chainable
    assert p.isPatternEnabled("IdentityRemoval")
    p.enablePattern("IdentityRemoval", False)
    assert not p.isPatternEnabled("IdentityRemoval")
    p.enablePattern("InPlace", True)
    assert p.InPlace and p.isPatternEnabled("InPlace")


def test_unknown_pattern_name_raises():
    with pytest.raises(popart.popart_exception, match="unknown pattern 'NoSuchPattern'"):
        popart.Patterns().enablePattern("NoSuchPattern", True)
    with pytest.raises(popart.popart_exception, match="unknown pattern 'NoSuchPattern'"):
        popart.Patterns().isPatternEnabled("NoSuchPattern")
    with pytest.raises(popart.popart_exception, match="unknown pattern 'Nope'"):
        popart.Patterns(["Nope"])


def test_patterns_from_a_list():
    p = popart.Patterns(["InPlace"])
    assert p.InPlace and p.getEnabledPatternNames() == []
    p = popart.Patterns(["IdentityRemoval"])
    assert not p.InPlace and p.getEnabledPatternNames() == ["IdentityRemoval"]
    assert popart.Patterns.create(["InPlace"]) == popart.Patterns(["InPlace"])
    assert popart.Patterns(["InPlace"]) != popart.Patterns([])


def test_runtime_asserts_and_inplace_setters():
    p = popart.Patterns()
    assert p.getRuntimeAssertsOn()
    assert p.enableRuntimeAsserts(False) is p and not p.getRuntimeAssertsOn()
    p.InPlace = False
    assert not p.isInPlaceEnabled()
    p.enableInPlace(True)
    assert p.InPlace
    p.UpdateInplacePrioritiesForIpu = True
    assert p.UpdateInplacePrioritiesForIpu
    assert "InPlace" in repr(p)


@pytest.mark.parametrize("patterns,inplace", [
    (None, True), (popart.Patterns(["InPlace"]).enableRuntimeAsserts(False), True),
    (popart.Patterns([]).enableRuntimeAsserts(False), False),
    (popart.Patterns(popart.PatternsLevel.NoPatterns).enableRuntimeAsserts(False), False)])
def test_inplace_switch_changes_the_graph_not_the_result(patterns, inplace):
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    model = make_model([oh.make_node("Relu", ["x"], ["r"]), oh.make_node("Relu", ["r"], ["out"])],
                       [("x", F32, [2, 3])], [("out", F32, [2, 3])])
    s = session(model, ["out"], patterns=patterns)
    assert ("ReluInplace" in op_types(s)) == inplace
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x))


def test_identity_removal_follows_the_pattern_switch():
    model = make_model([oh.make_node("Relu", ["x"], ["r"]), oh.make_node("Identity", ["r"], ["i"]),
                        oh.make_node("Relu", ["i"], ["out"])], [("x", F32, [2, 3])], [("out", F32, [2, 3])])
    removed = session(model, ["out"], patterns=popart.Patterns(["IdentityRemoval"]).enableRuntimeAsserts(False))
    kept = session(model, ["out"], patterns=popart.Patterns([]).enableRuntimeAsserts(False))
    assert "Identity" not in op_types(removed) and "Identity" in op_types(kept)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run(removed, {"x": x})["out"], run(kept, {"x": x})["out"])


def test_patterns_argument_default_is_default_level():
    s = session(relu_model(), ["out"])
    assert s.getInfo("out").shape() == [2, 3]

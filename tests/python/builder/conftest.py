# Shared helpers for the Builder tests: parse the builder's model with onnx.
import onnx
import pytest


@pytest.fixture
def to_onnx():
    def parse(builder):
        return onnx.load_from_string(builder.getModelProto())
    return parse

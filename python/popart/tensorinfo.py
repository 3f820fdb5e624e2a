"""popart.TensorInfo: the C++ TensorInfo, also constructible from numpy."""
import numpy as np
import popart_core

_NUMPY_TO_POPART = {
    np.dtype(np.uint8): "UINT8", np.dtype(np.int8): "INT8",
    np.dtype(np.uint16): "UINT16", np.dtype(np.int16): "INT16",
    np.dtype(np.int32): "INT32", np.dtype(np.int64): "INT64",
    np.dtype(np.uint32): "UINT32", np.dtype(np.uint64): "UINT64",
    np.dtype(np.bool_): "BOOL", np.dtype(np.float32): "FLOAT",
    np.dtype(np.float16): "FLOAT16", np.dtype(np.float64): "DOUBLE",
    np.dtype(np.complex64): "COMPLEX64", np.dtype(np.complex128): "COMPLEX128",
}
_EXTENDED = False


def _extend():
    """Adds BFLOAT16 and the ONNX storage types (the ml_dtypes dtypes onnx uses) on first need: ml_dtypes
    costs memory and time at import, and most programs never meet these types. False if nothing was added."""
    global _EXTENDED
    if _EXTENDED:
        return False
    _EXTENDED = True
    try:
        import ml_dtypes
    except ImportError:
        return False
    _NUMPY_TO_POPART.update({
        np.dtype(ml_dtypes.bfloat16): "BFLOAT16", np.dtype(ml_dtypes.float8_e4m3fn): "FLOAT8E4M3FN",
        np.dtype(ml_dtypes.float8_e4m3fnuz): "FLOAT8E4M3FNUZ", np.dtype(ml_dtypes.float8_e5m2): "FLOAT8E5M2",
        np.dtype(ml_dtypes.float8_e5m2fnuz): "FLOAT8E5M2FNUZ", np.dtype(ml_dtypes.float4_e2m1fn): "FLOAT4E2M1",
        np.dtype(ml_dtypes.int4): "INT4", np.dtype(ml_dtypes.uint4): "UINT4",
        np.dtype(ml_dtypes.int2): "INT2", np.dtype(ml_dtypes.uint2): "UINT2",
        np.dtype(ml_dtypes.float8_e8m0fnu): "FLOAT8E8M0",
    })
    _POPART_TO_NUMPY.update({v: k for k, v in _NUMPY_TO_POPART.items()})
    return True


_POPART_TO_NUMPY = {v: k for k, v in _NUMPY_TO_POPART.items()}


def popart_type_of(dtype) -> str:
    """PopART type string ("FLOAT", ...) of a numpy dtype or dtype-like."""
    try:
        return _NUMPY_TO_POPART[np.dtype(dtype)]
    except KeyError:
        if _extend():
            return popart_type_of(dtype)
    except TypeError:
        pass
    raise TypeError(f"numpy dtype {dtype!r} has no PopART equivalent")


def numpy_type_of(popart_type: str):
    """numpy dtype of a PopART type string (ml_dtypes for BFLOAT16 and the ONNX
    storage types); raises for FLOAT8_143, FLOAT8_152, STRING and UNDEFINED."""
    try:
        return _POPART_TO_NUMPY[popart_type.upper()]
    except KeyError:
        if _extend():
            return numpy_type_of(popart_type)
    raise TypeError(f"PopART type {popart_type} has no numpy equivalent")


class TensorInfo(popart_core._TensorInfoCore):
    """Type and shape of a tensor: TensorInfo(dtype, shape) or TensorInfo(ndarray).

    dtype may be a PopART string ("FLOAT16"), a popart.DataType or a numpy dtype."""

    def __init__(self, *args):
        if len(args) == 1 and isinstance(args[0], np.ndarray):
            arr = args[0]
            super().__init__(popart_type_of(arr.dtype), list(arr.shape))
        elif len(args) == 2:
            dtype, shape = args
            if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
                raise TypeError(f"TensorInfo shape must be a sequence of ints, got {shape!r}")
            shape = [int(d) for d in shape]
            if isinstance(dtype, popart_core.DataType):
                super().__init__(dtype, shape)
            elif isinstance(dtype, str):
                super().__init__(dtype, shape)
            else:
                super().__init__(popart_type_of(dtype), shape)
        elif len(args) == 0:
            super().__init__()
        else:
            raise TypeError("TensorInfo expects (dtype, shape) or (numpy.ndarray)")

    def numpy_data_type(self):
        """The numpy dtype matching the element type (ml_dtypes types for BFLOAT16 and the 8/4/2-bit types)."""
        return numpy_type_of(self.data_type())

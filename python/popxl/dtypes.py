"""PopXL data types (section 4): each maps to a numpy type and an IR DataType."""
import numpy as np

import popart_core


class dtype:
    """A PopXL data type: name, numpy equivalent and properties."""

    _by_name = {}
    _by_numpy = {}

    def __init__(self, name, np_type, is_float, is_int, is_signed, itemsize, pb_name):
        self._name = name
        self._np_type = np_type
        self.is_floating_point = is_float
        self.is_int = is_int
        self.is_signed = is_signed
        self.itemsize = itemsize
        self._pb_dtype = getattr(popart_core.DataType, pb_name)
        dtype._by_name[name] = self
        if np_type is not None and np.dtype(np_type) not in dtype._by_numpy:
            dtype._by_numpy[np.dtype(np_type)] = self

    @property
    def name(self):
        return self._name

    def as_numpy(self):
        """The numpy type of this dtype (raises for types numpy has not)."""
        if self._np_type is None:
            raise TypeError(f"popxl.{self._name} has no numpy equivalent")
        return np.dtype(self._np_type)

    @classmethod
    def as_dtype(cls, value):
        """The popxl dtype of a dtype, numpy dtype/type, numpy array, or name."""
        if isinstance(value, dtype):
            return value
        if isinstance(value, str) and value in cls._by_name:
            return cls._by_name[value]
        if isinstance(value, np.ndarray):
            value = value.dtype
        try:
            return cls._by_numpy[np.dtype(value)]
        except (TypeError, KeyError):
            raise ValueError(f"{value!r} is not a type popxl supports") from None

    @property
    def is_complex(self) -> bool:
        """True for complex64 and complex128."""
        return self._name.startswith("complex")

    @classmethod
    def from_name(cls, name: str) -> "dtype":
        """The dtype called `name` ("float32", "half", ...)."""
        if name not in cls._by_name:
            raise ValueError(f"'{name}' is not the name of a popxl dtype (known: {', '.join(sorted(cls._by_name))})")
        return cls._by_name[name]

    def as_torch(self):
        """The torch dtype of this dtype (needs torch; raises for types torch has not)."""
        import torch
        name = {"bool": "bool", "float8_143": None, "float8_152": None}.get(self._name, self._name)
        t = getattr(torch, name, None) if name else None
        if t is None:
            raise TypeError(f"popxl.{self._name} has no torch equivalent")
        return t

    @classmethod
    def _from_pb(cls, pb):
        for d in cls._by_name.values():
            if d._pb_dtype == pb:
                return d
        raise ValueError(f"IR data type {pb} has no popxl dtype")

    def __repr__(self):
        return f"popxl.dtypes.{self._name}"

    __str__ = __repr__


def _bf16():
    try:
        import ml_dtypes
        return ml_dtypes.bfloat16
    except ImportError:  # pragma: no cover
        return None


bool = dtype("bool", np.bool_, False, False, False, 1, "BOOL")
int8 = dtype("int8", np.int8, False, True, True, 1, "INT8")
int16 = dtype("int16", np.int16, False, True, True, 2, "INT16")
int32 = dtype("int32", np.int32, False, True, True, 4, "INT32")
int64 = dtype("int64", np.int64, False, True, True, 8, "INT64")
uint8 = dtype("uint8", np.uint8, False, True, False, 1, "UINT8")
uint16 = dtype("uint16", np.uint16, False, True, False, 2, "UINT16")
uint32 = dtype("uint32", np.uint32, False, True, False, 4, "UINT32")
uint64 = dtype("uint64", np.uint64, False, True, False, 8, "UINT64")
float16 = dtype("float16", np.float16, True, False, True, 2, "FLOAT16")
float32 = dtype("float32", np.float32, True, False, True, 4, "FLOAT")
float64 = dtype("float64", np.float64, True, False, True, 8, "DOUBLE")
bfloat16 = dtype("bfloat16", _bf16(), True, False, True, 2, "BFLOAT16")
float8_143 = dtype("float8_143", np.uint8, True, False, True, 1, "FLOAT8_143")
float8_152 = dtype("float8_152", np.uint8, True, False, True, 1, "FLOAT8_152")
complex64 = dtype("complex64", np.complex64, False, False, True, 8, "COMPLEX64")
complex128 = dtype("complex128", np.complex128, False, False, True, 16, "COMPLEX128")
double = float64
half = float16
float = float32
dtype._by_name.update({"double": float64, "half": float16, "float": float32})
# Not in the guide's table 11.1: `popxl.dtypes.int` is int32, the type PopXL gives Python ints (their
# int64 host data is downcast), as `float` is float32. The guide's
# distributed_rts_simple_example_manual_remote_buffer.py names it for a buffer of Python ints.
int = int32

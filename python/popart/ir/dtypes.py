"""popart.ir.dtypes: the data types of popart.ir (table 11.1), with the aliases half, float and double."""
from popxl.dtypes import (  # noqa: F401
    bool, dtype, double, float, float16, float32, float64, half, int8, int16, int32, int64, uint8, uint16,
    uint32, uint64,
)

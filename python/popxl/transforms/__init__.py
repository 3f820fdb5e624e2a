"""popxl.transforms: graph transformations (autodiff)."""
from popxl.transforms.autodiff import (  # noqa: F401
    ExpectedConnection, ExpectedConnectionType, GradGraphInfo, autodiff,
)

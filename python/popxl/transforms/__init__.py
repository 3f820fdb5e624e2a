"""popxl.transforms: graph transformations (autodiff, merged exchanges)."""
from popxl.transforms.autodiff import (  # noqa: F401
    ExpectedConnection, ExpectedConnectionType, GradGraphInfo, autodiff,
)
from popxl.transforms.exchange import io_tile_exchange, merge_exchange  # noqa: F401,E402
from popxl.transforms.decompose_sum import decompose_sum  # noqa: F401,E402

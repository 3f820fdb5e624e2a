"""popxl.Module: a callable whose `build` method is made into a graph by Ir.create_graph."""


class Module:
    """Subclass and define `build(self, *tensors)`; `ir.create_graph(module, ...)` builds it."""

    def build(self, *args, **kwargs):
        raise NotImplementedError("a popxl.Module subclass defines build()")

    def __call__(self, *args, **kwargs):
        return self.build(*args, **kwargs)

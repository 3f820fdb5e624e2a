"""popxl.transforms.merge_exchange / io_tile_exchange: host and remote exchanges created together run as
one group. On the CPU an exchange is a copy, so merging fixes their order (creation order, one after the
other with nothing in between that depends on them) rather than saving a synchronisation."""
from contextlib import contextmanager

from popxl import context

_EXCHANGE_OPS = ("HostLoad", "HostStore", "RemoteLoad", "RemoteStore")


@contextmanager
def _collect_exchanges(what: str):
    g = context.get_current_graph()
    created = []
    handle = g.register_op_created_hook(created.append)
    try:
        yield g, created
    finally:
        g.remove_op_created_hook(handle)


def _chain(g, ops_):
    for before, after in zip(ops_, ops_[1:]):
        g._pb_graph.addTopoCon(before, after)


@contextmanager
def merge_exchange():
    """Host loads/stores and remote loads/stores created inside run as one group, in creation order."""
    with _collect_exchanges("merge_exchange") as (g, created):
        yield
    _chain(g, [op for op in created if op.opType() in _EXCHANGE_OPS])


@contextmanager
def io_tile_exchange(verify_overlap: bool = True):
    """Ops created inside go to the IO tiles and their exchanges are merged (merge_exchange). With
    `verify_overlap`, no op inside may read what a load inside produced: such a dependency would keep the
    exchange from overlapping with compute."""
    with _collect_exchanges("io_tile_exchange") as (g, created), context.io_tiles():
        yield
    exchanges = [op for op in created if op.opType() in _EXCHANGE_OPS]
    if verify_overlap:
        loaded = {op.getOutputIds()[i] for op in exchanges if op.opType().endswith("Load")
                  for i in op.getOutputIds()}
        for op in created:
            if op.opType() in _EXCHANGE_OPS or op.opType() == "Init":
                continue
            used = loaded & set(op.getInputIds().values())
            if used:
                raise ValueError(f"io_tile_exchange: op {op.name() or op.opType()} reads '{sorted(used)[0]}', loaded "
                                 "in the same io_tile_exchange block, so the exchange cannot overlap compute "
                                 "(move the op out of the block, or pass verify_overlap=False)")
    _chain(g, exchanges)

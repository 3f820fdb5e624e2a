"""Helpers for code that adds ops to PopXL graphs itself (custom-op wrappers)."""


def check_in_graph(graph, **tensors) -> None:
    """Raises ValueError unless every tensor given (keyword: a name for the message) belongs to `graph`."""
    for name, t in tensors.items():
        graph._check_in_graph(t, f"tensor argument '{name}'")

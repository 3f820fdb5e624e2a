"""Makes the shared helpers (_torch_models) importable: the suite runs with
pytest's importlib mode, which does not put test folders on sys.path."""
import os
import sys

sys.path.append(os.path.dirname(os.path.abspath(__file__)))  # after tests/python: `conftest` stays the top one

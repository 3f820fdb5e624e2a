"""Makes _optim_helpers importable under pytest's importlib mode."""
import os
import sys

sys.path.append(os.path.dirname(os.path.abspath(__file__)))  # after tests/python: `conftest` stays the top one

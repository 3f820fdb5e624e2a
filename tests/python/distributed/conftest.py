"""Makes the shared helpers (_session_models) importable: the suite runs with
pytest's importlib mode, which does not put test folders on sys.path."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

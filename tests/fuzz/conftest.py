"""Makes fuzz_models importable (pytest runs in importlib mode, which does not put
test folders on sys.path)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
